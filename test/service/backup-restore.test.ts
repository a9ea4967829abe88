/**
 * The README's cold backup of the embedded store, done as an operator does it: stop the service
 * (SIGTERM), `cp -a` the data folder, lose the original, put the copy in a new place and start the
 * service there. The organization, its API client and the connector come back, and the connector's
 * stored credentials still decrypt (the copy carries master.key with the store): an execute reaches
 * the Harvest stand-in with the same token and account. The same for PostgreSQL: pg_dump -Fc while the
 * service runs, pg_restore --no-owner into an empty database, start on it with the same master key.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { PG_BIN } from '../support/postgres-cluster.js';
import { startHarvestStandIn, type HarvestStandIn } from '../support/harvest-stand-in.js';
import { runCli, spawnService, type SpawnedService } from '../support/spawn-service.js';
import { seedDataDir } from '../support/store.js';

const HARVEST_PAT = 'backup-restore-pat-0001';
const HARVEST_ACCOUNT = '424242';

function cpA(from: string, to: string): void {
  const copy = spawnSync('cp', ['-a', from, to], { encoding: 'utf8', timeout: 60_000 });
  if (copy.status !== 0) throw new Error(`cp -a ${from} ${to} failed: ${copy.stderr}`);
}

async function token(url: string, client: { client_id: string; client_secret: string }): Promise<string> {
  const response = await fetch(`${url}/api/v1/account/applications/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_id: client.client_id, client_secret: client.client_secret }),
  });
  expect(response.status, await response.clone().text()).toBe(200);
  return ((await response.json()) as { access_token: string }).access_token;
}

describe('cold backup and restore of the embedded store (README)', { timeout: 240_000 }, () => {
  let root: string;
  let harvest: HarvestStandIn;
  let service: SpawnedService | undefined;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'switchyard-backup-'));
    harvest = await startHarvestStandIn();
  });
  afterAll(async () => {
    await service?.stop();
    await harvest.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('restores the organization, its client and the connector with credentials that still decrypt', async () => {
    const data = path.join(root, 'data');
    await seedDataDir(data);
    const upstream = { UPSTREAM_BASE_URLS: JSON.stringify({ harvest: harvest.url }) };
    const org = runCli(['admin', 'create-org', '--name', 'Acme', '--json'], { DATA_DIR: data });
    expect(org.status, org.stderr).toBe(0);
    const { organization_id: organizationId } = JSON.parse(org.stdout) as { organization_id: string };
    const created = runCli(['admin', 'create-client', '--org', organizationId, '--name', 'backup', '--json'], { DATA_DIR: data });
    expect(created.status, created.stderr).toBe(0);
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };

    service = await spawnService({ DATA_DIR: data, ...upstream }, 90_000);
    const before = await token(service.url, client);
    const connectorAnswer = await fetch(`${service.url}/api/v1/integrations/connectors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${before}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'Harvest',
        credentials: { api_token: HARVEST_PAT, account_id: HARVEST_ACCOUNT },
      }),
    });
    expect(connectorAnswer.status, await connectorAnswer.clone().text()).toBe(200);
    const { id: connectorId } = (await connectorAnswer.json()) as { id: string };

    // Backup: stop (SIGTERM, wait for the exit), copy the whole folder; then the original is lost.
    expect(await service.stop()).toBe(0);
    service = undefined;
    cpA(data, path.join(root, 'data.bak'));
    rmSync(data, { recursive: true, force: true });

    // Restore into a new place and start there.
    const restored = path.join(root, 'restored');
    cpA(path.join(root, 'data.bak'), restored);
    service = await spawnService({ DATA_DIR: restored, ...upstream }, 90_000);
    expect(service.ready).toMatchObject({ store: 'pglite', location: path.join(restored, 'pglite'), masterKey: path.join(restored, 'master.key') });
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    const after = await token(service.url, client);
    const headers = { authorization: `Bearer ${after}`, 'content-type': 'application/json', 'x-organization-id': organizationId };
    const connector = await fetch(`${service.url}/api/v1/integrations/connectors/${connectorId}`, { headers });
    expect(connector.status).toBe(200);
    expect(await connector.json()).toMatchObject({ id: connectorId, name: 'Harvest' });

    harvest.requests.length = 0;
    const executed = await fetch(`${service.url}/api/v1/integrations/connectors/${connectorId}/execute`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ entity: 'users', action: 'list', params: { per_page: 2 } }),
    });
    const result = (await executed.json()) as { status: string; result: { id: number }[] };
    expect(executed.status, JSON.stringify(result)).toBe(200);
    expect(result.result.map((user) => user.id)).toEqual([3230547, 1782959]);
    expect(harvest.requests).toContainEqual({ method: 'GET', target: '/users?per_page=2', authorization: `Bearer ${HARVEST_PAT}`, accountId: HARVEST_ACCOUNT });
    expect(await service.stop()).toBe(0);
    service = undefined;
  });
});

const postgresUrl = inject('postgresUrl');

async function createDatabase(): Promise<string> {
  const name = `switchyard_backup_${randomUUID().replace(/-/g, '')}`;
  const admin = new pg.Client({ connectionString: postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(postgresUrl);
  url.pathname = `/${name}`;
  return url.toString();
}

function pgTool(tool: string, args: string[]): void {
  const run = spawnSync(path.join(PG_BIN, tool), args, { encoding: 'utf8', timeout: 120_000 });
  if (run.status !== 0) throw new Error(`${tool} ${args.join(' ')} failed: ${run.stderr}`);
}

describe.skipIf(!postgresUrl)('pg_dump and pg_restore of the PostgreSQL store (README)', { timeout: 240_000 }, () => {
  let root: string;
  let harvest: HarvestStandIn;
  let service: SpawnedService | undefined;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'switchyard-backup-pg-'));
    harvest = await startHarvestStandIn();
  });
  afterAll(async () => {
    await service?.stop();
    await harvest.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('restores into an empty database and finds the connector with credentials that still decrypt', async () => {
    const source = await createDatabase();
    const target = await createDatabase();
    const masterKey = randomBytes(32).toString('base64');
    const settings = { DATA_DIR: path.join(root, 'data'), SWITCHYARD_MASTER_KEY: masterKey, UPSTREAM_BASE_URLS: JSON.stringify({ harvest: harvest.url }) };
    const org = runCli(['admin', 'create-org', '--name', 'Acme', '--json'], { ...settings, DATABASE_URL: source });
    expect(org.status, org.stderr).toBe(0);
    const { organization_id: organizationId } = JSON.parse(org.stdout) as { organization_id: string };
    const created = runCli(['admin', 'create-client', '--org', organizationId, '--json'], { ...settings, DATABASE_URL: source });
    expect(created.status, created.stderr).toBe(0);
    const client = JSON.parse(created.stdout) as { client_id: string; client_secret: string };
    service = await spawnService({ ...settings, DATABASE_URL: source }, 90_000);
    const connectorAnswer = await fetch(`${service.url}/api/v1/integrations/connectors`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token(service.url, client)}`, 'content-type': 'application/json' },
      body: JSON.stringify({
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'Harvest',
        credentials: { api_token: HARVEST_PAT, account_id: HARVEST_ACCOUNT },
      }),
    });
    expect(connectorAnswer.status, await connectorAnswer.clone().text()).toBe(200);
    const { id: connectorId } = (await connectorAnswer.json()) as { id: string };

    // The dump is taken while the service runs; the restore goes into an empty database.
    const dump = path.join(root, 'switchyard.dump');
    pgTool('pg_dump', ['-Fc', '-f', dump, source]);
    expect(await service.stop()).toBe(0);
    service = undefined;
    pgTool('pg_restore', ['--no-owner', '-d', target, dump]);

    service = await spawnService({ ...settings, DATABASE_URL: target }, 90_000);
    expect((await fetch(`${service.url}/ready`)).status).toBe(200);
    harvest.requests.length = 0;
    const executed = await fetch(`${service.url}/api/v1/integrations/connectors/${connectorId}/execute`, {
      method: 'POST',
      headers: { authorization: `Bearer ${await token(service.url, client)}`, 'content-type': 'application/json' },
      body: JSON.stringify({ entity: 'users', action: 'list', params: { per_page: 2 } }),
    });
    const result = (await executed.json()) as { result: { id: number }[] };
    expect(executed.status, JSON.stringify(result)).toBe(200);
    expect(result.result.map((user) => user.id)).toEqual([3230547, 1782959]);
    expect(harvest.requests).toContainEqual({ method: 'GET', target: '/users?per_page=2', authorization: `Bearer ${HARVEST_PAT}`, accountId: HARVEST_ACCOUNT });
    expect(await service.stop()).toBe(0);
    service = undefined;
  });
});
