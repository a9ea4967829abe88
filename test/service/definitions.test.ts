import { Ajv } from 'ajv';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const SOURCES = '/api/v1/integrations/definitions/sources';
const harvest = connectorModules.harvest!.definition;
const jira = connectorModules.jira!.definition;
const linear = connectorModules.linear!.definition;

interface Summary {
  sourceDefinitionId: string;
  name: string;
  iconUrl: string;
  supportLevel: string;
}
interface JsonSchema {
  type?: string;
  required?: string[];
  properties?: Record<string, Record<string, unknown>>;
  oneOf?: JsonSchema[];
  [key: string]: unknown;
}
interface Detail {
  id: string;
  definition: Summary & { custom: boolean; spec: { documentationUrl: string | null; connectionSpecification: JsonSchema } };
  connector_type: string;
  auth_options: Array<{ option_title: string; description: string | null; schema: JsonSchema }>;
  replication_config_schema: JsonSchema;
}

const summary = (d: typeof harvest): Summary => ({ sourceDefinitionId: d.definitionId, name: d.displayName, iconUrl: d.iconUrl, supportLevel: d.supportLevel });
/** The whole generated catalog, sorted by display name (other connectors may join harvest, jira and linear). */
const catalog = Object.values(connectorModules)
  .map((m) => m.definition)
  .sort((x, y) => x.displayName.localeCompare(y.displayName));
const namesMatching = (needle: string) =>
  catalog.filter((d) => d.displayName.toLowerCase().includes(needle.toLowerCase()) || d.connectorType.includes(needle.toLowerCase())).map((d) => d.displayName);

