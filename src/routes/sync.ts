import type { FastifyInstance } from 'fastify';
import { entityOutcomeView } from '../context/sync/outcome-view.js';
import { syncServiceFor } from '../context/sync/service.js';
import { errorResponses, idParamsSchema } from './shared-schemas.js';

interface SyncBody {
  entity?: string;
  full?: boolean;
  wait?: boolean;
  wait_seconds?: number;
}

const DEFAULT_WAIT_SECONDS = 300;

const entityStates = {
  type: 'array',
  description:
    'The entities asked for, parents first: started (its job runs as soon as a worker is free), queued (it runs after the sync of this connector that is under way), ' +
    'or already_running (the sync under way covers it; it is left alone).',
  items: {
    type: 'object',
    required: ['entity', 'state'],
    properties: { entity: { type: 'string' }, state: { type: 'string', enum: ['started', 'queued', 'already_running'] } },
  },
} as const;

/** The result of an entity, as `switchyard sync --json` prints it. */
export default async function syncRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Params: { id: string }; Body: SyncBody | null | undefined }>(
    '/api/v1/integrations/connectors/:id/sync',
    {
      config: { scopedAccess: 'connector' },
      schema: {
        summary: "Queue a sync of the connector's data into the context store (all entities, or one), and optionally wait for it",
        description:
          'Puts a sync job of this connector (every entity the context store holds for it, or only `entity`) on the sync queue, which reads the entities from the vendor page by page, ' +
          'fanning out from parent records, and answers 202 at once with the job and what it covers; progress and the result per entity appear in inspect (`context_store_readiness`). ' +
          'With `wait: true` it answers 200 with the result per entity once the job has run (at most `wait_seconds`, else the 202). One sync per connector runs at a time across every ' +
          'Switchyard process: 409 when the entity (or every entity) is already being synced.',
        tags: ['Connectors'],
        params: idParamsSchema,
        body: {
          type: ['object', 'null'],
          additionalProperties: false,
          properties: {
            entity: {
              type: 'string',
              minLength: 1,
              maxLength: 200,
              description: 'One entity to sync (see inspect, context_store_readiness.configured_cache_entities); all when omitted.',
            },
            full: {
              type: 'boolean',
              description:
                'Walk every page of the entities (or of `entity`) and sweep the records no longer listed (deleted when the next full walk misses them too), even where an incremental sync (only the changes since the last one) is due; deletions are otherwise found by the full walk every `full_sweep_hours`. Default false.',
            },
            wait: { type: 'boolean', description: 'Answer once the sync job has run (200 with `results`), instead of at once (202).' },
            wait_seconds: {
              type: 'integer',
              minimum: 1,
              maximum: 3600,
              description: `Longest wait with \`wait: true\` (default ${DEFAULT_WAIT_SECONDS}); still running then: the 202.`,
            },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['connector_id', 'job_id', 'entities', 'results'],
            properties: {
              connector_id: { type: 'string', format: 'uuid' },
              job_id: { type: 'string', format: 'uuid', description: 'The sync job (pg-boss, table pgboss.job).' },
              entities: entityStates,
              results: {
                type: 'array',
                description:
                  'One per entity the job ran for this request: ready, failed (the job is retried with backoff) or skipped, with what the sync read and wrote.',
                items: {
                  type: 'object',
                  required: ['entity', 'status', 'records', 'changed', 'deleted', 'unconfirmed_deletions', 'pages', 'record_count', 'seconds'],
                  properties: {
                    entity: { type: 'string' },
                    status: { type: 'string', enum: ['ready', 'failed', 'skipped'] },
                    mode: {
                      type: 'string',
                      enum: ['full', 'incremental'],
                      description:
                        'How the entity was read: every page (full), or only what changed since the last sync (incremental). Absent when the sync stopped before deciding.',
                    },
                    records: { type: 'integer', description: 'Records read.' },
                    changed: { type: 'integer', description: 'Records new, changed or reappeared.' },
                    deleted: {
                      type: 'integer',
                      description:
                        "Records marked deleted: by the final sweep of a full walk (missed by it and by the full walk before it, or by it and answered 404, or archived or trashed, by the vendor when asked for by id), named by the vendor's feed of deleted records after an incremental walk, or read archived or trashed by a walk.",
                    },
                    unconfirmed_deletions: {
                      type: 'integer',
                      description:
                        "Live records the entity's last complete full walk did not read for the first time (a list can leave out a record that still exists): the next sync walks in full and marks them deleted if it misses them too.",
                    },
                    pages: { type: 'integer' },
                    record_count: { type: 'integer', description: 'Live records in the store after the sync.' },
                    seconds: { type: 'number' },
                    reason: { type: 'string', description: 'Why it failed or was skipped.' },
                  },
                },
              },
            },
          },
          202: {
            type: 'object',
            required: ['connector_id', 'job_id', 'entities'],
            properties: {
              connector_id: { type: 'string', format: 'uuid' },
              job_id: { type: 'string', format: 'uuid', description: 'The sync job (pg-boss, table pgboss.job).' },
              entities: entityStates,
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
        full: request.body?.full === true,
        trigger: 'api',
      });
      const answer = { connector_id: started.connector_id, job_id: started.job_id, entities: started.entities };
      if (request.body?.wait === true) {
        const outcomes = await started.wait(undefined, { timeoutMs: (request.body.wait_seconds ?? DEFAULT_WAIT_SECONDS) * 1000 });
        if (outcomes !== undefined) return { ...answer, results: outcomes.map(entityOutcomeView) };
      }
      void reply.status(202);
      return answer;
    },
  );
}
