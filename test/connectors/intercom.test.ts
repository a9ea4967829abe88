import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, createConnector, NotFoundError, ValidationError } from '../../runtime/index.js';

// Intercom REST API 2.14. Response bodies follow the examples of Intercom's OpenAPI description
// (intercom/Intercom-OpenAPI, descriptions/2.14/api.intercom.io.yaml); the pages.next cursor object
// follows the pagination guide (developers.intercom.com/.../rest-apis/pagination/).

const API = 'https://api.intercom.io';
const VERSION = '2.14';
const TOKEN = 'dG9rOjUzZjY0ZDM3XzYxNmVfNDU5Nl85YmI4XzE0ZjJkMjY3N2Y2ZjoxOjA=';

type Rec = Record<string, any>;

const intercom = (config: Record<string, string> = {}) => createConnector('intercom', { credentials: { access_token: TOKEN }, config, http: { retries: 0 } });

/** A scope that only matches requests with the bearer token, the pinned version and JSON accept. */
const api = (base = API) =>
  nock(base).matchHeader('authorization', `Bearer ${TOKEN}`).matchHeader('intercom-version', VERSION).matchHeader('accept', 'application/json');
/** Same, for requests with a JSON body. */
const apiJson = (base = API) => api(base).matchHeader('content-type', 'application/json');

// Requests that nock could not match (net connect is disabled, so nothing else can leave).
let unmatched: string[] = [];
const onNoMatch = (req: { method?: string; path?: string; href?: string }) => {
  unmatched.push(`${req.method ?? ''} ${req.href ?? req.path ?? ''}`);
};
beforeAll(() => {
  nock.disableNetConnect();
  nock.emitter.on('no match', onNoMatch);
});
afterAll(() => {
  nock.emitter.removeListener('no match', onNoMatch);
  nock.enableNetConnect();
});
afterEach(() => {
  nock.cleanAll();
  unmatched = [];
});

// ---------------------------------------------------------------------------------------------
// Records (from the 2.14 description's examples)
// ---------------------------------------------------------------------------------------------
const contact = (id: string, email: string, name: string): Rec => ({
  type: 'contact',
  id,
  workspace_id: 'this_is_an_id283_that_should_be_at_least_',
  external_id: '70',
  role: 'user',
  email,
  phone: null,
  name,
  avatar: null,
  owner_id: null,
  social_profiles: { type: 'list', data: [] },
  has_hard_bounced: false,
  marked_email_as_spam: false,
  unsubscribed_from_emails: false,
  created_at: 1734537424,
  updated_at: 1734537424,
  signed_up_at: 1734537424,
  last_seen_at: null,
  last_replied_at: null,
  last_contacted_at: null,
  last_email_opened_at: null,
  last_email_clicked_at: null,
  language_override: null,
  browser: null,
  browser_version: null,
  browser_language: null,
  os: null,
  location: { type: 'location', country: null, region: null, city: null, country_code: null, continent_code: null },
  custom_attributes: {},
  tags: { type: 'list', data: [], url: `/contacts/${id}/tags`, total_count: 0, has_more: false },
  notes: { type: 'list', data: [], url: `/contacts/${id}/notes`, total_count: 0, has_more: false },
  companies: { type: 'list', data: [], url: `/contacts/${id}/companies`, total_count: 0, has_more: false },
  opted_out_subscription_types: { type: 'list', data: [], url: `/contacts/${id}/subscriptions`, total_count: 0, has_more: false },
  opted_in_subscription_types: { type: 'list', data: [], url: `/contacts/${id}/subscriptions`, total_count: 0, has_more: false },
  utm_campaign: null,
  utm_content: null,
  utm_medium: null,
  utm_source: null,
  utm_term: null,
  referrer: null,
  enabled_push_messaging: null,
});
const c1 = contact('6762f0d01bb69f9f2193bb7d', 'joe@bloggs.com', 'Joe Bloggs');
const c2 = contact('6762f0dd1bb69f9f2193bb83', 'joebloggs@intercom.io', 'Joe Bloggs 2');
const c3 = contact('6762f0df1bb69f9f2193bb84', 'jane@bloggs.com', 'Jane Bloggs');

