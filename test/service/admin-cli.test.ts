/**
 * `switchyard admin ...` run as a subprocess (node --import tsx src/cli.ts) against a data folder,
 * then the service started on that same folder: provisioning, the embedded store's lock between the
 * CLI and the service, and master key rotation followed by a real execute.
 *
 * The embedded store belongs to one process at a time: the CLI runs while the service is stopped,
 * and is refused (with the message naming the service's pid) while it runs.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { openStore } from '../../src/db/database.js';
import { startService, type RunningService } from '../../src/server.js';
import { decodeKey, Keyring, keyFilePath, keyIdOf, loadKeyring, pendingKeyFilePath } from '../../src/security/keyring.js';
import { verifySecret } from '../../src/security/secrets.js';
import { openCredentials, sealCredentials } from '../../src/services/credentials.js';
import { createOrganization } from '../../src/services/organizations.js';
import { connectorModules } from '../../runtime/index.js';
import { ApiClient } from '../support/service.js';
import { runCli, type CliResult } from '../support/spawn-service.js';
import { seedDataDir } from '../support/store.js';

const TOKEN = '/api/v1/account/applications/token';
const HARVEST_API = 'https://api.harvestapp.com';
const HARVEST_TOKEN = `harvest-admin-pat-${randomUUID()}`;
const HARVEST_ACCOUNT = '424242';
const users = [
  { id: 3230547, first_name: 'Jim', last_name: 'Allen', email: 'jimallen@example.com', is_active: true },
  { id: 1782959, first_name: 'Kim', last_name: 'Allen', email: 'kimallen@example.com', is_active: true },
];
const usersPage = {
  users,
  per_page: 2,
  total_pages: 1,
  total_entries: 2,
  next_page: null,
  previous_page: null,
  page: 1,
  links: { first: `${HARVEST_API}/v2/users?page=1&per_page=2`, next: null, previous: null, last: `${HARVEST_API}/v2/users?page=1&per_page=2` },
};

function json<T>(result: CliResult): T {
  expect(result.stderr).toBe('');
  expect(result.status).toBe(0);
  return JSON.parse(result.stdout) as T;
}

/** An expected failure: exit code 1, one clear message on stderr, no stack trace, nothing on stdout. */
function refused(result: CliResult): string {
  expect(result.status).toBe(1);
  expect(result.stdout).toBe('');
  expect(result.stderr).not.toMatch(/\n\s+at /);
  return result.stderr.trim();
}

async function startOn(dataDir: string): Promise<RunningService> {
  return startService(loadConfig({ DATA_DIR: dataDir, PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'silent' }), { quiet: true });
}

async function tokenFor(api: ApiClient, clientId: string, clientSecret: string, organizationId: string): Promise<string> {
  const response = await api.post<{ access_token: string; organization_id: string }>(
    TOKEN,
    { client_id: clientId, client_secret: clientSecret },
    { headers: { 'x-organization-id': organizationId } },
  );
  expect(response.status).toBe(200);
  expect(response.body.organization_id).toBe(organizationId);
  return response.body.access_token;
}

