/**
 * Sync state per (connector, entity) in context_sync_state, and the readiness read from it: what
 * inspect shows (context_store_readiness) and what the search checks before answering
 * (entityReadiness).
 */
import { sql, type Kysely } from 'kysely';
import { connectorModules, type ConnectorDefinition } from '../../../runtime/index.js';
import type { DatabaseSchema } from '../../db/schema.js';
import { governingChangeFilter, type IncrementalState } from './incremental.js';
import { forgetMissedRecords, forgetSeen, liveCount, markDeleted, sweepUnseen, type RecordScope } from './records.js';
import { searchableEntities, suggestedEntity, syncableEntities, syncProblem } from './plan.js';
import type { ConfiguredCacheEntity, ContextStoreReadiness, ReadinessStatus, SyncMode, SyncStatus } from '../../api-shapes.js';

type Db = Kysely<DatabaseSchema>;

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
  last_mode: SyncMode | null;
  high_water_mark: Date | string | null;
  last_full_sweep_at: Date | string | null;
  synced_through: Date | string | null;
  unconfirmed_deletions: number;
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
    .select([
      'entity',
      'status',
      'record_count',
      'pages',
      'last_synced_at',
      'last_error',
      'started_at',
      'finished_at',
      'last_mode',
      'high_water_mark',
      'last_full_sweep_at',
      'synced_through',
      'unconfirmed_deletions',
    ])
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
  const now = new Date();
  const configured: ConfiguredCacheEntity[] = [];
  for (const name of syncableEntities(definition)) {
    const readiness = fromRow(connectorId, rows.get(name), name, undefined);
    const semantic = definition.entities[name]?.search.semantic ?? [];
    let indexed = readiness.ready_for_search && readiness.status !== 'updating';
    if (indexed && semantic.length > 0 && options.semanticStatus) indexed = (await options.semanticStatus(name)) === 'READY';
    const row = rows.get(name);
    const entity = definition.entities[name];
    const filter = entity ? governingChangeFilter(definition, entity) : undefined;
    const lastSweep = instant(row?.last_full_sweep_at ?? null);
    // A child that follows its parent's changes is walked in full with its parent's full sweep.
    const sweptWith = entity?.search.fanOut?.incrementalWithParent ? rows.get(entity.search.fanOut.entity) : row;
    const lastSweepOfWalk = instant(sweptWith?.last_full_sweep_at ?? null);
    const syncedThrough = instant(row?.synced_through ?? null);
    const unconfirmed = row?.unconfirmed_deletions ?? 0;
    // Due at once while the last full walk's misses wait for their confirming walk.
    const nextSweep =
      !filter || !lastSweep || !lastSweepOfWalk ? null : unconfirmed > 0 ? lastSweep : new Date(lastSweepOfWalk.getTime() + filter.fullSweepHours * 3_600_000);
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
      mode: filter ? 'incremental' : 'full',
      last_mode: row?.last_mode ?? null,
      high_water_mark: iso(row?.high_water_mark ?? null),
      last_full_sweep_at: lastSweep?.toISOString() ?? null,
      unconfirmed_deletions: unconfirmed,
      next_full_sweep_at: nextSweep?.toISOString() ?? null,
      lag_seconds: syncedThrough ? Math.max(0, Math.round((now.getTime() - syncedThrough.getTime()) / 1000)) : null,
    });
  }
  return {
    connector_id: connectorId,
    source_definition_id: definition.definitionId,
    supported_context_store_entities: searchableEntities(definition).map((entity) => ({ entity, suggested: suggestedEntity(definition, entity) })),
    configured_cache_entities: configured,
  };
}

/* ----- incremental state ----- */

function instant(value: Date | string | null): Date | null {
  if (value === null) return null;
  return value instanceof Date ? value : new Date(value);
}

/** The high-water mark and last full sweep of the entity, or undefined before its first sync. */
export async function incrementalState(db: Db, connectorId: string, entity: string): Promise<IncrementalState | undefined> {
  const row = await db
    .selectFrom('context_sync_state')
    .select(['high_water_mark', 'last_full_sweep_at', 'synced_through', 'unconfirmed_deletions'])
    .where('connector_id', '=', connectorId)
    .where('entity', '=', entity)
    .executeTakeFirst();
  return row
    ? {
        highWaterMark: instant(row.high_water_mark),
        lastFullSweepAt: instant(row.last_full_sweep_at),
        syncedThrough: instant(row.synced_through),
        unconfirmedDeletions: row.unconfirmed_deletions,
      }
    : undefined;
}

/** Records the mode the sync that just began runs in (inspect shows it while it runs). */
export async function noteSyncMode(db: Db, connectorId: string, entity: string, mode: SyncMode): Promise<void> {
  await db.updateTable('context_sync_state').set({ last_mode: mode }).where('connector_id', '=', connectorId).where('entity', '=', entity).execute();
}

/* ----- writes, used by the sync ----- */

/**
 * Marks the entity as syncing (initializing before its first complete sync, updating after) and
 * returns the database time the sync started at (what the data is fresh as of once it completes).
 */
