/**
 * A client written for Airbyte's Agent API, over HTTP: Airbyte's connector names and definition ids,
 * its credential titles and field names (numbers where we store text), execute without params
 * (`params: null`), the universal `limit` and ids typed as strings. Vendors are nock doubles that
 * assert the exact request.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { storedCredentials } from '../support/connector-rows.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const CONNECTORS = '/api/v1/integrations/connectors';
/** Connectors here are created for what a client sends; the connector check has its own tests. */
const CREATE = `${CONNECTORS}?check=false`;
const PAT = 'harvest-pat-airbyte-client-0001';

type Rec = Record<string, unknown>;
interface ConnectorBody {
  id: string;
  connector_type: string;
  definition_id: string;
  auth_option: string;
  replication_config: Rec;
}
interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; error_code: string; message: string }>;
}

const harvestApi = () => nock('https://api.harvestapp.com').matchHeader('authorization', `Bearer ${PAT}`).matchHeader('harvest-account-id', '123456');

describe.each(storeKinds())('a client written for Airbyte (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  let harvest: string;

  beforeAll(async () => {
    service = await startTestService(kind);
    tenant = await createTenant(service);
  });
  afterEach(() => {
    expect(nock.pendingMocks()).toEqual([]);
    nock.cleanAll();
  });
  afterAll(async () => {
    await service?.close();
  });

  it("creates a connector by Airbyte's definition id with Airbyte's credential names and a number for the account", async () => {
    const response = await tenant.api.post<ConnectorBody>(CREATE, {
      workspace_name: 'default',
      definition_id: 'fe2b4084-3386-4d3b-9ad6-308f61a6f1e6',
      name: 'Harvest',
      credentials: { option_title: 'personal access token', token: PAT, account_id: 123456 },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({
      connector_type: 'harvest',
      definition_id: connectorModules.harvest?.definition.definitionId,
      auth_option: 'Personal Access Token',
    });
    harvest = response.body.id;
    expect((await storedCredentials(service, harvest)).credentials).toEqual({ api_token: PAT, account_id: '123456' });
  });

  it("creates a connector by Airbyte's name (clickup-api), its option title and field name", async () => {
    const response = await tenant.api.post<ConnectorBody>(CREATE, {
      workspace_name: 'default',
      connector_type: 'clickup-api',
      name: 'ClickUp',
      credentials: { option_title: 'API Key Authentication', api_key: 'pk_42_ABCDEF' },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body).toMatchObject({ connector_type: 'clickup', auth_option: 'Personal API Token' });
    expect((await storedCredentials(service, response.body.id)).credentials).toEqual({ api_token: 'pk_42_ABCDEF' });
  });

  it('takes option_title null, and config numbers as text', async () => {
    const klaviyo = await tenant.api.post<ConnectorBody>(CREATE, {
      workspace_name: 'default',
      connector_type: 'klaviyo',
      name: 'K',
      credentials: { option_title: null, api_key: 'pk_klaviyo_0001' },
    });
    expect(klaviyo.status, JSON.stringify(klaviyo.body)).toBe(200);
    const jira = await tenant.api.post<ConnectorBody>(CREATE, {
      workspace_name: 'default',
      connector_type: 'jira',
      name: 'J',
      credentials: { option_title: 'Jira API Token Authentication', username: 'ana@acme.com', password: 'jira-secret-0001' },
      replication_config: { subdomain: 4242 },
    });
    expect(jira.status, JSON.stringify(jira.body)).toBe(200);
    expect(jira.body.auth_option).toBe('API Token');
  });

  it('refuses a field given under its name and its alias, naming the keys and never the values', async () => {
    const response = await tenant.api.post<ErrorBody>(CONNECTORS, {
      workspace_name: 'default',
      connector_type: 'harvest',
      name: 'x',
      credentials: { option_title: 'Personal Access Token', token: PAT, api_token: 'harvest-other-secret-0002', account_id: '1' },
    });
    expect(response.status).toBe(400);
    expect(response.body.message).toBe('Invalid credentials: "token" and "api_token" both give "api_token"; send one.');
    expect(JSON.stringify(response.body)).not.toMatch(/harvest-(pat|other)/);
  });

  it("finds the catalog entry by Airbyte's name", async () => {
    const list = await tenant.api.get<{ definitions: Array<{ name: string }> }>('/api/v1/integrations/definitions/sources?name=clickup-api');
    expect(list.status).toBe(200);
    expect(list.body.definitions.map((d) => d.name)).toEqual(['ClickUp']);
  });

  it('executes with params null', async () => {
    harvestApi()
      .get('/v2/users')
      .reply(200, { users: [{ id: 1 }], links: { next: null } });
    const response = await tenant.api.post<{ result: unknown }>(`${CONNECTORS}/${harvest}/execute`, { entity: 'users', action: 'list', params: null });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.result).toEqual([{ id: 1 }]);
  });

  it("answers Airbyte's health check ({limit: 1}) with per_page=1, and clamps larger limits", async () => {
    harvestApi()
      .get('/v2/users')
      .query({ per_page: '1' })
      .reply(200, { users: [{ id: 1 }], links: { next: null } });
    const check = await tenant.api.post<{ result: unknown }>(`${CONNECTORS}/${harvest}/execute`, { entity: 'users', action: 'list', params: { limit: 1 } });
    expect(check.status, JSON.stringify(check.body)).toBe(200);
    harvestApi()
      .get('/v2/users')
      .query({ per_page: '2000' })
      .reply(200, { users: [], links: { next: null } });
    const big = await tenant.api.post(`${CONNECTORS}/${harvest}/execute`, { entity: 'users', action: 'list', params: { limit: 10_000 } });
    expect(big.status).toBe(200);
  });

  it('reads an integer id sent as a string, and still names an unknown param', async () => {
    harvestApi().get('/v2/users/1001').reply(200, { id: 1001 });
    const get = await tenant.api.post<{ result: unknown }>(`${CONNECTORS}/${harvest}/execute`, { entity: 'users', action: 'get', params: { id: '1001' } });
    expect(get.status, JSON.stringify(get.body)).toBe(200);
    expect(get.body.result).toEqual({ id: 1001 });
    const typo = await tenant.api.post<ErrorBody>(`${CONNECTORS}/${harvest}/execute`, { entity: 'users', action: 'list', params: { limt: 1 } });
    expect(typo.status).toBe(400);
    expect(typo.body.errors).toEqual([expect.objectContaining({ field: 'limt', error_code: 'unknown' })]);
  });

  it("executes with a param under the name Airbyte's clients send (Jira's commentId), and refuses it given twice", async () => {
    const jira = await tenant.api.post<ConnectorBody>(CREATE, {
      workspace_name: 'default',
      connector_type: 'jira',
      name: 'Jira comments',
      credentials: { email: 'ana@acme.com', api_token: 'jira-secret-0002' },
      replication_config: { subdomain: 'acme' },
    });
    expect(jira.status, JSON.stringify(jira.body)).toBe(200);
    nock('https://acme.atlassian.net')
      .matchHeader('authorization', `Basic ${Buffer.from('ana@acme.com:jira-secret-0002').toString('base64')}`)
      .get('/rest/api/3/issue/ABC-1/comment/10010')
      .reply(200, { id: '10010' });
    const execute = (params: Rec) =>
      tenant.api.post<{ result: unknown } & ErrorBody>(`${CONNECTORS}/${jira.body.id}/execute`, { entity: 'issue_comments', action: 'get', params });

    const read = await execute({ issueIdOrKey: 'ABC-1', commentId: '10010' });
    expect(read.status, JSON.stringify(read.body)).toBe(200);
    expect(read.body.result).toEqual({ id: '10010' });
    const twice = await execute({ issueIdOrKey: 'ABC-1', id: '10010', commentId: '10011' });
    expect(twice.status).toBe(400);
    expect(twice.body.errors).toEqual([expect.objectContaining({ field: 'commentId', error_code: 'alias_conflict' })]);
  });

  it('inspect describes the universal limit of each list', async () => {
    const inspect = await tenant.api.get<{ entities: Array<{ name: string; actions: Array<{ name: string; limit?: Rec }> }> }>(
      `${CONNECTORS}/${harvest}/inspect`,
    );
    expect(inspect.status).toBe(200);
    const users = inspect.body.entities.find((e) => e.name === 'users');
    expect(users?.actions.find((a) => a.name === 'list')?.limit).toEqual({
      page_size_param: 'per_page',
      minimum: 1,
      maximum: 2000,
      description: 'The most records to return: sent as per_page (clamped to 1..2000). Same as giving per_page, which wins when both are given.',
    });
    expect(users?.actions.find((a) => a.name === 'get')?.limit).toBeUndefined();
  });
});
