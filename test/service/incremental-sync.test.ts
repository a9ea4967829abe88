import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { changeFilterParams, changeTime, decideMode } from '../../src/context/sync/incremental.js';
import { formatInstant } from '../../runtime/instants.js';
import { formatPlainLine } from '../../src/context/sync/progress.js';
import pino from 'pino';
import { connectorModules } from '../../runtime/index.js';
import { ConnectorSync, DEFAULT_RETRY_POLICY } from '../../src/context/sync/engine.js';
import { beginEntitySync } from '../../src/context/sync/state.js';
import { findConnector } from '../../src/services/connector-lookup.js';
import { connectorInstance } from '../../src/services/execution.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { makeFullSweepDue } from '../support/context-store.js';
import { connectorSyncApi, useNockedVendors } from '../support/sync-api.js';

// Incremental syncs (manifest search.incremental): a first full walk records the high-water mark, later
// syncs send the vendor's change filter with the overlap applied, and a full sweep finds deletions.

const CONNECTORS = '/api/v1/integrations/connectors';
const HARVEST = 'https://api.harvestapp.com';
/** One page holding every task, as Harvest answers GET /v2/tasks. */
const tasksPage = (tasks: unknown[]) => ({
  tasks,
  per_page: 2000,
  total_pages: 1,
  total_entries: tasks.length,
  next_page: null,
  previous_page: null,
  page: 1,
  links: {},
});
const JIRA = 'https://acme.atlassian.net';
const INTERCOM = 'https://api.intercom.io';
const SALESFORCE = 'https://acme.my.salesforce.com';
const MINUTE = 60_000;

/** ISO 8601 at whole seconds, as Harvest writes it. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

/** Jira Cloud's instants, with a +0000 offset. */
const jiraTime = (d: Date) => d.toISOString().replace('Z', '+0000');
const JIRA_AUTH = `Basic ${Buffer.from('ana@acme.com:jira-secret-token').toString('base64')}`;
/** Jira requests carrying the connector's basic credentials. */
const jiraApi = () => nock(JIRA).matchHeader('authorization', JIRA_AUTH);
/** The one project every Jira test lists its issues from. */
const jiraProjects = () =>
  jiraApi()
    .get('/rest/api/3/project/search')
    .query(true)
    .reply(200, { values: [{ id: '10000', key: 'ABC', name: 'Alpha' }], isLast: true, total: 1, startAt: 0, maxResults: 50 });

