/**
 * context_store_search, filter mode, through POST /connectors/{id}/execute on both stores: every
 * operator, sort, cursor paging while records arrive, tampered cursors, fields, validation errors,
 * readiness, deleted records and organization isolation. Records and sync state are seeded straight
 * into context_records / context_sync_state, the way the sync writes them (record_id = the id as text).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { insertConnector } from '../support/connector-rows.js';
import { storeRecords } from '../support/context-store.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

type Rec = Record<string, unknown>;

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string; details?: Rec }>;
}

interface SearchBody {
  status: string;
  result: { data: Rec[]; meta: { has_more: boolean; cursor: string | null; took_ms: number } };
  connector_metadata: Rec;
}

const ISSUES: Rec[] = [
  {
    id: 'iss-01',
    identifier: 'ENG-1',
    title: 'Refund for order #42',
    description: 'The customer wants the money back.',
    priority: 1,
    priorityLabel: 'Urgent',
    dueDate: '2024-03-01',
    labelIds: ['bug', 'billing'],
    state: { id: 's1', name: 'Todo' },
    assignee: { id: 'u1', name: 'Ada Lovelace' },
    team: { id: 't1', name: 'Engineering' },
    createdAt: '2024-01-05T10:00:00.000Z',
    updatedAt: '2024-01-06T10:00:00.000Z',
    url: 'https://linear.app/x/ENG-1',
  },
  {
    id: 'iss-02',
    identifier: 'ENG-2',
    title: 'Login broken on Safari',
    priority: 2,
    priorityLabel: 'High',
    labelIds: ['bug'],
    state: { id: 's2', name: 'Done' },
    assignee: null,
    team: { id: 't1', name: 'Engineering' },
    createdAt: '2024-02-05T10:00:00+02:00',
    updatedAt: '2024-02-06T10:00:00Z',
  },
  {
    id: 'iss-03',
    identifier: 'ENG-3',
    title: 'export to CSV',
    priority: 3,
    priorityLabel: 'Normal',
    labelIds: [],
    state: { id: 's1', name: 'Todo' },
    assignee: { id: 'u2', name: 'Grace Hopper' },
    team: { id: 't2', name: 'Data' },
    createdAt: '2024-03-05',
    updatedAt: '2024-03-05',
  },
  {
    id: 'iss-04',
    identifier: 'OPS-4',
    title: 'Dark mode support',
    priority: 0,
    priorityLabel: 'No priority',
    labelIds: ['feature'],
    state: { id: 's3', name: 'In Progress' },
    team: { id: 't2', name: 'Data' },
    createdAt: '2023-12-31T23:30:00-01:00',
    updatedAt: '2024-01-01T00:30:00Z',
  },
  {
    id: 'iss-05',
    identifier: 'OPS-5',
    title: '100% coverage_goal',
    priority: 4,
    priorityLabel: 'Low',
    labelIds: ['chore', 'ci'],
    state: { id: 's2', name: 'Done' },
    assignee: { id: 'u1', name: 'Ada Lovelace' },
    team: { id: 't1', name: 'Engineering' },
    createdAt: '2024-01-20T12:00:00Z',
    updatedAt: '2024-01-20T12:00:00Z',
  },
];

/** Intercom conversations: Unix-second timestamps, booleans, arrays of objects under an object. */
const CONVERSATIONS: Rec[] = [
  {
    id: '101',
    title: 'Where is my refund?',
    state: 'open',
    open: true,
    read: false,
    created_at: 1704448800,
    tags: {
      type: 'tag.list',
      tags: [
        { id: '1', name: 'VIP' },
        { id: '2', name: 'billing' },
      ],
    },
  },
  {
    id: '102',
    title: 'Password reset',
    state: 'closed',
    open: false,
    read: true,
    created_at: 1707120000,
    tags: { type: 'tag.list', tags: [{ id: '3', name: 'account' }] },
  },
  { id: '103', title: 'Invoice copy', state: 'snoozed', open: true, read: true, created_at: 1709640000, tags: { type: 'tag.list', tags: [] } },
];

const execute = (id: string) => `/api/v1/integrations/connectors/${id}/execute`;

