/**
 * The context store as the suites set it up straight through the database: records stored as a sync leaves
 * them (record_id = the id as text), an entity made ready for search, a full sweep made due.
 */
import { sql } from 'kysely';
import type { Store } from '../../src/db/database.js';
import { wordsToKeep } from '../../src/context/typos.js';

export interface EntityScope {
  organizationId: string;
  connectorId: string;
  entity: string;
}

/** Stores `records` (each with an `id`) as a sync writes them; `deleted` stores them marked deleted. */
export async function storeRecords(
  store: Store,
  scope: EntityScope,
  records: ReadonlyArray<Record<string, unknown>>,
  options: { deleted?: boolean } = {},
): Promise<void> {
  if (records.length === 0) return;
  await store.db
    .insertInto('context_records')
    .values(
      records.map((record) => ({
        connector_id: scope.connectorId,
        organization_id: scope.organizationId,
        entity: scope.entity,
        record_id: String(record.id),
        data: JSON.stringify(record),
        content_hash: 'seeded',
        ...(options.deleted && { deleted_at: new Date() }),
      })),
    )
    .execute();
  // the words a sync keeps with its records (src/context/sync/records.ts), for the typos of fuzzy
  const words = wordsToKeep(records);
  if (words.length > 0) {
    await store.db
      .insertInto('context_words')
      .values(words.map((word) => ({ connector_id: scope.connectorId, entity: scope.entity, word })))
      .onConflict((conflict) => conflict.doNothing())
      .execute();
  }
}

/** Makes the entity ready for search, as a completed first sync does. */
export async function markSearchable(store: Store, scope: Pick<EntityScope, 'connectorId' | 'entity'>): Promise<void> {
  await store.db
    .insertInto('context_sync_state')
    .values({ connector_id: scope.connectorId, entity: scope.entity, status: 'ready', last_synced_at: new Date() })
    .execute();
}

/** Makes the entity's full sweep due: its last one started 25 hours ago (full_sweep_hours defaults to 24). */
export async function makeFullSweepDue(store: Store, scope: Pick<EntityScope, 'connectorId' | 'entity'>): Promise<void> {
  await store.db
    .updateTable('context_sync_state')
    .set({ last_full_sweep_at: sql`now() - interval '25 hours'` })
    .where('connector_id', '=', scope.connectorId)
    .where('entity', '=', scope.entity)
    .execute();
}
