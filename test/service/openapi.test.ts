import { randomBytes } from 'node:crypto';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { composeService } from '../../src/composition.js';
import { openStore, type Store } from '../../src/db/database.js';
import { Keyring } from '../../src/security/keyring.js';
import type { FastifyInstance } from 'fastify';

interface Operation {
  summary?: string;
  responses?: Record<string, unknown>;
  security?: unknown[];
}

/** Fastify's :param and * forms as OpenAPI path templates. */
function openapiPath(url: string): string {
  return url.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
}

describe("GET /api/v1/openapi.json describes Switchyard's own routes", () => {
  let store: Store;
  let app: FastifyInstance;
  const routes: Array<{ method: string; url: string; public: boolean }> = [];
  let document: { openapi: string; paths: Record<string, Record<string, Operation>>; components: { securitySchemes: Record<string, unknown> } };

  beforeAll(async () => {
    store = await openStore({ dataDir: 'memory://' });
    const { ctx } = composeService({
      store,
      keyring: new Keyring(randomBytes(32)),
      config: { host: '127.0.0.1', port: 0, dataDir: '/nonexistent', upstreamBaseUrls: {}, logLevel: 'silent', tokenTtlSeconds: 900, bodyLimitBytes: 1_048_576 },
    });
    app = buildApp(ctx);
    // Route modules are registered when the app becomes ready, so this hook sees every one of them.
    app.addHook('onRoute', (route: RouteOptions) => {
      // Hidden routes are protocol plumbing (the 405 answers of GET/DELETE /mcp), not API operations.
      if ((route.schema as { hide?: boolean } | undefined)?.hide === true) return;
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        routes.push({ method: method.toLowerCase(), url: route.url, public: route.config?.public === true });
      }
    });
    await app.ready();
    document = app.swagger() as unknown as typeof document;
  });
  afterAll(async () => {
    await app.close();
    await store.close();
  });

  it('is OpenAPI 3.1 with the bearer scheme', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.components.securitySchemes).toEqual({ HTTPBearer: { type: 'http', scheme: 'bearer' } });
  });

  it('has every registered route, each with a summary and its responses', () => {
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) {
      const operation = document.paths[openapiPath(route.url)]?.[route.method];
      expect(operation, `${route.method.toUpperCase()} ${route.url} is missing from the OpenAPI description`).toBeDefined();
      expect(operation?.summary, `${route.method.toUpperCase()} ${route.url} has no summary`).toBeTruthy();
      expect(Object.keys(operation?.responses ?? {}), `${route.method.toUpperCase()} ${route.url} declares no success response`).toEqual(
        expect.arrayContaining([expect.stringMatching(/^2\d\d$/)]),
      );
    }
  });

  it('describes no route that does not exist', () => {
    const registered = new Set(routes.map((r) => `${r.method} ${openapiPath(r.url)}`));
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) expect(registered.has(`${method} ${path}`), `${method} ${path}`).toBe(true);
    }
  });

  it('marks only the token endpoint as reachable without a bearer token', () => {
    const open = routes.filter((r) => r.public).map((r) => `${r.method} ${r.url}`);
    expect(open).toEqual(['post /api/v1/account/applications/token']);
  });

  it('covers the endpoints of the contract and the reference service', () => {
    const expected = [
      'post /api/v1/account/applications/token',
      'get /api/v1/integrations/definitions/sources',
      'get /api/v1/integrations/definitions/sources/{id}',
      'post /api/v1/integrations/connectors',
      'get /api/v1/integrations/connectors',
      'get /api/v1/integrations/connectors/{id}',
      'put /api/v1/integrations/connectors/{id}',
      'delete /api/v1/integrations/connectors/{id}',
      'get /api/v1/integrations/connectors/{id}/inspect',
      'post /api/v1/integrations/connectors/{id}/execute',
      'get /api/v1/skills/docs',
      'get /skills/docs',
      'get /api/v1/workspaces',
      'get /api/v1/workspaces/stats',
      'get /api/v1/workspaces/{workspace_id}',
      'put /api/v1/workspaces/{workspace_id}',
      'delete /api/v1/workspaces/{workspace_id}',
      'get /api/v1/openapi.json',
    ];
    const described = Object.entries(document.paths).flatMap(([path, ops]) => Object.keys(ops).map((m) => `${m} ${path}`));
    expect(described).toEqual(expect.arrayContaining(expected));
  });
});