describe('switchyard admin (embedded store, key file)', { timeout: 120_000 }, () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: RunningService | undefined;
  let orgA: string;
  let orgB: string;
  let client: { organization_id: string; organization_ids: string[]; client_id: string; client_secret: string };
  let connectorId: string;
  let sealedBefore: { credentials_key_id: string; credentials_iv: string; credentials_ciphertext: string; credentials_tag: string };

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-admin-'));
    await seedDataDir(dataDir);
    env = { DATA_DIR: dataDir };
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
  });
  afterAll(async () => {
    await service?.close();
    nock.cleanAll();
    nock.enableNetConnect();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('create-org prints {organization_id, name} with --json, a readable line otherwise', () => {
    const a = json<{ organization_id: string; name: string }>(runCli(['admin', 'create-org', '--name', 'Acme', '--json'], env));
    expect(a).toEqual({ organization_id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme' });
    orgA = a.organization_id;
    const b = runCli(['admin', 'create-org', '--name', 'Beta Corp'], env);
    expect(b.status).toBe(0);
    const match = /^Created organization "Beta Corp": ([0-9a-f-]{36})\n$/.exec(b.stdout);
    expect(match).not.toBeNull();
    orgB = match?.[1] as string;
  });

  it('create-client in two organizations prints the secret once', () => {
    client = json(runCli(['admin', 'create-client', '--org', orgA, '--org', orgB, '--name', 'ci', '--json'], env));
    expect(client).toEqual({
      organization_id: orgA,
      organization_ids: [orgA, orgB],
      client_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      client_secret: expect.stringMatching(/^sy_[A-Za-z0-9_-]{43}$/),
    });
  });

  it('refuses bad input with exit code 1 and a clear message', () => {
    const unknown = randomUUID();
    expect(refused(runCli(['admin', 'create-client', '--org', orgA, '--org', unknown], env))).toBe(
      `No organization ${unknown} in this store. Create one with \`switchyard admin create-org --name NAME\`.`,
    );
    expect(refused(runCli(['admin', 'create-client', '--org', 'acme'], env))).toMatch(/^No organization acme in this store/);
    expect(refused(runCli(['admin', 'create-client'], env))).toBe(
      'Give the organization with --org ORG_ID (repeat --org for a client in several organizations).',
    );
    expect(refused(runCli(['admin', 'create-org', '--name', '  '], env))).toBe('--name must not be empty.');
    expect(refused(runCli(['admin', 'create-org'], env))).toBe("error: required option '--name <name>' not specified");
    expect(refused(runCli(['admin', 'create-org', '--name', 'X'], { ...env, DATABASE_URL: 'mysql://db' }))).toBe(
      'Configuration error: DATABASE_URL must be a postgres:// URL.',
    );
    expect(refused(runCli(['admin', 'rotate-key'], { ...env, SWITCHYARD_MASTER_KEY: 'not-a-key' }))).toBe(
      'SWITCHYARD_MASTER_KEY must hold a 32-byte key, base64 or hex encoded.',
    );
  });

  it('the service started on the data folder issues tokens to the client, for either organization', async () => {
    service = await startOn(dataDir);
    const api = new ApiClient(service.url);
    await tokenFor(api, client.client_id, client.client_secret, orgA);
    await tokenFor(api, client.client_id, client.client_secret, orgB);
    const ambiguous = await api.post(TOKEN, { client_id: client.client_id, client_secret: client.client_secret });
    expect(ambiguous.status).toBe(400);
    // Stored only as a slow hash.
    const stored = await service.store.db
      .selectFrom('api_clients')
      .select(['name', 'secret_hash'])
      .where('id', '=', client.client_id)
      .executeTakeFirstOrThrow();
    expect(stored.name).toBe('ci');
    expect(stored.secret_hash).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(stored.secret_hash).not.toContain(client.client_secret);
    expect(await verifySecret(client.client_secret, stored.secret_hash)).toBe(true);
  });

  it('the CLI is refused while the service holds the embedded store', () => {
    const message = refused(runCli(['admin', 'create-org', '--name', 'Gamma'], env));
    // The CLI now falls back to the running service's admin API; here nothing answers on it.
    expect(message).toMatch(
      /^The embedded store is in use, and the running service's admin API at \S+ does not answer \(.+\): set SWITCHYARD_URL to its address\.$/,
    );
    // Key rotation has no admin API: it names the lock.
    expect(refused(runCli(['admin', 'rotate-key'], env))).toBe(
      `The embedded store in ${path.join(dataDir, 'pglite')} is in use by process ${process.pid} (is \`npm start\` running?). Stop it, or use DATABASE_URL for a shared PostgreSQL.`,
    );
  });

  it('creates a harvest connector through the API and executes a list', async () => {
    if (!service) throw new Error('service not started');
    const api = new ApiClient(service.url);
    api.token = await tokenFor(api, client.client_id, client.client_secret, orgA);
    const created = await api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
      workspace_name: 'default',
      connector_type: 'harvest',
      name: 'Harvest (admin test)',
      credentials: { api_token: HARVEST_TOKEN, account_id: HARVEST_ACCOUNT },
    });
    expect(created.status).toBeLessThan(300);
    connectorId = created.body.id;
    sealedBefore = await service.store.db
      .selectFrom('connectors')
      .select(['credentials_key_id', 'credentials_iv', 'credentials_ciphertext', 'credentials_tag'])
      .where('id', '=', connectorId)
      .executeTakeFirstOrThrow();
    expect(sealedBefore.credentials_key_id).toBe(keyIdOf(decodeKey(readFileSync(keyFilePath(dataDir), 'utf8'), 'master.key')));
    await service.close();
    service = undefined;
  });

  it('rotate-key re-encrypts the connector under a new master key file', async () => {
    const keyFile = keyFilePath(dataDir);
    const oldKeyText = readFileSync(keyFile, 'utf8');
    const result = runCli(['admin', 'rotate-key', '--json'], env);
    const printed = json<{ rotated: number; key_id: string }>(result);
    const newKeyText = readFileSync(keyFile, 'utf8');
    const newKey = decodeKey(newKeyText, keyFile);
    expect(printed).toEqual({ rotated: 1, key_id: keyIdOf(newKey) });
    expect(newKeyText).not.toBe(oldKeyText);
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    expect(() => statSync(pendingKeyFilePath(dataDir))).toThrow();
    // No key material or credential in the output.
    for (const secret of [oldKeyText.trim(), newKeyText.trim(), HARVEST_TOKEN]) expect(result.stdout + result.stderr).not.toContain(secret);

    const readable = runCli(['admin', 'rotate-key'], env);
    expect(readable.status).toBe(0);
    expect(readable.stdout).toMatch(/^Re-encrypted the credentials of 1 connector under master key [0-9a-f]{16} \(was [0-9a-f]{16}\)\.\n$/);

    const store = await openStore({ dataDir });
    try {
      const row = await store.db
        .selectFrom('connectors')
        .select(['credentials_key_id', 'credentials_iv', 'credentials_ciphertext', 'credentials_tag'])
        .where('id', '=', connectorId)
        .executeTakeFirstOrThrow();
      const { keyring } = loadKeyring({ dataDir });
      expect(row.credentials_key_id).toBe(keyring.currentKeyId);
      expect(row.credentials_key_id).not.toBe(sealedBefore.credentials_key_id);
      expect(row.credentials_ciphertext).not.toBe(sealedBefore.credentials_ciphertext);
      expect(openCredentials(keyring, connectorId, row)).toMatchObject({ api_token: HARVEST_TOKEN, account_id: HARVEST_ACCOUNT });
      expect(() => openCredentials(new Keyring(decodeKey(oldKeyText, 'old key')), connectorId, row)).toThrow();
    } finally {
      await store.close();
    }
  });

  it('after the rotation the service started on the data folder still executes with the stored credentials', async () => {
    service = await startOn(dataDir);
    const api = new ApiClient(service.url);
    api.token = await tokenFor(api, client.client_id, client.client_secret, orgA);
    const scope = nock(HARVEST_API)
      .matchHeader('authorization', `Bearer ${HARVEST_TOKEN}`)
      .matchHeader('harvest-account-id', HARVEST_ACCOUNT)
      .get('/v2/users')
      .query({ per_page: '2' })
      .reply(200, usersPage);
    const response = await api.post<{ status: string; result: unknown; execution_metadata: { connector_instance_id: string } }>(
      `/api/v1/integrations/connectors/${connectorId}/execute`,
      { entity: 'users', action: 'list', params: { per_page: 2 } },
    );
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({ status: 'success', result: users, execution_metadata: { connector_instance_id: connectorId } });
    expect(scope.isDone()).toBe(true);
    expect(JSON.stringify(response.body)).not.toContain(HARVEST_TOKEN);
    await service.close();
    service = undefined;
  });
});

