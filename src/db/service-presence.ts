/**
 * Which services run on a PostgreSQL store: each holds a shared advisory lock on a connection of its own for
 * as long as it runs (taken again after an outage), and work that needs every service stopped (the master key
 * rotation) checks that no one holds it. The embedded store needs none: its lock file admits one process.
 */
import { sql, type Kysely } from 'kysely';
import pg from 'pg';
import type { DatabaseSchema } from './schema.js';

/** Arbitrary constant, beside the migration lock (727_100_001). */
const SERVICE_LOCK = 727_100_002;

export interface ServicePresence {
  release(): Promise<void>;
}

/** Holds the service lock on a connection of its own until released; a lost connection is replaced every 5 s. */
export async function holdServicePresence(databaseUrl: string, onLost: (error: Error) => void): Promise<ServicePresence> {
  let client: pg.Client | undefined;
  let released = false;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    next.on('error', (error: Error) => {
      if (released) return;
      onLost(error);
      client = undefined;
      next.end().catch(() => undefined);
      schedule();
    });
    await next.connect();
    await next.query('SELECT pg_advisory_lock_shared($1)', [SERVICE_LOCK]);
    client = next;
  };
  const schedule = () => {
    if (released || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => schedule());
    }, 5000);
    retry.unref();
  };
  await connect();
  return {
    async release() {
      released = true;
      if (retry !== undefined) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}

/** Whether a service process holds the service lock on this store right now. */
export async function serviceRunning(db: Kysely<DatabaseSchema>): Promise<boolean> {
  return db.connection().execute(async (connection) => {
    const { rows } = await sql<{ free: boolean }>`SELECT pg_try_advisory_lock(${SERVICE_LOCK}) AS free`.execute(connection);
    if (rows[0]?.free !== true) return true;
    await sql`SELECT pg_advisory_unlock(${SERVICE_LOCK})`.execute(connection);
    return false;
  });
}
