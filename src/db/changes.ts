/**
 * Change announcements of the store, so copies kept in memory (the execute hot path's connector cache)
 * are dropped when the rows behind them change.
 *
 * A writer announces a change twice: inside its transaction with announceChange() (pg_notify: on
 * PostgreSQL every other process sharing the database hears it when the transaction commits, never
 * when it rolls back), and in its own process with StoreChanges.emit() once the transaction is done,
 * so the next call in this process already sees the change. On PostgreSQL each process LISTENs on one
 * dedicated connection; while that connection is down (it reconnects with backoff), `listening` is
 * false and caches must not trust what they hold. The embedded store (PGlite) is used by one process
 * only (its lock file), so it needs no listener.
 */
import { sql, type Kysely, type Transaction } from 'kysely';
import pg from 'pg';
import type { DatabaseSchema } from './schema.js';

export const CHANGES_CHANNEL = 'switchyard_changes';

export type StoreChange = { kind: 'connector'; id: string } | { kind: 'workspace'; id: string } | { kind: 'all' };

type Db = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

function encode(change: StoreChange): string {
  return change.kind === 'all' ? 'all' : `${change.kind}:${change.id}`;
}

function decode(payload: string): StoreChange {
  const [kind, id] = payload.split(':', 2);
  if ((kind === 'connector' || kind === 'workspace') && id !== undefined && id !== '') return { kind, id };
  return { kind: 'all' };
}

/** Tells the other processes sharing the database, at commit, that rows behind `change` changed. */
export async function announceChange(db: Db, change: StoreChange): Promise<void> {
  await sql`SELECT pg_notify(${CHANGES_CHANNEL}, ${encode(change)})`.execute(db);
}

export type ChangeListener = (change: StoreChange) => void;

export class StoreChanges {
  private readonly listeners = new Set<ChangeListener>();
  private client?: pg.Client;
  private closed = false;
  private retryTimer?: NodeJS.Timeout;
  /** Whether changes made by other processes reach this one now (always true without a listener to lose). */
  listening: boolean;

  private constructor(private readonly databaseUrl?: string) {
    this.listening = databaseUrl === undefined;
  }

  /** Changes of this process only: the embedded store. */
  static local(): StoreChanges {
    return new StoreChanges();
  }

  /** Changes of every process sharing the PostgreSQL database at `databaseUrl`. */
  static async shared(databaseUrl: string): Promise<StoreChanges> {
    const changes = new StoreChanges(databaseUrl);
    await changes.connect();
    return changes;
  }

  subscribe(listener: ChangeListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Delivers a change to this process's listeners. */
  emit(change: StoreChange): void {
    for (const listener of this.listeners) listener(change);
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async connect(attempt = 0): Promise<void> {
    const client = new pg.Client({ connectionString: this.databaseUrl });
    const lost = () => {
      if (this.client !== client) return;
      this.client = undefined;
      this.listening = false;
      // What changed while nobody listened is unknown: drop everything held.
      this.emit({ kind: 'all' });
      void client.end().catch(() => undefined);
      if (!this.closed) this.retryTimer = setTimeout(() => void this.connect(attempt + 1), Math.min(5_000, 100 * 2 ** attempt));
    };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (message) => {
      if (message.channel === CHANGES_CHANNEL) this.emit(decode(message.payload ?? ''));
    });
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      await client.end().catch(() => undefined);
      if (attempt === 0) throw error;
      if (!this.closed) this.retryTimer = setTimeout(() => void this.connect(attempt + 1), Math.min(5_000, 100 * 2 ** attempt));
      return;
    }
    if (this.closed) {
      await client.end().catch(() => undefined);
      return;
    }
    this.client = client;
    // Changes made while reconnecting were not heard.
    if (attempt > 0) this.emit({ kind: 'all' });
    this.listening = true;
  }
}
