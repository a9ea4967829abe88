/**
 * A store a later release migrated is refused by this one, naming the migrations it does not know, before it
 * writes anything; the refusal is the one line `npm start` prints.
 */
import { describe, expect, it } from 'vitest';
import { migrate, NewerSchemaError } from '../../src/db/migrate.js';
import { startupFailureMessage } from '../../src/startup-failure.js';
import { openMemoryStore } from '../support/store.js';

describe('a store migrated by a later release', () => {
  it('is refused with the versions this release does not know, and nothing is applied', async () => {
    const store = await openMemoryStore();
    try {
      await store.db.insertInto('schema_migrations').values({ version: 999, name: 'from a later release' }).execute();
      const error = (await migrate(store.db).catch((e: unknown) => e)) as NewerSchemaError;
      expect(error).toBeInstanceOf(NewerSchemaError);
      const expected =
        'This store was migrated by a later release of Switchyard (migration 999 from a later release, which this release does not know): ' +
        'run that release or a later one on it; an older release must not write to a store whose schema it does not know.';
      expect(error.message).toBe(expected);
      expect(startupFailureMessage(error, undefined)).toBe(expected);
      const versions = (await store.db.selectFrom('schema_migrations').select('version').execute()).map((row) => row.version);
      expect(versions).toContain(999);
    } finally {
      await store.close();
    }
  });
});
