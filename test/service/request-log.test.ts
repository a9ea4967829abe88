import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyBaseLogger } from 'fastify';
import { loggerOptions } from '../../src/app.js';
import { OutageLog } from '../../src/plugins/error-handler.js';
import { redactUrl } from '../../src/observability/request-log.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

describe('redactUrl', () => {
  it('replaces the values of secret query parameters and keeps the rest', () => {
    expect(redactUrl('/connect?token=eyJ.abc.def')).toBe('/connect?token=[redacted]');
    expect(redactUrl('/connect/oauth/callback?code=4%2F0Ab&state=s1&scope=read')).toBe('/connect/oauth/callback?code=[redacted]&state=[redacted]&scope=read');
    expect(redactUrl('/api/v1/workspaces?limit=2&cursor=eyJ2')).toBe('/api/v1/workspaces?limit=2&cursor=eyJ2');
    expect(redactUrl('/x?Access_Token=a&%74oken=b&flag&token')).toBe('/x?Access_Token=[redacted]&%74oken=[redacted]&flag&token');
    expect(redactUrl('/x?%E0%A4%A=1')).toBe('/x?%E0%A4%A=1');
    expect(redactUrl('/health')).toBe('/health');
    // Lookalikes that still carry a token: a bracketed name, a query written percent-encoded into the path.
    expect(redactUrl('/connect?token[]=eyJ.abc&x=1')).toBe('/connect?token[]=[redacted]&x=1');
    expect(redactUrl('/connect?token%5B%5D=eyJ.abc')).toBe('/connect?token%5B%5D=[redacted]');
    expect(redactUrl('/connect%3Ftoken=eyJ.abc')).toBe('/connect%3Ftoken=[redacted]');
    expect(redactUrl('/connect%3Ftoken%3DeyJ.abc%26a%3D1')).toBe('/connect%3Ftoken%3D[redacted]%26a%3D1');
  });
});

describe('the service log', () => {
  let service: TestService;
  let tenant: Tenant;
  let vendor: Server;
  const lines: string[] = [];

  beforeAll(async () => {
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    vendor = createServer((request, response) => {
      request.resume();
      response.writeHead(503, { 'content-type': 'application/json' }).end('{"message":"down for maintenance"}');
    });
    await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
    service = await startTestService(
      'pglite',
      { upstreamBaseUrls: { harvest: `http://127.0.0.1:${(vendor.address() as AddressInfo).port}` }, upstreamRetries: 0 },
      { log: pino(loggerOptions('info'), sink) },
    );
    tenant = await createTenant(service, 'Acme');
  });
  afterAll(async () => {
    await service?.close();
    await new Promise((resolve) => vendor?.close(resolve));
  });

  it('never holds the connect page token or an OAuth code from a request URL', async () => {
    const widget = await tenant.api.post<{ token: string }>('/api/v1/account/applications/widget-token', {
      workspace_name: 'w',
      allowed_origin: 'https://app.example.com',
    });
    expect(widget.status).toBe(200);
    const token = widget.body.token;
    expect((await fetch(`${service.url}/connect?token=${token}`)).status).toBe(200);
    await fetch(`${service.url}/connect/oauth/callback?code=one-time-code-7f3a&state=opaque-state`);
    await fetch(`${service.url}/api/v1/nowhere?token=stray-token-91c2`);

    const log = lines.join('\n');
    expect(log).toContain('"url":"/connect?token=[redacted]"');
    expect(log).toContain('"url":"/connect/oauth/callback?code=[redacted]&state=[redacted]"');
    expect(log).toContain('"url":"/api/v1/nowhere?token=[redacted]"');
    for (const secret of [token, 'one-time-code-7f3a', 'stray-token-91c2', tenant.clientSecret]) expect(log).not.toContain(secret);
  });

  it('writes one line per answered request, with its route, status, organization, connector and error code; vendor failures as warnings, probes not at info', async () => {
    const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
      workspace_name: 'default',
      connector_type: 'harvest',
      name: 'Harvest',
      credentials: { api_token: 'pat-log-0001', account_id: '1' },
      replication_config: { sync_interval_minutes: 0 },
    });
    const id = created.body.id;
    lines.length = 0;
    const failed = await tenant.api.post(`/api/v1/integrations/connectors/${id}/execute`, { entity: 'users', action: 'list' });
    expect(failed.status).toBe(502);
    expect((await fetch(`${service.url}/health`)).status).toBe(200);
    expect((await fetch(`${service.url}/api/v1/nowhere?q=${'x'.repeat(5_000)}`)).status).toBe(404);

    const entries = lines.map((line) => JSON.parse(line) as Record<string, unknown>).filter((entry) => entry.msg === 'request answered');
    expect(entries).toHaveLength(2);
    const [execute, unknown] = entries;
    expect(execute).toMatchObject({
      level: 40,
      route: '/api/v1/integrations/connectors/:id/execute',
      status: 502,
      organization_id: tenant.organizationId,
      connector_id: id,
      error_code: 'upstream_error',
      req: { method: 'POST', url: `/api/v1/integrations/connectors/${id}/execute` },
      response_time_ms: expect.any(Number),
    });
    expect(execute?.reqId).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-/);
    expect(unknown).toMatchObject({ level: 30, route: null, status: 404, error_code: 'not_found' });
    expect(((unknown?.req ?? {}) as { url?: string }).url?.length).toBe(2_049);
    // No second line per request, and no line for the probe at info.
    expect(lines.filter((line) => line.includes('"msg":"incoming request"'))).toEqual([]);
    expect(lines.join('\n')).not.toContain('"url":"/health"');
  });

  it('logs the error code the client reads: a connector refused for a private host is private_address', async () => {
    lines.length = 0;
    const refused = await tenant.api.post<{ errors: Array<{ error_code: string }> }>('/api/v1/integrations/connectors', {
      workspace_name: 'default',
      connector_type: 'sentry',
      name: 'Internal Sentry',
      credentials: { auth_token: 'sntrys_log_token_0001' },
      replication_config: { host: '192.168.1.20' },
    });
    expect(refused.status).toBe(400);
    expect(refused.body.errors[0]?.error_code).toBe('private_address');
    const entry = lines.map((line) => JSON.parse(line) as Record<string, unknown>).find((line) => line.msg === 'request answered');
    expect(entry).toMatchObject({ status: 400, error_code: 'private_address' });
  });
});

