import type { Kysely, Transaction } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import type { Keyring } from '../security/keyring.js';

/** The stored form of a connector's credentials: the columns credentials_* of the connectors table. */
export interface SealedCredentialColumns {
  credentials_key_id: string;
  credentials_iv: string;
  credentials_ciphertext: string;
  credentials_tag: string;
}

/** Encrypts credentials for one connector; the ciphertext is bound to the connector id. */
export function sealCredentials(keyring: Keyring, connectorId: string, credentials: Record<string, string>): SealedCredentialColumns {
  const sealed = keyring.seal(JSON.stringify(credentials), connectorId);
  return {
    credentials_key_id: sealed.keyId,
    credentials_iv: sealed.iv,
    credentials_ciphertext: sealed.ciphertext,
    credentials_tag: sealed.tag,
  };
}

export function openCredentials(keyring: Keyring, connectorId: string, columns: SealedCredentialColumns): Record<string, string> {
  const plaintext = keyring.open(
    { keyId: columns.credentials_key_id, iv: columns.credentials_iv, ciphertext: columns.credentials_ciphertext, tag: columns.credentials_tag },
    connectorId,
  );
  return JSON.parse(plaintext) as Record<string, string>;
}

/** OAuth tokens to seal into a connector's stored credentials in place of the ones there. */
export interface OAuthTokens {
  refresh_token: string;
  access_token: string;
  /** Credential fields the token response filled (TokenRefresh.keptCredentials), stored with the access token. */
  keptCredentials?: Readonly<Record<string, string>>;
}

/**
 * Opens a connector's credentials under its row lock (SELECT ... FOR UPDATE) and hands them to `update`,
 * whose `seal` writes new OAuth tokens into the row in the same transaction (the lock is held until it
 * commits) and returns the row's new IV. Undefined when the connector does not exist.
 */
export async function updateLockedCredentials<T>(
  db: Kysely<DatabaseSchema>,
  keyring: Keyring,
  connectorId: string,
  update: (stored: Record<string, string>, seal: (tokens: OAuthTokens) => Promise<string>, trx: Transaction<DatabaseSchema>) => Promise<T>,
): Promise<T | undefined> {
  return db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('connectors')
      .select(['credentials_key_id', 'credentials_iv', 'credentials_ciphertext', 'credentials_tag'])
      .where('id', '=', connectorId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return undefined;
    const stored = openCredentials(keyring, connectorId, row);
    return update(
      stored,
      async (tokens) => {
        const sealed = sealCredentials(keyring, connectorId, {
          ...stored,
          ...tokens.keptCredentials,
          refresh_token: tokens.refresh_token,
          access_token: tokens.access_token,
        });
        await trx.updateTable('connectors').set(sealed).where('id', '=', connectorId).execute();
        return sealed.credentials_iv;
      },
      trx,
    );
  });
}
