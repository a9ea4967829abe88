/**
 * The execute hot path: connectors held in memory are dropped as soon as they change (in this process
 * at once; in another process sharing PostgreSQL through LISTEN/NOTIFY), and OAuth refreshes are one at
 * a time across processes sharing one PostgreSQL store. The vendor is a real HTTP server on 127.0.0.1
 * recording every request; the OAuth token endpoint is nock.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../../src/app.js';
import { composeService } from '../../src/composition.js';
import { openStore } from '../../src/db/database.js';
import { insertConnector, storedCredentials } from '../support/connector-rows.js';
import { ApiClient, createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const TOKEN_HOST = 'https://id.getharvest.com';
const USERS = { users: [{ id: 1, first_name: 'Ada' }], links: { next: null } };

interface Vendor {
  url: string;
  seen: IncomingHttpHeaders[];
  /** Access token the API accepts; undefined: any. */
  accepts?: string;
  close(): Promise<void>;
}

async function startVendor(): Promise<Vendor> {
  const vendor: Vendor = { url: '', seen: [], close: async () => undefined };
  const server: Server = createServer((request, response) => {
    request.resume();
    vendor.seen.push(request.headers);
    if (vendor.accepts !== undefined && request.headers.authorization !== `Bearer ${vendor.accepts}`) {
      response.writeHead(401, { 'content-type': 'application/json' }).end('{"error":"invalid_token"}');
      return;
    }
    response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(USERS));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  vendor.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  vendor.close = () => new Promise<void>((resolve) => server.close(() => resolve()));
  return vendor;
}

/** A second service process on the same database and master key (another replica). */
async function startReplica(service: TestService): Promise<{ url: string; close(): Promise<void> }> {
  const store = await openStore({ databaseUrl: service.databaseUrl as string });
  const replica = composeService({ store, keyring: service.keyring, config: service.config }, { ownStore: true });
  const app = buildApp(replica.ctx);
  replica.adopt(() => app.close());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  return { url, close: () => replica.close() };
}

const until = async (check: () => Promise<boolean>, what: string) => {
  for (let attempt = 0; attempt < 100; attempt++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out waiting for ${what}`);
};

for (const kind of storeKinds()) {
  describe(`execute hot path (${kind})`, () => {
    let vendor: Vendor;
    let service: TestService;
    let tenant: Tenant;
    const execute = (api: ApiClient, id: string) =>
      api.post<{ result: unknown; errors?: unknown }>(`/api/v1/integrations/connectors/${id}/execute`, { entity: 'users', action: 'list' });

    beforeAll(async () => {
      vendor = await startVendor();
      service = await startTestService(kind, { upstreamBaseUrls: { harvest: vendor.url } });
      tenant = await createTenant(service);
    });
    afterAll(async () => {
      await service.close();
      await vendor.close();
    });
    afterEach(() => {
      vendor.seen = [];
      vendor.accepts = undefined;
      nock.cleanAll();
    });

    const createHarvest = async (token: string, workspace = 'default') => {
      const created = await tenant.api.post<{ id: string; workspace_id: string }>('/api/v1/integrations/connectors?check=false', {
        workspace_name: workspace,
        connector_type: 'harvest',
        name: 'Harvest',
        credentials: { api_token: token, account_id: '42' },
        replication_config: { sync_interval_minutes: 0 },
      });
      expect(created.status).toBe(200);
      return created.body;
    };

    it('keeps the most recently used connectors when it holds CONNECTOR_CACHE_MAX_ENTRIES', async () => {
      const small = await startTestService(kind, { upstreamBaseUrls: { harvest: vendor.url }, connectorCacheMaxEntries: 2 });
      try {
        const owner = await createTenant(small);
        const ids: string[] = [];
        for (const token of ['lru-a', 'lru-b', 'lru-c']) {
          const created = await owner.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
            workspace_name: 'default',
            connector_type: 'harvest',
            name: token,
            credentials: { api_token: token, account_id: '42' },
            replication_config: { sync_interval_minutes: 0 },
          });
          ids.push(created.body.id);
        }
        const [a, b, c] = ids as [string, string, string];
        const cache = small.app.ctx.connectors;
        const heldA = (await cache.get(owner.organizationId, a)).connector;
        const heldB = (await cache.get(owner.organizationId, b)).connector;
        // A is used again, so B is the least recently used when C comes in.
        expect((await cache.get(owner.organizationId, a)).connector).toBe(heldA);
        await cache.get(owner.organizationId, c);
        expect((await cache.get(owner.organizationId, a)).connector).toBe(heldA);
        expect((await cache.get(owner.organizationId, b)).connector).not.toBe(heldB);
      } finally {
        await small.close();
      }
    });

    it('uses new credentials on the very next call after an update, and nothing after a delete', async () => {
      const { id } = await createHarvest('token-one');
      expect((await execute(tenant.api, id)).status).toBe(200);
      expect((await execute(tenant.api, id)).status).toBe(200);
      expect(vendor.seen.map((h) => h.authorization)).toEqual(['Bearer token-one', 'Bearer token-one']);

      const updated = await tenant.api.put(`/api/v1/integrations/connectors/${id}?check=false`, { credentials: { api_token: 'token-two', account_id: '43' } });
      expect(updated.status).toBe(200);
      expect((await execute(tenant.api, id)).status).toBe(200);
      expect(vendor.seen.slice(2).map((h) => [h.authorization, h['harvest-account-id']])).toEqual([['Bearer token-two', '43']]);

      expect((await tenant.api.delete(`/api/v1/integrations/connectors/${id}`)).status).toBeLessThan(300);
      expect((await execute(tenant.api, id)).status).toBe(404);
      expect(vendor.seen).toHaveLength(3);
    });

    it('refuses at once when the workspace becomes inactive, and serves again once it is active', async () => {
      const { id, workspace_id } = await createHarvest('token-ws', 'team-a');
      expect((await execute(tenant.api, id)).status).toBe(200);
      expect((await tenant.api.put(`/api/v1/workspaces/${workspace_id}`, { status: 'inactive' })).status).toBe(200);
      expect((await execute(tenant.api, id)).status).toBe(403);
      expect((await tenant.api.put(`/api/v1/workspaces/${workspace_id}`, { status: 'active' })).status).toBe(200);
      expect((await execute(tenant.api, id)).status).toBe(200);
      expect((await tenant.api.delete(`/api/v1/workspaces/${workspace_id}`)).status).toBe(200);
      expect((await execute(tenant.api, id)).status).toBe(404);
      expect(vendor.seen).toHaveLength(2);
    });

    it.runIf(kind === 'postgres')('drops what another process changed: an update made through one replica is used by the other', async () => {
      const replica = await startReplica(service);
      try {
        const other = new ApiClient(replica.url);
        other.token = tenant.api.token;
        const { id, workspace_id } = await createHarvest('token-a', 'team-b');
        expect((await execute(other, id)).status).toBe(200);
        expect((await tenant.api.put(`/api/v1/integrations/connectors/${id}`, { credentials: { api_token: 'token-b', account_id: '42' } })).status).toBe(200);
        vendor.seen = [];
        await until(async () => {
          await execute(other, id);
          return vendor.seen.at(-1)?.authorization === 'Bearer token-b';
        }, 'the replica to use the new credentials');
        expect((await tenant.api.put(`/api/v1/workspaces/${workspace_id}`, { status: 'inactive' })).status).toBe(200);
        await until(async () => (await execute(other, id)).status === 403, 'the replica to see the inactive workspace');
      } finally {
        await replica.close();
      }
    });

    it.runIf(kind === 'postgres')(
      'refreshes once across two processes: 50 concurrent calls, a vendor that revokes rotated refresh tokens, no failure',
      async () => {
        const replica = await startReplica(service);
        try {
          const other = new ApiClient(replica.url);
          other.token = tenant.api.token;
          let valid = 'refresh-0';
          const refreshes: string[] = [];
          vendor.accepts = 'no access token issued yet';
          nock(TOKEN_HOST)
            .post('/api/v2/oauth2/token')
            .reply((_uri, body) => {
              const form = new URLSearchParams(typeof body === 'string' ? body : '');
              refreshes.push(form.get('refresh_token') ?? '');
              if (form.get('refresh_token') !== valid) return [400, { error: 'invalid_grant', error_description: 'refresh token revoked' }];
              valid = `refresh-${refreshes.length}`;
              vendor.accepts = `access-${refreshes.length}`;
              return [200, { access_token: vendor.accepts, refresh_token: valid, expires_in: 3600, token_type: 'bearer' }];
            })
            .persist();
          const id = await insertConnector(service, tenant.organizationId, {
            connectorType: 'harvest',
            authOption: 'OAuth2.0',
            credentials: { client_id: 'client', client_secret: 'client-secret', refresh_token: 'refresh-0', account_id: '42' },
          });
          const calls = Array.from({ length: 50 }, (_, i) => execute(i % 2 === 0 ? tenant.api : other, id));
          const statuses = (await Promise.all(calls)).map((r) => r.status);
          expect(statuses.filter((s) => s !== 200)).toEqual([]);
          expect(refreshes).toEqual(['refresh-0']);
          expect(vendor.seen.filter((h) => h.authorization === 'Bearer access-1')).toHaveLength(50);
          expect((await storedCredentials(service, id)).credentials).toMatchObject({ refresh_token: 'refresh-1', access_token: 'access-1' });
        } finally {
          await replica.close();
        }
      },
      120_000,
    );
  });
}
