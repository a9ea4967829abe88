import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeClient } from '../../src/services/organizations.js';
import { ApiClient, createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

// Scoped tokens: short-lived, limited to the connectors of one workspace (created on first use).

const CONNECTORS = '/api/v1/integrations/connectors';
const SCOPED = '/api/v1/account/applications/scoped-token';

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string }>;
}

const linear = (workspace: string, name: string) => ({
  workspace_name: workspace,
  connector_type: 'linear',
  name,
  credentials: { api_key: 'lin_api_scoped_0001' },
});

describe('scoped tokens', () => {
  let service: TestService;
  let tenant: Tenant;
  let scoped: ApiClient;
  let ownId: string;
  let otherId: string;

  /** A fresh scoped token for customer-42 (they live 4 s here, so each test takes its own). */
  async function scopedClient(): Promise<ApiClient> {
    const client = new ApiClient(service.url);
    client.token = (await tenant.api.post<{ token: string }>(SCOPED, { workspace_name: 'customer-42' })).body.token;
    return client;
  }

  beforeAll(async () => {
    service = await startTestService('pglite', { scopedTokenTtlSeconds: 4 });
    tenant = await createTenant(service);
    otherId = (await tenant.api.post<{ id: string }>(`${CONNECTORS}?check=false`, linear('default', 'Other workspace'))).body.id;
  });
  afterAll(async () => {
    await service.close();
  });

  it('is issued for a workspace by name, creating it on first use, and ignores region_id', async () => {
    const issued = await tenant.api.post<{ token: string; expires_in: number; workspace_id: string }>(SCOPED, {
      workspace_name: 'customer-42',
      region_id: null,
    });
    expect(issued.status).toBe(200);
    expect(issued.body).toEqual({ token: expect.any(String), expires_in: 4, workspace_id: expect.stringMatching(/^[0-9a-f-]{36}$/) });
    const workspaces = await tenant.api.get<{ data: Array<{ id: string; name: string }> }>('/api/v1/workspaces?name_contains=customer-42');
    expect(workspaces.body.data.map((w) => [w.id, w.name])).toEqual([[issued.body.workspace_id, 'customer-42']]);
    const again = await tenant.api.post<{ workspace_id: string }>(SCOPED, { workspace_name: 'customer-42', region_id: '645a183f-b12b-4c6e-8ad3-99e165603450' });
    expect(again.body.workspace_id).toBe(issued.body.workspace_id);
    scoped = new ApiClient(service.url);
    scoped.token = issued.body.token;

    const info = await scoped.get<Record<string, unknown>>(`${SCOPED}/info`);
    expect(info.status).toBe(200);
    expect(info.body).toMatchObject({
      organization_id: tenant.organizationId,
      workspace_id: issued.body.workspace_id,
      workspace_name: 'customer-42',
      expires_at: expect.any(String),
    });
    expect(info.body.allowed_operations).toEqual(expect.arrayContaining([`POST ${CONNECTORS}`, `POST ${CONNECTORS}/{id}/execute`, 'GET /api/v1/skills']));
    expect(info.body.allowed_operations).not.toContain('GET /api/v1/workspaces');
    const unscoped = await tenant.api.get<ErrorBody>(`${SCOPED}/info`);
    expect(unscoped.status).toBe(400);
    expect(unscoped.body.errors[0]?.error_code).toBe('scoped_token_required');
  });

  it("reaches its own workspace's connectors only", async () => {
    scoped = await scopedClient();
    const created = await scoped.post<{ id: string; workspace_name: string }>(`${CONNECTORS}?check=false`, linear('customer-42', 'Own'));
    expect(created.status).toBe(200);
    ownId = created.body.id;
    const elsewhere = await scoped.post<ErrorBody>(`${CONNECTORS}?check=false`, linear('default', 'Not mine'));
    expect(elsewhere.status).toBe(403);
    expect(elsewhere.body.errors[0]).toMatchObject({ field: 'workspace_name', error_code: 'scoped_token_workspace' });

    const listed = await scoped.get<{ data: Array<{ id: string }> }>(CONNECTORS);
    expect(listed.body.data.map((c) => c.id)).toEqual([ownId]);
    expect((await scoped.get<{ data: unknown[] }>(`${CONNECTORS}?workspace_name=default`)).body.data).toEqual([]);
    expect((await scoped.get(`${CONNECTORS}/${ownId}`)).status).toBe(200);
    expect((await scoped.get(`${CONNECTORS}/${ownId}/inspect`)).status).toBe(200);

    for (const [method, path, body] of [
      ['GET', `${CONNECTORS}/${otherId}`, undefined],
      ['PUT', `${CONNECTORS}/${otherId}`, { name: 'hijacked' }],
      ['DELETE', `${CONNECTORS}/${otherId}`, undefined],
      ['POST', `${CONNECTORS}/${otherId}/execute`, { entity: 'teams', action: 'list' }],
      ['GET', `${CONNECTORS}/${otherId}/inspect`, undefined],
      ['POST', `${CONNECTORS}/${otherId}/check`, {}],
    ] as const) {
      const response = await scoped.request<ErrorBody>(method, path, body === undefined ? {} : { body });
      expect(response.status, `${method} ${path}`).toBe(404);
      expect(response.body.errors[0]?.error_code).toBe('not_found');
    }
    expect((await tenant.api.get<{ name: string }>(`${CONNECTORS}/${otherId}`)).body.name).toBe('Other workspace');
  });

  it('cannot mint tokens or see workspaces', async () => {
    scoped = await scopedClient();
    for (const [method, path, body] of [
      ['POST', SCOPED, { workspace_name: 'default' }],
      ['GET', '/api/v1/workspaces', undefined],
      ['GET', '/api/v1/workspaces/stats', undefined],
    ] as const) {
      const response = await scoped.request<ErrorBody>(method, path, body === undefined ? {} : { body });
      expect(response.status, `${method} ${path}`).toBe(403);
      expect(response.body.message).toMatch(/A scoped token reaches only the connectors of its workspace/);
    }
    expect((await scoped.get('/api/v1/integrations/definitions/sources')).status).toBe(200);
  });

  it('is not minted, nor a widget token, with a token whose client was revoked since it was issued', async () => {
    const other = await createTenant(service, 'Revoked Org');
    expect((await other.api.post(SCOPED, { workspace_name: 'w' })).status).toBe(200);
    await revokeClient(service.store.db, other.clientId);
    for (const [path, body] of [
      [SCOPED, { workspace_name: 'w' }],
      ['/api/v1/account/applications/widget-token', { workspace_name: 'w', allowed_origin: 'https://app.example.com' }],
    ] as const) {
      const refused = await other.api.post<ErrorBody>(path, body);
      expect(refused.status, path).toBe(401);
      expect(refused.body.message).toBe('The API client of this token was revoked or removed from its organization: it can mint no other token.');
    }
  });

  it('expires', async () => {
    scoped = await scopedClient();
    expect((await scoped.get(`${CONNECTORS}/${ownId}`)).status).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 5_000));
    const expired = await scoped.get<ErrorBody>(`${CONNECTORS}/${ownId}`);
    expect(expired.status).toBe(401);
    expect(expired.body.message).toMatch(/expired/);
  });
});
