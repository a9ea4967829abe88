import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, createConnector, NotFoundError, ValidationError } from '../../runtime/index.js';

// Orb API v1 connector. Records follow Orb's Customer, Subscription, Plan and Invoice models
// (docs.withorb.com/api-reference and shared/vendor-specs/orb/openapi.json); list bodies are
// { data, pagination_metadata: { has_more, next_cursor } }.

const API = 'https://api.withorb.com';
const API_KEY = 'a3f1c9e2b7d84f60a5e1c3b9d7f2e4a6c8b0d2f4e6a8c0b2d4f6e8a0c2b4d6f8';

type Rec = Record<string, any>;

const orb = () => createConnector('orb', { credentials: { api_key: API_KEY }, http: { retries: 0 } });

/** A scope that only matches requests with the bearer API key and the JSON accept header. */
const api = () => nock(API).matchHeader('authorization', `Bearer ${API_KEY}`).matchHeader('accept', 'application/json');

const page = (records: Rec[], next: string | null = null) => ({
  data: records,
  pagination_metadata: { has_more: next !== null, next_cursor: next },
});

const customer = {
  id: 'XimGiw3pnsgusvc3',
  external_customer_id: 'acme-7421',
  name: 'Acme Robotics',
  email: 'billing@acme-robotics.example',
  additional_emails: ['finance@acme-robotics.example'],
  created_at: '2025-03-14T09:26:53+00:00',
  payment_provider: 'stripe_charge',
  payment_provider_id: 'cus_PqR7sT2uVwXyZ1',
  timezone: 'America/Los_Angeles',
  shipping_address: null,
  billing_address: { line1: '1 Market St', line2: 'Suite 400', city: 'San Francisco', state: 'CA', postal_code: '94105', country: 'US' },
  balance: '-12.50',
  currency: 'USD',
  tax_id: { country: 'US', type: 'us_ein', value: '12-3456789' },
  auto_collection: true,
  exempt_from_automated_tax: false,
  email_delivery: true,
  portal_url: 'https://portal.withorb.com/view?token=eyJhbGciOiJIUzI1NiJ9.acme',
  hierarchy: { parent: null, children: [] },
  accounting_sync_configuration: null,
  reporting_configuration: null,
  metadata: { segment: 'enterprise' },
};

const plan = {
  id: 'm2t5akQeh2obwxeU',
  name: 'Growth (usage)',
  description: 'Platform fee plus per-API-call usage',
  status: 'active',
  version: 2,
  currency: 'USD',
  invoicing_currency: 'USD',
  created_at: '2025-01-07T18:02:11+00:00',
  external_plan_id: 'growth-usage-v2',
  base_plan_id: null,
  base_plan: null,
  prices: [
    {
      id: 'price_3kYv9Q2b',
      name: 'API calls',
      model_type: 'unit',
      unit_config: { unit_amount: '0.002' },
      cadence: 'monthly',
      billable_metric: { id: 'bm_api_calls' },
      fixed_price_quantity: null,
      currency: 'USD',
    },
  ],
  adjustments: [],
  plan_phases: null,
  product: { id: 'prod_9Hc2Lk', name: 'Acme Cloud', created_at: '2025-01-07T18:01:40+00:00' },
  trial_config: { trial_period: null, trial_period_unit: 'days' },
  minimum: null,
  maximum: null,
  minimum_amount: null,
  maximum_amount: null,
  discount: null,
  net_terms: 30,
  default_invoice_memo: null,
  metadata: {},
};

const subscription = {
  id: 'VDGsZPqUaRJ4hwbN',
  created_at: '2025-03-14T09:30:00+00:00',
  start_date: '2025-03-15T00:00:00-07:00',
  end_date: null,
  status: 'active',
  customer,
  plan,
  current_billing_period_start_date: '2026-11-15T00:00:00-08:00',
  current_billing_period_end_date: '2026-12-15T00:00:00-08:00',
  active_plan_phase_order: null,
  billing_cycle_day: 15,
  billing_cycle_anchor_configuration: { day: 15, month: null, year: null },
  fixed_fee_quantity_schedule: [],
  price_intervals: [
    {
      id: 'pi_7bQx2Lm',
      billing_cycle_day: 15,
      start_date: '2025-03-15T07:00:00+00:00',
      end_date: null,
      current_billing_period_start_date: '2026-11-15T08:00:00+00:00',
      current_billing_period_end_date: '2026-12-15T08:00:00+00:00',
      filter: null,
      fixed_fee_quantity_transitions: null,
      price: plan.prices[0],
      usage_customer_ids: null,
    },
  ],
  adjustment_intervals: [],
  discount_intervals: [],
  minimum_intervals: [],
  maximum_intervals: [],
  redeemed_coupon: null,
  trial_info: { end_date: null },
  default_invoice_memo: null,
  auto_collection: null,
  net_terms: 30,
  invoicing_threshold: null,
  metadata: { contract: 'MSA-2025-031' },
};

