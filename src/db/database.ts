import { mkdirSync } from 'node:fs';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, PostgresDialect } from 'kysely';
import pg from 'pg';
import { StoreChanges } from './changes.js';
import { migrate, type MigrationProgress } from './migrate.js';
import { migrations } from './migrations.js';
import { PGlitePool } from './pglite-pool.js';
import { acquireStoreLock } from './store-lock.js';
import type { DatabaseSchema } from './schema.js';

export type StoreKind = 'pglite' | 'postgres';

export interface Store {
  db: Kysely<DatabaseSchema>;
  kind: StoreKind;
  /** Where the data lives, for the start-up log (a path, or the URL without its password). */
  location: string;
  /** Change announcements, so in-memory copies of rows are dropped when the rows change (src/db/changes.ts). */
  changes: StoreChanges;
  /** Connections of the pool right now (metrics). */
  poolState(): { total: number; idle: number; waiting: number };
  close(): Promise<void>;
}

export function redactDatabaseUrl(url: string): string {
  try {
    const parsed = new URL(url);
    // A fragment means a # the password did not percent-encode: what follows it may be the rest of the password.
    if (parsed.hash !== '') return 'postgres://(URL not shown: it has a "#")';
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return 'postgres://(unparseable URL)';
  }
}

/** The embedded database with the extensions the migrations create; `template` starts it from a dumpDataDir() archive. */
function createPGlite(location: string, template?: Blob): Promise<PGlite> {
  return PGlite.create(location, { extensions: { vector, pg_trgm }, ...(template !== undefined && { loadDataDir: template }) });
}

/**
 * An embedded store in memory migrated to the latest version, as a PGlite data folder archive: the
 * `template` of openStore. A suite that opens many stores builds it once instead of running PGlite's
 * initdb and every migration for each store.
 */
export async function migratedStoreTemplate(): Promise<Blob> {
  const pglite = await createPGlite('memory://');
  const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) });
  try {
    await migrate(db);
    return await pglite.dumpDataDir('none');
  } finally {
    await db.destroy();
  }
}

export interface StoreOptions {
  databaseUrl?: string;
  dataDir?: string;
  /**
   * With `dataDir` `memory://`: start from this archive of migratedStoreTemplate() instead of an empty
   * database. The migrations still run (nothing is pending in an up-to-date template).
   */
  template?: Blob;
  /** Told of each migration as it runs, and of a wait for another process's migrations. */
  onMigration?: (step: MigrationProgress) => void;
}

/** Opens PostgreSQL at `databaseUrl`, or the embedded PGlite store in `dataDir` (`memory://` for tests), and migrates it. */
export async function openStore(options: StoreOptions): Promise<Store> {
  if (options.template !== undefined && (options.databaseUrl || !(options.dataDir ?? 'memory://').startsWith('memory://'))) {
    throw new Error('A store template applies only to an embedded store in memory (dataDir memory://).');
  }
  let store: Store;
  if (options.databaseUrl) {
    // A bounded connect time, so requests during a PostgreSQL outage fail fast (503) instead of queueing.
    const pool = new pg.Pool({ connectionString: options.databaseUrl, max: 10, connectionTimeoutMillis: 5000 });
    // An idle connection that PostgreSQL drops (a restart, an outage) must not crash the process: the pool
    // discards it and the next query opens a new one (or fails, and the request answers 503).
    pool.on('error', () => undefined);
    // The pool stops listening for errors on a connection while it is checked out; a connection lost then
    // (mid-query) would emit an unheard 'error' and end the process. The query itself still rejects.
    pool.on('connect', (client) => {
      client.on('error', () => undefined);
    });
    const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
    let changes: StoreChanges;
    try {
      changes = await StoreChanges.shared(options.databaseUrl);
    } catch (error) {
      await db.destroy();
      throw error;
    }
    store = {
      db,
      kind: 'postgres',
      location: redactDatabaseUrl(options.databaseUrl),
      changes,
      poolState: () => ({ total: pool.totalCount, idle: pool.idleCount, waiting: pool.waitingCount }),
      close: () => changes.close().finally(() => db.destroy()),
    };
  } else {
    const dataDir = options.dataDir ?? 'memory://';
    let location = dataDir;
    if (!dataDir.startsWith('memory://')) {
      location = path.join(dataDir, 'pglite');
      mkdirSync(location, { recursive: true });
    }
    const lock = dataDir.startsWith('memory://') ? undefined : acquireStoreLock(location);
    let pglite: PGlite;
    try {
      pglite = await createPGlite(location, options.template);
      // The embedded store reads from memory or a local file: a random page costs about what a
      // sequential one does (PostgreSQL's default of 4 keeps PGlite reading in order what an index finds).
      await pglite.exec('SET random_page_cost = 1.1');
    } catch (error) {
      lock?.release();
      throw error;
    }
    const pool = new PGlitePool(pglite);
    const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool }) });
    store = {
      db,
      kind: 'pglite',
      location,
      changes: StoreChanges.local(),
      poolState: () => pool.state(),
      close: () => db.destroy().finally(() => lock?.release()),
    };
  }
  try {
    await migrate(store.db, migrations, options.onMigration);
  } catch (error) {
    await store.close();
    throw error;
  }
  return store;
}