describe.each(storeKinds())('connector definitions (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  beforeAll(async () => {
    service = await startTestService(kind);
    tenant = await createTenant(service);
  });
  afterAll(async () => service.close());

  it('lists the whole catalog sorted by name, with no connector configured', async () => {
    const response = await tenant.api.get<{ definitions: Summary[] }>(SOURCES);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ definitions: catalog.map(summary) });
    expect(response.body.definitions.map((d) => d.name)).toEqual(expect.arrayContaining(['Harvest', 'Jira', 'Linear']));
    expect(response.body.definitions.find((d) => d.name === 'Jira')?.supportLevel).toBe('certified');
  });

  it('filters by a case-insensitive substring of the display name or connector_type', async () => {
    const names = async (query: string) =>
      (await tenant.api.get<{ definitions: Summary[] }>(`${SOURCES}?name=${encodeURIComponent(query)}`)).body.definitions.map((d) => d.name);
    expect(await names('JIR')).toEqual(['Jira']);
    expect(await names('lIneA')).toEqual(['Linear']);
    expect(await names('vest')).toEqual(['Harvest']);
    expect(await names('r')).toEqual(namesMatching('r'));
    expect(await names('r')).toEqual(expect.arrayContaining(['Harvest', 'Jira', 'Linear']));
    expect(await names('')).toEqual(catalog.map((d) => d.displayName));
    expect(await names('no-such-connector')).toEqual([]);
  });

  it('validates the list query and requires a token', async () => {
    const unknown = await tenant.api.get(`${SOURCES}?nam=jira`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ field: 'nam', message: 'query nam is not a known parameter', error_code: 'unknown' }]);
    const long = await tenant.api.get(`${SOURCES}?name=${'x'.repeat(201)}`);
    expect(long.status).toBe(422);
    expect((long.body.errors as Array<{ field: string; error_code: string }>)[0]).toMatchObject({ field: 'name', error_code: 'maxLength' });
    expect((await tenant.api.get(SOURCES, { token: null })).status).toBe(401);
    expect((await tenant.api.get(`${SOURCES}/${jira.definitionId}`, { token: null })).status).toBe(401);
  });

  it('describes a definition in the reference shape plus its credential options and settings schemas', async () => {
    const response = await tenant.api.get<Detail>(`${SOURCES}/${harvest.definitionId}`);
    expect(response.status).toBe(200);
    const body = response.body;
    expect(body.id).toBe(harvest.definitionId);
    expect(body.connector_type).toBe('harvest');
    expect(body.definition).toMatchObject({ ...summary(harvest), custom: false });
    expect(body.definition.spec.documentationUrl).toBe(harvest.docs[0]?.url);
    expect(body.auth_options.map((o) => o.option_title)).toEqual(['OAuth2.0', 'Personal Access Token']);
    const pat = body.auth_options[1]!;
    expect(pat.description).toBe(harvest.auth[1]?.description);
    expect(pat.schema).toEqual({
      type: 'object',
      title: 'Personal Access Token',
      description: harvest.auth[1]?.description,
      required: ['api_token', 'account_id'],
      properties: {
        api_token: { type: 'string', title: 'api_token', description: 'Harvest personal access token.', minLength: 1, secret: true, airbyte_secret: true },
        account_id: {
          type: 'string',
          title: 'account_id',
          description: 'Harvest account ID, sent as the Harvest-Account-Id header.',
          minLength: 1,
          pattern: '^[0-9]+$',
          examples: ['123456'],
        },
      },
      additionalProperties: false,
    });
    const oauth = body.auth_options[0]!.schema;
    expect(oauth.required).toEqual(['client_id', 'client_secret', 'refresh_token', 'account_id']);
    expect(oauth.properties?.access_token).toMatchObject({ secret: true, airbyte_secret: true });
    expect(oauth.properties?.client_id?.secret).toBeUndefined();
    // Secret fields never carry example values.
    for (const option of body.auth_options) {
      for (const property of Object.values(option.schema.properties ?? {})) {
        if (property.secret === true) expect(property.examples).toBeUndefined();
      }
    }
    expect(body.replication_config_schema).toMatchObject({ type: 'object', required: [], properties: {}, additionalProperties: false });
    const spec = body.definition.spec.connectionSpecification;
    expect(spec).toMatchObject({ type: 'object', required: ['credentials'], additionalProperties: false });
    const oneOf = spec.properties?.credentials?.oneOf as JsonSchema[];
    expect(oneOf.map((o) => o.properties?.option_title?.const)).toEqual(['OAuth2.0', 'Personal Access Token']);
  });

  it('gives Jira its subdomain setting and Linear its OAuth option with access_token optional', async () => {
    const jiraDetail = (await tenant.api.get<Detail>(`${SOURCES}/${jira.definitionId}`)).body;
    expect(jiraDetail.replication_config_schema.required).toEqual(['subdomain']);
    expect(jiraDetail.replication_config_schema.properties?.subdomain).toEqual({
      type: 'string',
      title: 'subdomain',
      description: 'Your Atlassian site name: acme for acme.atlassian.net',
      pattern: '^[a-zA-Z0-9][a-zA-Z0-9-]{0,62}$',
      examples: ['acme'],
    });
    expect(jiraDetail.definition.spec.connectionSpecification.required).toEqual(['credentials', 'subdomain']);
    expect(jiraDetail.auth_options).toEqual([
      expect.objectContaining({ option_title: 'API Token', schema: expect.objectContaining({ required: ['email', 'api_token'] }) }),
      expect.objectContaining({
        option_title: 'OAuth2.0',
        schema: expect.objectContaining({ required: ['client_id', 'client_secret', 'refresh_token', 'cloud_id'] }),
      }),
    ]);
    const linearDetail = (await tenant.api.get<Detail>(`${SOURCES}/${linear.definitionId.toUpperCase()}`)).body;
    expect(linearDetail.id).toBe(linear.definitionId);
    const oauth = linearDetail.auth_options.find((o) => o.option_title === 'OAuth2.0')!;
    expect(oauth.schema.required).toEqual(['client_id', 'client_secret', 'refresh_token']);
    expect(Object.keys(oauth.schema.properties ?? {})).toContain('access_token');
  });

  it('publishes schemas a client can validate a create form with', async () => {
    const ajv = new Ajv({ strict: false, allErrors: true });
    const jiraDetail = (await tenant.api.get<Detail>(`${SOURCES}/${jira.definitionId}`)).body;
    const spec = ajv.compile(jiraDetail.definition.spec.connectionSpecification);
    expect(spec({ credentials: { email: 'ana@acme.com', api_token: 't' }, subdomain: 'acme' })).toBe(true);
    expect(spec({ credentials: { option_title: 'API Token', email: 'ana@acme.com', api_token: 't' }, subdomain: 'acme' })).toBe(true);
    expect(spec({ credentials: { email: 'ana@acme.com' }, subdomain: 'acme' })).toBe(false);
    expect(spec({ credentials: { email: 'ana@acme.com', api_token: 't' }, subdomain: 'bad domain' })).toBe(false);
    const harvestDetail = (await tenant.api.get<Detail>(`${SOURCES}/${harvest.definitionId}`)).body;
    const pat = ajv.compile(harvestDetail.auth_options[1]!.schema);
    expect(pat({ api_token: 't', account_id: '123' })).toBe(true);
    expect(pat({ api_token: 't', account_id: 'abc' })).toBe(false);
    const settings = ajv.compile(jiraDetail.replication_config_schema);
    expect(settings({ subdomain: 'acme' })).toBe(true);
    expect(settings({ subdomain: 'acme', region: 'eu' })).toBe(false);
  });

  it('describes every definition of the catalog with compilable schemas, one per auth option', async () => {
    const ajv = new Ajv({ strict: false });
    for (const definition of catalog) {
      const response = await tenant.api.get<Detail>(`${SOURCES}/${definition.definitionId}`);
      expect(response.status).toBe(200);
      expect(response.body.connector_type).toBe(definition.connectorType);
      expect(response.body.auth_options.map((o) => o.option_title)).toEqual(definition.auth.map((o) => o.optionTitle));
      ajv.compile(response.body.definition.spec.connectionSpecification);
      ajv.compile(response.body.replication_config_schema);
      for (const option of response.body.auth_options) ajv.compile(option.schema);
    }
  });

  it('answers 404 for an id not in the catalog and 422 for a malformed id', async () => {
    const missing = await tenant.api.get(`${SOURCES}/00000000-0000-4000-8000-000000000000`);
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({
      message: 'No source definition 00000000-0000-4000-8000-000000000000.',
      errors: [{ field: null, message: 'No source definition 00000000-0000-4000-8000-000000000000.', error_code: 'not_found' }],
    });
    const malformed = await tenant.api.get(`${SOURCES}/jira`);
    expect(malformed.status).toBe(422);
    expect((malformed.body.errors as Array<{ field: string; error_code: string }>)[0]).toMatchObject({ field: 'id', error_code: 'pattern' });
  });

  it('appears in the OpenAPI description', async () => {
    const openapi = await tenant.api.get<{ paths: Record<string, Record<string, unknown>> }>('/api/v1/openapi.json');
    expect(openapi.status).toBe(200);
    expect(Object.keys(openapi.body.paths)).toEqual(
      expect.arrayContaining(['/api/v1/integrations/definitions/sources', '/api/v1/integrations/definitions/sources/{id}']),
    );
  });
});
