import type { FastifyInstance } from 'fastify';
import { ORGANIZATION_HEADER } from '../plugins/authentication.js';
import { issueToken } from '../security/tokens.js';
import { authenticateClient } from '../services/organizations.js';
import { errorResponses } from './shared-schemas.js';

export default async function tokenRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { client_id: string; client_secret: string } }>(
    '/api/v1/account/applications/token',
    {
      config: { public: true },
      schema: {
        summary: 'Exchange client credentials for a short-lived application token',
        tags: ['Account'],
        body: {
          type: 'object',
          required: ['client_id', 'client_secret'],
          additionalProperties: false,
          properties: { client_id: { type: 'string', minLength: 1, maxLength: 200 }, client_secret: { type: 'string', minLength: 1, maxLength: 500 } },
        },
        response: {
          200: {
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in', 'organization_id'],
            properties: {
              access_token: { type: 'string' },
              token_type: { type: 'string', enum: ['bearer'] },
              expires_in: { type: 'integer' },
              organization_id: { type: 'string' },
            },
          },
          ...errorResponses(400, 401, 403, 422),
        },
      },
    },
    async (request) => {
      const header = request.headers[ORGANIZATION_HEADER];
      const organizationId = await authenticateClient(app.ctx.store.db, request.body.client_id, request.body.client_secret, typeof header === 'string' ? header : undefined);
      const ttl = app.ctx.config.tokenTtlSeconds;
      const accessToken = await issueToken({ clientId: request.body.client_id, organizationId }, app.ctx.keyring.derive('token-signing'), ttl);
      return { access_token: accessToken, token_type: 'bearer', expires_in: ttl, organization_id: organizationId };
    },
  );
}
