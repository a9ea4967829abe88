/**
 * Confirming a full walk's misses at once (the manifest's search.confirm_deletion): a record a full walk did
 * not read is otherwise deleted only when the next full walk misses it too (migration 13). For a vendor
 * whose read of one record answers 404 once it is deleted, the sweep asks for each record missed for the
 * first time: a 404, or the record marked removed (search.removed: trashed), deletes it in the same sync;
 * the record itself, or any error, leaves it to the next full walk, so a record the list left out while it
 * still exists is never deleted on one walk's word.
 */
import type { FastifyBaseLogger } from 'fastify';
import { NotFoundError, RateLimitedError, type Connector, type EntityDefinition } from '../../../runtime/index.js';
import { observeUpstream } from '../../observability/observer.js';
import type { ServiceContext } from '../../service-context.js';
import type { ConnectorRow } from '../../services/connector-lookup.js';
import { missedRecordIds, type RecordScope } from './records.js';
import { isRemoved } from './removed.js';
import { markConfirmedDeletions } from './state.js';

export type ConfirmDeletion = NonNullable<EntityDefinition['search']['confirmDeletion']>;

/** Records asked for after one sweep at most; a sweep that missed more leaves every one to the next full walk. */
export const MAX_CONFIRMED_DELETIONS = 100;

/** What the asking needs of the sync's run (its RunInput). */
export interface Confirmation {
  ctx: ServiceContext;
  connector: Connector;
  row: Pick<ConnectorRow, 'connector_type'>;
  log: FastifyBaseLogger;
  signal: AbortSignal;
}

/** The value of the action's param for a stored record id (ids are stored as text), or undefined when it cannot take it. */
export function recordIdParam(recordId: string, schema: Record<string, unknown> | undefined): string | number | undefined {
  const type = schema?.type;
  if (type !== 'integer' && type !== 'number') return recordId;
  const value = Number(recordId);
  if (recordId.trim() === '' || !Number.isFinite(value) || (type === 'integer' && !Number.isInteger(value))) return undefined;
  return value;
}

/**
 * Asks the vendor for each record the entity's last full walk missed, when there are at most
 * MAX_CONFIRMED_DELETIONS, and marks deleted those it answers 404 for, or with the record marked removed.
 * Returns the entity's counts after that, or undefined when nothing was deleted.
 */
export async function confirmMissedDeletions(
  confirmation: Confirmation,
  scope: RecordScope,
  entity: EntityDefinition,
  confirm: ConfirmDeletion,
): Promise<{ deleted: number; unconfirmed: number; recordCount: number } | undefined> {
  const { ctx, connector, row, log, signal } = confirmation;
  const missed = await missedRecordIds(ctx.store.db, scope, MAX_CONFIRMED_DELETIONS + 1);
  if (missed.length === 0 || missed.length > MAX_CONFIRMED_DELETIONS) return undefined;
  const schema = entity.actions[confirm.action]?.params[confirm.param]?.schema;
  const removed = entity.search.removed;
  const gone: string[] = [];
  let failed = 0;
  let firstFailure: string | undefined;
  for (const recordId of missed) {
    if (signal.aborted) break;
    const value = recordIdParam(recordId, schema);
    if (value === undefined) continue;
    try {
      const answer = await observeUpstream(ctx, row.connector_type, () => connector.execute(scope.entity, confirm.action, { [confirm.param]: value }));
      if (removed && isRemoved(answer.data, removed)) gone.push(recordId);
    } catch (error) {
      if (error instanceof NotFoundError) {
        gone.push(recordId);
        continue;
      }
      failed += 1;
      firstFailure ??= error instanceof Error ? error.message : String(error);
      // The vendor asks to slow down: the rest wait for the next full walk rather than spend its budget.
      if (error instanceof RateLimitedError) break;
    }
  }
  if (failed > 0)
    log.warn(
      { connector_id: scope.connectorId, entity: scope.entity, failed, err: firstFailure },
      'could not ask the vendor for some missed records; the next full walk decides',
    );
  if (gone.length === 0) return undefined;
  return markConfirmedDeletions(ctx.store.db, scope, gone);
}
