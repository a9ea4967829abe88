import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { insertConnector, storedCredentials } from '../support/connector-rows.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const API = 'https://api.harvestapp.com';
const TOKEN_HOST = 'https://id.getharvest.com';
const ACCOUNT_ID = '123456';
const USER_AGENT = 'Switchyard (https://github.com/switchyard-dev/switchyard)';
const PAT = 'harvest-pat-secret-0001';
const OAUTH_CLIENT_SECRET = 'harvest-oauth-client-secret-0001';

type Rec = Record<string, unknown>;

const USERS: Rec[] = [
  {
    id: 3230547,
    first_name: 'Jim',
    last_name: 'Allen',
    email: 'jimallen@example.com',
    roles: ['Developer'],
    is_active: true,
    avatar_url: 'https://cache.harvestapp.com/a.png',
  },
  {
    id: 1782959,
    first_name: 'Kim',
    last_name: 'Allen',
    email: 'kimallen@example.com',
    roles: [],
    is_active: true,
    avatar_url: 'https://cache.harvestapp.com/b.png',
  },
  { id: 1782884, first_name: 'Bob', last_name: 'Powell', email: 'bobpowell@example.com', roles: ['Founder'], is_active: true, avatar_url: null },
];
const TIME_ENTRY: Rec = {
  id: 636709355,
  spent_date: '2017-03-02',
  hours: 2.11,
  notes: 'Adding CSS styling',
  project: { id: 14307913, name: 'Marketing Website' },
  task: { id: 8083365, name: 'Graphic Design' },
};
const COMPANY: Rec = { base_uri: 'https://acme.harvestapp.com', name: 'API Examples', is_active: true, week_start_day: 'Monday' };

/** Harvest's list envelope. */
function usersPage(records: Rec[], page: number, perPage: number, next: string | null, origin = API): Rec {
  return {
    users: records,
    per_page: perPage,
    total_pages: 2,
    total_entries: USERS.length,
    next_page: next ? page + 1 : null,
    previous_page: page > 1 ? page - 1 : null,
    page,
    links: { first: `${origin}/v2/users?page=1&per_page=${perPage}`, next, previous: null, last: `${origin}/v2/users?page=2&per_page=${perPage}` },
  };
}

/** Only matches requests carrying the stored credential and Harvest's required headers. */
function harvestApi(token = PAT) {
  return nock(API).matchHeader('authorization', `Bearer ${token}`).matchHeader('harvest-account-id', ACCOUNT_ID).matchHeader('user-agent', USER_AGENT);
}

const execute = (id: string) => `/api/v1/integrations/connectors/${id}/execute`;

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string; details?: Rec }>;
}

