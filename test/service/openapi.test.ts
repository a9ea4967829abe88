import { randomBytes } from 'node:crypto';
import type { RouteOptions } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { composeService } from '../../src/composition.js';
import type { Store } from '../../src/db/database.js';
import { Keyring } from '../../src/security/keyring.js';
import type { FastifyInstance } from 'fastify';
import { openMemoryStore } from '../support/store.js';
import { testConfig } from '../support/config.js';

interface Operation {
  summary?: string;
  operationId?: string;
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
  /** Static assets of the connect page and the GET/DELETE /mcp 405 answers, deliberately left out of the API description. */
  const hidden = new Set<string>();
  let document: {
    openapi: string;
    servers: unknown[];
    paths: Record<string, Record<string, Operation>>;
    components: { securitySchemes: Record<string, unknown> };
  };

  beforeAll(async () => {
    store = await openMemoryStore();
    const { ctx } = composeService({
      store,
      keyring: new Keyring(randomBytes(32)),
      config: testConfig({ dataDir: '/nonexistent' }),
    });
    app = buildApp(ctx);
    // Route modules are registered when the app becomes ready, so this hook sees every one of them.
    app.addHook('onRoute', (route: RouteOptions) => {
      for (const method of [route.method].flat()) {
        if (method === 'HEAD') continue;
        // Hidden routes (connect page assets; the 405 answers of GET/DELETE /mcp) are not API operations.
        if ((route.schema as { hide?: boolean } | undefined)?.hide === true) {
          hidden.add(route.url);
          continue;
        }
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
    expect(Object.keys(document.components.securitySchemes).sort()).toEqual(['HTTPBearer', 'MetricsToken', 'OperatorToken']);
    expect(document.components.securitySchemes.HTTPBearer).toMatchObject({ type: 'http', scheme: 'bearer' });
  });

  it('has every registered route, each with a summary and its responses', () => {
    expect(routes.length).toBeGreaterThan(15);
    for (const route of routes) {
      const operation = document.paths[openapiPath(route.url)]?.[route.method];
      expect(operation, `${route.method.toUpperCase()} ${route.url} is missing from the OpenAPI description`).toBeDefined();
      expect(operation?.summary, `${route.method.toUpperCase()} ${route.url} has no summary`).toBeTruthy();
      // Airbyte data-pipeline operations exist only to answer 501 saying so (src/routes/data-pipeline.ts).
      const notOffered = (operation as { tags?: string[] } | undefined)?.tags?.includes('Not offered') === true;
      expect(Object.keys(operation?.responses ?? {}), `${route.method.toUpperCase()} ${route.url} declares no success response`).toEqual(
        expect.arrayContaining([notOffered ? '501' : expect.stringMatching(/^[23]\d\d$/)]),
      );
    }
  });

  it('describes no route that does not exist', () => {
    const registered = new Set(routes.map((r) => `${r.method} ${openapiPath(r.url)}`));
    for (const [path, operations] of Object.entries(document.paths)) {
      for (const method of Object.keys(operations)) expect(registered.has(`${method} ${path}`), `${method} ${path}`).toBe(true);
    }
  });

  it('marks only the token endpoint, the probes, the metrics, the description itself and the connect page (authenticated by its widget token) as reachable without a token', () => {
    const open = routes.filter((r) => r.public).map((r) => `${r.method} ${r.url}`);
    expect(open.sort()).toEqual([
      'get /api/v1/openapi.json',
      'get /connect',
      'get /connect/oauth/callback',
      'get /health',
      'get /metrics',
      'get /ready',
      'post /api/v1/account/applications/token',
      'post /connect/connectors',
      'post /connect/oauth/start',
    ]);
    expect([...hidden].sort()).toEqual(['/connect/assets/connect.css', '/connect/assets/connect.js', '/mcp']);
    for (const route of routes) {
      const operation = document.paths[openapiPath(route.url)]?.[route.method];
      if (route.url === '/metrics') expect(operation?.security).toEqual([{}, { MetricsToken: [] }]);
      else if (route.public) expect(operation?.security, route.url).toEqual([]);
      else if (route.url.startsWith('/api/v1/admin')) expect(operation?.security, route.url).toEqual([{ OperatorToken: [] }]);
      else expect(operation?.security, route.url).toEqual([{ HTTPBearer: [] }]);
      if (!route.public) expect(Object.keys(operation?.responses ?? {}), `${route.method} ${route.url} declares no 401`).toContain('401');
    }
  });

  it('names every operation with a unique operationId, the reference service way', () => {
    const ids = Object.values(document.paths).flatMap((ops) => Object.values(ops).map((op) => op.operationId));
    expect(ids.every((id) => typeof id === 'string' && /^[a-z][a-z0-9_]*$/.test(id))).toBe(true);
    expect(new Set(ids).size).toBe(ids.length);
    expect(document.paths['/api/v1/integrations/connectors/{id}/execute']?.post?.operationId).toBe('create_integrations_connectors_id_execute');
    expect(document.paths['/api/v1/integrations/connectors']?.get?.operationId).toBe('list_integrations_connectors');
    expect(document.paths['/api/v1/workspaces/{workspace_id}']?.delete?.operationId).toBe('delete_workspaces_workspace_id');
    expect(document.paths['/api/v1/skills/docs']?.get?.operationId).toBe('get_skills_docs');
  });

  it('names a server and carries examples of the first calls', () => {
    expect(document.servers).toEqual([{ url: 'http://127.0.0.1:8080', description: 'A local Switchyard (npm start)' }]);
    const token = document.paths['/api/v1/account/applications/token']?.post as unknown as {
      requestBody: { content: { 'application/json': { example: unknown } } };
      responses: { 200: { content: { 'application/json': { example: unknown } } } };
    };
    expect(token.requestBody.content['application/json'].example).toMatchObject({ client_id: expect.any(String) });
    expect(token.responses[200].content['application/json'].example).toMatchObject({ token_type: 'bearer' });
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
      'post /api/v1/integrations/connectors/check',
      'post /api/v1/integrations/connectors/{id}/check',
      'post /api/v1/account/applications/scoped-token',
      'get /api/v1/account/applications/scoped-token/info',
      'get /api/v1/skills',
      'get /api/v1/skills/search',
      'get /api/v1/integrations/definitions/destinations',
      'get /api/v1/integrations/templates/connections',
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
