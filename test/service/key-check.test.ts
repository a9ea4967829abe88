import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openStore } from '../../src/db/database.js';
import { verifyKeyCheck } from '../../src/security/key-check.js';
import { Keyring, keyIdOf } from '../../src/security/keyring.js';
import { createOrganization } from '../../src/services/organizations.js';
import { insertConnector } from '../support/connector-rows.js';
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

  it('is sealed on a store that already holds credentials (written before the check) only with their key', async () => {
    const store = await openMemoryStore();
    try {
      const theirs = randomBytes(32);
      const { organization_id } = await createOrganization(store.db, 'Before the key check');
      await insertConnector({ store, keyring: new Keyring(theirs) }, organization_id, {
        connectorType: 'harvest',
        authOption: 'Personal Access Token',
        credentials: { api_token: 'pat', account_id: '1' },
      });
      const wrong = randomBytes(32);
      await expect(verifyKeyCheck(store.db, new Keyring(wrong))).rejects.toThrow(
        `The master key (id ${keyIdOf(wrong)}) is not the key of this store's stored credentials (sealed with key id ${keyIdOf(theirs)}): give this store's key in SWITCHYARD_MASTER_KEY or DATA_DIR/master.key.`,
      );
      // Nothing was sealed by the refused start: the right key still opens the store and seals the check.
      expect(await store.db.selectFrom('key_check').selectAll().execute()).toEqual([]);
      await verifyKeyCheck(store.db, new Keyring(theirs));
      await expect(verifyKeyCheck(store.db, new Keyring(wrong))).rejects.toThrow(/cannot decrypt this store's key check/);
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

    // Without the key file (lost in an upgrade): the start makes a key, is refused, and leaves no key file behind.
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);
    const lost = runServiceExpectingFailure({ DATA_DIR: dataDir });
    expect(lost.status).toBe(1);
    expect(lost.stderr.trim()).toMatch(/^The master key \(id [0-9a-f]+\) cannot decrypt this store's key check/);
    expect(existsSync(path.join(dataDir, 'master.key'))).toBe(false);
  });
});