describe.each(storeKinds())('execute (%s)', (kind) => {
  let service: TestService;
  let a: Tenant;
  let b: Tenant;
  let harvest: string;
  const seen: string[] = [];

  const patConnector = (tenant: Tenant, workspace?: string) =>
    insertConnector(service, tenant.organizationId, {
      connectorType: 'harvest',
      authOption: 'Personal Access Token',
      credentials: { api_token: PAT, account_id: ACCOUNT_ID },
      ...(workspace !== undefined && { workspace }),
    });
  const oauthConnector = (refreshToken: string) =>
    insertConnector(service, a.organizationId, {
      connectorType: 'harvest',
      authOption: 'OAuth2.0',
      credentials: { client_id: 'harvest-client', client_secret: OAUTH_CLIENT_SECRET, refresh_token: refreshToken, account_id: ACCOUNT_ID },
    });
  /** Executes as tenant A and remembers the raw body, to check no credential ever leaks. */
  const run = async <T = Rec>(id: string, body: unknown, tenant?: Tenant) => {
    const response = await (tenant ?? a).api.post<T>(execute(id), body);
    seen.push(JSON.stringify(response.body));
    return response;
  };

  beforeAll(async () => {
    nock.disableNetConnect();
    service = await startTestService(kind, { upstreamTimeoutMs: 400, upstreamRetries: 1 });
    a = await createTenant(service, 'A');
    b = await createTenant(service, 'B');
    harvest = await patConnector(a);
  });
  afterEach(() => {
    nock.cleanAll();
  });
  afterAll(async () => {
    for (const body of seen) {
      for (const secret of [PAT, OAUTH_CLIENT_SECRET, 'refresh-token-1', 'refresh-token-2', 'refresh-token-3', 'access-token-1'])
        expect(body).not.toContain(secret);
    }
    await service.close();
    nock.enableNetConnect();
  });

  it('lists users, sending the exact Harvest request, and walks to the second page with next_params', async () => {
    const next = `${API}/v2/users?page=2&per_page=2&ref=next`;
    const first = harvestApi()
      .get('/v2/users')
      .query({ per_page: '2' })
      .reply(200, usersPage(USERS.slice(0, 2), 1, 2, next));
    const page1 = await run(harvest, { entity: 'users', action: 'list', params: { per_page: 2 } });
    expect(page1.status).toBe(200);
    expect(page1.body).toEqual({
      status: 'success',
      result: USERS.slice(0, 2),
      connector_metadata: { next_link: next, next_params: { page: 2, per_page: 2 } },
      execution_metadata: { connector_instance_id: harvest, execution_time_ms: expect.any(Number) },
    });
    expect(first.isDone()).toBe(true);

    const metadata = page1.body.connector_metadata as { next_params: Rec };
    const second = harvestApi()
      .get('/v2/users')
      .query({ per_page: '2', page: '2' })
      .reply(200, usersPage(USERS.slice(2), 2, 2, null));
    const page2 = await run(harvest, { entity: 'users', action: 'list', params: { per_page: 2, ...metadata.next_params } });
    expect(page2.status).toBe(200);
    expect(page2.body.result).toEqual(USERS.slice(2));
    expect(page2.body.connector_metadata).toEqual({ next_link: null });
    expect(second.isDone()).toBe(true);
  });

  it('gets one record: result is the object and connector_metadata is empty', async () => {
    const scope = harvestApi().get('/v2/users/3230547').reply(200, USERS[0]);
    const response = await run(harvest, { entity: 'users', action: 'get', params: { id: 3230547 } });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      status: 'success',
      result: USERS[0],
      connector_metadata: {},
      execution_metadata: { connector_instance_id: harvest, execution_time_ms: expect.any(Number) },
    });
    expect(scope.isDone()).toBe(true);
  });

  it('accepts an action without params, and skip_truncation and intent', async () => {
    const scope = harvestApi().get('/v2/company').reply(200, COMPANY);
    const response = await run(harvest, { entity: 'company', action: 'get', skip_truncation: false, intent: 'Read the account name' });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual(COMPANY);
    expect(scope.isDone()).toBe(true);
  });

  it('projects records with select_fields (which wins) or exclude_fields, through nested paths and lists', async () => {
    harvestApi()
      .get('/v2/users')
      .times(3)
      .reply(200, usersPage(USERS, 1, 2000, null));
    const selected = await run(harvest, { entity: 'users', action: 'list', select_fields: ['id', 'email', 'no_such_field'], exclude_fields: ['id'] });
    expect(selected.body.result).toEqual(USERS.map((u) => ({ id: u.id, email: u.email })));
    const excluded = await run(harvest, { entity: 'users', action: 'list', exclude_fields: ['avatar_url', 'roles', 'email'], select_fields: null });
    expect(excluded.body.result).toEqual(USERS.map((u) => ({ id: u.id, first_name: u.first_name, last_name: u.last_name, is_active: u.is_active })));
    const empty = await run(harvest, { entity: 'users', action: 'list', select_fields: [] });
    expect(empty.body.result).toEqual(USERS);

    harvestApi().get('/v2/time_entries/636709355').times(2).reply(200, TIME_ENTRY);
    const nested = await run(harvest, { entity: 'time_entries', action: 'get', params: { id: 636709355 }, select_fields: ['id', 'project.name', 'task'] });
    expect(nested.body.result).toEqual({ id: 636709355, project: { name: 'Marketing Website' }, task: { id: 8083365, name: 'Graphic Design' } });
    const nestedOut = await run(harvest, { entity: 'time_entries', action: 'get', params: { id: 636709355 }, exclude_fields: ['project.id', 'task', 'notes'] });
    expect(nestedOut.body.result).toEqual({ id: 636709355, spent_date: '2017-03-02', hours: 2.11, project: { name: 'Marketing Website' } });
  });

  describe('upstream failures', () => {
    const get = () => run<ErrorBody>(harvest, { entity: 'users', action: 'get', params: { id: 1 } });

    it.each([401, 403])('upstream %i -> 424 credentials_rejected, saying the stored credentials were refused', async (status) => {
      const scope = harvestApi()
        .get('/v2/users/1')
        .reply(status, { error: 'invalid_token', error_description: `The access token ${PAT} is invalid` });
      const response = await get();
      expect(response.status).toBe(424);
      expect(response.body.errors).toEqual([{ field: null, message: response.body.message, error_code: 'credentials_rejected' }]);
      expect(response.body.message).toMatch(
        new RegExp(`^The credentials stored for connector ${harvest} were refused by Harvest\\. The vendor refused the credentials \\(HTTP ${status}\\)`),
      );
      expect(response.body.message).toContain(`PUT /api/v1/integrations/connectors/${harvest}`);
      expect(response.body.message).not.toContain(PAT);
      expect(scope.isDone()).toBe(true);
    });

    it('upstream 404 -> 404', async () => {
      const scope = harvestApi().get('/v2/users/1').reply(404, { status: 404, error: 'Not Found' });
      const response = await get();
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        message: 'The vendor found no such resource (HTTP 404): Not Found',
        errors: [{ field: null, message: 'The vendor found no such resource (HTTP 404): Not Found', error_code: 'not_found' }],
      });
      expect(scope.isDone()).toBe(true);
    });

    it('upstream 429 -> 429 with Retry-After', async () => {
      const scope = harvestApi().get('/v2/users/1').reply(429, { message: 'Too many requests' }, { 'Retry-After': '120' });
      const response = await get();
      expect(response.status).toBe(429);
      expect(response.headers.get('retry-after')).toBe('120');
      expect(response.body.errors[0]?.error_code).toBe('rate_limited');
      expect(scope.isDone()).toBe(true);
    });

    it('upstream 503 on every attempt -> 502 after the retries', async () => {
      const scope = harvestApi().get('/v2/users/1').times(2).reply(503, { message: 'Service unavailable' });
      const response = await get();
      expect(response.status).toBe(502);
      expect(response.body.errors).toEqual([
        { field: null, message: 'The vendor failed to answer (HTTP 503): Service unavailable', error_code: 'upstream_error' },
      ]);
      expect(scope.isDone()).toBe(true);
    });

    it('an unparseable body -> 502', async () => {
      const scope = harvestApi().get('/v2/users/1').reply(200, '<html>maintenance</html>', { 'content-type': 'text/html' });
      const response = await get();
      expect(response.status).toBe(502);
      expect(response.body.message).toBe('The vendor answered HTTP 200 with a body that is not JSON.');
      expect(response.body.errors[0]?.error_code).toBe('upstream_error');
      expect(scope.isDone()).toBe(true);
    });

    it('no answer within UPSTREAM_TIMEOUT_MS -> 504', async () => {
      const scope = harvestApi().get('/v2/users/1').delay(2_000).reply(200, USERS[0]);
      const response = await get();
      expect(response.status).toBe(504);
      expect(response.body.message).toBe('The vendor did not answer within 400 ms (GET https://api.harvestapp.com/v2/users/1).');
      expect(response.body.errors[0]?.error_code).toBe('upstream_timeout');
      expect(scope.isDone()).toBe(true);
    });

    it('a vendor that cannot be reached -> 502', async () => {
      const scope = harvestApi().get('/v2/users/1').times(2).replyWithError('connect ECONNREFUSED');
      const response = await get();
      expect(response.status).toBe(502);
      expect(response.body.errors[0]?.error_code).toBe('upstream_error');
      expect(scope.isDone()).toBe(true);
    });
  });

  describe('refusals before anything is sent', () => {
    it('refuses a connector of an inactive workspace with 403 saying why', async () => {
      const id = await patConnector(a, 'paused');
      await service.store.db
        .updateTable('workspaces')
        .set({ status: 'inactive' })
        .where('organization_id', '=', a.organizationId)
        .where('name', '=', 'paused')
        .execute();
      const response = await run<ErrorBody>(id, { entity: 'users', action: 'list' });
      expect(response.status).toBe(403);
      expect(response.body.message).toMatch(/^Workspace "paused" is inactive, so its connectors cannot execute\./);
      expect(response.body.errors[0]?.error_code).toBe('forbidden');
    });

    it('names the valid entities for an unknown entity and the valid actions for an unknown action', async () => {
      const entity = await run<ErrorBody>(harvest, { entity: 'invoices_v2', action: 'list' });
      expect(entity.status).toBe(400);
      expect(entity.body.message).toBe(
        'Unknown entity "invoices_v2" for harvest. Valid entities: users, clients, contacts, company, projects, tasks, time_entries, invoices, invoice_item_categories, estimates, estimate_item_categories, expenses, expense_categories, roles, user_assignments, task_assignments, time_projects, time_tasks.',
      );
      expect(entity.body.errors).toEqual([
        { field: 'entity', error_code: 'unknown_operation', message: entity.body.message, details: { limit: expect.arrayContaining(['users', 'time_tasks']) } },
      ]);
      const action = await run<ErrorBody>(harvest, { entity: 'users', action: 'delete', params: { id: 1 } });
      expect(action.status).toBe(400);
      expect(action.body.message).toBe('Unknown action "delete" for users. Valid actions: list, get.');
      expect(action.body.errors).toEqual([
        { field: 'action', error_code: 'unknown_operation', message: action.body.message, details: { limit: ['list', 'get'] } },
      ]);
      const companyList = await run<ErrorBody>(harvest, { entity: 'company', action: 'list' });
      expect(companyList.body.message).toBe('Unknown action "list" for company. Valid actions: get.');
    });

    it('lists every param violation with its field, rule and limit', async () => {
      const list = await run<ErrorBody>(harvest, { entity: 'users', action: 'list', params: { per_page: 5000, page: 0, sort: 'name' } });
      expect(list.status).toBe(400);
      expect(list.body.message).toMatch(/^Invalid params for users\.list: /);
      expect(list.body.errors).toEqual(
        expect.arrayContaining([
          { field: 'per_page', message: 'per_page must be <= 2000', error_code: 'maximum', details: { limit: 2000 } },
          { field: 'page', message: 'page must be >= 1', error_code: 'minimum', details: { limit: 1 } },
          { field: 'sort', message: 'sort is not a known parameter', error_code: 'unknown' },
        ]),
      );
      expect(list.body.errors).toHaveLength(3);
      const get = await run<ErrorBody>(harvest, { entity: 'users', action: 'get', params: {} });
      expect(get.status).toBe(400);
      expect(get.body.errors).toEqual([{ field: 'id', message: 'id is required', error_code: 'required' }]);
      const typed = await run<ErrorBody>(harvest, { entity: 'users', action: 'get', params: { id: 'abc' } });
      expect(typed.body.errors).toEqual([{ field: 'id', message: 'id must be integer', error_code: 'type', details: { limit: 'integer' } }]);
    });

    it('answers context_store_search with context_store_not_ready (no data synchronized yet)', async () => {
      const response = await run<ErrorBody>(harvest, { entity: 'users', action: 'context_store_search', params: { query: {} } });
      expect(response.status).toBe(400);
      expect(response.body.errors[0]?.error_code).toBe('context_store_not_ready');
      expect(response.body.message).toMatch(
        /users of this connector is not ready \(not_synced\): users has not been synchronized yet: .* Use the native actions \(list, get\)/,
      );
      // A single object (Harvest's company, read with get) is synced as one record and searchable too.
      const company = await run<ErrorBody>(harvest, { entity: 'company', action: 'context_store_search', params: { query: {} } });
      expect(company.status).toBe(400);
      expect(company.body.errors[0]?.error_code).toBe('context_store_not_ready');
      const unknown = await run<ErrorBody>(harvest, { entity: 'nope', action: 'context_store_search' });
      expect(unknown.body.errors[0]?.error_code).toBe('unknown_operation');
    });

    it('validates the request: missing fields, wrong types, unknown fields, ids, body size, JSON', async () => {
      const missing = await run<ErrorBody>(harvest, { action: 'list' });
      expect(missing.status).toBe(422);
      expect(missing.body.errors).toEqual([{ field: 'entity', message: 'body entity is required', error_code: 'required' }]);
      const typed = await run<ErrorBody>(harvest, { entity: 'users', action: 'list', params: [1] });
      expect(typed.status).toBe(422);
      expect(typed.body.errors[0]).toMatchObject({ field: 'params', error_code: 'type' });
      const wrongEntity = await run<ErrorBody>(harvest, { entity: 5, action: 'list' });
      expect(wrongEntity.status).toBe(422);
      expect(wrongEntity.body.errors[0]).toMatchObject({ field: 'entity', error_code: 'type' });
      const extra = await run<ErrorBody>(harvest, { entity: 'users', action: 'list', paramz: {} });
      expect(extra.status).toBe(422);
      expect(extra.body.errors[0]).toMatchObject({ field: 'paramz', error_code: 'unknown' });
      const intent = await run<ErrorBody>(harvest, { entity: 'users', action: 'list', intent: 'x'.repeat(513) });
      expect(intent.status).toBe(422);
      expect(intent.body.errors[0]).toMatchObject({ field: 'intent', error_code: 'maxLength' });
      const badId = await run<ErrorBody>('not-a-uuid', { entity: 'users', action: 'list' });
      expect(badId.status).toBe(422);
      expect(badId.body.errors[0]).toMatchObject({ field: 'id', error_code: 'pattern' });
      const unknownId = await run<ErrorBody>('00000000-0000-4000-8000-000000000000', { entity: 'users', action: 'list' });
      expect(unknownId.status).toBe(404);
      const huge = await run<ErrorBody>(harvest, { entity: 'users', action: 'list', params: { note: 'x'.repeat(1_100_000) } });
      expect(huge.status).toBe(413);
      const malformed = await a.api.request<ErrorBody>('POST', execute(harvest), { rawBody: '{"entity":', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.errors[0]?.error_code).toBe('malformed_json');
      const anonymous = await a.api.post(execute(harvest), { entity: 'users', action: 'list' }, { token: null });
      expect(anonymous.status).toBe(401);
    });

    it("gives another organization 404 for A's connector", async () => {
      const response = await run<ErrorBody>(harvest, { entity: 'users', action: 'list' }, b);
      expect(response.status).toBe(404);
      expect(response.body.message).toBe(`No connector ${harvest}.`);
    });
  });

  describe('OAuth', () => {
    const tokenEndpoint = (refreshToken: string) =>
      nock(TOKEN_HOST).post('/api/v2/oauth2/token', {
        grant_type: 'refresh_token',
        refresh_token: refreshToken,
        client_id: 'harvest-client',
        client_secret: OAUTH_CLIENT_SECRET,
      });

    it('stores a rotated refresh token, so later calls (and a restarted service) use the new one', async () => {
      const id = await oauthConnector('refresh-token-1');
      const before = await storedCredentials(service, id);

      const refresh1 = tokenEndpoint('refresh-token-1').reply(200, {
        access_token: 'access-token-1',
        refresh_token: 'refresh-token-2',
        expires_in: 120,
        token_type: 'bearer',
      });
      const call1 = harvestApi('access-token-1').get('/v2/company').reply(200, COMPANY);
      expect((await run(id, { entity: 'company', action: 'get' })).status).toBe(200);
      expect(refresh1.isDone() && call1.isDone()).toBe(true);
      const afterFirst = await storedCredentials(service, id);
      expect(afterFirst.ciphertext).not.toBe(before.ciphertext);
      expect(afterFirst.credentials).toEqual({ ...before.credentials, refresh_token: 'refresh-token-2', access_token: 'access-token-1' });

      // 90 s later access-token-1 has expired (expires_in 120 s, refreshed 60 s early): the next call refreshes with the NEW refresh token.
      const refresh2 = tokenEndpoint('refresh-token-2').reply(200, { access_token: 'access-token-2', refresh_token: 'refresh-token-3', expires_in: 3600 });
      const call2 = harvestApi('access-token-2').get('/v2/company').reply(200, COMPANY);
      vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 90_000 });
      try {
        expect((await run(id, { entity: 'company', action: 'get' })).status).toBe(200);
      } finally {
        vi.useRealTimers();
      }
      expect(refresh2.isDone() && call2.isDone()).toBe(true);
      expect((await storedCredentials(service, id)).credentials).toMatchObject({ refresh_token: 'refresh-token-3', access_token: 'access-token-2' });

      // A valid access token is reused: no refresh.
      const call3 = harvestApi('access-token-2').get('/v2/company').reply(200, COMPANY);
      expect((await run(id, { entity: 'company', action: 'get' })).status).toBe(200);
      expect(call3.isDone()).toBe(true);

      // After a restart the instance is rebuilt from the row: the stored access token, then the stored refresh token once the vendor refuses it.
      service.app.ctx.connectors.clear();
      const rejected = harvestApi('access-token-2').get('/v2/company').reply(401, { error: 'invalid_token' });
      const refresh3 = tokenEndpoint('refresh-token-3').reply(200, { access_token: 'access-token-3', refresh_token: 'refresh-token-4', expires_in: 3600 });
      const call4 = harvestApi('access-token-3').get('/v2/company').reply(200, COMPANY);
      expect((await run(id, { entity: 'company', action: 'get' })).status).toBe(200);
      expect(rejected.isDone() && refresh3.isDone() && call4.isDone()).toBe(true);
      expect((await storedCredentials(service, id)).credentials).toMatchObject({ refresh_token: 'refresh-token-4', access_token: 'access-token-3' });
    });

    it("stores the instance_url a refresh returned with the access token, so a rebuilt instance calls the org's host without refreshing", async () => {
      const instance = 'https://acme.my.salesforce.com';
      const id = await insertConnector(service, a.organizationId, {
        connectorType: 'salesforce',
        authOption: 'OAuth2.0',
        credentials: { client_id: '3MVG9stored', client_secret: 'sf-stored-secret', refresh_token: 'sf-refresh-1' },
      });
      // A connected app with refresh token rotation: the answer carries a new refresh token and the org's host.
      const refresh = nock('https://login.salesforce.com')
        .post('/services/oauth2/token', {
          grant_type: 'refresh_token',
          refresh_token: 'sf-refresh-1',
          client_id: '3MVG9stored',
          client_secret: 'sf-stored-secret',
        })
        .reply(200, { access_token: 'sf-access-1', refresh_token: 'sf-refresh-2', instance_url: instance, token_type: 'Bearer', issued_at: '1731000000000' });
      const query = () =>
        nock(instance)
          .matchHeader('authorization', 'Bearer sf-access-1')
          .get('/services/data/v62.0/query')
          .query({ q: 'SELECT Id FROM Account' })
          .reply(200, { totalSize: 0, done: true, records: [] });
      const call1 = query();
      expect((await run(id, { entity: 'accounts', action: 'list', params: { q: 'SELECT Id FROM Account' } })).status).toBe(200);
      expect(refresh.isDone() && call1.isDone()).toBe(true);
      expect((await storedCredentials(service, id)).credentials).toEqual({
        client_id: '3MVG9stored',
        client_secret: 'sf-stored-secret',
        refresh_token: 'sf-refresh-2',
        access_token: 'sf-access-1',
        instance_url: instance,
      });

      // A restart rebuilds the instance from the row: the stored token goes to the stored host, with no refresh.
      service.app.ctx.connectors.clear();
      const call2 = query();
      const after = await run<ErrorBody>(id, { entity: 'accounts', action: 'list', params: { q: 'SELECT Id FROM Account' } });
      expect(after.status, JSON.stringify(after.body)).toBe(200);
      expect(call2.isDone()).toBe(true);
    });

    it('heals a stored access token left without its instance_url: the first call refreshes, then runs', async () => {
      const instance = 'https://acme.my.salesforce.com';
      // What sealing a refresh stored on PostgreSQL before the instance_url was sealed with the token.
      const id = await insertConnector(service, a.organizationId, {
        connectorType: 'salesforce',
        authOption: 'OAuth2.0',
        credentials: { client_id: '3MVG9healed', client_secret: 'sf-healed-secret', refresh_token: 'sf-healed-refresh', access_token: 'sf-hostless' },
      });
      const refresh = nock('https://login.salesforce.com')
        .post('/services/oauth2/token', {
          grant_type: 'refresh_token',
          refresh_token: 'sf-healed-refresh',
          client_id: '3MVG9healed',
          client_secret: 'sf-healed-secret',
        })
        .reply(200, { access_token: 'sf-healed-access', instance_url: instance, token_type: 'Bearer', issued_at: '1731000000000' });
      const call = nock(instance)
        .matchHeader('authorization', 'Bearer sf-healed-access')
        .get('/services/data/v62.0/query')
        .query({ q: 'SELECT Id FROM Account' })
        .reply(200, { totalSize: 0, done: true, records: [] });
      const response = await run<ErrorBody>(id, { entity: 'accounts', action: 'list', params: { q: 'SELECT Id FROM Account' } });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      expect(refresh.isDone() && call.isDone()).toBe(true);
    });

    it('shares one refresh between concurrent calls', async () => {
      const id = await oauthConnector('refresh-token-shared');
      const refresh = tokenEndpoint('refresh-token-shared').delay(100).reply(200, { access_token: 'access-shared', expires_in: 3600 });
      const calls = harvestApi('access-shared').get('/v2/company').times(3).reply(200, COMPANY);
      const responses = await Promise.all([1, 2, 3].map(() => run(id, { entity: 'company', action: 'get' })));
      expect(responses.map((r) => r.status)).toEqual([200, 200, 200]);
      expect(refresh.isDone() && calls.isDone()).toBe(true);
      // Not rotated: the stored credentials stay as they were.
      expect((await storedCredentials(service, id)).credentials.refresh_token).toBe('refresh-token-shared');
    });

    it('a refused refresh -> 424 credentials_rejected', async () => {
      const id = await oauthConnector('refresh-token-revoked');
      const refresh = tokenEndpoint('refresh-token-revoked').reply(400, { error: 'invalid_grant', error_description: 'The refresh token is revoked' });
      const response = await run<ErrorBody>(id, { entity: 'company', action: 'get' });
      expect(response.status).toBe(424);
      expect(response.body.message).toMatch(
        /^The credentials stored for connector .* were refused by Harvest\. The OAuth token refresh was refused \(HTTP 400\): The refresh token is revoked\./,
      );
      expect(response.body.message).not.toContain('refresh-token-revoked');
      expect(refresh.isDone()).toBe(true);
    });

    it('uses new credentials as soon as the connector is updated, and nothing once it is deleted', async () => {
      const id = await patConnector(a);
      const old = harvestApi().get('/v2/company').reply(200, COMPANY);
      expect((await run(id, { entity: 'company', action: 'get' })).status).toBe(200);
      expect(old.isDone()).toBe(true);
      // The update runs the connector check (Harvest's company.get) with the new token first.
      const check = harvestApi('harvest-pat-new-0001').get('/v2/company').reply(200, COMPANY);
      const updated = await a.api.put(`/api/v1/integrations/connectors/${id}`, {
        credentials: { option_title: 'Personal Access Token', api_token: 'harvest-pat-new-0001', account_id: ACCOUNT_ID },
      });
      expect(updated.status).toBe(200);
      expect(check.isDone()).toBe(true);
      const fresh = harvestApi('harvest-pat-new-0001').get('/v2/company').reply(200, COMPANY);
      expect((await run(id, { entity: 'company', action: 'get' })).status).toBe(200);
      expect(fresh.isDone()).toBe(true);
      expect((await a.api.delete(`/api/v1/integrations/connectors/${id}`)).status).toBe(202);
      expect((await run(id, { entity: 'company', action: 'get' })).status).toBe(404);
    });
  });
});

