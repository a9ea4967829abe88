import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConnector, NotFoundError, ValidationError } from '../../runtime/index.js';

// Harvest API v2 connector. Response bodies are the examples of the vendor spec
// (shared/vendor-specs/harvest/openapi.yaml); contacts has no example there, so its record follows
// the contact object documented at help.getharvest.com/api-v2/clients-api/clients/contacts/.

const API = 'https://api.harvestapp.com';
const ID_HOST = 'https://id.getharvest.com';
const ACCOUNT_ID = '123456';
const USER_AGENT = 'Switchyard (https://github.com/switchyard-dev/switchyard)';

type Rec = Record<string, any>;

/** One record per entity, as Harvest returns it. */
const R = {
  users: {
    id: 3230547,
    first_name: 'Jim',
    last_name: 'Allen',
    email: 'jimallen@example.com',
    telephone: '',
    timezone: 'Mountain Time (US & Canada)',
    has_access_to_all_future_projects: false,
    is_contractor: false,
    is_active: true,
    created_at: '2020-05-01T22:34:41Z',
    updated_at: '2020-05-01T22:34:52Z',
    weekly_capacity: 126000,
    default_hourly_rate: 100,
    cost_rate: 50,
    roles: ['Developer'],
    access_roles: ['member'],
    avatar_url: 'https://cache.harvestapp.com/assets/profile_images/abraj_albait_towers.png?1498516481',
  },
  contacts: {
    id: 4706479,
    title: 'Owner',
    first_name: 'Jane',
    last_name: 'Doe',
    email: 'janedoe@example.com',
    phone_office: '(203) 697-8885',
    phone_mobile: '(203) 697-8886',
    fax: '(203) 697-8887',
    created_at: '2017-06-26T21:20:07Z',
    updated_at: '2017-06-26T21:27:07Z',
    client: { id: 5735776, name: '123 Industries' },
  },
  clients: {
    id: 5735776,
    name: '123 Industries',
    is_active: true,
    address: '123 Main St.\r\nAnytown, LA 71223',
    statement_key: '0a39d3e33c8058cf7c3f8097d854c64e',
    created_at: '2017-06-26T21:02:12Z',
    updated_at: '2017-06-26T21:34:11Z',
    currency: 'EUR',
  },
  projects: {
    id: 14308069,
    name: 'Online Store - Phase 1',
    code: 'OS1',
    is_active: true,
    bill_by: 'Project',
    budget: 200,
    budget_by: 'project',
    budget_is_monthly: false,
    notify_when_over_budget: true,
    over_budget_notification_percentage: 80,
    over_budget_notification_date: null,
    show_budget_to_all: false,
    created_at: '2017-06-26T21:52:18Z',
    updated_at: '2017-06-26T21:54:06Z',
    starts_on: '2017-06-01',
    ends_on: null,
    is_billable: true,
    is_fixed_fee: false,
    notes: '',
    client: { id: 5735776, name: '123 Industries', currency: 'EUR' },
    cost_budget: null,
    cost_budget_include_expenses: false,
    hourly_rate: 100,
    fee: null,
  },
  tasks: {
    id: 8083800,
    name: 'Business Development',
    billable_by_default: false,
    default_hourly_rate: 0,
    is_default: false,
    is_active: true,
    created_at: '2017-06-26T22:08:25Z',
    updated_at: '2017-06-26T22:08:25Z',
  },
  time_entries: {
    id: 636709355,
    spent_date: '2017-03-02',
    user: { id: 1782959, name: 'Kim Allen' },
    client: { id: 5735774, name: 'ABC Corp' },
    project: { id: 14307913, name: 'Marketing Website' },
    task: { id: 8083365, name: 'Graphic Design' },
    user_assignment: {
      id: 125068553,
      is_project_manager: true,
      is_active: true,
      budget: null,
      created_at: '2017-06-26T22:32:52Z',
      updated_at: '2017-06-26T22:32:52Z',
      hourly_rate: 100,
    },
    task_assignment: {
      id: 155502709,
      billable: true,
      is_active: true,
      created_at: '2017-06-26T21:36:23Z',
      updated_at: '2017-06-26T21:36:23Z',
      hourly_rate: 100,
      budget: null,
    },
    hours: 2.11,
    hours_without_timer: 2.11,
    rounded_hours: 2.25,
    notes: 'Adding CSS styling',
    created_at: '2017-06-27T15:50:15Z',
    updated_at: '2017-06-27T16:47:14Z',
    is_locked: true,
    locked_reason: 'Item Approved and Locked for this Time Period',
    is_closed: true,
    is_billed: false,
    timer_started_at: null,
    started_time: '3:00pm',
    ended_time: '5:00pm',
    is_running: false,
    invoice: null,
    external_reference: null,
    billable: true,
    budgeted: true,
    billable_rate: 100,
    cost_rate: 50,
  },
  invoices: {
    id: 13150403,
    client_key: '21312da13d457947a217da6775477afee8c2eba8',
    number: '1001',
    purchase_order: '',
    amount: 288.9,
    due_amount: 288.9,
    tax: 5,
    tax_amount: 13.5,
    tax2: 2,
    tax2_amount: 5.4,
    discount: 10,
    discount_amount: 30,
    subject: 'Online Store - Phase 1',
    notes: 'Some notes about the invoice.',
    state: 'open',
    period_start: '2017-03-01',
    period_end: '2017-03-01',
    issue_date: '2017-04-01',
    due_date: '2017-04-01',
    payment_term: 'upon receipt',
    sent_at: '2017-08-23T22:25:59Z',
    paid_at: null,
    paid_date: null,
    closed_at: null,
    recurring_invoice_id: null,
    created_at: '2017-06-27T16:27:16Z',
    updated_at: '2017-08-23T22:25:59Z',
    currency: 'EUR',
    payment_options: ['credit_card'],
    client: { id: 5735776, name: '123 Industries' },
    estimate: null,
    retainer: null,
    creator: { id: 1782884, name: 'Bob Powell' },
    line_items: [
      {
        id: 53341602,
        kind: 'Service',
        description: '03/01/2017 - Project Management: [9:00am - 11:00am] Planning meetings',
        quantity: 2,
        unit_price: 100,
        amount: 200,
        taxed: true,
        taxed2: true,
        project: { id: 14308069, name: 'Online Store - Phase 1', code: 'OS1' },
      },
      {
        id: 53341603,
        kind: 'Service',
        description: '03/01/2017 - Programming: [1:00pm - 2:00pm] Importing products',
        quantity: 1,
        unit_price: 100,
        amount: 100,
        taxed: true,
        taxed2: true,
        project: { id: 14308069, name: 'Online Store - Phase 1', code: 'OS1' },
      },
    ],
  },
  invoice_item_categories: {
    id: 1466293,
    name: 'Product',
    use_as_service: false,
    use_as_expense: true,
    created_at: '2017-06-26T20:41:00Z',
    updated_at: '2017-06-26T20:41:00Z',
  },
  estimates: {
    id: 1439818,
    client_key: '13dc088aa7d51ec687f186b146730c3c75dc7423',
    number: '1001',
    purchase_order: '5678',
    amount: 9630,
    tax: 5,
    tax_amount: 450,
    tax2: 2,
    tax2_amount: 180,
    discount: 10,
    discount_amount: 1000,
    subject: 'Online Store - Phase 2',
    notes: 'Some notes about the estimate',
    state: 'sent',
    issue_date: '2017-06-01',
    sent_at: '2017-06-27T16:11:33Z',
    created_at: '2017-06-27T16:11:24Z',
    updated_at: '2017-06-27T16:13:56Z',
    accepted_at: null,
    declined_at: null,
    currency: 'USD',
    client: { id: 5735776, name: '123 Industries' },
    creator: { id: 1782884, name: 'Bob Powell' },
    line_items: [
      { id: 53334195, kind: 'Service', description: 'Phase 2 of the Online Store', quantity: 100, unit_price: 100, amount: 10000, taxed: true, taxed2: true },
    ],
  },
  estimate_item_categories: { id: 1378704, name: 'Product', created_at: '2017-06-26T20:41:00Z', updated_at: '2017-06-26T20:41:00Z' },
  expenses: {
    id: 15296442,
    notes: 'Lunch with client',
    total_cost: 33.35,
    units: 1,
    is_closed: false,
    is_locked: true,
    is_billed: true,
    locked_reason: 'Expense is invoiced.',
    spent_date: '2017-03-03',
    created_at: '2017-06-27T15:09:54Z',
    updated_at: '2017-06-27T16:47:14Z',
    billable: true,
    receipt: {
      url: 'https://{ACCOUNT_SUBDOMAIN}.harvestapp.com/expenses/15296442/receipt',
      file_name: 'lunch_receipt.gif',
      file_size: 39410,
      content_type: 'image/gif',
    },
    user: { id: 1782959, name: 'Kim Allen' },
    user_assignment: {
      id: 125068553,
      is_project_manager: true,
      is_active: true,
      budget: null,
      created_at: '2017-06-26T22:32:52Z',
      updated_at: '2017-06-26T22:32:52Z',
      hourly_rate: 100,
    },
    project: { id: 14307913, name: 'Marketing Website', code: 'MW' },
    expense_category: { id: 4195926, name: 'Meals', unit_price: null, unit_name: null },
    client: { id: 5735774, name: 'ABC Corp', currency: 'USD' },
    invoice: { id: 13150403, number: '1001' },
  },
  expense_categories: {
    id: 4197501,
    name: 'Lodging',
    unit_name: null,
    unit_price: null,
    is_active: true,
    created_at: '2017-06-27T15:01:32Z',
    updated_at: '2017-06-27T15:01:32Z',
  },
  roles: { id: 618100, name: 'Designer', created_at: '2020-04-17T10:09:41Z', updated_at: '2020-04-17T10:09:41Z', user_ids: [] },
  user_assignments: {
    id: 130403297,
    is_project_manager: true,
    is_active: true,
    use_default_rates: false,
    budget: null,
    created_at: '2017-08-22T17:36:54Z',
    updated_at: '2017-08-22T17:36:54Z',
    hourly_rate: 100,
    project: { id: 14808188, name: 'Task Force', code: 'TF' },
    user: { id: 1782959, name: 'Kim Allen' },
  },
  task_assignments: {
    id: 160726647,
    billable: false,
    is_active: true,
    created_at: '2017-08-22T17:36:54Z',
    updated_at: '2017-08-22T17:36:54Z',
    hourly_rate: 100,
    budget: null,
    project: { id: 14808188, name: 'Task Force', code: 'TF' },
    task: { id: 8083369, name: 'Research' },
  },
  time_projects: {
    project_id: 14307913,
    project_name: '[MW] Marketing Website',
    client_id: 5735774,
    client_name: 'ABC Corp',
    total_hours: 2,
    billable_hours: 2,
    currency: 'USD',
    billable_amount: 200,
  },
  time_tasks: { task_id: 8083365, task_name: 'Graphic Design', total_hours: 2, billable_hours: 2, currency: 'USD', billable_amount: 200 },
  company: {
    base_uri: 'https://{ACCOUNT_SUBDOMAIN}.harvestapp.com',
    full_domain: '{ACCOUNT_SUBDOMAIN}.harvestapp.com',
    name: 'API Examples',
    is_active: true,
    week_start_day: 'Monday',
    wants_timestamp_timers: true,
    time_format: 'hours_minutes',
    date_format: '%Y-%m-%d',
    plan_type: 'sponsored',
    expense_feature: true,
    invoice_feature: true,
    estimate_feature: true,
    approval_feature: true,
    clock: '12h',
    currency_code_display: 'iso_code_none',
    currency_symbol_display: 'symbol_before',
    decimal_symbol: '.',
    thousands_separator: ',',
    color_scheme: 'orange',
    weekly_capacity: 126000,
  },
} satisfies Record<string, Rec>;
type Entity = keyof typeof R;

