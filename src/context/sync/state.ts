/**
 * Sync state per (connector, entity) in context_sync_state, and the readiness read from it: what
 * inspect shows (context_store_readiness) and what the search checks before answering
 * (entityReadiness).
 */
import { sql, type Kysely } from 'kysely';
import { connectorModules, type ConnectorDefinition } from '../../../runtime/index.js';
import type { DatabaseSchema, SyncStatus } from '../../db/schema.js';
import { liveCount, sweepUnseen, type RecordScope } from './records.js';
import { searchableEntities, suggestedEntity, syncableEntities, syncProblem } from './plan.js';

type Db = Kysely<DatabaseSchema>;

/** Stored statuses, plus `not_synced` for an entity no sync has started for yet. */
export type ReadinessStatus = SyncStatus | 'not_synced';

export interface EntityReadiness {
  entity: string;
  status: ReadinessStatus;
  /** True once a complete sync has finished: the data of the last complete sync stays searchable during an update and after a failure. */
  ready_for_search: boolean;
  /** Whether a sync can read this entity at all (see `reason` when not). */
  syncable: boolean;
  /** Why the last sync failed, why the entity cannot be synced, or why it has no data yet; null when ready. */
  reason: string | null;
  /** Live records in the store. */
  record_count: number;
  /** Pages read by the last finished sync (or the one running, once it ends). */
  pages: number;
  /** End of the last complete sync (ISO 8601), or null. */
  last_synced_at: string | null;
  started_at: string | null;
  finished_at: string | null;
}

type StateRow = {
  entity: string;
  status: SyncStatus;
  record_count: number;
  pages: number;
  last_synced_at: Date | string | null;
  last_error: string | null;
  started_at: Date | string | null;
  finished_at: Date | string | null;
};

