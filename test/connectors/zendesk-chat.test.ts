import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, createConnector, NotFoundError, ValidationError } from '../../runtime/index.js';

// Zendesk Chat REST API on https://{subdomain}.zendesk.com/api/v2/chat with a Chat OAuth access
// token as bearer. Response bodies follow the examples of the Chat API reference
// (developer.zendesk.com/api-reference/live-chat/chat-api/...).

const HOST = 'https://acme.zendesk.com';
const BASE = '/api/v2/chat';
const TOKEN = 'L0m2pVzxYpiVZOnzuWfGTHJjUxMicmbsEeGh4QSBqTTaScnprJNC8DusW5RwFTuo';

type Rec = Record<string, unknown>;

const chat = () =>
  createConnector('zendesk-chat', {
    credentials: { access_token: TOKEN },
    config: { subdomain: 'acme' },
    http: { retries: 0 },
  });

/** A scope that only matches requests with the bearer token and the JSON accept header. */
const api = () => nock(HOST).matchHeader('authorization', `Bearer ${TOKEN}`).matchHeader('accept', 'application/json');

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Fixtures (vendor examples)
// ---------------------------------------------------------------------------------------------
const account = {
  account_key: '1VnWZfCSd2FKK0IBPFwA5dIr3hN5QjqM',
  status: 'active',
  create_date: '2014-09-01T10:29:59Z',
  billing: {
    additional_info: '',
    address1: '1 Main St',
    address2: '',
    city: 'Singapore',
    company: 'Acme',
    country_code: 'SG',
    email: 'billing@acme.com',
    first_name: 'Ana',
    last_name: 'Silva',
    phone: '+6591234567',
    postal_code: '123456',
    state: '',
    cycle: 1,
  },
  plan: {
    name: 'Enterprise',
    price: 70,
    max_agents: 20,
    max_departments: 'unlimited',
    max_concurrent_chats: 'unlimited',
    max_history_search_days: 'unlimited',
    analytics: true,
    rest_api: true,
    goals: 5,
    sla: true,
    unbranding: true,
  },
};

const agent = (id: number, first: string, last: string) => ({
  create_date: '2014-09-30T08:25:09Z',
  departments: [1],
  display_name: first,
  email: `${first.toLowerCase()}@acme.com`,
  enabled: 1,
  enabled_departments: [1],
  first_name: first,
  id,
  last_name: last,
  role_id: 3,
  roles: { administrator: false, owner: false },
  skills: [1],
});
const a5 = agent(5, 'John', 'Doe');
const a6 = agent(6, 'Mia', 'Krystof');

const ban = {
  created_at: '2020-03-14T15:09:26Z',
  id: 1,
  ip_address: '87.230.12.41',
  reason: 'Spammer',
  type: 'I',
  visitor_id: '',
  visitor_name: '',
};

const chatRecord = (id: string, ts: string) => ({
  id,
  type: 'chat',
  timestamp: ts,
  update_timestamp: ts,
  started_by: 'visitor',
  visitor: { id: '1.12345', name: 'John', email: 'john@example.com', phone: '', notes: '' },
  session: {
    browser: 'Safari',
    city: 'Orlando',
    country_code: 'US',
    country_name: 'United States',
    end_date: '2014-10-09T05:46:47Z',
    id: '141009.655464.1KhqS0Nw',
    ip: '67.23.229.96',
    platform: 'Mac OS',
    region: 'Florida',
    start_date: '2014-10-09T05:28:31Z',
    user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_10) AppleWebKit/600.1.25 (KHTML, like Gecko) Version/8.0 Safari/600.1.25',
  },
  duration: 1054,
  department_id: 1,
  department_name: 'Billing Department',
  agent_ids: ['5'],
  agent_names: ['Johnny'],
  count: { agent: 2, total: 4, visitor: 2 },
  response_time: { avg: 12, first: 10, max: 14 },
  triggered: false,
  triggered_response: false,
  missed: false,
  unread: false,
  deleted: false,
  history: [
    {
      channel: '#',
      department_id: 1,
      department_name: 'Billing Department',
      msg: 'Hi, I need help with an invoice',
      name: 'John',
      nick: 'visitor:1.12345',
      timestamp: ts,
      type: 'chat.msg',
    },
  ],
  engagements: [],
  conversions: [],
  webpath: [],
  tags: ['billing'],
  rating: 'good',
  comment: 'Quick answer, thanks',
  zendesk_ticket_id: 83,
});
const c1 = chatRecord('1712.4987.QeUipU4eZOoO3', '2019-01-01T07:00:05Z');
const c2 = chatRecord('1712.4987.QELAIbLLINHPV', '2019-01-01T07:01:40Z');
const c3 = chatRecord('1712.4987.QR3nXzRk8mBcW', '2019-01-01T07:03:10Z');
const offlineMessage = {
  id: '123',
  visitor: { id: '1.12345', phone: '', notes: '', email: 'john@example.com', name: 'John' },
  type: 'offline_msg',
  message: 'Hi there!',
  started_by: 'visitor',
  session: {
    city: 'Orlando',
    end_date: '2014-10-09T05:46:47Z',
    ip: '67.23.229.96',
    region: 'Florida',
    id: '141009.655464.1KhqS0Nw',
    platform: 'Mac OS',
    country_code: 'US',
    country_name: 'United States',
    start_date: '2014-10-09T05:28:31Z',
    browser: 'Safari',
  },
  timestamp: '2014-10-09T05:28:35Z',
  department_id: 1,
  department_name: 'Billing Department',
  unread: false,
  webpath: [],
  zendesk_ticket_id: 83,
};

