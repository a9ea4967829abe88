/**
 * One sync per (connector, entity) at a time.
 *
 * - In this process: a set of held keys (PostgreSQL's session-level advisory locks are re-entrant
 *   within one session, so the set is what keeps two syncs of this process apart).
 * - Across processes sharing one PostgreSQL: pg_try_advisory_lock on one dedicated connection (not a
 *   pool connection, which would be returned and reused), held for the whole entity sync and released
 *   with pg_advisory_unlock. If that connection drops, PostgreSQL releases its locks: every lock
 *   taken on it is marked lost and the syncs holding them stop before their next write.
 * - The embedded PGlite store is one process's by construction (its store lock), so the in-process
 *   set is the whole lock there; PGlite's single connection is never held for a sync.
 */
import pg from 'pg';
import type { StoreKind } from '../../db/database.js';

export interface SyncLock {
  readonly connectorId: string;
  readonly entity: string;
  /** Set when the lock can no longer be trusted (the lock connection dropped). */
  readonly lost: boolean;
  release(): Promise<void>;
}

const KEY_PREFIX = 'switchyard:context-sync:';

class HeldLock implements SyncLock {
  lost = false;
  private released = false;
  constructor(
    readonly connectorId: string,
    readonly entity: string,
    private readonly onRelease: (lock: HeldLock) => Promise<void>,
  ) {}

  get key(): string {
    return lockKey(this.connectorId, this.entity);
  }

  async release(): Promise<void> {
    if (this.released) return;
    this.released = true;
    await this.onRelease(this);
  }
}

export function lockKey(connectorId: string, entity: string): string {
  return `${connectorId}:${entity}`;
}

export class SyncLocks {
  private readonly held = new Map<string, HeldLock>();
  private client: pg.Client | undefined;
  private connecting: Promise<pg.Client> | undefined;
  private closed = false;

  constructor(
    private readonly kind: StoreKind,
    private readonly databaseUrl: string | undefined,
  ) {}

  /** Whether this process holds the lock. */
  holds(connectorId: string, entity: string): boolean {
    return this.held.has(lockKey(connectorId, entity));
  }

  /** Takes the lock, or answers undefined when another sync (here or in another process) holds it. */
  async tryAcquire(connectorId: string, entity: string): Promise<SyncLock | undefined> {
    if (this.closed) throw new Error('the sync locks are closed');
    const key = lockKey(connectorId, entity);
    if (this.held.has(key)) return undefined;
    const lock = new HeldLock(connectorId, entity, (l) => this.release(l));
    // Reserved before the first await, so two calls of this process cannot both get past here.
    this.held.set(key, lock);
    if (this.kind === 'pglite') return lock;
    try {
      const client = await this.connection();
      const result = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS locked', [KEY_PREFIX + key]);
      if (result.rows[0]?.locked === true) return lock;
    } catch (error) {
      this.held.delete(key);
      throw error;
    }
    this.held.delete(key);
    return undefined;
  }

  private async release(lock: HeldLock): Promise<void> {
    if (this.held.get(lock.key) !== lock) return;
    try {
      if (this.kind === 'postgres' && !lock.lost && this.client) {
        await this.client.query('SELECT pg_advisory_unlock(hashtextextended($1, 0))', [KEY_PREFIX + lock.key]);
      }
    } catch {
      // The connection is gone: PostgreSQL has released the lock with it.
    } finally {
      this.held.delete(lock.key);
    }
  }

  private async connection(): Promise<pg.Client> {
    if (this.client) return this.client;
    if (this.databaseUrl === undefined) throw new Error('The PostgreSQL store needs its URL (DATABASE_URL) for the sync locks.');
    this.connecting ??= (async () => {
      const client = new pg.Client({ connectionString: this.databaseUrl, application_name: 'switchyard-sync-locks' });
      const dropped = () => this.dropped(client);
      client.on('error', dropped);
      client.on('end', dropped);
      try {
        await client.connect();
      } catch (error) {
        client.removeAllListeners();
        client.on('error', () => undefined);
        throw error;
      }
      this.client = client;
      return client;
    })().finally(() => {
      this.connecting = undefined;
    });
    return this.connecting;
  }

  /** The lock connection failed or closed: its advisory locks are gone, so every lock taken on it is lost. */
  private dropped(client: pg.Client): void {
    if (this.client !== client) return;
    this.client = undefined;
    for (const lock of this.held.values()) lock.lost = true;
    client.end().catch(() => undefined);
  }

  async close(): Promise<void> {
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    for (const lock of this.held.values()) lock.lost = true;
    this.held.clear();
    if (client) {
      client.removeAllListeners();
      client.on('error', () => undefined);
      await client.end().catch(() => undefined);
    }
  }
}
