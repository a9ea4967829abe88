/**
 * Master key rotation (`switchyard admin rotate-key`): every stored credential is re-encrypted
 * under a new master key in one transaction, so the database never holds a mix that no key file
 * can open.
 *
 * Key file mode (no SWITCHYARD_MASTER_KEY): the new key is generated and written to
 * master.key.next (mode 0600, flushed to disk) BEFORE the database is touched; after the commit it
 * is renamed to master.key. A crash in between leaves both files, and the service loads both, so
 * every row still opens; the next rotate-key resumes with the pending key.
 *
 * Environment mode (SWITCHYARD_MASTER_KEY set): the new key comes from SWITCHYARD_NEW_MASTER_KEY and
 * the operator sets SWITCHYARD_MASTER_KEY to it before the next start.
 */
import { closeSync, existsSync, fsyncSync, openSync, readFileSync, renameSync, unlinkSync } from 'node:fs';
import path from 'node:path';
import { sql, type Kysely } from 'kysely';
import { announceChange } from '../db/changes.js';
import type { DatabaseSchema } from '../db/schema.js';
import { decodeKey, generateKey, keyFilePath, keyIdOf, loadKeyring, pendingKeyFilePath, writeKeyFile, type Keyring } from '../security/keyring.js';
import { resealKeyCheck } from '../security/key-check.js';
import { openCredentials, sealCredentials } from './credentials.js';

/** A rotation that cannot be done as asked; nothing was changed. */
export class KeyRotationError extends Error {}

export interface RotationResult {
  /** Connectors whose credentials were re-encrypted. */
  rotated: number;
  /** Id of the new master key (a digest prefix, not key material). */
  key_id: string;
  previous_key_id: string;
  mode: 'file' | 'env';
  /** Key file mode: an interrupted rotation's pending key was used as the new key. */
  resumed: boolean;
}

/** Tables holding values sealed in credentials_* columns bound to the row id, and what a row is called in errors. */
const SEALED_TABLES = [
  { table: 'connectors', label: 'connector' },
  { table: 'oauth_apps', label: 'OAuth app' },
  { table: 'oauth_sessions', label: 'pending OAuth consent' },
] as const;

/**
 * Re-encrypts every sealed value (connectors' credentials, organizations' OAuth app secrets, pending
 * consents): opened with `from`, sealed with `to` (its current key), in ONE transaction that also blocks
 * concurrent writes to those tables. A row that does not open aborts the whole rotation. Returns how
 * many connectors were re-encrypted.
 */
export async function reencryptCredentials(db: Kysely<DatabaseSchema>, from: Keyring, to: Keyring): Promise<number> {
  return db.transaction().execute(async (trx) => {
    let connectors = 0;
    for (const { table, label } of SEALED_TABLES) {
      await sql`LOCK TABLE ${sql.table(table)} IN SHARE ROW EXCLUSIVE MODE`.execute(trx);
      const rows = await trx
        .selectFrom(table)
        .select(['id', 'credentials_key_id', 'credentials_iv', 'credentials_ciphertext', 'credentials_tag'])
        .orderBy('id')
        .execute();
      for (const row of rows) {
        let credentials: Record<string, string>;
        try {
          credentials = openCredentials(from, row.id, row);
        } catch (error) {
          const reason = error instanceof Error ? error.message : String(error);
          throw new KeyRotationError(`The sealed values of ${label} ${row.id} (key id ${row.credentials_key_id}) do not open: ${reason} Nothing was changed.`);
        }
        await trx
          .updateTable(table)
          .set(sealCredentials(to, row.id, credentials))
          .where('id', '=', row.id)
          .execute();
      }
      if (table === 'connectors') connectors = rows.length;
    }
    await announceChange(trx, { kind: 'all' });
    await resealKeyCheck(trx, to);
    return connectors;
  });
}