/** Personal Access Token option. */
const harvest = () =>
  createConnector('harvest', {
    credentials: { option_title: 'Personal Access Token', api_token: 'tok', account_id: ACCOUNT_ID },
  });

/** A scope that only matches requests carrying Harvest's required headers. */
const api = (token = 'tok') =>
  nock(API).matchHeader('authorization', `Bearer ${token}`).matchHeader('harvest-account-id', ACCOUNT_ID).matchHeader('user-agent', USER_AGENT);

/** Harvest's list envelope: records under `key`, page counters and links. */
const page = (key: string, records: Rec[], o: { page?: number; per_page?: number; next?: string | null; self?: string } = {}) => {
  const p = o.page ?? 1;
  const per = o.per_page ?? 2000;
  const next = o.next ?? null;
  return {
    [key]: records,
    per_page: per,
    total_pages: next ? p + 1 : p,
    total_entries: next ? per * p + 1 : records.length + per * (p - 1),
    next_page: next ? p + 1 : null,
    previous_page: p > 1 ? p - 1 : null,
    page: p,
    links: {
      first: `${API}/v2${o.self ?? ''}?page=1&per_page=${per}`,
      next,
      previous: p > 1 ? `${API}/v2${o.self ?? ''}?page=${p - 1}&per_page=${per}` : null,
      last: `${API}/v2${o.self ?? ''}?page=${next ? p + 1 : p}&per_page=${per}`,
    },
  };
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// [entity, path under /v2, records key, extra list params (required by the action)]
const LISTS: Array<[Entity, string, string, Record<string, string>]> = [
  ['users', '/users', 'users', {}],
  ['clients', '/clients', 'clients', {}],
  ['contacts', '/contacts', 'contacts', {}],
  ['projects', '/projects', 'projects', {}],
  ['tasks', '/tasks', 'tasks', {}],
  ['time_entries', '/time_entries', 'time_entries', {}],
  ['invoices', '/invoices', 'invoices', {}],
  ['invoice_item_categories', '/invoice_item_categories', 'invoice_item_categories', {}],
  ['estimates', '/estimates', 'estimates', {}],
  ['estimate_item_categories', '/estimate_item_categories', 'estimate_item_categories', {}],
  ['expenses', '/expenses', 'expenses', {}],
  ['expense_categories', '/expense_categories', 'expense_categories', {}],
  ['roles', '/roles', 'roles', {}],
  ['user_assignments', '/user_assignments', 'user_assignments', {}],
  ['task_assignments', '/task_assignments', 'task_assignments', {}],
  ['time_projects', '/reports/time/projects', 'results', { from: '20170101', to: '20171231' }],
  ['time_tasks', '/reports/time/tasks', 'results', { from: '20170101', to: '20171231' }],
];

// [entity, path under /v2] for get by integer id
const GETS: Array<[Entity, string]> = [
  ['users', '/users'],
  ['clients', '/clients'],
  ['contacts', '/contacts'],
  ['projects', '/projects'],
  ['tasks', '/tasks'],
  ['time_entries', '/time_entries'],
  ['invoices', '/invoices'],
  ['invoice_item_categories', '/invoice_item_categories'],
  ['estimates', '/estimates'],
  ['estimate_item_categories', '/estimate_item_categories'],
  ['expenses', '/expenses'],
  ['expense_categories', '/expense_categories'],
  ['roles', '/roles'],
];

describe('harvest list', () => {
  it.each(LISTS)('%s list -> GET /v2%s', async (entity, path, key, extra) => {
    const scope = api()
      .get(`/v2${path}`)
      .query({ ...extra, per_page: '100' })
      .reply(200, page(key, [R[entity]], { per_page: 100, self: path }));

    const res = await harvest().execute(entity, 'list', { ...extra, per_page: 100 });

    expect(res.data).toEqual([R[entity]]);
    expect(res.pagination).toEqual({ next_link: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('harvest get', () => {
  it.each(GETS)('%s get -> GET /v2%s/{id}', async (entity, path) => {
    const record: Rec = R[entity];
    const scope = api().get(`/v2${path}/${record.id}`).reply(200, record);

    const res = await harvest().execute(entity, 'get', { id: record.id });

    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('company get -> GET /v2/company (no params)', async () => {
    const scope = api().get('/v2/company').reply(200, R.company);

    const res = await harvest().execute('company', 'get', {});

    expect(res.data).toEqual(R.company);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 404 to NotFoundError', async () => {
    const scope = api().get('/v2/projects/999').reply(404, { code: 404, message: 'Not Found' });

    const err = await harvest()
      .execute('projects', 'get', { id: 999 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).upstreamStatus).toBe(404);
    expect(scope.isDone()).toBe(true);
  });
});

describe('harvest pagination (next_url from body.links.next)', () => {
  it('walks two pages of users with the page param of the next link (ref marker dropped)', async () => {
    const second = { ...R.users, id: 1782884, first_name: 'Bob', last_name: 'Powell', email: 'bobpowell@example.com' };
    const scope = api()
      .get('/v2/users')
      .query({ per_page: '1' })
      .reply(200, page('users', [R.users], { per_page: 1, self: '/users', next: `${API}/v2/users?page=2&per_page=1&ref=next` }))
      .get('/v2/users')
      .query({ page: '2', per_page: '1' })
      .reply(200, page('users', [second], { page: 2, per_page: 1, self: '/users' }));
    const harvestConn = harvest();

    const p1 = await harvestConn.execute('users', 'list', { per_page: 1 });
    expect(p1.data).toEqual([R.users]);
    expect(p1.pagination).toEqual({ next_link: `${API}/v2/users?page=2&per_page=1&ref=next` });
    expect(p1.next_params).toEqual({ page: 2, per_page: 1 });

    const p2 = await harvestConn.execute('users', 'list', { per_page: 1, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next_link: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of clients with the cursor param of the next link', async () => {
    const cursor = 'eyJhZnRlciI6eyJpZCI6NTczNTc3Nn19';
    // The shape Harvest documents: cursor, per_page and a ref marker that is not a request param.
    const next = `${API}/v2/clients?cursor=${cursor}&per_page=1&ref=next_cursor`;
    const second = { ...R.clients, id: 5735774, name: 'ABC Corp', statement_key: 'e42aa2cb60e85925ffe5d13ee7ee8706', currency: 'USD' };
    const scope = api()
      .get('/v2/clients')
      .query({ per_page: '1' })
      .reply(200, page('clients', [R.clients], { per_page: 1, self: '/clients', next }))
      .get('/v2/clients')
      .query({ cursor, per_page: '1' })
      .reply(200, page('clients', [second], { page: 2, per_page: 1, self: '/clients' }));
    const harvestConn = harvest();

    const p1 = await harvestConn.execute('clients', 'list', { per_page: 1 });
    expect(p1.data).toEqual([R.clients]);
    expect(p1.pagination).toEqual({ next_link: next });
    expect(p1.next_params).toEqual({ cursor, per_page: 1 });

    const p2 = await harvestConn.execute('clients', 'list', { per_page: 1, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next_link: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of the time entries with a cursor link', async () => {
    const cursor = 'eyJhZnRlciI6eyJpZCI6NjM2NzA5MzU1fX0';
    const next = `${API}/v2/time_entries?cursor=${cursor}&per_page=1&ref=next_cursor`;
    const scope = api()
      .get('/v2/time_entries')
      .query({ per_page: '1' })
      .reply(200, page('time_entries', [{ id: 1 }], { per_page: 1, self: '/time_entries', next }))
      .get('/v2/time_entries')
      .query({ cursor, per_page: '1' })
      .reply(200, page('time_entries', [{ id: 2 }], { per_page: 1, self: '/time_entries' }));
    const harvestConn = harvest();
    const p1 = await harvestConn.execute('time_entries', 'list', { per_page: 1 });
    expect(p1.next_params).toEqual({ cursor, per_page: 1 });
    const p2 = await harvestConn.execute('time_entries', 'list', { per_page: 1, ...p1.next_params });
    expect(p2.data).toEqual([{ id: 2 }]);
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of the project time report, carrying from and to', async () => {
    const next = `${API}/v2/reports/time/projects?from=20170101&page=2&per_page=1&to=20171231&ref=next`;
    const second = {
      ...R.time_projects,
      project_id: 14308069,
      project_name: '[OS1] Online Store - Phase 1',
      client_id: 5735776,
      client_name: '123 Industries',
      total_hours: 4,
      billable_hours: 3,
      currency: 'EUR',
      billable_amount: 300,
    };
    const scope = api()
      .get('/v2/reports/time/projects')
      .query({ from: '20170101', to: '20171231', per_page: '1' })
      .reply(200, page('results', [R.time_projects], { per_page: 1, self: '/reports/time/projects', next }))
      .get('/v2/reports/time/projects')
      .query({ from: '20170101', to: '20171231', page: '2', per_page: '1' })
      .reply(200, page('results', [second], { page: 2, per_page: 1, self: '/reports/time/projects' }));
    const harvestConn = harvest();
    const params = { from: '20170101', to: '20171231', per_page: 1 };

    const p1 = await harvestConn.execute('time_projects', 'list', params);
    expect(p1.data).toEqual([R.time_projects]);
    expect(p1.pagination).toEqual({ next_link: next });
    expect(p1.next_params).toEqual({ from: '20170101', page: 2, per_page: 1, to: '20171231' });

    const p2 = await harvestConn.execute('time_projects', 'list', { ...params, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next_link: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('harvest OAuth2.0 option', () => {
  const oauthCredentials = { option_title: 'OAuth2.0', client_id: 'cid', client_secret: 'csecret', refresh_token: 'rtok', account_id: ACCOUNT_ID };
  const tokenEndpoint = () =>
    nock(ID_HOST)
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .post('/api/v2/oauth2/token', 'grant_type=refresh_token&refresh_token=rtok&client_id=cid&client_secret=csecret')
      .reply(200, { access_token: 'newtok', refresh_token: 'rtok2', token_type: 'bearer', expires_in: 1209600 });

  it('refreshes the access token (form body, client credentials in the body) and sends it as Bearer', async () => {
    const onTokenRefresh = vi.fn();
    const token = tokenEndpoint();
    const scope = api('newtok').get('/v2/company').reply(200, R.company);
    const conn = createConnector('harvest', { credentials: oauthCredentials, onTokenRefresh });

    const res = await conn.execute('company', 'get', {});

    expect(res.data).toEqual(R.company);
    expect(onTokenRefresh).toHaveBeenCalledTimes(1);
    expect(onTokenRefresh.mock.calls[0]![0]).toMatchObject({ access_token: 'newtok', refresh_token: 'rtok2', rotated: true });
    expect(token.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('uses a given access_token first and refreshes once after a 401', async () => {
    const token = tokenEndpoint();
    const scope = api('stale').get('/v2/users/3230547').reply(401, { error: 'invalid_token', error_description: 'The access token is invalid' });
    const retry = api('newtok').get('/v2/users/3230547').reply(200, R.users);
    const conn = createConnector('harvest', { credentials: { ...oauthCredentials, access_token: 'stale' } });

    const res = await conn.execute('users', 'get', { id: 3230547 });

    expect(res.data).toEqual(R.users);
    expect(token.isDone()).toBe(true);
    expect(retry.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });
});

describe('harvest validation', () => {
  it('rejects per_page 2001 (maximum) before any request', async () => {
    const scope = nock(API); // no interceptor: any request would fail the test

    const err = await harvest()
      .execute('time_entries', 'list', { per_page: 2001 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'per_page', rule: 'maximum', limit: 2000 })]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects get without id', async () => {
    const scope = nock(API);

    const err = await harvest()
      .execute('users', 'get', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'id', rule: 'required' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a time report without from and to, naming both', async () => {
    const scope = nock(API);

    const err = await harvest()
      .execute('time_tasks', 'list', { per_page: 10 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as ValidationError).issues;
    expect(issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['from', 'required'],
      ['to', 'required'],
    ]);
    expect(scope.isDone()).toBe(true);
  });
});
