import { type ChildProcess, spawn } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { TestProject } from 'vitest/node';
import { postgresAvailable, startCluster, type Cluster } from './postgres-cluster.js';
import { isCi } from './required-input.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the throwaway cluster, or '' when Postgres binaries are missing (suites then skip with a notice). */
    postgresUrl: string;
    /** File holding migratedStoreTemplate(): the suites' embedded stores start from it (test/support/store.ts). */
    storeTemplateFile: string;
  }
}

let cluster: Cluster | undefined;
let runDir: string | undefined;
let templateBuilder: ChildProcess | undefined;

export async function setup(project: TestProject): Promise<void> {
  // Everything the suite and the processes it spawns write to the temporary folder (stores, key files, tsx's
  // transform cache, the PostgreSQL cluster) lands in one folder of this run, removed at the end.
  runDir = mkdtempSync(path.join(tmpdir(), 'switchyard-test-run-'));
  chmodSync(runDir, 0o755); // the PostgreSQL cluster runs as the postgres user when the suite runs as root
  process.env.TMPDIR = runDir;
  // PGlite's initdb and the migrations once, instead of in every embedded store of the run: built in a
  // process of its own while the cluster starts and the first suites run (those needing a store wait for it).
  const templateFile = path.join(runDir, 'store-template.tar');
  templateBuilder = spawn(process.execPath, ['--import', 'tsx', fileURLToPath(new URL('./build-store-template.ts', import.meta.url)), templateFile], {
    stdio: ['ignore', 'inherit', 'inherit'],
  });
  project.provide('storeTemplateFile', templateFile);
  await startPostgres(project);
}

async function startPostgres(project: TestProject): Promise<void> {
  if (!postgresAvailable()) {
    if (isCi()) throw new Error('PostgreSQL server binaries are required in CI (set PG_BIN or install postgresql-15).');
    console.warn('\n[switchyard] PostgreSQL binaries not found: the PostgreSQL runs of the service suites are SKIPPED.\n');
    project.provide('postgresUrl', '');
    return;
  }
  cluster = await startCluster();
  project.provide('postgresUrl', cluster.url);
}

export async function teardown(): Promise<void> {
  if (templateBuilder !== undefined && templateBuilder.exitCode === null && templateBuilder.signalCode === null) templateBuilder.kill();
  cluster?.stop();
  if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
}