describe.each(storeKinds())('incremental syncs (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;

  useNockedVendors();
  const { create, entityState, syncEntity, syncResult } = connectorSyncApi(() => tenant);

  beforeAll(async () => {
    service = await startTestService(kind, { upstreamRetries: 0 }, { sync: { retry: { retries: 0, baseMs: 5, maxMs: 20 } } });
    tenant = await createTenant(service, 'Incremental Org');
  });
  afterAll(async () => {
    await service.close();
  });

  const createJira = (name: string) =>
    create({ connector_type: 'jira', name, replication_config: { subdomain: 'acme' }, credentials: { email: 'ana@acme.com', api_token: 'jira-secret-token' } });

  /** One run of `names` in one ConnectorSync, in the order given, as a sync of the whole connector orders them. */
  async function runEntities(id: string, names: string[]) {
    const ctx = service.app.ctx;
    const row = await findConnector(ctx.store.db, tenant.organizationId, id);
    const entities = [];
    for (const name of names) {
      const { startedAt } = await beginEntitySync(ctx.store.db, id, name);
      entities.push({ name, startedAt, lock: { connectorId: id, entity: name, lost: false, release: async () => {} } });
    }
    const sync = new ConnectorSync({
      ctx,
      log: pino({ level: 'silent' }),
      row,
      connector: connectorInstance(ctx, row),
      entities,
      retry: { ...DEFAULT_RETRY_POLICY, retries: 0 },
      signal: new AbortController().signal,
    });
    return sync.run();
  }

  async function liveRecords(id: string, entity: string) {
    const rows = await service.store.db
      .selectFrom('context_records')
      .select(['record_id', 'data', 'deleted_at'])
      .where('connector_id', '=', id)
      .where('entity', '=', entity)
      .orderBy('record_id')
      .execute();
    return rows.map((row) => ({
      id: row.record_id,
      data: (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Record<string, unknown>,
      deleted: row.deleted_at !== null,
    }));
  }

  it('Harvest: the first sync walks everything, the next asks for updated_since (mark - 5 min), a full sweep deletes what is gone', async () => {
    const id = await create({ connector_type: 'harvest', name: 'Harvest', credentials: { api_token: 'harvest-secret-token', account_id: '123456' } });
    const t0 = Date.now() - 60 * MINUTE;
    const client = (n: number, updated: number, name = `Client ${n}`) => ({
      id: n,
      name,
      is_active: true,
      currency: 'EUR',
      created_at: isoSeconds(t0),
      updated_at: isoSeconds(updated),
    });
    const api = () => nock(HARVEST).matchHeader('authorization', 'Bearer harvest-secret-token').matchHeader('harvest-account-id', '123456');
    const page = (clients: unknown[]) => ({
      clients,
      per_page: 2000,
      total_pages: 1,
      total_entries: clients.length,
      next_page: null,
      previous_page: null,
      page: 1,
      links: { first: '', next: null, previous: null, last: '' },
    });

    expect(await entityState(id, 'clients')).toMatchObject({
      mode: 'incremental',
      last_mode: null,
      high_water_mark: null,
      last_full_sweep_at: null,
      lag_seconds: null,
    });

    // 1. First sync: a full walk, no change filter.
    api()
      .get('/v2/clients')
      .query({ per_page: '2000' })
      .reply(200, page([client(1, t0), client(2, t0 + 10 * MINUTE), client(3, t0 + 20 * MINUTE)]));
    const first = await syncEntity(id, 'clients');
    expect(first).toMatchObject({
      status: 'ready',
      entity_count: 3,
      mode: 'incremental',
      last_mode: 'full',
      high_water_mark: new Date(isoSeconds(t0 + 20 * MINUTE)).toISOString(),
    });
    expect(first.last_full_sweep_at).not.toBeNull();
    expect(new Date(first.next_full_sweep_at ?? 0).getTime() - new Date(first.last_full_sweep_at ?? 0).getTime()).toBe(24 * 3_600_000);
    expect(first.lag_seconds).toBeGreaterThanOrEqual(0);

    // 2. Next sync: only the changes since the mark minus the 5-minute overlap.
    api()
      .get('/v2/clients')
      .query({ per_page: '2000', updated_since: isoSeconds(t0 + 15 * MINUTE) })
      .reply(200, page([client(3, t0 + 20 * MINUTE), client(2, t0 + 30 * MINUTE, 'Client 2 renamed')]));
    const second = await syncEntity(id, 'clients');
    expect(second).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'incremental',
      high_water_mark: new Date(isoSeconds(t0 + 30 * MINUTE)).toISOString(),
    });
    expect(second.last_full_sweep_at).toBe(first.last_full_sweep_at);
    const afterIncremental = await liveRecords(id, 'clients');
    expect(afterIncremental.map((r) => [r.id, r.data.name, r.deleted])).toEqual([
      ['1', 'Client 1', false],
      ['2', 'Client 2 renamed', false],
      ['3', 'Client 3', false],
    ]);

    // 3. An incremental sync that finds nothing changed: one request, the mark stays.
    api()
      .get('/v2/clients')
      .query({ per_page: '2000', updated_since: isoSeconds(t0 + 25 * MINUTE) })
      .reply(200, page([]));
    const quiet = await syncEntity(id, 'clients');
    expect(quiet).toMatchObject({ status: 'ready', entity_count: 3, last_mode: 'incremental', high_water_mark: second.high_water_mark });

    // 4. The full sweep is due (the last one is older than full_sweep_hours): a full walk, which does not read
    // client 1, deleted at Harvest (a change filter never reports it). The sweep asks Harvest for it by id, and
    // Harvest fails to answer (503): it is noted as missed, still live.
    await makeFullSweepDue(service.store, { connectorId: id, entity: 'clients' });
    const remaining = () => page([client(2, t0 + 30 * MINUTE, 'Client 2 renamed'), client(3, t0 + 20 * MINUTE)]);
    api().get('/v2/clients').query({ per_page: '2000' }).reply(200, remaining());
    const askedFor = api().get('/v2/clients/1').reply(503, { error: 'service_unavailable' });
    const sweptOnce = await syncEntity(id, 'clients');
    expect(askedFor.isDone()).toBe(true);
    expect(sweptOnce).toMatchObject({ status: 'ready', entity_count: 3, last_mode: 'full', unconfirmed_deletions: 1, high_water_mark: second.high_water_mark });
    expect(new Date(sweptOnce.last_full_sweep_at ?? 0).getTime()).toBeGreaterThan(new Date(first.last_full_sweep_at ?? 0).getTime());
    // Until the next sync walks in full: inspect shows that sweep as due.
    expect(sweptOnce.next_full_sweep_at).toBe(sweptOnce.last_full_sweep_at);
    // 5. The next sync walks in full (no updated_since) to confirm it, and client 1 is marked deleted.
    api().get('/v2/clients').query({ per_page: '2000' }).reply(200, remaining());
    const swept = await syncEntity(id, 'clients');
    expect(swept).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full', unconfirmed_deletions: 0, high_water_mark: second.high_water_mark });
    expect(new Date(swept.next_full_sweep_at ?? 0).getTime() - new Date(swept.last_full_sweep_at ?? 0).getTime()).toBe(24 * 3_600_000);
    expect((await liveRecords(id, 'clients')).map((r) => [r.id, r.deleted])).toEqual([
      ['1', true],
      ['2', false],
      ['3', false],
    ]);
  });

  it('a sync asked for in full walks every page and sweeps now, though an incremental one is due', async () => {
    const id = await create({ connector_type: 'harvest', name: 'Harvest full', credentials: { api_token: 'harvest-full-token', account_id: '654321' } });
    const t0 = Date.now() - 60 * MINUTE;
    const api = () => nock(HARVEST).matchHeader('authorization', 'Bearer harvest-full-token').matchHeader('harvest-account-id', '654321');
    const task = (n: number) => ({ id: n, name: `Task ${n}`, is_active: true, created_at: isoSeconds(t0), updated_at: isoSeconds(t0 + n * MINUTE) });
    api()
      .get('/v2/tasks')
      .query({ per_page: '2000' })
      .reply(200, tasksPage([task(1), task(2), task(3)]));
    expect(await syncEntity(id, 'tasks')).toMatchObject({ status: 'ready', entity_count: 3, last_mode: 'full' });

    // Task 1 was deleted at Harvest. Asked in full: no updated_since; the sweep asks Harvest for the task it
    // missed, by id, and Harvest answers 404: it is deleted in this sync.
    api()
      .get('/v2/tasks')
      .query({ per_page: '2000' })
      .reply(200, tasksPage([task(2), task(3)]));
    const askedFor = api().get('/v2/tasks/1').reply(404, { error: 'not_found', error_description: 'The object you requested can’t be found.' });
    expect(await syncResult(id, 'tasks', { full: true })).toMatchObject({
      entity: 'tasks',
      status: 'ready',
      mode: 'full',
      records: 2,
      deleted: 1,
      unconfirmed_deletions: 0,
      record_count: 2,
    });
    expect(askedFor.isDone()).toBe(true);
    expect(await entityState(id, 'tasks')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full', unconfirmed_deletions: 0 });
    expect((await liveRecords(id, 'tasks')).map((r) => [r.id, r.deleted])).toEqual([
      ['1', true],
      ['2', false],
      ['3', false],
    ]);
    // No walk is left to confirm it: the next sync is incremental again.
    api()
      .get('/v2/tasks')
      .query({ per_page: '2000', updated_since: isoSeconds(t0 - 2 * MINUTE) })
      .reply(200, tasksPage([]));
    expect(await syncEntity(id, 'tasks')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'incremental' });

    const bad = await tenant.api.post<{ errors: Array<Record<string, unknown>> }>(`${CONNECTORS}/${id}/sync`, { full: 'yes' });
    expect(bad.status).toBe(422);
    expect(bad.body.errors).toEqual([expect.objectContaining({ field: 'full', error_code: 'type' })]);
  });

  it('a missed record that Harvest still answers for stays live until the next full walk; more than 100 missed are not asked for', async () => {
    const id = await create({ connector_type: 'harvest', name: 'Harvest missed', credentials: { api_token: 'harvest-missed-token', account_id: '777' } });
    const t0 = Date.now() - 60 * MINUTE;
    const api = () => nock(HARVEST).matchHeader('authorization', 'Bearer harvest-missed-token').matchHeader('harvest-account-id', '777');
    const task = (n: number) => ({ id: n, name: `Task ${n}`, is_active: true, created_at: isoSeconds(t0), updated_at: isoSeconds(t0) });
    const walk = (tasks: unknown[]) => api().get('/v2/tasks').query({ per_page: '2000' }).reply(200, tasksPage(tasks));
    const fullSync = () => syncResult(id, 'tasks', { full: true });
    const all = Array.from({ length: 103 }, (_, i) => task(i + 1));
    walk(all);
    expect(await fullSync()).toMatchObject({ status: 'ready', record_count: 103 });

    // Task 2 was left out of the list though it exists (a list that shifted under the walk): Harvest answers
    // for it by id, so it is only noted; the next full walk reads it and drops the note.
    walk(all.filter((t) => t.id !== 2));
    const stillThere = api().get('/v2/tasks/2').reply(200, task(2));
    expect(await fullSync()).toMatchObject({ status: 'ready', deleted: 0, unconfirmed_deletions: 1, record_count: 103 });
    expect(stillThere.isDone()).toBe(true);
    walk(all);
    expect(await fullSync()).toMatchObject({ status: 'ready', deleted: 0, unconfirmed_deletions: 0, record_count: 103 });

    // 101 tasks missed at once (more than 100): none is asked for; all wait for the next full walk.
    const unmatched: string[] = [];
    const noMatch = (request: { path?: string }) => unmatched.push(request.path ?? '');
    nock.emitter.on('no match', noMatch);
    try {
      walk(all.slice(101));
      expect(await fullSync()).toMatchObject({ status: 'ready', deleted: 0, unconfirmed_deletions: 101, record_count: 103 });
      walk(all.slice(101));
      expect(await fullSync()).toMatchObject({ status: 'ready', deleted: 101, unconfirmed_deletions: 0, record_count: 2 });
    } finally {
      nock.emitter.removeListener('no match', noMatch);
    }
    // Requests no interceptor answered (the test's own calls to the service are among them): none to Harvest.
    expect(unmatched.filter((target) => target.startsWith('/v2/'))).toEqual([]);
  });

  it('Jira: issues are read per project, then with a relative JQL filter on updated (time-zone independent)', async () => {
    const id = await createJira('Jira');
    // 10.5 minutes ago: with the 5-minute overlap the filter reaches 15.5 minutes back, sent as 16 whole minutes.
    const updated = new Date(Date.now() - 10.5 * MINUTE);
    const issue = (n: number, at: Date) => ({
      id: String(10000 + n),
      key: `ABC-${n}`,
      self: `${JIRA}/rest/api/3/issue/${10000 + n}`,
      fields: { summary: `Issue ${n}`, updated: jiraTime(at), project: { id: '10000', key: 'ABC' } },
    });

    jiraProjects();
    jiraApi()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = 10000', fields: '*navigable', maxResults: '100' })
      .reply(200, { issues: [issue(1, new Date(updated.getTime() - 60 * MINUTE)), issue(2, updated)], isLast: true });
    const first = await syncEntity(id, 'issues');
    expect(first).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full', high_water_mark: updated.toISOString() });

    jiraProjects();
    jiraApi()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = 10000 AND updated >= "-16m" ORDER BY updated ASC', fields: '*navigable', maxResults: '100' })
      .reply(200, { issues: [issue(2, updated), issue(3, new Date(updated.getTime() + MINUTE))], isLast: true });
    const second = await syncEntity(id, 'issues');
    expect(second).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'incremental',
      high_water_mark: new Date(updated.getTime() + MINUTE).toISOString(),
    });
  });

  it("Sentry: a project's events are walked in full, then asked for by statsPeriod in whole minutes since the newest (mark + 5 min overlap)", async () => {
    const id = await create({ connector_type: 'sentry', name: 'Sentry', credentials: { auth_token: 'sntrys_secret_token' } });
    const SENTRY = 'https://sentry.io';
    const sentryApi = () => nock(SENTRY).matchHeader('authorization', 'Bearer sntrys_secret_token');
    // The parents, walked live for a child synced alone: one organization, one project.
    const parents = () => {
      sentryApi()
        .get('/api/0/organizations/')
        .reply(200, [{ id: '1', slug: 'acme', name: 'Acme' }]);
      sentryApi()
        .get('/api/0/organizations/acme/projects/')
        .reply(200, [{ id: '2', slug: 'web', name: 'Web' }]);
    };
    // 20.5 minutes ago: with the 5-minute overlap the period reaches 25.5 minutes back, sent as 26 whole minutes.
    const newest = new Date(Date.now() - 20.5 * MINUTE);
    const event = (n: number, at: Date) => ({
      id: `e${n}`,
      eventID: `${String(n).padStart(32, 'a')}`,
      groupID: '77',
      title: `TypeError ${n}`,
      dateCreated: at.toISOString(),
    });
    const nextPage = '<https://sentry.io/api/0/projects/acme/web/events/?cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"';
    const lastPage = '<https://sentry.io/api/0/projects/acme/web/events/?cursor=0:200:0>; rel="next"; results="false"; cursor="0:200:0"';

    parents();
    sentryApi()
      .get('/api/0/projects/acme/web/events/')
      .reply(200, [event(2, newest)], { link: nextPage });
    sentryApi()
      .get('/api/0/projects/acme/web/events/')
      .query({ cursor: '0:100:0' })
      .reply(200, [event(1, new Date(newest.getTime() - 60 * MINUTE))], { link: lastPage });
    expect(await syncEntity(id, 'events')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full', high_water_mark: newest.toISOString() });

    parents();
    sentryApi()
      .get('/api/0/projects/acme/web/events/')
      .query({ statsPeriod: '26m' })
      .reply(200, [event(3, new Date(newest.getTime() + MINUTE)), event(2, newest)], { link: lastPage });
    expect(await syncEntity(id, 'events')).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'incremental',
      high_water_mark: new Date(newest.getTime() + MINUTE).toISOString(),
    });
  });

  /**
   * A Salesforce connector whose refresh token is exchanged for `sf-<key>-access` (at every sync: on PostgreSQL
   * the refreshed token and its instance_url are stored and reused, the embedded store keeps only rotated
   * tokens), and its API as that token reaches it.
   */
  async function createSalesforce(name: string, key: string) {
    const credentials = { client_id: `3MVG9${key}`, client_secret: `sf-${key}-secret`, refresh_token: `sf-${key}-refresh` };
    const id = await create({ connector_type: 'salesforce', name, credentials });
    nock('https://login.salesforce.com')
      .post('/services/oauth2/token', { grant_type: 'refresh_token', ...credentials })
      .reply(200, { access_token: `sf-${key}-access`, instance_url: SALESFORCE, token_type: 'Bearer', issued_at: '1731000000000' })
      .persist();
    return { id, vendor: () => nock(SALESFORCE).matchHeader('authorization', `Bearer sf-${key}-access`) };
  }

  it('Salesforce: accounts (whose list needs q when called) sync with the default query, then only the rows whose SystemModstamp moved', async () => {
    const { id, vendor } = await createSalesforce('Salesforce', 'incremental');
    const api = () => vendor().matchHeader('sforce-query-options', 'batchSize=2000');
    const soql =
      'SELECT Id, Name, AccountNumber, Type, Industry, Phone, Fax, Website, BillingStreet, BillingCity, BillingState, BillingPostalCode, BillingCountry, ShippingStreet, ShippingCity, ShippingState, ShippingPostalCode, ShippingCountry, AnnualRevenue, NumberOfEmployees, Rating, Site, AccountSource, OwnerId, ParentId, Description, LastActivityDate, CreatedDate, LastModifiedDate, SystemModstamp FROM Account';
    // Salesforce writes instants with milliseconds and a +0000 offset.
    const stamp = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');
    const t0 = Math.floor((Date.now() - 60 * MINUTE) / 1000) * 1000;
    const account = (n: number, modified: number, name = `Account ${n}`) => ({
      attributes: { type: 'Account', url: `/services/data/v62.0/sobjects/Account/001Dn00000AbCd${n}IAV` },
      Id: `001Dn00000AbCd${n}IAV`,
      Name: name,
      CreatedDate: stamp(t0),
      LastModifiedDate: stamp(modified),
      SystemModstamp: stamp(modified),
    });

    // Syncable: waiting for its first sync, not refused for the q a call must give.
    const before = await entityState(id, 'accounts');
    expect(before).toMatchObject({ status: 'not_synced', mode: 'incremental', last_mode: null });
    expect(before.reason).toMatch(/has not been synchronized yet/);

    api()
      .get('/services/data/v62.0/query')
      .query({ q: soql })
      .reply(200, { totalSize: 2, done: true, records: [account(1, t0), account(2, t0 + 20 * MINUTE)] });
    const first = await syncEntity(id, 'accounts');
    expect(first).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full', high_water_mark: new Date(t0 + 20 * MINUTE).toISOString() });

    // The mark minus the 5-minute overlap, at whole seconds in UTC (a SOQL dateTime literal).
    api()
      .get('/services/data/v62.0/query')
      .query({ q: `${soql} WHERE SystemModstamp >= ${isoSeconds(t0 + 15 * MINUTE)}` })
      .reply(200, { totalSize: 1, done: true, records: [account(1, t0 + 30 * MINUTE, 'Account 1 renamed')] });
    // Then the deletions since the first sync began (minus the overlap) until now, from sObject Get Deleted:
    // UTC with an offset, as Salesforce documents the two params.
    const feedRanges: Array<{ start: number; end: number }> = [];
    const deletedFeed = (deletedRecords: unknown[]) =>
      vendor()
        .get('/services/data/v62.0/sobjects/Account/deleted/')
        .query((query) => {
          const offset = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\+00:00$/;
          if (Object.keys(query).sort().join() !== 'end,start' || !offset.test(String(query.start)) || !offset.test(String(query.end))) return false;
          feedRanges.push({ start: Date.parse(String(query.start)), end: Date.parse(String(query.end)) });
          return true;
        })
        .reply(200, { deletedRecords, earliestDateAvailable: '2026-11-01T00:00:00.000+0000', latestDateCovered: '2026-11-27T00:00:00.000+0000' });
    deletedFeed([]);
    const beforeSecond = Date.now();
    const second = await syncEntity(id, 'accounts');
    expect(second).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'incremental', high_water_mark: new Date(t0 + 30 * MINUTE).toISOString() });
    expect((await liveRecords(id, 'accounts')).map((r) => [r.id, r.data.Name, r.deleted])).toEqual([
      ['001Dn00000AbCd1IAV', 'Account 1 renamed', false],
      ['001Dn00000AbCd2IAV', 'Account 2', false],
    ]);
    // The range begins 5 minutes before the first sync (which ran just before) and ends as the second runs.
    expect(feedRanges).toHaveLength(1);
    expect(beforeSecond - 5 * MINUTE - (feedRanges[0]?.start ?? 0)).toBeGreaterThanOrEqual(-1000);
    expect(beforeSecond - 5 * MINUTE - (feedRanges[0]?.start ?? 0)).toBeLessThan(30_000);
    expect(Math.abs((feedRanges[0]?.end ?? 0) - Date.now())).toBeLessThan(30_000);

    // Account 2 is deleted at Salesforce (the SOQL filter never lists it again), and account 1 was deleted and
    // restored: the feed names both, account 1 is read live again by the walk and stays.
    api()
      .get('/services/data/v62.0/query')
      .query({ q: `${soql} WHERE SystemModstamp >= ${isoSeconds(t0 + 25 * MINUTE)}` })
      .reply(200, { totalSize: 1, done: true, records: [account(1, t0 + 40 * MINUTE, 'Account 1 restored')] });
    deletedFeed([
      { id: '001Dn00000AbCd2IAV', deletedDate: stamp(Date.now() - MINUTE) },
      { id: '001Dn00000AbCd1IAV', deletedDate: stamp(Date.now() - 2 * MINUTE) },
    ]);
    const third = await runEntities(id, ['accounts']);
    expect(third.map((o) => [o.entity, o.status, o.mode, o.records, o.deleted])).toEqual([['accounts', 'ready', 'incremental', 1, 1]]);
    expect((await liveRecords(id, 'accounts')).map((r) => [r.id, r.data.Name, r.deleted])).toEqual([
      ['001Dn00000AbCd1IAV', 'Account 1 restored', false],
      ['001Dn00000AbCd2IAV', 'Account 2', true],
    ]);
    // Its range starts 5 minutes before the second sync began (at whole seconds), no longer the first's.
    expect((feedRanges[1]?.start ?? 0) - (beforeSecond - 5 * MINUTE)).toBeGreaterThan(-1000);
    expect((feedRanges[1]?.start ?? 0) - (beforeSecond - 5 * MINUTE)).toBeLessThan(30_000);
  });

  it('Salesforce: a deleted feed that fails (a 5xx) fails the incremental sync, which keeps its mark and asks again', async () => {
    const { id, vendor: api } = await createSalesforce('Salesforce feed down', 'feed');
    const stamp = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');
    const t0 = Math.floor((Date.now() - 60 * MINUTE) / 1000) * 1000;
    const lead = { attributes: { type: 'Lead' }, Id: '00QDn00000AbCd1IAV', LastName: 'Lee', Company: 'Acme', SystemModstamp: stamp(t0) };
    api()
      .get('/services/data/v62.0/query')
      .query((query) => typeof query.q === 'string' && !query.q.includes('WHERE'))
      .reply(200, { totalSize: 1, done: true, records: [lead] });
    expect(await syncEntity(id, 'leads')).toMatchObject({ status: 'ready', entity_count: 1, last_mode: 'full' });

    // The incremental walk reads nothing new; the feed answers 503: the sync fails, nothing is deleted, and
    // the mark stays where it was.
    const incremental = () =>
      api()
        .get('/services/data/v62.0/query')
        .query((query) => typeof query.q === 'string' && query.q.endsWith(`WHERE SystemModstamp >= ${isoSeconds(t0 - 5 * MINUTE)}`))
        .reply(200, { totalSize: 0, done: true, records: [] });
    incremental();
    api()
      .get('/services/data/v62.0/sobjects/Lead/deleted/')
      .query(true)
      .reply(503, [{ errorCode: 'SERVER_UNAVAILABLE', message: 'Server temporarily unavailable' }]);
    const failed = await syncEntity(id, 'leads');
    expect(failed).toMatchObject({ status: 'failed', ready_for_search: true, entity_count: 1, high_water_mark: new Date(t0).toISOString() });
    expect(failed.reason).toMatch(/^Reading leads \(deleted feed\) failed: /);
    // The next sync asks from the same mark, and the feed names the lead: it is deleted.
    incremental();
    api()
      .get('/services/data/v62.0/sobjects/Lead/deleted/')
      .query(true)
      .reply(200, {
        deletedRecords: [{ id: '00QDn00000AbCd1IAV', deletedDate: stamp(Date.now()) }],
        earliestDateAvailable: stamp(t0),
        latestDateCovered: stamp(Date.now()),
      });
    expect(await syncEntity(id, 'leads')).toMatchObject({ status: 'ready', entity_count: 0, last_mode: 'incremental', reason: null });
  });

  it('Salesforce: a deleted feed that refuses its range (a 400) is not asked again: the same sync walks in full and its sweep finds the deletions', async () => {
    const { id, vendor: api } = await createSalesforce('Salesforce feed refused', 'feed-refused');
    const stamp = (ms: number) => new Date(ms).toISOString().replace('Z', '+0000');
    const t0 = Math.floor((Date.now() - 60 * MINUTE) / 1000) * 1000;
    const lead = (n: number, modified: number) => ({
      attributes: { type: 'Lead' },
      Id: `00QDn00000AbCd${n}IAV`,
      LastName: `Lee ${n}`,
      Company: 'Acme',
      SystemModstamp: stamp(modified),
    });
    const fullWalk = (records: unknown[]) =>
      api()
        .get('/services/data/v62.0/query')
        .query((query) => typeof query.q === 'string' && query.q.endsWith('FROM Lead'))
        .reply(200, { totalSize: records.length, done: true, records });
    fullWalk([lead(1, t0), lead(2, t0)]);
    expect(await syncEntity(id, 'leads')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full' });

    // Lead 2 changed and lead 1 was deleted. The incremental walk reads lead 2; the feed refuses the range
    // (Salesforce's delete log no longer reaches its start). The same sync then walks in full, once: lead 1 is
    // missed and noted, not asked of the feed again.
    api()
      .get('/services/data/v62.0/query')
      .query((query) => typeof query.q === 'string' && query.q.endsWith(`WHERE SystemModstamp >= ${isoSeconds(t0 - 5 * MINUTE)}`))
      .reply(200, { totalSize: 1, done: true, records: [lead(2, t0 + MINUTE)] });
    const refused = api()
      .get('/services/data/v62.0/sobjects/Lead/deleted/')
      .query(true)
      .once()
      .reply(400, [{ errorCode: 'INVALID_REPLICATION_DATE', message: 'startDate is before the earliest date available' }]);
    const second = fullWalk([lead(2, t0 + MINUTE)]);
    expect(await syncResult(id, 'leads')).toMatchObject({
      entity: 'leads',
      status: 'ready',
      mode: 'full',
      records: 2,
      changed: 1,
      deleted: 0,
      unconfirmed_deletions: 1,
      pages: 2,
      record_count: 2,
    });
    expect(refused.isDone() && second.isDone()).toBe(true);
    expect(await entityState(id, 'leads')).toMatchObject({
      status: 'ready',
      last_mode: 'full',
      high_water_mark: new Date(t0 + MINUTE).toISOString(),
      unconfirmed_deletions: 1,
      reason: null,
    });
    // The next sync walks in full to confirm the miss (two full walks in a row), and deletes lead 1.
    const confirming = fullWalk([lead(2, t0 + MINUTE)]);
    expect(await syncEntity(id, 'leads')).toMatchObject({ status: 'ready', entity_count: 1, last_mode: 'full', unconfirmed_deletions: 0 });
    expect(confirming.isDone()).toBe(true);
  });

  it('Jira: comments are read for every issue by a full walk, then only for the issues an incremental sync read; the next full walk sweeps', async () => {
    const id = await createJira('Jira comments');
    /** One run of issues then their comments, as a sync of the whole connector orders them. */
    const run = () => runEntities(id, ['issues', 'issue_comments']);
    const updated = new Date(Date.now() - 10.5 * MINUTE);
    const issue = (n: number, at: Date) => ({
      id: String(10000 + n),
      key: `ABC-${n}`,
      fields: { summary: `Issue ${n}`, updated: jiraTime(at), project: { id: '10000', key: 'ABC' } },
    });
    const comment = (n: number) => ({
      id: String(20000 + n),
      body: `Comment ${n}`,
      author: { accountId: 'ana', displayName: 'Ana' },
      created: jiraTime(updated),
      updated: jiraTime(updated),
    });
    const comments = (issueId: string, list: unknown[]) =>
      jiraApi().get(`/rest/api/3/issue/${issueId}/comment`).reply(200, { startAt: 0, maxResults: 100, total: list.length, comments: list });
    const stored = async () => (await liveRecords(id, 'issue_comments')).map((r) => [r.id, r.data.issueId, r.deleted]);

    // 1. First sync: every issue, and every issue's comments.
    jiraProjects();
    jiraApi()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = 10000', fields: '*navigable', maxResults: '100' })
      .reply(200, { issues: [issue(1, new Date(updated.getTime() - 60 * MINUTE)), issue(2, updated)], isLast: true });
    comments('10001', [comment(1)]);
    comments('10002', [comment(2)]);
    const first = await run();
    expect(first.map((o) => [o.entity, o.status, o.mode, o.records])).toEqual([
      ['issues', 'ready', 'full', 2],
      ['issue_comments', 'ready', 'full', 2],
    ]);

    // 2. Issue 2 got a comment, which moved its updated: only its comments are read again (no request for issue 1's).
    jiraProjects();
    jiraApi()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = 10000 AND updated >= "-16m" ORDER BY updated ASC', fields: '*navigable', maxResults: '100' })
      .reply(200, { issues: [issue(2, new Date(updated.getTime() + MINUTE))], isLast: true });
    comments('10002', [comment(2), comment(3)]);
    const second = await run();
    expect(second.map((o) => [o.entity, o.status, o.mode, o.records])).toEqual([
      ['issues', 'ready', 'incremental', 1],
      ['issue_comments', 'ready', 'incremental', 2],
    ]);
    expect(await stored()).toEqual([
      ['20001', '10001', false],
      ['20002', '10002', false],
      ['20003', '10002', false],
    ]);
    const followed = await entityState(id, 'issue_comments');
    expect(followed).toMatchObject({ mode: 'incremental', last_mode: 'incremental' });
    // Its next full walk is its parent's full sweep.
    expect(followed.next_full_sweep_at).not.toBeNull();
    expect(followed.next_full_sweep_at).toBe((await entityState(id, 'issues')).next_full_sweep_at);

    // 3. The issues' full sweep is due: every issue's comments are read again, and the one deleted meanwhile is
    // noted as missed.
    await makeFullSweepDue(service.store, { connectorId: id, entity: 'issues' });
    jiraProjects();
    jiraApi()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = 10000', fields: '*navigable', maxResults: '100' })
      .reply(200, { issues: [issue(1, new Date(updated.getTime() - 60 * MINUTE)), issue(2, new Date(updated.getTime() + MINUTE))], isLast: true });
    // Issue 1's comment is gone; issue 2 keeps its two.
    const commentsNow = () => {
      comments('10001', []);
      comments('10002', [comment(2), comment(3)]);
    };
    commentsNow();
    const third = await run();
    expect(third.map((o) => [o.entity, o.status, o.mode, o.deleted, o.unconfirmed])).toEqual([
      ['issues', 'ready', 'full', 0, 0],
      ['issue_comments', 'ready', 'full', 0, 1],
    ]);
    expect((await stored())[0]).toEqual(['20001', '10001', false]);

    // 4. The issues are read incrementally (nothing changed), but the comments walk in full again, every issue's,
    // to confirm the missed one: it is marked deleted.
    jiraProjects();
    jiraApi()
      .get('/rest/api/3/search/jql')
      .query((query) => typeof query.jql === 'string' && query.jql.startsWith('project = 10000 AND updated >= '))
      .reply(200, { issues: [], isLast: true });
    commentsNow();
    const fourth = await run();
    expect(fourth.map((o) => [o.entity, o.status, o.mode, o.deleted, o.unconfirmed])).toEqual([
      ['issues', 'ready', 'incremental', 0, 0],
      ['issue_comments', 'ready', 'full', 1, 0],
    ]);
    expect(await stored()).toEqual([
      ['20001', '10001', true],
      ['20002', '10002', false],
      ['20003', '10002', false],
    ]);
  });

  it('Jira: an issue the full sweep misses is asked for by id, and deleted in that sync when Jira answers 404', async () => {
    const id = await createJira('Jira deleted issue');
    const updated = new Date(Date.now() - 30 * MINUTE);
    const issue = (n: number) => ({
      id: String(10000 + n),
      key: `ABC-${n}`,
      fields: { summary: `Issue ${n}`, updated: jiraTime(updated), project: { id: '10000', key: 'ABC' } },
    });
    const fullWalk = (issues: unknown[]) => {
      jiraProjects();
      jiraApi().get('/rest/api/3/search/jql').query({ jql: 'project = 10000', fields: '*navigable', maxResults: '100' }).reply(200, { issues, isLast: true });
    };
    fullWalk([issue(1), issue(2)]);
    expect(await syncEntity(id, 'issues')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full' });

    // Issue 1 was deleted: the sweep's full walk does not list it, and Get issue answers 404 (no query: the id alone).
    await makeFullSweepDue(service.store, { connectorId: id, entity: 'issues' });
    fullWalk([issue(2)]);
    const askedFor = jiraApi()
      .get('/rest/api/3/issue/10001')
      .reply(404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} });
    const swept = await syncEntity(id, 'issues');
    expect(askedFor.isDone()).toBe(true);
    expect(swept).toMatchObject({ status: 'ready', entity_count: 1, last_mode: 'full', unconfirmed_deletions: 0 });
    expect((await liveRecords(id, 'issues')).map((r) => [r.id, r.deleted])).toEqual([
      ['10001', true],
      ['10002', false],
    ]);
  });

  it("Jira: comments synced for the first time after their issues are read for every stored issue, then follow the issues' changes", async () => {
    const id = await createJira('Jira comments later');
    const updated = new Date(Date.now() - 10.5 * MINUTE);
    const issue = (n: number) => ({
      id: String(10000 + n),
      key: `ABC-${n}`,
      fields: { summary: `Issue ${n}`, updated: jiraTime(updated), project: { id: '10000', key: 'ABC' } },
    });
    const search = (jql: string, issues: unknown[]) =>
      jiraApi().get('/rest/api/3/search/jql').query({ jql, fields: '*navigable', maxResults: '100' }).reply(200, { issues, isLast: true });
    const incrementalJql = 'project = 10000 AND updated >= "-16m" ORDER BY updated ASC';

    // 1. Issues alone (the comments were not synced yet, as on a store from before they could be).
    jiraProjects();
    search('project = 10000', [issue(1), issue(2)]);
    expect((await runEntities(id, ['issues'])).map((o) => [o.entity, o.mode])).toEqual([['issues', 'full']]);

    // 2. Nothing changed, but the comments' first sync reads every stored issue's comments.
    jiraProjects();
    search(incrementalJql, []);
    for (const n of [1, 2])
      jiraApi()
        .get(`/rest/api/3/issue/${10000 + n}/comment`)
        .reply(200, { startAt: 0, maxResults: 100, total: 0, comments: [] });
    const second = await runEntities(id, ['issues', 'issue_comments']);
    expect(second.map((o) => [o.entity, o.status, o.mode])).toEqual([
      ['issues', 'ready', 'incremental'],
      ['issue_comments', 'ready', 'full'],
    ]);

    // 3. From then on they follow the issues: no issue changed, no comment request.
    jiraProjects();
    search(incrementalJql, []);
    const third = await runEntities(id, ['issues', 'issue_comments']);
    expect(third.map((o) => [o.entity, o.status, o.mode, o.pages])).toEqual([
      ['issues', 'ready', 'incremental', 1],
      ['issue_comments', 'ready', 'incremental', 0],
    ]);
  });

  it('Notion: later syncs read pages newest first and stop at the page that reaches the mark; blocks only of the pages read', async () => {
    const id = await create({ connector_type: 'notion', name: 'Notion', credentials: { access_token: 'ntn_incremental_secret' } });
    const run = () => runEntities(id, ['pages', 'blocks']);
    const api = () => nock('https://api.notion.com').matchHeader('authorization', 'Bearer ntn_incremental_secret').matchHeader('notion-version', '2025-09-03');
    // Notion writes last_edited_time to the minute.
    const minute = (ms: number) => new Date(Math.floor(ms / MINUTE) * MINUTE).toISOString().replace(':00.000Z', ':00.000Z');
    const t0 = Math.floor(Date.now() / MINUTE) * MINUTE - 120 * MINUTE;
    const page = (n: number, edited: number) => ({
      object: 'page',
      id: `page-${n}`,
      created_time: minute(t0 - 600 * MINUTE),
      last_edited_time: minute(edited),
      parent: { type: 'workspace', workspace: true },
      properties: {},
    });
    const block = (page: number, n: number) => ({
      object: 'block',
      id: `block-${page}-${n}`,
      type: 'paragraph',
      parent: { type: 'page_id', page_id: `page-${page}` },
      has_children: false,
    });
    const list = (results: unknown[], next: string | null) => ({ object: 'list', results, next_cursor: next, has_more: next !== null });
    const search = (body: Record<string, unknown>, results: unknown[], next: string | null) =>
      api()
        .post('/v1/search', { filter: { property: 'object', value: 'page' }, page_size: 100, ...body })
        .reply(200, list(results, next));
    const blocks = (pageNumber: number, results: unknown[]) =>
      api().get(`/v1/blocks/page-${pageNumber}/children`).query({ page_size: '100' }).reply(200, list(results, null));
    const newestFirst = { sort: { direction: 'descending', timestamp: 'last_edited_time' } };

    // 1. First sync: every page (two pages of results, most recently edited first as Notion answers), every page's blocks.
    search({}, [page(3, t0), page(2, t0 - 10 * MINUTE)], 'cursor-2');
    search({ start_cursor: 'cursor-2' }, [page(1, t0 - 20 * MINUTE)], null);
    for (const n of [3, 2, 1]) blocks(n, [block(n, 1)]);
    const first = await run();
    expect(first.map((o) => [o.entity, o.status, o.mode, o.records])).toEqual([
      ['pages', 'ready', 'full', 3],
      ['blocks', 'ready', 'full', 3],
    ]);
    expect(await entityState(id, 'pages')).toMatchObject({ mode: 'incremental', high_water_mark: minute(t0) });

    // 2. Page 1 was edited (a block added). Newest first, the first answer already holds a page older than the
    // mark minus the 5-minute overlap (page 2, 10 minutes before it): no second request, though Notion has more.
    search(newestFirst, [page(1, t0 + 30 * MINUTE), page(3, t0), page(2, t0 - 10 * MINUTE)], 'cursor-more');
    blocks(1, [block(1, 1), block(1, 2)]);
    // Page 3 was read again (inside the overlap): its blocks are read too.
    blocks(3, [block(3, 1)]);
    const second = await run();
    expect(second.map((o) => [o.entity, o.status, o.mode, o.records, o.pages])).toEqual([
      ['pages', 'ready', 'incremental', 3, 1],
      ['blocks', 'ready', 'incremental', 3, 2],
    ]);
    expect((await liveRecords(id, 'blocks')).map((r) => r.id)).toEqual(['block-1-1', 'block-1-2', 'block-2-1', 'block-3-1']);
    expect(await entityState(id, 'pages')).toMatchObject({ last_mode: 'incremental', high_water_mark: minute(t0 + 30 * MINUTE) });

    // 3. An answer out of that order cannot be cut short: it is read to its end. Only page 1 is inside the
    // overlap of the new mark, so only its blocks are read.
    search(newestFirst, [page(2, t0 - 10 * MINUTE), page(1, t0 + 30 * MINUTE)], 'cursor-unordered');
    search({ ...newestFirst, start_cursor: 'cursor-unordered' }, [page(3, t0)], null);
    blocks(1, [block(1, 1), block(1, 2)]);
    const third = await run();
    expect(third.map((o) => [o.entity, o.status, o.mode, o.records, o.pages])).toEqual([
      ['pages', 'ready', 'incremental', 3, 2],
      ['blocks', 'ready', 'incremental', 2, 1],
    ]);
  });

  it('Notion: a page the full sweep misses is asked for by id, and deleted in that sync when Notion answers 404 object_not_found or the page in the trash', async () => {
    const id = await create({ connector_type: 'notion', name: 'Notion deleted', credentials: { access_token: 'ntn_deleted_page_secret' } });
    const api = () => nock('https://api.notion.com').matchHeader('authorization', 'Bearer ntn_deleted_page_secret').matchHeader('notion-version', '2025-09-03');
    const edited = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 60 * MINUTE).toISOString();
    const page = (n: number) => ({
      object: 'page',
      id: `page-${n}`,
      created_time: edited,
      last_edited_time: edited,
      parent: { type: 'workspace', workspace: true },
      properties: {},
    });
    const walk = (results: unknown[]) =>
      api()
        .post('/v1/search', { filter: { property: 'object', value: 'page' }, page_size: 100 })
        .reply(200, { object: 'list', results, next_cursor: null, has_more: false });
    walk([page(1), page(2), page(3), page(4)]);
    expect(await syncResult(id, 'pages')).toMatchObject({ status: 'ready', mode: 'full', record_count: 4 });

    // Page 1 was deleted for good; page 2 is in the trash (the API's only deletion), which Notion still
    // answers with in_trash; page 4 left the search but is still live and shared: it waits for the next walk.
    await makeFullSweepDue(service.store, { connectorId: id, entity: 'pages' });
    walk([page(3)]);
    const gone = api().get('/v1/pages/page-1').reply(404, {
      object: 'error',
      status: 404,
      code: 'object_not_found',
      message: 'Could not find page with ID: page-1. Make sure the relevant pages and databases are shared with your integration.',
    });
    const trashed = api()
      .get('/v1/pages/page-2')
      .reply(200, { ...page(2), in_trash: true });
    const live = api()
      .get('/v1/pages/page-4')
      .reply(200, { ...page(4), in_trash: false });
    expect(await syncResult(id, 'pages')).toMatchObject({ status: 'ready', mode: 'full', deleted: 2, unconfirmed_deletions: 1, record_count: 2 });
    expect(gone.isDone() && trashed.isDone() && live.isDone()).toBe(true);
    expect((await liveRecords(id, 'pages')).map((r) => [r.id, r.deleted])).toEqual([
      ['page-1', true],
      ['page-2', true],
      ['page-3', false],
      ['page-4', false],
    ]);
  });

  it('Notion: a block the full sweep misses is asked for by id, and deleted in that sync when Notion answers 404 or the block in the trash', async () => {
    const id = await create({ connector_type: 'notion', name: 'Notion blocks', credentials: { access_token: 'ntn_deleted_block_secret' } });
    const api = () =>
      nock('https://api.notion.com').matchHeader('authorization', 'Bearer ntn_deleted_block_secret').matchHeader('notion-version', '2025-09-03');
    const edited = new Date(Math.floor(Date.now() / MINUTE) * MINUTE - 60 * MINUTE).toISOString();
    const page = {
      object: 'page',
      id: 'page-1',
      created_time: edited,
      last_edited_time: edited,
      parent: { type: 'workspace', workspace: true },
      properties: {},
    };
    const block = (n: number, inTrash = false) => ({
      object: 'block',
      id: `block-${n}`,
      type: 'paragraph',
      paragraph: { rich_text: [] },
      parent: { type: 'page_id', page_id: 'page-1' },
      has_children: false,
      in_trash: inTrash,
      created_time: edited,
      last_edited_time: edited,
    });
    const walk = (results: unknown[]) => {
      api()
        .post('/v1/search', { filter: { property: 'object', value: 'page' }, page_size: 100 })
        .reply(200, { object: 'list', results: [page], next_cursor: null, has_more: false });
      api().get('/v1/blocks/page-1/children').query({ page_size: '100' }).reply(200, { object: 'list', results, next_cursor: null, has_more: false });
    };
    walk([block(1), block(2), block(3), block(4)]);
    expect((await runEntities(id, ['pages', 'blocks'])).map((o) => [o.entity, o.status, o.recordCount])).toEqual([
      ['pages', 'ready', 1],
      ['blocks', 'ready', 4],
    ]);

    // Block 1 no longer exists, block 2 was deleted (moved to the trash, where Notion still answers it), block 4
    // left the list but is still live: it waits for the next full walk.
    walk([block(3)]);
    const gone = api()
      .get('/v1/blocks/block-1')
      .reply(404, { object: 'error', status: 404, code: 'object_not_found', message: 'Could not find block with ID: block-1.' });
    const trashed = api().get('/v1/blocks/block-2').reply(200, block(2, true));
    const live = api().get('/v1/blocks/block-4').reply(200, block(4));
    expect(await syncResult(id, 'blocks', { full: true })).toMatchObject({
      status: 'ready',
      mode: 'full',
      deleted: 2,
      unconfirmed_deletions: 1,
      record_count: 2,
    });
    expect(gone.isDone() && trashed.isDone() && live.isDone()).toBe(true);
    expect((await liveRecords(id, 'blocks')).map((r) => [r.id, r.deleted])).toEqual([
      ['block-1', true],
      ['block-2', true],
      ['block-3', false],
      ['block-4', false],
    ]);
  });

  it('Notion: a page or data source the search lists in the trash is deleted, not stored, by a full or an incremental walk; restored, it is stored again', async () => {
    const id = await create({ connector_type: 'notion', name: 'Notion trash', credentials: { access_token: 'ntn_trash_secret' } });
    const api = () => nock('https://api.notion.com').matchHeader('authorization', 'Bearer ntn_trash_secret').matchHeader('notion-version', '2025-09-03');
    const t0 = Math.floor(Date.now() / MINUTE) * MINUTE - 120 * MINUTE;
    const item = (object: string, n: number, edited: number, inTrash = false) => ({
      object,
      id: `${object}-${n}`,
      created_time: new Date(t0 - 600 * MINUTE).toISOString(),
      last_edited_time: new Date(edited).toISOString(),
      in_trash: inTrash,
      parent: { type: 'workspace', workspace: true },
      properties: {},
    });
    const page = (n: number, edited: number, inTrash = false) => item('page', n, edited, inTrash);
    const search = (value: string, body: Record<string, unknown>, results: unknown[]) =>
      api()
        .post('/v1/search', { filter: { property: 'object', value }, page_size: 100, ...body })
        .reply(200, { object: 'list', results, next_cursor: null, has_more: false });
    const newestFirst = { sort: { direction: 'descending', timestamp: 'last_edited_time' } };

    // 1. First sync, a full walk: page 2 is already in the trash.
    search('page', {}, [page(3, t0), page(2, t0 - 10 * MINUTE, true), page(1, t0 - 20 * MINUTE)]);
    expect(await syncResult(id, 'pages')).toMatchObject({ status: 'ready', mode: 'full', records: 3, changed: 2, deleted: 0, record_count: 2 });

    // 2. Page 3 was moved to the trash: the incremental walk reads it there and deletes it.
    search('page', newestFirst, [page(3, t0 + 30 * MINUTE, true), page(1, t0 - 20 * MINUTE)]);
    expect(await syncResult(id, 'pages')).toMatchObject({ status: 'ready', mode: 'incremental', deleted: 1, record_count: 1 });
    expect((await liveRecords(id, 'pages')).map((r) => [r.id, r.deleted])).toEqual([
      ['page-1', false],
      ['page-3', true],
    ]);

    // 3. Restored from the trash, it is live again.
    search('page', newestFirst, [page(3, t0 + 40 * MINUTE), page(1, t0 - 20 * MINUTE)]);
    expect(await syncResult(id, 'pages')).toMatchObject({ status: 'ready', mode: 'incremental', changed: 1, deleted: 0, record_count: 2 });
    expect((await liveRecords(id, 'pages')).map((r) => [r.id, r.deleted])).toEqual([
      ['page-1', false],
      ['page-3', false],
    ]);

    // 4. A data source in the trash, read by its full walk.
    search('data_source', {}, [item('data_source', 2, t0), item('data_source', 1, t0 - MINUTE, true)]);
    expect(await syncResult(id, 'data_sources')).toMatchObject({ status: 'ready', mode: 'full', records: 2, record_count: 1 });
    expect((await liveRecords(id, 'data_sources')).map((r) => r.id)).toEqual(['data_source-2']);
  });

  it('Notion: data sources are also read newest first after their first sync', async () => {
    const id = await create({ connector_type: 'notion', name: 'Notion sources', credentials: { access_token: 'ntn_sources_secret' } });
    const api = () => nock('https://api.notion.com').matchHeader('authorization', 'Bearer ntn_sources_secret').matchHeader('notion-version', '2025-09-03');
    const t0 = Math.floor(Date.now() / MINUTE) * MINUTE - 120 * MINUTE;
    const source = (n: number, edited: number) => ({
      object: 'data_source',
      id: `source-${n}`,
      title: [{ plain_text: `Source ${n}` }],
      created_time: new Date(t0 - 600 * MINUTE).toISOString(),
      last_edited_time: new Date(edited).toISOString(),
    });
    const search = (body: Record<string, unknown>, results: unknown[], next: string | null) =>
      api()
        .post('/v1/search', { filter: { property: 'object', value: 'data_source' }, page_size: 100, ...body })
        .reply(200, { object: 'list', results, next_cursor: next, has_more: next !== null });
    search({}, [source(2, t0), source(1, t0 - 60 * MINUTE)], null);
    expect(await syncEntity(id, 'data_sources')).toMatchObject({
      status: 'ready',
      entity_count: 2,
      last_mode: 'full',
      high_water_mark: new Date(t0).toISOString(),
    });
    // Source 3 is new; source 1, older than the mark minus the overlap, ends the walk though Notion has more.
    search(
      { sort: { direction: 'descending', timestamp: 'last_edited_time' } },
      [source(3, t0 + 30 * MINUTE), source(2, t0), source(1, t0 - 60 * MINUTE)],
      'cursor-more',
    );
    expect(await syncEntity(id, 'data_sources')).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'incremental',
      high_water_mark: new Date(t0 + 30 * MINUTE).toISOString(),
    });
  });

  it('Klaviyo: lists, flows and templates ask for greater-than(updated, mark - 5 min) after their first sync', async () => {
    const id = await create({ connector_type: 'klaviyo', name: 'Klaviyo', credentials: { api_key: 'pk_klaviyo_incremental' } });
    const api = () =>
      nock('https://a.klaviyo.com').matchHeader('authorization', 'Klaviyo-API-Key pk_klaviyo_incremental').matchHeader('revision', '2026-07-15');
    const t0 = Math.floor((Date.now() - 60 * MINUTE) / 1000) * 1000;
    const resource = (type: string, n: number, updated: number) => ({
      type,
      id: `${type}-${n}`,
      attributes: { name: `${type} ${n}`, created: isoSeconds(t0 - 60 * MINUTE), updated: isoSeconds(updated) },
      links: { self: `https://a.klaviyo.com/api/${type}s/${type}-${n}/` },
    });
    const cases = [
      { entity: 'lists', path: '/api/lists', type: 'list', size: '10' },
      { entity: 'flows', path: '/api/flows', type: 'flow', size: '50' },
      { entity: 'email_templates', path: '/api/templates', type: 'template', size: '10' },
    ];
    for (const { entity, path, type, size } of cases) {
      api()
        .get(path)
        .query({ 'page[size]': size })
        .reply(200, { data: [resource(type, 1, t0), resource(type, 2, t0 + 20 * MINUTE)], links: { self: '', next: null } });
      expect(await syncEntity(id, entity)).toMatchObject({
        status: 'ready',
        entity_count: 2,
        last_mode: 'full',
        high_water_mark: new Date(t0 + 20 * MINUTE).toISOString(),
      });
      api()
        .get(path)
        .query({ 'page[size]': size, filter: `greater-than(updated,${isoSeconds(t0 + 15 * MINUTE)})` })
        .reply(200, { data: [resource(type, 1, t0 + 30 * MINUTE)], links: { self: '', next: null } });
      expect(await syncEntity(id, entity)).toMatchObject({
        status: 'ready',
        entity_count: 2,
        last_mode: 'incremental',
        high_water_mark: new Date(t0 + 30 * MINUTE).toISOString(),
      });
    }
  });

  it("Typeform: each form's responses are asked for since the mark minus an hour after their first sync", async () => {
    const id = await create({ connector_type: 'typeform', name: 'Typeform', credentials: { access_token: 'tfp_incremental_token' } });
    const api = () => nock('https://api.typeform.com').matchHeader('authorization', 'Bearer tfp_incremental_token');
    const t0 = Math.floor((Date.now() - 5 * 60 * MINUTE) / 1000) * 1000;
    const answer = (token: string, submitted: number) => ({ token, response_id: token, submitted_at: isoSeconds(submitted), answers: [] });
    const forms = () =>
      api()
        .get('/forms')
        .query({ page_size: '200' })
        .reply(200, {
          total_items: 2,
          page_count: 1,
          items: [
            { id: 'F1', title: 'One' },
            { id: 'F2', title: 'Two' },
          ],
        });
    forms();
    api()
      .get('/forms/F1/responses')
      .query({ page_size: '1000' })
      .reply(200, { total_items: 2, page_count: 1, items: [answer('a2', t0 + 120 * MINUTE), answer('a1', t0)] });
    api().get('/forms/F1/responses').query({ page_size: '1000', before: 'a1' }).reply(200, { total_items: 2, page_count: 1, items: [] });
    api()
      .get('/forms/F2/responses')
      .query({ page_size: '1000' })
      .reply(200, { total_items: 1, page_count: 1, items: [answer('b1', t0 + 60 * MINUTE)] });
    api().get('/forms/F2/responses').query({ page_size: '1000', before: 'b1' }).reply(200, { total_items: 1, page_count: 1, items: [] });
    expect(await syncEntity(id, 'responses')).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'full',
      high_water_mark: new Date(t0 + 120 * MINUTE).toISOString(),
    });
    // The mark minus the hour of overlap, to the second with a Z, as Typeform's since takes it (inclusive).
    const since = isoSeconds(t0 + 60 * MINUTE);
    forms();
    api()
      .get('/forms/F1/responses')
      .query({ page_size: '1000', since })
      .reply(200, { total_items: 2, page_count: 1, items: [answer('a3', t0 + 180 * MINUTE), answer('a2', t0 + 120 * MINUTE)] });
    api().get('/forms/F1/responses').query({ page_size: '1000', since, before: 'a2' }).reply(200, { total_items: 2, page_count: 1, items: [] });
    api()
      .get('/forms/F2/responses')
      .query({ page_size: '1000', since })
      .reply(200, { total_items: 1, page_count: 1, items: [answer('b1', t0 + 60 * MINUTE)] });
    api().get('/forms/F2/responses').query({ page_size: '1000', since, before: 'b1' }).reply(200, { total_items: 1, page_count: 1, items: [] });
    expect(await syncEntity(id, 'responses')).toMatchObject({
      status: 'ready',
      entity_count: 4,
      last_mode: 'incremental',
      high_water_mark: new Date(t0 + 180 * MINUTE).toISOString(),
    });
    expect((await liveRecords(id, 'responses')).map((r) => [r.id, r.data.form_id, r.deleted])).toEqual([
      ['a1', 'F1', false],
      ['a2', 'F1', false],
      ['a3', 'F1', false],
      ['b1', 'F2', false],
    ]);
  });

  it('Zendesk Chat: the agent timeline export is asked for from the mark minus 5 min, in microseconds', async () => {
    const id = await create({
      connector_type: 'zendesk-chat',
      name: 'Zendesk Chat',
      replication_config: { subdomain: 'acme' },
      credentials: { access_token: 'zendesk-chat-incremental-token' },
    });
    const api = () => nock('https://acme.zendesk.com').matchHeader('authorization', 'Bearer zendesk-chat-incremental-token');
    const t0 = Math.floor((Date.now() - 60 * MINUTE) / 1000) * 1000;
    // Zendesk writes start_time with microseconds.
    const span = (start: number, status: string) => ({
      agent_id: 361089721035,
      start_time: new Date(start).toISOString().replace('Z', '000Z'),
      status,
      duration: 12.5,
      engagement_count: 0,
    });
    const page = (spans: unknown[], endTime: number) => ({
      agent_timeline: spans,
      count: spans.length,
      end_time: endTime,
      next_page: `https://acme.zendesk.com/api/v2/chat/incremental/agent_timeline?fields=agent_timeline%28%2A%29&start_time=${endTime}`,
    });
    api()
      .get('/api/v2/chat/incremental/agent_timeline')
      .query({ limit: '1000', fields: 'agent_timeline(*)' })
      .reply(200, page([span(t0, 'online'), span(t0 + 20 * MINUTE + 250, 'away')], (t0 + 20 * MINUTE + 250) * 1000));
    expect(await syncEntity(id, 'agent_timeline')).toMatchObject({
      status: 'ready',
      entity_count: 2,
      last_mode: 'full',
      high_water_mark: new Date(t0 + 20 * MINUTE + 250).toISOString(),
    });
    api()
      .get('/api/v2/chat/incremental/agent_timeline')
      .query({ limit: '1000', fields: 'agent_timeline(*)', start_time: String((t0 + 15 * MINUTE + 250) * 1000) })
      .reply(200, page([span(t0 + 30 * MINUTE, 'online')], (t0 + 30 * MINUTE) * 1000));
    expect(await syncEntity(id, 'agent_timeline')).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'incremental',
      high_water_mark: new Date(t0 + 30 * MINUTE).toISOString(),
    });
  });

  it('Zendesk Talk: a caught-up export page (short of 1000 calls) ends the walk, though Zendesk always sends a next_page', async () => {
    const id = await create({
      connector_type: 'zendesk-talk',
      name: 'Zendesk Talk',
      replication_config: { subdomain: 'acme' },
      credentials: { email: 'ana@acme.com', api_token: 'talk-incremental-token' },
    });
    const basic = `Basic ${Buffer.from('ana@acme.com/token:talk-incremental-token').toString('base64')}`;
    const api = () => nock('https://acme.zendesk.com').matchHeader('authorization', basic);
    const t0 = Math.floor((Date.now() - 60 * MINUTE) / 1000) * 1000;
    const call = (n: number, updated: number) => ({ id: n, created_at: isoSeconds(t0 - 60 * MINUTE), updated_at: isoSeconds(updated), direction: 'inbound' });
    // Caught up, the next_page URL is the one just requested (Zendesk answers it with the last call again).
    const exportPage = (calls: unknown[], startTime: number) => ({
      calls,
      count: calls.length,
      end_time: startTime,
      next_page: `https://acme.zendesk.com/api/v2/channels/voice/stats/incremental/calls.json?start_time=${startTime}`,
    });
    api()
      .get('/api/v2/channels/voice/stats/incremental/calls')
      .query({ start_time: '0' })
      .reply(200, exportPage([call(1, t0), call(2, t0 + 20 * MINUTE)], (t0 + 20 * MINUTE) / 1000));
    expect(await syncEntity(id, 'calls')).toMatchObject({
      status: 'ready',
      entity_count: 2,
      last_mode: 'full',
      high_water_mark: new Date(t0 + 20 * MINUTE).toISOString(),
    });
    api()
      .get('/api/v2/channels/voice/stats/incremental/calls')
      .query({ start_time: String((t0 + 15 * MINUTE) / 1000) })
      .reply(200, exportPage([call(2, t0 + 20 * MINUTE), call(3, t0 + 30 * MINUTE)], (t0 + 30 * MINUTE) / 1000));
    expect(await syncEntity(id, 'calls')).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'incremental',
      high_water_mark: new Date(t0 + 30 * MINUTE).toISOString(),
    });
  });

  it('Klaviyo: events ask for greater-than(datetime, mark - 1 h) after their first sync', async () => {
    const id = await create({ connector_type: 'klaviyo', name: 'Klaviyo events', credentials: { api_key: 'pk_klaviyo_events' } });
    const api = () => nock('https://a.klaviyo.com').matchHeader('authorization', 'Klaviyo-API-Key pk_klaviyo_events').matchHeader('revision', '2026-07-15');
    const t0 = Math.floor((Date.now() - 3 * 60 * MINUTE) / 1000) * 1000;
    const event = (n: number, at: number) => ({
      type: 'event',
      id: `event-${n}`,
      attributes: { timestamp: at / 1000, datetime: isoSeconds(at).replace('Z', '+00:00'), uuid: `uuid-${n}`, event_properties: { value: n } },
      relationships: { metric: { data: { type: 'metric', id: 'M1' } }, profile: { data: { type: 'profile', id: `P${n}` } } },
      links: { self: `https://a.klaviyo.com/api/events/event-${n}/` },
    });
    const next = 'https://a.klaviyo.com/api/events?page%5Bsize%5D=100&page%5Bcursor%5D=c2';
    api()
      .get('/api/events')
      .query({ 'page[size]': '100' })
      .reply(200, { data: [event(1, t0)], links: { self: '', next } });
    api()
      .get('/api/events')
      .query({ 'page[size]': '100', 'page[cursor]': 'c2' })
      .reply(200, { data: [event(2, t0 + 90 * MINUTE)], links: { self: '', next: null } });
    expect(await syncEntity(id, 'events')).toMatchObject({
      status: 'ready',
      entity_count: 2,
      last_mode: 'full',
      high_water_mark: new Date(t0 + 90 * MINUTE).toISOString(),
    });
    api()
      .get('/api/events')
      .query({ 'page[size]': '100', filter: `greater-than(datetime,${isoSeconds(t0 + 30 * MINUTE)})` })
      .reply(200, { data: [event(2, t0 + 90 * MINUTE), event(3, t0 + 120 * MINUTE)], links: { self: '', next: null } });
    expect(await syncEntity(id, 'events')).toMatchObject({
      status: 'ready',
      entity_count: 3,
      last_mode: 'incremental',
      high_water_mark: new Date(t0 + 120 * MINUTE).toISOString(),
    });
  });

  it('ClickUp: comments of incrementally read tasks still visit every task (read from the store), not only the changed ones', async () => {
    const id = await create({ connector_type: 'clickup', name: 'ClickUp', credentials: { api_key: 'pk_clickup_secret' } });
    /** One run of tasks then comments, as a sync of the whole connector orders them (their parents are walked live). */
    const run = () => runEntities(id, ['tasks', 'comments']);
    const api = () => nock('https://api.clickup.com').matchHeader('authorization', 'pk_clickup_secret');
    const parents = () => {
      api()
        .get('/api/v2/team')
        .reply(200, { teams: [{ id: '1', name: 'Workspace' }] });
      api()
        .get('/api/v2/team/1/space')
        .query(true)
        .reply(200, { spaces: [{ id: '2', name: 'Space' }] });
      api()
        .get('/api/v2/space/2/folder')
        .query(true)
        .reply(200, { folders: [{ id: '3', name: 'Folder' }] });
      api()
        .get('/api/v2/folder/3/list')
        .query(true)
        .reply(200, { lists: [{ id: '4', name: 'List' }] });
    };
    const changedAt = Date.now() - 60 * MINUTE;
    const task = (n: number, updated: number, status = 'in progress') => ({
      id: `t${n}`,
      name: `Task ${n}`,
      status: { status, type: status === 'complete' ? 'closed' : 'custom' },
      date_updated: String(updated),
      list: { id: '4' },
    });
    const comments = (n: number) =>
      api()
        .get(`/api/v2/task/t${n}/comment`)
        .reply(200, { comments: [{ id: `c${n}`, comment_text: `Comment on ${n}`, date: String(changedAt) }] });

    parents();
    // Closed tasks and subtasks too (search.params), which Get Tasks leaves out unless asked.
    api()
      .get('/api/v2/list/4/task')
      .query({ include_closed: 'true', subtasks: 'true' })
      .reply(200, { tasks: [task(1, changedAt), task(2, changedAt + MINUTE)], last_page: true });
    comments(1);
    comments(2);
    expect((await run()).map((o) => [o.entity, o.status, o.mode, o.records, o.reason])).toEqual([
      ['tasks', 'ready', 'full', 2, undefined],
      ['comments', 'ready', 'full', 2, undefined],
    ]);

    // Only task 2 changed: the filter is added to the list's call; the comments of task 1 are still read
    // (the parents come from the store), so none is marked deleted.
    parents();
    api()
      .get('/api/v2/list/4/task')
      .query({ include_closed: 'true', subtasks: 'true', date_updated_gt: String(changedAt + MINUTE - 5 * MINUTE) })
      .reply(200, { tasks: [task(2, changedAt + 2 * MINUTE, 'complete')], last_page: true });
    comments(1);
    comments(2);
    expect((await run()).map((o) => [o.entity, o.status, o.mode, o.records, o.deleted])).toEqual([
      ['tasks', 'ready', 'incremental', 1, 0],
      ['comments', 'ready', 'full', 2, 0],
    ]);
    // Closed upstream, the task is read with its closed status instead of vanishing from the list.
    expect((await liveRecords(id, 'tasks')).map((r) => [r.id, r.deleted, (r.data.status as { type: string }).type])).toEqual([
      ['t1', false, 'custom'],
      ['t2', false, 'closed'],
    ]);
  });

  it('Facebook: campaigns of every status but deleted, then only those updated since the mark; one archived upstream is read as ARCHIVED', async () => {
    const id = await create({ connector_type: 'facebook-marketing', name: 'Facebook', credentials: { access_token: 'EAAfacebook_incremental_secret' } });
    const graph = () => nock('https://graph.facebook.com');
    const base = Math.floor(Date.now() / 1000) - 3600;
    const time = (unix: number) => new Date(unix * 1000).toISOString().replace('.000Z', '+0000');
    const campaign = (n: number, updated: number, status = 'ACTIVE') => ({
      id: `12021000000000${n}`,
      name: `Campaign ${n}`,
      account_id: '1234567890',
      status,
      effective_status: status,
      updated_time: time(updated),
    });
    const page = (data: unknown[]) => ({ data, paging: { cursors: { before: 'b', after: 'a' } } });
    const statuses = JSON.stringify([
      'ACTIVE',
      'ADSET_PAUSED',
      'ARCHIVED',
      'CAMPAIGN_PAUSED',
      'DISAPPROVED',
      'IN_PROCESS',
      'PAUSED',
      'PENDING_BILLING_INFO',
      'PENDING_REVIEW',
      'PREAPPROVED',
      'WITH_ISSUES',
    ]);
    const queries: Array<Record<string, unknown>> = [];
    const accounts = () =>
      graph()
        .get('/v25.0/me/adaccounts')
        .query(true)
        .reply(200, page([{ id: 'act_1234567890', account_id: '1234567890', name: 'Acme' }]));
    const campaigns = (data: unknown[]) =>
      graph()
        .get('/v25.0/act_1234567890/campaigns')
        .query((query) => {
          queries.push(query);
          return true;
        })
        .reply(200, page(data));

    accounts();
    campaigns([campaign(1, base), campaign(2, base + 60)]);
    expect(await syncEntity(id, 'campaigns')).toMatchObject({
      status: 'ready',
      entity_count: 2,
      last_mode: 'full',
      high_water_mark: new Date((base + 60) * 1000).toISOString(),
    });

    accounts();
    campaigns([campaign(1, base + 120, 'ARCHIVED')]);
    expect(await syncResult(id, 'campaigns')).toMatchObject({ status: 'ready', mode: 'incremental', records: 1, deleted: 0, record_count: 2 });
    const { fields, ...first } = queries[0] as Record<string, unknown>;
    expect(String(fields)).toContain('effective_status');
    expect(first).toEqual({ access_token: 'EAAfacebook_incremental_secret', effective_status: statuses });
    const { fields: _fields, ...second } = queries[1] as Record<string, unknown>;
    expect(second).toEqual({
      access_token: 'EAAfacebook_incremental_secret',
      effective_status: statuses,
      filtering: JSON.stringify([{ field: 'campaign.updated_time', operator: 'GREATER_THAN', value: base + 60 - 300 }]),
    });
    expect((await liveRecords(id, 'campaigns')).map((r) => [r.id, r.deleted, r.data.effective_status])).toEqual([
      ['120210000000001', false, 'ARCHIVED'],
      ['120210000000002', false, 'ACTIVE'],
    ]);
  });

  it('Linear: issues changed or archived since the mark are asked for with includeArchived; an archived or trashed issue is deleted at once', async () => {
    const id = await create({ connector_type: 'linear', name: 'Linear', credentials: { api_key: 'lin_api_incremental_secret' } });
    const t0 = Date.now() - 60 * MINUTE;
    const at = (ms: number) => new Date(ms).toISOString();
    const issue = (n: number, updatedAt: number, archivedAt: number | null = null) => ({
      id: `issue-${n}`,
      identifier: `ENG-${n}`,
      title: `Issue ${n}`,
      createdAt: at(t0 - 60 * MINUTE),
      updatedAt: at(updatedAt),
      archivedAt: archivedAt === null ? null : at(archivedAt),
    });
    const bodies: Array<{ variables: Record<string, unknown>; query: string }> = [];
    const answer = (nodes: unknown[]) =>
      nock('https://api.linear.app')
        .matchHeader('authorization', 'lin_api_incremental_secret')
        .post('/graphql', (body) => {
          bodies.push(body);
          return true;
        })
        .reply(200, { data: { issues: { nodes, pageInfo: { hasNextPage: false, endCursor: null } } } });

    answer([issue(1, t0), issue(2, t0 + 10 * MINUTE), issue(3, t0 + 20 * MINUTE)]);
    expect(await syncEntity(id, 'issues')).toMatchObject({ status: 'ready', entity_count: 3, last_mode: 'full', high_water_mark: at(t0 + 20 * MINUTE) });

    // Issue 1 was archived without moving its updatedAt, issue 2 trashed (archived too), issue 3 edited.
    answer([issue(1, t0, t0 + 25 * MINUTE), issue(2, t0 + 30 * MINUTE, t0 + 30 * MINUTE), issue(3, t0 + 40 * MINUTE)]);
    expect(await syncResult(id, 'issues')).toMatchObject({ status: 'ready', mode: 'incremental', records: 3, deleted: 2, record_count: 1 });
    const since = at(t0 + 20 * MINUTE - 5 * MINUTE);
    expect(bodies.map((body) => body.variables)).toEqual([
      { first: 250 },
      { first: 250, filter: { or: [{ updatedAt: { gte: since } }, { archivedAt: { gte: since } }] }, includeArchived: true },
    ]);
    expect(bodies[1]?.query).toContain('issues(first: $first, after: $after, filter: $filter, includeArchived: $includeArchived)');
    expect((await liveRecords(id, 'issues')).map((r) => [r.id, r.deleted, r.data.updatedAt])).toEqual([
      ['issue-1', true, at(t0)],
      ['issue-2', true, at(t0 + 10 * MINUTE)],
      ['issue-3', false, at(t0 + 40 * MINUTE)],
    ]);
    expect(await entityState(id, 'issues')).toMatchObject({ high_water_mark: at(t0 + 40 * MINUTE) });

    // Restored: the next incremental sync reads issue 1 unarchived, and it is live again.
    answer([issue(1, t0 + 50 * MINUTE)]);
    expect(await syncResult(id, 'issues')).toMatchObject({ status: 'ready', mode: 'incremental', deleted: 0, record_count: 2 });
  });

  it('Intercom: contacts changed since the mark come from the search endpoint (api_search) with an updated_at query two days back (it compares days)', async () => {
    const id = await create({ connector_type: 'intercom', name: 'Intercom', credentials: { access_token: 'intercom-secret-token' } });
    const api = () => nock(INTERCOM).matchHeader('authorization', 'Bearer intercom-secret-token');
    const base = Math.floor(Date.now() / 1000) - 3600;
    const contact = (n: number, updatedAt: number) => ({
      type: 'contact',
      id: `c${n}`,
      role: 'user',
      email: `c${n}@example.com`,
      name: `Contact ${n}`,
      created_at: base - 100,
      updated_at: updatedAt,
    });

    api()
      .get('/contacts')
      .query({ per_page: '150' })
      .reply(200, { type: 'list', data: [contact(1, base), contact(2, base + 60)], pages: { type: 'pages', per_page: 150 } });
    const first = await syncEntity(id, 'contacts');
    expect(first).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full', high_water_mark: new Date((base + 60) * 1000).toISOString() });

    api()
      .post('/contacts/search', { query: { field: 'updated_at', operator: '>', value: String(base + 60 - 172_800) }, pagination: { per_page: 150 } })
      .reply(200, { type: 'list', data: [contact(3, base + 120)], pages: { type: 'pages', per_page: 150, next: { starting_after: 'cursor-2' } } });
    api()
      .post('/contacts/search', {
        query: { field: 'updated_at', operator: '>', value: String(base + 60 - 172_800) },
        pagination: { per_page: 150, starting_after: 'cursor-2' },
      })
      .reply(200, { type: 'list', data: [contact(1, base + 180)], pages: { type: 'pages', per_page: 150 } });
    const second = await syncEntity(id, 'contacts');
    expect(second).toMatchObject({ status: 'ready', entity_count: 3, last_mode: 'incremental', high_water_mark: new Date((base + 180) * 1000).toISOString() });
    expect((await liveRecords(id, 'contacts')).map((r) => [r.id, r.data.updated_at])).toEqual([
      ['c1', base + 180],
      ['c2', base + 60],
      ['c3', base + 120],
    ]);
  });

  it('Intercom: a contact the full sweep misses is asked for by id, and deleted in that sync when Intercom answers 404', async () => {
    const id = await create({ connector_type: 'intercom', name: 'Intercom deleted', credentials: { access_token: 'intercom-deleted-token' } });
    const api = () => nock(INTERCOM).matchHeader('authorization', 'Bearer intercom-deleted-token').matchHeader('intercom-version', '2.14');
    const base = Math.floor(Date.now() / 1000) - 3600;
    const contact = (n: number) => ({ type: 'contact', id: `c${n}`, role: 'user', email: `c${n}@example.com`, created_at: base, updated_at: base });
    const walk = (data: unknown[]) =>
      api()
        .get('/contacts')
        .query({ per_page: '150' })
        .reply(200, { type: 'list', data, pages: { type: 'pages', per_page: 150 } });
    walk([contact(1), contact(2)]);
    expect(await syncEntity(id, 'contacts')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full' });

    await makeFullSweepDue(service.store, { connectorId: id, entity: 'contacts' });
    walk([contact(2)]);
    const askedFor = api()
      .get('/contacts/c1')
      .reply(404, { type: 'error.list', request_id: 'r1', errors: [{ code: 'not_found', message: 'Contact Not Found' }] });
    expect(await syncResult(id, 'contacts')).toMatchObject({ status: 'ready', mode: 'full', deleted: 1, unconfirmed_deletions: 0, record_count: 1 });
    expect(askedFor.isDone()).toBe(true);
  });

  it('Orb: a customer the next full walk misses is asked for by id, and deleted in that sync when Orb answers 404', async () => {
    const id = await create({ connector_type: 'orb', name: 'Orb deleted', credentials: { api_key: 'orb_deleted_customer_secret' } });
    const api = () => nock('https://api.withorb.com').matchHeader('authorization', 'Bearer orb_deleted_customer_secret');
    const customer = (n: number) => ({ id: `cus_${n}`, external_customer_id: `ext-${n}`, name: `Customer ${n}`, email: `c${n}@example.com` });
    const walk = (data: unknown[]) =>
      api()
        .get('/v1/customers')
        .query({ limit: '100' })
        .reply(200, { data, pagination_metadata: { has_more: false, next_cursor: null } });
    walk([customer(1), customer(2)]);
    expect(await syncResult(id, 'customers')).toMatchObject({ status: 'ready', mode: 'full', record_count: 2 });

    walk([customer(2)]);
    const askedFor = api().get('/v1/customers/cus_1').reply(404, {
      detail: 'Could not find a resource of type Customer with identifier: cus_1.',
      status: 404,
      title: 'A specified resource was not found.',
      type: 'https://docs.withorb.com/reference/error-responses#404-resource-not-found',
    });
    expect(await syncResult(id, 'customers')).toMatchObject({ status: 'ready', mode: 'full', deleted: 1, unconfirmed_deletions: 0, record_count: 1 });
    expect(askedFor.isDone()).toBe(true);
  });

  it('Intercom: conversation parts are read for every conversation by a full walk, then only for the conversations whose updated_at moved', async () => {
    const id = await create({ connector_type: 'intercom', name: 'Intercom parts', credentials: { access_token: 'intercom-secret-token' } });
    /** One run of conversations then their parts, as a sync of the whole connector orders them. */
    const run = () => runEntities(id, ['conversations', 'conversation_parts']);
    const api = () => nock(INTERCOM).matchHeader('authorization', 'Bearer intercom-secret-token').matchHeader('intercom-version', '2.14');
    const base = Math.floor(Date.now() / 1000) - 3600;
    const conversation = (n: number, updatedAt: number) => ({
      type: 'conversation',
      id: String(470 + n),
      created_at: base - 600,
      updated_at: updatedAt,
      state: 'open',
    });
    const part = (n: number, partType: string, createdAt: number) => ({
      type: 'conversation_part',
      id: String(100 + n),
      part_type: partType,
      body: partType === 'comment' ? `<p>Part ${n}</p>` : null,
      created_at: createdAt,
      updated_at: createdAt,
      notified_at: createdAt,
      assigned_to: null,
      author: { type: 'admin', id: '274', name: 'Operator' },
      attachments: [],
      external_id: null,
      redacted: false,
    });
    /** GET /conversations/{id}, with no query: the conversation with its parts. */
    const parts = (n: number, updatedAt: number, list: unknown[]) =>
      api()
        .get(`/conversations/${470 + n}`)
        .reply(200, {
          ...conversation(n, updatedAt),
          conversation_parts: { type: 'conversation_part.list', conversation_parts: list, total_count: list.length },
        });
    const stored = async () => (await liveRecords(id, 'conversation_parts')).map((r) => [r.id, r.data.conversation_id, r.data.part_type, r.deleted]);

    // 1. First sync: every conversation (the list, at its largest page), then every conversation's parts.
    api()
      .get('/conversations')
      .query({ per_page: '150' })
      .reply(200, {
        type: 'conversation.list',
        conversations: [conversation(1, base), conversation(2, base + 60)],
        total_count: 2,
        pages: { type: 'pages', per_page: 150 },
      });
    parts(1, base, [part(1, 'comment', base - 600), part(2, 'close', base)]);
    parts(2, base + 60, [part(3, 'comment', base + 60)]);
    const first = await run();
    expect(first.map((o) => [o.entity, o.status, o.mode, o.records, o.pages])).toEqual([
      ['conversations', 'ready', 'full', 2, 1],
      ['conversation_parts', 'ready', 'full', 3, 2],
    ]);
    expect(await entityState(id, 'conversations')).toMatchObject({ entity_count: 2, high_water_mark: new Date((base + 60) * 1000).toISOString() });
    expect(await entityState(id, 'conversation_parts')).toMatchObject({ status: 'ready', entity_count: 3, last_mode: 'full' });

    // 2. A reply to conversation 472 moved its updated_at: the search (mark - 5 min) finds it alone, and
    // only its parts are read again (no request for conversation 471's).
    api()
      .post('/conversations/search', { query: { field: 'updated_at', operator: '>', value: String(base + 60 - 300) }, pagination: { per_page: 150 } })
      .reply(200, { type: 'conversation.list', conversations: [conversation(2, base + 120)], total_count: 1, pages: { type: 'pages', per_page: 150 } });
    parts(2, base + 120, [part(3, 'comment', base + 60), part(4, 'comment', base + 120)]);
    const second = await run();
    expect(second.map((o) => [o.entity, o.status, o.mode, o.records, o.pages, o.deleted])).toEqual([
      ['conversations', 'ready', 'incremental', 1, 1, 0],
      ['conversation_parts', 'ready', 'incremental', 2, 1, 0],
    ]);
    expect(await entityState(id, 'conversation_parts')).toMatchObject({ status: 'ready', entity_count: 4, mode: 'incremental', last_mode: 'incremental' });
    expect(await stored()).toEqual([
      ['101', '471', 'comment', false],
      ['102', '471', 'close', false],
      ['103', '472', 'comment', false],
      ['104', '472', 'comment', false],
    ]);
  });

  it('a failed incremental sync keeps the mark, so the next one asks again from the same point', async () => {
    const id = await create({ connector_type: 'harvest', name: 'Harvest 2', credentials: { api_token: 'harvest-secret-token', account_id: '123456' } });
    const t0 = Date.now() - 30 * MINUTE;
    const api = () => nock(HARVEST).matchHeader('authorization', 'Bearer harvest-secret-token');
    const page = (tasks: unknown[]) => ({ tasks, links: { next: null } });
    api()
      .get('/v2/tasks')
      .query({ per_page: '2000' })
      .reply(200, page([{ id: 1, name: 'Design', updated_at: isoSeconds(t0) }]));
    const first = await syncEntity(id, 'tasks');
    expect(first.high_water_mark).toBe(new Date(isoSeconds(t0)).toISOString());

    api()
      .get('/v2/tasks')
      .query({ per_page: '2000', updated_since: isoSeconds(t0 - 5 * MINUTE) })
      .reply(400, { message: 'bad request' });
    const failed = await syncEntity(id, 'tasks');
    expect(failed).toMatchObject({ status: 'failed', last_mode: 'incremental', high_water_mark: first.high_water_mark });

    api()
      .get('/v2/tasks')
      .query({ per_page: '2000', updated_since: isoSeconds(t0 - 5 * MINUTE) })
      .reply(200, tasksPage([]));
    expect(await syncEntity(id, 'tasks')).toMatchObject({ status: 'ready', last_mode: 'incremental', high_water_mark: first.high_water_mark });
  });
});

