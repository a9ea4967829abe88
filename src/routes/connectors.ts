import type { FastifyInstance } from 'fastify';
import { RequestValidationError } from '../errors.js';
import {
  createConnector,
  deleteConnector,
  getConnector,
  listConnectors,
  updateConnector,
  type CreateConnectorInput,
  type UpdateConnectorInput,
} from '../services/connectors.js';
import { connectorSpecificationSchema } from './definitions.js';
import { errorResponses, idParamsSchema, uuidSchema } from './shared-schemas.js';
import { workspaceNameSchema } from './workspaces.js';

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
      message: both ? `${field} cannot be combined with ${field === 'definition_id' ? 'connector_type' : 'definition_id'}` : `${field} or ${field === 'definition_id' ? 'connector_type' : 'definition_id'} is required`,
    })),
  );
}

export default async function connectorsRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: CreateConnectorInput }>(
    '/api/v1/integrations/connectors',
    {
      schema: {
        summary: 'Create a connector (stored credentials for one third-party service)',
        description:
          'Give exactly one of definition_id or connector_type. Credentials are checked against the auth options and replication_config against the settings before anything is stored; credentials are encrypted and never returned. A workspace_name the organization does not have yet creates that workspace.',
        tags: ['Connectors'],
        body: {
          type: 'object',
          required: ['workspace_name', 'name', 'credentials'],
          additionalProperties: false,
          properties: {
            workspace_name: { ...workspaceNameSchema, description: 'Target workspace; created when the organization has no live workspace of that name.' },
            definition_id: { ...nullableUuid, description: 'sourceDefinitionId from the catalog.' },
            connector_type: { type: ['string', 'null'], minLength: 1, maxLength: 100, description: 'Connector type by name, case-insensitive (e.g. "jira").' },
            name: nameSchema,
            credentials: credentialsSchema,
            replication_config: replicationConfigSchema,
          },
        },
        response: { 200: connectorSchema, ...errorResponses(400, 401, 403, 413, 415, 422) },
      },
    },
    async (request) => {
      assertOneDefinitionReference(request.body);
      return createConnector(app.ctx, request.principal.organizationId, request.body);
    },
  );

  app.get<{ Querystring: ListQuery }>(
    '/api/v1/integrations/connectors',
    {
      schema: {
        summary: "List the organization's connectors",
        description: 'Connectors in live workspaces of the caller\'s organization, oldest first. Filters combine; a filter naming nothing of the organization gives an empty list.',
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
      const data = await listConnectors(app.ctx, request.principal.organizationId, {
        ...(workspaceName !== undefined && { workspace_name: workspaceName }),
        ...(workspace_id !== undefined && { workspace_id }),
        ...(definition_id !== undefined && { definition_id }),
      });
      return { data };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/integrations/connectors/:id',
    {
      schema: {
        summary: 'Get a connector (never its credentials)',
        tags: ['Connectors'],
        params: idParamsSchema,
        response: { 200: connectorSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => getConnector(app.ctx, request.principal.organizationId, request.params.id),
  );

  app.put<{ Params: { id: string }; Body: UpdateConnectorInput }>(
    '/api/v1/integrations/connectors/:id',
    {
      schema: {
        summary: "Update a connector's name, credentials or replication_config",
        description:
          'Send at least one field; null or absent leaves a field unchanged. New credentials replace the stored ones entirely (re-checked against the auth options, re-encrypted); a new replication_config replaces the old one (re-checked).',
        tags: ['Connectors'],
        params: idParamsSchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { ...nameSchema, type: ['string', 'null'] },
            credentials: { ...credentialsSchema, type: ['object', 'null'] },
            replication_config: replicationConfigSchema,
          },
        },
        response: { 200: connectorSchema, ...errorResponses(400, 401, 403, 404, 413, 415, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      if (body.name == null && body.credentials == null && body.replication_config == null) {
        throw new RequestValidationError('Send at least one of name, credentials or replication_config to update.', [
          { field: 'body', rule: 'at_least_one_of', message: 'body needs at least one of name, credentials, replication_config' },
        ]);
      }
      return updateConnector(app.ctx, request.principal.organizationId, request.params.id, body);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/integrations/connectors/:id',
    {
      schema: {
        summary: 'Delete a connector and its stored credentials',
        description: 'Deletes synchronously (the connector and its encrypted credentials are gone when the answer arrives) and answers 202 with a job id, as the reference does.',
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
