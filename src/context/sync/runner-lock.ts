/**
 * Which processes that run sync jobs on a PostgreSQL store are alive. Each holds an advisory lock of its own
 * (RUNNER_LOCK_CLASS, a random key) on a connection of its own, and notes the key beside every job it runs
 * (sync_job_runners, migration 15). A job noted with a key that anyone can take was left active by a process
 * that died (kill -9, a crash, a lost machine): the others hand it back to the queue, where it would otherwise
 * block the connector's syncs until SYNC_JOB_TIMEOUT_MINUTES. The embedded store needs none of this: its lock
 * file admits one process, which hands back every active job when it starts.
 */
import { randomInt } from 'node:crypto';
import type { Kysely } from 'kysely';
import type pg from 'pg';
import { ifAdvisoryLockFree } from '../../db/advisory-lock.js';
import { holdOnOwnConnection, type HeldConnection } from '../../db/held-connection.js';
import type { DatabaseSchema } from '../../db/schema.js';

/** Arbitrary constant, beside the migration and service locks (727_100_001, 727_100_002): the first key of runner locks. */
const RUNNER_LOCK_CLASS = 727_100_003;

export interface RunnerLock {
  /** This process's key (the second of the lock's two keys). */
  readonly key: number;
  /** The held connection: `held` and `losses` tell whether the jobs this process noted are still its own. */
  readonly connection: HeldConnection;
}

/** Takes a free random key and holds its lock until released; after a lost connection, the same key again. */
export async function holdRunnerLock(databaseUrl: string, onLost: (error: Error) => void): Promise<RunnerLock> {
  let key = 0;
  const take = async (client: pg.Client) =>
    (await client.query<{ taken: boolean }>('SELECT pg_try_advisory_lock($1, $2) AS taken', [RUNNER_LOCK_CLASS, key])).rows[0]?.taken === true;
  const connection = await holdOnOwnConnection(
    databaseUrl,
    async (client, again) => {
      if (again) {
        // Taken by another process handing this one's jobs back, or still held by the dropped session until
        // PostgreSQL notices it is gone: tried again with the next connection.
        if (!(await take(client))) throw new Error('the runner lock is still held elsewhere');
        return;
      }
      do key = randomInt(1, 2 ** 31);
      while (!(await take(client)));
    },
    onLost,
    async (client) => {
      const { rows } = await client.query<{ holds: boolean }>(
        `SELECT EXISTS (SELECT 1 FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid() AND granted
           AND classid = $1 AND objid = $2 AND objsubid = 2) AS holds`,
        [RUNNER_LOCK_CLASS, key],
      );
      return rows[0]?.holds === true;
    },
  );
  return { key, connection };
}

/**
 * Runs `work` if the runner that holds (or held) `key` is gone: its lock is taken for the time of `work`, so
 * the runner, reconnecting, waits until its jobs are handed back. Whether `work` ran.
 */
export async function whileRunnerGone(db: Kysely<DatabaseSchema>, key: number, work: () => Promise<void>): Promise<boolean> {
  return (await ifAdvisoryLockFree(db, [RUNNER_LOCK_CLASS, key], work)).ran;
}
