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
