import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

// The connector check: the one cheap read each manifest declares (`check:`), through
// POST /connectors/check, POST /connectors/{id}/check, and before create and credential updates.

const API = 'https://api.harvestapp.com';
const ACCOUNT_ID = '123456';
const PAT = 'harvest-pat-check-secret-0001';
const WRONG_PAT = 'harvest-pat-wrong-secret-0002';
const USER_AGENT = 'Switchyard (https://github.com/switchyard-dev/switchyard)';
const COMPANY = { base_uri: 'https://acme.harvestapp.com', full_domain: 'acme.harvestapp.com', name: 'Acme', is_active: true };
const CONNECTORS = '/api/v1/integrations/connectors';

type Rec = Record<string, unknown>;
interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string }>;
}
interface CheckBody {
  id: string;
  status: string;
  error_message: string | null;
  failure_reason: Rec | null;
  entity_check_results: Array<{ entity: string; status: string; status_code: number | null; error_message: string | null }>;
}

/** Harvest's company read, with the exact headers the check must send. */
function companyRead(token: string) {
  return nock(API)
    .matchHeader('authorization', `Bearer ${token}`)
    .matchHeader('harvest-account-id', ACCOUNT_ID)
    .matchHeader('user-agent', USER_AGENT)
    .get('/v2/company');
}

const harvestBody = (token: string): Rec => ({
  workspace_name: 'default',
  connector_type: 'harvest',
  name: 'Harvest',
  credentials: { api_token: token, account_id: ACCOUNT_ID },
});