describe.each(storeKinds())('execute against UPSTREAM_BASE_URLS (%s)', (kind) => {
  let server: Server;
  let origin: string;
  let service: TestService;
  const requests: Array<{ method: string; url: string; headers: Record<string, string | string[] | undefined> }> = [];

  beforeAll(async () => {
    nock.disableNetConnect();
    server = createServer((req, res) => {
      requests.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers });
      const url = new URL(req.url ?? '/', origin);
      res.setHeader('content-type', 'application/json');
      // The configured URL replaces the manifest's whole base URL (https://api.harvestapp.com/v2), path included.
      if (url.pathname === '/users' && url.searchParams.get('page') === '2') {
        res.end(JSON.stringify(usersPage(USERS.slice(2), 2, 2, null, origin)));
      } else if (url.pathname === '/users') {
        res.end(JSON.stringify(usersPage(USERS.slice(0, 2), 1, 2, `${origin}/users?page=2&per_page=2`, origin)));
      } else {
        res.statusCode = 404;
        res.end(JSON.stringify({ error: 'Not Found' }));
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    service = await startTestService(kind, { upstreamBaseUrls: { harvest: origin } });
  });
  afterAll(async () => {
    await service.close();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    nock.enableNetConnect();
  });

  it('sends the requests to the configured base URL and follows its next links', async () => {
    const tenant = await createTenant(service);
    const id = await insertConnector(service, tenant.organizationId, {
      connectorType: 'harvest',
      authOption: 'Personal Access Token',
      credentials: { api_token: PAT, account_id: ACCOUNT_ID },
    });
    const page1 = await tenant.api.post(execute(id), { entity: 'users', action: 'list', params: { per_page: 2 } });
    expect(page1.status).toBe(200);
    expect(page1.body.connector_metadata).toEqual({ next_link: `${origin}/users?page=2&per_page=2`, next_params: { page: 2, per_page: 2 } });
    const next = (page1.body.connector_metadata as { next_params: Rec }).next_params;
    const page2 = await tenant.api.post(execute(id), { entity: 'users', action: 'list', params: { per_page: 2, ...next } });
    expect(page2.body).toMatchObject({ status: 'success', result: USERS.slice(2), connector_metadata: { next_link: null } });
    expect(requests.map((r) => `${r.method} ${r.url}`)).toEqual(['GET /users?per_page=2', 'GET /users?per_page=2&page=2']);
    for (const request of requests) {
      expect(request.headers).toMatchObject({ authorization: `Bearer ${PAT}`, 'harvest-account-id': ACCOUNT_ID, 'user-agent': USER_AGENT });
    }
  });
});
