/**
 * A PostgreSQL database created with the C character type changes the case of ASCII letters only, so the
 * case-insensitive filters and sorts of the context store differ there: the service says so once at start,
 * with what to do, and says nothing on a UTF-8 character type or the embedded store.
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { describe, expect, inject, it } from 'vitest';
import { composeService } from '../../src/composition.js';
import { openStore, type Store } from '../../src/db/database.js';
import { Keyring } from '../../src/security/keyring.js';
import { testConfig } from '../support/config.js';
import { freshPostgresDatabase } from '../support/service.js';
import { openMemoryStore } from '../support/store.js';

type Warning = { object: Record<string, unknown>; message: string };

/** Starts the service's parts over the store as npm start does; the warnings they log. */
async function startupWarnings(store: Store): Promise<Warning[]> {
  const warnings: Warning[] = [];
  const log = {
    level: 'info',
    info: () => undefined,
    error: () => undefined,
    debug: () => undefined,
    trace: () => undefined,
    fatal: () => undefined,
    silent: () => undefined,
    warn: (object: Record<string, unknown>, message: string) => void warnings.push({ object, message }),
    child: () => log,
  };
  const service = composeService({ store, keyring: new Keyring(randomBytes(32)), config: testConfig() }, { ownStore: true, log: log as never });
  try {
    await service.startBackground();
    return warnings.filter((warning) => warning.message.includes('LC_CTYPE'));
  } finally {
    await service.close();
  }
}

describe('the character type of the store', () => {
  it.skipIf(!inject('postgresUrl'))('tells the operator once at start when a PostgreSQL database folds ASCII letters only', { timeout: 60_000 }, async () => {
    const url = await freshPostgresDatabase({ ctype: 'C' });
    const database = new URL(url).pathname.slice(1);
    const store = await openStore({ databaseUrl: url });
    // What the operator is told about: 'É' keeps its case, and the accented letter breaks the word.
    const { rows } = await sql<{ lowered: string; matches: boolean }>`
      SELECT lower('ÉCOLE') AS lowered, 'Café crème' ~* '\\m(caf)\\M' AS matches`.execute(store.db);
    expect(rows[0]).toEqual({ lowered: 'École', matches: true });
    expect(await startupWarnings(store)).toEqual([
      {
        object: { store: 'postgres' },
        message:
          `The PostgreSQL database ${database} was created with the character type (LC_CTYPE) C, under which PostgreSQL changes the case of ` +
          "ASCII letters only: case-insensitive filters (contains, startswith, endswith, like, keyword, fuzzy) and sorts tell 'É' from 'é' and " +
          "take accented letters for word breaks. Create a database with a UTF-8 character type (CREATE DATABASE … TEMPLATE template0 ENCODING 'UTF8' " +
          "LC_CTYPE 'C.UTF-8'), move the data into it with pg_dump and pg_restore, and point DATABASE_URL at it.",
      },
    ]);
  });

  it.skipIf(!inject('postgresUrl'))('says nothing for a PostgreSQL database with a UTF-8 character type', { timeout: 60_000 }, async () => {
    const store = await openStore({ databaseUrl: await freshPostgresDatabase({ ctype: 'C.UTF-8' }) });
    const { rows } = await sql<{ lowered: string }>`SELECT lower('ÉCOLE') AS lowered`.execute(store.db);
    expect(rows[0]?.lowered).toBe('école');
    expect(await startupWarnings(store)).toEqual([]);
  });

  it('says nothing for the embedded store', { timeout: 60_000 }, async () => {
    expect(await startupWarnings(await openMemoryStore())).toEqual([]);
  });
});