describe.each(storeKinds())('context_store_search, filter mode (%s)', (kind) => {
  let service: TestService;
  let a: Tenant;
  let b: Tenant;
  let linearA: string;
  let linearB: string;
  let intercomA: string;

  const seed = (connectorId: string, organizationId: string, entity: string, records: Rec[], options: { deleted?: boolean } = {}) =>
    storeRecords(service.store, { organizationId, connectorId, entity }, records, options);

  async function syncState(
    connectorId: string,
    entity: string,
    status: 'initializing' | 'ready' | 'updating' | 'failed',
    synced: boolean,
    lastError?: string,
  ): Promise<void> {
    await service.store.db
      .insertInto('context_sync_state')
      .values({ connector_id: connectorId, entity, status, last_synced_at: synced ? new Date() : null, last_error: lastError ?? null })
      .onConflict((oc) =>
        oc.columns(['connector_id', 'entity']).doUpdateSet({ status, last_synced_at: synced ? new Date() : null, last_error: lastError ?? null }),
      )
      .execute();
  }

  const search = <T = SearchBody>(id: string, params: unknown, tenant?: Tenant, extra: Rec = {}) =>
    (tenant ?? a).api.post<T>(execute(id), { entity: 'issues', action: 'context_store_search', params, ...extra });

  async function ids(filter: unknown, connectorId = linearA, entity = 'issues'): Promise<string[]> {
    const response = await a.api.post<SearchBody>(execute(connectorId), { entity, action: 'context_store_search', params: { query: { filter } } });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    return response.body.result.data.map((record) => String(record.id)).sort();
  }

  async function invalid(params: unknown, entity = 'issues', connectorId = linearA): Promise<ErrorBody> {
    const response = await a.api.post<ErrorBody>(execute(connectorId), { entity, action: 'context_store_search', params });
    expect(response.status, JSON.stringify(response.body)).toBe(400);
    return response.body;
  }

  beforeAll(async () => {
    service = await startTestService(kind);
    a = await createTenant(service, 'Acme');
    b = await createTenant(service, 'Globex');
    linearA = await insertConnector(service, a.organizationId, { connectorType: 'linear', authOption: 'API Key', credentials: { api_key: 'lin-key-a' } });
    linearB = await insertConnector(service, b.organizationId, { connectorType: 'linear', authOption: 'API Key', credentials: { api_key: 'lin-key-b' } });
    intercomA = await insertConnector(service, a.organizationId, {
      connectorType: 'intercom',
      authOption: 'Access Token',
      credentials: { access_token: 'ic-token' },
    });
    await seed(linearA, a.organizationId, 'issues', ISSUES);
    await seed(linearA, a.organizationId, 'issues', [{ ...ISSUES[0], id: 'iss-99', title: 'Deleted refund issue' }], { deleted: true });
    await seed(linearB, b.organizationId, 'issues', [{ ...ISSUES[0], id: 'iss-b1', title: 'Refund of Globex' }]);
    await seed(intercomA, a.organizationId, 'conversations', CONVERSATIONS);
    await syncState(linearA, 'issues', 'ready', true);
    await syncState(linearB, 'issues', 'ready', true);
    await syncState(intercomA, 'conversations', 'ready', true);
  });

  afterAll(async () => {
    await service?.close();
  });

  it('answers {data, meta} inside the execute envelope, with the searchable fields of each live record', async () => {
    const response = await search(linearA, { query: {} });
    expect(response.status).toBe(200);
    expect(response.body.status).toBe('success');
    expect(response.body.connector_metadata).toEqual({});
    const { data, meta } = response.body.result;
    expect(data.map((record) => record.id)).toEqual(['iss-01', 'iss-02', 'iss-03', 'iss-04', 'iss-05']);
    expect(meta).toMatchObject({ has_more: false, cursor: null });
    expect(Number.isInteger(meta.took_ms)).toBe(true);
    expect(meta.took_ms).toBeGreaterThanOrEqual(1);
    // every searchable field: the declared ones, then every other top-level field of the record (url)
    expect(data[0]).toEqual({
      id: 'iss-01',
      identifier: 'ENG-1',
      title: 'Refund for order #42',
      description: 'The customer wants the money back.',
      priority: 1,
      priorityLabel: 'Urgent',
      dueDate: '2024-03-01',
      labelIds: ['bug', 'billing'],
      state: { id: 's1', name: 'Todo' },
      assignee: { id: 'u1', name: 'Ada Lovelace' },
      team: { id: 't1', name: 'Engineering' },
      createdAt: '2024-01-05T10:00:00.000Z',
      updatedAt: '2024-01-06T10:00:00.000Z',
      url: 'https://linear.app/x/ENG-1',
    });
    // an empty query and no filter are the same
    const none = await search(linearA, { query: { filter: {} } });
    expect(none.body.result.data).toHaveLength(5);
  });

  it('eq and neq: exact values, dot paths, numbers, null, instants; neq keeps records missing the field', async () => {
    expect(await ids({ eq: { 'state.name': 'Todo' } })).toEqual(['iss-01', 'iss-03']);
    expect(await ids({ eq: { 'state.name': 'todo' } })).toEqual([]);
    expect(await ids({ eq: { priority: 2 } })).toEqual(['iss-02']);
    expect(await ids({ eq: { identifier: 'ENG-3' } })).toEqual(['iss-03']);
    expect(await ids({ eq: { 'assignee.name': null } })).toEqual(['iss-02', 'iss-04']);
    expect(await ids({ neq: { 'assignee.name': null } })).toEqual(['iss-01', 'iss-03', 'iss-05']);
    expect(await ids({ neq: { 'assignee.name': 'Ada Lovelace' } })).toEqual(['iss-02', 'iss-03', 'iss-04']);
    expect(await ids({ eq: { labelIds: ['bug'] } })).toEqual(['iss-02']);
    // instants: the same moment written with another offset, a date at midnight UTC
    expect(await ids({ eq: { createdAt: '2024-02-05T08:00:00Z' } })).toEqual(['iss-02']);
    expect(await ids({ eq: { createdAt: '2024-01-01T00:30:00+00:00' } })).toEqual(['iss-04']);
    expect(await ids({ eq: { createdAt: '2024-03-05T00:00:00Z' } })).toEqual(['iss-03']);
    expect(await ids({ eq: { createdAt: 1707120000 } })).toEqual(['iss-02']);
    // booleans, and Unix seconds against ISO 8601
    expect(await ids({ eq: { open: true } }, intercomA, 'conversations')).toEqual(['101', '103']);
    expect(await ids({ eq: { created_at: '2024-02-05T08:00:00Z' } }, intercomA, 'conversations')).toEqual(['102']);
    expect(await ids({ eq: { id: 102 } }, intercomA, 'conversations')).toEqual(['102']);
  });

  it('gt, gte, lt, lte: numbers as numbers, ISO 8601 strings and Unix seconds as instants, other text by code point', async () => {
    expect(await ids({ gt: { priority: 2 } })).toEqual(['iss-03', 'iss-05']);
    expect(await ids({ gte: { priority: 2 } })).toEqual(['iss-02', 'iss-03', 'iss-05']);
    expect(await ids({ lt: { priority: '1' } })).toEqual(['iss-04']);
    expect(await ids({ lte: { priority: 1 } })).toEqual(['iss-01', 'iss-04']);
    // iss-04 was created 2023-12-31T23:30-01:00 = 2024-01-01T00:30Z; iss-02 at 2024-02-05T08:00Z
    expect(await ids({ gte: { createdAt: '2024-01-01' } })).toEqual(['iss-01', 'iss-02', 'iss-03', 'iss-04', 'iss-05']);
    expect(await ids({ lt: { createdAt: '2024-01-01T00:30:00Z' } })).toEqual([]);
    expect(await ids({ lte: { createdAt: '2024-01-01T01:30:00+01:00' } })).toEqual(['iss-04']);
    expect(await ids({ gt: { createdAt: '2024-02-05T07:59:59.999Z' }, lt: { createdAt: '2024-02-05T08:00:00.001Z' } })).toEqual(['iss-02']);
    expect(await ids({ gt: { createdAt: '2024-02-05T08:00:00Z' } })).toEqual(['iss-03']);
    // the same second: iss-05 was created at 2024-01-20T12:00:00Z
    expect(await ids({ gt: { createdAt: '2024-01-20T12:00:00Z' } })).toEqual(['iss-02', 'iss-03']);
    expect(await ids({ gte: { createdAt: '2024-01-20T12:00:00.000Z' } })).toEqual(['iss-02', 'iss-03', 'iss-05']);
    expect(await ids({ lt: { createdAt: '2024-01-20T12:00:00.5Z' } })).toEqual(['iss-01', 'iss-04', 'iss-05']);
    expect(await ids({ lte: { createdAt: '2024-01-20T11:59:59.999+00:00' } })).toEqual(['iss-01', 'iss-04']);
    expect(await ids({ gte: { createdAt: 1709596800 } })).toEqual(['iss-03']);
    expect(await ids({ gte: { dueDate: '2024-01-01' } })).toEqual(['iss-01']);
    expect(await ids({ gte: { created_at: '2024-02-05T08:00:00Z' } }, intercomA, 'conversations')).toEqual(['102', '103']);
    expect(await ids({ lt: { created_at: 1707120000 } }, intercomA, 'conversations')).toEqual(['101']);
    // plain text compares by code point, case-sensitively: 'D' and '1' sort before 'L', lowercase after uppercase
    expect(await ids({ gte: { title: 'L' } })).toEqual(['iss-01', 'iss-02', 'iss-03']);
    expect(await ids({ lt: { title: 'e' } })).toEqual(['iss-01', 'iss-02', 'iss-04', 'iss-05']);
  });

  it('in: any of the values, with eq semantics per value', async () => {
    expect(await ids({ in: { 'state.name': ['Done', 'In Progress'] } })).toEqual(['iss-02', 'iss-04', 'iss-05']);
    expect(await ids({ in: { priority: [0, 4, 9] } })).toEqual(['iss-04', 'iss-05']);
    expect(await ids({ in: { 'assignee.id': ['u2', null] } })).toEqual(['iss-02', 'iss-03', 'iss-04']);
  });

  it('startswith, endswith, contains and like ignore case; wildcards in the value are literal except in like', async () => {
    expect(await ids({ startswith: { title: 'LOGIN' } })).toEqual(['iss-02']);
    expect(await ids({ endswith: { title: 'csv' } })).toEqual(['iss-03']);
    expect(await ids({ contains: { title: 'ORDER #4' } })).toEqual(['iss-01']);
    expect(await ids({ contains: { 'assignee.name': 'love' } })).toEqual(['iss-01', 'iss-05']);
    expect(await ids({ contains: { title: '100%' } })).toEqual(['iss-05']);
    expect(await ids({ contains: { title: '0%' } })).toEqual(['iss-05']);
    expect(await ids({ contains: { title: 'e_g' } })).toEqual(['iss-05']);
    expect(await ids({ contains: { title: 'd_f' } })).toEqual([]);
    expect(await ids({ like: { title: '%d_f%' } })).toEqual(['iss-01']);
    expect(await ids({ startswith: { title: '%' } })).toEqual([]);
    expect(await ids({ like: { title: '%on _afari' } })).toEqual(['iss-02']);
    expect(await ids({ like: { title: 'REFUND%' } })).toEqual(['iss-01']);
    expect(await ids({ like: { identifier: 'eng-_' } })).toEqual(['iss-01', 'iss-02', 'iss-03']);
    // contains on an array: an element equal to the value, strings ignoring case
    expect(await ids({ contains: { labelIds: 'BUG' } })).toEqual(['iss-01', 'iss-02']);
    expect(await ids({ contains: { labelIds: 'bu' } })).toEqual([]);
  });

  it('array_contains: exact elements (all of them for an array value); objects match elements containing them', async () => {
    expect(await ids({ array_contains: { labelIds: 'bug' } })).toEqual(['iss-01', 'iss-02']);
    expect(await ids({ array_contains: { labelIds: 'Bug' } })).toEqual([]);
    expect(await ids({ array_contains: { labelIds: ['bug', 'billing'] } })).toEqual(['iss-01']);
    expect(await ids({ array_contains: { 'tags.tags': { name: 'VIP' } } }, intercomA, 'conversations')).toEqual(['101']);
  });

  it('fuzzy tolerates typos, case, punctuation and word order; keyword matches any whole word', async () => {
    expect(await ids({ fuzzy: { title: 'refnd for ordr' } })).toEqual(['iss-01']);
    // as docs/api-reference.md gives it: every word, one typo each from four letters, a word of three exactly
    expect(await ids({ fuzzy: { title: 'refnd ordr' } })).toEqual(['iss-01']);
    expect(await ids({ fuzzy: { title: 'refund quantum' } })).toEqual([]);
    expect(await ids({ fuzzy: { title: 'LOGIN—BROKEN!!' } })).toEqual(['iss-02']);
    expect(await ids({ fuzzy: { title: 'safari broken login' } })).toEqual(['iss-02']);
    expect(await ids({ fuzzy: { title: 'dark mdoe' } })).toEqual(['iss-04']);
    expect(await ids({ fuzzy: { title: 'drk mode' } })).toEqual([]);
    expect(await ids({ fuzzy: { title: 'quantum teleportation' } })).toEqual([]);
    expect(await ids({ fuzzy: { 'assignee.name': 'grace hoper' } })).toEqual(['iss-03']);
    expect(await ids({ keyword: { title: 'csv pdf' } })).toEqual(['iss-03']);
    expect(await ids({ keyword: { title: 'SAFARI, dark' } })).toEqual(['iss-02', 'iss-04']);
    expect(await ids({ keyword: { title: 'bro' } })).toEqual([]);
    // words are runs of letters and digits, in the field as in the value: an underscore separates them
    expect(await ids({ keyword: { title: 'coverage' } })).toEqual(['iss-05']);
    expect(await ids({ keyword: { title: 'coverage_goal' } })).toEqual(['iss-05']);
    expect(await ids({ keyword: { description: 'money_back' } })).toEqual(['iss-01']);
    expect(await ids({ keyword: { identifier: 'eng' } })).toEqual(['iss-01', 'iss-02', 'iss-03']);
  });

  it('not, and, or and any nest; several operators or fields in one object must all hold', async () => {
    expect(await ids({ not: { eq: { 'state.name': 'Todo' } } })).toEqual(['iss-02', 'iss-04', 'iss-05']);
    expect(await ids({ not: { gt: { priority: 0 } } })).toEqual(['iss-04']);
    expect(await ids({ and: [{ eq: { 'team.name': 'Engineering' } }, { or: [{ eq: { priority: 1 } }, { eq: { priority: 4 } }] }] })).toEqual([
      'iss-01',
      'iss-05',
    ]);
    expect(
      await ids({ or: [{ contains: { title: 'dark' } }, { and: [{ eq: { 'state.name': 'Todo' } }, { not: { array_contains: { labelIds: 'bug' } } }] }] }),
    ).toEqual(['iss-03', 'iss-04']);
    expect(await ids({ eq: { 'team.name': 'Engineering', 'state.name': 'Done' } })).toEqual(['iss-02', 'iss-05']);
    expect(await ids({ eq: { 'team.name': 'Engineering' }, gt: { priority: 1 } })).toEqual(['iss-02', 'iss-05']);
    // any: an element matches the nested filter; `$` is the element of an array of scalars
    expect(await ids({ any: { labelIds: { startswith: { $: 'BIL' } } } })).toEqual(['iss-01']);
    expect(await ids({ any: { labelIds: { in: { $: ['ci', 'feature'] } } } })).toEqual(['iss-04', 'iss-05']);
    expect(await ids({ any: { 'tags.tags': { eq: { name: 'billing' } } } }, intercomA, 'conversations')).toEqual(['101']);
    expect(await ids({ any: { 'tags.tags': { and: [{ startswith: { name: 'v' } }, { eq: { id: '1' } }] } } }, intercomA, 'conversations')).toEqual(['101']);
    expect(await ids({ not: { any: { 'tags.tags': { eq: { name: 'VIP' } } } } }, intercomA, 'conversations')).toEqual(['102', '103']);
  });

  it('sorts by fields in either direction, numbers by value, text ignoring case, missing values last, ties by record id', async () => {
    const order = async (sort: unknown, filter?: unknown) => {
      const response = await search(linearA, { query: { sort, ...(filter !== undefined && { filter }) } });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      return response.body.result.data.map((record) => record.id);
    };
    expect(await order([{ priority: 'desc' }])).toEqual(['iss-05', 'iss-03', 'iss-02', 'iss-01', 'iss-04']);
    expect(await order([{ priority: 'ASC' }])).toEqual(['iss-04', 'iss-01', 'iss-02', 'iss-03', 'iss-05']);
    expect(await order([{ title: 'asc' }])).toEqual(['iss-05', 'iss-04', 'iss-03', 'iss-02', 'iss-01']);
    expect(await order([{ 'assignee.name': 'asc' }])).toEqual(['iss-01', 'iss-05', 'iss-03', 'iss-02', 'iss-04']);
    expect(await order([{ 'assignee.name': 'desc' }])).toEqual(['iss-03', 'iss-01', 'iss-05', 'iss-02', 'iss-04']);
    expect(await order([{ 'team.name': 'asc' }, { priority: 'desc' }])).toEqual(['iss-03', 'iss-04', 'iss-05', 'iss-02', 'iss-01']);
    expect(await order([{ 'team.name': 'desc', priority: 'asc' }])).toEqual(['iss-01', 'iss-02', 'iss-05', 'iss-04', 'iss-03']);
    expect(await order([{ updatedAt: 'desc' }], { neq: { 'state.name': 'Done' } })).toEqual(['iss-03', 'iss-01', 'iss-04']);
    // paging through ties and missing values gives the same order, page by page
    for (const sort of [[{ 'assignee.name': 'asc' }], [{ 'assignee.name': 'desc' }, { priority: 'desc' }], [{ 'team.name': 'asc' }]]) {
      const whole = await order(sort);
      const paged: unknown[] = [];
      let cursor: string | null = null;
      do {
        const response: { body: SearchBody } = await search(linearA, { query: { sort }, limit: 2, ...(cursor !== null && { cursor }) });
        paged.push(...response.body.result.data.map((record) => record.id));
        cursor = response.body.result.meta.cursor;
      } while (cursor !== null);
      expect(paged, JSON.stringify(sort)).toEqual(whole);
    }
  });

  it('pages with an opaque cursor that stays stable while records arrive: no duplicates, no skipped earlier results', async () => {
    const names = Array.from({ length: 20 }, (_, i) => `user-${String(i * 2).padStart(2, '0')}`);
    await seed(
      linearA,
      a.organizationId,
      'users',
      names.map((name, i) => ({ id: `usr-${String(i * 2).padStart(3, '0')}`, name, active: i % 3 !== 0 })),
    );
    await syncState(linearA, 'users', 'ready', true);
    let freshCount = 0;
    for (const sort of [undefined, [{ name: 'desc' }], [{ active: 'asc' }, { name: 'asc' }]]) {
      const seen: string[] = [];
      let cursor: string | null = null;
      for (let page = 0; page < 20; page += 1) {
        const params: Rec = { query: sort ? { sort } : {}, limit: 6, ...(cursor !== null && { cursor }) };
        const response = await a.api.post<SearchBody>(execute(linearA), { entity: 'users', action: 'context_store_search', params });
        expect(response.status, JSON.stringify(response.body)).toBe(200);
        seen.push(...response.body.result.data.map((record) => String(record.name)));
        expect(response.body.result.meta.has_more).toBe(response.body.result.meta.cursor !== null);
        cursor = response.body.result.meta.cursor;
        if (cursor === null) break;
        // new records land before and after the cursor position
        const fresh = [1, 17, 39].map((n) => ({
          id: `usr-new-${(freshCount += 1)}`,
          name: `user-${String(n).padStart(2, '0')}-new${freshCount}`,
          active: true,
        }));
        await seed(linearA, a.organizationId, 'users', fresh);
      }
      expect(cursor).toBeNull();
      expect(new Set(seen).size).toBe(seen.length);
      for (const name of names) expect(seen).toContain(name);
      // the order of every page joined together is the requested order
      const originals = seen.filter((name) => names.includes(name));
      if (sort?.[0] && 'name' in sort[0]) expect(originals).toEqual([...names].reverse());
      await service.store.db
        .deleteFrom('context_records')
        .where('connector_id', '=', linearA)
        .where('entity', '=', 'users')
        .where('record_id', 'like', 'usr-new-%')
        .execute();
    }
  });

  it('rejects a tampered cursor, a cursor of another search, and text that is no cursor', async () => {
    const first = await search(linearA, { query: { sort: [{ priority: 'asc' }] }, limit: 2 });
    const cursor = first.body.result.meta.cursor as string;
    expect(cursor).toEqual(expect.any(String));
    const next = await search(linearA, { query: { sort: [{ priority: 'asc' }] }, limit: 2, cursor });
    expect(next.status).toBe(200);
    expect(next.body.result.data.map((record) => record.id)).toEqual(['iss-02', 'iss-03']);
    const [body, signature] = cursor.split('.') as [string, string];
    const payload = JSON.parse(Buffer.from(body, 'base64url').toString()) as Rec;
    const forged = `${Buffer.from(JSON.stringify({ ...payload, id: 'iss-00' })).toString('base64url')}.${signature}`;
    const flipped = `${body}.${signature.startsWith('A') ? 'B' : 'A'}${signature.slice(1)}`;
    for (const bad of [forged, flipped, 'not-a-cursor', `${body}.`, `${cursor}.x`]) {
      const response = await invalid({ query: { sort: [{ priority: 'asc' }] }, limit: 2, cursor: bad });
      expect(response.errors).toEqual([expect.objectContaining({ field: 'cursor', error_code: 'invalid_cursor' })]);
    }
    const other = await invalid({ query: { sort: [{ priority: 'desc' }] }, limit: 2, cursor });
    expect(other.errors[0]?.message).toMatch(/belongs to another search/);
    const elsewhere = await search(linearB, { query: { sort: [{ priority: 'asc' }] }, limit: 2, cursor }, b);
    expect(elsewhere.status).toBe(400);
  });

  it('projects the requested fields (dot paths or key lists), walking arrays; select_fields applies on top', async () => {
    const response = await search(linearA, {
      query: { filter: { eq: { id: 'iss-01' } } },
      fields: ['title', 'state.name', ['assignee', 'name'], 'description'],
    });
    expect(response.body.result.data).toEqual([
      { title: 'Refund for order #42', state: { name: 'Todo' }, assignee: { name: 'Ada Lovelace' }, description: 'The customer wants the money back.' },
    ]);
    const missing = await search(linearA, { query: { filter: { eq: { id: 'iss-04' } } }, fields: ['assignee.name', 'title'] });
    expect(missing.body.result.data).toEqual([{ title: 'Dark mode support' }]);
    // as docs/api-reference.md gives it: a path through a null keeps the null; an integer segment is no index here
    const throughNull = await search(linearA, { query: { filter: { eq: { id: 'iss-02' } } }, fields: ['assignee.name'] });
    expect(throughNull.body.result.data).toEqual([{ assignee: null }]);
    const integerSegment = await search(linearA, { query: { filter: { eq: { id: 'iss-01' } } }, fields: ['labelIds.0'] });
    expect(integerSegment.body.result.data).toEqual([{ labelIds: ['bug', 'billing'] }]);
    const arrays = await a.api.post<SearchBody>(execute(intercomA), {
      entity: 'conversations',
      action: 'context_store_search',
      params: { query: { filter: { eq: { id: '101' } } }, fields: ['tags.tags.name'] },
    });
    expect(arrays.body.result.data).toEqual([{ tags: { tags: [{ name: 'VIP' }, { name: 'billing' }] } }]);
    const selected = await search(linearA, { query: { filter: { eq: { id: 'iss-01' } } } }, undefined, { select_fields: ['id', 'state'] });
    expect(selected.body.result.data).toEqual([{ id: 'iss-01', state: { id: 's1', name: 'Todo' } }]);
    const excluded = await search(linearA, { query: { filter: { eq: { id: 'iss-01' } } }, fields: ['id', 'title', 'state.id', 'state.name'] }, undefined, {
      exclude_fields: ['state.id'],
    });
    expect(excluded.body.result.data).toEqual([{ id: 'iss-01', title: 'Refund for order #42', state: { name: 'Todo' } }]);
  });

  it('limits results (default 1000, maximum 5000) and reports has_more', async () => {
    const two = await search(linearA, { query: {}, limit: 2 });
    expect(two.body.result.data).toHaveLength(2);
    expect(two.body.result.meta.has_more).toBe(true);
    const five = await search(linearA, { query: {}, limit: 5 });
    expect(five.body.result.meta).toMatchObject({ has_more: false, cursor: null });
    expect((await search(linearA, { query: {}, limit: 5000 })).status).toBe(200);
  });

  it('says exactly where a filter is wrong: unknown fields and operators, malformed filters, wrong values', async () => {
    const fields = connectorModules.linear?.definition.entities.issues?.search.fields.join(', ') ?? '';
    expect(fields).toMatch(
      /^id, identifier, title, description, priority, priorityLabel, dueDate, labelIds, state\.id, state\.name, assignee\.id, assignee\.name, team\.id, team\.name, project\.id, project\.name, cycle\.id, createdAt, updatedAt, completedAt, number, /,
    );
    const unknownField = await invalid({ query: { filter: { and: [{ eq: { title: 'x' } }, { eq: { titel: 'x' } }] } } });
    expect(unknownField.errors).toEqual([
      { field: 'query.filter.and[1].eq', error_code: 'unknown_field', message: `query.filter.and[1].eq: unknown field 'titel'; searchable fields: ${fields}` },
    ]);
    expect(unknownField.message).toBe(
      `Invalid params for issues.context_store_search: query.filter.and[1].eq: unknown field 'titel'; searchable fields: ${fields}.`,
    );
    const cases: Array<[unknown, string, string, RegExp]> = [
      [
        { equals: { title: 'x' } },
        'query.filter',
        'unknown_operator',
        /unknown operator 'equals'; operators: eq, neq, gt, gte, lt, lte, in, like, startswith, endswith, contains, array_contains, fuzzy, keyword, and, or, not, any$/,
      ],
      [{ eq: { urll: 'x' } }, 'query.filter.eq', 'unknown_field', /unknown field 'urll'/],
      [{ eq: { 'stat.name': 'x' } }, 'query.filter.eq', 'unknown_field', /unknown field 'stat.name'/],
      [{ eq: { 'state.name.': 'x' } }, 'query.filter.eq', 'invalid_field', /empty segment/],
      [{ eq: { $: 'x' } }, 'query.filter.eq', 'unknown_field', /only inside any/],
      [[{ eq: { title: 'x' } }], 'query.filter', 'invalid_filter', /a filter is an object keyed by operator/],
      [{ and: { eq: { title: 'x' } } }, 'query.filter.and', 'invalid_filter', /non-empty array of filters, not an object/],
      [{ or: [] }, 'query.filter.or', 'invalid_filter', /not an empty array/],
      [{ not: 'x' }, 'query.filter.not', 'invalid_filter', /not a string/],
      [{ eq: 'x' }, 'query.filter.eq', 'invalid_filter', /maps field names to values/],
      [{ eq: {} }, 'query.filter.eq', 'invalid_filter', /not an empty object/],
      [{ gt: { priority: true } }, 'query.filter.gt', 'invalid_value', /takes a number or a string/],
      [{ gt: { priority: 'high' } }, 'query.filter.gt', 'invalid_value', /'priority' holds numbers/],
      [{ in: { priority: 1 } }, 'query.filter.in', 'invalid_value', /non-empty array of values/],
      [{ in: { priority: [] } }, 'query.filter.in', 'invalid_value', /not an empty array/],
      [{ startswith: { title: 5 } }, 'query.filter.startswith', 'invalid_value', /takes a string, not a number/],
      [{ contains: { title: { a: 1 } } }, 'query.filter.contains', 'invalid_value', /string, number or boolean/],
      [{ fuzzy: { title: '!!' } }, 'query.filter.fuzzy', 'invalid_value', /at least one letter or digit/],
      [
        { fuzzy: { title: 'one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen sixteen seventeen' } },
        'query.filter.fuzzy',
        'too_many',
        /fuzzy on 'title' takes at most 16 words/,
      ],
      [
        { or: Array.from({ length: 5 }, (_, branch) => ({ fuzzy: { title: Array.from({ length: 16 }, (_, n) => `w${branch}x${n}`).join(' ') } })) },
        'query.filter.or[4].fuzzy',
        'too_many',
        /a filter takes at most 64 distinct fuzzy words in all/,
      ],
      [{ keyword: { title: '  ' } }, 'query.filter.keyword', 'invalid_value', /at least one word/],
      [{ array_contains: { title: 'x' } }, 'query.filter.array_contains', 'invalid_value', /not an array field/],
      [{ array_contains: { labelIds: [] } }, 'query.filter.array_contains', 'invalid_value', /not an empty array/],
      [{ any: { labelIds: 'x' } }, 'query.filter.any.labelIds', 'invalid_filter', /a filter is an object/],
      [{ any: {} }, 'query.filter.any', 'invalid_filter', /any maps an array field/],
      [{ any: { tags: { eq: { $: 'x' } } } }, 'query.filter.any', 'unknown_field', /unknown field 'tags'/],
    ];
    for (const [filter, field, code, message] of cases) {
      const body = await invalid({ query: { filter } });
      expect(body.errors, JSON.stringify(filter)).toHaveLength(1);
      expect(body.errors[0], JSON.stringify(filter)).toMatchObject({ field, error_code: code });
      expect(body.errors[0]?.message, JSON.stringify(filter)).toMatch(message);
      expect(body.errors[0]?.message.startsWith(`${field}: `)).toBe(true);
    }
    const several = await invalid({
      query: { filter: { or: [{ eq: { nope: 1 } }, { between: {} }, { gt: { priority: null } }] }, sort: [{ nope: 'asc' }] },
      limit: 0,
    });
    expect(several.errors.map((e) => [e.field, e.error_code])).toEqual([
      ['limit', 'minimum'],
      ['query.filter.or[0].eq', 'unknown_field'],
      ['query.filter.or[1]', 'unknown_operator'],
      ['query.filter.or[2].gt', 'invalid_value'],
      ['query.sort[0]', 'unknown_field'],
    ]);
  });

  it('validates the other params: query, sort, limit, cursor, fields, unknown params, and the semantic params', async () => {
    const checks: Array<[unknown, string, string, RegExp?]> = [
      [{}, 'query', 'required', /needs query \(filter search/],
      [{ query: 'status:open' }, 'query', 'type'],
      [{ query: { filter: {}, limit: 5 } }, 'query.limit', 'unknown', /limit, cursor and fields are params beside query/],
      [{ query: {}, sort: [{ title: 'asc' }] }, 'sort', 'unknown', /sort goes inside query/],
      [{ query: {}, filter: {} }, 'filter', 'unknown', /goes inside query/],
      [{ query: {}, page: 2 }, 'page', 'unknown', /parameters: query, semantic, limit, cursor, fields/],
      [{ query: { sort: { title: 'asc' } } }, 'query.sort', 'invalid_sort'],
      [{ query: { sort: ['title'] } }, 'query.sort[0]', 'invalid_sort'],
      [{ query: { sort: [{ title: 'up' }] } }, 'query.sort[0]', 'invalid_sort', /"asc" or "desc"/],
      [{ query: { sort: [{ urll: 'asc' }] } }, 'query.sort[0]', 'unknown_field', /unknown field 'urll'/],
      [{ query: {}, limit: 5001 }, 'limit', 'maximum', /between 1 and 5000/],
      [{ query: {}, limit: '10' }, 'limit', 'type'],
      [{ query: {}, limit: 1.5 }, 'limit', 'type'],
      [{ query: {}, cursor: 7 }, 'cursor', 'type'],
      [{ query: {}, fields: 'title' }, 'fields', 'type'],
      [{ query: {}, fields: ['urll'] }, 'fields[0]', 'unknown_field', /unknown field 'urll'/],
      [{ query: {}, fields: [[]] }, 'fields[0]', 'type'],
      [{ query: {}, semantic: { field: 'description', prompt: 'refund' } }, 'semantic', 'mutually_exclusive'],
      [{ semantic: { field: 'description', prompt: 'refund', sort: [{ title: 'asc' }] } }, 'semantic.sort', 'unsupported', /ranked by similarity/],
      [{ semantic: { field: 'description', prompt: 'refund' }, sort: [{ title: 'asc' }] }, 'sort', 'unknown', /ranked by similarity/],
      [{ semantic: { field: 'identifier', prompt: 'refund' } }, 'semantic.field', 'enum', /semantic fields: description, title/],
      [{ semantic: { prompt: 'refund' } }, 'semantic.field', 'required'],
      [{ semantic: { field: 'title', prompt: '   ' } }, 'semantic.prompt', 'type'],
      [{ semantic: { field: 'title' } }, 'semantic.prompt', 'required'],
      [{ semantic: { field: 'title', prompt: 'x', context_size: 0 } }, 'semantic.context_size', 'range', /from 1 to 2048/],
      [{ semantic: { field: 'title', prompt: 'x', context_size: 2049 } }, 'semantic.context_size', 'range'],
      [{ semantic: { field: 'title', prompt: 'x', min_similarity: 1.5 } }, 'semantic.min_similarity', 'range'],
      [{ semantic: { field: 'title', prompt: 'x', min_similarity: '0.5' } }, 'semantic.min_similarity', 'range'],
      [{ semantic: { field: 'title', prompt: 'x', dedup: 'min' } }, 'semantic.dedup', 'enum'],
      [{ semantic: { field: 'title', prompt: 'x', top_k: 3 } }, 'semantic.top_k', 'unknown'],
      [{ semantic: { field: 'title', prompt: 'x' }, limit: 101 }, 'limit', 'maximum', /between 1 and 100/],
      [{ semantic: { field: 'title', prompt: 'x', filter: { eq: { titel: 'x' } } } }, 'semantic.filter.eq', 'unknown_field', /unknown field 'titel'/],
      [{ semantic: 'refund' }, 'semantic', 'type'],
    ];
    for (const [params, field, code, message] of checks) {
      const body = await invalid(params);
      expect(body.errors, JSON.stringify(params)).toHaveLength(1);
      expect(body.errors[0], JSON.stringify(params)).toMatchObject({ field, error_code: code });
      if (message) expect(body.errors[0]?.message, JSON.stringify(params)).toMatch(message);
    }
    const users = await invalid({ semantic: { field: 'name', prompt: 'x' } }, 'users');
    expect(users.errors[0]).toMatchObject({ field: 'semantic', error_code: 'unsupported' });
  });

  it('refuses to search an entity that has no complete sync (never synced, first sync running or failed), not with an empty list', async () => {
    const never = await a.api.post<ErrorBody>(execute(linearA), { entity: 'projects', action: 'context_store_search', params: { query: {} } });
    expect(never.status).toBe(400);
    expect(never.body.errors).toEqual([expect.objectContaining({ field: 'entity', error_code: 'context_store_not_ready' })]);
    expect(never.body.message).toMatch(
      /projects of this connector is not ready \(not_synced\): projects has not been synchronized yet: start a sync with POST \/api\/v1\/integrations\/connectors\/[0-9a-f-]+\/sync\. Use the native actions \(list, get, create, update\) meanwhile\./,
    );
    await syncState(linearA, 'projects', 'initializing', false);
    const running = await a.api.post<ErrorBody>(execute(linearA), { entity: 'projects', action: 'context_store_search', params: { query: {} } });
    expect(running.body.message).toMatch(/not ready \(initializing\): the first sync of projects is running\./);
    await syncState(linearA, 'projects', 'failed', false, 'Linear answered 500 on page 3');
    const failed = await a.api.post<ErrorBody>(execute(linearA), { entity: 'projects', action: 'context_store_search', params: { query: {} } });
    expect(failed.body.message).toMatch(/not ready \(failed\): Linear answered 500 on page 3\./);
    // a failed re-sync keeps the data of the last complete sync searchable, as does a sync in progress
    await seed(linearA, a.organizationId, 'projects', [{ id: 'prj-1', name: 'Apollo' }]);
    for (const status of ['failed', 'updating'] as const) {
      await syncState(linearA, 'projects', status, true, status === 'failed' ? 'Linear answered 500' : undefined);
      const kept = await a.api.post<SearchBody>(execute(linearA), { entity: 'projects', action: 'context_store_search', params: { query: {} } });
      expect(kept.status).toBe(200);
      expect(kept.body.result.data).toEqual([{ id: 'prj-1', name: 'Apollo' }]);
    }
    // validation comes first: a malformed search on a never-synced entity is told what is wrong with it
    const malformed = await a.api.post<ErrorBody>(execute(linearA), {
      entity: 'teams',
      action: 'context_store_search',
      params: { query: { filter: { eq: { nope: 1 } } } },
    });
    expect(malformed.body.errors[0]?.error_code).toBe('unknown_field');
  });

  it("leaves out deleted records and other organizations' records; another organization cannot reach the connector", async () => {
    expect(await ids({ contains: { title: 'refund' } })).toEqual(['iss-01']);
    const own = await search(linearB, { query: { filter: { contains: { title: 'refund' } } } }, b);
    expect(own.status).toBe(200);
    expect(own.body.result.data.map((record) => record.id)).toEqual(['iss-b1']);
    const crossed = await search<ErrorBody>(linearA, { query: {} }, b);
    expect(crossed.status).toBe(404);
    expect(JSON.stringify(crossed.body)).not.toContain('iss-0');
    // records of the same organization under another connector stay with their connector
    const other = await insertConnector(service, a.organizationId, { connectorType: 'linear', authOption: 'API Key', credentials: { api_key: 'lin-key-a2' } });
    await syncState(other, 'issues', 'ready', true);
    const empty = await search(other, { query: {} });
    expect(empty.status).toBe(200);
    expect(empty.body.result).toEqual({ data: [], meta: { has_more: false, cursor: null, took_ms: expect.any(Number) } });
  });

  it('answers unknown_operation for an entity without search fields and for an unknown entity', async () => {
    const notes = await a.api.post<ErrorBody>(execute(intercomA), { entity: 'notes', action: 'context_store_search', params: { query: {} } });
    expect(notes.status).toBe(400);
    expect(notes.body.errors[0]).toMatchObject({ field: 'action', error_code: 'unknown_operation', details: { limit: ['create'] } });
    expect(notes.body.message).toBe('Unknown action "context_store_search" for notes: this entity has no context store search. Valid actions: create.');
    const unknown = await a.api.post<ErrorBody>(execute(intercomA), { entity: 'nope', action: 'context_store_search', params: { query: {} } });
    expect(unknown.body.errors[0]?.error_code).toBe('unknown_operation');
  });
});