const invoice = {
  id: 'gXcsPTVyC4YZa3Sc',
  invoice_number: 'RFOBWG-00012',
  status: 'issued',
  amount_due: '112.40',
  subtotal: '124.90',
  total: '124.90',
  currency: 'USD',
  customer: { id: customer.id, external_customer_id: customer.external_customer_id },
  subscription: { id: subscription.id },
  plan: { id: plan.id, external_plan_id: plan.external_plan_id, name: plan.name },
  invoice_date: '2026-11-15T08:00:00+00:00',
  due_date: '2026-12-15T08:00:00+00:00',
  created_at: '2026-11-15T08:00:04+00:00',
  issued_at: '2026-11-16T08:00:00+00:00',
  paid_at: null,
  voided_at: null,
  scheduled_issue_at: null,
  eligible_to_issue_at: null,
  issue_failed_at: null,
  sync_failed_at: null,
  payment_failed_at: null,
  payment_started_at: null,
  will_auto_issue: false,
  auto_collection: { enabled: true, next_attempt_at: '2026-12-15T08:00:00+00:00', previously_attempted_at: null },
  hosted_invoice_url: 'https://portal.withorb.com/invoices/gXcsPTVyC4YZa3Sc',
  invoice_pdf: 'https://assets.withorb.com/invoice/rUHdhmg45vY45DX9/gXcsPTVyC4YZa3Sc.pdf',
  line_items: [
    {
      id: 'li_4Ncz8Rt',
      name: 'API calls',
      amount: '124.90',
      subtotal: '124.90',
      quantity: 62450,
      start_date: '2026-10-15T07:00:00+00:00',
      end_date: '2026-11-15T08:00:00+00:00',
      discount: null,
      grouping: null,
      minimum: null,
      minimum_amount: null,
      maximum: null,
      maximum_amount: null,
      price: plan.prices[0],
      sub_line_items: [],
      tax_amounts: [],
    },
  ],
  credit_notes: [],
  customer_balance_transactions: [],
  customer_tax_id: { country: 'US', type: 'us_ein', value: '12-3456789' },
  billing_address: customer.billing_address,
  shipping_address: null,
  discount: null,
  discounts: [],
  minimum: null,
  maximum: null,
  minimum_amount: null,
  maximum_amount: null,
  memo: null,
  metadata: {},
};

const R = { customers: customer, subscriptions: subscription, plans: plan, invoices: invoice } satisfies Record<string, Rec>;
type Entity = keyof typeof R;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// [entity, path under /v1]
const LISTS: Array<[Entity, string]> = [
  ['customers', '/customers'],
  ['subscriptions', '/subscriptions'],
  ['plans', '/plans'],
  ['invoices', '/invoices'],
];

// [entity, path under /v1, id param name]
const GETS: Array<[Entity, string, string]> = [
  ['customers', '/customers', 'customer_id'],
  ['subscriptions', '/subscriptions', 'subscription_id'],
  ['plans', '/plans', 'plan_id'],
  ['invoices', '/invoices', 'invoice_id'],
];

