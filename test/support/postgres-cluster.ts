/**
 * A throwaway PostgreSQL 15 cluster on loopback, started from the server binaries on the machine
 * (initdb + pg_ctl), for the suites that run against real PostgreSQL. Stopped and removed afterwards.
 */
import { execFile, execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

export const PG_BIN = process.env.PG_BIN ?? '/usr/lib/postgresql/15/bin';

export interface Cluster {
  url: string;
  /** Stops the server (its data kept) and starts it again with these extra settings instead. */
  restart(settings?: Readonly<Record<string, string>>): Promise<void>;
  stop(): void;
}

export function postgresAvailable(): boolean {
  return existsSync(path.join(PG_BIN, 'initdb')) && existsSync(path.join(PG_BIN, 'pg_ctl'));
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

/** initdb refuses to run as root: run the binaries as the postgres system user when we are root. */
function asServerUser(command: string, args: string[]): string[] {
  if (process.getuid?.() !== 0) return [command, ...args];
  const user = spawnSync('id', ['-u', 'postgres']).status === 0 ? 'postgres' : 'nobody';
  return ['runuser', '-u', user, '--', command, ...args];
}

function run(command: string, args: string[]): void {
  const [bin, ...rest] = asServerUser(command, args);
  execFileSync(bin as string, rest, { stdio: 'pipe' });
}

/** Like run, without blocking: the global setup builds the store template meanwhile. */
async function runAside(command: string, args: string[]): Promise<void> {
  const [bin, ...rest] = asServerUser(command, args);
  await promisify(execFile)(bin as string, rest);
}

/**
 * The server's own durability settings, which every cluster here turns off for speed (nothing in it outlives
 * the run). A benchmark of writes starts its cluster with these, to measure what an operator's server does.
 */
export const DURABLE_SETTINGS: Readonly<Record<string, string>> = { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' };

function checkSettings(settings: Readonly<Record<string, string>>): void {
  for (const [name, value] of Object.entries(settings)) {
    if (!/^[a-z_]+$/.test(name) || !/^[A-Za-z0-9_.]+$/.test(value)) throw new Error(`postgres cluster: unsupported server setting ${name}=${value}`);
  }
}

/**
 * Starts the cluster. `settings` are extra server settings (`-c name=value`), e.g. a larger
 * shared_buffers for a benchmark; the test suites run with the defaults.
 */
export async function startCluster(settings: Readonly<Record<string, string>> = {}): Promise<Cluster> {
  checkSettings(settings);
  const dir = mkdtempSync(path.join(tmpdir(), 'switchyard-pg-'));
  chmodSync(dir, 0o777);
  if (process.getuid?.() === 0) {
    const uid = Number(execFileSync('id', ['-u', 'postgres']).toString().trim());
    const gid = Number(execFileSync('id', ['-g', 'postgres']).toString().trim());
    chownSync(dir, uid, gid);
  }
  const dataDir = path.join(dir, 'data');
  const port = await freePort();
  const options = (extra: Readonly<Record<string, string>>) =>
    `-p ${port} -c listen_addresses=127.0.0.1 -k ${dir} -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200` +
    Object.entries(extra)
      .map(([name, value]) => ` -c ${name}=${value}`)
      .join('');
  const log = path.join(dir, 'server.log');
  // A UTF-8 character type whatever the environment's locale: under LC_CTYPE C, PostgreSQL folds ASCII letters only
  // (src/db/text-folding.ts), and the suite's case-insensitive searches would differ from PGlite's.
  await runAside(path.join(PG_BIN, 'initdb'), ['-D', dataDir, '-U', 'postgres', '--auth=trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync']);
  await runAside(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-w', '-t', '60', '-l', log, '-o', options(settings), 'start']);
  return {
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart(extra = {}) {
      checkSettings(extra);
      await runAside(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'fast', '-w', 'stop']);
      await runAside(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-w', '-t', '60', '-l', log, '-o', options(extra), 'start']);
    },
    stop() {
      try {
        run(path.join(PG_BIN, 'pg_ctl'), ['-D', dataDir, '-m', 'immediate', '-w', 'stop']);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
