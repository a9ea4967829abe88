import { sql, type Kysely } from 'kysely';
import { migrations, type Migration } from './migrations.js';
import type { DatabaseSchema } from './schema.js';

/** Arbitrary constant: the advisory lock that serializes migrations across Switchyard processes. */
const MIGRATION_LOCK = 727_100_001;

/** A PostgreSQL server without an extension the store needs: the start-up reports it in one line. */
export class MissingExtensionError extends Error {
  override name = 'MissingExtensionError';
}

/** A store whose schema a later release migrated: this release must not write to it. */
export class NewerSchemaError extends Error {
  override name = 'NewerSchemaError';
}

/**
 * The extensions pending migrations create must be installable: otherwise one line that says what to
 * install, instead of PostgreSQL's "could not open extension control file" from the middle of a migration.
 */
async function assertExtensionsAvailable(db: Kysely<DatabaseSchema>, pending: readonly Migration[]): Promise<void> {
  const needed = [
    ...new Set(pending.flatMap((migration) => [...migration.sql.matchAll(/CREATE EXTENSION IF NOT EXISTS (\w+)/g)].map((match) => match[1] as string))),
  ];
  if (needed.length === 0) return;
  const { rows } = await sql<{ name: string }>`SELECT name FROM pg_available_extensions WHERE name = ANY(${needed})`.execute(db);
  const missing = needed.filter((name) => !rows.some((row) => row.name === name));
  if (missing.length > 0) {
    throw new MissingExtensionError(
      `The PostgreSQL server lacks the ${missing.join(', ')} extension that the context store needs (fuzzy search uses pg_trgm): ` +
        `install PostgreSQL's contrib modules on the server (e.g. the postgresql15-contrib package), or have an administrator run CREATE EXTENSION ${missing[0]} in this database.`,
    );
  }
}

/** What migrate reports as it goes (the service prints each as a line at start; a migration may take minutes). */
export type MigrationProgress =
  | { event: 'waiting' }
  | { event: 'applying'; version: number; name: string; upgrade: boolean }
  | { event: 'applied'; version: number; name: string; ms: number; upgrade: boolean };

/**
 * Applies pending migrations in one transaction, under an advisory lock, so several processes can start
 * at once. `list` defaults to every migration; a prefix of it builds a store as an older release left it.
 */
export async function migrate(
  db: Kysely<DatabaseSchema>,
  list: readonly Migration[] = migrations,
  progress: (step: MigrationProgress) => void = () => undefined,
): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    const { rows: locked } = await sql<{ locked: boolean }>`SELECT pg_try_advisory_xact_lock(${MIGRATION_LOCK}) AS locked`.execute(trx);
    if (locked[0]?.locked !== true) {
      progress({ event: 'waiting' });
      await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    }
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`.execute(
      trx,
    );
    const rows = await trx.selectFrom('schema_migrations').select(['version', 'name']).orderBy('version').execute();
    const known = new Set(migrations.map((migration) => migration.version));
    const unknown = rows.filter((row) => !known.has(row.version));
    if (unknown.length > 0) {
      throw new NewerSchemaError(
        `This store was migrated by a later release of Switchyard (migration ${unknown.map((row) => `${row.version} ${row.name}`).join(', ')}, which this release does not know): ` +
          'run that release or a later one on it; an older release must not write to a store whose schema it does not know.',
      );
    }
    const applied = new Set(rows.map((r) => r.version));
    const pending = list.filter((migration) => !applied.has(migration.version));
    await assertExtensionsAvailable(trx, pending);
    const done: number[] = [];
    // An upgrade of a store in use (some migrations applied before), as opposed to a new store being created.
    const upgrade = applied.size > 0;
    for (const migration of pending) {
      const started = Date.now();
      progress({ event: 'applying', version: migration.version, name: migration.name, upgrade });
      await sql.raw(migration.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ version: migration.version, name: migration.name }).execute();
      progress({ event: 'applied', version: migration.version, name: migration.name, ms: Date.now() - started, upgrade });
      done.push(migration.version);
    }
    return done;
  });
}
