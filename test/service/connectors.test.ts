import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { openCredentials } from '../../src/services/credentials.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const CONNECTORS = '/api/v1/integrations/connectors';
const harvest = connectorModules.harvest!.definition;
const jira = connectorModules.jira!.definition;
const linear = connectorModules.linear!.definition;
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const ABSENT = '00000000-0000-4000-8000-000000000000';

/** Every credential value used below: none may appear in a response, and none in plain text in the database. */
const CRED = {
  harvestToken: 'hv-pat-S3CRET-7f41c2',
  harvestAccount: '9081726354',
  jiraEmail: 'ana.secret-mail@acme-example.com',
  jiraToken: 'jira-tok-S3CRET-55ab',
  linearKey: 'lin_api_S3CRET_0c9d8e7f',
  clientId: 'oauth-client-id-S3CRET-11',
  clientSecret: 'oauth-client-secret-S3CRET-22',
  refreshToken: 'oauth-refresh-S3CRET-33',
  accessToken: 'oauth-access-S3CRET-44',
  newToken: 'hv-pat-S3CRET-rotated-99',
};
const SECRET_VALUES = Object.values(CRED);

function expectNoCredentialValue(body: unknown): void {
  const text = JSON.stringify(body);
  for (const value of SECRET_VALUES) expect(text).not.toContain(value);
}

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string; details?: Record<string, unknown> }>;
}
interface ConnectorBody {
  id: string;
  name: string;
  source_template: Record<string, unknown> & { user_config_spec: { connectionSpecification: Record<string, unknown> } };
  replication_config: Record<string, unknown>;
  entities: null;
  created_at: string;
  updated_at: string;
  workspace_id: string;
  workspace_name: string;
  connector_type: string;
  definition_id: string;
  auth_option: string;
}
interface ListItem {
  id: string;
  name: string;
  summarized_source_template: Record<string, unknown>;
  workspace_id: string;
  workspace_name: string;
  connector_type: string;
  definition_id: string;
  auth_option: string;
  created_at: string;
  updated_at: string;
}

const harvestPat = { api_token: CRED.harvestToken, account_id: CRED.harvestAccount };
const jiraBasic = { email: CRED.jiraEmail, api_token: CRED.jiraToken };

