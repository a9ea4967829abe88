import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/db/database.js';
import { verifyKeyCheck } from '../../src/security/key-check.js';
import { Keyring, keyIdOf } from '../../src/security/keyring.js';
import { runServiceExpectingFailure } from '../support/spawn-service.js';
import { openMemoryStore } from '../support/store.js';
import { seedDataDir } from '../support/store.js';

describe('the master key check', { timeout: 300_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-keycheck-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('is sealed on the first start and opens only with that key (or a keyring that still holds it)', async () => {
    const store = await openMemoryStore();
    try {
      const first = randomBytes(32);
      await verifyKeyCheck(store.db, new Keyring(first));
      await verifyKeyCheck(store.db, new Keyring(first));
      await verifyKeyCheck(store.db, new Keyring(randomBytes(32), [first]));
      const other = randomBytes(32);
      await expect(verifyKeyCheck(store.db, new Keyring(other))).rejects.toThrow(
        `The master key (id ${keyIdOf(other)}) cannot decrypt this store's key check (sealed with key id ${keyIdOf(first)}): give this store's key in SWITCHYARD_MASTER_KEY or DATA_DIR/master.key.`,
      );
    } finally {
      await store.close();
    }
  });

  it('makes npm start refuse another master key in one line, exit code 1', async () => {
    const right = randomBytes(32);
    await seedDataDir(dataDir);
    const store = await openStore({ dataDir });
    await verifyKeyCheck(store.db, new Keyring(right));
    await store.close();
    const wrong = randomBytes(32);
    const result = runServiceExpectingFailure({ DATA_DIR: dataDir, SWITCHYARD_MASTER_KEY: wrong.toString('base64') });
    expect(result.status).toBe(1);
    expect(result.stderr.trim()).toBe(
      `The master key (id ${keyIdOf(wrong)}) cannot decrypt this store's key check (sealed with key id ${keyIdOf(right)}): give this store's key in SWITCHYARD_MASTER_KEY or DATA_DIR/master.key.`,
    );
  });
});
