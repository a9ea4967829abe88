/**
 * The typed client (client/) against the running service and an Intercom stand-in on 127.0.0.1:
 * token handling, connectors, a typed list walked page by page with the async iterator, a typed
 * get, context store search, workspaces, inspect, skill docs, and errors from the one hierarchy.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SwitchyardClient } from '../../client/index.js';
import { TokenCache } from '../../client/tokens.js';
import { ValidationError, UnknownOperationError } from '../../runtime/errors.js';
import type { IntercomContactsRecord } from '../../runtime/generated/types.js';
import { ResourceNotFoundError, UnauthorizedError } from '../../src/errors.js';
import { startIntercomStandIn, type IntercomStandIn } from '../support/intercom-stand-in.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

describe('typed TypeScript client', () => {
  let service: TestService;
  let upstream: IntercomStandIn;
  let tenant: Tenant;
  let client: SwitchyardClient;
  let connectorId: string;

  beforeAll(async () => {
    upstream = await startIntercomStandIn(5);
    service = await startTestService('pglite', { upstreamBaseUrls: { intercom: upstream.url } });
    tenant = await createTenant(service);
    client = new SwitchyardClient({ baseUrl: service.url, credentials: { clientId: tenant.clientId, clientSecret: tenant.clientSecret } });
  });
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
  });

  it('fetches an application token once and reuses it', async () => {
    const first = await client.token();
    expect(first.split('.')).toHaveLength(3);
    expect(await Promise.all([client.token(), client.token()])).toEqual([first, first]);
  });

  it('creates a connector (check=false), then lists every contact with the typed iterator over several pages', async () => {
    const created = await client.connectors.create(
      { workspace_name: 'default', connector_type: 'intercom', name: 'Support', credentials: { access_token: 'intercom-secret-token' } },
      { check: false },
    );
    expect(created).toMatchObject({ name: 'Support', connector_type: 'intercom', workspace_name: 'default' });
    expect(JSON.stringify(created)).not.toContain('intercom-secret-token');
    connectorId = created.id;
    expect((await client.connectors.list()).map((c) => c.id)).toEqual([connectorId]);

    const intercom = client.connector('intercom', connectorId);
    upstream.requests.length = 0;
    const records: IntercomContactsRecord[] = [];
    for await (const record of intercom.records('contacts', 'list', { per_page: 2 })) records.push(record);
    expect(records.map((r) => r.email)).toEqual(upstream.contacts.map((c) => c.email));
    expect(upstream.requests.map((r) => r.query)).toEqual([
      { per_page: '2' },
      { per_page: '2', starting_after: 'c2' },
      { per_page: '2', starting_after: 'c4' },
    ]);

    const pages = [];
    for await (const page of intercom.pages('contacts', 'list', { per_page: 3 })) pages.push(page);
    expect(pages.map((p) => p.data.length)).toEqual([3, 2]);
    expect(pages[0]?.pagination).toEqual({ next_page: 'c3' });
    expect(pages[0]?.next_params).toEqual({ starting_after: 'c3' });
    expect(pages[1]?.next_params).toBeUndefined();
  });

  it('gets one record, typed', async () => {
    const intercom = client.connector('intercom', connectorId);
    const got = await intercom.execute('contacts', 'get', { id: 'c3' });
    const email: string | null = got.data.email;
    expect(email).toBe('person3@example.com');
    expect(got.connector_id).toBe(connectorId);
    // @ts-expect-error the generated params type requires id
    await expect(intercom.execute('contacts', 'get', {})).rejects.toBeInstanceOf(ValidationError);
  });

  it('searches the context store after a sync', async () => {
    const intercom = client.connector('intercom', connectorId);
    const synced = await client.connectors.sync(connectorId, { entity: 'contacts', full: true, wait: true });
    expect(synced.entities).toEqual([{ entity: 'contacts', state: 'started' }]);
    expect(synced.results).toEqual([expect.objectContaining({ entity: 'contacts', status: 'ready', mode: 'full', records: 5 })]);
    await client.connectors.searchable(connectorId, 'contacts', { timeoutMs: 30_000, intervalMs: 50 });
    await expect(client.connectors.searchable(connectorId, 'nope')).rejects.toMatchObject({ code: 'entity_not_syncable' });
    const result = await intercom.search('contacts', { query: { filter: { eq: { role: 'user' } }, sort: [{ email: 'asc' }] }, limit: 2 });
    expect(result.data.map((r) => r.email)).toEqual(['person1@example.com', 'person2@example.com']);
    expect(result.meta.has_more).toBe(true);
    const next = await intercom.search('contacts', {
      query: { filter: { eq: { role: 'user' } }, sort: [{ email: 'asc' }] },
      limit: 2,
      cursor: result.meta.cursor,
    });
    expect(next.data.map((r) => r.email)).toEqual(['person3@example.com', 'person4@example.com']);
  });

  it('reads workspaces, inspect and skill docs', async () => {
    const workspaces = [];
    for await (const workspace of client.workspaces.all({ limit: 1 })) workspaces.push(workspace.name);
    expect(workspaces).toEqual(['default']);
    const inspected = await client.connectors.inspect(connectorId);
    expect(inspected.entities.map((e) => e.name)).toContain('contacts');
    const docs = await client.skills.docs(inspected.docs_skill_id, 'contacts.list');
    expect(docs.section_id).toBe('contacts.list');
    expect((await client.skills.list({ limit: 100 })).data.map((s) => s.id)).toContain('connector:intercom');
  });

  it('throws the error hierarchy: validation with issues, unknown operation, not found, unauthorized', async () => {
    const intercom = client.connector('intercom', connectorId);
    const invalid = await intercom.execute('contacts', 'list', { per_page: 500 }).catch((e: unknown) => e);
    expect(invalid).toBeInstanceOf(ValidationError);
    expect((invalid as ValidationError).issues).toEqual([expect.objectContaining({ field: 'per_page', rule: 'maximum', limit: 150 })]);
    await expect(client.execute(connectorId, { entity: 'contact', action: 'list' })).rejects.toBeInstanceOf(UnknownOperationError);
    await expect(client.connectors.get('00000000-0000-4000-8000-000000000000')).rejects.toBeInstanceOf(ResourceNotFoundError);
    const stranger = new SwitchyardClient({ baseUrl: service.url, credentials: { clientId: tenant.clientId, clientSecret: 'wrong' } });
    await expect(stranger.connectors.list()).rejects.toBeInstanceOf(UnauthorizedError);
  });

  it('uses a token it was given (e.g. a scoped token) as is', async () => {
    const given = new SwitchyardClient({ baseUrl: service.url, token: await client.token() });
    expect((await given.connectors.list()).map((c) => c.id)).toEqual([connectorId]);
  });
});

describe('token cache', () => {
  it('renews before expiry, never more than half the lifetime early, and shares one request', async () => {
    let now = 0;
    let issued = 0;
    const cache = new TokenCache(
      async () => {
        issued += 1;
        return { token: `t${issued}`, expiresAt: now + 900_000 };
      },
      60_000,
      () => now,
    );
    expect(await Promise.all([cache.get(), cache.get()])).toEqual(['t1', 't1']);
    now = 839_000;
    expect(await cache.get()).toBe('t1');
    now = 841_000;
    expect(await cache.get()).toBe('t2');
    cache.invalidate('t2');
    expect(await cache.get()).toBe('t3');

    const short = new TokenCache(
      async () => ({ token: 'short', expiresAt: now + 20_000 }),
      60_000,
      () => now,
    );
    const start = now;
    await short.get();
    now = start + 9_000;
    expect(await short.get()).toBe('short');
  });
});