describe('a store outage in the log', () => {
  it('tells the first refusal with its cause, then at most one line every 10 s with the count, and a new outage afresh', () => {
    const written: Array<{ fields: Record<string, unknown>; msg: string }> = [];
    const log = { warn: (fields: Record<string, unknown>, msg: string) => written.push({ fields, msg }) } as unknown as FastifyBaseLogger;
    const outage = new OutageLog();
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
    const start = 1_000_000;
    for (let second = 0; second < 25; second++) for (let i = 0; i < 3; i++) outage.refused(log, cause, start + second * 1_000);
    outage.refused(log, cause, start + 200_000);
    expect(written.map((line) => line.msg)).toEqual([
      'store unavailable',
      'store still unavailable; requests refused since the last line',
      'store still unavailable; requests refused since the last line',
      'store unavailable',
    ]);
    expect(written[0]?.fields.err).toBe(cause);
    expect(written[1]?.fields).toEqual({ err: 'connect ECONNREFUSED 127.0.0.1:5432', refused: 30 });
    expect(written[2]?.fields).toEqual({ err: 'connect ECONNREFUSED 127.0.0.1:5432', refused: 30 });
  });
});

describe('a client that goes away before its answer', () => {
  it('stops the vendor call and its retries, and the request is logged and counted as 499', async () => {
    let asked = 0;
    const slowVendor = createServer((request, response) => {
      request.resume();
      asked += 1;
      response.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' }).end('{"message":"slow down"}');
    });
    await new Promise<void>((resolve) => slowVendor.listen(0, '127.0.0.1', resolve));
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
        done();
      },
    });
    const service = await startTestService(
      'pglite',
      { upstreamBaseUrls: { harvest: `http://127.0.0.1:${(slowVendor.address() as AddressInfo).port}` }, upstreamRetries: 3 },
      { log: pino(loggerOptions('info'), sink) },
    );
    try {
      const tenant = await createTenant(service, 'Gone');
      const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'Harvest',
        credentials: { api_token: 'pat-gone', account_id: '1' },
        replication_config: { sync_interval_minutes: 0 },
      });
      // The client (curl -m 0.4, say) drops the connection while the service waits out the vendor's Retry-After.
      const body = JSON.stringify({ entity: 'users', action: 'list' });
      const socket = connect(Number(new URL(service.url).port), '127.0.0.1', () =>
        socket.write(
          `POST /api/v1/integrations/connectors/${created.body.id}/execute HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.api.token}\r\n` +
            `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`,
        ),
      );
      socket.on('error', () => undefined);
      await new Promise((resolve) => setTimeout(resolve, 400));
      socket.destroy();
      // Without the stop, the vendor would be asked again after each 1 s Retry-After: 4 requests in 3 s.
      await new Promise((resolve) => setTimeout(resolve, 2_500));
      expect(asked).toBe(1);
      const answered = lines
        .map((line) => JSON.parse(line) as Record<string, unknown>)
        .filter((entry) => entry.msg === 'request answered' && entry.route === '/api/v1/integrations/connectors/:id/execute');
      expect(answered).toEqual([
        expect.objectContaining({
          status: 499,
          error_code: 'client_closed_request',
          level: 30,
          connector_id: created.body.id,
          organization_id: tenant.organizationId,
        }),
      ]);
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      expect(metrics).toContain('switchyard_http_requests_total{method="POST",route="/api/v1/integrations/connectors/:id/execute",status_code="499"} 1');
    } finally {
      await service.close();
      slowVendor.closeAllConnections();
      await new Promise((resolve) => slowVendor.close(resolve));
    }
  });
});
