import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { migratedStoreTemplate } from '../../src/db/database.js';
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

export async function setup(project: TestProject): Promise<void> {
  // Everything the suite and the processes it spawns write to the temporary folder (stores, key files, tsx's
  // transform cache, the PostgreSQL cluster) lands in one folder of this run, removed at the end.
  runDir = mkdtempSync(path.join(tmpdir(), 'switchyard-test-run-'));
  chmodSync(runDir, 0o755); // the PostgreSQL cluster runs as the postgres user when the suite runs as root
  process.env.TMPDIR = runDir;
  // Built while the cluster starts: PGlite's initdb and the migrations once, instead of in every embedded store of the run.
  const [, templateFile] = await Promise.all([startPostgres(project), buildStoreTemplate(path.join(runDir, 'store-template.tar'))]);
  project.provide('storeTemplateFile', templateFile);
}

async function buildStoreTemplate(file: string): Promise<string> {
  writeFileSync(file, new Uint8Array(await (await migratedStoreTemplate()).arrayBuffer()));
  return file;
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
  cluster?.stop();
  if (runDir !== undefined) rmSync(runDir, { recursive: true, force: true });
}
