import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';

/** One AES-256-GCM envelope; the key id travels beside the ciphertext so rotation can find the key. */
export interface SealedValue {
  keyId: string;
  iv: string;
  ciphertext: string;
  tag: string;
}

export class KeyringError extends Error {}

const KEY_BYTES = 32;

export function keyIdOf(key: Buffer): string {
  return createHash('sha256').update(key).digest('hex').slice(0, 16);
}

export function decodeKey(text: string, origin: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== KEY_BYTES) throw new KeyringError(`${origin} must hold a 32-byte key, base64 or hex encoded.`);
  return key;
}

export function generateKey(): Buffer {
  return randomBytes(KEY_BYTES);
}

/**
 * Holds the master key that encrypts stored credentials (and any previous keys still needed to
 * decrypt values sealed before a rotation). Values are bound to an id (the connector id) as
 * associated data, so a ciphertext copied to another row does not decrypt.
 */
export class Keyring {
  private readonly keys = new Map<string, Buffer>();

  constructor(
    private current: Buffer,
    previous: Buffer[] = [],
  ) {
    for (const key of [current, ...previous]) this.keys.set(keyIdOf(key), key);
  }

  get currentKeyId(): string {
    return keyIdOf(this.current);
  }

  /** Whether a value sealed with the key of this id can be opened. */
  holds(keyId: string): boolean {
    return this.keys.has(keyId);
  }

  /** A key derived for another purpose (e.g. signing tokens), so the master key itself is used only for encryption. */
  derive(purpose: string): Uint8Array {
    return new Uint8Array(createHash('sha256').update(this.current).update(`switchyard:${purpose}`).digest());
  }

  seal(plaintext: string, boundTo: string): SealedValue {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', this.current, iv);
    cipher.setAAD(Buffer.from(boundTo));
    const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    return { keyId: this.currentKeyId, iv: iv.toString('base64'), ciphertext: ciphertext.toString('base64'), tag: cipher.getAuthTag().toString('base64') };
  }

  open(value: SealedValue, boundTo: string): string {
    const key = this.keys.get(value.keyId);
    if (!key) throw new KeyringError(`No master key with id ${value.keyId} is loaded; stored credentials cannot be decrypted.`);
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(value.iv, 'base64'));
    decipher.setAAD(Buffer.from(boundTo));
    decipher.setAuthTag(Buffer.from(value.tag, 'base64'));
    try {
      return Buffer.concat([decipher.update(Buffer.from(value.ciphertext, 'base64')), decipher.final()]).toString('utf8');
    } catch {
      throw new KeyringError('Stored credentials failed their integrity check (wrong key or tampered data).');
    }
  }

  withCurrent(next: Buffer): Keyring {
    return new Keyring(next, [...this.keys.values()]);
  }
}

export function keyFilePath(dataDir: string): string {
  return path.join(dataDir, 'master.key');
}

/** A key written by rotate-key before re-encryption; promoted once the database commit is done. */
export function pendingKeyFilePath(dataDir: string): string {
  return path.join(dataDir, 'master.key.next');
}

export function writeKeyFile(file: string, key: Buffer): void {
  mkdirSync(path.dirname(file), { recursive: true });
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, `${key.toString('base64')}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
}

/**
 * The keyring for a service start: SWITCHYARD_MASTER_KEY when set, else the key file in the data
 * folder (created with mode 0600 on first start). A pending key from an interrupted rotation is
 * loaded too, so values sealed with it still decrypt.
 */
export function loadKeyring(options: { masterKey?: string; dataDir: string }): { keyring: Keyring; source: string } {
  const pendingFile = pendingKeyFilePath(options.dataDir);
  const pending = existsSync(pendingFile) ? [decodeKey(readFileSync(pendingFile, 'utf8'), pendingFile)] : [];
  if (options.masterKey !== undefined) {
    return { keyring: new Keyring(decodeKey(options.masterKey, 'SWITCHYARD_MASTER_KEY'), pending), source: 'SWITCHYARD_MASTER_KEY' };
  }
  const file = keyFilePath(options.dataDir);
  if (!existsSync(file)) {
    writeKeyFile(file, generateKey());
    return { keyring: new Keyring(decodeKey(readFileSync(file, 'utf8'), file), pending), source: `${file} (created)` };
  }
  return { keyring: new Keyring(decodeKey(readFileSync(file, 'utf8'), file), pending), source: file };
}
