import type { FastifyInstance } from 'fastify';
import { getDefinition, listDefinitions } from '../services/catalog.js';
import { errorResponses, idParamsSchema } from './shared-schemas.js';

const freeForm = { type: 'object', additionalProperties: true } as const;

export const definitionSummarySchema = {
  type: 'object',
  required: ['sourceDefinitionId', 'name', 'iconUrl', 'supportLevel'],
  properties: {
    sourceDefinitionId: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    iconUrl: { type: 'string' },
    supportLevel: { type: 'string', enum: ['archived', 'certified', 'community', 'none'] },
  },
} as const;

/** The reference's ConnectorSpecification; connectionSpecification is a JSON Schema (free-form). */
export const connectorSpecificationSchema = {
  type: 'object',
  required: ['documentationUrl', 'connectionSpecification'],
  properties: {
    documentationUrl: { type: ['string', 'null'] },
    connectionSpecification: {
      ...freeForm,
      description:
        'JSON Schema of the connector setup: `credentials` is a oneOf of the auth options (each with an option_title const), beside the replication_config fields.',
    },
  },
} as const;

const definitionDetailSchema = {
  type: 'object',
  required: ['id', 'definition', 'connector_type', 'auth_options', 'replication_config_schema'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    definition: {
      type: 'object',
      required: [...definitionSummarySchema.required, 'custom', 'spec'],
      properties: { ...definitionSummarySchema.properties, custom: { type: 'boolean' }, spec: connectorSpecificationSchema },
    },
    connector_type: { type: 'string', description: 'The name to give as connector_type when creating a connector.' },
    auth_options: {
      type: 'array',
      description: 'The credential options: send the fields of one of them as `credentials` (with option_title to choose explicitly).',
      items: {
        type: 'object',
        required: ['option_title', 'description', 'schema'],
        properties: {
          option_title: { type: 'string' },
          description: { type: ['string', 'null'] },
          schema: {
            ...freeForm,
            description:
              'JSON Schema of the credential fields: required list, description, pattern; secret fields carry `secret: true` and `airbyte_secret: true`.',
          },
        },
      },
    },
    replication_config_schema: { ...freeForm, description: 'JSON Schema of replication_config (the connector settings: pattern, enum, default, required).' },
  },
} as const;

export default async function definitionsRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: { name?: string } }>(
    '/api/v1/integrations/definitions/sources',
    {
      config: { scopedAccess: 'catalog' },
      schema: {
        summary: 'List the connector definitions (the catalog)',
        description:
          'Every connector kind this service offers, sorted by name. `name` keeps the entries whose display name, connector_type or an alias of it (the name Airbyte uses, e.g. clickup-api) contains it, ignoring case. Needs no configured connector.',
        tags: ['Definitions'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { type: 'string', maxLength: 200, description: 'Case-insensitive substring of the display name, connector_type or an alias of it.' },
          },
        },
        response: {
          200: { type: 'object', required: ['definitions'], properties: { definitions: { type: 'array', items: definitionSummarySchema } } },
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request) => ({ definitions: listDefinitions(request.query.name) }),
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/integrations/definitions/sources/:id',
    {
      config: { scopedAccess: 'catalog' },
      schema: {
        summary: 'Get one connector definition with the schemas of its credentials and settings',
        description:
          'The reference SourceDefinitionResponse plus `connector_type`, `auth_options` (each option_title with a JSON Schema of its credential fields) and `replication_config_schema`, enough to build the create-connector form.',
        tags: ['Definitions'],
        params: idParamsSchema,
        response: { 200: definitionDetailSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => getDefinition(request.params.id),
  );
}