describe('change filter helpers', () => {
  const harvest = connectorModules.harvest?.definition.entities.clients?.search.incremental;
  const now = new Date('2026-05-01T12:00:00Z');

  it('decides full before the first full walk, without a mark, and when the sweep is due; incremental otherwise', () => {
    if (!harvest) throw new Error('harvest clients declares no change filter');
    const mark = new Date('2026-05-01T11:00:00Z');
    expect(decideMode(undefined, undefined, now).mode).toBe('full');
    expect(decideMode(harvest, undefined, now).mode).toBe('full');
    expect(
      decideMode(harvest, { highWaterMark: null, lastFullSweepAt: new Date('2026-05-01T10:00:00Z'), syncedThrough: null, unconfirmedDeletions: 0 }, now).mode,
    ).toBe('full');
    expect(
      decideMode(harvest, { highWaterMark: mark, lastFullSweepAt: new Date('2026-04-30T12:00:00Z'), syncedThrough: null, unconfirmedDeletions: 0 }, now).mode,
    ).toBe('full');
    expect(
      decideMode(harvest, { highWaterMark: mark, lastFullSweepAt: new Date('2026-04-30T12:00:01Z'), syncedThrough: null, unconfirmedDeletions: 0 }, now),
    ).toEqual({
      mode: 'incremental',
      why: 'changes since the high-water mark',
      since: new Date('2026-05-01T10:55:00Z'),
    });
    // Records the last full walk missed are confirmed by the next sync walking in full, well before the sweep is due.
    expect(
      decideMode(harvest, { highWaterMark: mark, lastFullSweepAt: new Date('2026-05-01T11:30:00Z'), syncedThrough: null, unconfirmedDeletions: 2 }, now),
    ).toEqual({
      mode: 'full',
      why: '2 records the last full walk did not read: deleted if this full walk misses them too',
    });
  });

  it('reads change times in every field format, including Jira offsets and zone-less times as UTC', () => {
    expect(changeTime({ fields: { updated: '2026-05-01T10:00:00.000+0200' } }, { field: 'fields.updated', fieldFormat: 'iso8601' })).toBe(
      Date.parse('2026-05-01T08:00:00Z'),
    );
    expect(changeTime({ t: '2026-05-01 10:00:00' }, { field: 't', fieldFormat: 'iso8601' })).toBe(Date.parse('2026-05-01T10:00:00Z'));
    expect(changeTime({ t: 1777636800 }, { field: 't', fieldFormat: 'unix_seconds' })).toBe(1777636800000);
    expect(changeTime({ t: '1777636800123' }, { field: 't', fieldFormat: 'unix_millis' })).toBe(1777636800123);
    expect(changeTime({ t: 'yesterday' }, { field: 't', fieldFormat: 'iso8601' })).toBeUndefined();
    expect(changeTime({}, { field: 't', fieldFormat: 'unix_seconds' })).toBeUndefined();
  });

  it('formats the mark as each vendor expects', () => {
    const since = new Date('2026-05-01T10:55:30.250Z');
    expect(formatInstant(since, 'iso8601', now)).toBe('2026-05-01T10:55:30Z');
    expect(formatInstant(since, 'iso8601_offset', now)).toBe('2026-05-01T10:55:30+00:00');
    expect(formatInstant(since, 'iso8601_millis', now)).toBe('2026-05-01T10:55:30.250Z');
    expect(formatInstant(since, 'date', now)).toBe('2026-05-01');
    expect(formatInstant(since, 'unix_seconds', now)).toBe(1777632930);
    expect(formatInstant(since, 'unix_millis', now)).toBe(1777632930250);
    expect(formatInstant(since, 'unix_micros', now)).toBe(1777632930250000);
    expect(formatInstant(since, 'minutes_ago', now)).toBe(65);
  });

  it('fills a template with the mark and the current value, as JSON for an object param', () => {
    const jira = connectorModules.jira?.definition.entities.issues;
    const jiraFilter = jira?.search.incremental;
    if (!jira?.actions.list || !jiraFilter) throw new Error('jira issues declares no change filter');
    expect(changeFilterParams(jiraFilter, jira.actions.list, new Date('2026-05-01T11:00:00Z'), { project: 'ABC' }, now)).toEqual({
      project: 'ABC AND updated >= "-60m" ORDER BY updated ASC',
    });
    const intercom = connectorModules.intercom?.definition.entities.conversations;
    const intercomFilter = intercom?.search.incremental;
    if (!intercom?.actions.api_search || !intercomFilter) throw new Error('intercom conversations declares no change filter');
    expect(changeFilterParams(intercomFilter, intercom.actions.api_search, new Date('2026-05-01T11:00:00Z'), {}, now)).toEqual({
      query: { field: 'updated_at', operator: '>', value: '1777633200' },
    });
  });

  it('progress lines say when a sync read only the changes', () => {
    const progress = { connectorId: 'c', entity: 'clients', phase: 'ready' as const, records: 3, changed: 1, pages: 1, deleted: 0, elapsedMs: 1000 };
    expect(formatPlainLine({ ...progress, mode: 'incremental' })).toBe('sync clients: ready, 3 records, 1 pages, 3.0 rec/s, 1.0s (incremental, 1 changed)');
    expect(formatPlainLine({ ...progress, mode: 'full' })).toBe('sync clients: ready, 3 records, 1 pages, 3.0 rec/s, 1.0s (1 changed)');
  });
});
