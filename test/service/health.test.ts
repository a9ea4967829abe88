import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { sql } from 'kysely';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { ApiClient, createTenant, startTestService, storeKinds, type TestService } from '../support/service.js';
import { jobsOf } from '../support/sync-jobs.js';
import { startTcpProxy, throughProxy, type TcpProxy } from '../support/tcp-proxy.js';

/** Polls `condition` every 100 ms for up to 20 s. */
async function waitFor(condition: () => Promise<boolean>): Promise<void> {
  for (const started = Date.now(); !(await condition().catch(() => false)); ) {
    if (Date.now() - started > 20_000) throw new Error('the condition did not hold within 20 s');
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

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

  it("keeps running when the store goes away under a running sync, and records the job's end once it is back", { timeout: 60_000 }, async () => {
    const tenant = await createTenant(service);
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    try {
      // The vendor answers after the store is gone: the sync fails, and the queue must record that job's end.
      const vendor = nock('https://api.harvestapp.com')
        .get('/v2/users')
        .query(true)
        .delay(1_500)
        .reply(200, { users: [{ id: 1, first_name: 'Ana', updated_at: '2026-01-01T00:00:00Z' }], links: { next: null } });
      const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'Harvest outage',
        credentials: { api_token: 'pat-outage', account_id: '1' },
        replication_config: { sync_interval_minutes: 0 },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const id = created.body.id;
      const asked = new Promise((resolve) => vendor.once('request', resolve));
      expect((await tenant.api.post(`/api/v1/integrations/connectors/${id}/sync`, { entity: 'users' })).status).toBe(202);
      await asked;

      await proxy.stop();
      await waitFor(async () => vendor.isDone());
      // The failed sync's end is sent to a store that is not there (an unhandled rejection, before, ended the process).
      await new Promise((resolve) => setTimeout(resolve, 2_000));
      await proxy.start();

      await waitFor(async () => (await jobsOf(service.store, id)).every((job) => job.state !== 'active'));
      expect((await jobsOf(service.store, id)).map((job) => job.state)).toEqual([expect.stringMatching(/^(retry|failed)$/)]);
      expect((await tenant.api.get(`/api/v1/integrations/connectors/${id}`)).status).toBe(200);
    } finally {
      await proxy.start().catch(() => undefined);
      nock.cleanAll();
      nock.enableNetConnect();
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
