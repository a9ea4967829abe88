import type { FastifyInstance } from 'fastify';
import type { FastifyRequest } from 'fastify';
import { ForbiddenError, RequestValidationError } from '../errors.js';
import {
  checkNewConnector,
  checkStoredConnector,
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  updateConnector,
  type CheckNewConnectorInput,
} from '../services/connectors.js';
import { findWorkspace } from '../services/workspaces.js';
import { ignored, ignoredProperties } from './request-acceptance.js';
import { connectorSpecificationSchema } from './definitions.js';
import { errorResponses, idParamsSchema, uuidSchema } from './shared-schemas.js';
import { workspaceNameSchema } from './workspaces.js';
import type { CreateConnectorInput, UpdateConnectorInput } from '../api-shapes.js';

const nullableUuid = { type: ['string', 'null'], pattern: uuidSchema.pattern } as const;
const timestamp = { type: 'string', format: 'date-time' } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const mode = { type: 'string', enum: ['DIRECT', 'REPLICATION', 'MULTI'] } as const;

/**
 * Credential fields are text; numbers and booleans pass as their string form and null as absent (the
 * runtime's option selection converts them). Which fields are allowed depends on the connector, so
 * they are checked by the service.
 */
const credentialsSchema = {
  type: 'object',
  description:
    'Credential fields of one auth option of the connector (see auth_options of its definition), under their names or aliases; option_title selects the option (ignoring case, spaces and punctuation), else it is inferred. Numbers and booleans count as their string form, null as absent.',
  properties: { option_title: { type: ['string', 'null'], minLength: 1, maxLength: 200 } },
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 16_384 },
  maxProperties: 50,
} as const;

const replicationConfigSchema = {
  type: ['object', 'null'],
  description: 'Connector settings (see replication_config_schema of its definition), e.g. {"subdomain": "acme"} for Jira.',
  properties: {
    sync_interval_minutes: {
      type: ['integer', 'string'],
      description: 'Minutes between automatic context store syncs of this connector (0: none; default SYNC_INTERVAL_MINUTES of the service).',
    },
  },
  additionalProperties: { type: ['string', 'number', 'boolean', 'null'], maxLength: 2048 },
  maxProperties: 50,
} as const;

const identityProperties = {
  workspace_id: { type: 'string', format: 'uuid' },
  workspace_name: { type: 'string' },
  connector_type: { type: 'string' },
  definition_id: { type: 'string', format: 'uuid' },
  auth_option: { type: 'string', description: 'Title of the credential option in use.' },
} as const;

const detailedSourceTemplateSchema = {
  type: 'object',
  required: ['id', 'name', 'source_definition_id', 'user_config_spec', 'partial_default_config'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    icon: { type: ['string', 'null'] },
    source_definition_id: { type: 'string', format: 'uuid' },
    user_config_spec: connectorSpecificationSchema,
    partial_default_config: { type: 'object', additionalProperties: true },
    tags: { type: 'array', items: { type: 'string' } },
    mode,
    is_experimental: { type: 'boolean' },
    supports_context_store: { type: 'boolean' },
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  },
} as const;

const summarizedSourceTemplateSchema = {
  type: 'object',
  required: ['id', 'name', 'icon', 'actor_definition_id'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    icon: { type: ['string', 'null'] },
    connector_name: { type: ['string', 'null'] },
    organization_id: { type: ['string', 'null'] },
    actor_definition_id: { type: 'string', format: 'uuid' },
    tags: { type: 'array', items: { type: 'string' } },
    mode,
    supports_context_store: { type: 'boolean' },
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  },
} as const;

/** The reference's ConnectorSourceCreate/Get/UpdateResponse plus Switchyard's identity fields. Never a credential value. */
const connectorSchema = {
  type: 'object',
  required: ['id', 'name', 'source_template', 'replication_config', 'entities', 'created_at', 'updated_at', ...Object.keys(identityProperties)],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    source_template: detailedSourceTemplateSchema,
    replication_config: { type: 'object', additionalProperties: true },
    entities: { type: 'null', description: 'Entity selection is not used by this service.' },
    created_at: timestamp,
    updated_at: timestamp,
    ...identityProperties,
  },
} as const;

