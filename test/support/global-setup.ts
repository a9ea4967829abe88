import type { TestProject } from 'vitest/node';
import { postgresAvailable, startCluster, type Cluster } from './postgres-cluster.js';
import { isCi } from './required-input.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** URL of the throwaway cluster, or '' when Postgres binaries are missing (suites then skip with a notice). */
    postgresUrl: string;
  }
}

let cluster: Cluster | undefined;

export async function setup(project: TestProject): Promise<void> {
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
}