const timeline = (agentId: number, start: string, status: string) => ({
  agent_id: agentId,
  duration: 1.2,
  engagement_count: 0,
  start_time: start,
  status,
});
const t1 = timeline(361089721035, '2019-05-29T13:19:39.881000Z', 'online');
const t2 = timeline(361089721035, '2019-05-29T13:19:41.081000Z', 'away');

const department = { description: 'A sample department', enabled: 1, id: 1, members: [1, 2, 3], name: 'Department 1', settings: {} };
const goal = {
  attribution_model: 'first_touch',
  attribution_period: 30,
  description: 'A sample goal',
  enabled: 1,
  id: 1,
  name: 'Goal 1',
  settings: { conditions: [{ operator: 'equals', type: 'url', value: 'http://mysite.com/' }] },
};
const role = {
  description: 'In addition to Agent privileges, Administrators can manage the account',
  enabled: true,
  id: 2,
  members_count: 1,
  name: 'Administrator',
  permissions: {
    visitors_seen: 'account',
    proactive_chatting: 'listen-join',
    edit_visitor_information: true,
    edit_visitor_notes: true,
    view_past_chats: 'account',
    edit_chat_tags: true,
    manage_bans: 'account',
    access_analytics: 'account',
    view_monitor: 'account',
  },
};
const shortcut = { id: 'question', message: 'Hi! Do you need assistance?', name: 'question', options: 'Yes/No', scope: 'all', tags: ['Question', 'Survey'] };
const skill = { description: 'Language skill', enabled: true, id: 1, members: [5, 6], name: 'english' };
const trigger = {
  description: 'Visitor entered page',
  enabled: 1,
  id: 4,
  name: 'Good Trigger',
  definition: {
    event: 'chat_requested',
    condition: ['and', ['eq', '@visitor_page_url', 'https://acme.com/pricing']],
    actions: [['sendMessageToVisitor', 'Acme', 'Need help with pricing?']],
  },
};
const routingSettings = {
  routing_mode: 'assigned',
  chat_limit: { enabled: true, limit: 3, limit_type: 'account', allow_agent_override: false },
  skill_routing: { enabled: true, max_wait_time: 30 },
  reassignment: { enabled: true, timeout: 30 },
  auto_idle: { enabled: false, reassignments_before_idle: 3, new_status: 'away' },
  auto_accept: { enabled: false },
};

// ---------------------------------------------------------------------------------------------
// list (bare arrays, no pagination)
// ---------------------------------------------------------------------------------------------
// [entity, path under /api/v2/chat, a record]
const LISTS: Array<[string, string, Rec]> = [
  ['departments', '/departments', department],
  ['goals', '/goals', goal],
  ['roles', '/roles', role],
  ['shortcuts', '/shortcuts', shortcut],
  ['skills', '/skills', skill],
  ['triggers', '/triggers', trigger],
];

describe('zendesk-chat list (bare arrays)', () => {
  it.each(LISTS)('%s list -> GET /api/v2/chat%s', async (entity, path, record) => {
    const scope = api().get(`${BASE}${path}`).query({}).reply(200, [record]);

    const res = await chat().execute(entity, 'list', {});

    expect(res).toEqual({ data: [record] });
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('agents list sends limit and since_id; the caller pages with since_id = last id + 1', async () => {
    const scope = api()
      .get(`${BASE}/agents`)
      .query({ limit: '1', since_id: '0' })
      .reply(200, [a5])
      .get(`${BASE}/agents`)
      .query({ limit: '1', since_id: '6' })
      .reply(200, [a6]);
    const c = chat();

    const page1 = await c.execute('agents', 'list', { limit: 1, since_id: 0 });
    expect(page1).toEqual({ data: [a5] });

    const page2 = await c.execute('agents', 'list', { limit: 1, since_id: a5.id + 1 });
    expect(page2).toEqual({ data: [a6] });
    expect(scope.isDone()).toBe(true);
  });

  it('bans list joins the IP address bans and the visitor bans into one list, with limit and since_id', async () => {
    const ipBan = { created_at: '2020-03-14T15:09:26Z', id: 8, ip_address: '242.211.134.60', reason: 'Spammer' };
    const visitorBan = { created_at: '2020-03-14T15:09:26Z', id: 5, reason: 'Spammer', visitor_id: '2', visitor_name: 'John' };
    const scope = api()
      .get(`${BASE}/bans`)
      .query({ limit: '2', since_id: '5' })
      .reply(200, { ip_address: [ipBan], visitor: [visitorBan] })
      .get(`${BASE}/bans`)
      .query({})
      .reply(200, { ip_address: [], visitor: [] });

    expect(await chat().execute('bans', 'list', { limit: 2, since_id: 5 })).toEqual({ data: [ipBan, visitorBan] });
    expect(await chat().execute('bans', 'list', {})).toEqual({ data: [] });
    expect(scope.isDone()).toBe(true);
  });

  it('agents list rejects a non-integer since_id before any request', async () => {
    const err = await chat()
      .execute('agents', 'list', { since_id: 'abc' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'since_id', rule: 'type' })]);
  });
});

