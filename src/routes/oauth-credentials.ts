import type { FastifyInstance } from 'fastify';
import { deleteOAuthApp, putOAuthApp, type OAuthAppInput } from '../services/oauth-apps.js';
import { errorResponses, uuidSchema } from './shared-schemas.js';

const oauthAppSchema = {
  type: 'object',
  required: ['id', 'scope_type', 'scope_id', 'connector_type', 'connector_definition_id', 'created_at', 'updated_at'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    scope_type: { type: 'string', enum: ['organization'] },
    scope_id: { type: 'string', format: 'uuid' },
    connector_type: { type: 'string', enum: ['source'], description: 'The reference\'s ConnectorType: always "source" here.' },
    connector_definition_id: { type: 'string', format: 'uuid' },
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;

export default async function oauthCredentialsRoutes(app: FastifyInstance): Promise<void> {
  app.put<{ Body: OAuthAppInput }>(
    '/api/v1/oauth/credentials',
    {
      schema: {
        summary: "Configure the organization's own OAuth app for a connector type",
        description:
          'Exactly one of connector_definition_id or connector_type (case-insensitive). configuration holds client_id and client_secret; they are stored encrypted and never returned. The connect page uses this app for the OAuth consent of that connector type. A second PUT replaces the configuration.',
        tags: ['Connect'],
        body: {
          type: 'object',
          required: ['configuration'],
          additionalProperties: false,
          properties: {
            connector_definition_id: { type: ['string', 'null'], pattern: uuidSchema.pattern },
            connector_type: { type: ['string', 'null'], minLength: 1, maxLength: 100 },
            configuration: { type: 'object', additionalProperties: true, maxProperties: 20 },
          },
        },
        response: { 200: oauthAppSchema, ...errorResponses(400, 401, 403, 413, 415, 422) },
      },
    },
    async (request) => putOAuthApp(app.ctx, request.principal.organizationId, request.body),
  );

  app.delete<{ Params: { connector_type: string } }>(
    '/api/v1/oauth/credentials/connector_type/:connector_type',
    {
      schema: {
        summary: "Delete the organization's OAuth app for a connector type",
        description: 'Idempotent: 204 also when none was configured. Connectors already created keep working with the credentials they hold.',
        tags: ['Connect'],
        params: {
          type: 'object',
          required: ['connector_type'],
          additionalProperties: false,
          properties: { connector_type: { type: 'string', minLength: 1, maxLength: 100 } },
        },
        response: { 204: { type: 'null', description: 'Deleted (or there was nothing to delete).' }, ...errorResponses(400, 401, 403, 422) },
      },
    },
    async (request, reply) => {
      await deleteOAuthApp(app.ctx, request.principal.organizationId, request.params.connector_type);
      return reply.status(204).send();
    },
  );
}