describe('switchyard admin rotate-key with SWITCHYARD_MASTER_KEY', { timeout: 120_000 }, () => {
  let dataDir: string;
  const current = randomBytes(32).toString('base64');
  const next = randomBytes(32).toString('base64');
  let connectorId: string;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-admin-env-'));
    await seedDataDir(dataDir);
    const store = await openStore({ dataDir });
    try {
      const { organization_id } = await createOrganization(store.db, 'Env');
      const workspace = await store.db.selectFrom('workspaces').select('id').where('organization_id', '=', organization_id).executeTakeFirstOrThrow();
      connectorId = randomUUID();
      await store.db
        .insertInto('connectors')
        .values({
          id: connectorId,
          organization_id,
          workspace_id: workspace.id,
          connector_type: 'harvest',
          definition_id: connectorModules.harvest?.definition.definitionId as string,
          name: 'env harvest',
          auth_option: 'Personal Access Token',
          config: '{}',
          replication_config: '{}',
          ...sealCredentials(new Keyring(decodeKey(current, 'current')), connectorId, { api_token: 'pat-env-secret', account_id: '7' }),
        })
        .execute();
    } finally {
      await store.close();
    }
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('without SWITCHYARD_NEW_MASTER_KEY: exit 1 explaining where the new key goes', () => {
    const message = refused(runCli(['admin', 'rotate-key'], { DATA_DIR: dataDir, SWITCHYARD_MASTER_KEY: current }));
    expect(message).toMatch(/^The master key comes from SWITCHYARD_MASTER_KEY, .* SWITCHYARD_NEW_MASTER_KEY .* Nothing was changed\.$/);
  });

  it('re-encrypts under SWITCHYARD_NEW_MASTER_KEY and says to set SWITCHYARD_MASTER_KEY, without printing either key', async () => {
    const result = runCli(['admin', 'rotate-key', '--json'], { DATA_DIR: dataDir, SWITCHYARD_MASTER_KEY: current, SWITCHYARD_NEW_MASTER_KEY: next });
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toEqual({ rotated: 1, key_id: keyIdOf(decodeKey(next, 'next')) });
    expect(result.stderr).toMatch(/Set SWITCHYARD_MASTER_KEY to the value of SWITCHYARD_NEW_MASTER_KEY before the next start/);
    for (const secret of [current, next, 'pat-env-secret']) expect(result.stdout + result.stderr).not.toContain(secret);
    expect(() => statSync(keyFilePath(dataDir))).toThrow();

    const store = await openStore({ dataDir });
    try {
      const row = await store.db.selectFrom('connectors').selectAll().where('id', '=', connectorId).executeTakeFirstOrThrow();
      expect(openCredentials(new Keyring(decodeKey(next, 'next')), connectorId, row)).toEqual({ api_token: 'pat-env-secret', account_id: '7' });
    } finally {
      await store.close();
    }
  });
});

describe('switchyard library commands through the same entry point', { timeout: 120_000 }, () => {
  it('lists the connector types', () => {
    const catalog = json<Array<{ connector_type: string }>>(runCli(['connectors', '--json'], {}));
    expect(catalog.map((c) => c.connector_type)).toEqual(expect.arrayContaining(['harvest', 'jira', 'linear']));
  });

  it('prints the admin commands in its help', () => {
    const help = runCli(['admin', '--help'], {});
    expect(help.status).toBe(0);
    for (const command of ['create-org', 'create-client', 'rotate-key']) expect(help.stdout).toContain(command);
  });
});