const conversation = (id: string, body: string): Rec => ({
  type: 'conversation',
  id,
  created_at: 1734537460,
  updated_at: 1734537460,
  waiting_since: null,
  snoozed_until: null,
  source: {
    type: 'conversation',
    id: '403918320',
    delivered_as: 'admin_initiated',
    subject: '',
    body,
    author: { type: 'admin', id: '991267628', name: 'Ciaran166 Lee', email: 'admin166@email.com' },
    attachments: [],
    url: null,
    redacted: false,
  },
  contacts: { type: 'contact.list', contacts: [{ type: 'contact', id: '6762f0f31bb69f9f2193bb8b', external_id: '70' }] },
  first_contact_reply: null,
  admin_assignee_id: 991267715,
  team_assignee_id: 5017691,
  open: false,
  state: 'closed',
  read: false,
  tags: { type: 'tag.list', tags: [] },
  priority: 'not_priority',
  sla_applied: null,
  statistics: null,
  conversation_rating: null,
  teammates: null,
  title: null,
  custom_attributes: {},
  topics: {},
  ticket: null,
  linked_objects: { type: 'list', data: [], total_count: 0, has_more: false },
  ai_agent: null,
  ai_agent_participated: false,
});
const v1 = conversation('471', '<p>this is the message body</p>');
const v2 = conversation('472', '<p>I need support with my invoice</p>');
const v3 = conversation('473', '<p>How do I export my data?</p>');
const fullConversation: Rec = {
  ...conversation('503', '<p>this is the message body</p>'),
  conversation_parts: {
    type: 'conversation_part.list',
    conversation_parts: [
      {
        type: 'conversation_part',
        id: '1',
        part_type: 'comment',
        body: '<p>Okay!</p>',
        created_at: 1663597223,
        updated_at: 1663597260,
        notified_at: 1663597260,
        assigned_to: { type: 'contact', id: '1a2b3c' },
        author: { type: 'admin', id: '274', name: 'Operator', email: 'operator+abcd1234@intercom.io' },
        attachments: [],
        external_id: 'abcd1234',
        redacted: false,
        email_message_metadata: null,
        state: 'open',
        tags: [{ type: 'tag', id: '123456', name: 'Test tag' }],
        event_details: null,
        app_package_code: null,
      },
    ],
    total_count: 1,
  },
};

const company = (id: string, companyId: string, name: string): Rec => ({
  type: 'company',
  company_id: companyId,
  id,
  app_id: 'this_is_an_id153_that_should_be_at_least_',
  name,
  remote_created_at: 1734537338,
  created_at: 1734537338,
  updated_at: 1734537338,
  monthly_spend: 0,
  session_count: 0,
  user_count: 4,
  tags: { type: 'tag.list', tags: [] },
  segments: { type: 'segment.list', segments: [] },
  plan: {},
  custom_attributes: {},
});
const co1 = company('6762f07a1bb69f9f2193baea', 'remote_companies_scroll_2', 'IntercomQATest1');
const co2 = company('6762f07f1bb69f9f2193baf5', '1', 'company1');
const co3 = company('6762f0841bb69f9f2193baff', '2', 'company2');

const tag = { type: 'tag', id: '102', name: 'Manual tag 1' };
const team = { type: 'team', id: '991267902', name: 'team 1', admin_ids: [], assignment_limit: 10, distribution_method: 'round_robin' };
const admin = {
  type: 'admin',
  id: '991267468',
  name: 'Ciaran9 Lee',
  email: 'admin9@email.com',
  away_mode_enabled: false,
  away_mode_reassign: false,
  has_inbox_seat: true,
  away_status_reason_id: null,
  team_ids: [],
};
const segment = {
  type: 'segment',
  id: '6762f0b21bb69f9f2193bb65',
  name: 'John segment',
  created_at: 1734537394,
  updated_at: 1734537394,
  person_type: 'user',
};
const internalArticle = { id: '39', title: 'Thanks for everything', body: 'Body of the Article', owner_id: 991266252, author_id: 991266252, locale: 'en' };
const note = {
  type: 'note',
  id: '31',
  created_at: 1734537390,
  contact: { type: 'contact', id: '6762f0ad1bb69f9f2193bb62' },
  author: {
    type: 'admin',
    id: '991267583',
    name: 'Ciaran124 Lee',
    email: 'admin124@email.com',
    away_mode_enabled: false,
    away_mode_reassign: false,
  },
  body: '<p>Hello</p>',
};

/** Intercom's cursor pages object; next is absent on the last page. */
const cursorPages = (page: number, perPage: number, totalPages: number, next?: string) => ({
  type: 'pages',
  ...(next ? { next: { page: page + 1, starting_after: next } } : {}),
  page,
  per_page: perPage,
  total_pages: totalPages,
});
const CURSOR = 'WzE3MzQ1Mzc0MjQwMDAsIjY3NjJmMGRkMWJiNjlmOWYyMTkzYmI4MyIsMl0=';

