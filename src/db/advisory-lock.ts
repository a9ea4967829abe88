import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/** A key of a PostgreSQL advisory lock: a number, or an SQL expression of one (hashtext(name)). */
type LockKey = number | RawBuilder<unknown>;

/**
 * Runs `work` on a connection of the pool holding the advisory lock of `keys` (one bigint key, or two integer
 * keys), released when it ends; if another session holds the lock, nothing runs. The work's value when it ran.
 */
export async function ifAdvisoryLockFree<T>(
  db: Kysely<DatabaseSchema>,
  keys: readonly [LockKey] | readonly [LockKey, LockKey],
  work: (connection: Kysely<DatabaseSchema>) => Promise<T>,
): Promise<{ ran: true; value: T } | { ran: false }> {
  const args = sql.join(keys.map((key) => (typeof key === 'number' ? sql`${key}` : key)));
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{ taken: boolean }>`SELECT pg_try_advisory_lock(${args}) AS taken`.execute(connection);
    if (rows[0]?.taken !== true) return { ran: false };
    try {
      return { ran: true, value: await work(connection) };
    } finally {
      await sql`SELECT pg_advisory_unlock(${args})`.execute(connection);
    }
  });
}
