import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ForbiddenError, ResourceNotFoundError } from '../../src/errors.js';
import { sealCredentials } from '../../src/services/credentials.js';
import { assertWorkspaceActive, ensureWorkspace, findWorkspace } from '../../src/services/workspaces.js';
import { ApiClient, createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const BASE = '/api/v1/workspaces';

interface Workspace {
  id: string;
  name: string;
  organization_id: string;
  status: 'active' | 'inactive';
  cache_enabled: boolean | null;
  tombstone: boolean;
  visibility: string;
  color: string | null;
  created_at: string;
  updated_at: string;
  connector_count?: number;
}
interface ListBody {
  next: string | null;
  data: Workspace[];
}
interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string; details?: Record<string, unknown> }>;
}

describe.each(storeKinds())('workspaces (%s)', (kind) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startTestService(kind);
  });
  afterAll(async () => service.close());

  const db = () => service.store.db;

  async function workspace(tenant: Tenant, name: string): Promise<string> {
    return (await ensureWorkspace(db(), tenant.organizationId, name)).id;
  }

  async function defaultId(tenant: Tenant): Promise<string> {
    return workspace(tenant, 'default');
  }

  /** A connector row written directly, with its credentials sealed as the service stores them. */
  async function insertConnector(tenant: Tenant, workspaceId: string, secret: string): Promise<string> {
    const id = randomUUID();
    await db()
      .insertInto('connectors')
      .values({
        id,
        organization_id: tenant.organizationId,
        workspace_id: workspaceId,
        connector_type: 'harvest',
        definition_id: randomUUID(),
        name: `connector ${id.slice(0, 8)}`,
        auth_option: 'Personal Access Token',
        config: '{}',
        replication_config: '{}',
        ...sealCredentials(service.keyring, id, { access_token: secret, account_id: '12345' }),
      })
      .execute();
    return id;
  }

  async function listAll(tenant: Tenant, query = ''): Promise<Workspace[]> {
    const response = await tenant.api.get<ListBody>(`${BASE}?limit=100${query}`);
    expect(response.status).toBe(200);
    return response.body.data;
  }

  it('gives every organization a live `default` workspace, in the reference shape', async () => {
    const tenant = await createTenant(service);
    const response = await tenant.api.get<ListBody>(BASE);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      next: null,
      data: [
        {
          id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          name: 'default',
          organization_id: tenant.organizationId,
          status: 'active',
          cache_enabled: null,
          tombstone: false,
          visibility: 'shared',
          color: null,
          created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
          updated_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T/),
        },
      ],
    });
  });

  it('filters by a case-insensitive substring of the name and by status', async () => {
    const tenant = await createTenant(service);
    const salesEu = await workspace(tenant, 'Sales EU');
    const salesUs = await workspace(tenant, 'sales-us');
    await workspace(tenant, 'Support');
    const underscore = await workspace(tenant, 'a_b');
    await workspace(tenant, 'axb');
    expect((await tenant.api.put(`${BASE}/${salesUs}`, { status: 'inactive' })).status).toBe(200);

    expect((await listAll(tenant, '&name_contains=SALES')).map((w) => w.id)).toEqual([salesEu, salesUs]);
    expect((await listAll(tenant, '&name_contains=s%20e')).map((w) => w.name)).toEqual(['Sales EU']);
    // % and _ are literal characters, not wildcards.
    expect((await listAll(tenant, '&name_contains=_')).map((w) => w.id)).toEqual([underscore]);
    expect(await listAll(tenant, '&name_contains=%25')).toEqual([]);
    expect((await listAll(tenant, '&status=inactive')).map((w) => w.id)).toEqual([salesUs]);
    expect((await listAll(tenant, '&status=active')).map((w) => w.name)).toEqual(['default', 'Sales EU', 'Support', 'a_b', 'axb']);
    expect((await listAll(tenant, '&status=active&name_contains=sales')).map((w) => w.id)).toEqual([salesEu]);
    expect(await listAll(tenant, '&name_contains=nothing-like-this')).toEqual([]);
  });

  it('validates limit (1..100, default 20), status and unknown query parameters', async () => {
    const tenant = await createTenant(service);
    for (let i = 0; i < 24; i += 1) await workspace(tenant, `bulk-${String(i).padStart(2, '0')}`);
    const firstPage = await tenant.api.get<ListBody>(BASE);
    expect(firstPage.status).toBe(200);
    expect(firstPage.body.data).toHaveLength(20);
    expect(firstPage.body.next).toEqual(expect.stringContaining('limit=20'));
    expect((await tenant.api.get<ListBody>(`${BASE}?limit=100`)).body.data).toHaveLength(25);
    expect((await tenant.api.get<ListBody>(`${BASE}?limit=1`)).body.data).toHaveLength(1);

    const tooMany = await tenant.api.get<ErrorBody>(`${BASE}?limit=101`);
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.message).toMatch(/limit/);
    expect(tooMany.body.message).toMatch(/100/);
    expect(tooMany.body.errors).toEqual([{ field: 'limit', message: 'query limit must be <= 100', error_code: 'maximum', details: { limit: 100 } }]);
    const zero = await tenant.api.get<ErrorBody>(`${BASE}?limit=0`);
    expect(zero.status).toBe(422);
    expect(zero.body.errors[0]).toMatchObject({ field: 'limit', error_code: 'minimum' });
    for (const bad of ['abc', '2.5', '']) {
      const typed = await tenant.api.get<ErrorBody>(`${BASE}?limit=${bad}`);
      expect(typed.status).toBe(422);
      expect(typed.body.errors[0]).toMatchObject({ field: 'limit', error_code: 'type' });
    }
    const status = await tenant.api.get<ErrorBody>(`${BASE}?status=paused`);
    expect(status.status).toBe(422);
    expect(status.body.errors).toEqual([
      { field: 'status', message: 'query status must be one of "active", "inactive"', error_code: 'enum', details: { limit: ['active', 'inactive'] } },
    ]);
    const unknown = await tenant.api.get<ErrorBody>(`${BASE}?page=2`);
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([{ field: 'page', message: 'query page is not a known parameter', error_code: 'unknown' }]);
  });

  it('pages with a stable cursor while workspaces are being created: nothing repeated, nothing already there skipped', async () => {
    const tenant = await createTenant(service);
    const before: string[] = [await defaultId(tenant)];
    for (let i = 1; i <= 9; i += 1) before.push(await workspace(tenant, `page-${i}`));

    const seen: Workspace[] = [];
    const created: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const query: string = cursor === null ? '' : `&cursor=${encodeURIComponent(cursor)}`;
      const response = await tenant.api.get<ListBody>(`${BASE}?limit=4${query}`);
      expect(response.status).toBe(200);
      expect(response.body.data.length).toBeLessThanOrEqual(4);
      seen.push(...response.body.data);
      // Each page: two new workspaces appear, and one already listed is renamed.
      created.push(await workspace(tenant, `late-${pages}-a`), await workspace(tenant, `late-${pages}-b`));
      if (pages === 0) expect((await tenant.api.put(`${BASE}/${before[1]}`, { name: 'page-1-renamed' })).status).toBe(200);
      const next = response.body.next;
      cursor = next === null ? null : new URL(next).searchParams.get('cursor');
      pages += 1;
      expect(pages).toBeLessThan(20);
    } while (cursor !== null);

    const ids = seen.map((w) => w.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of before) expect(ids).toContain(id);
    // Workspaces created while paging sort after every listed row, so they are reached too.
    for (const id of created.slice(0, -2)) expect(ids).toContain(id);
    const order = seen.map((w) => w.created_at);
    expect([...order].sort()).toEqual(order);
  });

  it('orders rows with the same created_at by id and pages through them exactly once', async () => {
    const tenant = await createTenant(service);
    const createdAt = '2020-01-01T00:00:00.123456Z';
    const ids = Array.from({ length: 5 }, () => randomUUID());
    await db()
      .insertInto('workspaces')
      .values(
        ids.map((id, index) => ({
          id,
          organization_id: tenant.organizationId,
          name: `same-${index}`,
          status: 'active' as const,
          created_at: createdAt,
          updated_at: createdAt,
        })),
      )
      .execute();
    const seen: string[] = [];
    let next: string | null = `${service.url}${BASE}?limit=2`;
    while (next !== null) {
      // Follow `next` as the URL it is.
      const response: { status: number; body: ListBody } = await tenant.api.get<ListBody>(next.slice(service.url.length));
      expect(response.status).toBe(200);
      seen.push(...response.body.data.map((w) => w.id));
      next = response.body.next;
      if (next !== null) expect(next.startsWith(`${service.url}${BASE}?`)).toBe(true);
    }
    expect(seen.slice(0, 5)).toEqual([...ids].sort());
    expect(seen).toHaveLength(6); // plus default, created now
  });

  it('accepts the whole `next` URL as the cursor, and keeps filters in it', async () => {
    const tenant = await createTenant(service);
    for (const name of ['keep-1', 'drop-1', 'keep-2', 'keep-3']) await workspace(tenant, name);
    const first = await tenant.api.get<ListBody>(`${BASE}?limit=1&name_contains=keep`);
    expect(first.body.data.map((w) => w.name)).toEqual(['keep-1']);
    const next = first.body.next as string;
    expect(new URL(next).searchParams.get('name_contains')).toBe('keep');
    const second = await tenant.api.get<ListBody>(`${BASE}?limit=1&name_contains=keep&cursor=${encodeURIComponent(next)}`);
    expect(second.status).toBe(200);
    expect(second.body.data.map((w) => w.name)).toEqual(['keep-2']);
    const followed = await tenant.api.get<ListBody>(next.slice(service.url.length));
    expect(followed.body).toEqual(second.body);
  });

  it('builds the next page link on PUBLIC_URL when it is set (behind a proxy)', async () => {
    const proxied = await startTestService(kind, { publicUrl: 'https://switchyard.example.com/base' });
    try {
      const tenant = await createTenant(proxied);
      for (const name of ['one', 'two']) await ensureWorkspace(proxied.store.db, tenant.organizationId, name);
      const first = await tenant.api.get<ListBody>(`${BASE}?limit=1`);
      expect(first.body.next).toMatch(/^https:\/\/switchyard\.example\.com\/base\/api\/v1\/workspaces\?limit=1&cursor=/);
    } finally {
      await proxied.close();
    }
  });

  it('rejects tampered, malformed and foreign cursors with 400 naming the cursor', async () => {
    const tenant = await createTenant(service);
    const other = await createTenant(service, 'Other');
    await workspace(tenant, 'one');
    await workspace(tenant, 'two');
    const first = await tenant.api.get<ListBody>(`${BASE}?limit=1`);
    const cursor = new URL(first.body.next as string).searchParams.get('cursor') as string;
    const [payload, mac] = cursor.split('.') as [string, string];
    const decoded = JSON.parse(Buffer.from(payload, 'base64url').toString()) as { t: string; i: string };
    const forgedPayload = Buffer.from(JSON.stringify({ ...decoded, t: '1999-01-01T00:00:00.000000Z' })).toString('base64url');
    const flipped = `${payload.slice(0, -1)}${payload.endsWith('A') ? 'B' : 'A'}.${mac}`;
    for (const bad of [`${forgedPayload}.${mac}`, flipped, `${payload}.${mac.slice(0, -2)}`, 'garbage', 'a.b.c', `${payload}.`, '%%%']) {
      const response = await tenant.api.get<ErrorBody>(`${BASE}?cursor=${encodeURIComponent(bad)}`);
      expect(response.status, bad).toBe(400);
      expect(response.body.message).toMatch(/^The cursor is not valid/);
      expect(response.body.errors).toEqual([{ field: 'cursor', message: response.body.message, error_code: 'invalid_cursor' }]);
    }
    const foreign = await other.api.get<ErrorBody>(`${BASE}?cursor=${encodeURIComponent(cursor)}`);
    expect(foreign.status).toBe(400);
    expect(foreign.body.errors[0]?.field).toBe('cursor');
    const noCursorUrl = await tenant.api.get<ErrorBody>(`${BASE}?cursor=${encodeURIComponent(`${service.url}${BASE}?limit=2`)}`);
    expect(noCursorUrl.status).toBe(400);
    const tooLong = await tenant.api.get<ErrorBody>(`${BASE}?cursor=${'x'.repeat(5000)}`);
    expect(tooLong.status).toBe(422);
    expect(tooLong.body.errors[0]).toMatchObject({ field: 'cursor', error_code: 'maxLength' });
    // The genuine cursor still works.
    expect((await tenant.api.get(`${BASE}?cursor=${encodeURIComponent(cursor)}`)).status).toBe(200);
  });

  it('counts live workspaces by status', async () => {
    const tenant = await createTenant(service);
    expect((await tenant.api.get(`${BASE}/stats`)).body).toEqual({ active_count: 1, inactive_count: 0, total_count: 1 });
    const a = await workspace(tenant, 'stats-a');
    await workspace(tenant, 'stats-b');
    const c = await workspace(tenant, 'stats-c');
    await tenant.api.put(`${BASE}/${a}`, { status: 'inactive' });
    await tenant.api.delete(`${BASE}/${c}`);
    const stats = await tenant.api.get(`${BASE}/stats`);
    expect(stats.status).toBe(200);
    expect(stats.body).toEqual({ active_count: 2, inactive_count: 1, total_count: 3 });
    expect((await tenant.api.get(`${BASE}/stats?x=1`)).status).toBe(200);
  });

  it('gets a workspace with its connector count, and never shows credentials', async () => {
    const tenant = await createTenant(service);
    const id = await workspace(tenant, 'with-connectors');
    const secret = `secret-${randomUUID()}`;
    await insertConnector(tenant, id, secret);
    await insertConnector(tenant, id, secret);
    await insertConnector(tenant, await defaultId(tenant), secret);
    const response = await tenant.api.get<Workspace>(`${BASE}/${id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      id,
      name: 'with-connectors',
      organization_id: tenant.organizationId,
      status: 'active',
      cache_enabled: null,
      tombstone: false,
      visibility: 'shared',
      color: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      connector_count: 2,
    });
    expect(JSON.stringify(response.body)).not.toContain(secret);
    expect((await tenant.api.get<Workspace>(`${BASE}/${await defaultId(tenant)}`)).body.connector_count).toBe(1);
    const missing = await tenant.api.get<ErrorBody>(`${BASE}/${randomUUID()}`);
    expect(missing.status).toBe(404);
    expect(missing.body.errors[0]?.error_code).toBe('not_found');
  });

  it('changes the status; findWorkspace sees it and an inactive workspace refuses execution with the reason', async () => {
    const tenant = await createTenant(service);
    const id = await workspace(tenant, 'toggle');
    const before = await tenant.api.get<Workspace>(`${BASE}/${id}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
    const off = await tenant.api.put<Workspace>(`${BASE}/${id}`, { status: 'inactive' });
    expect(off.status).toBe(200);
    expect(off.body).toMatchObject({ id, name: 'toggle', status: 'inactive', connector_count: 0 });
    expect(off.body.updated_at > before.body.updated_at).toBe(true);
    expect(off.body.created_at).toBe(before.body.created_at);

    const row = await findWorkspace(db(), tenant.organizationId, id);
    expect(row.status).toBe('inactive');
    expect(() => assertWorkspaceActive(row)).toThrow(ForbiddenError);
    expect(() => assertWorkspaceActive(row)).toThrow(/Workspace "toggle" is inactive, so its connectors cannot execute/);

    const on = await tenant.api.put<Workspace>(`${BASE}/${id}`, { status: 'active', cache_enabled: null, name: null });
    expect(on.status).toBe(200);
    expect(on.body.status).toBe('active');
    const fresh = await findWorkspace(db(), tenant.organizationId, id);
    expect(() => assertWorkspaceActive(fresh)).not.toThrow();
    // Setting the same status again is accepted and changes nothing.
    const same = await tenant.api.put<Workspace>(`${BASE}/${id}`, { status: 'active' });
    expect(same.status).toBe(200);
    expect(same.body.updated_at).toBe(on.body.updated_at);
    // The default workspace can be made inactive (and active again).
    const def = await defaultId(tenant);
    expect((await tenant.api.put<Workspace>(`${BASE}/${def}`, { status: 'inactive' })).body.status).toBe('inactive');
    expect((await tenant.api.put<Workspace>(`${BASE}/${def}`, { status: 'active' })).body.status).toBe('active');
  });

  it('renames a workspace: 409 on a clash with a live name, `default` keeps its name, deleted names are free', async () => {
    const tenant = await createTenant(service);
    const id = await workspace(tenant, 'old-name');
    const taken = await workspace(tenant, 'taken');
    const renamed = await tenant.api.put<Workspace>(`${BASE}/${id}`, { name: 'new-name' });
    expect(renamed.status).toBe(200);
    expect(renamed.body).toMatchObject({ id, name: 'new-name', status: 'active' });
    expect((await listAll(tenant)).map((w) => w.name)).toEqual(['default', 'new-name', 'taken']);
    // The old name is free: a later connector create (ensureWorkspace) makes a new workspace of that name.
    expect(await workspace(tenant, 'old-name')).not.toBe(id);

    const clash = await tenant.api.put<ErrorBody>(`${BASE}/${id}`, { name: 'taken' });
    expect(clash.status).toBe(409);
    expect(clash.body.message).toBe('Another workspace of this organization is already named "taken". Choose another name.');
    expect(clash.body.errors[0]?.error_code).toBe('conflict');
    expect((await tenant.api.put(`${BASE}/${id}`, { name: 'default' })).status).toBe(409);
    // Names are case-sensitive, as in connector creation.
    expect((await tenant.api.put(`${BASE}/${id}`, { name: 'TAKEN' })).status).toBe(200);
    // Renaming to its own name is a no-op; a clash with a deleted workspace's name is not a clash.
    expect((await tenant.api.put(`${BASE}/${taken}`, { name: 'taken' })).status).toBe(200);
    expect((await tenant.api.delete(`${BASE}/${taken}`)).status).toBe(200);
    expect((await tenant.api.put<Workspace>(`${BASE}/${id}`, { name: 'taken', status: 'inactive' })).body).toMatchObject({ name: 'taken', status: 'inactive' });

    const def = await defaultId(tenant);
    const protectedName = await tenant.api.put<ErrorBody>(`${BASE}/${def}`, { name: 'main' });
    expect(protectedName.status).toBe(400);
    expect(protectedName.body.message).toMatch(/"default" cannot be renamed/);
    expect(protectedName.body.errors).toEqual([{ field: 'name', message: 'the "default" workspace cannot be renamed', error_code: 'default_workspace' }]);
    expect((await tenant.api.put(`${BASE}/${def}`, { name: 'default', status: 'active' })).status).toBe(200);
  });

  it('deletes a workspace with its connectors in one go; afterwards it is gone everywhere and its name is free', async () => {
    const tenant = await createTenant(service);
    const id = await workspace(tenant, 'doomed');
    const secret = `secret-${randomUUID()}`;
    const connectors = [await insertConnector(tenant, id, secret), await insertConnector(tenant, id, secret)];
    const survivor = await insertConnector(tenant, await defaultId(tenant), secret);

    const response = await tenant.api.delete<{ id: string; deleted_at: string; connectors_deleted: number }>(`${BASE}/${id}`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ id, deleted_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/), connectors_deleted: 2 });
    expect(JSON.stringify(response.body)).not.toContain(secret);

    // The connector rows, and the encrypted credentials in them, are gone; the other workspace's stay.
    const rows = await db().selectFrom('connectors').select(['id', 'workspace_id']).where('organization_id', '=', tenant.organizationId).execute();
    expect(rows).toEqual([{ id: survivor, workspace_id: await defaultId(tenant) }]);
    expect(await db().selectFrom('connectors').select('id').where('id', 'in', connectors).execute()).toEqual([]);
    // The workspace row is a tombstone.
    const tombstone = await db().selectFrom('workspaces').selectAll().where('id', '=', id).executeTakeFirstOrThrow();
    expect(tombstone.deleted_at).not.toBeNull();
    expect(new Date(tombstone.deleted_at as Date).toISOString()).toBe(response.body.deleted_at);
    await expect(findWorkspace(db(), tenant.organizationId, id)).rejects.toThrow(ResourceNotFoundError);

    expect((await tenant.api.get(`${BASE}/${id}`)).status).toBe(404);
    expect((await tenant.api.put(`${BASE}/${id}`, { status: 'active' })).status).toBe(404);
    expect((await tenant.api.delete(`${BASE}/${id}`)).status).toBe(404);
    expect((await listAll(tenant)).map((w) => w.id)).not.toContain(id);
    expect(await listAll(tenant, '&name_contains=doomed')).toEqual([]);

    // A later connector create in that name makes a new, empty, active workspace.
    const reborn = await workspace(tenant, 'doomed');
    expect(reborn).not.toBe(id);
    expect((await tenant.api.get<Workspace>(`${BASE}/${reborn}`)).body).toMatchObject({ name: 'doomed', status: 'active', connector_count: 0 });
  });

  it('refuses to delete `default`', async () => {
    const tenant = await createTenant(service);
    const def = await defaultId(tenant);
    const secret = `secret-${randomUUID()}`;
    await insertConnector(tenant, def, secret);
    const response = await tenant.api.delete<ErrorBody>(`${BASE}/${def}`);
    expect(response.status).toBe(400);
    expect(response.body.message).toMatch(/"default" cannot be deleted/);
    expect(response.body.errors[0]?.error_code).toBe('default_workspace');
    expect((await tenant.api.get<Workspace>(`${BASE}/${def}`)).body.connector_count).toBe(1);
  });

  it('a connector added in a transaction racing a delete never outlives the workspace', async () => {
    const tenant = await createTenant(service);
    const id = await workspace(tenant, 'racing');
    const secret = `secret-${randomUUID()}`;
    const create = db()
      .transaction()
      .execute(async (trx) => {
        const ws = await ensureWorkspace(trx, tenant.organizationId, 'racing');
        await new Promise((resolve) => setTimeout(resolve, 50));
        const connectorId = randomUUID();
        await trx
          .insertInto('connectors')
          .values({
            id: connectorId,
            organization_id: tenant.organizationId,
            workspace_id: ws.id,
            connector_type: 'harvest',
            definition_id: randomUUID(),
            name: 'racer',
            auth_option: 'Personal Access Token',
            config: '{}',
            replication_config: '{}',
            ...sealCredentials(service.keyring, connectorId, { access_token: secret }),
          })
          .execute();
        return ws.id;
      });
    await new Promise((resolve) => setTimeout(resolve, 10));
    const removal = tenant.api.delete(`${BASE}/${id}`);
    const [workspaceOfConnector, deleted] = await Promise.all([create, removal]);
    expect(deleted.status).toBe(200);
    const orphans = await db()
      .selectFrom('connectors')
      .innerJoin('workspaces', 'workspaces.id', 'connectors.workspace_id')
      .select('connectors.id')
      .where('connectors.organization_id', '=', tenant.organizationId)
      .where('workspaces.deleted_at', 'is not', null)
      .execute();
    expect(orphans).toEqual([]);
    expect(workspaceOfConnector).toBe(id);
  });

  it('keeps organizations apart: B gets 404 for A’s workspace and never sees A’s in its list or stats', async () => {
    const a = await createTenant(service, 'A');
    const b = await createTenant(service, 'B');
    const secret = `secret-${randomUUID()}`;
    const aId = await workspace(a, 'a-private');
    await insertConnector(a, aId, secret);
    await a.api.put(`${BASE}/${aId}`, { status: 'inactive' });

    for (const response of [
      await b.api.get<ErrorBody>(`${BASE}/${aId}`),
      await b.api.put<ErrorBody>(`${BASE}/${aId}`, { status: 'active' }),
      await b.api.put<ErrorBody>(`${BASE}/${aId}`, { name: 'hijacked' }),
      await b.api.delete<ErrorBody>(`${BASE}/${aId}`),
      await b.api.get<ErrorBody>(`${BASE}/${await defaultId(a)}`),
      await b.api.delete<ErrorBody>(`${BASE}/${await defaultId(a)}`),
    ]) {
      expect(response.status).toBe(404);
      expect(response.body.errors[0]?.error_code).toBe('not_found');
      expect(JSON.stringify(response.body)).not.toContain(secret);
    }
    const listed = await listAll(b);
    expect(listed.map((w) => w.organization_id)).toEqual([b.organizationId]);
    expect(listed.map((w) => w.name)).toEqual(['default']);
    expect(await listAll(b, '&name_contains=a-private')).toEqual([]);
    expect((await b.api.get(`${BASE}/stats`)).body).toEqual({ active_count: 1, inactive_count: 0, total_count: 1 });
    // A's workspace is untouched.
    expect((await a.api.get<Workspace>(`${BASE}/${aId}`)).body).toMatchObject({ name: 'a-private', status: 'inactive', connector_count: 1 });
    // X-Organization-Id naming another organization is refused.
    expect((await b.api.get(BASE, { headers: { 'x-organization-id': a.organizationId } })).status).toBe(403);
  });

  it('requires an application token on every workspace route', async () => {
    const anonymous = new ApiClient(service.url);
    const id = randomUUID();
    for (const [method, path] of [
      ['GET', BASE],
      ['GET', `${BASE}/stats`],
      ['GET', `${BASE}/${id}`],
      ['PUT', `${BASE}/${id}`],
      ['DELETE', `${BASE}/${id}`],
    ] as const) {
      const response = await anonymous.request(method, path, method === 'PUT' ? { body: { status: 'active' } } : {});
      expect(response.status, `${method} ${path}`).toBe(401);
    }
  });

  it('rejects bad path ids and bad update bodies in the error envelope', async () => {
    const tenant = await createTenant(service);
    const id = await workspace(tenant, 'validated');
    for (const [method, body] of [
      ['GET', undefined],
      ['PUT', { status: 'active' }],
      ['DELETE', undefined],
    ] as const) {
      const response = await tenant.api.request<ErrorBody>(method, `${BASE}/not-a-uuid`, body === undefined ? {} : { body });
      expect(response.status).toBe(422);
      expect(response.body.errors).toEqual([
        expect.objectContaining({ field: 'workspace_id', error_code: 'pattern', message: expect.stringMatching(/^path workspace_id must match pattern/) }),
      ]);
    }

    const cases: Array<[unknown, string, string]> = [
      [{ status: 'paused' }, 'status', 'enum'],
      [{ status: 1 }, 'status', 'type'],
      [{ name: 5 }, 'name', 'type'],
      [{ name: '' }, 'name', 'minLength'],
      [{ name: ' padded ' }, 'name', 'pattern'],
      [{ name: 'x'.repeat(101) }, 'name', 'maxLength'],
      [{ status: 'active', color: 'red' }, 'color', 'unknown'],
      [{ cache_enabled: 'yes' }, 'cache_enabled', 'type'],
      [[], 'body', 'type'],
    ];
    // A control character in a name is refused before the schema, with a 400 naming the field.
    const multiline = await tenant.api.put<ErrorBody>(`${BASE}/${id}`, { name: 'two\nlines' });
    expect(multiline.status).toBe(400);
    expect(multiline.body.errors.map((e) => [e.field, e.error_code])).toEqual([['name', 'control_character']]);
    for (const [body, field, rule] of cases) {
      const response = await tenant.api.put<ErrorBody>(`${BASE}/${id}`, body);
      expect(response.status, JSON.stringify(body)).toBe(422);
      expect(
        response.body.errors.map((e) => [e.field, e.error_code]),
        JSON.stringify(body),
      ).toContainEqual([field === 'body' && rule === 'type' ? null : field, rule]);
    }
    // As Airbyte's schema allows: an update that changes nothing (empty, all null, only the ignored cache_enabled) answers the current record.
    const current = await tenant.api.get<Workspace>(`${BASE}/${id}`);
    for (const body of [{}, { name: null, status: null }, { cache_enabled: true }, { cache_enabled: false, name: null }]) {
      const unchanged = await tenant.api.put<Workspace>(`${BASE}/${id}`, body);
      expect(unchanged.status, JSON.stringify(body)).toBe(200);
      expect(unchanged.body, JSON.stringify(body)).toEqual(current.body);
    }

    const noBody = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`);
    expect(noBody.status).toBe(422);
    expect(noBody.body.message).toMatch(/must be object/);
    const malformed = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, { rawBody: '{"status":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors[0]?.error_code).toBe('malformed_json');
    // A JSON content type with no body is no body: the route's own rule answers, naming no field.
    const emptyJson = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, { rawBody: '', headers: { 'content-type': 'application/json' } });
    expect(emptyJson.status).toBe(422);
    expect(emptyJson.body.errors).toMatchObject([{ field: null, error_code: 'type' }]);
    // A charset parameter (as many clients send) is JSON all the same.
    const charset = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, {
      rawBody: '{"status":"active"}',
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(charset.status).toBe(200);
    const text = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, { rawBody: 'status=active', headers: { 'content-type': 'text/plain' } });
    expect(text.status).toBe(415);
    expect(text.body.errors[0]?.error_code).toBe('unsupported_media_type');
    const proto = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, {
      rawBody: '{"name":"x","__proto__":{"admin":true}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(proto.status).toBe(422);
    expect(proto.body.errors).toMatchObject([{ field: '__proto__', error_code: 'unknown' }]);
    const constructorKey = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, {
      rawBody: '{"name":"x","settings":{"constructor":{"prototype":{"admin":true}}}}',
      headers: { 'content-type': 'application/json' },
    });
    expect(constructorKey.status).toBe(422);
    expect(constructorKey.body.errors).toMatchObject([{ field: 'settings.constructor', error_code: 'unknown' }]);
    // Whitespace alone is no body, as an empty one is.
    const blank = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, { rawBody: ' \n ', headers: { 'content-type': 'application/json' } });
    expect(blank.status).toBe(422);
    expect(blank.body.errors).toMatchObject([{ field: null, error_code: 'type' }]);
    const xml = await tenant.api.request<ErrorBody>('PUT', `${BASE}/${id}`, {
      rawBody: '<status>active</status>',
      headers: { 'content-type': 'application/xml' },
    });
    expect(xml.status).toBe(415);
    const huge = await tenant.api.put<ErrorBody>(`${BASE}/${id}`, { name: 'x'.repeat(2 * 1024 * 1024) });
    expect(huge.status).toBe(413);
    expect(huge.body.errors[0]?.error_code).toBe('payload_too_large');
    // Nothing changed.
    expect((await tenant.api.get<Workspace>(`${BASE}/${id}`)).body).toMatchObject({ name: 'validated', status: 'active' });
  });

  it('describes the workspace routes in the OpenAPI document', async () => {
    const tenant = await createTenant(service);
    const doc = await tenant.api.get<{ paths: Record<string, Record<string, { tags?: string[]; responses: Record<string, unknown> }>> }>(
      '/api/v1/openapi.json',
    );
    expect(doc.status).toBe(200);
    expect(Object.keys(doc.body.paths[BASE] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.body.paths[`${BASE}/stats`] ?? {})).toEqual(['get']);
    expect(Object.keys(doc.body.paths[`${BASE}/{workspace_id}`] ?? {}).sort()).toEqual(['delete', 'get', 'put']);
    expect(doc.body.paths[`${BASE}/{workspace_id}`]?.put?.responses).toHaveProperty('409');
    expect(doc.body.paths[BASE]?.get?.tags).toEqual(['Workspaces']);
  });
});
