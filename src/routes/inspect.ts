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
    aliases: { type: 'array', items: { type: 'string' }, description: "Other names the param is accepted under (e.g. the name Airbyte's clients send)." },
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
    limit: {
      type: 'object',
      description:
        'The universal `limit` param (the most records to return) of an action returning many records that does not declare `limit` itself: the page-size param it is sent as, clamped to minimum..maximum, or null when the returned page is cut instead.',
      required: ['page_size_param', 'minimum', 'maximum', 'description'],
      properties: {
        page_size_param: { type: ['string', 'null'] },
        minimum: { type: ['integer', 'null'] },
        maximum: { type: ['integer', 'null'] },
        description: { type: 'string' },
      },
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

const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;

/** The reference's ConnectorInspectContextStoreReadiness, plus Switchyard's sync details per entity. */
const contextStoreReadinessSchema = {
  type: ['object', 'null'],
  description:
    'Context store readiness of this connector: every searchable entity, and the sync state of each entity the sync reads. null for a connector type this service no longer offers.',
  required: ['connector_id', 'source_definition_id', 'supported_context_store_entities', 'configured_cache_entities'],
  properties: {
    connector_id: { type: 'string', format: 'uuid' },
    source_definition_id: { type: 'string', format: 'uuid' },
    supported_context_store_entities: {
      type: 'array',
      description: 'Entities with context store search in the connector definition.',
      items: { type: 'object', required: ['entity', 'suggested'], properties: { entity: { type: 'string' }, suggested: { type: 'boolean' } } },
    },
    configured_cache_entities: {
      type: 'array',
      description: 'Entities the sync reads, parents first, with their sync state.',
      items: {
        type: 'object',
        required: [
          'entity',
          'status',
          'ready_for_search',
          'supported',
          'entity_count',
          'updated_at',
          'semantic_search_status',
          'reason',
          'pages',
          'started_at',
          'finished_at',
          'mode',
          'last_mode',
          'high_water_mark',
          'last_full_sweep_at',
          'unconfirmed_deletions',
          'next_full_sweep_at',
          'lag_seconds',
        ],
        properties: {
          entity: { type: 'string' },
          status: {
            type: 'string',
            enum: ['not_synced', 'initializing', 'ready', 'updating', 'failed'],
            description:
              'not_synced: no sync has started; initializing: the first sync runs; ready; updating: a later sync runs; failed: the last sync failed (see reason).',
          },
          ready_for_search: {
            type: 'boolean',
            description: 'A complete sync has finished: its data is searchable (also while updating and after a failed later sync).',
          },
          supported: { type: 'boolean' },
          entity_count: { type: 'integer', description: 'Records in the store (not deleted).' },
          updated_at: { ...nullableTimestamp, description: 'End of the last complete sync.' },
          semantic_search_status: {
            type: 'array',
            items: {
              type: 'object',
              required: ['field', 'status'],
              properties: { field: { type: 'string' }, status: { type: 'string', enum: ['INDEXING', 'READY'] } },
            },
          },
          reason: { type: ['string', 'null'], description: 'Why the last sync failed, or why there is no data yet; null when ready.' },
          pages: { type: 'integer', description: 'Pages read by the last finished sync.' },
          started_at: { ...nullableTimestamp, description: 'Start of the last (or running) sync.' },
          finished_at: { ...nullableTimestamp, description: 'End of the last sync, complete or failed; null while one runs.' },
          mode: {
            type: 'string',
            enum: ['incremental', 'full'],
            description:
              "incremental: the manifest declares the vendor's change filter, so syncs between full sweeps ask only for the records changed since the high-water mark; full: every sync walks every record.",
          },
          last_mode: { type: ['string', 'null'], enum: ['incremental', 'full', null], description: 'Mode of the last sync started; null before the first.' },
          high_water_mark: {
            ...nullableTimestamp,
            description:
              'Latest change time read by the complete syncs (incremental entities); the next incremental sync asks for changes since it minus the overlap.',
          },
          last_full_sweep_at: {
            ...nullableTimestamp,
            description:
              'Start of the last complete full walk, which marked deleted the records it and the full walk before it did not read (and, where the connector asks the vendor for a record it did not read, those the vendor answered 404 for, or with the record archived or trashed).',
          },
          unconfirmed_deletions: {
            type: 'integer',
            description:
              'Live records the last complete full walk did not read, for the first time: the next sync walks in full and marks them deleted if it misses them too (a list can leave out a record that still exists, e.g. one paged by position when a record before it is deleted).',
          },
          next_full_sweep_at: {
            ...nullableTimestamp,
            description:
              'When syncs of an incremental entity walk everything again (full_sweep_hours after the last full sweep, or the last full sweep itself while deletions are unconfirmed: the next sync); null for full entities.',
          },
          lag_seconds: {
            type: ['integer', 'null'],
            description: 'Seconds since the start of the last complete sync: changes made upstream before then are in the store. null before the first.',
          },
        },
      },
    },
  },
} as const;

export default async function inspectRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Params: { id: string } }>(
    '/api/v1/integrations/connectors/:id/inspect',
    {
      config: { scopedAccess: 'connector' },
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
              context_store_readiness: contextStoreReadinessSchema,
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