const connectorListItemSchema = {
  type: 'object',
  required: ['id', 'name', 'summarized_source_template', 'created_at', 'updated_at', ...Object.keys(identityProperties)],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    summarized_source_template: summarizedSourceTemplateSchema,
    created_at: timestamp,
    updated_at: timestamp,
    ...identityProperties,
  },
} as const;

const nameSchema = { type: 'string', minLength: 1, maxLength: 200 } as const;

/** Fields of Airbyte's create and check requests that Switchyard accepts and ignores. */
const ignoredCreateFields = ignoredProperties(
  'source_template_id',
  'environment',
  'entities',
  'server_side_oauth_secret_id',
  'selected_connection_template_tags',
  'selected_connection_template_tags_mode',
);

/** ?check=false: Switchyard's extension to skip the connector check at create and update. */
const checkQuerySchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    check: {
      type: 'boolean',
      default: true,
      description:
        'false: store without the connector check (the vendor is not called). Default true: the check read of the connector kind runs first and a refusal is a 400 (424 when the vendor cannot be reached).',
    },
  },
} as const;

const checkStatus = { type: 'string', enum: ['pending', 'running', 'cancelled', 'failed', 'succeeded', 'inconclusive', 'skipped'] } as const;

/** The reference's ConnectorSourceCheckConfigResponse. */
const checkResponseSchema = {
  type: 'object',
  required: ['id', 'status', 'error_message', 'entity_check_results'],
  properties: {
    id: { type: 'string', format: 'uuid', description: 'The connector id (check of a stored connector) or a new id for this check.' },
    status: checkStatus,
    error_message: { type: ['string', 'null'] },
    failure_reason: {
      type: ['object', 'null'],
      required: ['timestamp'],
      properties: {
        timestamp: { type: 'integer' },
        failure_origin: { type: ['string', 'null'] },
        failure_type: { type: ['string', 'null'] },
        external_message: { type: ['string', 'null'] },
        internal_message: { type: ['string', 'null'] },
        retryable: { type: ['boolean', 'null'] },
      },
    },
    entity_check_results: {
      type: 'array',
      items: {
        type: 'object',
        required: ['entity', 'status'],
        properties: {
          entity: { type: 'string' },
          status: checkStatus,
          status_code: { type: ['integer', 'null'] },
          error_message: { type: ['string', 'null'] },
        },
      },
    },
  },
} as const;

/** A scoped token creates and checks connectors only in its own workspace. */
async function assertOwnWorkspace(request: FastifyRequest, workspaceName: string): Promise<void> {
  const { workspaceId, organizationId } = request.principal;
  if (workspaceId === undefined) return;
  const workspace = await findWorkspace(request.server.ctx.store.db, organizationId, workspaceId);
  if (workspace.name !== workspaceName) {
    const message = `This scoped token is limited to workspace "${workspace.name}"; workspace_name must be "${workspace.name}".`;
    throw new ForbiddenError(message, { issues: [{ field: 'workspace_name', rule: 'scoped_token_workspace', message }] });
  }
}

interface ListQuery {
  workspace_name?: string;
  workspace_id?: string;
  definition_id?: string;
  customer_name?: string;
  external_user_id?: string;
}

/** Exactly one of definition_id / connector_type (null counts as absent): 422 naming the field(s) otherwise. */
function assertOneDefinitionReference(body: CreateConnectorInput): void {
  const given = (['definition_id', 'connector_type'] as const).filter((field) => body[field] != null);
  if (given.length === 1) return;
  const both = given.length === 2;
  const message = both
    ? 'Send exactly one of definition_id or connector_type, not both.'
    : 'Send exactly one of definition_id or connector_type: neither was given.';
  throw new RequestValidationError(
    message,
    (['definition_id', 'connector_type'] as const).map((field) => ({
      field,
      rule: 'exactly_one_of',
      message: both
        ? `${field} cannot be combined with ${field === 'definition_id' ? 'connector_type' : 'definition_id'}`
        : `${field} or ${field === 'definition_id' ? 'connector_type' : 'definition_id'} is required`,
    })),
  );
}

