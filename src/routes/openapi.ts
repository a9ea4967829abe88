import type { FastifyInstance } from 'fastify';

/** Switchyard's own API description, produced from the route schemas; public, so clients can be generated before they hold a token. */
export default async function openapiRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/api/v1/openapi.json',
    {
      config: { public: true },
      schema: {
        summary: "OpenAPI 3.1 description of Switchyard's API",
        tags: ['Meta'],
        response: { 200: { type: 'object', additionalProperties: true } },
      },
    },
    async (request) => {
      const document = app.swagger() as Record<string, unknown>;
      // The address the caller reached us at, so a generated client works without editing.
      return { ...document, servers: [{ url: `${request.protocol}://${request.host}`, description: 'This Switchyard' }] };
    },
  );
}