export async function beginEntitySync(
  db: Db,
  connectorId: string,
  entity: string,
): Promise<{ startedAt: Date; previous: { started_at: Date | null } | undefined }> {
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

export interface CompletedWalk {
  mode: SyncMode;
  /** The walk noted every record it read (writePage's track): the live records it did not note are swept (sweepUnseen). */
  sweep: boolean;
  /** Database time the sync started (the sweep's threshold, and what the data is fresh as of). */
  startedAt: Date;
  pages: number;
  /** Latest change time among the records read, or null when none carried one. */
  latestChange: Date | null;
}

/**
 * A complete sync. A full walk sweeps the records it did not see (sweepUnseen: deleted when the full walk
 * before missed them too, else noted as unconfirmed deletions), becomes the last full sweep and sets the
 * high-water mark to the latest change it read; an incremental one deletes nothing, keeps the unconfirmed
 * deletions for the next full walk and only moves the mark forward. The entity is ready. Returns how many
 * were deleted, how many deletions are unconfirmed and the live count.
 */
export async function completeEntitySync(
  db: Db,
  scope: RecordScope,
  walk: CompletedWalk,
): Promise<{ deleted: number; unconfirmed: number; recordCount: number }> {
  return db.transaction().execute(async (trx) => {
    // Notes of missed records exist only for live records, so a full walk that did not sweep (it began with none) has none to clear.
    const swept = walk.sweep ? await sweepUnseen(trx, scope) : { deleted: 0, unconfirmed: 0 };
    await forgetSeen(trx, scope);
    const recordCount = await liveCount(trx, scope);
    const latest = walk.latestChange?.toISOString() ?? null;
    const mark =
      walk.mode === 'full' ? sql<Date | null>`${latest}::timestamptz` : sql<Date | null>`GREATEST(context_sync_state.high_water_mark, ${latest}::timestamptz)`;
    const state = await trx
      .updateTable('context_sync_state')
      .set({
        status: 'ready',
        record_count: recordCount,
        pages: walk.pages,
        last_synced_at: sql`now()`,
        finished_at: sql`now()`,
        last_error: null,
        last_mode: walk.mode,
        high_water_mark: mark,
        synced_through: walk.startedAt,
        ...(walk.mode === 'full' && { last_full_sweep_at: walk.startedAt, unconfirmed_deletions: swept.unconfirmed }),
      })
      .where('connector_id', '=', scope.connectorId)
      .where('entity', '=', scope.entity)
      .returning('unconfirmed_deletions')
      .executeTakeFirst();
    return { deleted: swept.deleted, unconfirmed: state?.unconfirmed_deletions ?? swept.unconfirmed, recordCount };
  });
}

/**
 * Records a full walk missed, confirmed deleted after its sweep (the vendor answered 404 for each, or the
 * record marked removed: the entity's search.confirm_deletion): marked deleted now instead of by the next full walk, their notes
 * removed, and the live count and unconfirmed deletions completeEntitySync stored lowered by as many.
 * Returns how many were deleted, how many deletions stay unconfirmed and the live count.
 */
export async function markConfirmedDeletions(
  db: Db,
  scope: RecordScope,
  recordIds: string[],
): Promise<{ deleted: number; unconfirmed: number; recordCount: number }> {
  return db.transaction().execute(async (trx) => {
    const deleted = await markDeleted(trx, scope, recordIds);
    const forgotten = await forgetMissedRecords(trx, scope, recordIds);
    const state = await trx
      .updateTable('context_sync_state')
      .set((eb) => ({
        record_count: eb('record_count', '-', deleted),
        unconfirmed_deletions: eb('unconfirmed_deletions', '-', forgotten),
      }))
      .where('connector_id', '=', scope.connectorId)
      .where('entity', '=', scope.entity)
      .returning(['record_count', 'unconfirmed_deletions'])
      .executeTakeFirstOrThrow();
    return { deleted, unconfirmed: state.unconfirmed_deletions, recordCount: state.record_count };
  });
}

/**
 * A failed sync: nothing is marked deleted, the previous data stays searchable, the reason is kept. With
 * `onlyIfStartedAt`, nothing is written (undefined) when a later sync of the entity has begun since.
 */
export async function failEntitySync(db: Db, scope: RecordScope, reason: string, pages: number, onlyIfStartedAt?: Date): Promise<number | undefined> {
  return db.transaction().execute(async (trx) => {
    if (onlyIfStartedAt !== undefined) {
      // A sync whose claim was lost: a later sync of the entity (another process's) may have begun, whose state and
      // notes of records seen are its own. started_at keeps microseconds, the Date of this sync's start milliseconds.
      const later = await trx
        .selectFrom('context_sync_state')
        .select('started_at')
        .where('connector_id', '=', scope.connectorId)
        .where('entity', '=', scope.entity)
        .where('started_at', '>=', new Date(onlyIfStartedAt.getTime() + 1))
        .forUpdate()
        .executeTakeFirst();
      if (later !== undefined) return undefined;
    }
    await forgetSeen(trx, scope);
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
