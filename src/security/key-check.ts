/**
 * The store's key check: a known value sealed with the master key at the first start. Every later
 * start opens it, so a process given another key (a second host with a different SWITCHYARD_MASTER_KEY,
 * a lost master.key) is refused at start with one line, instead of answering 500 on every execute.
 */
import type { Kysely, Transaction } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import { KeyringError, type Keyring } from './keyring.js';

const PLAINTEXT = 'switchyard key check';
const BOUND_TO = 'key_check';

function row(keyring: Keyring) {
  const sealed = keyring.seal(PLAINTEXT, BOUND_TO);
  return { key_id: sealed.keyId, iv: sealed.iv, ciphertext: sealed.ciphertext, tag: sealed.tag };
}

/**
 * A store written before the key check (or whose check is missing) that already holds sealed credentials:
 * the check is sealed only with a key that opens them, so a wrong key given at that first start cannot
 * become the store's key and lock the right one out.
 */
async function refuseForeignSeals(db: Kysely<DatabaseSchema>, keyring: Keyring): Promise<void> {
  if ((await db.selectFrom('key_check').select('id').where('id', '=', 1).executeTakeFirst()) !== undefined) return;
  for (const table of ['connectors', 'oauth_apps'] as const) {
    const ids = await db.selectFrom(table).select('credentials_key_id').distinct().execute();
    const foreign = ids.map((row) => row.credentials_key_id).find((id) => !keyring.holds(id));
    if (foreign !== undefined) {
      throw new KeyringError(
        `The master key (id ${keyring.currentKeyId}) is not the key of this store's stored credentials (sealed with key id ${foreign}): give this store's key in SWITCHYARD_MASTER_KEY or DATA_DIR/master.key.`,
      );
    }
  }
}

/** Creates the check on a new store; on an existing one, refuses a keyring that cannot open it. */
export async function verifyKeyCheck(db: Kysely<DatabaseSchema>, keyring: Keyring): Promise<void> {
  await refuseForeignSeals(db, keyring);
  await db
    .insertInto('key_check')
    .values({ id: 1, ...row(keyring) })
    .onConflict((oc) => oc.column('id').doNothing())
    .execute();
  const stored = await db.selectFrom('key_check').selectAll().where('id', '=', 1).executeTakeFirstOrThrow();
  let opened: string;
  try {
    opened = keyring.open({ keyId: stored.key_id, iv: stored.iv, ciphertext: stored.ciphertext, tag: stored.tag }, BOUND_TO);
  } catch {
    opened = '';
  }
  if (opened !== PLAINTEXT) {
    throw new KeyringError(
      `The master key (id ${keyring.currentKeyId}) cannot decrypt this store's key check (sealed with key id ${stored.key_id}): give this store's key in SWITCHYARD_MASTER_KEY or DATA_DIR/master.key.`,
    );
  }
}

/** Re-seals the check with the keyring's current key, inside the rotation's transaction. */
export async function resealKeyCheck(trx: Transaction<DatabaseSchema>, keyring: Keyring): Promise<void> {
  await trx
    .insertInto('key_check')
    .values({ id: 1, ...row(keyring) })
    .onConflict((oc) => oc.column('id').doUpdateSet(row(keyring)))
    .execute();
}
