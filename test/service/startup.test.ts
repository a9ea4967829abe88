/**
 * `npm start` as an operator runs it: a child process over a data folder. It logs where it listens
 * and which store it uses, creates the master key file (0600) once and reuses it, holds the embedded
 * store's lock, and switches to PostgreSQL with DATABASE_URL.
 *
 * The "ready in under 3 seconds" figure is measured by `npm run bench` (bench/startup.ts): on a
 * shared 2-core runner the timing of one spawn is too noisy for a pass/fail test, so here the
 * second start's time is only reported.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { hostname, tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { openStore } from '../../src/db/database.js';
import { ABANDONED_AFTER_MS, StoreLockedError } from '../../src/db/store-lock.js';
import { runServiceExpectingFailure, spawnService, type SpawnedService } from '../support/spawn-service.js';
import { seedDataDir } from '../support/store.js';

describe('npm start with the embedded store', { timeout: 120_000 }, () => {
  let dataDir: string;
  let running: SpawnedService | undefined;
  beforeAll(() => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-start-'));
  });
  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('first start: creates the key file with mode 0600, logs the address and the PGlite store, answers', async () => {
    const service = await spawnService({ DATA_DIR: dataDir }, 90_000);
    running = service;
    expect(service.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(service.ready).toMatchObject({
      store: 'pglite',
      location: path.join(dataDir, 'pglite'),
      masterKey: `${path.join(dataDir, 'master.key')} (created)`,
    });
    expect(service.ready.msg).toBe(`Switchyard listening on ${service.url} with the embedded PGlite store in ${path.join(dataDir, 'pglite')}`);
    const keyFile = path.join(dataDir, 'master.key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(Buffer.from(readFileSync(keyFile, 'utf8').trim(), 'base64')).toHaveLength(32);
    const answer = await fetch(`${service.url}/api/v1/account/applications/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: randomUUID(), client_secret: 'nope' }),
    });
    expect(answer.status).toBe(401);
    // The key never reaches the log.
    const key = readFileSync(keyFile, 'utf8').trim();
    expect(JSON.stringify(service.logs) + service.stderr()).not.toContain(key);
  });

  it('a second process on the same data folder is refused with a clear message while the first runs', () => {
    const second = runServiceExpectingFailure({ DATA_DIR: dataDir });
    expect(second.status).toBe(1);
    expect(second.stderr.trim()).toBe(
      `The embedded store in ${path.join(dataDir, 'pglite')} is in use by process ${running?.child.pid} (is \`npm start\` running?). Stop it, or use DATABASE_URL for a shared PostgreSQL.`,
    );
  });

  it('stops on SIGTERM, saying so in its log, and releases the lock', async () => {
    expect(existsSync(path.join(dataDir, 'pglite', 'switchyard.lock'))).toBe(true);
    const logs = running?.logs ?? [];
    expect(await running?.stop()).toBe(0);
    running = undefined;
    expect(logs).toContainEqual(expect.objectContaining({ signal: 'SIGTERM', msg: expect.stringMatching(/^stopping: /) }));
    expect(existsSync(path.join(dataDir, 'pglite', 'switchyard.lock'))).toBe(false);
  });

  it('second start: reuses the key file and is ready again', async () => {
    const keyFile = path.join(dataDir, 'master.key');
    const key = readFileSync(keyFile, 'utf8');
    const service = await spawnService({ DATA_DIR: dataDir });
    running = service;
    expect(service.ready).toMatchObject({ store: 'pglite', masterKey: keyFile });
    expect(readFileSync(keyFile, 'utf8')).toBe(key);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    console.info(`[switchyard] second start answered in ${Math.round(service.answeredInMs)} ms (the figure to watch is \`npm run bench\`)`);
    expect(await service.stop()).toBe(0);
    running = undefined;
  });

  it('takes over the lock of a process that died', async () => {
    // A lock left by a crash: a pid that cannot exist now.
    writeFileSync(path.join(dataDir, 'pglite', 'switchyard.lock'), '2147483646\n');
    const service = await spawnService({ DATA_DIR: dataDir });
    running = service;
    expect(readFileSync(path.join(dataDir, 'pglite', 'switchyard.lock'), 'utf8').split('\n')[0]).toBe(String(service.child.pid));
    expect(await service.stop()).toBe(0);
    running = undefined;
  });

  it('uses SWITCHYARD_MASTER_KEY instead of the key file when it is set, and refuses a malformed one in one line', async () => {
    // A fresh data dir holding a key file but no store: the store's key check (written under the file key
    // in dataDir) would refuse a different master key at start, by design.
    const envDataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-start-envkey-'));
    try {
      const keyFile = path.join(envDataDir, 'master.key');
      const fileKey = readFileSync(path.join(dataDir, 'master.key'), 'utf8');
      writeFileSync(keyFile, fileKey, { mode: 0o600 });
      const envKey = randomBytes(32).toString('base64');
      const service = await spawnService({ DATA_DIR: envDataDir, SWITCHYARD_MASTER_KEY: envKey });
      running = service;
      expect(service.ready).toMatchObject({ store: 'pglite', masterKey: 'SWITCHYARD_MASTER_KEY' });
      expect(JSON.stringify(service.logs) + service.stderr()).not.toContain(envKey);
      expect(await service.stop()).toBe(0);
      running = undefined;
      expect(readFileSync(keyFile, 'utf8')).toBe(fileKey);

      const refused = runServiceExpectingFailure({ DATA_DIR: envDataDir, SWITCHYARD_MASTER_KEY: 'too-short' });
      expect(refused.status).toBe(1);
      expect(refused.stderr.trim()).toBe('SWITCHYARD_MASTER_KEY must hold a 32-byte key, base64 or hex encoded.');
      expect(existsSync(path.join(envDataDir, 'pglite', 'switchyard.lock'))).toBe(false);
    } finally {
      rmSync(envDataDir, { recursive: true, force: true });
    }
  });

  it('refuses a bad setting in one line', () => {
    const refused = runServiceExpectingFailure({ DATA_DIR: dataDir, PORT: 'eighty' });
    expect(refused.status).toBe(1);
    expect(refused.stderr.trim()).toBe('Configuration error: PORT must be an integer from 0 to 65535.');
  });
});

describe('the embedded store lock, in one process', { timeout: 120_000 }, () => {
  let dataDir: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-lock-'));
    await seedDataDir(dataDir);
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('refuses a second open of the same folder until the first closes; memory:// stores take no lock', async () => {
    const lockFile = path.join(dataDir, 'pglite', 'switchyard.lock');
    const first = await openStore({ dataDir });
    // The pid, and the system it means something on: the host name and the kernel's boot id.
    const [pid, system] = readFileSync(lockFile, 'utf8').split('\n');
    expect(pid).toBe(String(process.pid));
    expect(system).toMatch(new RegExp(`^${hostname().replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}( boot [0-9a-f-]+)?$`));
    const second = openStore({ dataDir });
    await expect(second).rejects.toBeInstanceOf(StoreLockedError);
    await expect(second).rejects.toThrow(
      `The embedded store in ${path.join(dataDir, 'pglite')} is in use by process ${process.pid} (is \`npm start\` running?).`,
    );
    await first.close();
    expect(existsSync(lockFile)).toBe(false);

    // Our own pid in a lock this process does not hold: left by an earlier life of the pid (a container restart).
    writeFileSync(lockFile, `${process.pid}\n`);
    const again = await openStore({ dataDir });
    await again.close();
    expect(existsSync(lockFile)).toBe(false);

    // A lock taken on another system (a container sharing the folder, where pids are its own) is never taken
    // over, even when its pid is ours or gone here: it names that system and the file to delete.
    for (const otherPid of [process.pid, 2147483646]) {
      writeFileSync(lockFile, `${otherPid}\nswitchyard-7f9c boot 00000000-0000-4000-8000-000000000000\n`);
      const refused = openStore({ dataDir });
      await expect(refused).rejects.toThrow(
        `The embedded store in ${path.join(dataDir, 'pglite')} is in use by process ${otherPid} on switchyard-7f9c (another machine or container sharing the folder). ` +
          `Stop it, or use DATABASE_URL for a shared PostgreSQL. If nothing runs there any more, its lock is taken over 15 minutes after its last refresh, or delete ${lockFile}.`,
      );
    }
    // Not refreshed for 15 minutes: its holder died there (a container killed and replaced), and it is taken over.
    writeFileSync(lockFile, '4242\nswitchyard-7f9c boot 00000000-0000-4000-8000-000000000000\n');
    const abandoned = new Date(Date.now() - ABANDONED_AFTER_MS - 1_000);
    utimesSync(lockFile, abandoned, abandoned);
    const takenOver = await openStore({ dataDir });
    expect(readFileSync(lockFile, 'utf8').split('\n')[0]).toBe(String(process.pid));
    await takenOver.close();
    // A lock of an earlier release (the pid alone) is read as this system's.
    writeFileSync(lockFile, '2147483646\n');
    await (await openStore({ dataDir })).close();
    expect(existsSync(lockFile)).toBe(false);

    const a = await openStore({ dataDir: 'memory://' });
    const b = await openStore({ dataDir: 'memory://' });
    await Promise.all([a.close(), b.close()]);
  });
});

const postgresUrl = inject('postgresUrl');

describe.skipIf(!postgresUrl)('npm start with DATABASE_URL', { timeout: 120_000 }, () => {
  let databaseUrl: string;
  let dataDir: string;
  beforeAll(async () => {
    const admin = new pg.Client({ connectionString: postgresUrl });
    const name = `switchyard_start_${randomUUID().replace(/-/g, '')}`;
    await admin.connect();
    await admin.query(`CREATE DATABASE ${name}`);
    await admin.end();
    const url = new URL(postgresUrl);
    url.pathname = `/${name}`;
    databaseUrl = url.toString();
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-start-pg-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('switches to PostgreSQL: migrates it, logs it, creates no embedded store', async () => {
    const service = await spawnService({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
    try {
      expect(service.ready).toMatchObject({ store: 'postgres' });
      expect(service.ready.msg).toMatch(/with the PostgreSQL store at postgres:\/\//);
      expect(existsSync(path.join(dataDir, 'pglite'))).toBe(false);
      const client = new pg.Client({ connectionString: databaseUrl });
      await client.connect();
      const tables = await client.query<{ table_name: string }>("SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'");
      await client.end();
      expect(tables.rows.map((row) => row.table_name)).toEqual(
        expect.arrayContaining(['organizations', 'api_clients', 'workspaces', 'connectors', 'schema_migrations']),
      );
      // The connection holding the service lock, ended as an outage ends it: a line of the JSON log says so.
      const killer = new pg.Client({ connectionString: databaseUrl });
      await killer.connect();
      const ended = await killer.query(`
        SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND classid = 0 AND objid = 727100002 AND objsubid = 1
          AND database = (SELECT oid FROM pg_database WHERE datname = current_database())`);
      await killer.end();
      expect(ended.rowCount).toBe(1);
      const deadline = Date.now() + 10_000;
      while (!service.logs.some((line) => line.msg === 'Lost the connection that holds the service lock; taking it again') && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(service.logs.find((line) => line.msg === 'Lost the connection that holds the service lock; taking it again')).toMatchObject({
        level: 40,
        reason: expect.stringContaining('terminating connection'),
      });
      expect(service.stderr()).not.toContain('Lost the connection');
      // Two services may share one PostgreSQL: no lock.
      const second = await spawnService({ DATA_DIR: dataDir, DATABASE_URL: databaseUrl });
      expect(second.ready).toMatchObject({ store: 'postgres' });
      expect(await second.stop()).toBe(0);
    } finally {
      expect(await service.stop()).toBe(0);
    }
  });
});
