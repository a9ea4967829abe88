import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { insertConnector } from '../support/connector-rows.js';
import { ApiClient, createTenant, startTestService, storeKinds, type TestService } from '../support/service.js';
import { runCli, spawnService, type SpawnedService } from '../support/spawn-service.js';
import { seedDataDir } from '../support/store.js';

const OPERATOR = 'operator-credential-0123456789abcdef';
const ADMIN = '/api/v1/admin';

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string }>;
}
interface Client {
  client_id: string;
  client_secret: string;
  name: string;
  organization_id: string;
  organization_ids: string[];
}

describe.each(storeKinds())('the admin API (%s)', (kind) => {
  let service: TestService;
  let admin: ApiClient;

  beforeAll(async () => {
    service = await startTestService(kind, { operatorToken: OPERATOR });
    admin = new ApiClient(service.url);
    admin.token = OPERATOR;
  });
  afterAll(async () => {
    await service.close();
  });

  it('provisions an organization and a client whose secret works at once, shown only in the creation answer', async () => {
    const org = await admin.post<{ organization_id: string; name: string; created_at: string }>(`${ADMIN}/organizations`, { name: '  Acme  ' });
    expect(org.status).toBe(201);
    expect(org.body).toEqual({ organization_id: expect.stringMatching(/^[0-9a-f-]{36}$/), name: 'Acme', created_at: expect.any(String) });
    const client = await admin.post<Client>(`${ADMIN}/clients`, { organization_ids: [org.body.organization_id], name: 'ci' });
    expect(client.status).toBe(201);
    // The secret's only answer stays out of every cache.
    expect([client.headers.get('cache-control'), client.headers.get('pragma')]).toEqual(['no-store', 'no-cache']);
    expect(client.body).toEqual({
      client_id: expect.any(String),
      client_secret: expect.stringMatching(/^sy_/),
      name: 'ci',
      organization_id: org.body.organization_id,
      organization_ids: [org.body.organization_id],
    });

    const app = new ApiClient(service.url);
    const token = await app.post<{ access_token: string; organization_id: string }>('/api/v1/account/applications/token', {
      client_id: client.body.client_id,
      client_secret: client.body.client_secret,
    });
    expect(token.status).toBe(200);
    expect(token.body.organization_id).toBe(org.body.organization_id);
    app.token = token.body.access_token;
    const workspaces = await app.get<{ data: Array<{ name: string }> }>('/api/v1/workspaces');
    expect(workspaces.status).toBe(200);
    expect(workspaces.body.data.map((w) => w.name)).toEqual(['default']);

    const organizations = await admin.get<{ data: Array<{ organization_id: string; name: string }> }>(`${ADMIN}/organizations`);
    expect(organizations.body.data).toContainEqual(expect.objectContaining({ organization_id: org.body.organization_id, name: 'Acme' }));
    const clients = await admin.get<{ data: Array<Record<string, unknown>> }>(`${ADMIN}/clients?organization_id=${org.body.organization_id}`);
    expect(clients.status).toBe(200);
    expect(clients.body.data).toEqual([
      { client_id: client.body.client_id, name: 'ci', organization_ids: [org.body.organization_id], created_at: expect.any(String) },
    ]);
    expect(JSON.stringify(clients.body)).not.toContain(client.body.client_secret);
  });

  it('revokes a client: its secret no longer gets a token; a second revoke is 404', async () => {
    const org = await admin.post<{ organization_id: string }>(`${ADMIN}/organizations`, { name: 'Doomed' });
    const client = await admin.post<Client>(`${ADMIN}/clients`, { organization_ids: [org.body.organization_id] });
    expect((await admin.delete(`${ADMIN}/clients/${client.body.client_id}`)).status).toBe(204);
    const refused = await new ApiClient(service.url).post<ErrorBody>('/api/v1/account/applications/token', {
      client_id: client.body.client_id,
      client_secret: client.body.client_secret,
    });
    expect(refused.status).toBe(401);
    const again = await admin.delete<ErrorBody>(`${ADMIN}/clients/${client.body.client_id}`);
    expect(again.status).toBe(404);
    expect(again.body.message).toBe(`No API client ${client.body.client_id}.`);
  });

  it('refuses bad input naming the field, and unknown organizations, creating nothing', async () => {
    const empty = await admin.post<ErrorBody>(`${ADMIN}/organizations`, { name: '   ' });
    expect(empty.status).toBe(422);
    expect(empty.body.errors[0]?.field).toBe('name');
    const unknown = await admin.post<ErrorBody>(`${ADMIN}/clients`, { organization_ids: ['00000000-0000-4000-8000-000000000000'] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toBe('No organization 00000000-0000-4000-8000-000000000000.');
    const malformed = await admin.post<ErrorBody>(`${ADMIN}/clients`, { organization_ids: ['nope'] });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors[0]?.field).toBe('organization_ids.0');
  });

  it('reports the key-rotation state: the current key and the credentials per key id', async () => {
    const tenant = await createTenant(service, 'Keys');
    await insertConnector(service, tenant.organizationId, {
      connectorType: 'harvest',
      authOption: 'Personal Access Token',
      credentials: { api_token: 'pat-0001', account_id: '1' },
    });
    const state = await admin.get<{
      key_id: string;
      pending_key_id: string | null;
      connectors_by_key: Array<{ key_id: string; connectors: number }>;
      rotated: boolean;
    }>(`${ADMIN}/key-rotation`);
    expect(state.status).toBe(200);
    expect(state.body.key_id).toBe(service.keyring.currentKeyId);
    expect(state.body.pending_key_id).toBeNull();
    expect(state.body.rotated).toBe(true);
    expect(state.body.connectors_by_key).toEqual([{ key_id: service.keyring.currentKeyId, connectors: expect.any(Number) }]);
  });

  it('takes only the operator credential: not an application token, not nothing; and the operator credential opens no application route', async () => {
    const tenant = await createTenant(service, 'Outsider');
    for (const token of [null, tenant.api.token ?? '', 'operator-credential-but-wrong-000']) {
      const response = await admin.get<ErrorBody>(`${ADMIN}/organizations`, { token });
      expect(response.status).toBe(401);
      expect(response.body.errors[0]?.error_code).toBe('operator_unauthorized');
    }
    expect((await admin.get('/api/v1/workspaces')).status).toBe(401);
  });
});

describe('npm start with the embedded store: provisioning while it runs', { timeout: 400_000 }, () => {
  let dataDir: string;
  let running: SpawnedService | undefined;

  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-admin-'));
    await seedDataDir(dataDir);
  });
  afterAll(async () => {
    await running?.stop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('creates the operator credential (mode 0600) on first start, prints it once, and the CLI provisions through the running service', async () => {
    running = await spawnService({ DATA_DIR: dataDir }, 150_000);
    const file = path.join(dataDir, 'operator.token');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const credential = readFileSync(file, 'utf8').trim();
    expect(credential).toMatch(/^syop_/);
    expect(running.stderr()).toContain(`Created the operator credential of the admin API (/api/v1/admin) in ${file} (mode 0600): ${credential}`);
    expect(JSON.stringify(running.logs)).not.toContain(credential);

    const port = new URL(running.url).port;
    const env = { DATA_DIR: dataDir, PORT: port };
    const org = runCli(['admin', 'create-org', '--name', 'Live', '--json'], env);
    expect(org.stderr.trim()).toBe(`The embedded store is in use by the running service: done through its admin API at http://127.0.0.1:${port}.`);
    expect(org.status).toBe(0);
    const { organization_id } = JSON.parse(org.stdout) as { organization_id: string };
    const client = runCli(['admin', 'create-client', '--org', organization_id, '--json'], env);
    expect(client.status).toBe(0);
    const created = JSON.parse(client.stdout) as { client_id: string; client_secret: string };
    const token = await new ApiClient(running.url).post('/api/v1/account/applications/token', {
      client_id: created.client_id,
      client_secret: created.client_secret,
    });
    expect(token.status).toBe(200);

    const stopped = await running.stop();
    expect(stopped).toBe(0);
    running = await spawnService({ DATA_DIR: dataDir }, 150_000);
    expect(running.stderr()).not.toContain('operator credential');
    const admin = new ApiClient(running.url);
    const list = await admin.get<{ data: Array<{ name: string }> }>(`${ADMIN}/organizations`, { token: credential });
    expect(list.body.data.map((o) => o.name)).toEqual(['Live']);
  });

  it('says in one line when the running service cannot be reached', () => {
    const result = runCli(['admin', 'create-org', '--name', 'Lost'], { DATA_DIR: dataDir, SWITCHYARD_URL: 'http://127.0.0.1:9' });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stderr).toContain("the running service's admin API at http://127.0.0.1:9 does not answer");
  });
});
