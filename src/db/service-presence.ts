/**
 * Which services run on a PostgreSQL store: each holds a shared advisory lock on a connection of its own for
 * as long as it runs (taken again after an outage), and work that needs every service stopped (the master key
 * rotation) checks that no one holds it. The embedded store needs none: its lock file admits one process.
 */
import type { Kysely } from 'kysely';
import { ifAdvisoryLockFree } from './advisory-lock.js';
import { holdOnOwnConnection } from './held-connection.js';
import type { DatabaseSchema } from './schema.js';

/** Arbitrary constant, beside the migration lock (727_100_001). */
const SERVICE_LOCK = 727_100_002;

export interface ServicePresence {
  release(): Promise<void>;
}

/** Holds the service lock on a connection of its own until released; a lost connection is replaced every 5 s. */
export function holdServicePresence(databaseUrl: string, onLost: (error: Error) => void): Promise<ServicePresence> {
  // Waits while a key rotation holds the lock exclusively: the service then starts on the rotated store.
  return holdOnOwnConnection(databaseUrl, async (client) => void (await client.query('SELECT pg_advisory_lock_shared($1)', [SERVICE_LOCK])), onLost);
}

/** A service process holds the service lock: work that needs every service stopped was not done. */
export class ServiceRunningError extends Error {
  override name = 'ServiceRunningError';
}

/**
 * Runs `work` holding the service lock exclusively (no service runs, and none starts until it ends: a starting
 * service waits for the lock before it opens the key check), or throws ServiceRunningError at once.
 */
export async function withNoServiceRunning<T>(db: Kysely<DatabaseSchema>, work: () => Promise<T>): Promise<T> {
  const outcome = await ifAdvisoryLockFree(db, [SERVICE_LOCK], work);
  if (!outcome.ran) throw new ServiceRunningError('A Switchyard service is running on this database (it holds the service lock).');
  return outcome.value;
}
