import { ConfigError, type ServiceConfig } from './config.js';
import { MissingExtensionError, NewerSchemaError } from './db/migrate.js';
import { StoreLockedError } from './db/store-lock.js';
import { KeyringError } from './security/keyring.js';
import { StoreUnreachableError } from './server.js';

/**
 * The one line `npm start` prints when the service cannot start (exit code 1), by what went wrong: a
 * setting, the store, the key, the address, the data folder; anything else as its first line.
 */
export function startupFailureMessage(error: unknown, config: ServiceConfig | undefined): string {
  if (error instanceof ConfigError) return `Configuration error: ${error.message}`;
  if (
    error instanceof StoreLockedError ||
    error instanceof KeyringError ||
    error instanceof StoreUnreachableError ||
    error instanceof MissingExtensionError ||
    error instanceof NewerSchemaError
  ) {
    return error.message;
  }
  const { code, syscall, path } = error instanceof Error ? (error as NodeJS.ErrnoException) : {};
  if (config !== undefined && (syscall === 'listen' || syscall === 'bind') && (code === 'EADDRINUSE' || code === 'EACCES' || code === 'EADDRNOTAVAIL')) {
    return `Cannot listen on ${config.host}:${config.port} (${code}): set HOST and PORT to a free address.`;
  }
  // A data folder the service's user cannot use (the master key, the operator token, the embedded store) names the file, not the port.
  const fileProblems: Record<string, string> = {
    EACCES: 'this user may not read or write it',
    EPERM: 'this user may not read or write it',
    EROFS: 'the file system is read-only',
    ENOSPC: 'the disk is full',
    // mkdir of DATA_DIR (or a folder in it) where a file is
    EEXIST: 'a file is where a folder must be',
    ENOTDIR: 'a file is where a folder must be',
  };
  if (config !== undefined && path !== undefined && code !== undefined && fileProblems[code] !== undefined) {
    const reason = fileProblems[code];
    return `Cannot use ${path} (${code}): ${reason}. Give the service's user a DATA_DIR it can read and write (now ${config.dataDir}).`;
  }
  const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
  return `Switchyard could not start: ${message}`;
}
