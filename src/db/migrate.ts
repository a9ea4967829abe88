import { sql, type Kysely } from 'kysely';
import { migrations, type Migration } from './migrations.js';
import type { DatabaseSchema } from './schema.js';

/** Arbitrary constant: the advisory lock that serializes migrations across Switchyard processes. */
const MIGRATION_LOCK = 727_100_001;

/**
 * Applies pending migrations in one transaction, under an advisory lock, so several processes can start
 * at once. `list` defaults to every migration; a prefix of it builds a store as an older release left it.
 */
export async function migrate(db: Kysely<DatabaseSchema>, list: readonly Migration[] = migrations): Promise<number[]> {
  return db.transaction().execute(async (trx) => {
    await sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK})`.execute(trx);
    await sql`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`.execute(trx);
    const applied = new Set((await trx.selectFrom('schema_migrations').select('version').execute()).map((r) => r.version));
    const done: number[] = [];
    for (const migration of list) {
      if (applied.has(migration.version)) continue;
      await sql.raw(migration.sql).execute(trx);
      await trx.insertInto('schema_migrations').values({ version: migration.version, name: migration.name }).execute();
      done.push(migration.version);
    }
    return done;
  });
}