describe.each(storeKinds())('connectors (%s)', (kind) => {
  let service: TestService;
  let a: Tenant;
  let b: Tenant;
  const responses: unknown[] = [];

  // These tests are about storage and validation; the connector check has its own file (connector-check.test.ts).
  async function create(tenant: Tenant, body: Record<string, unknown>) {
    const response = await tenant.api.post<ConnectorBody & ErrorBody>(`${CONNECTORS}?check=false`, body);
    responses.push(response.body);
    return response;
  }
  async function storedRow(id: string) {
    return service.store.db.selectFrom('connectors').selectAll().where('id', '=', id).executeTakeFirst();
  }
  async function storedCredentials(id: string) {
    const row = await storedRow(id);
    if (!row) throw new Error(`no row ${id}`);
    return openCredentials(service.keyring, id, row);
  }

  beforeAll(async () => {
    service = await startTestService(kind);
    a = await createTenant(service, 'Org A');
    b = await createTenant(service, 'Org B');
  });
  afterAll(async () => {
    expectNoCredentialValue(responses);
    await service.close();
  });

  describe('create', () => {
    it('creates a Harvest connector by definition_id with the personal access token option (inferred)', async () => {
      const response = await create(a, { workspace_name: 'default', definition_id: harvest.definitionId, name: 'Harvest main', credentials: harvestPat });
      expect(response.status).toBe(200);
      const body = response.body;
      expect(body).toEqual({
        id: expect.stringMatching(UUID),
        name: 'Harvest main',
        source_template: {
          id: harvest.definitionId,
          name: 'Harvest',
          icon: harvest.iconUrl,
          source_definition_id: harvest.definitionId,
          user_config_spec: { documentationUrl: harvest.docs[0]?.url, connectionSpecification: expect.objectContaining({ type: 'object' }) },
          partial_default_config: {},
          tags: [],
          mode: 'DIRECT',
          is_experimental: false,
          supports_context_store: true,
          created_at: null,
          updated_at: null,
        },
        replication_config: {},
        entities: null,
        created_at: expect.any(String),
        updated_at: expect.any(String),
        workspace_id: expect.stringMatching(UUID),
        workspace_name: 'default',
        connector_type: 'harvest',
        definition_id: harvest.definitionId,
        auth_option: 'Personal Access Token',
      });
      expect(Number.isNaN(Date.parse(body.created_at))).toBe(false);
      expectNoCredentialValue(body);
      const row = await storedRow(body.id);
      expect(row).toMatchObject({
        organization_id: a.organizationId,
        connector_type: 'harvest',
        auth_option: 'Personal Access Token',
        config: {},
        replication_config: {},
      });
      expect(await storedCredentials(body.id)).toEqual(harvestPat);
    });

    it('creates a Harvest connector by connector_type (any case) with option_title', async () => {
      const response = await create(a, {
        workspace_name: 'default',
        connector_type: 'HARVEST',
        name: 'Harvest by type',
        credentials: { option_title: 'Personal Access Token', ...harvestPat },
      });
      expect(response.status).toBe(200);
      expect(response.body).toMatchObject({ connector_type: 'harvest', definition_id: harvest.definitionId, auth_option: 'Personal Access Token' });
      expect(await storedCredentials(response.body.id)).toEqual(harvestPat);
    });

    it('creates a Jira connector with basic credentials and the subdomain in replication_config, by both identifiers', async () => {
      const byId = await create(a, {
        workspace_name: 'default',
        definition_id: jira.definitionId.toUpperCase(),
        name: 'Jira',
        credentials: jiraBasic,
        replication_config: { subdomain: 'acme' },
      });
      expect(byId.status).toBe(200);
      expect(byId.body).toMatchObject({
        connector_type: 'jira',
        definition_id: jira.definitionId,
        auth_option: 'API Token',
        replication_config: { subdomain: 'acme' },
      });
      expect((await storedRow(byId.body.id))?.config).toEqual({ subdomain: 'acme' });
      const byType = await create(a, {
        workspace_name: 'default',
        connector_type: 'Jira',
        name: 'Jira 2',
        credentials: jiraBasic,
        replication_config: { subdomain: 'beta-co' },
      });
      expect(byType.status).toBe(200);
      expect(byType.body.replication_config).toEqual({ subdomain: 'beta-co' });
      expect(await storedCredentials(byType.body.id)).toEqual(jiraBasic);
    });

    it('creates Linear connectors with the API key and with OAuth (access_token optional)', async () => {
      const key = await create(a, {
        workspace_name: 'default',
        connector_type: 'linear',
        name: 'Linear key',
        credentials: { api_key: CRED.linearKey },
        replication_config: null,
      });
      expect(key.status).toBe(200);
      expect(key.body.auth_option).toBe('API Key');
      const oauth = { client_id: CRED.clientId, client_secret: CRED.clientSecret, refresh_token: CRED.refreshToken };
      const withoutAccess = await create(a, { workspace_name: 'default', definition_id: linear.definitionId, name: 'Linear oauth', credentials: oauth });
      expect(withoutAccess.status).toBe(200);
      expect(withoutAccess.body.auth_option).toBe('OAuth2.0');
      expect(await storedCredentials(withoutAccess.body.id)).toEqual(oauth);
      const withAccess = await create(a, {
        workspace_name: 'default',
        definition_id: linear.definitionId,
        name: 'Linear oauth 2',
        credentials: { option_title: 'OAuth2.0', ...oauth, access_token: CRED.accessToken },
      });
      expect(withAccess.status).toBe(200);
      expect(await storedCredentials(withAccess.body.id)).toEqual({ ...oauth, access_token: CRED.accessToken });
    });

    it('creates the workspace named by a new workspace_name', async () => {
      const response = await create(a, { workspace_name: 'team-new', connector_type: 'linear', name: 'L', credentials: { api_key: CRED.linearKey } });
      expect(response.status).toBe(200);
      const workspace = await service.store.db
        .selectFrom('workspaces')
        .selectAll()
        .where('organization_id', '=', a.organizationId)
        .where('name', '=', 'team-new')
        .executeTakeFirstOrThrow();
      expect(response.body).toMatchObject({ workspace_id: workspace.id, workspace_name: 'team-new' });
      expect(workspace.status).toBe('active');
      // The same name later reuses the workspace.
      const again = await create(a, { workspace_name: 'team-new', connector_type: 'linear', name: 'L2', credentials: { api_key: CRED.linearKey } });
      expect(again.body.workspace_id).toBe(workspace.id);
    });

    it('requires exactly one of definition_id and connector_type (422)', async () => {
      const both = await create(a, {
        workspace_name: 'default',
        definition_id: linear.definitionId,
        connector_type: 'linear',
        name: 'x',
        credentials: { api_key: CRED.linearKey },
      });
      expect(both.status).toBe(422);
      expect(both.body.message).toBe('Send exactly one of definition_id or connector_type, not both.');
      expect(both.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['definition_id', 'exactly_one_of'],
        ['connector_type', 'exactly_one_of'],
      ]);
      const neither = await create(a, { workspace_name: 'default', name: 'x', credentials: { api_key: CRED.linearKey } });
      expect(neither.status).toBe(422);
      expect(neither.body.message).toBe('Send exactly one of definition_id or connector_type: neither was given.');
      const nulls = await create(a, {
        workspace_name: 'default',
        definition_id: null,
        connector_type: null,
        name: 'x',
        credentials: { api_key: CRED.linearKey },
      });
      expect(nulls.status).toBe(422);
      expect(nulls.body.message).toMatch(/exactly one of definition_id or connector_type/);
    });

    it('answers 400 for a definition_id or connector_type not in the catalog', async () => {
      const byId = await create(a, { workspace_name: 'default', definition_id: ABSENT, name: 'x', credentials: { api_key: CRED.linearKey } });
      expect(byId.status).toBe(400);
      expect(byId.body.errors).toEqual([{ field: 'definition_id', error_code: 'unknown_definition', message: expect.stringContaining(ABSENT) }]);
      const byType = await create(a, { workspace_name: 'default', connector_type: 'acme-crm', name: 'x', credentials: { api_key: CRED.linearKey } });
      expect(byType.status).toBe(400);
      expect(byType.body.message).toBe(
        `connector_type "acme-crm" is not offered by this service. Known types: ${Object.keys(connectorModules).sort().join(', ')}.`,
      );
      expect(byType.body.errors[0]).toMatchObject({ field: 'connector_type', error_code: 'unknown_connector_type' });
    });

    it('explains credentials that match no option or several, naming keys and required fields but no value', async () => {
      const none = await create(a, {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'x',
        credentials: { client_id: CRED.clientId, client_secret: CRED.clientSecret, account_id: CRED.harvestAccount },
      });
      expect(none.status).toBe(400);
      expect(none.body.message).toBe(
        'The credentials provided (client_id, client_secret, account_id) match no credential option. Options: "OAuth2.0" (requires client_id, client_secret, refresh_token, account_id); "Personal Access Token" (requires api_token, account_id).',
      );
      expect(none.body.errors).toEqual([{ field: 'credentials', error_code: 'invalid_credentials', message: none.body.message }]);
      const several = await create(a, {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'x',
        credentials: {
          api_token: CRED.harvestToken,
          client_id: CRED.clientId,
          client_secret: CRED.clientSecret,
          refresh_token: CRED.refreshToken,
          account_id: CRED.harvestAccount,
        },
      });
      expect(several.status).toBe(400);
      expect(several.body.message).toMatch(
        /^The credentials provided \(api_token, client_id, client_secret, refresh_token, account_id\) match several credential options; set credentials.option_title\. Options: /,
      );
      const empty = await create(a, { workspace_name: 'default', connector_type: 'linear', name: 'x', credentials: {} });
      expect(empty.status).toBe(400);
      expect(empty.body.message).toMatch(
        /^The credentials provided \(none\) match no credential option\. Options: "API Key" \(requires api_key\); "OAuth2\.0" \(requires client_id, client_secret, refresh_token\)\./,
      );
      const badPattern = await create(a, {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'x',
        credentials: { api_token: CRED.harvestToken, account_id: 'acct-S3CRET' },
      });
      expect(badPattern.status).toBe(400);
      expect(badPattern.body.message).toBe('Invalid credentials: "account_id" does not match ^[0-9]+$.');
      expect(badPattern.body.errors).toEqual([
        { field: 'credentials.account_id', error_code: 'pattern', message: '"account_id" does not match ^[0-9]+$', details: { limit: '^[0-9]+$' } },
      ]);
      expect(JSON.stringify(badPattern.body)).not.toContain('acct-S3CRET');
      const pasted = await create(a, {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'x',
        credentials: { option_title: 'Personal Access Token', api_token: `${CRED.harvestToken}\n`, extra: 'x' },
      });
      expect(pasted.status).toBe(400);
      expect(pasted.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['credentials.api_token', 'line_break'],
        ['credentials.extra', 'unknown'],
        ['credentials.account_id', 'required'],
      ]);
      expect(JSON.stringify(pasted.body)).not.toContain(CRED.harvestToken);
      const control = await create(a, { workspace_name: 'default', connector_type: 'linear', name: 'x', credentials: { api_key: 'lin_api_\u0001key' } });
      expect(control.status).toBe(400);
      expect(control.body.errors.map((e) => [e.field, e.error_code])).toEqual([['credentials.api_key', 'control_character']]);
    });

    it('rejects an option the connector does not offer and an incomplete OAuth option', async () => {
      const unsupported = await create(a, {
        workspace_name: 'default',
        connector_type: 'linear',
        name: 'x',
        credentials: { option_title: 'Personal Access Token', api_token: CRED.harvestToken },
      });
      expect(unsupported.status).toBe(400);
      expect(unsupported.body.errors).toEqual([
        {
          field: 'credentials.option_title',
          error_code: 'unsupported_option',
          message:
            'credentials.option_title "Personal Access Token" is not offered by this connector. Options: "API Key" (requires api_key); "OAuth2.0" (requires client_id, client_secret, refresh_token).',
        },
      ]);
      const noRefresh = await create(a, {
        workspace_name: 'default',
        connector_type: 'linear',
        name: 'x',
        credentials: { option_title: 'OAuth2.0', client_id: CRED.clientId, client_secret: CRED.clientSecret, access_token: CRED.accessToken },
      });
      expect(noRefresh.status).toBe(400);
      expect(noRefresh.body.message).toBe('Invalid credentials: "refresh_token" is required by option "OAuth2.0".');
      const inferred = await create(a, {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'x',
        credentials: { client_id: CRED.clientId, client_secret: CRED.clientSecret, access_token: CRED.accessToken, account_id: CRED.harvestAccount },
      });
      expect(inferred.status).toBe(400);
      expect(inferred.body.message).toMatch(/match no credential option.*"OAuth2\.0" \(requires client_id, client_secret, refresh_token, account_id\)/);
      const extraField = await create(a, {
        workspace_name: 'default',
        connector_type: 'jira',
        name: 'x',
        credentials: { option_title: 'API Token', ...jiraBasic, token: 'x1' },
        replication_config: { subdomain: 'acme' },
      });
      expect(extraField.status).toBe(400);
      expect(extraField.body.message).toBe('Invalid credentials: "token" is not a field of option "API Token".');
      expect(extraField.body.errors).toEqual([{ field: 'credentials.token', error_code: 'unknown', message: '"token" is not a field of option "API Token"' }]);
    });

    it('checks replication_config against the connector settings', async () => {
      const bad = await create(a, {
        workspace_name: 'default',
        connector_type: 'jira',
        name: 'x',
        credentials: jiraBasic,
        replication_config: { subdomain: 'not a subdomain!' },
      });
      expect(bad.status).toBe(400);
      expect(bad.body.errors).toEqual([
        {
          field: 'replication_config.subdomain',
          error_code: 'pattern',
          message: 'replication_config.subdomain must match ^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$',
          details: { limit: '^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$' },
        },
      ]);
      const missing = await create(a, { workspace_name: 'default', connector_type: 'jira', name: 'x', credentials: jiraBasic });
      expect(missing.status).toBe(400);
      expect(missing.body.errors).toEqual([
        {
          field: 'replication_config.subdomain',
          error_code: 'required',
          message: 'replication_config.subdomain is required: Your Atlassian site name: acme for acme.atlassian.net',
        },
      ]);
      const unknown = await create(a, {
        workspace_name: 'default',
        connector_type: 'jira',
        name: 'x',
        credentials: jiraBasic,
        replication_config: { subdomain: 'acme', region: 'eu', repos: 'a,b' },
      });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['replication_config.region', 'unknown'],
        ['replication_config.repos', 'unknown'],
      ]);
      const linearExtra = await create(a, {
        workspace_name: 'default',
        connector_type: 'linear',
        name: 'x',
        credentials: { api_key: CRED.linearKey },
        replication_config: { subdomain: 'acme' },
      });
      expect(linearExtra.status).toBe(400);
      expect(linearExtra.body.errors[0]?.field).toBe('replication_config.subdomain');
    });

    it('writes nothing, not even the new workspace, when a create fails', async () => {
      const before = await service.store.db.selectFrom('connectors').select('id').where('organization_id', '=', a.organizationId).execute();
      const failed = await create(a, {
        workspace_name: 'never-created',
        connector_type: 'jira',
        name: 'x',
        credentials: jiraBasic,
        replication_config: { subdomain: '-bad' },
      });
      expect(failed.status).toBe(400);
      const after = await service.store.db.selectFrom('connectors').select('id').where('organization_id', '=', a.organizationId).execute();
      expect(after).toHaveLength(before.length);
      const workspace = await service.store.db.selectFrom('workspaces').select('id').where('name', '=', 'never-created').executeTakeFirst();
      expect(workspace).toBeUndefined();
    });

    it('validates the body: missing fields, wrong types, unknown fields, malformed ids', async () => {
      const missing = await a.api.post<ErrorBody>(CONNECTORS, { connector_type: 'linear' });
      expect(missing.status).toBe(422);
      // Airbyte's schema requires only workspace_name; name defaults to the kind's display name.
      expect(missing.body.errors.map((e) => [e.field, e.error_code])).toEqual([['workspace_name', 'required']]);
      const noCredentials = await a.api.post<ErrorBody>(CONNECTORS, { workspace_name: 'default', connector_type: 'linear', credentials: null });
      expect(noCredentials.status).toBe(400);
      expect(noCredentials.body.errors).toEqual([
        {
          field: 'credentials',
          error_code: 'required',
          message: 'Linear needs credentials: send the fields of "API Key" (api_key) or "OAuth2.0" (client_id, client_secret, refresh_token, access_token).',
        },
      ]);
      const typed = await a.api.post<ErrorBody>(CONNECTORS, {
        workspace_name: 1,
        connector_type: 'linear',
        name: ['x'],
        credentials: 'key',
        replication_config: [],
      });
      expect(typed.status).toBe(422);
      expect(typed.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['workspace_name', 'type'],
        ['name', 'type'],
        ['credentials', 'type'],
        ['replication_config', 'type'],
      ]);
      // Numbers and booleans pass as their string form (see the Airbyte client tests); objects do not.
      const credentialType = await a.api.post<ErrorBody>(CONNECTORS, {
        workspace_name: 'default',
        connector_type: 'linear',
        name: 'x',
        credentials: { api_key: { key: 'k' } },
      });
      expect(credentialType.status).toBe(422);
      expect(credentialType.body.errors).toEqual([expect.objectContaining({ field: 'credentials.api_key', error_code: 'type' })]);
      const configType = await a.api.post<ErrorBody>(CONNECTORS, {
        workspace_name: 'default',
        connector_type: 'jira',
        name: 'x',
        credentials: jiraBasic,
        replication_config: { subdomain: ['acme'] },
      });
      expect(configType.status).toBe(422);
      expect(configType.body.errors[0]).toMatchObject({ field: 'replication_config.subdomain', error_code: 'type' });
      const unknown = await a.api.post<ErrorBody>(CONNECTORS, {
        workspace_name: 'default',
        connector_type: 'linear',
        name: 'x',
        credentials: { api_key: 'k' },
        enviroment: {},
      });
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual([{ field: 'enviroment', message: 'body enviroment is not a known parameter', error_code: 'unknown' }]);
      const badId = await a.api.post<ErrorBody>(CONNECTORS, { workspace_name: 'default', definition_id: 'jira', name: 'x', credentials: { api_key: 'k' } });
      expect(badId.status).toBe(422);
      expect(badId.body.errors[0]).toMatchObject({ field: 'definition_id', error_code: 'pattern' });
      const emptyName = await a.api.post<ErrorBody>(CONNECTORS, { workspace_name: '', connector_type: 'linear', name: '', credentials: { api_key: 'k' } });
      expect(emptyName.status).toBe(422);
      expect(emptyName.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['workspace_name', 'minLength'],
        ['workspace_name', 'pattern'],
        ['name', 'minLength'],
      ]);
      const spaced = await a.api.post<ErrorBody>(CONNECTORS, { workspace_name: ' team ', connector_type: 'linear', name: 'x', credentials: { api_key: 'k' } });
      expect(spaced.status).toBe(422);
      expect(spaced.body.errors[0]).toMatchObject({ field: 'workspace_name', error_code: 'pattern' });
      const longWorkspace = await a.api.post<ErrorBody>(CONNECTORS, {
        workspace_name: 'w'.repeat(101),
        connector_type: 'linear',
        name: 'x',
        credentials: { api_key: 'k' },
      });
      expect(longWorkspace.body.errors[0]).toMatchObject({ field: 'workspace_name', error_code: 'maxLength', details: { limit: 100 } });
      const malformed = await a.api.request<ErrorBody>('POST', CONNECTORS, { rawBody: '{"name":', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).toBe(400);
      expect(malformed.body.errors[0]?.error_code).toBe('malformed_json');
      const text = await a.api.request<ErrorBody>('POST', CONNECTORS, { rawBody: 'name=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(text.status).toBe(415);
    });

    it('refuses an oversized body with 413', async () => {
      const huge = { workspace_name: 'default', connector_type: 'linear', name: 'x', credentials: { api_key: 'k'.repeat(service.config.bodyLimitBytes + 10) } };
      const response = await a.api.post<ErrorBody>(CONNECTORS, huge);
      expect(response.status).toBe(413);
      expect(response.body.errors).toEqual([
        { field: null, message: 'The request body is larger than this service accepts.', error_code: 'payload_too_large' },
      ]);
      const tooLongValue = await a.api.post<ErrorBody>(CONNECTORS, {
        workspace_name: 'default',
        connector_type: 'linear',
        name: 'x',
        credentials: { api_key: 'k'.repeat(20_000) },
      });
      expect(tooLongValue.status).toBe(422);
      expect(tooLongValue.body.errors[0]).toMatchObject({ field: 'credentials.api_key', error_code: 'maxLength' });
    });

    it('requires a token', async () => {
      const response = await a.api.post(
        CONNECTORS,
        { workspace_name: 'default', connector_type: 'linear', name: 'x', credentials: { api_key: CRED.linearKey } },
        { token: null },
      );
      expect(response.status).toBe(401);
    });
  });

  describe('list, get, update, delete', () => {
    let tenant: Tenant;
    let harvestId: string;
    let jiraId: string;
    let linearId: string;
    let teamWorkspaceId: string;

    beforeAll(async () => {
      tenant = await createTenant(service, 'Lister');
      harvestId = (await create(tenant, { workspace_name: 'default', connector_type: 'harvest', name: 'H', credentials: harvestPat })).body.id;
      const jiraResponse = await create(tenant, {
        workspace_name: 'team',
        connector_type: 'jira',
        name: 'J',
        credentials: jiraBasic,
        replication_config: { subdomain: 'acme' },
      });
      jiraId = jiraResponse.body.id;
      teamWorkspaceId = jiraResponse.body.workspace_id;
      linearId = (await create(tenant, { workspace_name: 'team', connector_type: 'linear', name: 'L', credentials: { api_key: CRED.linearKey } })).body.id;
    });

    async function listIds(query = ''): Promise<string[]> {
      const response = await tenant.api.get<{ data: ListItem[] }>(`${CONNECTORS}${query}`);
      expect(response.status).toBe(200);
      responses.push(response.body);
      return response.body.data.map((item) => item.id);
    }

    it('lists the organization connectors, oldest first, in the reference list shape', async () => {
      const response = await tenant.api.get<{ data: ListItem[] }>(CONNECTORS);
      expect(response.status).toBe(200);
      responses.push(response.body);
      expect(response.body.data.map((c) => c.id)).toEqual([harvestId, jiraId, linearId]);
      expect(response.body.data[1]).toEqual({
        id: jiraId,
        name: 'J',
        summarized_source_template: {
          id: jira.definitionId,
          name: 'Jira',
          icon: jira.iconUrl,
          connector_name: 'jira',
          actor_definition_id: jira.definitionId,
          organization_id: null,
          tags: [],
          mode: 'DIRECT',
          supports_context_store: true,
          created_at: null,
          updated_at: null,
        },
        created_at: expect.any(String),
        updated_at: expect.any(String),
        workspace_id: teamWorkspaceId,
        workspace_name: 'team',
        connector_type: 'jira',
        definition_id: jira.definitionId,
        auth_option: 'API Token',
      });
    });

    it('filters by workspace_name, workspace_id and definition_id', async () => {
      expect(await listIds('?workspace_name=team')).toEqual([jiraId, linearId]);
      expect(await listIds('?workspace_name=default')).toEqual([harvestId]);
      expect(await listIds('?customer_name=team')).toEqual([jiraId, linearId]);
      expect(await listIds(`?workspace_id=${teamWorkspaceId}`)).toEqual([jiraId, linearId]);
      expect(await listIds(`?definition_id=${linear.definitionId}`)).toEqual([linearId]);
      expect(await listIds(`?definition_id=${linear.definitionId.toUpperCase()}&workspace_name=team`)).toEqual([linearId]);
      expect(await listIds(`?definition_id=${harvest.definitionId}&workspace_name=team`)).toEqual([]);
      expect(await listIds('?workspace_name=nothing')).toEqual([]);
      expect(await listIds(`?workspace_id=${ABSENT}`)).toEqual([]);
    });

    it('validates list filters', async () => {
      const badId = await tenant.api.get<ErrorBody>(`${CONNECTORS}?workspace_id=team`);
      expect(badId.status).toBe(422);
      expect(badId.body.errors[0]).toMatchObject({ field: 'workspace_id', error_code: 'pattern' });
      const badDefinition = await tenant.api.get<ErrorBody>(`${CONNECTORS}?definition_id=1`);
      expect(badDefinition.status).toBe(422);
      const unknown = await tenant.api.get<ErrorBody>(`${CONNECTORS}?connector=jira`);
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual([{ field: 'connector', message: 'query connector is not a known parameter', error_code: 'unknown' }]);
      expect((await tenant.api.get(CONNECTORS, { token: null })).status).toBe(401);
    });

    it('gets a connector without any credential', async () => {
      const response = await tenant.api.get<ConnectorBody>(`${CONNECTORS}/${jiraId}`);
      expect(response.status).toBe(200);
      responses.push(response.body);
      expect(response.body).toMatchObject({
        id: jiraId,
        name: 'J',
        workspace_name: 'team',
        connector_type: 'jira',
        replication_config: { subdomain: 'acme' },
        auth_option: 'API Token',
        entities: null,
      });
      expect(response.body.source_template.user_config_spec.connectionSpecification).toMatchObject({ required: ['credentials', 'subdomain'] });
      expect(Object.keys(response.body)).not.toContain('credentials');
      expect((await tenant.api.get<ErrorBody>(`${CONNECTORS}/${ABSENT}`)).status).toBe(404);
      const malformed = await tenant.api.get<ErrorBody>(`${CONNECTORS}/not-a-uuid`);
      expect(malformed.status).toBe(422);
      expect(malformed.body.errors[0]).toMatchObject({ field: 'id', error_code: 'pattern' });
    });

    it('renames a connector', async () => {
      const before = (await tenant.api.get<ConnectorBody>(`${CONNECTORS}/${harvestId}`)).body;
      const response = await tenant.api.put<ConnectorBody>(`${CONNECTORS}/${harvestId}`, { name: 'Harvest renamed' });
      expect(response.status).toBe(200);
      responses.push(response.body);
      expect(response.body).toMatchObject({ id: harvestId, name: 'Harvest renamed', auth_option: 'Personal Access Token', created_at: before.created_at });
      expect(Date.parse(response.body.updated_at)).toBeGreaterThanOrEqual(Date.parse(before.updated_at));
      expect(await storedCredentials(harvestId)).toEqual(harvestPat);
      expect((await tenant.api.get<ConnectorBody>(`${CONNECTORS}/${harvestId}`)).body.name).toBe('Harvest renamed');
    });

    it('replaces credentials, re-checked and re-sealed, possibly under another option', async () => {
      const rowBefore = await storedRow(harvestId);
      const rotated = await tenant.api.put<ConnectorBody>(`${CONNECTORS}/${harvestId}?check=false`, {
        credentials: { api_token: CRED.newToken, account_id: CRED.harvestAccount },
      });
      expect(rotated.status).toBe(200);
      responses.push(rotated.body);
      expect(await storedCredentials(harvestId)).toEqual({ api_token: CRED.newToken, account_id: CRED.harvestAccount });
      expect((await storedRow(harvestId))?.credentials_ciphertext).not.toBe(rowBefore?.credentials_ciphertext);
      const oauth = { client_id: CRED.clientId, client_secret: CRED.clientSecret, refresh_token: CRED.refreshToken, account_id: CRED.harvestAccount };
      const switched = await tenant.api.put<ConnectorBody>(`${CONNECTORS}/${harvestId}?check=false`, { credentials: { option_title: 'OAuth2.0', ...oauth } });
      expect(switched.status).toBe(200);
      responses.push(switched.body);
      expect(switched.body.auth_option).toBe('OAuth2.0');
      expect(await storedCredentials(harvestId)).toEqual(oauth);
      const invalid = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${harvestId}?check=false`, {
        name: 'should not stick',
        credentials: { api_token: CRED.newToken },
      });
      expect(invalid.status).toBe(400);
      expect(invalid.body.message).toMatch(/^The credentials provided \(api_token\) match no credential option/);
      expect(await storedCredentials(harvestId)).toEqual(oauth);
      expect((await tenant.api.get<ConnectorBody>(`${CONNECTORS}/${harvestId}`)).body.name).toBe('Harvest renamed');
      const unsupported = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${jiraId}?check=false`, {
        credentials: { option_title: 'Personal Access Token', api_token: CRED.newToken },
      });
      expect(unsupported.status).toBe(400);
      expect(unsupported.body.errors[0]).toMatchObject({ field: 'credentials.option_title', error_code: 'unsupported_option' });
    });

    it('replaces replication_config after checking it', async () => {
      const updated = await tenant.api.put<ConnectorBody>(`${CONNECTORS}/${jiraId}?check=false`, { replication_config: { subdomain: 'globex' } });
      expect(updated.status).toBe(200);
      expect(updated.body.replication_config).toEqual({ subdomain: 'globex' });
      expect((await storedRow(jiraId))?.config).toEqual({ subdomain: 'globex' });
      const bad = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${jiraId}?check=false`, { replication_config: { subdomain: 'globex.evil.com' } });
      expect(bad.status).toBe(400);
      expect(bad.body.errors[0]).toMatchObject({ field: 'replication_config.subdomain', error_code: 'pattern' });
      const emptied = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${jiraId}?check=false`, { replication_config: {} });
      expect(emptied.status).toBe(400);
      expect(emptied.body.errors[0]).toMatchObject({ field: 'replication_config.subdomain', error_code: 'required' });
      expect((await storedRow(jiraId))?.config).toEqual({ subdomain: 'globex' });
    });

    it('validates update bodies; one that changes nothing answers the current record', async () => {
      const current = await tenant.api.get<ConnectorBody>(`${CONNECTORS}/${jiraId}`);
      const empty = await tenant.api.put<ConnectorBody>(`${CONNECTORS}/${jiraId}`, {});
      expect(empty.status).toBe(200);
      expect(empty.body).toEqual(current.body);
      const nulls = await tenant.api.put<ConnectorBody>(`${CONNECTORS}/${jiraId}`, { name: null, replication_config: null, entities: null });
      expect(nulls.status).toBe(200);
      expect(nulls.body).toEqual(current.body);
      const unknown = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${jiraId}`, { name: 'x', workspace_name: 'other' });
      expect(unknown.status).toBe(422);
      expect(unknown.body.errors).toEqual([{ field: 'workspace_name', message: 'body workspace_name is not a known parameter', error_code: 'unknown' }]);
      const typed = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${jiraId}`, { name: 5, credentials: [] });
      expect(typed.status).toBe(422);
      expect(typed.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['name', 'type'],
        ['credentials', 'type'],
      ]);
      expect((await tenant.api.put<ErrorBody>(`${CONNECTORS}/bad-id`, { name: 'x' })).status).toBe(422);
      expect((await tenant.api.put<ErrorBody>(`${CONNECTORS}/${ABSENT}`, { name: 'x' })).status).toBe(404);
      const huge = await tenant.api.put<ErrorBody>(`${CONNECTORS}/${jiraId}`, { name: 'x'.repeat(service.config.bodyLimitBytes + 1) });
      expect(huge.status).toBe(413);
      expect((await tenant.api.put(`${CONNECTORS}/${jiraId}`, { name: 'x' }, { token: null })).status).toBe(401);
    });

    it('deletes a connector with its credentials (202 and a job id), then answers 404', async () => {
      const doomed = (await create(tenant, { workspace_name: 'team', connector_type: 'linear', name: 'Doomed', credentials: { api_key: CRED.linearKey } })).body
        .id;
      expect((await tenant.api.delete(`${CONNECTORS}/${doomed}`, { token: null })).status).toBe(401);
      // Sent as clients that put a JSON content type on every request do: no body, Content-Type: application/json.
      const response = await tenant.api.request<{ job_id: string }>('DELETE', `${CONNECTORS}/${doomed}`, {
        rawBody: '',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.status).toBe(202);
      expect(response.body).toEqual({ job_id: expect.stringMatching(UUID) });
      expect(await storedRow(doomed)).toBeUndefined();
      expect((await tenant.api.get(`${CONNECTORS}/${doomed}`)).status).toBe(404);
      expect((await tenant.api.put(`${CONNECTORS}/${doomed}`, { name: 'x' })).status).toBe(404);
      expect((await tenant.api.delete(`${CONNECTORS}/${doomed}`)).status).toBe(404);
      expect(await listIds()).not.toContain(doomed);
      expect((await tenant.api.delete(`${CONNECTORS}/nope`)).status).toBe(422);
    });

    it('hides connectors of a deleted workspace', async () => {
      const gone = await create(tenant, { workspace_name: 'to-delete', connector_type: 'linear', name: 'Gone', credentials: { api_key: CRED.linearKey } });
      await service.store.db.updateTable('workspaces').set({ deleted_at: new Date() }).where('id', '=', gone.body.workspace_id).execute();
      expect(await listIds()).not.toContain(gone.body.id);
      expect((await tenant.api.get(`${CONNECTORS}/${gone.body.id}`)).status).toBe(404);
      // A new workspace of the same name is a different workspace.
      const again = await create(tenant, { workspace_name: 'to-delete', connector_type: 'linear', name: 'New', credentials: { api_key: CRED.linearKey } });
      expect(again.body.workspace_id).not.toBe(gone.body.workspace_id);
      expect(await listIds('?workspace_name=to-delete')).toEqual([again.body.id]);
    });
  });

  describe('organization isolation', () => {
    let connectorId: string;
    let workspaceId: string;
    beforeAll(async () => {
      const response = await create(a, {
        workspace_name: 'shared-name',
        connector_type: 'jira',
        name: 'A jira',
        credentials: jiraBasic,
        replication_config: { subdomain: 'acme' },
      });
      connectorId = response.body.id;
      workspaceId = response.body.workspace_id;
    });

    it('gives another organization 404 on every route for the connector, and never lists it', async () => {
      const get = await b.api.get<ErrorBody>(`${CONNECTORS}/${connectorId}`);
      expect(get.status).toBe(404);
      expect(get.body).toEqual({
        message: `No connector ${connectorId}.`,
        errors: [{ field: null, message: `No connector ${connectorId}.`, error_code: 'not_found' }],
      });
      expect((await b.api.put(`${CONNECTORS}/${connectorId}`, { name: 'hijacked' })).status).toBe(404);
      expect((await b.api.put(`${CONNECTORS}/${connectorId}`, { credentials: { api_key: CRED.linearKey } })).status).toBe(404);
      expect((await b.api.delete(`${CONNECTORS}/${connectorId}`)).status).toBe(404);
      const list = await b.api.get<{ data: ListItem[] }>(CONNECTORS);
      expect(list.body.data.map((c) => c.id)).not.toContain(connectorId);
      expect((await b.api.get<{ data: ListItem[] }>(`${CONNECTORS}?workspace_id=${workspaceId}`)).body.data).toEqual([]);
      expect((await b.api.get<{ data: ListItem[] }>(`${CONNECTORS}?workspace_name=shared-name`)).body.data).toEqual([]);
      // Still A's, unchanged.
      const mine = await a.api.get<ConnectorBody>(`${CONNECTORS}/${connectorId}`);
      expect(mine.status).toBe(200);
      expect(mine.body.name).toBe('A jira');
      expect(await storedCredentials(connectorId)).toEqual(jiraBasic);
    });

    it('creates a same-named workspace separately for each organization', async () => {
      const response = await create(b, { workspace_name: 'shared-name', connector_type: 'linear', name: 'B linear', credentials: { api_key: CRED.linearKey } });
      expect(response.status).toBe(200);
      expect(response.body.workspace_id).not.toBe(workspaceId);
      const listA = await a.api.get<{ data: ListItem[] }>(`${CONNECTORS}?workspace_name=shared-name`);
      expect(listA.body.data.map((c) => c.id)).toEqual([connectorId]);
      const listB = await b.api.get<{ data: ListItem[] }>(`${CONNECTORS}?workspace_name=shared-name`);
      expect(listB.body.data.map((c) => c.id)).toEqual([response.body.id]);
    });
  });

  it('stores no credential value in plain text in any column of the connectors table', async () => {
    const rows = await service.store.db.selectFrom('connectors').selectAll().execute();
    expect(rows.length).toBeGreaterThan(5);
    const dump = JSON.stringify(rows);
    for (const value of SECRET_VALUES) expect(dump).not.toContain(value);
    for (const row of rows) {
      expect(row.credentials_key_id).toBe(service.keyring.currentKeyId);
      expect(row.credentials_ciphertext).not.toBe('');
    }
  });

  it('appears in the OpenAPI description', async () => {
    const openapi = await a.api.get<{ paths: Record<string, Record<string, unknown>> }>('/api/v1/openapi.json');
    expect(Object.keys(openapi.body.paths[CONNECTORS] ?? {}).sort()).toEqual(['get', 'post']);
    expect(Object.keys(openapi.body.paths[`${CONNECTORS}/{id}`] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
  });
});