export default async function connectorsRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: CreateConnectorInput; Querystring: { check: boolean } }>(
    '/api/v1/integrations/connectors',
    {
      config: { scopedAccess: 'own' },
      schema: {
        querystring: checkQuerySchema,
        summary: 'Create a connector (stored credentials for one third-party service)',
        description:
          'Give exactly one of definition_id or connector_type. Credentials are checked against the auth options and replication_config against the settings, then the connector check ' +
          '(one cheap read declared by the connector kind) runs against the vendor unless ?check=false: a refusal is a 400 naming the option and what the vendor answered, an unreachable vendor a 424. ' +
          'Only then is anything stored; credentials are encrypted and never returned. A workspace_name the organization does not have yet creates that workspace. name defaults to the display name of the kind.',
        tags: ['Connectors'],
        body: {
          type: 'object',
          required: ['workspace_name'],
          additionalProperties: false,
          properties: {
            workspace_name: { ...workspaceNameSchema, description: 'Target workspace; created when the organization has no live workspace of that name.' },
            definition_id: { ...nullableUuid, description: 'sourceDefinitionId from the catalog.' },
            connector_type: { type: ['string', 'null'], minLength: 1, maxLength: 100, description: 'Connector type by name, case-insensitive (e.g. "jira").' },
            name: { ...nameSchema, type: ['string', 'null'], description: 'Name of the connector; default: the display name of its kind.' },
            credentials: { ...credentialsSchema, type: ['object', 'null'] },
            replication_config: replicationConfigSchema,
            ...ignoredCreateFields,
          },
        },
        response: { 200: connectorSchema, ...errorResponses(400, 401, 403, 413, 415, 422, 424) },
      },
    },
    async (request) => {
      assertOneDefinitionReference(request.body);
      await assertOwnWorkspace(request, request.body.workspace_name);
      return createConnector(app.ctx, request.principal.organizationId, request.body, { check: request.query.check });
    },
  );

  app.post<{ Body: CheckNewConnectorInput }>(
    '/api/v1/integrations/connectors/check',
    {
      config: { scopedAccess: 'own' },
      schema: {
        summary: 'Check credentials and settings against the vendor before creating a connector',
        description:
          'Takes the body of connector creation and stores nothing: credentials and replication_config are checked against the auth options and settings (400 when they cannot work), ' +
          "then the connector kind's check read is made. The answer says succeeded, or failed with what the vendor answered (entity_check_results holds its HTTP status).",
        tags: ['Connectors'],
        body: {
          type: 'object',
          required: ['workspace_name'],
          additionalProperties: false,
          properties: {
            workspace_name: workspaceNameSchema,
            definition_id: nullableUuid,
            connector_type: { type: ['string', 'null'], minLength: 1, maxLength: 100 },
            credentials: { ...credentialsSchema, type: ['object', 'null'] },
            replication_config: replicationConfigSchema,
            name: ignored({ type: ['string', 'null'] }, 'a check stores nothing, so the name of the connector to be is not used.'),
            ...ignoredCreateFields,
          },
        },
        response: { 200: checkResponseSchema, ...errorResponses(400, 401, 403, 413, 415, 422) },
      },
    },
    async (request) => {
      assertOneDefinitionReference(request.body);
      await assertOwnWorkspace(request, request.body.workspace_name);
      return checkNewConnector(app.ctx, request.body);
    },
  );

  app.post<{ Params: { id: string }; Body: { replication_config?: Record<string, unknown> } }>(
    '/api/v1/integrations/connectors/:id/check',
    {
      config: { scopedAccess: 'connector' },
      schema: {
        summary: "Check a connector's stored credentials (and settings) against the vendor",
        description:
          "Makes the connector kind's check read with the stored credentials, and the stored replication_config or the one given (checked, not stored). " +
          'Answers succeeded, or failed with what the vendor answered. An inactive workspace gets 403.',
        tags: ['Connectors'],
        params: idParamsSchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            replication_config: replicationConfigSchema,
            name: ignored({ type: ['string', 'null'] }, 'a check changes nothing, so a new name is not used.'),
            ...ignoredProperties('entities'),
          },
        },
        response: { 200: checkResponseSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    async (request) => checkStoredConnector(app.ctx, request.principal.organizationId, request.params.id, request.body.replication_config),
  );

  app.get<{ Querystring: ListQuery }>(
    '/api/v1/integrations/connectors',
    {
      config: { scopedAccess: 'own' },
      schema: {
        summary: "List the organization's connectors",
        description:
          "Connectors in live workspaces of the caller's organization, oldest first. Filters combine; a filter naming nothing of the organization gives an empty list.",
        tags: ['Connectors'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            workspace_name: { type: 'string', minLength: 1, maxLength: 200 },
            workspace_id: uuidSchema,
            definition_id: uuidSchema,
            customer_name: { type: 'string', minLength: 1, maxLength: 200, deprecated: true, description: 'Deprecated alias of workspace_name.' },
            external_user_id: { type: 'string', minLength: 1, maxLength: 200, deprecated: true, description: 'Deprecated alias of workspace_name.' },
          },
        },
        response: {
          200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: connectorListItemSchema } } },
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request) => {
      const { workspace_name, customer_name, external_user_id, workspace_id, definition_id } = request.query;
      const workspaceName = workspace_name ?? customer_name ?? external_user_id;
      const scope = request.principal.workspaceId;
      if (scope !== undefined && workspace_id !== undefined && workspace_id.toLowerCase() !== scope) return { data: [] };
      const data = await listConnectors(app.ctx, request.principal.organizationId, {
        ...(workspaceName !== undefined && { workspace_name: workspaceName }),
        ...((scope ?? workspace_id) !== undefined && { workspace_id: scope ?? workspace_id }),
        ...(definition_id !== undefined && { definition_id }),
      });
      return { data };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/integrations/connectors/:id',
    {
      config: { scopedAccess: 'connector' },
      schema: {
        summary: 'Get a connector (never its credentials)',
        tags: ['Connectors'],
        params: idParamsSchema,
        response: { 200: connectorSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => getConnector(app.ctx, request.principal.organizationId, request.params.id),
  );

  app.put<{ Params: { id: string }; Body: UpdateConnectorInput; Querystring: { check: boolean } }>(
    '/api/v1/integrations/connectors/:id',
    {
      config: { scopedAccess: 'connector' },
      schema: {
        summary: "Update a connector's name, credentials or replication_config",
        description:
          'Null or absent leaves a field unchanged; an empty body changes nothing and answers the current record. New credentials replace the stored ones entirely ' +
          '(re-checked against the auth options, re-encrypted); a new replication_config replaces the old one (re-checked). When credentials or replication_config change, ' +
          'the connector check runs against the vendor first unless ?check=false (400 refused, 424 unreachable; nothing is changed).',
        tags: ['Connectors'],
        params: idParamsSchema,
        querystring: checkQuerySchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { ...nameSchema, type: ['string', 'null'] },
            credentials: { ...credentialsSchema, type: ['object', 'null'] },
            replication_config: replicationConfigSchema,
            ...ignoredProperties('entities'),
          },
        },
        response: { 200: connectorSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 422, 424) },
      },
    },
    async (request) => updateConnector(app.ctx, request.principal.organizationId, request.params.id, request.body, { check: request.query.check }),
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/integrations/connectors/:id',
    {
      config: { scopedAccess: 'connector' },
      schema: {
        summary: 'Delete a connector and its stored credentials',
        description:
          'Deletes synchronously (the connector and its encrypted credentials are gone when the answer arrives) and answers 202 with a job id, as the reference does.',
        tags: ['Connectors'],
        params: idParamsSchema,
        response: {
          202: { type: 'object', required: ['job_id'], properties: { job_id: { type: 'string', format: 'uuid' } } },
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const result = await deleteConnector(app.ctx, request.principal.organizationId, request.params.id);
      return reply.status(202).send(result);
    },
  );
}
