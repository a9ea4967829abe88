/**
 * The suites' embedded stores start from one migrated template (test/support/store.ts) instead of PGlite's
 * initdb and every migration per store. A store opened from it must be what a fresh store is: every
 * migration recorded, empty, independent of the other stores of the template, and still migrated by
 * openStore (a template left behind by a new migration is brought up to date, not used as it is).
 */
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, PostgresDialect } from 'kysely';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations.js';
import { PGlitePool } from '../../src/db/pglite-pool.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { createOrganization } from '../../src/services/organizations.js';
import { openMemoryStore, seedDataDir, storeTemplate } from '../support/store.js';

async function appliedVersions(store: Store): Promise<number[]> {
  const rows = await store.db.selectFrom('schema_migrations').select('version').orderBy('version').execute();
  return rows.map((row) => row.version);
}

describe('the migrated store template of the suites', { timeout: 120_000 }, () => {
  it('opens as an empty store at the latest migration, with nothing left to migrate', async () => {
    const store = await openMemoryStore();
    try {
      expect(await appliedVersions(store)).toEqual(migrations.map((migration) => migration.version));
      expect(await migrate(store.db)).toEqual([]);
      expect(await store.db.selectFrom('organizations').select('id').execute()).toEqual([]);
    } finally {
      await store.close();
    }
  });

  it('gives each store its own database', async () => {
    const [a, b] = [await openMemoryStore(), await openMemoryStore()];
    try {
      await createOrganization(a.db, 'Only in a');
      expect(await a.db.selectFrom('organizations').select('name').execute()).toEqual([{ name: 'Only in a' }]);
      expect(await b.db.selectFrom('organizations').select('name').execute()).toEqual([]);
    } finally {
      await Promise.all([a.close(), b.close()]);
    }
  });

  it('is migrated by openStore like any store: an archive of an older store comes up to the latest migration', async () => {
    const pglite = await PGlite.create('memory://', { extensions: { vector, pg_trgm } });
    const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) });
    let older: Blob;
    try {
      await migrate(
        db,
        migrations.filter((migration) => migration.version <= 4),
      );
      older = await pglite.dumpDataDir('none');
    } finally {
      await db.destroy();
    }
    const store = await openStore({ dataDir: 'memory://', template: older });
    try {
      expect(await appliedVersions(store)).toEqual(migrations.map((migration) => migration.version));
    } finally {
      await store.close();
    }
  });

  it('seeds a data folder with a store that openStore opens at the latest migration, and not a folder that has one', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-template-'));
    try {
      await seedDataDir(dataDir);
      const store = await openStore({ dataDir });
      try {
        expect(store.location).toBe(path.join(dataDir, 'pglite'));
        expect(await appliedVersions(store)).toEqual(migrations.map((migration) => migration.version));
        expect(await migrate(store.db)).toEqual([]);
        await createOrganization(store.db, 'Kept');
      } finally {
        await store.close();
      }
      const again = await openStore({ dataDir });
      try {
        expect(await again.db.selectFrom('organizations').select('name').execute()).toEqual([{ name: 'Kept' }]);
      } finally {
        await again.close();
      }
      await expect(seedDataDir(dataDir)).rejects.toThrow(`${path.join(dataDir, 'pglite')} already exists: seed an empty data folder.`);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('applies only to a store in memory', async () => {
    const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-template-'));
    try {
      const message = 'A store template applies only to an embedded store in memory (dataDir memory://).';
      await expect(openStore({ dataDir, template: await storeTemplate() })).rejects.toThrow(message);
      await expect(openStore({ databaseUrl: 'postgres://127.0.0.1:1/none', template: await storeTemplate() })).rejects.toThrow(message);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
