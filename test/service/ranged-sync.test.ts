import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { connectorSyncApi, useNockedVendors } from '../support/sync-api.js';

// Lists a sync calls more than once to read a whole entity (manifest search.each and search.window): once
// per value of an enum param, and once per time range where the vendor's list needs one. Every request
// is asserted as the vendor receives it.

const CONNECTORS = '/api/v1/integrations/connectors';
const DAY = 86_400_000;

/** ISO 8601 at whole seconds. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

describe.each(storeKinds())('syncs of lists read in several calls (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;

  useNockedVendors();
  const { create, entityState, syncEntity, syncResult } = connectorSyncApi(() => tenant);

  beforeAll(async () => {
    // Page retries off, except for rate limits: what the vendor receives is what these tests watch.
    service = await startTestService(kind, { upstreamRetries: 0 }, { sync: { retry: { retries: 0, rateLimitRetries: 3, baseMs: 5, maxMs: 20 } } });
    tenant = await createTenant(service, 'Ranged Org');
  });
  afterAll(async () => {
    await service.close();
  });

  async function search(id: string, entity: string, filter?: Record<string, unknown>) {
    const res = await tenant.api.post<{ result: { data: Array<Record<string, unknown>> } }>(`${CONNECTORS}/${id}/execute`, {
      entity,
      action: 'context_store_search',
      params: { query: filter ? { filter } : {}, limit: 100 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.result.data;
  }

  it('Pylon: issues are read in consecutive 30-day ranges since 2022, each to its last page, then searched by updated_at', async () => {
    const id = await create({ connector_type: 'pylon', name: 'Pylon', credentials: { api_token: 'pylon-secret-token' } });
    const start = Date.parse('2022-01-01T00:00:00Z');
    const issue = (n: number, created: number) => ({
      id: `issue-${n}`,
      number: n,
      title: `Issue ${n}`,
      state: 'new',
      created_at: isoSeconds(created),
      updated_at: isoSeconds(created + 60_000),
    });
    // Two issues in the first range (two pages), one in the 20th, one created an hour ago.
    const issues = [issue(1, start + DAY), issue(2, start + 2 * DAY), issue(3, start + 19 * 30 * DAY + DAY), issue(4, Date.now() - 3_600_000)];
    const asked: Array<{ start_time: string; end_time: string; cursor?: string }> = [];
    /** Pylon's GET /issues over `issues`, noting each query; a range holding two issues answers them in two pages. */
    const answerIssues = () =>
      nock('https://api.usepylon.com')
        .matchHeader('authorization', 'Bearer pylon-secret-token')
        .get('/issues')
        .query(true)
        .times(200)
        .reply((uri) => {
          const query = Object.fromEntries(new URL(uri, 'https://api.usepylon.com').searchParams) as (typeof asked)[number];
          asked.push(query);
          const from = Date.parse(query.start_time);
          const to = Date.parse(query.end_time);
          const inRange = issues.filter((i) => Date.parse(i.created_at) >= from && Date.parse(i.created_at) < to);
          if (inRange.length === 2 && query.cursor === undefined)
            return [200, { data: inRange.slice(0, 1), pagination: { cursor: 'page2', has_next_page: true }, request_id: 'r' }];
          const data = query.cursor === 'page2' ? inRange.slice(1) : inRange;
          return [200, { data, pagination: { cursor: null, has_next_page: false }, request_id: 'r' }];
        });
    const before = Date.now();
    answerIssues();

    expect(await syncEntity(id, 'issues')).toMatchObject({ status: 'ready', entity_count: 4, last_mode: 'full', reason: null });
    const after = Date.now();

    // The first range, twice: its second page carries the cursor.
    expect(asked[0]).toEqual({ start_time: '2022-01-01T00:00:00Z', end_time: '2022-01-31T00:00:00Z' });
    expect(asked[1]).toEqual({ start_time: '2022-01-01T00:00:00Z', end_time: '2022-01-31T00:00:00Z', cursor: 'page2' });
    const ranges = asked.filter((q) => q.cursor === undefined);
    expect(asked).toHaveLength(ranges.length + 1);
    ranges.forEach((range, i) => {
      // Each range spans 30 days and the next begins a second before it ends (a boundary record is listed
      // whatever Pylon's ends include); the last ends now.
      expect(Date.parse(range.start_time)).toBe(start + i * (30 * DAY - 1000));
      if (i < ranges.length - 1) expect(Date.parse(range.end_time)).toBe(Date.parse(range.start_time) + 30 * DAY);
      if (i < ranges.length - 1) expect(Date.parse(ranges[i + 1]?.start_time ?? '')).toBe(Date.parse(range.end_time) - 1000);
    });
    const last = ranges[ranges.length - 1];
    expect(Date.parse(last?.end_time ?? '')).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(last?.end_time ?? '')).toBeLessThanOrEqual(after);
    expect(Date.parse(last?.end_time ?? '') - Date.parse(last?.start_time ?? '')).toBeLessThanOrEqual(30 * DAY);
    expect(ranges).toHaveLength(Math.ceil((Date.parse(last?.end_time ?? '') - start - 1000) / (30 * DAY - 1000)));
    expect((await search(id, 'issues')).map((r) => r.id)).toEqual(['issue-1', 'issue-2', 'issue-3', 'issue-4']);

    // The ranges are on creation, not change: a later sync asks POST /issues/search instead, for the issues
    // updated after the mark (the latest updated_at read, less the 300 s overlap), in one request.
    nock.cleanAll();
    const mark = Math.max(...issues.map((i) => Date.parse(i.updated_at)));
    const searched: unknown[] = [];
    nock('https://api.usepylon.com')
      .matchHeader('authorization', 'Bearer pylon-secret-token')
      .matchHeader('content-type', 'application/json')
      .post('/issues/search', (body) => searched.push(body) > 0)
      .reply(200, {
        data: [{ ...issues[3], title: 'Issue 4, renamed', updated_at: isoSeconds(Date.now()) }],
        pagination: { cursor: null, has_next_page: false },
        request_id: 'r',
      });
    expect(await syncEntity(id, 'issues')).toMatchObject({ status: 'ready', entity_count: 4, last_mode: 'incremental', reason: null });
    expect(searched).toEqual([{ filter: { field: 'updated_at', operator: 'time_is_after', value: isoSeconds(mark - 300_000) }, limit: 999 }]);
    expect((await search(id, 'issues', { eq: { id: 'issue-4' } })).map((r) => r.title)).toEqual(['Issue 4, renamed']);

    // Deletions show in full walks (the daily sweep; asked for here): an issue gone upstream is noted by the first
    // full walk that misses it and deleted by the second.
    issues.splice(2, 1);
    for (const expected of [
      { entity_count: 4, unconfirmed_deletions: 1 },
      { entity_count: 3, unconfirmed_deletions: 0 },
    ]) {
      asked.length = 0;
      // The answering interceptor allowed more ranges than there are; `asked` holds the ones read.
      nock.cleanAll();
      answerIssues();
      await syncResult(id, 'issues', { full: true });
      expect(await entityState(id, 'issues')).toMatchObject({ status: 'ready', last_mode: 'full', ...expected });
      expect(asked).toHaveLength(ranges.length + 1);
    }
    expect((await search(id, 'issues')).map((r) => r.id)).toEqual(['issue-1', 'issue-2', 'issue-4']);
    nock.cleanAll();
  });

  it('Pylon: a range refused as rate limited is waited out beyond the ordinary retries', async () => {
    const id = await create({ connector_type: 'pylon', name: 'Pylon limited', credentials: { api_token: 'pylon-limited-token' } });
    const api = nock('https://api.usepylon.com');
    // Pylon allows 10 issue lists a minute: the first range is refused three times without a Retry-After.
    api
      .get('/issues')
      .query({ start_time: '2022-01-01T00:00:00Z', end_time: '2022-01-31T00:00:00Z' })
      .times(3)
      .reply(429, { errors: ['rate limited'] });
    api
      .get('/issues')
      .query({ start_time: '2022-01-01T00:00:00Z', end_time: '2022-01-31T00:00:00Z' })
      .reply(200, { data: [{ id: 'issue-1', title: 'Issue 1', created_at: '2022-01-02T00:00:00Z' }], pagination: { has_next_page: false } });
    api
      .get('/issues')
      .query((q) => q.start_time !== '2022-01-01T00:00:00Z')
      .times(200)
      .reply(200, { data: [], pagination: { has_next_page: false } });
    expect(await syncEntity(id, 'issues')).toMatchObject({ status: 'ready', entity_count: 1 });
    expect(nock.pendingMocks()).toEqual(['GET https://api.usepylon.com:443/issues']);

    // A fourth refusal is one more than the rate-limit retries allow (3 here): the sync fails and says why.
    nock.cleanAll();
    nock('https://api.usepylon.com')
      .get('/issues')
      .query(true)
      .times(4)
      .reply(429, { errors: ['rate limited'] });
    const failed = await syncEntity(id, 'issues');
    expect(failed).toMatchObject({ status: 'failed', entity_count: 1 });
    expect(failed.reason).toMatch(/^Reading issues \(2022-01-01T00:00:00\.000Z to 2022-01-31T00:00:00\.000Z, page 1\) failed after 4 attempts: /);
  });

  it('Harvest: a time report covers the last 365 days, today included', async () => {
    const id = await create({ connector_type: 'harvest', name: 'Harvest', credentials: { api_token: 'harvest-secret-token', account_id: '42' } });
    const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
    const before = Date.now();
    const queries: Array<Record<string, string>> = [];
    nock('https://api.harvestapp.com')
      .matchHeader('authorization', 'Bearer harvest-secret-token')
      .matchHeader('harvest-account-id', '42')
      .get('/v2/reports/time/projects')
      .query((q) => {
        queries.push(q as Record<string, string>);
        return true;
      })
      .reply(200, {
        results: [
          {
            project_id: 7,
            project_name: 'Website',
            client_id: 3,
            client_name: 'Acme',
            total_hours: 12.5,
            billable_hours: 10,
            currency: 'EUR',
            billable_amount: 1000,
          },
          { project_id: 8, project_name: 'App', client_id: 3, client_name: 'Acme', total_hours: 4, billable_hours: 4, currency: 'EUR', billable_amount: 400 },
        ],
        per_page: 2000,
        total_pages: 1,
        total_entries: 2,
        next_page: null,
        previous_page: null,
        page: 1,
        links: { next: null },
      });
    expect(await syncEntity(id, 'time_projects')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full' });
    const after = Date.now();
    expect(queries).toHaveLength(1);
    const { from, to, ...rest } = queries[0] as Record<string, string>;
    expect([day(before), day(after)]).toContain(to);
    expect(from).toBe(day(Date.parse(`${to}T00:00:00Z`) - 364 * DAY));
    expect(rest).toEqual({ per_page: '2000' });
    expect((await search(id, 'time_projects', { eq: { project_name: 'Website' } })).map((r) => r.total_hours)).toEqual([12.5]);
  });

  it('Gong: detailed calls are asked for since 2010 in the body filter', async () => {
    const id = await create({ connector_type: 'gong', name: 'Gong', credentials: { access_key: 'gong-key', access_key_secret: 'gong-secret' } });
    const auth = `Basic ${Buffer.from('gong-key:gong-secret').toString('base64')}`;
    const bodies: Array<Record<string, unknown>> = [];
    const call = (n: number) => ({ metaData: { id: String(1000 + n), title: `Call ${n}`, started: '2025-01-02T10:00:00Z' }, parties: [] });
    const before = Date.now();
    nock('https://api.gong.io')
      .matchHeader('authorization', auth)
      .post('/v2/calls/extensive', (body: Record<string, unknown>) => {
        bodies.push(body);
        return true;
      })
      .times(2)
      .reply((_uri, body) =>
        (body as { cursor?: string }).cursor === undefined
          ? [200, { requestId: 'r1', records: { totalRecords: 2, currentPageSize: 1, currentPageNumber: 0, cursor: 'next-page' }, calls: [call(1)] }]
          : [200, { requestId: 'r2', records: { totalRecords: 2, currentPageSize: 1, currentPageNumber: 1 }, calls: [call(2)] }],
      );
    expect(await syncEntity(id, 'calls_extensive')).toMatchObject({ status: 'ready', entity_count: 2 });
    const after = Date.now();
    const toDateTime = String((bodies[0]?.filter as { toDateTime?: string } | undefined)?.toDateTime);
    expect(Date.parse(toDateTime)).toBeGreaterThanOrEqual(Math.floor(before / 1000) * 1000);
    expect(Date.parse(toDateTime)).toBeLessThanOrEqual(after);
    expect(bodies).toEqual([
      { filter: { fromDateTime: '2010-01-01T00:00:00Z', toDateTime } },
      { filter: { fromDateTime: '2010-01-01T00:00:00Z', toDateTime }, cursor: 'next-page' },
    ]);
  });

  it('Gong: a call the walk no longer reads is asked for by id, and deleted in that sync when Gong answers 404', async () => {
    const id = await create({
      connector_type: 'gong',
      name: 'Gong calls',
      credentials: { access_key: 'gong-calls-key', access_key_secret: 'gong-calls-secret' },
    });
    const api = () => nock('https://api.gong.io').matchHeader('authorization', `Basic ${Buffer.from('gong-calls-key:gong-calls-secret').toString('base64')}`);
    const call = (n: number) => ({ id: String(7000 + n), title: `Call ${n}`, started: '2025-01-02T10:00:00Z', primaryUserId: '42' });
    const walk = (calls: unknown[]) =>
      api()
        .get('/v2/calls')
        .query((query) => query.fromDateTime === '2010-01-01T00:00:00Z' && typeof query.toDateTime === 'string' && Object.keys(query).length === 2)
        .reply(200, { requestId: 'r', records: { totalRecords: calls.length, currentPageSize: calls.length, currentPageNumber: 0 }, calls });
    walk([call(1), call(2)]);
    expect(await syncEntity(id, 'calls')).toMatchObject({ status: 'ready', entity_count: 2 });

    // Call 1 was deleted at Gong: the next walk (calls are read in full every sync) does not list it, and
    // GET /v2/calls/7001 answers 404.
    walk([call(2)]);
    const askedFor = api()
      .get('/v2/calls/7001')
      .reply(404, { requestId: 'r404', errors: ['Call ID was not found'] });
    expect(await syncEntity(id, 'calls')).toMatchObject({ status: 'ready', entity_count: 1, unconfirmed_deletions: 0 });
    expect(askedFor.isDone()).toBe(true);
  });

  it('Gong: answered scorecards need no range: one walk with the empty filter, page by page; scorecards in one answer', async () => {
    const id = await create({
      connector_type: 'gong',
      name: 'Gong scorecards',
      credentials: { access_key: 'gong-sc-key', access_key_secret: 'gong-sc-secret' },
    });
    const api = () =>
      nock('https://api.gong.io')
        .matchHeader('authorization', `Basic ${Buffer.from('gong-sc-key:gong-sc-secret').toString('base64')}`)
        .matchHeader('accept', 'application/json');
    const answered = (n: number, reviewer: string | null) => ({
      answeredScorecardId: String(5000 + n),
      scorecardId: '6843152929075440037',
      scorecardName: 'SDR Call Scorecard',
      callId: String(7000 + n),
      callStartTime: '2025-01-02T10:00:00Z',
      reviewedUserId: '234599484848423',
      reviewerUserId: reviewer,
      reviewTime: '2025-01-03T09:00:00Z',
      visibilityType: 'PUBLIC',
      answers: [{ questionId: '1001', isOverall: true, score: n, answerText: null, notApplicable: false, selectedOptions: null }],
    });
    // Gong requires the filter object; with none of its dates it lists every answered scorecard.
    api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/stats/activity/scorecards', { filter: {} })
      .reply(200, {
        requestId: 'r1',
        records: { totalRecords: 3, currentPageSize: 2, currentPageNumber: 0, cursor: 'page-2' },
        answeredScorecards: [answered(1, '563515258458745'), answered(2, '563515258458745')],
      })
      .post('/v2/stats/activity/scorecards', { filter: {}, cursor: 'page-2' })
      .reply(200, { requestId: 'r2', records: { totalRecords: 3, currentPageSize: 1, currentPageNumber: 1 }, answeredScorecards: [answered(3, null)] });
    expect(await syncEntity(id, 'stats_activity_scorecards')).toMatchObject({ status: 'ready', entity_count: 3, last_mode: 'full', reason: null });
    expect((await search(id, 'stats_activity_scorecards', { eq: { answeredScorecardId: '5003' } })).map((r) => r.callId)).toEqual(['7003']);

    // Scorecard ids come as text or as numbers (Gong's description says int64): both are stored and found.
    api()
      .get('/v2/settings/scorecards')
      .reply(200, {
        requestId: 'r3',
        scorecards: [
          { scorecardId: '6843152929075440037', scorecardName: 'SDR Call Scorecard', workspaceId: '623457276584334', enabled: true, questions: [] },
          { scorecardId: 4471829, scorecardName: 'Discovery Scorecard', workspaceId: 623457276584, enabled: false, questions: [] },
        ],
      });
    expect(await syncEntity(id, 'settings_scorecards')).toMatchObject({ status: 'ready', entity_count: 2, last_mode: 'full', reason: null });
    expect((await search(id, 'settings_scorecards', { eq: { scorecardId: '4471829' } })).map((r) => r.scorecardName)).toEqual(['Discovery Scorecard']);
    expect((await search(id, 'settings_scorecards', { eq: { enabled: true } })).map((r) => r.scorecardId)).toEqual(['6843152929075440037']);
  });

  it('Klaviyo: campaigns are listed once per channel, and the channels together make the entity', async () => {
    const id = await create({ connector_type: 'klaviyo', name: 'Klaviyo', credentials: { api_key: 'pk_klaviyo_campaigns' } });
    const campaign = (n: number, name: string) => ({
      type: 'campaign',
      id: `C${n}`,
      attributes: { name, status: 'Sent', updated_at: '2026-01-01T00:00:00+00:00' },
    });
    /** The one page of a channel's campaigns, asked for exactly as Klaviyo requires. */
    const channel = (name: 'email' | 'sms' | 'mobile_push', campaigns: unknown[]) =>
      nock('https://a.klaviyo.com')
        .matchHeader('authorization', 'Klaviyo-API-Key pk_klaviyo_campaigns')
        .matchHeader('revision', '2026-07-15')
        .get('/api/campaigns')
        .query({ filter: `equals(messages.channel,'${name}')`, 'page[size]': '100' })
        .reply(200, { data: campaigns, links: { self: '', next: null } });
    channel('email', [campaign(1, 'Spring sale'), campaign(2, 'Newsletter')]);
    channel('sms', [campaign(3, 'Flash sale')]);
    channel('mobile_push', [campaign(4, 'App launch')]);
    expect(await syncEntity(id, 'campaigns')).toMatchObject({ status: 'ready', entity_count: 4, last_mode: 'full' });
    expect((await search(id, 'campaigns')).map((r) => r.id)).toEqual(['C1', 'C2', 'C3', 'C4']);

    // An SMS campaign gone upstream is swept (noted by the first sync that misses it, deleted by the second); the
    // email ones stay.
    for (const expected of [
      { entity_count: 4, unconfirmed_deletions: 1 },
      { entity_count: 3, unconfirmed_deletions: 0 },
    ]) {
      channel('email', [campaign(1, 'Spring sale'), campaign(2, 'Newsletter')]);
      channel('sms', []);
      channel('mobile_push', [campaign(4, 'App launch')]);
      expect(await syncEntity(id, 'campaigns')).toMatchObject({ status: 'ready', ...expected });
    }
    expect((await search(id, 'campaigns')).map((r) => r.id)).toEqual(['C1', 'C2', 'C4']);
  });

  it('Pylon: articles and collections are listed per knowledge base, each record keeping its knowledge base', async () => {
    const id = await create({ connector_type: 'pylon', name: 'Pylon help center', credentials: { api_token: 'pylon-kb-token' } });
    const api = () => nock('https://api.usepylon.com').matchHeader('authorization', 'Bearer pylon-kb-token');
    const knowledgeBases = () =>
      api()
        .get('/knowledge-bases')
        .reply(200, {
          data: [
            { id: 'kb-help', title: 'Help Center', slug: 'help' },
            { id: 'kb-dev', title: 'Developer Docs', slug: 'dev' },
          ],
          request_id: 'r',
        });
    knowledgeBases();
    api()
      .get('/knowledge-bases/kb-help/articles')
      .query({ limit: '999' })
      .reply(200, { data: [{ id: 'art-1', title: 'Reset your password' }], pagination: { has_next_page: false }, request_id: 'r' });
    api()
      .get('/knowledge-bases/kb-dev/articles')
      .query({ limit: '999' })
      .reply(200, { data: [{ id: 'art-2', title: 'API tokens' }], pagination: { has_next_page: false }, request_id: 'r' });
    expect(await syncEntity(id, 'articles')).toMatchObject({ status: 'ready', entity_count: 2 });
    expect((await search(id, 'articles', { eq: { knowledge_base_id: 'kb-dev' } })).map((r) => r.title)).toEqual(['API tokens']);

    knowledgeBases();
    api()
      .get('/knowledge-bases/kb-help/collections')
      .reply(200, { data: [{ id: 'col-1', title: 'Account' }], request_id: 'r' });
    api()
      .get('/knowledge-bases/kb-dev/collections')
      .reply(200, { data: [{ id: 'col-2', title: 'Authentication' }], request_id: 'r' });
    expect(await syncEntity(id, 'collections')).toMatchObject({ status: 'ready', entity_count: 2 });
    expect((await search(id, 'collections', { eq: { knowledge_base_id: 'kb-help' } })).map((r) => r.title)).toEqual(['Account']);
  });

  it('Pylon: custom fields are listed once per object type of the enum', async () => {
    const id = await create({ connector_type: 'pylon', name: 'Pylon fields', credentials: { api_token: 'pylon-fields-token' } });
    const types = ['account', 'issue', 'contact', 'task', 'project', 'call_recording'];
    for (const type of types) {
      nock('https://api.usepylon.com')
        .matchHeader('authorization', 'Bearer pylon-fields-token')
        .get('/custom-fields')
        .query({ object_type: type })
        .reply(200, {
          data: [{ id: `cf-${type}`, slug: `${type}_tier`, label: 'Tier', object_type: type, type: 'select' }],
          pagination: { has_next_page: false },
        });
    }
    expect(await syncEntity(id, 'custom_fields')).toMatchObject({ status: 'ready', entity_count: 6 });
    expect((await search(id, 'custom_fields', { eq: { object_type: 'contact' } })).map((r) => r.id)).toEqual(['cf-contact']);
  });
});