// ---------------------------------------------------------------------------------------------
// get
// ---------------------------------------------------------------------------------------------
// [entity, path, params, record]
const GETS: Array<[string, string, Rec, Rec]> = [
  ['agents', '/agents/5', { agent_id: 5 }, a5],
  ['bans', '/bans/1', { ban_id: 1 }, ban],
  ['chats', '/chats/1712.4987.QeUipU4eZOoO3', { chat_id: '1712.4987.QeUipU4eZOoO3' }, c1],
  ['chats', '/chats/123', { chat_id: '123' }, offlineMessage],
  ['departments', '/departments/1', { department_id: 1 }, department],
  ['goals', '/goals/1', { goal_id: 1 }, goal],
  ['roles', '/roles/2', { role_id: 2 }, role],
  ['shortcuts', '/shortcuts/question', { shortcut_id: 'question' }, shortcut],
  ['skills', '/skills/1', { skill_id: 1 }, skill],
];

describe('zendesk-chat get', () => {
  it.each(GETS)('%s get -> GET /api/v2/chat%s', async (entity, path, params, record) => {
    const scope = api().get(`${BASE}${path}`).query({}).reply(200, record);

    const res = await chat().execute(entity, 'get', params);

    expect(res).toEqual({ data: record });
    expect(scope.isDone()).toBe(true);
  });

  it('accounts get -> GET /api/v2/chat/account (no params)', async () => {
    const scope = api().get(`${BASE}/account`).query({}).reply(200, account);

    const res = await chat().execute('accounts', 'get', {});

    expect(res).toEqual({ data: account });
    expect(scope.isDone()).toBe(true);
  });

  it('routing_settings get -> GET /api/v2/chat/routing_settings/account, record under data', async () => {
    const scope = api().get(`${BASE}/routing_settings/account`).query({}).reply(200, { data: routingSettings });

    const res = await chat().execute('routing_settings', 'get', {});

    expect(res).toEqual({ data: routingSettings });
    expect(scope.isDone()).toBe(true);
  });

  it('URL-encodes a shortcut id with a space', async () => {
    const signUp = { ...shortcut, id: 'sign up', name: 'sign up', message: 'When would you like to sign up?', options: 'Now/Later' };
    const scope = api().get(`${BASE}/shortcuts/sign%20up`).reply(200, signUp);

    const res = await chat().execute('shortcuts', 'get', { shortcut_id: 'sign up' });

    expect(res.data).toEqual(signUp);
    expect(scope.isDone()).toBe(true);
  });

  it('requires the id and rejects a missing one before any request', async () => {
    const err = await chat()
      .execute('chats', 'get', {})
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'chat_id', rule: 'required' })]);
  });

  it('maps a 404 to NotFoundError and a 401 to AuthenticationError', async () => {
    const scope = api()
      .get(`${BASE}/agents/999`)
      .reply(404, { error: 'Not Found' })
      .get(`${BASE}/account`)
      .reply(401, { error: 'invalid_token', error_description: 'The access token provided is invalid.' });

    const notFound = await chat()
      .execute('agents', 'get', { agent_id: 999 })
      .catch((e: unknown) => e);
    expect(notFound).toBeInstanceOf(NotFoundError);
    expect((notFound as NotFoundError).upstreamStatus).toBe(404);

    const unauthorized = await chat()
      .execute('accounts', 'get', {})
      .catch((e: unknown) => e);
    expect(unauthorized).toBeInstanceOf(AuthenticationError);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Incremental exports (next_url from body.next_page, block next_page + count)
// ---------------------------------------------------------------------------------------------
describe('zendesk-chat incremental exports', () => {
  it('chats list walks two pages with the params of the next_page URL', async () => {
    const next1 = `${HOST}${BASE}/incremental/chats?fields=chats%28%2A%29&limit=2&start_id=${c2.id}&start_time=1546326100`;
    const next2 = `${HOST}${BASE}/incremental/chats?fields=chats%28%2A%29&limit=2&start_id=${c3.id}&start_time=1546326190`;
    const scope = api()
      .get(`${BASE}/incremental/chats`)
      .query({ start_time: '1546326000', limit: '2', fields: 'chats(*)' })
      .reply(200, { chats: [c1, c2], count: 2, end_id: c2.id, end_time: 1546326100, next_page: next1 })
      .get(`${BASE}/incremental/chats`)
      .query({ start_time: '1546326100', limit: '2', fields: 'chats(*)', start_id: c2.id })
      .reply(200, { chats: [c3], count: 1, end_id: c3.id, end_time: 1546326190, next_page: next2 });
    const c = chat();

    const params = { start_time: 1546326000, limit: 2 };
    const page1 = await c.execute('chats', 'list', params);
    expect(page1.data).toEqual([c1, c2]);
    expect(page1.pagination).toEqual({ next_page: next1, count: 2 });
    expect(page1.next_params).toEqual({ fields: 'chats(*)', limit: 2, start_id: c2.id, start_time: 1546326100 });

    const page2 = await c.execute('chats', 'list', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([c3]);
    // Zendesk always sends next_page; count (1) below the limit (2) says the export has caught up: the
    // walk ends there (the URL stays in the block, for polling later).
    expect(page2.pagination).toEqual({ next_page: next2, count: 1 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('chats list sends fields=chats(*) by default and passes a caller fields value through', async () => {
    const scope = api()
      .get(`${BASE}/incremental/chats`)
      .query({ fields: 'chats(*)' })
      .reply(200, { chats: [c1], count: 1, end_id: c1.id, end_time: 1546326005, next_page: null })
      .get(`${BASE}/incremental/chats`)
      .query({ start_time: '1546326000', fields: 'chats(id,update_timestamp)' })
      .reply(200, { chats: [{ id: c1.id, update_timestamp: c1.update_timestamp }], count: 1, end_id: c1.id, end_time: 1546326005, next_page: null });
    const c = chat();

    const all = await c.execute('chats', 'list', {});
    expect(all).toEqual({ data: [c1], pagination: { next_page: null, count: 1 } });

    const few = await c.execute('chats', 'list', { start_time: 1546326000, fields: 'chats(id,update_timestamp)' });
    expect(few.data).toEqual([{ id: c1.id, update_timestamp: c1.update_timestamp }]);
    expect(few.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('chats list rejects a limit above 1000 before any request', async () => {
    const err = await chat()
      .execute('chats', 'list', { limit: 1001 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'limit', rule: 'maximum' })]);
  });

  it('agent_timeline list walks two pages (start_time in microseconds)', async () => {
    // The shape Zendesk returns: fields, limit and start_time in the next_page URL.
    const next1 = `${HOST}${BASE}/incremental/agent_timeline?fields=agent_timeline%28%2A%29&limit=1&start_time=1559135979881000`;
    const next2 = `${HOST}${BASE}/incremental/agent_timeline?fields=agent_timeline%28%2A%29&limit=1&start_time=1559135981081000`;
    const scope = api()
      .get(`${BASE}/incremental/agent_timeline`)
      .query({ start_time: '1559135900000000', limit: '1', fields: 'agent_timeline(*)' })
      .reply(200, { agent_timeline: [t1], count: 1, end_time: 1559135979881000, next_page: next1 })
      .get(`${BASE}/incremental/agent_timeline`)
      .query({ start_time: '1559135979881000', limit: '1', fields: 'agent_timeline(*)' })
      .reply(200, { agent_timeline: [t2], count: 1, end_time: 1559135981081000, next_page: next2 });
    const c = chat();

    const params = { start_time: 1559135900000000, limit: 1 };
    const page1 = await c.execute('agent_timeline', 'list', params);
    expect(page1.data).toEqual([t1]);
    expect(page1.pagination).toEqual({ next_page: next1, count: 1 });
    expect(page1.next_params).toEqual({ fields: 'agent_timeline(*)', limit: 1, start_time: 1559135979881000 });

    const page2 = await c.execute('agent_timeline', 'list', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([t2]);
    expect(page2.pagination).toEqual({ next_page: next2, count: 1 });
    expect(page2.next_params).toEqual({ fields: 'agent_timeline(*)', limit: 1, start_time: 1559135981081000 });
    expect(scope.isDone()).toBe(true);
  });
});

describe('zendesk-chat configuration', () => {
  it('rejects a subdomain that is not a bare host label', () => {
    expect(() => createConnector('zendesk-chat', { credentials: { access_token: TOKEN }, config: { subdomain: 'evil.example/x#' } })).toThrow(ValidationError);
  });
});
