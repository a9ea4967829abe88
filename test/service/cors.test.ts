/**
 * Calls from a web page on another origin, as a browser makes them: the preflight (OPTIONS with Origin and
 * Access-Control-Request-*), then the call with Origin. Only the origins of CORS_ORIGINS are let through.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openStartingPort } from '../../src/starting-port.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const APP = 'https://app.example.com';

function preflight(url: string, origin: string, method = 'GET', headers = 'authorization'): Promise<Response> {
  return fetch(url, { method: 'OPTIONS', headers: { origin, 'access-control-request-method': method, 'access-control-request-headers': headers } });
}

describe('CORS_ORIGINS set', () => {
  let service: TestService;
  let tenant: Tenant;

  beforeAll(async () => {
    service = await startTestService('pglite', { corsOrigins: [APP] });
    tenant = await createTenant(service);
  });
  afterAll(async () => service?.close());

  it('answers the preflight of a listed origin with the methods and headers the API takes, without a token', async () => {
    const response = await preflight(`${service.url}/api/v1/workspaces`, APP, 'PUT', 'authorization, content-type, x-organization-id');
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(APP);
    expect(response.headers.get('access-control-allow-methods')).toContain('PUT');
    expect(response.headers.get('access-control-allow-headers')).toBe(
      'authorization, content-type, x-organization-id, accept, mcp-protocol-version, mcp-session-id, last-event-id',
    );
    expect(response.headers.get('access-control-allow-credentials')).toBeNull();
    expect(response.headers.get('access-control-max-age')).toBe('600');
  });

  it('lets a listed origin read the answer (errors included), and not another origin', async () => {
    const listed = await fetch(`${service.url}/api/v1/workspaces`, { headers: { origin: APP, authorization: `Bearer ${tenant.api.token}` } });
    expect(listed.status).toBe(200);
    expect(listed.headers.get('access-control-allow-origin')).toBe(APP);
    const refused = await fetch(`${service.url}/api/v1/workspaces`, { headers: { origin: APP } });
    expect(refused.status).toBe(401);
    expect(refused.headers.get('access-control-allow-origin')).toBe(APP);
    expect(refused.headers.get('access-control-expose-headers')).toContain('www-authenticate');
    const other = await fetch(`${service.url}/api/v1/workspaces`, { headers: { origin: 'https://evil.example', authorization: `Bearer ${tenant.api.token}` } });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
    const otherPreflight = await preflight(`${service.url}/api/v1/workspaces`, 'https://evil.example');
    expect(otherPreflight.headers.get('access-control-allow-origin')).toBeNull();
  });

  it('answers the same while the service starts: a page of a listed origin reads the 503 starting', async () => {
    const starting = await openStartingPort('127.0.0.1', 0, { corsOrigins: [APP] });
    try {
      const base = `http://127.0.0.1:${starting.port}`;
      const names = ['access-control-allow-origin', 'access-control-allow-methods', 'access-control-allow-headers', 'access-control-max-age', 'vary'];
      const early = await preflight(`${base}/api/v1/workspaces`, APP, 'PUT', 'authorization, content-type');
      const later = await preflight(`${service.url}/api/v1/workspaces`, APP, 'PUT', 'authorization, content-type');
      expect(early.status).toBe(204);
      expect(Object.fromEntries(names.map((name) => [name, early.headers.get(name)]))).toEqual(
        Object.fromEntries(names.map((name) => [name, later.headers.get(name)])),
      );
      const call = await fetch(`${base}/api/v1/workspaces`, { headers: { origin: APP, authorization: 'Bearer x' } });
      expect(call.status).toBe(503);
      expect(call.headers.get('access-control-allow-origin')).toBe(APP);
      expect(call.headers.get('access-control-expose-headers')).toContain('retry-after');
      expect(((await call.json()) as { errors: Array<{ error_code: string }> }).errors[0]?.error_code).toBe('starting');
      const other = await fetch(`${base}/api/v1/workspaces`, { headers: { origin: 'https://evil.example' } });
      expect(other.status).toBe(503);
      expect(other.headers.get('access-control-allow-origin')).toBeNull();
      const otherPreflight = await preflight(`${base}/api/v1/workspaces`, 'https://evil.example');
      expect(otherPreflight.status).toBe(503);
      expect(otherPreflight.headers.get('access-control-allow-origin')).toBeNull();
    } finally {
      await starting.close();
    }
  });

  it('keeps 404 for unknown paths and 405 with the real methods for known ones, OPTIONS among them (the preflight route is a catch-all)', async () => {
    const unknown = await fetch(`${service.url}/api/v1/nowhere`, { headers: { origin: APP } });
    expect(unknown.status).toBe(404);
    expect(((await unknown.json()) as { errors: Array<{ error_code: string }> }).errors[0]?.error_code).toBe('not_found');
    const wrongMethod = await fetch(`${service.url}/api/v1/workspaces`, { method: 'PATCH', headers: { authorization: `Bearer ${tenant.api.token}` } });
    expect(wrongMethod.status).toBe(405);
    expect(wrongMethod.headers.get('allow')).toBe('GET, HEAD, OPTIONS');
    const options = await fetch(`${service.url}/api/v1/workspaces`, { method: 'OPTIONS' });
    expect(options.status).toBe(204);
  });
});

describe('CORS_ORIGINS unset', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService('pglite');
  });
  afterAll(async () => service?.close());

  it('sends no CORS header, and OPTIONS is a method the API does not answer', async () => {
    const response = await preflight(`${service.url}/api/v1/workspaces`, APP);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('GET, HEAD');
    expect(response.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('the CORS_ORIGINS setting', () => {
  it('takes origins or *, and refuses anything else naming it', () => {
    expect(loadConfig({ CORS_ORIGINS: 'https://app.example.com, http://localhost:3000' }).corsOrigins).toEqual([
      'https://app.example.com',
      'http://localhost:3000',
    ]);
    expect(loadConfig({ CORS_ORIGINS: '*' }).corsOrigins).toBe('*');
    expect(loadConfig({}).corsOrigins).toBeUndefined();
    for (const bad of ['https://app.example.com/path', 'app.example.com', 'javascript:alert(1)']) {
      expect(() => loadConfig({ CORS_ORIGINS: bad }), bad).toThrow(/CORS_ORIGINS must list origins/);
    }
  });
});