function flush(file: string): void {
  const fd = openSync(file, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

/** Best effort: makes a rename durable (not every platform lets a folder be fsynced). */
function flushFolder(folder: string): void {
  try {
    flush(folder);
  } catch {
    // Not supported here.
  }
}

/**
 * Rotates the master key of a store. `masterKey` / `newMasterKey` are SWITCHYARD_MASTER_KEY /
 * SWITCHYARD_NEW_MASTER_KEY; without `masterKey` the key file in `dataDir` is rotated. The caller
 * must hold the store exclusively (the embedded store's lock does this; with PostgreSQL, stop the
 * service first).
 */
export async function rotateMasterKey(options: {
  db: Kysely<DatabaseSchema>;
  dataDir: string;
  masterKey?: string;
  newMasterKey?: string;
}): Promise<RotationResult> {
  if (options.masterKey !== undefined) {
    const { keyring: current } = loadKeyring({ masterKey: options.masterKey, dataDir: options.dataDir });
    if (options.newMasterKey === undefined) {
      throw new KeyRotationError(
        'The master key comes from SWITCHYARD_MASTER_KEY, so rotate-key cannot store a new one itself: put the new key (32 random bytes, base64 or hex, e.g. `openssl rand -base64 32`) in SWITCHYARD_NEW_MASTER_KEY and run rotate-key again. Nothing was changed.',
      );
    }
    const next = decodeKey(options.newMasterKey, 'SWITCHYARD_NEW_MASTER_KEY');
    if (keyIdOf(next) === current.currentKeyId)
      throw new KeyRotationError('SWITCHYARD_NEW_MASTER_KEY holds the current master key; give a new one. Nothing was changed.');
    const rotated = await reencryptCredentials(options.db, current, current.withCurrent(next));
    return { rotated, key_id: keyIdOf(next), previous_key_id: current.currentKeyId, mode: 'env', resumed: false };
  }

  if (options.newMasterKey !== undefined) {
    throw new KeyRotationError(
      'SWITCHYARD_NEW_MASTER_KEY is only used when the master key comes from SWITCHYARD_MASTER_KEY; with the key file, rotate-key generates the new key itself. Unset it and run rotate-key again. Nothing was changed.',
    );
  }
  const { keyring: current } = loadKeyring({ dataDir: options.dataDir });
  const keyFile = keyFilePath(options.dataDir);
  const pendingFile = pendingKeyFilePath(options.dataDir);
  const resumed = existsSync(pendingFile);
  let next: Buffer;
  if (resumed) {
    next = decodeKey(readFileSync(pendingFile, 'utf8'), pendingFile);
  } else {
    next = generateKey();
    writeKeyFile(pendingFile, next);
  }
  flush(pendingFile);
  flushFolder(path.dirname(pendingFile));
  const previousKeyId = keyIdOf(decodeKey(readFileSync(keyFile, 'utf8'), keyFile));
  let rotated: number;
  try {
    rotated = await reencryptCredentials(options.db, current, current.withCurrent(next));
  } catch (error) {
    // Nothing was committed: the pending key we just wrote is unused.
    if (!resumed) unlinkSync(pendingFile);
    throw error;
  }
  renameSync(pendingFile, keyFile);
  flushFolder(path.dirname(keyFile));
  return { rotated, key_id: keyIdOf(next), previous_key_id: previousKeyId, mode: 'file', resumed };
}

export interface KeyRotationState {
  /** Id of the key new credentials are sealed with. */
  key_id: string;
  /** Id of master.key.next when an interrupted rotation left it (key file mode), else null. */
  pending_key_id: string | null;
  /** Stored credentials per key id; after a completed rotation every connector is under key_id. */
  connectors_by_key: Array<{ key_id: string; connectors: number }>;
  /** True when no stored credential needs another key than key_id. */
  rotated: boolean;
}

/** What the admin API reports about master key rotation (ids only, never key material). */
export async function keyRotationState(db: Kysely<DatabaseSchema>, keyring: Keyring, dataDir: string): Promise<KeyRotationState> {
  const rows = await db
    .selectFrom('connectors')
    .select(['credentials_key_id', (eb) => eb.fn.countAll<string>().as('connectors')])
    .groupBy('credentials_key_id')
    .orderBy('credentials_key_id')
    .execute();
  const pendingFile = pendingKeyFilePath(dataDir);
  const pending = existsSync(pendingFile) ? keyIdOf(decodeKey(readFileSync(pendingFile, 'utf8'), pendingFile)) : null;
  const byKey = rows.map((row) => ({ key_id: row.credentials_key_id, connectors: Number(row.connectors) }));
  return {
    key_id: keyring.currentKeyId,
    pending_key_id: pending,
    connectors_by_key: byKey,
    rotated: byKey.every((entry) => entry.key_id === keyring.currentKeyId),
  };
}