// ---------------------------------------------------------------------------------------------
// Cursor pagination: contacts.list, conversations.list, conversations.api_search
// ---------------------------------------------------------------------------------------------
describe('intercom cursor pagination (next_page = starting_after)', () => {
  it('contacts.list walks two pages with per_page and starting_after', async () => {
    const scope = api()
      .get('/contacts')
      .query({ per_page: '2' })
      .reply(200, { type: 'list', data: [c1, c2], total_count: 3, pages: cursorPages(1, 2, 2, CURSOR) })
      .get('/contacts')
      .query({ per_page: '2', starting_after: CURSOR })
      .reply(200, { type: 'list', data: [c3], total_count: 3, pages: cursorPages(2, 2, 2) });

    const c = intercom();
    const page1 = await c.execute('contacts', 'list', { per_page: 2 });
    expect(page1.data).toEqual([c1, c2]);
    expect(page1.pagination).toEqual({ next_page: CURSOR });
    expect(page1.next_params).toEqual({ starting_after: CURSOR });

    const page2 = await c.execute('contacts', 'list', { per_page: 2, ...page1.next_params });
    expect(page2.data).toEqual([c3]);
    expect(page2.pagination).toEqual({ next_page: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('contacts.list without params sends no query and reads a last page', async () => {
    const scope = api()
      .get('/contacts')
      .reply(200, { type: 'list', data: [], total_count: 0, pages: cursorPages(1, 10, 0) });
    const res = await intercom().execute('contacts', 'list', {});
    expect(res.data).toEqual([]);
    expect(res.pagination).toEqual({ next_page: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('contacts.list rejects per_page above 150 before any request', async () => {
    const err = await intercom()
      .execute('contacts', 'list', { per_page: 151 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'per_page', rule: 'maximum' })]);
    expect(unmatched).toEqual([]);
  });

  it('conversations.list walks two pages with starting_after', async () => {
    const scope = api()
      .get('/conversations')
      .query({ per_page: '2' })
      .reply(200, { type: 'conversation.list', pages: cursorPages(1, 2, 2, CURSOR), total_count: 3, conversations: [v1, v2] })
      .get('/conversations')
      .query({ per_page: '2', starting_after: CURSOR })
      .reply(200, { type: 'conversation.list', pages: cursorPages(2, 2, 2), total_count: 3, conversations: [v3] });

    const c = intercom();
    const page1 = await c.execute('conversations', 'list', { per_page: 2 });
    expect(page1.data).toEqual([v1, v2]);
    expect(page1.pagination).toEqual({ next_page: CURSOR });
    expect(page1.next_params).toEqual({ starting_after: CURSOR });

    const page2 = await c.execute('conversations', 'list', { per_page: 2, ...page1.next_params });
    expect(page2.data).toEqual([v3]);
    expect(page2.pagination).toEqual({ next_page: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('conversations.api_search posts the query and walks pages through the body pagination object', async () => {
    const query = {
      operator: 'AND',
      value: [
        { field: 'created_at', operator: '>', value: '1306054154' },
        { field: 'state', operator: '=', value: 'closed' },
      ],
    };
    const scope = apiJson()
      .post('/conversations/search', { query, pagination: { per_page: 2 } })
      .reply(200, { type: 'conversation.list', pages: cursorPages(1, 2, 2, CURSOR), total_count: 3, conversations: [v1, v2] })
      .post('/conversations/search', { query, pagination: { per_page: 2, starting_after: CURSOR } })
      .reply(200, { type: 'conversation.list', pages: cursorPages(2, 2, 2), total_count: 3, conversations: [v3] });

    const c = intercom();
    const page1 = await c.execute('conversations', 'api_search', { query, per_page: 2 });
    expect(page1.data).toEqual([v1, v2]);
    expect(page1.pagination).toEqual({ next_page: CURSOR });
    expect(page1.next_params).toEqual({ starting_after: CURSOR });

    const page2 = await c.execute('conversations', 'api_search', { query, per_page: 2, ...page1.next_params });
    expect(page2.data).toEqual([v3]);
    expect(page2.pagination).toEqual({ next_page: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('conversations.api_search is retried on 503 (it only reads) and needs a query', async () => {
    const query = { field: 'source.body', operator: '=', value: 'support' };
    const scope = apiJson()
      .post('/conversations/search', { query })
      .reply(503, { type: 'error.list', errors: [{ code: 'service_unavailable', message: 'Try again' }] })
      .post('/conversations/search', { query })
      .reply(200, { type: 'conversation.list', pages: cursorPages(1, 20, 1), total_count: 1, conversations: [v2] });
    const c = createConnector('intercom', { credentials: { access_token: TOKEN }, http: { retries: 1 } });
    const res = await c.execute('conversations', 'api_search', { query });
    expect(res.data).toEqual([v2]);
    expect(res.pagination).toEqual({ next_page: null });
    expect(scope.isDone()).toBe(true);

    const err = await intercom()
      .execute('conversations', 'api_search', { per_page: 5 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'query', rule: 'required' })]);
    expect(unmatched).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Page-number pagination: companies.list, companies.api_search
// ---------------------------------------------------------------------------------------------
describe('intercom companies paging (next_page = page number)', () => {
  const offsetPages = (page: number, perPage: number, totalPages: number) => ({
    type: 'pages',
    next: page < totalPages ? `${API}/companies/list?page=${page + 1}&per_page=${perPage}` : null,
    page,
    per_page: perPage,
    total_pages: totalPages,
  });

  it('companies.list posts to /companies/list and walks two pages with page', async () => {
    const scope = api()
      .post('/companies/list')
      .query({ per_page: '2' })
      .reply(200, { type: 'list', data: [co1, co2], pages: offsetPages(1, 2, 2), total_count: 3 })
      .post('/companies/list')
      .query({ per_page: '2', page: '2' })
      .reply(200, { type: 'list', data: [co3], pages: offsetPages(2, 2, 2), total_count: 3 });

    const c = intercom();
    const page1 = await c.execute('companies', 'list', { per_page: 2 });
    expect(page1.data).toEqual([co1, co2]);
    expect(page1.pagination).toEqual({ next_page: 2 });
    expect(page1.next_params).toEqual({ page: 2 });

    const page2 = await c.execute('companies', 'list', { per_page: 2, ...page1.next_params });
    expect(page2.data).toEqual([co3]);
    expect(page2.pagination).toEqual({ next_page: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('companies.api_search filters GET /companies by tag_id and pages', async () => {
    const scope = api()
      .get('/companies')
      .query({ tag_id: '678910', per_page: '1' })
      .reply(200, { type: 'list', data: [co1], pages: offsetPages(1, 1, 2), total_count: 2 })
      .get('/companies')
      .query({ tag_id: '678910', per_page: '1', page: '2' })
      .reply(200, { type: 'list', data: [co2], pages: offsetPages(2, 1, 2), total_count: 2 });
    const c = intercom();
    const page1 = await c.execute('companies', 'api_search', { tag_id: '678910', per_page: 1 });
    expect(page1.data).toEqual([co1]);
    expect(page1.pagination).toEqual({ next_page: 2 });
    expect(page1.next_params).toEqual({ page: 2 });
    const page2 = await c.execute('companies', 'api_search', { tag_id: '678910', per_page: 1, ...page1.next_params });
    expect(page2.data).toEqual([co2]);
    expect(page2.pagination).toEqual({ next_page: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('companies.api_search by name, company_id and segment_id; refuses a call without a filter', async () => {
    const scope = api()
      .get('/companies')
      .query({ name: 'my company', company_id: '12345', segment_id: '98765', page: '1', per_page: '15' })
      .reply(200, { type: 'list', data: [co1], pages: offsetPages(1, 15, 1), total_count: 1 });
    const res = await intercom().execute('companies', 'api_search', {
      name: 'my company',
      company_id: '12345',
      segment_id: '98765',
      page: 1,
      per_page: 15,
    });
    expect(res.data).toEqual([co1]);
    expect(res.pagination).toEqual({ next_page: null });
    expect(scope.isDone()).toBe(true);

    const err = await intercom()
      .execute('companies', 'api_search', { per_page: 15 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(unmatched).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// contacts create / get / update / delete
// ---------------------------------------------------------------------------------------------
describe('intercom contacts CRUD', () => {
  const fields = {
    external_id: '70',
    email: 'joebloggs@intercom.io',
    phone: '+353871234567',
    name: 'Joe Bloggs',
    avatar: 'https://www.example.com/avatar_image.jpg',
    signed_up_at: 1571672154,
    last_seen_at: 1571672154,
    owner_id: 991267581,
    unsubscribed_from_emails: false,
    custom_attributes: { plan: 'pro' },
  };

  it('create posts role and every contract field', async () => {
    const created = { ...c2, ...fields, role: 'user' };
    const scope = apiJson()
      .post('/contacts', { role: 'user', ...fields })
      .reply(200, created);
    const res = await intercom().execute('contacts', 'create', { role: 'user', ...fields });
    expect(res.data).toEqual(created);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('create requires role (user or lead)', async () => {
    const c = intercom();
    for (const params of [{ email: 'joe@bloggs.com' }, { role: 'visitor', email: 'joe@bloggs.com' }]) {
      const err = await c.execute('contacts', 'create', params).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as InstanceType<typeof ValidationError>).issues[0]).toMatchObject({ field: 'role' });
    }
    expect(unmatched).toEqual([]);
  });

  it('get reads one contact by id', async () => {
    const scope = api().get(`/contacts/${c1.id}`).reply(200, c1);
    const res = await intercom().execute('contacts', 'get', { id: c1.id });
    expect(res.data).toEqual(c1);
    expect(scope.isDone()).toBe(true);
  });

  it('update puts only the fields given (null clears)', async () => {
    const updated = { ...c1, email: 'joebloggs@intercom.io', name: 'joe bloggs', phone: null, role: 'lead' };
    const scope = apiJson().put(`/contacts/${c1.id}`, { role: 'lead', email: 'joebloggs@intercom.io', name: 'joe bloggs', phone: null }).reply(200, updated);
    const res = await intercom().execute('contacts', 'update', {
      id: c1.id,
      role: 'lead',
      email: 'joebloggs@intercom.io',
      name: 'joe bloggs',
      phone: null,
    });
    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('update with no field is refused before any request', async () => {
    const err = await intercom()
      .execute('contacts', 'update', { id: c1.id })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(unmatched).toEqual([]);
  });

  it('delete returns type, id, external_id and deleted', async () => {
    const deleted = { type: 'contact', id: c1.id, external_id: '70', deleted: true };
    const scope = api().delete(`/contacts/${c1.id}`).reply(200, deleted);
    const res = await intercom().execute('contacts', 'delete', { id: c1.id });
    expect(res.data).toEqual(deleted);
    expect(scope.isDone()).toBe(true);
  });

  it('maps 404 to NotFoundError and 401 to AuthenticationError', async () => {
    const scope = api()
      .get('/contacts/missing')
      .reply(404, { type: 'error.list', request_id: 'c9b793ad-ff39-436c-80c9-db6f24d0d444', errors: [{ code: 'not_found', message: 'User Not Found' }] })
      .get('/contacts/forbidden')
      .reply(401, {
        type: 'error.list',
        request_id: '7323b97b-9ba4-4c54-946c-38cecea65b3c',
        errors: [{ code: 'unauthorized', message: 'Access Token Invalid' }],
      });
    const c = intercom();
    const e404 = await c.execute('contacts', 'get', { id: 'missing' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(e404).toBeInstanceOf(NotFoundError);
    const e401 = await c.execute('contacts', 'get', { id: 'forbidden' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(e401).toBeInstanceOf(AuthenticationError);
    expect(String((e401 as Error).message)).not.toContain(TOKEN);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// conversations create / get / update / delete
// ---------------------------------------------------------------------------------------------
describe('intercom conversations CRUD', () => {
  it('create posts from/body/created_at and returns the message', async () => {
    const message = {
      type: 'user_message',
      id: '403918330',
      created_at: 1734537501,
      body: 'Hello there',
      message_type: 'inapp',
      conversation_id: '499',
    };
    const body = { from: { type: 'user', id: '6762f11b1bb69f9f2193bba3' }, body: 'Hello there', created_at: 1734537501 };
    const scope = apiJson().post('/conversations', body).reply(200, message);
    const res = await intercom().execute('conversations', 'create', body);
    expect(res.data).toEqual(message);
    expect(scope.isDone()).toBe(true);
  });

  it('create refuses a from without a contact type', async () => {
    const err = await intercom()
      .execute('conversations', 'create', { from: { type: 'admin', id: '1' }, body: 'Hi' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect(unmatched).toEqual([]);
  });

  it('get reads a conversation with its parts and query params', async () => {
    const scope = api().get('/conversations/503').query({ display_as: 'plaintext', include_translations: 'true' }).reply(200, fullConversation);
    const res = await intercom().execute('conversations', 'get', { id: '503', display_as: 'plaintext', include_translations: true });
    expect(res.data).toEqual(fullConversation);
    expect(scope.isDone()).toBe(true);
  });

  it('update puts read, title, custom_attributes and company_id (null removes the company)', async () => {
    const updated = { ...fullConversation, read: true, title: 'new conversation title', custom_attributes: { issue_type: 'Billing', priority: 'High' } };
    const body = { read: true, title: 'new conversation title', custom_attributes: { issue_type: 'Billing', priority: 'High' }, company_id: null };
    const scope = apiJson().put('/conversations/503', body).query({ display_as: 'plaintext' }).reply(200, updated);
    const res = await intercom().execute('conversations', 'update', { id: '503', display_as: 'plaintext', ...body });
    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('delete returns id, object and deleted', async () => {
    const deleted = { id: '512', object: 'conversation', deleted: true };
    const scope = api().delete('/conversations/512').reply(200, deleted);
    const res = await intercom().execute('conversations', 'delete', { id: '512' });
    expect(res.data).toEqual(deleted);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// conversation_parts.list: one conversation's parts, read from GET /conversations/{id}
// ---------------------------------------------------------------------------------------------
describe('intercom conversation_parts.list', () => {
  // The parts of the 2.14 retrieveConversation example (ids as the schema types them, strings).
  const part = (id: string, partType: string, createdAt: number, extra: Rec = {}): Rec => ({
    type: 'conversation_part',
    id,
    part_type: partType,
    body: null,
    created_at: createdAt,
    updated_at: createdAt,
    notified_at: createdAt,
    assigned_to: null,
    author: { type: 'admin', id: '274', name: 'Jamie Oliver', email: 'jamie+abcd1234@intercom.io' },
    attachments: [],
    external_id: null,
    redacted: false,
    email_message_metadata: null,
    state: 'open',
    tags: [],
    event_details: null,
    app_package_code: null,
    ...extra,
  });
  const p1 = (fullConversation.conversation_parts as Rec).conversation_parts[0] as Rec;
  const p2 = part('2', 'custom_action_started', 1740141842, { event_details: { action: { name: 'Jira Create Issue' } }, app_package_code: 'test-integration' });
  const p3 = part('3', 'conversation_attribute_updated_by_admin', 1740141851, {
    author: { type: 'bot', id: '278', name: 'Fin', email: 'operator+abcd1234@intercom.io' },
    event_details: { attribute: { name: 'jira_issue_key' }, value: { name: 'PROJ-007' } },
  });
  const p4 = part('4', 'custom_action_finished', 1740141857, { state: 'closed', event_details: { action: { name: 'Jira Create Issue', result: 'success' } } });
  const withParts = (parts: Rec[]): Rec => ({
    ...conversation('503', '<p>this is the message body</p>'),
    conversation_parts: { type: 'conversation_part.list', conversation_parts: parts, total_count: parts.length },
  });

  /** A part as the list returns it: with its conversation's id, times and part count from the answer around it. */
  const listed = (p: Rec, total: number): Rec => ({
    ...p,
    conversation_id: '503',
    conversation_created_at: 1734537460,
    conversation_updated_at: 1734537460,
    conversation_total_parts: total,
  });

  it('reads GET /conversations/{conversation_id} (no query) and returns conversation_parts.conversation_parts with their conversation, unpaginated', async () => {
    const scope = api()
      .get('/conversations/503')
      .reply(200, withParts([p1, p2, p3, p4]));
    const res = await intercom().execute('conversation_parts', 'list', { conversation_id: '503' });
    expect(res.data).toEqual([p1, p2, p3, p4].map((p) => listed(p, 4)));
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
    expect(unmatched).toEqual([]);
  });

  it('sends display_as=plaintext and include_translations in the query', async () => {
    const plain = { ...p1, body: 'Okay!' };
    const scope = api()
      .get('/conversations/503')
      .query({ display_as: 'plaintext', include_translations: 'true' })
      .reply(200, withParts([plain]));
    const res = await intercom().execute('conversation_parts', 'list', { conversation_id: '503', display_as: 'plaintext', include_translations: true });
    expect(res.data).toEqual([listed(plain, 1)]);
    expect(scope.isDone()).toBe(true);
  });

  it('keeps a field a part has of its own over the one taken from the answer around it', async () => {
    const own = { ...p2, conversation_id: '777' };
    const scope = api()
      .get('/conversations/503')
      .reply(200, withParts([own]));
    const res = await intercom().execute('conversation_parts', 'list', { conversation_id: '503' });
    expect(res.data).toEqual([{ ...listed(own, 1), conversation_id: '777' }]);
    expect(scope.isDone()).toBe(true);
  });

  it('returns [] for a conversation without parts, and [] when the answer omits conversation_parts', async () => {
    const scope = api()
      .get('/conversations/504')
      .reply(200, { ...withParts([]), id: '504' })
      .get('/conversations/505')
      .reply(200, conversation('505', '<p>Hi</p>'));
    const c = intercom();
    expect((await c.execute('conversation_parts', 'list', { conversation_id: '504' })).data).toEqual([]);
    expect((await c.execute('conversation_parts', 'list', { conversation_id: '505' })).data).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 404 for an unknown conversation to NotFoundError', async () => {
    const scope = api()
      .get('/conversations/999')
      .reply(404, { type: 'error.list', request_id: '8c288c4f-b699-4209-9de4-064398f02785', errors: [{ code: 'not_found', message: 'Resource Not Found' }] });
    await expect(intercom().execute('conversation_parts', 'list', { conversation_id: '999' })).rejects.toBeInstanceOf(NotFoundError);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a missing or non-numeric conversation_id and a display_as other than plaintext before any request', async () => {
    const c = intercom();
    const cases: Array<[Rec, string, string]> = [
      [{}, 'conversation_id', 'required'],
      [{ conversation_id: 'abc' }, 'conversation_id', 'pattern'],
      [{ conversation_id: '503', display_as: 'html' }, 'display_as', 'enum'],
    ];
    for (const [params, field, rule] of cases) {
      const err = await c.execute('conversation_parts', 'list', params).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field, rule })]);
    }
    expect(unmatched).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// companies create / get / update / delete
// ---------------------------------------------------------------------------------------------
describe('intercom companies CRUD', () => {
  it('create posts the create-or-update body to /companies', async () => {
    const body = {
      company_id: 'company_remote_id',
      name: 'my company',
      plan: 'enterprise',
      size: 250,
      website: 'http://www.mycompany.com/',
      industry: 'Manufacturing',
      custom_attributes: { industry: 'manufacturing' },
      remote_created_at: 1374138000,
      monthly_spend: 1000,
    };
    const created = { ...company('6762f0761bb69f9f2193bae2', 'company_remote_id', 'my company'), remote_created_at: 1374138000 };
    const scope = apiJson().post('/companies', body).reply(200, created);
    const res = await intercom().execute('companies', 'create', body);
    expect(res.data).toEqual(created);
    expect(scope.isDone()).toBe(true);
  });

  it('get reads one company by Intercom id', async () => {
    const scope = api().get(`/companies/${co2.id}`).reply(200, co2);
    const res = await intercom().execute('companies', 'get', { id: co2.id });
    expect(res.data).toEqual(co2);
    expect(scope.isDone()).toBe(true);
  });

  it('update puts the changed fields to /companies/{id}', async () => {
    const updated = { ...co3, name: 'my company', website: 'http://www.mycompany.com/' };
    const scope = apiJson().put(`/companies/${co3.id}`, { name: 'my company', website: 'http://www.mycompany.com/' }).reply(200, updated);
    const res = await intercom().execute('companies', 'update', { id: co3.id, name: 'my company', website: 'http://www.mycompany.com/' });
    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('update refuses company_id (it cannot change) and an empty update', async () => {
    const c = intercom();
    for (const params of [{ id: co3.id, company_id: 'new' }, { id: co3.id }]) {
      const err = await c.execute('companies', 'update', params).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
    }
    expect(unmatched).toEqual([]);
  });

  it('delete returns id, object and deleted', async () => {
    const deleted = { id: '6762f0881bb69f9f2193bb09', object: 'company', deleted: true };
    const scope = api().delete('/companies/6762f0881bb69f9f2193bb09').reply(200, deleted);
    const res = await intercom().execute('companies', 'delete', { id: '6762f0881bb69f9f2193bb09' });
    expect(res.data).toEqual(deleted);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// tags, notes
// ---------------------------------------------------------------------------------------------
describe('intercom tags and notes', () => {
  it('tags.list reads body.data without pagination', async () => {
    const tag2 = { type: 'tag', id: '103', name: 'VIP' };
    const scope = api()
      .get('/tags')
      .reply(200, { type: 'list', data: [tag, tag2] });
    const res = await intercom().execute('tags', 'list', {});
    expect(res.data).toEqual([tag, tag2]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ['a new tag', { name: 'test' }],
    ['a rename', { name: 'Independent', id: '105' }],
    ['tagging companies', { name: 'test', companies: [{ company_id: '123' }, { id: '6762f0761bb69f9f2193bae2', untag: true }] }],
    ['tagging contacts', { name: 'test', users: [{ id: '6762f0d01bb69f9f2193bb7d' }] }],
  ])('tags.create posts %s', async (_label, body) => {
    const created = { type: 'tag', id: '105', name: body.name };
    const scope = apiJson().post('/tags', body).reply(200, created);
    const res = await intercom().execute('tags', 'create', body);
    expect(res.data).toEqual(created);
    expect(scope.isDone()).toBe(true);
  });

  it('tags.get reads one tag; tags.delete returns {} for the empty answer', async () => {
    const scope = api().get('/tags/113').reply(200, { type: 'tag', id: '113', name: 'Manual tag' }).delete('/tags/113').reply(200, '');
    const c = intercom();
    const got = await c.execute('tags', 'get', { id: '113' });
    expect(got.data).toEqual({ type: 'tag', id: '113', name: 'Manual tag' });
    const del = await c.execute('tags', 'delete', { id: '113' });
    expect(del).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it('notes.create posts body and admin_id to the contact', async () => {
    const scope = apiJson().post('/contacts/6762f0ad1bb69f9f2193bb62/notes', { body: 'Hello', admin_id: '991267583' }).reply(200, note);
    const res = await intercom().execute('notes', 'create', {
      contact_id: '6762f0ad1bb69f9f2193bb62',
      body: 'Hello',
      admin_id: '991267583',
    });
    expect(res.data).toEqual(note);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// teams, admins, segments, internal_articles: list and get
// ---------------------------------------------------------------------------------------------
describe('intercom workspace reads', () => {
  // [entity, list path, list body, records, get path, get id, record]
  const reads: Array<[string, string, Rec, Rec[], string, string, Rec]> = [
    ['teams', '/teams', { type: 'team.list', teams: [team] }, [team], '/teams/991267902', '991267902', team],
    ['admins', '/admins', { type: 'admin.list', admins: [admin] }, [admin], '/admins/991267468', '991267468', admin],
    ['segments', '/segments', { type: 'segment.list', segments: [segment] }, [segment], `/segments/${segment.id}`, segment.id, segment],
    [
      'internal_articles',
      '/internal_articles',
      { type: 'list', pages: { type: 'pages', page: 1, per_page: 25, total_pages: 1 }, total_count: 1, data: [internalArticle] },
      [internalArticle],
      '/internal_articles/39',
      '39',
      internalArticle,
    ],
  ];

  it.each(reads)('%s.list and get', async (entity, listPath, listBody, records, getPath, id, record) => {
    const scope = api().get(listPath).reply(200, listBody).get(getPath).reply(200, record);
    const c = intercom();
    const list = await c.execute(entity, 'list', {});
    expect(list.data).toEqual(records);
    expect(list.pagination).toBeUndefined();
    expect(list.next_params).toBeUndefined();
    const got = await c.execute(entity, 'get', { id });
    expect(got.data).toEqual(record);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a non-numeric admin or internal article id before any request', async () => {
    const c = intercom();
    for (const entity of ['admins', 'internal_articles']) {
      const err = await c.execute(entity, 'get', { id: 'abc' }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
    }
    expect(unmatched).toEqual([]);
  });
});

// ---------------------------------------------------------------------------------------------
// Auth option and regions
// ---------------------------------------------------------------------------------------------
describe('intercom auth and regions', () => {
  it('the Access Token option can be named explicitly', async () => {
    const scope = api()
      .get('/teams')
      .reply(200, { type: 'team.list', teams: [team] });
    const c = createConnector('intercom', { credentials: { option_title: 'Access Token', access_token: TOKEN } });
    const res = await c.execute('teams', 'list', {});
    expect(res.data).toEqual([team]);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ['api.eu', 'https://api.eu.intercom.io'],
    ['api.au', 'https://api.au.intercom.io'],
    ['api', 'https://api.intercom.io'],
  ])('region_host %s sends requests to %s', async (regionHost, base) => {
    const scope = api(base)
      .get('/admins')
      .reply(200, { type: 'admin.list', admins: [admin] });
    const res = await intercom({ region_host: regionHost }).execute('admins', 'list', {});
    expect(res.data).toEqual([admin]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a region_host outside the enum at creation', () => {
    expect(() => intercom({ region_host: 'evil.example/x#' })).toThrow(ValidationError);
  });
});

// ---------------------------------------------------------------------------------------------
// Write actions and params Airbyte's clients send (Intercom 2.14 description: createInternalArticle,
// updateInternalArticle, deleteInternalArticle, create_conversation_request, listSegments include_count)
// ---------------------------------------------------------------------------------------------
describe('intercom internal_articles create / update / delete', () => {
  const article = {
    type: 'internal_article',
    id: '42',
    title: 'Thanks for everything',
    body: 'Body of the Article',
    owner_id: 991266252,
    author_id: 991266252,
    created_at: 1672928359,
    updated_at: 1672928610,
    locale: 'en',
  };

  it('create posts title, body, author_id and owner_id to /internal_articles and returns the article', async () => {
    const body = { title: 'Thanks for everything', body: 'Body of the Article', author_id: 991266252, owner_id: 991266252 };
    const scope = apiJson().post('/internal_articles', body).reply(200, article);
    const res = await intercom().execute('internal_articles', 'create', body);
    expect(res.data).toEqual(article);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('create refuses a missing title, author_id or owner_id and a string author_id before any request', async () => {
    const scope = nock(API);
    const c = intercom();
    const cases: Array<[Rec, string]> = [
      [{ body: 'x', author_id: 1, owner_id: 1 }, 'title'],
      [{ title: 'T', owner_id: 1 }, 'author_id'],
      [{ title: 'T', author_id: 1 }, 'owner_id'],
      [{ title: 'T', author_id: 'me', owner_id: 1 }, 'author_id'],
    ];
    for (const [params, field] of cases) {
      const err = await c.execute('internal_articles', 'create', params).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field })]);
    }
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('update puts only the fields given to /internal_articles/{id} and returns the article', async () => {
    const updated = { ...article, title: 'Christmas is here!', body: '<p>New gifts in store for the jolly season</p>', owner_id: 991266253 };
    const body = { title: 'Christmas is here!', body: '<p>New gifts in store for the jolly season</p>', owner_id: 991266253 };
    const scope = apiJson().put('/internal_articles/42', body).reply(200, updated);
    const res = await intercom().execute('internal_articles', 'update', { id: '42', ...body });
    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('update refuses an empty update and a non-numeric id before any request', async () => {
    const scope = nock(API);
    const c = intercom();
    const empty = await c.execute('internal_articles', 'update', { id: '42' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(empty).toBeInstanceOf(ValidationError);
    expect((empty as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    const badId = await c.execute('internal_articles', 'update', { id: 'abc', title: 'T' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(badId).toBeInstanceOf(ValidationError);
    expect((badId as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'id' })]);
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('delete sends DELETE /internal_articles/{id} and returns id, object and deleted', async () => {
    const deleted = { id: '51', object: 'internal_article', deleted: true };
    const scope = api().delete('/internal_articles/51').reply(200, deleted);
    const res = await intercom().execute('internal_articles', 'delete', { id: '51' });
    expect(res.data).toEqual(deleted);
    expect(scope.isDone()).toBe(true);
  });
});

describe('intercom conversations.create subject and attachment_urls', () => {
  const message = {
    type: 'user_message',
    id: '403918330',
    created_at: 1734537501,
    body: 'Hello there',
    message_type: 'inapp',
    conversation_id: '499',
  };

  it('posts subject and attachment_urls exactly as given', async () => {
    const body = {
      from: { type: 'user', id: '6762f11b1bb69f9f2193bba3' },
      body: 'Hello there',
      subject: 'Thanks for everything',
      attachment_urls: ['https://example.com/screenshot-1.png', 'https://example.com/screenshot-2.png'],
    };
    const scope = apiJson().post('/conversations', body).reply(200, message);
    const res = await intercom().execute('conversations', 'create', body);
    expect(res.data).toEqual(message);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses more than 10 attachment_urls and a value that is not a URL before any request', async () => {
    const scope = nock(API);
    const c = intercom();
    const from = { type: 'user', id: '6762f11b1bb69f9f2193bba3' };
    const tooMany = Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.png`);
    for (const attachment_urls of [tooMany, ['not a url']]) {
      const err = await c.execute('conversations', 'create', { from, body: 'Hi', attachment_urls }).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as InstanceType<typeof ValidationError>).issues[0]).toMatchObject({ field: expect.stringMatching(/^attachment_urls/) });
    }
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('intercom segments.list include_count', () => {
  it('sends include_count=true and returns the segments with their count', async () => {
    const counted = [
      { ...segment, count: 3 },
      { ...segment, id: '6762f25c1bb69f9f2193bc23', name: 'Jane segment', count: 3 },
    ];
    const scope = api().get('/segments').query({ include_count: 'true' }).reply(200, { type: 'segment.list', segments: counted, pages: {} });
    const res = await intercom().execute('segments', 'list', { include_count: true });
    expect(res.data).toEqual(counted);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a non-boolean include_count before any request', async () => {
    const scope = nock(API);
    const err = await intercom()
      .execute('segments', 'list', { include_count: 'yes' })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'include_count' })]);
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });
});
