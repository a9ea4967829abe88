import { ConfigError, type ServiceConfig } from './config.js';
import { redactDatabaseUrl } from './db/database.js';
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
  const advice = code === undefined ? undefined : POSTGRES_ADVICE[code];
  if (config?.databaseUrl !== undefined && advice !== undefined) {
    return `PostgreSQL refused DATABASE_URL (${redactDatabaseUrl(config.databaseUrl)}): ${message}. ${advice}`;
  }
  return `Switchyard could not start: ${message}`;
}

/** What to change for the PostgreSQL errors a start meets, by SQLSTATE. */
const POSTGRES_ADVICE: Record<string, string> = {
  '28P01': 'Check the user name and password in DATABASE_URL.',
  '28000': "Check the user in DATABASE_URL and the server's pg_hba.conf.",
  '3D000': 'Create the database first (createdb), or name an existing one in DATABASE_URL.',
  '42501':
    'The user needs to own the database, or to have CREATE on it and on its schema public (the store creates its tables, the pgboss schema and the pg_trgm extension).',
};
