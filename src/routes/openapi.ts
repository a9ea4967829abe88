import type { FastifyInstance } from 'fastify';
import { errorResponses } from './shared-schemas.js';

/** Switchyard's own API description, produced from the route schemas. */
export default async function openapiRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/v1/openapi.json',
    {
      schema: {
        summary: "OpenAPI 3.1 description of Switchyard's API",
        tags: ['Meta'],
        response: { 200: { type: 'object', additionalProperties: true }, ...errorResponses(401) },
      },
    },
    async () => app.swagger(),
  );
}
