import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertConnector } from '../support/connector-rows.js';
import { ApiClient, createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { startTypeformStandIn, form, type StandIn } from '../support/typeform-stand-in.js';

const HARVEST = 'https://api.harvestapp.com';
const TOKEN_HOST = 'https://id.getharvest.com';
const execute = (id: string) => `/api/v1/integrations/connectors/${id}/execute`;

/** The value of one sample of the exposition, e.g. sample(text, 'switchyard_upstream_calls_total', {connector_type: 'harvest'}). */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  for (const line of text.split('\n')) {
    if (!line.startsWith(`${name}{`) && !line.startsWith(`${name} `)) continue;
    const found = /^[^{ ]+(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!found) continue;
    const have = Object.fromEntries([...(found[1] ?? '').matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1], m[2]]));
    if (Object.entries(labels).every(([key, value]) => have[key] === value)) return Number(found[2]);
  }
  return undefined;
}

describe.each(storeKinds())('GET /metrics (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  let upstream: StandIn;
  let metrics: () => Promise<string>;

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 2, responsesPerPage: 2 });
    upstream.forms.push(form('f1', 'One'), form('f2', 'Two'), form('f3', 'Three'));
    service = await startTestService(kind, { upstreamBaseUrls: { typeform: upstream.url }, upstreamRetries: 0 });
    tenant = await createTenant(service);
    const anonymous = new ApiClient(service.url);
    metrics = async () => {
      const response = await fetch(`${anonymous.baseUrl}/metrics`);
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
      return response.text();
    };
  });
  afterAll(async () => {
    nock.cleanAll();
    await service.close();
    await upstream.close();
  });

  it('counts requests and their latency per route template and status, without a token', async () => {
    await tenant.api.get('/api/v1/integrations/connectors');
    await tenant.api.get('/api/v1/integrations/connectors/00000000-0000-4000-8000-000000000000');
    await tenant.api.get('/no/such/path');
    const text = await metrics();
    expect(sample(text, 'switchyard_http_requests_total', { method: 'GET', route: '/api/v1/integrations/connectors', status_code: '200' })).toBe(1);
    expect(sample(text, 'switchyard_http_requests_total', { method: 'GET', route: '/api/v1/integrations/connectors/:id', status_code: '404' })).toBe(1);
    expect(sample(text, 'switchyard_http_requests_total', { method: 'GET', route: 'unmatched', status_code: '404' })).toBe(1);
    expect(
      sample(text, 'switchyard_http_request_duration_seconds_count', { method: 'GET', route: '/api/v1/integrations/connectors', status_code: '200' }),
    ).toBe(1);
    expect(sample(text, 'switchyard_http_request_duration_seconds_bucket', { route: '/api/v1/integrations/connectors', le: '+Inf' })).toBe(1);
    // The process metrics run from the service's start, not from this first scrape: event-loop samples exist
    // (no 9.2e9 s sentinel minimum, no NaN mean) and the CPU counted covers the start-up and the requests above.
    expect(sample(text, 'nodejs_eventloop_lag_min_seconds')).toBeLessThan(60);
    expect(sample(text, 'nodejs_eventloop_lag_mean_seconds')).not.toBeNaN();
    expect(sample(text, 'process_cpu_seconds_total')).toBeGreaterThan(0.01);
  });

  it('reports the store pool and the event-loop lag', async () => {
    const text = await metrics();
    expect(sample(text, 'switchyard_store_pool_connections', { store: kind })).toBeGreaterThanOrEqual(1);
    expect(sample(text, 'switchyard_store_pool_idle_connections', { store: kind })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'switchyard_store_pool_waiting_requests', { store: kind })).toBe(0);
    expect(sample(text, 'nodejs_eventloop_lag_seconds')).toBeGreaterThanOrEqual(0);
  });

  it('counts vendor calls per connector type and outcome, sync runs and records', async () => {
    const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors', {
      workspace_name: 'default',
      connector_type: 'typeform',
      name: 'Typeform',
      credentials: { access_token: upstream.token },
    });
    expect(created.status).toBe(200);
    const id = created.body.id;
    expect((await tenant.api.post(execute(id), { entity: 'forms', action: 'list', params: {} })).status).toBe(200);
    upstream.failures.set('/forms', { status: 401, times: 1 });
    expect((await tenant.api.post(execute(id), { entity: 'forms', action: 'list', params: {} })).status).toBe(424);

    const started = await tenant.api.post(`/api/v1/integrations/connectors/${id}/sync`, { entity: 'forms' });
    expect(started.status).toBe(202);
    let text = '';
    for (let i = 0; i < 200; i++) {
      text = await metrics();
      if (sample(text, 'switchyard_sync_runs_total', { connector_type: 'typeform' }) !== undefined) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(sample(text, 'switchyard_sync_runs_total', { connector_type: 'typeform', status: 'ready' })).toBe(1);
    expect(sample(text, 'switchyard_sync_records_total', { connector_type: 'typeform' })).toBe(3);
    // One execute succeeded, one was refused; the sync read two pages.
    expect(sample(text, 'switchyard_upstream_calls_total', { connector_type: 'typeform', outcome: 'credentials_rejected' })).toBe(1);
    expect(sample(text, 'switchyard_upstream_calls_total', { connector_type: 'typeform', outcome: 'success' })).toBe(3);
    expect(sample(text, 'switchyard_upstream_call_duration_seconds_count', { connector_type: 'typeform' })).toBe(4);
    expect(sample(text, 'switchyard_sync_deleted_records_total', { connector_type: 'typeform' })).toBeUndefined();

    // A form gone upstream: the first full walk that misses it notes it, the second marks it deleted.
    const kept = upstream.forms.splice(2, 1);
    try {
      for (const deleted of [undefined, 1]) {
        const synced = await tenant.api.post(`/api/v1/integrations/connectors/${id}/sync`, { entity: 'forms', wait: true });
        expect(synced.status, JSON.stringify(synced.body)).toBe(200);
        expect(sample(await metrics(), 'switchyard_sync_deleted_records_total', { connector_type: 'typeform' })).toBe(deleted);
      }
    } finally {
      upstream.forms.push(...kept);
    }
  });

  it('counts OAuth refreshes per connector type', async () => {
    const id = await insertConnector(service, tenant.organizationId, {
      connectorType: 'harvest',
      authOption: 'OAuth2.0',
      credentials: { client_id: 'harvest-client', client_secret: 'harvest-oauth-secret-0001', refresh_token: 'refresh-1', account_id: '123456' },
    });
    const refresh = nock(TOKEN_HOST)
      .post('/api/v2/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: 'refresh-1',
        client_id: 'harvest-client',
        client_secret: 'harvest-oauth-secret-0001',
      })
      .reply(200, { access_token: 'access-1', refresh_token: 'refresh-2', expires_in: 3600, token_type: 'bearer' });
    const company = nock(HARVEST).matchHeader('authorization', 'Bearer access-1').get('/v2/company').reply(200, { name: 'Acme' });
    expect((await tenant.api.post(execute(id), { entity: 'company', action: 'get' })).status).toBe(200);
    expect(refresh.isDone() && company.isDone()).toBe(true);
    const text = await metrics();
    expect(sample(text, 'switchyard_oauth_refreshes_total', { connector_type: 'harvest', rotated: 'true' })).toBe(1);
    expect(sample(text, 'switchyard_upstream_calls_total', { connector_type: 'harvest', outcome: 'success' })).toBe(1);
  });
});

describe('GET /metrics with METRICS_TOKEN', () => {
  let service: TestService;
  const token = 'metrics-token-0123456789abcdef';

  beforeAll(async () => {
    service = await startTestService('pglite', { metricsToken: token });
  });
  afterAll(async () => {
    await service.close();
  });

  it('refuses a scrape without the token (or with an application token) and serves one with it', async () => {
    const api = new ApiClient(service.url);
    expect((await api.get('/metrics', { token: null })).status).toBe(401);
    expect((await api.get('/metrics', { token: 'wrong-token-0123456789abcdef' })).status).toBe(401);
    const tenant = await createTenant(service);
    expect((await tenant.api.get('/metrics')).status).toBe(401);
    const response = await fetch(`${service.url}/metrics`, { headers: { authorization: `Bearer ${token}` } });
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('# TYPE switchyard_http_requests_total counter');
  });
});