function iso(value: Date | string | null): string | null {
  if (value === null) return null;
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function neverSyncedReason(entity: string, connectorId: string): string {
  return `${entity} has not been synchronized yet: start a sync with POST /api/v1/integrations/connectors/${connectorId}/sync.`;
}

function fromRow(connectorId: string, row: StateRow | undefined, entity: string, problem: string | undefined): EntityReadiness {
  if (!row) {
    return {
      entity,
      status: 'not_synced',
      ready_for_search: false,
      syncable: problem === undefined,
      reason: problem ?? neverSyncedReason(entity, connectorId),
      record_count: 0,
      pages: 0,
      last_synced_at: null,
      started_at: null,
      finished_at: null,
    };
  }
  const ready = row.last_synced_at !== null;
  let reason: string | null = null;
  if (row.status === 'failed') reason = row.last_error ?? 'the last sync failed';
  else if (row.status === 'initializing') reason = `the first sync of ${entity} is running`;
  else if (problem !== undefined) reason = problem;
  return {
    entity,
    status: row.status,
    ready_for_search: ready,
    syncable: problem === undefined,
    reason,
    record_count: row.record_count,
    pages: row.pages,
    last_synced_at: iso(row.last_synced_at),
    started_at: iso(row.started_at),
    finished_at: iso(row.finished_at),
  };
}

async function stateRows(db: Db, connectorId: string, entity?: string): Promise<StateRow[]> {
  let query = db
    .selectFrom('context_sync_state')
    .select(['entity', 'status', 'record_count', 'pages', 'last_synced_at', 'last_error', 'started_at', 'finished_at'])
    .where('connector_id', '=', connectorId);
  if (entity !== undefined) query = query.where('entity', '=', entity);
  return query.execute();
}

/**
 * Readiness of one entity of a connector, for the search: `ready_for_search` false means no complete
 * sync has finished (then `reason` says why: never synced, first sync running or failed, or the entity
 * cannot be synced). The caller has already checked that the connector belongs to the organization.
 */
export async function entityReadiness(db: Db, connectorId: string, entity: string): Promise<EntityReadiness> {
  const connector = await db.selectFrom('connectors').select('connector_type').where('id', '=', connectorId).executeTakeFirst();
  const definition = connector ? connectorModules[connector.connector_type]?.definition : undefined;
  const problem = definition ? syncProblem(definition, entity) : 'the connector does not exist or its type is no longer offered';
  const [row] = await stateRows(db, connectorId, entity);
  return fromRow(connectorId, row, entity, problem);
}

/** The reference's ConnectorInspectConfiguredCacheEntity, plus Switchyard's sync details. */
export interface ConfiguredCacheEntity {
  entity: string;
  status: ReadinessStatus;
  ready_for_search: boolean;
  supported: boolean;
  entity_count: number;
  /** End of the last complete sync. */
  updated_at: string | null;
  semantic_search_status: Array<{ field: string; status: 'INDEXING' | 'READY' }>;
  reason: string | null;
  pages: number;
  started_at: string | null;
  finished_at: string | null;
}

/** The reference's ConnectorInspectContextStoreReadiness. */
export interface ContextStoreReadiness {
  connector_id: string;
  source_definition_id: string;
  supported_context_store_entities: Array<{ entity: string; suggested: boolean }>;
  configured_cache_entities: ConfiguredCacheEntity[];
}

/**
 * Readiness of every entity the sync reads (configured_cache_entities) and every searchable entity of
 * the definition (supported_context_store_entities). Semantic fields are READY when the entity's data
 * is searchable and no sync is writing it: observers index each page before the sync goes on.
 */
export async function connectorReadiness(
  db: Db,
  connectorId: string,
  definition: ConnectorDefinition,
  options: {
    /** The semantic index's own state of a searchable entity (READY when every live record is embedded); without it, the sync's view above. */
    semanticStatus?: (entity: string) => Promise<'READY' | 'INDEXING'>;
  } = {},
): Promise<ContextStoreReadiness> {
  const rows = new Map((await stateRows(db, connectorId)).map((row) => [row.entity, row]));
  const configured: ConfiguredCacheEntity[] = [];
  for (const name of syncableEntities(definition)) {
    const readiness = fromRow(connectorId, rows.get(name), name, undefined);
    const semantic = definition.entities[name]?.search.semantic ?? [];
    let indexed = readiness.ready_for_search && readiness.status !== 'updating';
    if (indexed && semantic.length > 0 && options.semanticStatus) indexed = (await options.semanticStatus(name)) === 'READY';
    configured.push({
      entity: name,
      status: readiness.status,
      ready_for_search: readiness.ready_for_search,
      supported: true,
      entity_count: readiness.record_count,
      updated_at: readiness.last_synced_at,
      semantic_search_status: semantic.map((s) => ({ field: s.field, status: indexed ? 'READY' : 'INDEXING' })),
      reason: readiness.reason,
      pages: readiness.pages,
      started_at: readiness.started_at,
      finished_at: readiness.finished_at,
    });
  }
  return {
    connector_id: connectorId,
    source_definition_id: definition.definitionId,
    supported_context_store_entities: searchableEntities(definition).map((entity) => ({ entity, suggested: suggestedEntity(definition, entity) })),
    configured_cache_entities: configured,
  };
}

/* ----- writes, used by the sync ----- */

/**
 * Marks the entity as syncing (initializing before its first complete sync, updating after) and
 * returns the database time the sync started at, which the final sweep compares last_synced_at with.
 */
export async function beginEntitySync(db: Db, connectorId: string, entity: string): Promise<{ startedAt: Date; previous: { started_at: Date | null } | undefined }> {
  return db.transaction().execute(async (trx) => {
    const previous = await trx
      .selectFrom('context_sync_state')
      .select(['started_at'])
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .executeTakeFirst();
    const row = await trx
      .insertInto('context_sync_state')
      .values({ connector_id: connectorId, entity, status: 'initializing', started_at: sql`now()`, finished_at: null, last_error: null })
      .onConflict((oc) =>
        oc.columns(['connector_id', 'entity']).doUpdateSet({
          status: sql`CASE WHEN context_sync_state.last_synced_at IS NULL THEN 'initializing' ELSE 'updating' END`,
          started_at: sql`now()`,
          finished_at: null,
          last_error: null,
        }),
      )
      .returning('started_at')
      .executeTakeFirstOrThrow();
    const startedAt = row.started_at instanceof Date ? row.started_at : new Date(row.started_at ?? Date.now());
    const before = previous?.started_at ?? null;
    return { startedAt, previous: previous ? { started_at: before === null ? null : new Date(before) } : undefined };
  });
}

/** A complete sync: records it did not see are marked deleted, the entity is ready. Returns how many were deleted and the live count. */
export async function completeEntitySync(db: Db, scope: RecordScope, startedAt: Date, pages: number): Promise<{ deleted: number; recordCount: number }> {
  return db.transaction().execute(async (trx) => {
    const deleted = await sweepUnseen(trx, scope, startedAt);
    const recordCount = await liveCount(trx, scope);
    await trx
      .updateTable('context_sync_state')
      .set({ status: 'ready', record_count: recordCount, pages, last_synced_at: sql`now()`, finished_at: sql`now()`, last_error: null })
      .where('connector_id', '=', scope.connectorId)
      .where('entity', '=', scope.entity)
      .execute();
    return { deleted, recordCount };
  });
}

/** A failed sync: nothing is marked deleted, the previous data stays searchable, the reason is kept. */
export async function failEntitySync(db: Db, scope: RecordScope, reason: string, pages: number): Promise<number> {
  return db.transaction().execute(async (trx) => {
    const recordCount = await liveCount(trx, scope);
    await trx
      .updateTable('context_sync_state')
      .set({ status: 'failed', record_count: recordCount, pages, finished_at: sql`now()`, last_error: reason.slice(0, 4000) })
      .where('connector_id', '=', scope.connectorId)
      .where('entity', '=', scope.entity)
      .execute();
    return recordCount;
  });
}
