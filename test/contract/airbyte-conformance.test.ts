/**
 * Conformance with Airbyte's Agent API (test/contract/reference/airbyte-app_public.json): the real service
 * is driven through EVERY operation of that description with requests its schemas allow (nulls for
 * optional fields, documented fields Switchyard ignores, the X-Organization-Id header), and every request
 * body and every answer (status and body) is validated against the reference schemas with ajv.
 * Existing Airbyte clients must work by changing only the base URL; this test stands in for its SDK.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { ApiClient, createTenant, startTestService, type ApiResponse, type Tenant, type TestService } from '../support/service.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

type Rec = Record<string, unknown>;
type Method = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

interface Operation {
  responses: Record<string, { content?: { 'application/json'?: { schema: Rec } } }>;
  requestBody?: { content: { 'application/json': { schema: Rec } } };
}
const reference = JSON.parse(readFileSync(fileURLToPath(new URL('./reference/airbyte-app_public.json', import.meta.url)), 'utf8')) as {
  paths: Record<string, Record<string, Operation>>;
};

/** Airbyte data-pipeline operations: Switchyard answers 501 in its error envelope. */
const DATA_PIPELINE = [
  'GET /api/v1/integrations/definitions/destinations',
  'GET /api/v1/integrations/definitions/destinations/{id}',
  'GET /api/v1/integrations/templates/connections',
  'POST /api/v1/integrations/templates/connections',
  'POST /api/v1/integrations/templates/connections/cron/describe',
  'GET /api/v1/integrations/templates/connections/{id}',
  'PATCH /api/v1/integrations/templates/connections/{id}',
  'DELETE /api/v1/integrations/templates/connections/{id}',
];

const HARVEST_API = 'https://api.harvestapp.com';
const ACCOUNT_ID = '123456';
const PAT = 'harvest-pat-conformance-0001';
const COMPANY = { base_uri: 'https://acme.harvestapp.com', full_domain: 'acme.harvestapp.com', name: 'Acme', is_active: true, weekly_capacity: 126000 };
const harvest = connectorModules.harvest?.definition;
const ABSENT = '8b1f2a6e-0d4c-4e55-9a1b-3c2d4e5f6a7b';

/** One step: the reference operation it exercises, and how to call it (ids come from earlier steps). */
interface Step {
  operation: string;
  call: () => Promise<{ response: ApiResponse<unknown>; body?: unknown }>;
  /** 200 unless said; 501 for the data-pipeline operations listed above. */
  status?: number;
  /** Vendor calls the step must make (nock scopes), checked after it. */
  vendor?: () => nock.Scope;
}

function ajvFor(): Ajv2020 {
  const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true, validateFormats: true }));
  ajv.addSchema({ ...reference, $id: 'app_public' });
  return ajv;
}

