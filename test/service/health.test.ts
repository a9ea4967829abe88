import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiClient, createTenant, startTestService, storeKinds, type TestService } from '../support/service.js';
import { startTcpProxy, throughProxy, type TcpProxy } from '../support/tcp-proxy.js';

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string }>;
}

describe.each(storeKinds())('probes and unknown paths (%s)', (kind) => {
  let service: TestService;
  let api: ApiClient;

  beforeAll(async () => {
    service = await startTestService(kind);
    api = new ApiClient(service.url);
  });
  afterAll(async () => {
    await service.close();
  });

  it('GET /health answers without a token', async () => {
    const response = await api.get('/health');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ok' });
  });

  it('GET /ready reports the store, the applied schema and the loaded key, without a token', async () => {
    const response = await api.get('/ready');
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ status: 'ready', store: kind, schema_version: expect.any(Number), key_id: service.keyring.currentKeyId });
    expect(response.body.schema_version).toBeGreaterThanOrEqual(4);
  });

  it('answers unknown paths 404 in the error envelope, with or without a token', async () => {
    for (const token of [null, 'not-a-token']) {
      const response = await api.get<ErrorBody>('/api/v1/nothing-here?x=1', { token });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        message: 'No route GET /api/v1/nothing-here.',
        errors: [{ field: null, message: 'No route GET /api/v1/nothing-here.', error_code: 'not_found' }],
      });
    }
  });

  it('still asks for a token on the API routes', async () => {
    const response = await api.get<ErrorBody>('/api/v1/integrations/connectors', { token: null });
    expect(response.status).toBe(401);
    expect(response.body.errors[0]?.error_code).toBe('unauthorized');
  });
});

describe.skipIf(!inject('postgresUrl'))('a PostgreSQL outage', () => {
  let service: TestService;
  let proxy: TcpProxy;

  beforeAll(async () => {
    const cluster = new URL(inject('postgresUrl'));
    proxy = await startTcpProxy(cluster.hostname, Number(cluster.port));
    service = await startTestService('postgres', {}, { storeUrl: (url) => throughProxy(url, proxy) });
  });
  afterAll(async () => {
    await proxy.start().catch(() => undefined);
    await service.close();
    await proxy.close();
  });

  it('answers 503 store_unavailable with Retry-After while the store is down, /ready 503, and recovers when it is back', async () => {
    const tenant = await createTenant(service);
    expect((await tenant.api.get('/api/v1/integrations/connectors')).status).toBe(200);

    await proxy.stop();
    const down = await tenant.api.get<ErrorBody>('/api/v1/integrations/connectors');
    expect(down.status).toBe(503);
    expect(down.headers.get('retry-after')).toBe('5');
    expect(down.body.errors[0]?.error_code).toBe('store_unavailable');
    expect(down.body.message).toBe('The store is unreachable right now; retry shortly.');
    const ready = await tenant.api.get<ErrorBody>('/ready', { token: null });
    expect(ready.status).toBe(503);
    expect(ready.headers.get('retry-after')).toBe('5');
    expect(ready.body.errors[0]?.error_code).toBe('not_ready');
    expect((await tenant.api.get('/health', { token: null })).status).toBe(200);

    await proxy.start();
    expect((await tenant.api.get('/api/v1/integrations/connectors')).status).toBe(200);
    expect((await tenant.api.get('/ready', { token: null })).status).toBe(200);
  });

  it('answers an MCP tool call during the outage with store_unavailable, as the API does, not an internal error', async () => {
    const tenant = await createTenant(service);
    const client = new Client({ name: 'outage-test', version: '1.0.0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${service.url}/mcp`), { requestInit: { headers: { authorization: `Bearer ${tenant.api.token}` } } }),
    );
    try {
      await proxy.stop();
      const down = (await client.callTool({ name: 'list_connectors', arguments: {} })) as CallToolResult;
      expect(down.isError).toBe(true);
      expect(down.structuredContent).toMatchObject({ error: { code: 'store_unavailable', message: 'The store is unreachable right now; retry shortly.' } });
      await proxy.start();
      const up = (await client.callTool({ name: 'list_connectors', arguments: {} })) as CallToolResult;
      expect(up.isError).toBeFalsy();
    } finally {
      await proxy.start().catch(() => undefined);
      await client.close();
    }
  });

  it('survives a connection lost in the middle of a query: the query fails, the process goes on', async () => {
    const inFlight = sql`SELECT pg_sleep(5)`.execute(service.store.db);
    const settled = inFlight.then(
      () => 'completed',
      (error: Error) => error.message,
    );
    await new Promise((resolve) => setTimeout(resolve, 300));
    await proxy.stop();
    expect(await settled).toMatch(/Connection terminated/);
    // An unheard 'error' on the pool's checked-out connection would surface here as an uncaught exception.
    await new Promise((resolve) => setTimeout(resolve, 200));
    await proxy.start();
    expect((await sql<{ one: number }>`SELECT 1 AS one`.execute(service.store.db)).rows[0]?.one).toBe(1);
  });
});
