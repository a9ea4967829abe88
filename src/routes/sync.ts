import type { FastifyInstance } from 'fastify';
import { syncServiceFor } from '../context/sync/service.js';
import { errorResponses, idParamsSchema } from './shared-schemas.js';

interface SyncBody {
  entity?: string;
}

export default async function syncRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Params: { id: string }; Body: SyncBody | null | undefined }>(
    '/api/v1/integrations/connectors/:id/sync',
    {
      schema: {
        summary: "Start a sync of the connector's data into the context store (all entities, or one)",
        description:
          'Starts reading every entity the context store holds for this connector (or only `entity`) from the vendor, page by page, fanning out ' +
          'from parent records, and answers 202 at once with what was started. Progress and the result per entity appear in inspect ' +
          '(`context_store_readiness`). 409 when the entity (or every entity) is already being synced, by this or another Switchyard process.',
        tags: ['Connectors'],
        params: idParamsSchema,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            entity: { type: 'string', minLength: 1, maxLength: 200, description: 'One entity to sync (see inspect, context_store_readiness.configured_cache_entities); all when omitted.' },
          },
        },
        response: {
          202: {
            type: 'object',
            required: ['connector_id', 'entities'],
            properties: {
              connector_id: { type: 'string', format: 'uuid' },
              entities: {
                type: 'array',
                description: 'The entities asked for, parents first: started, or already_running (a sync of it was already under way).',
                items: {
                  type: 'object',
                  required: ['entity', 'state'],
                  properties: { entity: { type: 'string' }, state: { type: 'string', enum: ['started', 'already_running'] } },
                },
              },
            },
          },
          ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      const entity = request.body?.entity;
      const started = await syncServiceFor(app.ctx).start({
        organizationId: request.principal.organizationId,
        connectorId: request.params.id,
        ...(entity !== undefined && { entity }),
        trigger: 'api',
      });
      void reply.status(202);
      // not_due only concerns scheduled runs.
      return { connector_id: started.connector_id, entities: started.entities.filter((e) => e.state !== 'not_due') };
    },
  );
}
