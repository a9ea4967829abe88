/**
 * The sync jobs of a connector as the queue keeps them (pg-boss's table), and the check that one of them ran
 * only after another had ended.
 */
import { sql } from 'kysely';
import { expect } from 'vitest';
import type { Store } from '../../src/db/database.js';

export interface JobRow {
  id: string;
  state: string;
  retry_count: number;
  retry_limit: number;
  started_on: Date | null;
  completed_on: Date | null;
  output: Record<string, unknown> | null;
}

/** The connector's sync jobs, oldest first. */
export async function jobsOf(store: Store, connectorId: string): Promise<JobRow[]> {
  const result = await sql<JobRow>`
    SELECT id, state::text AS state, retry_count, retry_limit, started_on, completed_on, output
    FROM pgboss.job WHERE singleton_key = ${connectorId} ORDER BY created_on`.execute(store.db);
  return result.rows;
}

/**
 * A fetch that waited on the queue's unique index for the earlier job's completion to commit keeps the time it
 * began waiting: pg-boss stamps started_on and completed_on with now(), the time each statement began.
 */
const WAITED_ON_COMPLETION_MS = 100;

/** `later` started once `earlier` had completed (never while it ran). */
export function expectStartedAfter(later: JobRow | undefined, earlier: JobRow | undefined): void {
  expect(new Date(later?.started_on as Date).getTime()).toBeGreaterThanOrEqual(new Date(earlier?.completed_on as Date).getTime() - WAITED_ON_COMPLETION_MS);
}

/** Polls `probe` every 50 ms until it gives a value, or fails after `timeoutMs` naming `what` it waited for. */
export async function until<T>(what: string, probe: () => Promise<T | undefined>, timeoutMs = 15_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
