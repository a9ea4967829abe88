import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ConfigError, loadConfig } from '../../src/config.js';
import { redactDatabaseUrl } from '../../src/db/database.js';
import { loadOperatorToken } from '../../src/security/operator-token.js';
import { startupFailureMessage } from '../../src/startup-failure.js';

function errno(message: string, fields: Partial<NodeJS.ErrnoException>): NodeJS.ErrnoException {
  return Object.assign(new Error(message), fields);
}

describe('the line npm start prints when it cannot start', () => {
  const config = loadConfig({ DATA_DIR: '/srv/switchyard', PORT: '8080', HOST: '127.0.0.1' });

  it('names the address only for errors of listening', () => {
    const listen = errno('listen EACCES: permission denied 127.0.0.1:80', { code: 'EACCES', syscall: 'listen' });
    expect(startupFailureMessage(listen, config)).toBe('Cannot listen on 127.0.0.1:8080 (EACCES): set HOST and PORT to a free address.');
    const inUse = errno('listen EADDRINUSE', { code: 'EADDRINUSE', syscall: 'listen' });
    expect(startupFailureMessage(inUse, config)).toMatch(/^Cannot listen on 127\.0\.0\.1:8080 \(EADDRINUSE\)/);
  });

  it('names the file of a data folder the service cannot use, not the port', () => {
    const key = errno("EACCES: permission denied, open '/srv/switchyard/master.key.tmp-1'", {
      code: 'EACCES',
      syscall: 'open',
      path: '/srv/switchyard/master.key.tmp-1',
    });
    expect(startupFailureMessage(key, config)).toBe(
      "Cannot use /srv/switchyard/master.key.tmp-1 (EACCES): this user may not read or write it. Give the service's user a DATA_DIR it can read and write (now /srv/switchyard).",
    );
    const file = errno("EEXIST: file already exists, mkdir '/srv/switchyard'", { code: 'EEXIST', syscall: 'mkdir', path: '/srv/switchyard' });
    expect(startupFailureMessage(file, config)).toMatch(/^Cannot use \/srv\/switchyard \(EEXIST\): a file is where a folder must be\./);
    const full = errno('ENOSPC', { code: 'ENOSPC', syscall: 'write', path: '/srv/switchyard/pglite' });
    expect(startupFailureMessage(full, config)).toMatch(/^Cannot use \/srv\/switchyard\/pglite \(ENOSPC\): the disk is full\./);
  });

  it('gives a setting error and anything else in one line', () => {
    expect(startupFailureMessage(new ConfigError('PORT must be an integer from 0 to 65535.'), undefined)).toBe(
      'Configuration error: PORT must be an integer from 0 to 65535.',
    );
    expect(startupFailureMessage(new Error('first line\nsecond line'), config)).toBe('Switchyard could not start: first line');
  });
});

describe('integer settings', () => {
  it('take decimal digits only', () => {
    expect(loadConfig({ PORT: '18080' }).port).toBe(18080);
    for (const raw of ['0x4A68', '1.9e4', ' 80', '80 ', '8080.5', '+80', 'abc', '70000', '-1']) {
      expect(() => loadConfig({ PORT: raw }), raw).toThrow('PORT must be an integer from 0 to 65535.');
    }
    expect(() => loadConfig({ TOKEN_TTL_SECONDS: '0x384' })).toThrow(/TOKEN_TTL_SECONDS must be an integer/);
  });
});

describe('DATABASE_URL', () => {
  it('refuses a URL whose password leaves @ or # unencoded, without repeating it, and takes the encoded one', () => {
    for (const url of [
      'postgres://sy:k9@Q#z7Lw2@127.0.0.1:55432/main_db',
      'postgres://sy:Xy7#kQ2@9z@db.internal/app',
      'postgres://sy:a@b@db/app',
      // A password starting with / or ?, or after digits read as a port: the authority ends early.
      'postgres://svc:/kQ2z7Lw2@db.example.com/app',
      'postgres://svc:5432/kQ2z7Lw2@db.example.com/app',
      'postgres://svc:?kQ2z7Lw2@db.example.com/app',
    ]) {
      const error = (() => {
        try {
          loadConfig({ DATABASE_URL: url });
        } catch (e) {
          return e as Error;
        }
        return undefined;
      })();
      expect(error, url).toBeInstanceOf(ConfigError);
      expect(error?.message).toMatch(
        /^DATABASE_URL (cannot be read as user, password, host and database|is not a valid URL): percent-encode the reserved characters/,
      );
      expect(error?.message).not.toContain('z7Lw2');
      expect(error?.message).not.toContain('kQ2');
    }
    expect(loadConfig({ DATABASE_URL: 'postgres://sy:k9%40Q%23z7Lw2@127.0.0.1:55432/main_db' }).databaseUrl).toBe(
      'postgres://sy:k9%40Q%23z7Lw2@127.0.0.1:55432/main_db',
    );
    expect(loadConfig({ DATABASE_URL: 'postgres:///app?host=/var/run/postgresql' }).databaseUrl).toBe('postgres:///app?host=/var/run/postgresql');
  });

  it('is logged without its password, and not at all when a # makes it ambiguous', () => {
    expect(redactDatabaseUrl('postgres://sy:s3cret@db:5432/app')).toBe('postgres://sy:***@db:5432/app');
    expect(redactDatabaseUrl('postgres://sy:k9@Q#z7Lw2@127.0.0.1:55432/main_db')).toBe('postgres://(URL not shown: it has a "#")');
  });
});

describe('PostgreSQL refusals at start', () => {
  it('name DATABASE_URL (without its password) and what to change', () => {
    const config = loadConfig({ DATABASE_URL: 'postgres://sy:s3cret@db.internal:5432/app' });
    const refusal = (code: string, message: string) => startupFailureMessage(Object.assign(new Error(message), { code }), config);
    expect(refusal('28P01', 'password authentication failed for user "sy"')).toBe(
      'PostgreSQL refused DATABASE_URL (postgres://sy:***@db.internal:5432/app): password authentication failed for user "sy". Check the user name and password in DATABASE_URL.',
    );
    expect(refusal('3D000', 'database "app" does not exist')).toMatch(
      /^PostgreSQL refused DATABASE_URL .*: database "app" does not exist\. Create the database first/,
    );
    expect(refusal('42501', 'permission denied for schema public')).toMatch(/The user needs to own the database, or to have CREATE on it/);
    expect(refusal('42501', 'x')).not.toContain('s3cret');
    // Without DATABASE_URL (the embedded store) the same codes are not PostgreSQL's advice.
    expect(startupFailureMessage(Object.assign(new Error('boom'), { code: '28P01' }), loadConfig({}))).toBe('Switchyard could not start: boom');
  });
});

describe('DATA_DIR/operator.token', () => {
  it('is refused at start when short or empty, as SWITCHYARD_OPERATOR_TOKEN is', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-operator-'));
    try {
      const file = path.join(dir, 'operator.token');
      for (const content of ['short\n', '', 'has a space in the middle of it, 40 chars\n']) {
        writeFileSync(file, content);
        expect(() => loadOperatorToken({ dataDir: dir }), JSON.stringify(content)).toThrow(
          new ConfigError(
            `${file} must hold an operator token of at least 24 characters without spaces: write one (e.g. \`openssl rand -hex 24\`), or delete the file to have a new one made at start.`,
          ),
        );
      }
      writeFileSync(file, `${'a'.repeat(24)}\n`);
      expect(loadOperatorToken({ dataDir: dir })).toEqual({ token: 'a'.repeat(24), source: file, created: false });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
