import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, createConnector, NotFoundError, ValidationError } from '../../runtime/index.js';

// Pylon REST API connector (https://api.usepylon.com). Records follow the schemas of Pylon's API
// reference (docs.usepylon.com/pylon-docs/developer/api/api-reference and its OpenAPI description):
// every response is { data, request_id } and paginated lists add pagination: { cursor, has_next_page }.

const API = 'https://api.usepylon.com';
const TOKEN = 'pyl_live_4f8a2c9e1b7d3f6a0c5e8b2d9f1a7c3e';
const REQUEST_ID = 'req_01JD7Q8W3K5M2N9P4R6T8V0X2Z';

type Rec = Record<string, any>;

const pylon = () => createConnector('pylon', { credentials: { api_token: TOKEN }, http: { retries: 0 } });

/** A scope that only matches requests with Pylon's bearer token and the JSON accept header. */
const api = () => nock(API).matchHeader('authorization', `Bearer ${TOKEN}`).matchHeader('accept', 'application/json');

/** Pylon's list envelope; `pagination` is left out for lists Pylon does not paginate. */
const page = (records: Rec[], pagination?: { cursor: string; has_next_page: boolean }) => ({
  data: records,
  ...(pagination && { pagination }),
  request_id: REQUEST_ID,
});
const one = (record: Rec) => ({ data: record, request_id: REQUEST_ID });
const LAST = { cursor: 'eyJpZCI6Imxhc3QifQ', has_next_page: false };

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Fixtures (shapes from Pylon's API reference)
// ---------------------------------------------------------------------------------------------
const ISSUE_ID = '7c5e9b2a-4f1d-4e8a-9c3b-2d6f8a1e5b70';
const ACCOUNT_ID = 'a1f4c7e2-9b3d-4c6a-8e5f-1d2b3c4a5e6f';
const KB_ID = 'kb_3e9d1c7a-5b2f-4a8e-9d6c-0f1e2a3b4c5d';

const R = {
  issues: {
    id: ISSUE_ID,
    number: 1482,
    title: 'SSO login fails for new users',
    body_html: '<p>New users get a 500 after the SAML redirect.</p>',
    state: 'waiting_on_you',
    source: 'slack',
    type: 'conversation',
    link: 'https://app.usepylon.com/issues?issueNumber=1482',
    account: { id: ACCOUNT_ID },
    assignee: { id: 'u_2b8d4f6a', email: 'maya@vendor.example' },
    requester: { id: 'c_9a1b3c5d', email: 'li.wei@acme.example' },
    team: { id: 't_5e7f9a1b' },
    tags: ['sso', 'p1'],
    attachment_urls: [],
    custom_fields: { region: { slug: 'region', value: 'emea' } },
    external_issues: [{ external_id: 'ENG-4417', link: 'https://linear.app/vendor/issue/ENG-4417', source: 'linear' }],
    csat_responses: [],
    slack: { channel_id: 'C05ACME01', message_ts: '1730201101.004900', workspace_id: 'T01VENDOR' },
    customer_portal_visible: true,
    first_response_seconds: 312,
    first_response_time: '2025-10-29T11:30:13Z',
    business_hours_first_response_seconds: 312,
    resolution_seconds: null,
    resolution_time: null,
    number_of_touches: 3,
    latest_message_time: '2025-10-29T12:02:45Z',
    time_in_status_seconds: { new: 312, waiting_on_you: 1840 },
    created_at: '2025-10-29T11:25:01Z',
    updated_at: '2025-10-29T12:02:45Z',
  },
  accounts: {
    id: ACCOUNT_ID,
    name: 'Acme Corp',
    type: 'customer',
    domain: 'acme.example',
    domains: ['acme.example', 'acme.io'],
    primary_domain: 'acme.example',
    owner: { id: 'u_2b8d4f6a', email: 'maya@vendor.example' },
    tags: ['enterprise'],
    channels: [{ channel_id: 'C05ACME01', source: 'slack', is_primary: true }],
    custom_fields: { arr: { slug: 'arr', value: '120000' } },
    external_ids: [{ external_id: '0015g00000XyZ12', label: 'salesforce' }],
    is_disabled: false,
    latest_customer_activity_time: '2025-10-29T12:02:45Z',
    created_at: '2024-02-11T08:00:00Z',
  },
  contacts: {
    id: 'c_9a1b3c5d',
    name: 'Li Wei',
    email: 'li.wei@acme.example',
    emails: ['li.wei@acme.example'],
    account: { id: ACCOUNT_ID },
    avatar_url: 'https://cdn.acme.example/avatars/li.png',
    phone_numbers: ['14155550123'],
    primary_phone_number: '14155550123',
    portal_role: 'member',
    custom_fields: {},
  },
  teams: { id: 't_5e7f9a1b', name: 'Tier 2', users: [{ id: 'u_2b8d4f6a', email: 'maya@vendor.example' }] },
  tags: { id: 'tag_6d2e8f0a', value: 'sso', object_type: 'issue', hex_color: '#3b82f6' },
  users: {
    id: 'u_2b8d4f6a',
    name: 'Maya Patel',
    email: 'maya@vendor.example',
    emails: ['maya@vendor.example'],
    avatar_url: 'https://cdn.usepylon.com/avatars/u_2b8d4f6a.png',
    role_id: 'role_admin',
    status: 'active',
  },
  custom_fields: {
    id: 'cf_1a2b3c4d',
    slug: 'region',
    label: 'Region',
    description: 'Customer data region',
    object_type: 'issue',
    type: 'select',
    source: 'pylon',
    is_read_only: false,
    select_metadata: {
      options: [
        { slug: 'emea', label: 'EMEA' },
        { slug: 'amer', label: 'AMER' },
      ],
    },
    created_at: '2024-05-02T10:00:00Z',
    updated_at: '2025-01-15T09:30:00Z',
  },
  ticket_forms: {
    id: 'tf_8e4c2a6b',
    name: 'Bug report',
    slug: 'bug-report',
    url: 'https://support.vendor.example/forms/bug-report',
    description_html: '<p>Tell us what went wrong.</p>',
    is_public: true,
    fields: [{ slug: 'severity', is_required: true }],
  },
  user_roles: { id: 'role_admin', name: 'Admin', slug: 'admin' },
  issue_statuses: { slug: 'waiting_on_you', label: 'Waiting on you', category: 'open', is_default_status: true, is_archived: false },
  messages: {
    id: 'msg_4c6e8a0b',
    message_html: '<p>Can you share the SAML response?</p>',
    is_private: false,
    source: 'slack',
    thread_id: null,
    author: { name: 'Maya Patel', avatar_url: null, user: { id: 'u_2b8d4f6a', email: 'maya@vendor.example' } },
    file_urls: [],
    timestamp: '2025-10-29T11:30:13Z',
  },
  issue_threads: { id: 'th_2f4a6c8e', issue_id: ISSUE_ID, name: 'Eng escalation', source: 'slack', channel_id: 'C05ENG', thread_id: '1730201400.001100' },
  tasks: {
    id: 'task_9b1d3f5a',
    title: 'Enable SCIM for Acme',
    body_html: '<p>Turn on SCIM provisioning.</p>',
    status: 'in_progress',
    account: { id: ACCOUNT_ID },
    assignee: { id: 'u_2b8d4f6a' },
    project: { id: 'prj_0c2e4a6b' },
    milestone: { id: 'ms_7d9f1b3c' },
    subtask_ids: [],
    due_date: '2025-11-15T00:00:00Z',
    customer_portal_visible: false,
    created_at: '2025-10-20T14:00:00Z',
    updated_at: '2025-10-28T16:45:00Z',
  },
  projects: {
    id: 'prj_0c2e4a6b',
    name: 'Acme onboarding',
    description_html: '<p>Go-live plan.</p>',
    account: { id: ACCOUNT_ID },
    owner_id: 'u_2b8d4f6a',
    start_date: '2025-10-01T00:00:00Z',
    end_date: '2025-12-01T00:00:00Z',
    is_archived: false,
    customer_portal_visible: true,
    created_at: '2025-09-25T09:00:00Z',
    updated_at: '2025-10-28T16:45:00Z',
  },
  knowledge_bases: {
    id: KB_ID,
    title: 'Vendor Help Center',
    slug: 'help',
    default_language: 'en',
    supported_languages: ['en', 'de'],
  },
  articles: {
    id: 'art_5a7c9e1b',
    title: 'Configuring SAML SSO',
    slug: 'configuring-saml-sso',
    identifier: '1042',
    url: 'https://support.vendor.example/articles/1042-configuring-saml-sso',
    collection_id: 'col_3b5d7f9a',
    is_published: true,
    is_unlisted: false,
    last_published_at: '2025-06-03T12:00:00Z',
    current_published_content_html: '<h1>Configuring SAML SSO</h1>',
    current_draft_content_html: '<h1>Configuring SAML SSO</h1>',
    visibility_config: { visibility: 'public', ai_agent_access: 'inherit' },
  },
  collections: {
    id: 'col_3b5d7f9a',
    title: 'Authentication',
    slug: 'authentication',
    description: 'Login, SSO and SCIM',
    icon: 'lock',
    parent_collection_id: null,
    created_at: '2024-03-01T10:00:00Z',
  },
  me: { id: 'org_1f3e5d7c', name: 'Vendor Inc.' },
} satisfies Record<string, Rec>;
type Entity = keyof typeof R;

// [entity, path, params, expected query, paginated]
const LISTS: Array<[Entity, string, Rec, Record<string, string>, boolean]> = [
  [
    'issues',
    '/issues',
    { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-31T00:00:00Z' },
    { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-31T00:00:00Z' },
    true,
  ],
  ['issue_statuses', '/issue-statuses', {}, {}, true],
  ['messages', `/issues/${ISSUE_ID}/messages`, { issue_id: ISSUE_ID }, {}, true],
  ['issue_threads', `/issues/${ISSUE_ID}/threads`, { issue_id: ISSUE_ID }, {}, false],
  ['accounts', '/accounts', {}, { limit: '100' }, true],
  ['contacts', '/contacts', { limit: 50 }, { limit: '50' }, true],
  ['teams', '/teams', {}, {}, true],
  ['tags', '/tags', {}, {}, true],
  ['users', '/users', {}, {}, true],
  ['custom_fields', '/custom-fields', { object_type: 'issue' }, { object_type: 'issue' }, true],
  ['ticket_forms', '/ticket-forms', {}, {}, true],
  ['user_roles', '/user-roles', {}, {}, true],
  ['tasks', '/tasks', { limit: 25 }, { limit: '25' }, true],
  ['knowledge_bases', '/knowledge-bases', {}, {}, false],
  ['articles', `/knowledge-bases/${KB_ID}/articles`, { knowledge_base_id: KB_ID, language: 'en' }, { language: 'en' }, true],
  ['collections', `/knowledge-bases/${KB_ID}/collections`, { knowledge_base_id: KB_ID }, {}, false],
];

// [entity, path, params] for get; the record is Pylon's data object
const GETS: Array<[Entity, string, Rec]> = [
  ['issues', '/issues/1482', { id: '1482' }],
  ['accounts', `/accounts/${ACCOUNT_ID}`, { id: ACCOUNT_ID }],
  ['contacts', '/contacts/c_9a1b3c5d', { id: 'c_9a1b3c5d' }],
  ['teams', '/teams/t_5e7f9a1b', { id: 't_5e7f9a1b' }],
  ['tags', '/tags/tag_6d2e8f0a', { id: 'tag_6d2e8f0a' }],
  ['users', '/users/u_2b8d4f6a', { id: 'u_2b8d4f6a' }],
  ['custom_fields', '/custom-fields/cf_1a2b3c4d', { id: 'cf_1a2b3c4d' }],
  ['ticket_forms', '/ticket-forms/tf_8e4c2a6b', { id: 'tf_8e4c2a6b' }],
  ['tasks', '/tasks/task_9b1d3f5a', { id: 'task_9b1d3f5a' }],
  ['knowledge_bases', `/knowledge-bases/${KB_ID}`, { id: KB_ID }],
  ['articles', `/knowledge-bases/${KB_ID}/articles/art_5a7c9e1b`, { knowledge_base_id: KB_ID, article_id: 'art_5a7c9e1b' }],
  ['collections', `/knowledge-bases/${KB_ID}/collections/col_3b5d7f9a`, { knowledge_base_id: KB_ID, collection_id: 'col_3b5d7f9a' }],
  ['me', '/me', {}],
];

describe('pylon list', () => {
  it.each(LISTS)('%s list -> GET %s', async (entity, path, params, query, paginated) => {
    const scope = api()
      .get(path)
      .query(query)
      .reply(200, page([R[entity]], paginated ? LAST : undefined));

    const res = await pylon().execute(entity, 'list', params);

    expect(res.data).toEqual([R[entity]]);
    if (paginated) {
      // has_next_page false ends the walk even though Pylon still sends a cursor.
      expect(res.pagination).toEqual({ next_cursor: null, has_next_page: false });
    } else {
      expect(res.pagination).toBeUndefined();
    }
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('projects list -> POST /projects/search with a JSON body (Pylon has no GET /projects)', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/projects/search', { limit: 10 })
      .reply(200, page([R.projects], LAST));

    const res = await pylon().execute('projects', 'list', { limit: 10 });

    expect(res.data).toEqual([R.projects]);
    expect(res.pagination).toEqual({ next_cursor: null, has_next_page: false });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('issues api_search -> POST /issues/search with the filter, cursor and limit in the JSON body', async () => {
    const filter = {
      operator: 'and',
      subfilters: [
        { field: 'updated_at', operator: 'time_is_after', value: '2025-10-01T00:00:00Z' },
        { field: 'state', operator: 'in', values: ['new', 'waiting_on_you'] },
      ],
    };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/issues/search', { filter, cursor: 'c1', limit: 50 })
      .reply(200, page([R.issues], { cursor: 'c2', has_next_page: true }));

    const res = await pylon().execute('issues', 'api_search', { filter, cursor: 'c1', limit: 50 });

    expect(res.data).toEqual([R.issues]);
    expect(res.pagination).toEqual({ next_cursor: 'c2', has_next_page: true });
    expect(res.next_params).toEqual({ cursor: 'c2' });
    expect(scope.isDone()).toBe(true);
  });

  it('issues api_search needs a filter with an operator Pylon knows, and a limit of 1 to 999', async () => {
    const error = (await pylon()
      .execute('issues', 'api_search', { filter: { field: 'updated_at', operator: 'after', value: 'x' }, limit: 1000 })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues.map((i) => [i.field, i.rule])).toEqual([
      ['filter.operator', 'enum'],
      ['limit', 'maximum'],
    ]);
    const missing = (await pylon()
      .execute('issues', 'api_search', {})
      .catch((e: unknown) => e)) as ValidationError;
    expect(missing.issues.map((i) => [i.field, i.rule])).toEqual([['filter', 'required']]);
  });

  it('projects list sends an empty JSON object when no param is given', async () => {
    const scope = api()
      .post('/projects/search', {})
      .reply(200, page([], { cursor: '', has_next_page: false }));

    const res = await pylon().execute('projects', 'list', {});

    expect(res.data).toEqual([]);
    expect(res.pagination).toEqual({ next_cursor: null, has_next_page: false });
    expect(scope.isDone()).toBe(true);
  });
});

describe('pylon get', () => {
  it.each(GETS)('%s get -> GET %s (the data object)', async (entity, path, params) => {
    const scope = api().get(path).reply(200, one(R[entity]));

    const res = await pylon().execute(entity, 'get', params);

    expect(res.data).toEqual(R[entity]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 404 to NotFoundError', async () => {
    const scope = api()
      .get('/issues/does-not-exist')
      .reply(404, { errors: ['issue not found'], request_id: REQUEST_ID });

    const err = await pylon()
      .execute('issues', 'get', { id: 'does-not-exist' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).upstreamStatus).toBe(404);
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 401 (bad token) to AuthenticationError', async () => {
    const scope = api()
      .get('/me')
      .reply(401, { errors: ['invalid API token'], request_id: REQUEST_ID });

    const err = await pylon()
      .execute('me', 'get', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect(scope.isDone()).toBe(true);
  });
});

describe('pylon pagination (pagination.cursor / has_next_page)', () => {
  it('walks two pages of issues with the cursor, keeping start_time and end_time', async () => {
    const window = { start_time: '2025-10-01T00:00:00Z', end_time: '2025-10-31T00:00:00Z' };
    const cursor = 'eyJjcmVhdGVkX2F0IjoiMjAyNS0xMC0yOVQxMToyNTowMVoiLCJpZCI6IjdjNWU5YjJhIn0';
    const second = { ...R.issues, id: '0b1d3f5a-7c9e-4b2d-8f6a-1c3e5a7b9d0f', number: 1483, title: 'Webhook retries' };
    const scope = api()
      .get('/issues')
      .query(window)
      .reply(200, page([R.issues], { cursor, has_next_page: true }))
      .get('/issues')
      .query({ ...window, cursor })
      .reply(200, page([second], { cursor: 'eyJlbmQiOnRydWV9', has_next_page: false }));
    const conn = pylon();

    const p1 = await conn.execute('issues', 'list', window);
    expect(p1.data).toEqual([R.issues]);
    expect(p1.pagination).toEqual({ next_cursor: cursor, has_next_page: true });
    expect(p1.next_params).toEqual({ cursor });

    const p2 = await conn.execute('issues', 'list', { ...window, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next_cursor: null, has_next_page: false });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of projects with the cursor in the search body', async () => {
    const cursor = 'cHJqXzBjMmU0YTZi';
    const second = { ...R.projects, id: 'prj_8d0f2b4c', name: 'Globex renewal' };
    const scope = api()
      .post('/projects/search', { limit: 1 })
      .reply(200, page([R.projects], { cursor, has_next_page: true }))
      .post('/projects/search', { limit: 1, cursor })
      .reply(200, page([second], { cursor: '', has_next_page: false }));
    const conn = pylon();

    const p1 = await conn.execute('projects', 'list', { limit: 1 });
    expect(p1.next_params).toEqual({ cursor });
    const p2 = await conn.execute('projects', 'list', { limit: 1, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('pylon issues create/update/delete', () => {
  it('create -> POST /issues with the body; returns the whole {data, request_id}', async () => {
    const body = {
      title: 'SSO login fails for new users',
      body_html: '<p>New users get a 500 after the SAML redirect.</p>',
      priority: 'high',
      requester_email: 'li.wei@acme.example',
      requester_name: 'Li Wei',
      account_id: ACCOUNT_ID,
      assignee_id: 'u_2b8d4f6a',
      team_id: 't_5e7f9a1b',
      tags: ['sso', 'p1'],
    };
    const scope = api().matchHeader('content-type', 'application/json').post('/issues', body).reply(200, one(R.issues));

    const res = await pylon().execute('issues', 'create', body);

    expect(res.data).toEqual({ data: R.issues, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('update -> PATCH /issues/{id} with only the given fields; returns {data, request_id}', async () => {
    const closed = { ...R.issues, state: 'closed', tags: ['sso'] };
    const scope = api()
      .patch(`/issues/${ISSUE_ID}`, { state: 'closed', tags: ['sso'] })
      .reply(200, one(closed));

    const res = await pylon().execute('issues', 'update', { id: ISSUE_ID, state: 'closed', tags: ['sso'] });

    expect(res.data).toEqual({ data: closed, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it("update sends a status slug as given: Pylon's base statuses and the organization's custom ones", async () => {
    const scope = api()
      .patch(`/issues/${ISSUE_ID}`, { state: 'waiting_on_customer' })
      .reply(200, one({ ...R.issues, state: 'waiting_on_customer' }))
      .patch(`/issues/${ISSUE_ID}`, { state: 'escalated-to-eng' })
      .reply(200, one({ ...R.issues, state: 'escalated-to-eng' }));

    await pylon().execute('issues', 'update', { id: ISSUE_ID, state: 'waiting_on_customer' });
    await pylon().execute('issues', 'update', { id: ISSUE_ID, state: 'escalated-to-eng' });

    expect(scope.isDone()).toBe(true);
  });

  it('delete -> DELETE /issues/{id}; returns {request_id}', async () => {
    const scope = api().delete(`/issues/${ISSUE_ID}`).reply(200, { request_id: REQUEST_ID });

    const res = await pylon().execute('issues', 'delete', { id: ISSUE_ID });

    expect(res).toEqual({ data: { request_id: REQUEST_ID } });
    expect(scope.isDone()).toBe(true);
  });

  it('rejects an empty state and a priority outside the allowed values, naming both', async () => {
    const scope = nock(API);

    const upd = await pylon()
      .execute('issues', 'update', { id: ISSUE_ID, state: '' })
      .catch((e: unknown) => e);
    const crt = await pylon()
      .execute('issues', 'create', { title: 't', body_html: '<p>b</p>', priority: 'p1' })
      .catch((e: unknown) => e);

    expect(upd).toBeInstanceOf(ValidationError);
    expect((upd as ValidationError).issues).toEqual([expect.objectContaining({ field: 'state', rule: 'minLength' })]);
    expect(crt).toBeInstanceOf(ValidationError);
    expect((crt as ValidationError).issues).toEqual([expect.objectContaining({ field: 'priority', rule: 'enum' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an update that would change nothing', async () => {
    const err = await pylon()
      .execute('issues', 'update', { id: ISSUE_ID })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
  });

  it('requires start_time and end_time as RFC 3339 date-times for the issues list', async () => {
    const missing = await pylon()
      .execute('issues', 'list', {})
      .catch((e: unknown) => e);
    const malformed = await pylon()
      .execute('issues', 'list', { start_time: '2025-10-01', end_time: 'yesterday' })
      .catch((e: unknown) => e);

    expect((missing as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['end_time', 'required'],
      ['start_time', 'required'],
    ]);
    expect((malformed as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['end_time', 'format'],
      ['start_time', 'format'],
    ]);
  });
});

describe('pylon issue sub-resources', () => {
  it('issue_replies create -> POST /issues/{id}/reply; returns {data: {id, issue_id}, request_id}', async () => {
    const body = {
      body_html: '<p>Fixed in 4.12, please retry.</p>',
      message_id: 'msg_4c6e8a0b',
      user_id: 'u_2b8d4f6a',
      attachment_urls: ['https://cdn.vendor.example/f/notes.pdf'],
    };
    const reply = { data: { id: 'msg_6e8a0c2d', issue_id: ISSUE_ID }, request_id: REQUEST_ID };
    const scope = api().post(`/issues/${ISSUE_ID}/reply`, body).reply(200, reply);

    const res = await pylon().execute('issue_replies', 'create', { issue_id: ISSUE_ID, ...body });

    expect(res.data).toEqual(reply);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_replies create takes at most one of user_id and contact_id', async () => {
    const err = await pylon()
      .execute('issue_replies', 'create', { issue_id: ISSUE_ID, body_html: '<p>x</p>', message_id: 'm', user_id: 'u', contact_id: 'c' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_most_one_of' })]);
  });

  it('issue_notes create -> POST /issues/{id}/note', async () => {
    const body = { body_html: '<p>Customer is on the legacy IdP.</p>', thread_id: 'th_2f4a6c8e' };
    const note = { data: { id: 'msg_8a0c2e4f', issue_id: ISSUE_ID }, request_id: REQUEST_ID };
    const scope = api().post(`/issues/${ISSUE_ID}/note`, body).reply(200, note);

    const res = await pylon().execute('issue_notes', 'create', { issue_id: ISSUE_ID, ...body });

    expect(res.data).toEqual(note);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_threads create -> POST /issues/{id}/threads', async () => {
    const scope = api().post(`/issues/${ISSUE_ID}/threads`, { name: 'Eng escalation' }).reply(200, one(R.issue_threads));

    const res = await pylon().execute('issue_threads', 'create', { issue_id: ISSUE_ID, name: 'Eng escalation' });

    expect(res.data).toEqual({ data: R.issue_threads, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('issue_assignments update -> PATCH /issues/{id} with assignee_id and team_id ("" unassigns)', async () => {
    const unassigned = { ...R.issues, assignee: null, team: { id: 't_0a2c4e6f' } };
    const scope = api().patch(`/issues/${ISSUE_ID}`, { assignee_id: '', team_id: 't_0a2c4e6f' }).reply(200, one(unassigned));

    const res = await pylon().execute('issue_assignments', 'update', { issue_id: ISSUE_ID, assignee_id: '', team_id: 't_0a2c4e6f' });

    expect(res.data).toEqual({ data: unassigned, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });
});

// [entity, action, method, path, params, expected body]
const WRITES: Array<[Entity | 'milestones', 'create' | 'update', 'post' | 'patch', string, Rec, Rec]> = [
  [
    'accounts',
    'create',
    'post',
    '/accounts',
    { name: 'Acme Corp', account_type: 'customer', domains: ['acme.example'], primary_domain: 'acme.example', tags: ['enterprise'] },
    { name: 'Acme Corp', account_type: 'customer', domains: ['acme.example'], primary_domain: 'acme.example', tags: ['enterprise'] },
  ],
  [
    'accounts',
    'update',
    'patch',
    `/accounts/${ACCOUNT_ID}`,
    { id: ACCOUNT_ID, owner_id: 'u_2b8d4f6a', is_disabled: false },
    { owner_id: 'u_2b8d4f6a', is_disabled: false },
  ],
  [
    'contacts',
    'create',
    'post',
    '/contacts',
    { name: 'Li Wei', email: 'li.wei@acme.example', account_id: ACCOUNT_ID, portal_role: 'member' },
    { name: 'Li Wei', email: 'li.wei@acme.example', account_id: ACCOUNT_ID, portal_role: 'member' },
  ],
  ['contacts', 'update', 'patch', '/contacts/c_9a1b3c5d', { id: 'c_9a1b3c5d', phone_numbers: ['14155550123'] }, { phone_numbers: ['14155550123'] }],
  ['teams', 'create', 'post', '/teams', { name: 'Tier 2', user_ids: ['u_2b8d4f6a'] }, { name: 'Tier 2', user_ids: ['u_2b8d4f6a'] }],
  ['teams', 'update', 'patch', '/teams/t_5e7f9a1b', { id: 't_5e7f9a1b', name: 'Tier 2 (EMEA)' }, { name: 'Tier 2 (EMEA)' }],
  [
    'tags',
    'create',
    'post',
    '/tags',
    { value: 'sso', object_type: 'issue', hex_color: '#3b82f6' },
    { value: 'sso', object_type: 'issue', hex_color: '#3b82f6' },
  ],
  ['tags', 'update', 'patch', '/tags/tag_6d2e8f0a', { id: 'tag_6d2e8f0a', hex_color: '#ef4444' }, { hex_color: '#ef4444' }],
  [
    'milestones',
    'create',
    'post',
    '/milestones',
    { name: 'Go live', project_id: 'prj_0c2e4a6b', due_date: '2025-12-01T00:00:00Z' },
    { name: 'Go live', project_id: 'prj_0c2e4a6b', due_date: '2025-12-01T00:00:00Z' },
  ],
  ['milestones', 'update', 'patch', '/milestones/ms_7d9f1b3c', { id: 'ms_7d9f1b3c', name: 'Go live (v2)' }, { name: 'Go live (v2)' }],
];
const MILESTONE = {
  id: 'ms_7d9f1b3c',
  name: 'Go live',
  due_date: '2025-12-01T00:00:00Z',
  account: { id: ACCOUNT_ID },
  project: { id: 'prj_0c2e4a6b' },
  created_at: '2025-10-01T00:00:00Z',
  updated_at: '2025-10-01T00:00:00Z',
};

describe('pylon create and update', () => {
  it.each(WRITES)('%s %s -> %s %s; returns {data, request_id}', async (entity, action, method, path, params, body) => {
    const record = entity === 'milestones' ? MILESTONE : R[entity];
    const scope = api().matchHeader('content-type', 'application/json')[method](path, body).reply(200, one(record));

    const res = await pylon().execute(entity, action, params);

    expect(res.data).toEqual({ data: record, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('tags create requires value and an object_type of account, issue or contact', async () => {
    const err = await pylon()
      .execute('tags', 'create', { object_type: 'task' })
      .catch((e: unknown) => e);

    expect((err as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['object_type', 'enum'],
      ['value', 'required'],
    ]);
  });
});

// Writes on tasks, projects, articles and collections, and the issue status change, with the names
// Airbyte's clients send (id for the issue, kb_id for the knowledge base).
const TASK_ID = 'task_9b1d3f5a';
const PROJECT_ID = 'prj_0c2e4a6b';
const ARTICLE_ID = 'art_5a7c9e1b';

describe('pylon issue_statuses update (PATCH /issues/{id} with state)', () => {
  it("sends only state to PATCH /issues/{id}, the issue given as Airbyte's id; returns {data, request_id}", async () => {
    const onHold = { ...R.issues, state: 'on_hold' };
    const scope = api().matchHeader('content-type', 'application/json').patch(`/issues/${ISSUE_ID}`, { state: 'on_hold' }).reply(200, one(onHold));

    const res = await pylon().execute('issue_statuses', 'update', { id: ISSUE_ID, state: 'on_hold' });

    expect(res.data).toEqual({ data: onHold, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('takes a custom status slug under issue_id', async () => {
    const escalated = { ...R.issues, state: 'escalated-to-eng' };
    const scope = api().patch('/issues/1482', { state: 'escalated-to-eng' }).reply(200, one(escalated));

    const res = await pylon().execute('issue_statuses', 'update', { issue_id: '1482', state: 'escalated-to-eng' });

    expect(res.data).toEqual({ data: escalated, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('requires the issue and a non-empty state before any request', async () => {
    const scope = nock(API);

    const missing = await pylon()
      .execute('issue_statuses', 'update', {})
      .catch((e: unknown) => e);
    const empty = await pylon()
      .execute('issue_statuses', 'update', { id: ISSUE_ID, state: '' })
      .catch((e: unknown) => e);

    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['issue_id', 'required'],
      ['state', 'required'],
    ]);
    expect(empty).toBeInstanceOf(ValidationError);
    expect((empty as ValidationError).issues).toEqual([expect.objectContaining({ field: 'state', rule: 'minLength' })]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('pylon tasks and projects create/update', () => {
  it('tasks create -> POST /tasks with every field Airbyte sends and the other documented ones', async () => {
    const body = {
      title: 'Enable SCIM for Acme',
      body_html: '<p>Turn on SCIM provisioning.</p>',
      status: 'not_started',
      assignee_id: 'u_2b8d4f6a',
      project_id: PROJECT_ID,
      milestone_id: 'ms_7d9f1b3c',
      due_date: '2025-11-15T00:00:00Z',
      account_id: ACCOUNT_ID,
      customer_portal_visible: true,
      custom_fields: [{ slug: 'effort', value: 'm' }],
    };
    const scope = api().matchHeader('content-type', 'application/json').post('/tasks', body).reply(200, one(R.tasks));

    const res = await pylon().execute('tasks', 'create', body);

    expect(res.data).toEqual({ data: R.tasks, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('tasks update -> PATCH /tasks/{id} with only the given fields', async () => {
    const done = { ...R.tasks, title: 'Enable SCIM for Acme (EU)', status: 'completed' };
    const body = { title: 'Enable SCIM for Acme (EU)', body_html: '<p>Done.</p>', status: 'completed', assignee_id: 'u_4d6f8b0c' };
    const scope = api().matchHeader('content-type', 'application/json').patch(`/tasks/${TASK_ID}`, body).reply(200, one(done));

    const res = await pylon().execute('tasks', 'update', { id: TASK_ID, ...body });

    expect(res.data).toEqual({ data: done, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('tasks create needs a title and RFC 3339 due_date; tasks update refuses an empty update', async () => {
    const scope = nock(API);

    const create = await pylon()
      .execute('tasks', 'create', { body_html: '<p>x</p>', due_date: '2025-11-15' })
      .catch((e: unknown) => e);
    const update = await pylon()
      .execute('tasks', 'update', { id: TASK_ID })
      .catch((e: unknown) => e);

    expect((create as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['due_date', 'format'],
      ['title', 'required'],
    ]);
    expect(update).toBeInstanceOf(ValidationError);
    expect((update as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('projects create -> POST /projects with name, account_id and the optional fields', async () => {
    const body = {
      name: 'Acme onboarding',
      account_id: ACCOUNT_ID,
      description_html: '<p>Go-live plan.</p>',
      start_date: '2025-10-01T00:00:00Z',
      end_date: '2025-12-01T00:00:00Z',
      owner_id: 'u_2b8d4f6a',
      project_template_id: 'pt_1a3c5e7b',
      customer_portal_visible: true,
    };
    const scope = api().matchHeader('content-type', 'application/json').post('/projects', body).reply(200, one(R.projects));

    const res = await pylon().execute('projects', 'create', body);

    expect(res.data).toEqual({ data: R.projects, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('projects update -> PATCH /projects/{id} with only the given fields (is_archived false is sent)', async () => {
    const renamed = { ...R.projects, name: 'Acme onboarding (phase 2)', description_html: '<p>Phase 2.</p>' };
    const body = { name: 'Acme onboarding (phase 2)', description_html: '<p>Phase 2.</p>', is_archived: false };
    const scope = api().patch(`/projects/${PROJECT_ID}`, body).reply(200, one(renamed));

    const res = await pylon().execute('projects', 'update', { id: PROJECT_ID, ...body });

    expect(res.data).toEqual({ data: renamed, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('projects create requires name and account_id; projects update refuses an empty update', async () => {
    const scope = nock(API);

    const create = await pylon()
      .execute('projects', 'create', { description_html: '<p>x</p>', start_date: 'next week' })
      .catch((e: unknown) => e);
    const update = await pylon()
      .execute('projects', 'update', { id: PROJECT_ID })
      .catch((e: unknown) => e);

    expect((create as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['account_id', 'required'],
      ['name', 'required'],
      ['start_date', 'format'],
    ]);
    expect((update as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('pylon knowledge-base writes (articles create/update, collections create)', () => {
  it("articles create -> POST /knowledge-bases/{id}/articles, the knowledge base given as Airbyte's kb_id", async () => {
    const body = {
      title: 'Configuring SAML SSO',
      body_html: '<h1>Configuring SAML SSO</h1>',
      author_user_id: 'u_2b8d4f6a',
      slug: 'configuring-saml-sso',
      is_published: true,
      collection_id: 'col_3b5d7f9a',
      is_unlisted: false,
    };
    const scope = api().matchHeader('content-type', 'application/json').post(`/knowledge-bases/${KB_ID}/articles`, body).reply(200, one(R.articles));

    const res = await pylon().execute('articles', 'create', { kb_id: KB_ID, ...body });

    expect(res.data).toEqual({ data: R.articles, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('articles update -> PATCH /knowledge-bases/{id}/articles/{article_id} with only the given fields', async () => {
    const updated = { ...R.articles, title: 'Configuring SAML SSO (Okta)' };
    const body = { title: 'Configuring SAML SSO (Okta)', body_html: '<h1>Okta</h1>', publish_updated_body_html: true, language: 'de' };
    const scope = api().patch(`/knowledge-bases/${KB_ID}/articles/${ARTICLE_ID}`, body).reply(200, one(updated));

    const res = await pylon().execute('articles', 'update', { kb_id: KB_ID, article_id: ARTICLE_ID, ...body });

    expect(res.data).toEqual({ data: updated, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('articles create requires title, body_html, author_user_id and the knowledge base; update refuses a change of nothing', async () => {
    const scope = nock(API);

    const create = await pylon()
      .execute('articles', 'create', { slug: 'x' })
      .catch((e: unknown) => e);
    const update = await pylon()
      .execute('articles', 'update', { knowledge_base_id: KB_ID, article_id: ARTICLE_ID, language: 'de' })
      .catch((e: unknown) => e);
    const both = await pylon()
      .execute('articles', 'update', { knowledge_base_id: KB_ID, kb_id: KB_ID, article_id: ARTICLE_ID, title: 't' })
      .catch((e: unknown) => e);

    expect((create as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['author_user_id', 'required'],
      ['body_html', 'required'],
      ['knowledge_base_id', 'required'],
      ['title', 'required'],
    ]);
    expect((update as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(both).toBeInstanceOf(ValidationError);
    expect((both as ValidationError).issues).toEqual([expect.objectContaining({ rule: 'alias_conflict' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('collections create -> POST /knowledge-bases/{id}/collections, the knowledge base given as kb_id', async () => {
    const body = { title: 'Authentication', description: 'Login, SSO and SCIM', slug: 'authentication', parent_collection_id: 'col_0a2c4e6f' };
    const scope = api().matchHeader('content-type', 'application/json').post(`/knowledge-bases/${KB_ID}/collections`, body).reply(200, one(R.collections));

    const res = await pylon().execute('collections', 'create', { kb_id: KB_ID, ...body });

    expect(res.data).toEqual({ data: R.collections, request_id: REQUEST_ID });
    expect(scope.isDone()).toBe(true);
  });

  it('collections create requires a title', async () => {
    const scope = nock(API);

    const err = await pylon()
      .execute('collections', 'create', { knowledge_base_id: KB_ID, description: 'd' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'title', rule: 'required' })]);
    expect(scope.isDone()).toBe(true);
  });
});
