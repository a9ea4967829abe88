import type { FastifyInstance } from 'fastify';
import { inspectConnector } from '../services/inspection.js';
import { errorResponses, idParamsSchema } from './shared-schemas.js';

const anyJson = {} as const;
const freeObject = { type: 'object', additionalProperties: true } as const;

const paramSchema = {
  type: 'object',
  required: ['name', 'location', 'required', 'type', 'description', 'limits', 'schema'],
  properties: {
    name: { type: 'string' },
    location: { type: 'string', enum: ['path', 'query', 'body', 'header', 'variables'], description: 'Where the param goes in the vendor request.' },
    required: { type: 'boolean' },
    type: { type: ['string', 'array', 'null'], items: { type: 'string' }, description: 'JSON Schema type.' },
    description: { type: ['string', 'null'] },
    enum: { type: 'array', items: anyJson },
    default: anyJson,
    limits: { ...freeObject, description: 'minimum, maximum, minLength, maxLength, pattern, maxItems... as declared.' },
    schema: { ...freeObject, description: "The param's full JSON Schema." },
  },
} as const;

const actionSchema = {
  type: 'object',
  required: ['name', 'description', 'result', 'idempotent', 'destructive', 'params', 'accepts_additional_params', 'pagination'],
  properties: {
    name: { type: 'string' },
    description: { type: ['string', 'null'] },
    result: { type: 'string', enum: ['many', 'one'], description: 'many: result is an array of records; one: an object.' },
    idempotent: { type: 'boolean' },
    destructive: { type: 'boolean' },
    params: { type: 'array', items: paramSchema },
    at_least_one_of: { type: 'array', items: { type: 'string' }, description: 'The caller must give at least one of these params.' },
    at_most_one_of: { type: 'array', items: { type: 'string' }, description: 'The caller may give at most one of these params.' },
    accepts_additional_params: { type: 'boolean', description: 'Params beyond the declared ones are sent in the request body.' },
    pagination: {
      type: ['object', 'null'],
      required: ['style', 'block_keys'],
      properties: { style: { type: 'string' }, block_keys: { type: 'array', items: { type: 'string' } } },
    },
  },
} as const;

const entitySchema = {
  type: 'object',
  required: ['name', 'description', 'record', 'search', 'actions'],
  properties: {
    name: { type: 'string' },
    description: { type: 'string' },
    record: {
      type: 'object',
      required: ['id_field', 'fields'],
      properties: {
        id_field: { type: ['string', 'array'], items: { type: 'string' }, description: 'Dot path of the id, or the fields that together identify a record.' },
        fields: { type: 'object', additionalProperties: freeObject },
      },
    },
    search: {
      type: 'object',
      required: ['fields', 'semantic'],
      properties: {
        fields: { type: 'array', items: { type: 'string' } },
        semantic: {
          type: 'array',
          items: { type: 'object', required: ['field', 'context_window'], properties: { field: { type: 'string' }, context_window: { type: 'integer' } } },
        },
      },
    },
    actions: { type: 'array', items: actionSchema },
  },
} as const;

export default async function inspectRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/api/v1/integrations/connectors/:id/inspect',
    {
      schema: {
        summary: 'Inspect a connector: metadata, its full catalog of entities, actions and params, and usage guidance',
        tags: ['Connectors'],
        params: idParamsSchema,
        response: {
          200: {
            type: 'object',
            required: [
              'connector_id',
              'name',
              'workspace_id',
              'organization_id',
              'source_definition_id',
              'source_definition_name',
              'source_config_template_id',
              'docs_skill_id',
              'context_store_readiness',
              'warnings',
              'connector_type',
              'entities',
              'usage_guidance',
            ],
            properties: {
              connector_id: { type: 'string' },
              name: { type: 'string' },
              workspace_id: { type: 'string' },
              organization_id: { type: 'string' },
              source_definition_id: { type: 'string' },
              source_definition_name: { type: ['string', 'null'] },
              source_config_template_id: { type: 'string', description: 'The source definition id (Switchyard has no separate config templates).' },
              docs_skill_id: { type: 'string', description: 'Pass to GET /api/v1/skills/docs?id=...' },
              context_store_readiness: { type: 'null', description: 'null: the context store is not available yet.' },
              warnings: { type: 'array', items: { type: 'string' } },
              connector_type: { type: 'string' },
              entities: { type: 'array', items: entitySchema },
              usage_guidance: { type: 'string' },
            },
          },
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request) => inspectConnector(app.ctx, request.principal.organizationId, request.params.id),
  );
}