describe('conformance with the Airbyte Agent API description (every operation)', () => {
  let service: TestService;
  let tenant: Tenant;
  let scoped: ApiClient;
  const ajv = ajvFor();
  const state: { connectorId?: string; workspaceId?: string; doomedWorkspaceId?: string; templateId?: string } = {};
  const violations: string[] = [];

  beforeAll(async () => {
    nock.disableNetConnect();
    service = await startTestService('pglite', { upstreamRetries: 0, upstreamTimeoutMs: 2_000 });
    tenant = await createTenant(service, 'Conformance');
  });
  afterAll(async () => {
    nock.cleanAll();
    await service.close();
    nock.enableNetConnect();
  });

  const headers = () => ({ 'x-organization-id': tenant.organizationId });
  const api = (method: Method, path: string, body?: unknown, client?: ApiClient) =>
    (client ?? tenant.api).request(method, path, { headers: headers(), ...(body !== undefined && { body }) }).then((response) => ({ response, body }));
  const company = () =>
    nock(HARVEST_API).matchHeader('authorization', `Bearer ${PAT}`).matchHeader('harvest-account-id', ACCOUNT_ID).get('/v2/company').reply(200, COMPANY);
  const credentials = { api_token: PAT, account_id: ACCOUNT_ID };
  /** Every optional field of Airbyte's create/check request, as null or with a documented value Switchyard ignores. */
  const airbyteExtras = {
    definition_id: null,
    source_template_id: null,
    replication_config: null,
    environment: null,
    entities: null,
    server_side_oauth_secret_id: null,
    selected_connection_template_tags: [],
    selected_connection_template_tags_mode: 'any',
  };

  const steps: Step[] = [
    {
      operation: 'POST /api/v1/account/applications/token',
      call: async () => api('POST', '/api/v1/account/applications/token', { client_id: tenant.clientId, client_secret: tenant.clientSecret }),
    },
    {
      operation: 'POST /api/v1/account/applications/scoped-token',
      call: async () => {
        const result = await api('POST', '/api/v1/account/applications/scoped-token', { workspace_name: 'conformance-customer', region_id: null });
        scoped = new ApiClient(service.url);
        scoped.token = (result.response.body as { token: string }).token;
        return result;
      },
    },
    {
      operation: 'GET /api/v1/account/applications/scoped-token/info',
      call: async () => api('GET', '/api/v1/account/applications/scoped-token/info', undefined, scoped),
    },
    {
      operation: 'POST /api/v1/account/applications/widget-token',
      call: async () => api('POST', '/api/v1/account/applications/widget-token', { workspace_name: 'default', allowed_origin: 'https://app.example.com' }),
    },
    { operation: 'GET /api/v1/integrations/definitions/sources', call: async () => api('GET', '/api/v1/integrations/definitions/sources?name=harv') },
    {
      operation: 'GET /api/v1/integrations/definitions/sources/{id}',
      call: async () => api('GET', `/api/v1/integrations/definitions/sources/${harvest?.definitionId}`),
    },
    {
      operation: 'POST /api/v1/integrations/connectors/check',
      vendor: company,
      call: async () =>
        api('POST', '/api/v1/integrations/connectors/check', {
          workspace_name: 'default',
          connector_type: 'harvest',
          name: null,
          credentials,
          ...airbyteExtras,
        }),
    },
    {
      operation: 'POST /api/v1/integrations/connectors',
      vendor: company,
      call: async () => {
        const result = await api('POST', '/api/v1/integrations/connectors', {
          workspace_name: 'default',
          connector_type: 'harvest',
          name: null,
          credentials,
          ...airbyteExtras,
        });
        state.connectorId = (result.response.body as { id: string }).id;
        state.workspaceId = (result.response.body as { workspace_id: string }).workspace_id;
        return result;
      },
    },
    {
      operation: 'GET /api/v1/integrations/connectors',
      call: async () =>
        api('GET', `/api/v1/integrations/connectors?workspace_name=default&workspace_id=${state.workspaceId}&definition_id=${harvest?.definitionId}`),
    },
    { operation: 'GET /api/v1/integrations/connectors/{id}', call: async () => api('GET', `/api/v1/integrations/connectors/${state.connectorId}`) },
    {
      operation: 'PUT /api/v1/integrations/connectors/{id}',
      call: async () =>
        api('PUT', `/api/v1/integrations/connectors/${state.connectorId}`, { name: 'Harvest (renamed)', replication_config: null, entities: null }),
    },
    {
      operation: 'POST /api/v1/integrations/connectors/{id}/check',
      vendor: company,
      call: async () => api('POST', `/api/v1/integrations/connectors/${state.connectorId}/check`, { name: null, replication_config: null, entities: null }),
    },
    {
      operation: 'POST /api/v1/integrations/connectors/{id}/execute',
      vendor: company,
      call: async () =>
        api('POST', `/api/v1/integrations/connectors/${state.connectorId}/execute`, {
          entity: 'company',
          action: 'get',
          params: {},
          select_fields: null,
          exclude_fields: null,
          skip_truncation: true,
          intent: null,
        }),
    },
    {
      operation: 'GET /api/v1/integrations/connectors/{id}/inspect',
      call: async () => api('GET', `/api/v1/integrations/connectors/${state.connectorId}/inspect`),
    },
    {
      operation: 'DELETE /api/v1/integrations/connectors/{id}',
      status: 202,
      call: async () => api('DELETE', `/api/v1/integrations/connectors/${state.connectorId}`),
    },
    {
      operation: 'GET /api/v1/integrations/definitions/destinations',
      call: async () => api('GET', `/api/v1/integrations/definitions/destinations?actorDefinitionIds=${ABSENT}`),
    },
    {
      operation: 'GET /api/v1/integrations/definitions/destinations/{id}',
      call: async () => api('GET', `/api/v1/integrations/definitions/destinations/${ABSENT}`),
    },
    {
      operation: 'GET /api/v1/integrations/templates/connections',
      call: async () => api('GET', '/api/v1/integrations/templates/connections?tags=a&tags_mode=any'),
    },
    {
      operation: 'POST /api/v1/integrations/templates/connections',
      call: async () =>
        api('POST', '/api/v1/integrations/templates/connections', { destination_name: 'Warehouse', destination_definition_id: ABSENT, destination_config: {} }),
    },
    {
      operation: 'POST /api/v1/integrations/templates/connections/cron/describe',
      call: async () => api('POST', '/api/v1/integrations/templates/connections/cron/describe', { cron_expression: '0 0 12 * * ?' }),
    },
    { operation: 'GET /api/v1/integrations/templates/connections/{id}', call: async () => api('GET', `/api/v1/integrations/templates/connections/${ABSENT}`) },
    {
      operation: 'PATCH /api/v1/integrations/templates/connections/{id}',
      call: async () => api('PATCH', `/api/v1/integrations/templates/connections/${ABSENT}`, { destination_name: 'Renamed' }),
    },
    {
      operation: 'DELETE /api/v1/integrations/templates/connections/{id}',
      call: async () => api('DELETE', `/api/v1/integrations/templates/connections/${ABSENT}`),
    },
    {
      operation: 'POST /api/v1/integrations/templates/sources',
      call: async () => {
        const result = await api('POST', '/api/v1/integrations/templates/sources', { actor_definition_id: harvest?.definitionId, partial_default_config: {} });
        state.templateId = (result.response.body as { id: string }).id;
        return result;
      },
    },
    { operation: 'GET /api/v1/integrations/templates/sources', call: async () => api('GET', '/api/v1/integrations/templates/sources?use_global=true') },
    {
      operation: 'GET /api/v1/integrations/templates/sources/{id}',
      call: async () => api('GET', `/api/v1/integrations/templates/sources/${state.templateId}`),
    },
    {
      operation: 'PATCH /api/v1/integrations/templates/sources/{id}',
      call: async () => api('PATCH', `/api/v1/integrations/templates/sources/${state.templateId}`, { name: 'Harvest' }),
    },
    {
      operation: 'DELETE /api/v1/integrations/templates/sources/{id}',
      call: async () => api('DELETE', `/api/v1/integrations/templates/sources/${state.templateId}`),
    },
    {
      operation: 'PUT /api/v1/oauth/credentials',
      call: async () =>
        api('PUT', '/api/v1/oauth/credentials', {
          connector_type: 'harvest',
          connector_definition_id: null,
          configuration: { client_id: 'harvest-app-id', client_secret: 'harvest-app-secret' },
        }),
    },
    {
      operation: 'DELETE /api/v1/oauth/credentials/connector_type/{connector_type}',
      status: 204,
      call: async () => api('DELETE', '/api/v1/oauth/credentials/connector_type/harvest'),
    },
    { operation: 'GET /api/v1/skills', call: async () => api('GET', `/api/v1/skills?limit=5&organization_id=${tenant.organizationId}`) },
    { operation: 'GET /api/v1/skills/docs', call: async () => api('GET', '/api/v1/skills/docs?id=connector:harvest&section=users.list') },
    { operation: 'GET /api/v1/skills/search', call: async () => api('GET', '/api/v1/skills/search?query=time%20entries&limit=3') },
    { operation: 'GET /api/v1/workspaces', call: async () => api('GET', '/api/v1/workspaces?limit=5&status=active&name_contains=conf') },
    { operation: 'GET /api/v1/workspaces/stats', call: async () => api('GET', '/api/v1/workspaces/stats') },
    { operation: 'GET /api/v1/workspaces/{workspace_id}', call: async () => api('GET', `/api/v1/workspaces/${state.workspaceId}`) },
    {
      operation: 'PUT /api/v1/workspaces/{workspace_id}',
      call: async () => api('PUT', `/api/v1/workspaces/${state.workspaceId}`, { name: null, status: null, cache_enabled: true }),
    },
    {
      operation: 'DELETE /api/v1/workspaces/{workspace_id}',
      call: async () => {
        const doomed = await api('POST', '/api/v1/account/applications/scoped-token', { workspace_name: 'conformance-doomed' });
        const info = await scoped.request('GET', '/api/v1/account/applications/scoped-token/info', {
          token: (doomed.response.body as { token: string }).token,
        });
        return api('DELETE', `/api/v1/workspaces/${(info.body as { workspace_id: string }).workspace_id}`);
      },
    },
  ];

  it('covers all 38 operations of the reference, each once', () => {
    const described = Object.entries(reference.paths).flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method.toUpperCase()} ${path}`));
    expect(described).toHaveLength(38);
    expect(steps.map((s) => s.operation).sort()).toEqual(described.sort());
  });

  for (const step of steps) {
    it(step.operation, async () => {
      const [method, path] = step.operation.split(' ') as [Method, string];
      const operation = reference.paths[path]?.[method.toLowerCase()];
      expect(operation, 'operation in the reference').toBeDefined();
      const dataPipeline = DATA_PIPELINE.includes(step.operation);
      const expected = dataPipeline ? 501 : (step.status ?? 200);
      const vendor = !dataPipeline ? step.vendor?.() : undefined;
      const { response, body } = await step.call();

      const requestSchema = operation?.requestBody?.content['application/json'].schema;
      if (requestSchema !== undefined && body !== undefined) {
        const before = violations.length;
        validateAgainst(requestSchema, body, `${step.operation} request`);
        expect(violations.slice(before), 'the request must be one the reference allows').toEqual([]);
      }
      expect(response.status, `${step.operation}: ${JSON.stringify(response.body)}`).toBe(expected);
      vendor?.done();
      const before = violations.length;
      if (dataPipeline) {
        validateAgainst({ $ref: '#/components/schemas/ApiErrorResponse' }, response.body, `${step.operation} ${response.status}`);
        expect(response.body).toMatchObject({ message: expect.any(String), errors: [expect.objectContaining({ error_code: 'not_implemented' })] });
        expect((response.body as { message: string }).message).toMatch(/Airbyte's data-pipeline product/);
      } else if (expected === 204) {
        expect(operation?.responses['204']?.content, 'the reference describes a 204 without a body').toBeUndefined();
        expect(response.body ?? '').toEqual('');
      } else {
        const schema = operation?.responses[String(expected)]?.content?.['application/json']?.schema;
        expect(schema, `the reference describes a ${expected} body`).toBeDefined();
        validateAgainst(schema as Rec, response.body, `${step.operation} ${response.status}`);
      }
      expect(violations.slice(before)).toEqual([]);
    });
  }

  function validateAgainst(schema: Rec, value: unknown, what: string): void {
    const ref = typeof schema.$ref === 'string' ? schema.$ref : undefined;
    const validator =
      ref !== undefined ? ajv.getSchema(`app_public${ref}`) : ajv.compile({ $schema: 'https://json-schema.org/draft/2020-12/schema', ...withRefsInto(schema) });
    if (!validator) throw new Error(`no schema ${ref}`);
    if (!validator(value)) violations.push(`${what}: ${ajv.errorsText(validator.errors)}`);
  }

  /** An inline schema whose #/components refs point into the reference document. */
  function withRefsInto(schema: unknown): Rec {
    return JSON.parse(JSON.stringify(schema).replace(/"\$ref":"#\//g, '"$ref":"app_public#/')) as Rec;
  }

  it('has 0 schema violations in all', () => {
    expect(violations).toEqual([]);
  });
});