describe('connector check', () => {
  let service: TestService;
  let tenant: Tenant;

  beforeAll(async () => {
    nock.disableNetConnect();
    service = await startTestService('pglite', { upstreamTimeoutMs: 400, upstreamRetries: 0 });
    tenant = await createTenant(service);
  });
  afterEach(() => {
    nock.cleanAll();
  });
  afterAll(async () => {
    await service.close();
    nock.enableNetConnect();
  });

  async function connectorCount(): Promise<number> {
    const rows = await service.store.db.selectFrom('connectors').select('id').where('organization_id', '=', tenant.organizationId).execute();
    return rows.length;
  }

  it('every manifest declares a read of its own as the check', () => {
    for (const [type, { definition }] of Object.entries(connectorModules)) {
      const action = definition.entities[definition.check.entity]?.actions[definition.check.action];
      expect(action, type).toBeDefined();
      expect(action?.graphql ? !/^\s*mutation\b/.test(action.graphql.document) : action?.method === 'GET', type).toBe(true);
      expect(definition.check.doc, type).toMatch(/^https:\/\//);
    }
  });

  it('checks credentials before creation with the declared read, storing nothing', async () => {
    const read = companyRead(PAT).reply(200, COMPANY);
    const response = await tenant.api.post<CheckBody>(`${CONNECTORS}/check`, { ...harvestBody(PAT), environment: null, entities: null });
    expect(response.status).toBe(200);
    expect(read.isDone()).toBe(true);
    expect(response.body).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      status: 'succeeded',
      error_message: null,
      failure_reason: null,
      entity_check_results: [{ entity: 'company', status: 'succeeded', status_code: 200, error_message: null }],
    });
    expect(await connectorCount()).toBe(0);
  });

  it('answers failed with what the vendor said when it refuses the credentials, never the secret', async () => {
    const read = companyRead(WRONG_PAT).reply(401, {
      error: 'invalid_token',
      error_description: 'The access token provided is expired, revoked, malformed or invalid.',
    });
    const response = await tenant.api.post<CheckBody>(`${CONNECTORS}/check`, harvestBody(WRONG_PAT));
    expect(response.status).toBe(200);
    expect(read.isDone()).toBe(true);
    expect(response.body).toMatchObject({
      status: 'failed',
      error_message: expect.stringContaining(
        'Harvest refused the credentials of option "Personal Access Token" (fields api_token, account_id) at the connector check (company.get)',
      ),
      failure_reason: { failure_origin: 'source', failure_type: 'config_error', retryable: false },
      entity_check_results: [{ entity: 'company', status: 'failed', status_code: 401 }],
    });
    expect(JSON.stringify(response.body)).not.toContain(WRONG_PAT);
  });

  it('refuses to create a connector whose credentials the vendor refuses (400), naming option, fields and answer; stores nothing', async () => {
    const read = companyRead(WRONG_PAT).reply(401, { error: 'invalid_token', error_description: 'The access token provided is invalid.' });
    const response = await tenant.api.post<ErrorBody>(CONNECTORS, harvestBody(WRONG_PAT));
    expect(read.isDone()).toBe(true);
    expect(response.status).toBe(400);
    // The field's problem says what to do to anyone (the connect page shows it to end users); the message adds the API's way around.
    expect(response.body.errors).toEqual([
      {
        field: 'credentials',
        error_code: 'rejected_by_vendor',
        message: response.body.message.replace(', or skip the check with the query parameter check=false.', '.'),
      },
    ]);
    expect(response.body.message).toMatch(
      /^Harvest refused the credentials of option "Personal Access Token" \(fields api_token, account_id\) at the connector check \(company\.get\)\. The vendor refused the credentials \(HTTP 401\)/,
    );
    expect(response.body.message).toContain('check=false');
    expect(JSON.stringify(response.body)).not.toContain(WRONG_PAT);
    expect(await connectorCount()).toBe(0);
  });

  it('creates a connector once the check read succeeds', async () => {
    const read = companyRead(PAT).reply(200, COMPANY);
    const response = await tenant.api.post<{ id: string; name: string }>(CONNECTORS, harvestBody(PAT));
    expect(response.status).toBe(200);
    expect(read.isDone()).toBe(true);
    expect(await connectorCount()).toBe(1);
    await tenant.api.delete(`${CONNECTORS}/${response.body.id}`);
  });

  it('answers 424 with a check=false hint when the vendor cannot be reached; check=false stores without calling it', async () => {
    const read = companyRead(PAT).replyWithError(Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }));
    const response = await tenant.api.post<ErrorBody>(CONNECTORS, harvestBody(PAT));
    expect(read.isDone()).toBe(true);
    expect(response.status).toBe(424);
    expect(response.body.errors).toEqual([
      {
        field: 'check',
        error_code: 'vendor_unreachable',
        message: response.body.message.replace(', or skip the check with the query parameter check=false.', '.'),
      },
    ]);
    expect(response.body.message).toMatch(/could not reach Harvest \(company\.get\).*Retry later, or skip the check with the query parameter check=false\.$/);
    expect(await connectorCount()).toBe(0);

    const unchecked = await tenant.api.post<{ id: string }>(`${CONNECTORS}?check=false`, harvestBody(PAT));
    expect(unchecked.status).toBe(200);
    expect(await connectorCount()).toBe(1);
    await tenant.api.delete(`${CONNECTORS}/${unchecked.body.id}`);
    const badFlag = await tenant.api.post<ErrorBody>(`${CONNECTORS}?check=maybe`, harvestBody(PAT));
    expect(badFlag.status).toBe(422);
    expect(badFlag.body.errors[0]).toMatchObject({ field: 'check', error_code: 'type' });
  });

  it('checks a stored connector with its stored credentials; a refused credential update changes nothing', async () => {
    const created = await tenant.api.post<{ id: string; updated_at: string }>(`${CONNECTORS}?check=false`, harvestBody(PAT));
    const id = created.body.id;
    const ok = companyRead(PAT).reply(200, COMPANY);
    const checked = await tenant.api.post<CheckBody>(`${CONNECTORS}/${id}/check`, { name: null, entities: null });
    expect(checked.status).toBe(200);
    expect(ok.isDone()).toBe(true);
    expect(checked.body).toMatchObject({ id, status: 'succeeded' });

    const refused = companyRead(WRONG_PAT).reply(403, { error: 'forbidden' });
    const update = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${id}`, { credentials: { api_token: WRONG_PAT, account_id: ACCOUNT_ID } });
    expect(refused.isDone()).toBe(true);
    expect(update.status).toBe(400);
    expect(update.body.errors[0]?.error_code).toBe('rejected_by_vendor');
    const still = companyRead(PAT).reply(200, COMPANY);
    expect((await tenant.api.post<CheckBody>(`${CONNECTORS}/${id}/check`, {})).body.status).toBe('succeeded');
    expect(still.isDone()).toBe(true);
    const other = await tenant.api.post<ErrorBody>(`${CONNECTORS}/00000000-0000-4000-8000-000000000000/check`, {});
    expect(other.status).toBe(404);
    await tenant.api.delete(`${CONNECTORS}/${id}`);
  });
});