describe('orb list (last page)', () => {
  it.each(LISTS)('%s list -> GET /v1%s', async (entity, path) => {
    const scope = api()
      .get(`/v1${path}`)
      .query({ limit: '50' })
      .reply(200, page([R[entity]]));

    const res = await orb().execute(entity, 'list', { limit: 50 });

    expect(res.data).toEqual([R[entity]]);
    expect(res.pagination).toEqual({ next_cursor: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('subscriptions list sends the customer_id, external_customer_id and status filters', async () => {
    const scope = api()
      .get('/v1/subscriptions')
      .query({ customer_id: customer.id, external_customer_id: 'acme-7421', status: 'active', limit: '10' })
      .reply(200, page([subscription]));

    const res = await orb().execute('subscriptions', 'list', {
      customer_id: customer.id,
      external_customer_id: 'acme-7421',
      status: 'active',
      limit: 10,
    });

    expect(res.data).toEqual([subscription]);
    expect(res.pagination).toEqual({ next_cursor: null });
    expect(scope.isDone()).toBe(true);
  });

  it('a list without params sends no query', async () => {
    const scope = api().get('/v1/plans').query({}).reply(200, page([]));

    const res = await orb().execute('plans', 'list', {});

    expect(res).toEqual({ data: [], pagination: { next_cursor: null } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('orb invoices list filters', () => {
  it("sends customer_id, subscription_id, status and the invoice_date range under Orb's bracketed names", async () => {
    const scope = api()
      .get('/v1/invoices')
      .query({
        customer_id: customer.id,
        subscription_id: subscription.id,
        status: 'paid',
        'invoice_date[gt]': '2026-10-01T00:00:00Z',
        'invoice_date[lte]': '2026-11-30T23:59:59Z',
        limit: '25',
      })
      .reply(200, page([invoice]));

    const res = await orb().execute('invoices', 'list', {
      customer_id: customer.id,
      subscription_id: subscription.id,
      status: 'paid',
      invoice_date_gt: '2026-10-01T00:00:00Z',
      invoice_date_lte: '2026-11-30T23:59:59Z',
      limit: 25,
    });

    expect(res.data).toEqual([invoice]);
    expect(res.pagination).toEqual({ next_cursor: null });
    expect(scope.isDone()).toBe(true);
  });

  it("accepts Orb's own names invoice_date[gte] and invoice_date[lt] as aliases, with external_customer_id", async () => {
    const scope = api()
      .get('/v1/invoices')
      .query({
        external_customer_id: 'acme-7421',
        'invoice_date[gte]': '2026-11-01T00:00:00+00:00',
        'invoice_date[lt]': '2026-12-01T00:00:00+00:00',
      })
      .reply(200, page([invoice]));

    const res = await orb().execute('invoices', 'list', {
      external_customer_id: 'acme-7421',
      'invoice_date[gte]': '2026-11-01T00:00:00+00:00',
      'invoice_date[lt]': '2026-12-01T00:00:00+00:00',
    });

    expect(res.data).toEqual([invoice]);
    expect(scope.isDone()).toBe(true);
  });

  it('walks the next page keeping the filters', async () => {
    const scope = api()
      .get('/v1/invoices')
      .query({ status: 'draft', 'invoice_date[gte]': '2026-11-01T00:00:00Z', cursor: 'c3ViXzJfaW52' })
      .reply(200, page([invoice]));

    const res = await orb().execute('invoices', 'list', { status: 'draft', invoice_date_gte: '2026-11-01T00:00:00Z', cursor: 'c3ViXzJfaW52' });

    expect(res.data).toEqual([invoice]);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an invoice status outside draft, issued, paid, synced, void and a date that is not a date-time', async () => {
    const scope = nock(API);

    const err = await orb()
      .execute('invoices', 'list', { status: 'open', invoice_date_gt: '2026-10-01' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'status', rule: 'enum' }),
        expect.objectContaining({ field: 'invoice_date_gt', rule: 'format' }),
      ]),
    );
    expect(scope.isDone()).toBe(true);
  });

  it('refuses customer_id with external_customer_id, and a param given under its name and its alias', async () => {
    const scope = nock(API);

    const both = await orb()
      .execute('invoices', 'list', { customer_id: customer.id, external_customer_id: 'acme-7421' })
      .catch((e: unknown) => e);
    expect(both).toBeInstanceOf(ValidationError);
    expect((both as ValidationError).issues).toEqual([expect.objectContaining({ rule: 'at_most_one_of', limit: ['customer_id', 'external_customer_id'] })]);

    const twice = await orb()
      .execute('invoices', 'list', { invoice_date_gt: '2026-10-01T00:00:00Z', 'invoice_date[gt]': '2026-10-02T00:00:00Z' })
      .catch((e: unknown) => e);
    expect(twice).toBeInstanceOf(ValidationError);
    expect((twice as ValidationError).issues).toEqual([expect.objectContaining({ rule: 'alias_conflict' })]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('orb get', () => {
  it.each(GETS)('%s get -> GET /v1%s/{%s}', async (entity, path, param) => {
    const record: Rec = R[entity];
    const scope = api().get(`/v1${path}/${record.id}`).reply(200, record);

    const res = await orb().execute(entity, 'get', { [param]: record.id });

    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 404 to NotFoundError', async () => {
    const scope = api().get('/v1/invoices/missing').reply(404, {
      type: 'https://docs.withorb.com/reference/error-responses#404-resource-not-found',
      status: 404,
      title: 'Resource not found',
      detail: 'Invoice not found',
    });

    const err = await orb()
      .execute('invoices', 'get', { invoice_id: 'missing' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).upstreamStatus).toBe(404);
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 401 to AuthenticationError', async () => {
    const scope = api().get(`/v1/customers/${customer.id}`).reply(401, {
      type: 'https://docs.withorb.com/reference/error-responses#401-authentication-error',
      status: 401,
      title: 'Authentication error',
      detail: 'Invalid API key',
    });

    const err = await orb()
      .execute('customers', 'get', { customer_id: customer.id })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect(scope.isDone()).toBe(true);
  });
});

describe('orb cursor pagination walk', () => {
  it('walks two pages of customers with the cursor from next_params', async () => {
    const second = { ...customer, id: 'Bq8wZr2TnYk4mPc1', external_customer_id: 'globex-118', name: 'Globex', email: 'ap@globex.example' };
    const cursor = 'eyJjcmVhdGVkX2F0IjogIjIwMjUtMDMtMTRUMDk6MjY6NTMrMDA6MDAiLCAiaWQiOiAiWGltR2l3M3Buc2d1c3ZjMyJ9';
    const scope = api()
      .get('/v1/customers')
      .query({ limit: '1' })
      .reply(200, page([customer], cursor))
      .get('/v1/customers')
      .query({ limit: '1', cursor })
      .reply(200, page([second]));
    const conn = orb();

    const p1 = await conn.execute('customers', 'list', { limit: 1 });
    expect(p1.data).toEqual([customer]);
    expect(p1.pagination).toEqual({ next_cursor: cursor });
    expect(p1.next_params).toEqual({ cursor });

    const p2 = await conn.execute('customers', 'list', { limit: 1, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next_cursor: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of a filtered subscriptions list, keeping the filters', async () => {
    const second = { ...subscription, id: 'Jq4nXw8RtB2kLm7C', start_date: '2024-03-15T00:00:00-07:00' };
    const scope = api()
      .get('/v1/subscriptions')
      .query({ customer_id: customer.id, status: 'active', limit: '1' })
      .reply(200, page([subscription], 'c3ViLTI='))
      .get('/v1/subscriptions')
      .query({ customer_id: customer.id, status: 'active', limit: '1', cursor: 'c3ViLTI=' })
      .reply(200, page([second]));
    const conn = orb();
    const params = { customer_id: customer.id, status: 'active', limit: 1 };

    const p1 = await conn.execute('subscriptions', 'list', params);
    expect(p1.pagination).toEqual({ next_cursor: 'c3ViLTI=' });
    expect(p1.next_params).toEqual({ cursor: 'c3ViLTI=' });

    const p2 = await conn.execute('subscriptions', 'list', { ...params, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('stops when has_more is false even if a cursor is present', async () => {
    const scope = api()
      .get('/v1/invoices')
      .query({})
      .reply(200, { data: [invoice], pagination_metadata: { has_more: false, next_cursor: 'aW52LTI=' } });

    const res = await orb().execute('invoices', 'list', {});

    expect(res.pagination).toEqual({ next_cursor: 'aW52LTI=' });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('orb validation', () => {
  it('rejects limit 101 (maximum 100) before any request', async () => {
    const scope = nock(API);

    const err = await orb()
      .execute('customers', 'list', { limit: 101 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'limit', rule: 'maximum', limit: 100 })]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a subscription status outside active, ended, upcoming', async () => {
    const scope = nock(API);

    const err = await orb()
      .execute('subscriptions', 'list', { status: 'canceled' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'status', rule: 'enum' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects get without its id param, and filters on lists that have none', async () => {
    const scope = nock(API);

    const missing = await orb()
      .execute('plans', 'get', {})
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).issues).toEqual([expect.objectContaining({ field: 'plan_id', rule: 'required' })]);

    const unknown = await orb()
      .execute('plans', 'list', { customer_id: customer.id })
      .catch((e: unknown) => e);
    expect(unknown).toBeInstanceOf(ValidationError);
    expect(scope.isDone()).toBe(true);
  });
});
