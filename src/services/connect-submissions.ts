/**
 * One connector per connect-page form and set of values (migration 14): the claim key (the route digests the
 * form's random submission id with its values) is claimed by the first post, which records the connector it
 * creates; a second post of the same form with the same values gets that connector.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';

type Db = Kysely<DatabaseSchema>;

/** The post holds the claim and creates; or an earlier post of the form created this connector; or it still runs. */
export type SubmissionTurn = { kind: 'claimed' } | { kind: 'created'; connectorId: string } | { kind: 'pending' };

/** Claims older than any connect link's lifetime can no longer be posted: dropped as new ones are made. */
const KEPT_FOR = '1 day';
/** A claim still without its connector after this was left by a post that never ended (its process stopped): taken over. */
const ABANDONED_AFTER = '5 minutes';
const POLL_MS = 200;

/**
 * Claims submission `id` for this post, or waits up to `waitMs` for the post holding it: its connector once
 * created, or the claim itself when that post failed and released it.
 */
export async function takeSubmissionTurn(db: Db, id: string, organizationId: string, waitMs: number): Promise<SubmissionTurn> {
  await db
    .deleteFrom('connect_submissions')
    .where('created_at', '<', sql<Date>`now() - ${sql.lit(KEPT_FOR)}::interval`)
    .execute();
  const deadline = Date.now() + waitMs;
  for (;;) {
    const claimed = await db
      .insertInto('connect_submissions')
      .values({ id, organization_id: organizationId })
      .onConflict((conflict) => conflict.column('id').doNothing())
      .returning('id')
      .executeTakeFirst();
    if (claimed) return { kind: 'claimed' };
    const held = await db.selectFrom('connect_submissions').select(['organization_id', 'connector_id']).where('id', '=', id).executeTakeFirst();
    if (held?.organization_id === organizationId && held.connector_id !== null) return { kind: 'created', connectorId: held.connector_id };
    const abandoned = await db
      .deleteFrom('connect_submissions')
      .where('id', '=', id)
      .where('connector_id', 'is', null)
      .where('created_at', '<', sql<Date>`now() - ${sql.lit(ABANDONED_AFTER)}::interval`)
      .executeTakeFirst();
    if (abandoned.numDeletedRows > 0n) continue;
    if (Date.now() >= deadline) return { kind: 'pending' };
    await sleep(POLL_MS);
  }
}

/** The claimed submission created this connector. */
export async function recordSubmission(db: Db, id: string, connectorId: string): Promise<void> {
  await db.updateTable('connect_submissions').set({ connector_id: connectorId }).where('id', '=', id).execute();
}

/** The claimed submission failed: the form may be sent again. */
export async function releaseSubmission(db: Db, id: string): Promise<void> {
  await db.deleteFrom('connect_submissions').where('id', '=', id).where('connector_id', 'is', null).execute();
}
