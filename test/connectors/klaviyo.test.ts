import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, createConnector, RateLimitedError, UnknownOperationError, ValidationError } from '../../runtime/index.js';

// Klaviyo REST API, revision 2026-07-15. Bodies are JSON:API documents shaped like the response
// schemas of Klaviyo's OpenAPI description (github.com/klaviyo/openapi, openapi/stable/apis/*.json):
// records under `data` as {type, id, attributes, relationships, links}, collection links under `links`.

const API = 'https://a.klaviyo.com';
const REVISION = '2026-07-15';
const KEY = 'pk_4e9c1b7a2d5f8e3c6b0a9d4f7e2c5b8a1d';

type Rec = Record<string, any>;

const klaviyo = () => createConnector('klaviyo', { credentials: { api_key: KEY }, http: { retries: 0 } });

/** A scope that only matches requests with the Klaviyo-API-Key authorization and the revision header. */
const api = () => nock(API).matchHeader('authorization', `Klaviyo-API-Key ${KEY}`).matchHeader('revision', REVISION).matchHeader('accept', 'application/json');

const collection = (path: string, data: Rec[], next: string | null = null) => ({
  data,
  links: { self: `${API}${path}`, next, prev: null },
});

// ---------------------------------------------------------------------------------------------
// Records (JSON:API resource objects)
// ---------------------------------------------------------------------------------------------
const PROFILE = {
  type: 'profile',
  id: '01GDDKASAP8TKDDA2GRZDSVP4H',
  attributes: {
    email: 'sarah.mason@klaviyo-demo.com',
    phone_number: '+15005550006',
    external_id: '63f64a2b-c6bf-40c7-b81f-bed08162edbe',
    first_name: 'Sarah',
    last_name: 'Mason',
    organization: 'Klaviyo',
    locale: 'en-US',
    title: 'Regional Manager',
    image: 'https://images.pexels.com/photos/3760854/pexels-photo-3760854.jpeg',
    created: '2022-11-08T00:00:00+00:00',
    updated: '2022-11-08T00:00:00+00:00',
    last_event_date: '2022-11-08T00:00:00+00:00',
    location: {
      address1: '89 E 42nd St',
      address2: '1st floor',
      city: 'New York',
      country: 'United States',
      latitude: '40.7128',
      longitude: '74.0060',
      region: 'NY',
      zip: '10017',
      timezone: 'America/New_York',
      ip: '127.0.0.1',
    },
    properties: { pseudonym: 'Dr. Octopus' },
  },
  relationships: {
    lists: {
      links: { self: `${API}/api/profiles/01GDDKASAP8TKDDA2GRZDSVP4H/relationships/lists/`, related: `${API}/api/profiles/01GDDKASAP8TKDDA2GRZDSVP4H/lists/` },
    },
    segments: {
      links: {
        self: `${API}/api/profiles/01GDDKASAP8TKDDA2GRZDSVP4H/relationships/segments/`,
        related: `${API}/api/profiles/01GDDKASAP8TKDDA2GRZDSVP4H/segments/`,
      },
    },
  },
  links: { self: `${API}/api/profiles/01GDDKASAP8TKDDA2GRZDSVP4H/` },
};
const PROFILE_2 = {
  ...PROFILE,
  id: '01GDDKASAP8TKDDA2GRZDSVP5J',
  attributes: { ...PROFILE.attributes, email: 'dev.patel@klaviyo-demo.com', first_name: 'Dev', last_name: 'Patel', phone_number: null, external_id: null },
  links: { self: `${API}/api/profiles/01GDDKASAP8TKDDA2GRZDSVP5J/` },
};
const LIST = {
  type: 'list',
  id: 'Y6nRLr',
  attributes: { name: 'Newsletter', created: '2022-11-08T00:00:00+00:00', updated: '2022-11-08T00:00:00+00:00', opt_in_process: 'double_opt_in' },
  relationships: { tags: { links: { self: `${API}/api/lists/Y6nRLr/relationships/tags/`, related: `${API}/api/lists/Y6nRLr/tags/` } } },
  links: { self: `${API}/api/lists/Y6nRLr/` },
};
const CAMPAIGN = {
  type: 'campaign',
  id: '01GDDKASAP8TKDDA2GRZDSVP4I',
  attributes: {
    name: 'Summer sale kickoff',
    status: 'Sent',
    archived: false,
    audiences: { included: ['Y6nRLr'], excluded: ['UTd5ui'] },
    send_options: { use_smart_sending: true },
    tracking_options: { add_tracking_params: false, is_tracking_clicks: true, is_tracking_opens: true },
    send_strategy: { method: 'static', datetime: '2022-11-08T00:00:00+00:00', options: { is_local: false } },
    created_at: '2022-11-01T00:00:00+00:00',
    scheduled_at: '2022-11-07T00:00:00+00:00',
    updated_at: '2022-11-08T00:00:00+00:00',
    send_time: '2022-11-08T00:00:00+00:00',
  },
  relationships: {
    'campaign-messages': {
      data: [{ type: 'campaign-message', id: '01GDDKASAP8TKDDA2GRZDSVP4J' }],
      links: {
        self: `${API}/api/campaigns/01GDDKASAP8TKDDA2GRZDSVP4I/relationships/campaign-messages/`,
        related: `${API}/api/campaigns/01GDDKASAP8TKDDA2GRZDSVP4I/campaign-messages/`,
      },
    },
  },
  links: { self: `${API}/api/campaigns/01GDDKASAP8TKDDA2GRZDSVP4I/` },
};
const SMS_CAMPAIGN = {
  ...CAMPAIGN,
  id: '01HF9T3Q7Z2W5X8Y1V4B6N0M3K',
  attributes: { ...CAMPAIGN.attributes, name: 'Flash sale SMS', status: 'Draft', send_time: null, scheduled_at: null },
  links: { self: `${API}/api/campaigns/01HF9T3Q7Z2W5X8Y1V4B6N0M3K/` },
};
const EVENT = {
  type: 'event',
  id: '4vRpBT',
  attributes: {
    timestamp: 1667865600,
    event_properties: { $value: 9.99, ProductName: 'Tote bag', $extra: { Items: 1 } },
    datetime: '2022-11-08T00:00:00+00:00',
    uuid: '3fd8f5a0-5ef6-11ed-8000-b15e61fdb6d5',
  },
  relationships: {
    profile: {
      data: { type: 'profile', id: '01GDDKASAP8TKDDA2GRZDSVP4H' },
      links: { self: `${API}/api/events/4vRpBT/relationships/profile/`, related: `${API}/api/events/4vRpBT/profile/` },
    },
    metric: {
      data: { type: 'metric', id: 'Y6QXhv' },
      links: { self: `${API}/api/events/4vRpBT/relationships/metric/`, related: `${API}/api/events/4vRpBT/metric/` },
    },
  },
  links: { self: `${API}/api/events/4vRpBT/` },
};
const METRIC = {
  type: 'metric',
  id: 'Y6QXhv',
  attributes: {
    name: 'Placed Order',
    created: '2022-11-08T00:00:00+00:00',
    updated: '2022-11-08T00:00:00+00:00',
    integration: { object: 'integration', id: '0eMvjm', key: 'shopify', name: 'Shopify', category: 'eCommerce' },
  },
  relationships: {
    'flow-triggers': { links: { self: `${API}/api/metrics/Y6QXhv/relationships/flow-triggers/`, related: `${API}/api/metrics/Y6QXhv/flow-triggers/` } },
  },
  links: { self: `${API}/api/metrics/Y6QXhv/` },
};
const FLOW = {
  type: 'flow',
  id: 'XVTP5Q',
  attributes: {
    name: 'Welcome Series',
    status: 'live',
    archived: false,
    created: '2022-11-08T00:00:00+00:00',
    updated: '2022-11-08T00:00:00+00:00',
    trigger_type: 'Added to List',
  },
  relationships: {
    'flow-actions': { links: { self: `${API}/api/flows/XVTP5Q/relationships/flow-actions/`, related: `${API}/api/flows/XVTP5Q/flow-actions/` } },
  },
  links: { self: `${API}/api/flows/XVTP5Q/` },
};
const TEMPLATE = {
  type: 'template',
  id: 'RipRmi',
  attributes: {
    name: 'Monthly Newsletter Template',
    editor_type: 'CODE',
    html: '<html><body><h1>Hello {{ first_name|default:"there" }}</h1><p>Our spring collection is here.</p></body></html>',
    text: 'Hello there. Our spring collection is here.',
    amp: null,
    created: '2022-11-08T00:00:00+00:00',
    updated: '2022-11-08T00:00:00+00:00',
  },
  links: { self: `${API}/api/templates/RipRmi/` },
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// list: one page per entity
// ---------------------------------------------------------------------------------------------
// [entity, path, record, params, expected query]
const LISTS: Array<[string, string, Rec, Rec, Record<string, string>]> = [
  ['profiles', '/api/profiles', PROFILE, { 'page[size]': 100 }, { 'page[size]': '100' }],
  ['lists', '/api/lists', LIST, { 'page[size]': 10 }, { 'page[size]': '10' }],
  [
    'campaigns',
    '/api/campaigns',
    CAMPAIGN,
    { filter: "equals(messages.channel,'email')", 'page[size]': 50 },
    { filter: "equals(messages.channel,'email')", 'page[size]': '50' },
  ],
  ['events', '/api/events', EVENT, { 'page[size]': 25, sort: '-datetime' }, { 'page[size]': '25', sort: '-datetime' }],
  ['metrics', '/api/metrics', METRIC, {}, {}],
  ['flows', '/api/flows', FLOW, { 'page[size]': 50 }, { 'page[size]': '50' }],
  ['email_templates', '/api/templates', TEMPLATE, { 'page[size]': 5 }, { 'page[size]': '5' }],
];

describe('klaviyo list', () => {
  it.each(LISTS)('%s list -> GET %s, records from data, block next', async (entity, path, record, params, query) => {
    const scope = api()
      .get(path)
      .query(query)
      .reply(200, collection(path, [record]), { 'content-type': 'application/vnd.api+json' });

    const res = await klaviyo().execute(entity, 'list', params);

    expect(res.data).toEqual([record]);
    expect(res.pagination).toEqual({ next: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// get: every entity but events
// ---------------------------------------------------------------------------------------------
const GETS: Array<[string, string, Rec]> = [
  ['profiles', '/api/profiles', PROFILE],
  ['lists', '/api/lists', LIST],
  ['campaigns', '/api/campaigns', CAMPAIGN],
  ['metrics', '/api/metrics', METRIC],
  ['flows', '/api/flows', FLOW],
  ['email_templates', '/api/templates', TEMPLATE],
];

describe('klaviyo get', () => {
  it.each(GETS)('%s get -> GET %s/{id}, the record from data', async (entity, path, record) => {
    const scope = api()
      .get(`${path}/${record.id}`)
      .reply(200, { data: record, links: { self: `${API}${path}/${record.id}/` } }, { 'content-type': 'application/vnd.api+json' });

    const res = await klaviyo().execute(entity, 'get', { id: record.id });

    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('events have no get', async () => {
    await expect(klaviyo().execute('events', 'get', { id: '4vRpBT' })).rejects.toBeInstanceOf(UnknownOperationError);
  });
});

// ---------------------------------------------------------------------------------------------
// pagination: links.next (next_url) walks
// ---------------------------------------------------------------------------------------------
describe('klaviyo pagination (next from links.next)', () => {
  it('walks two pages of profiles with page[cursor] and page[size] from the next link', async () => {
    const next = `${API}/api/profiles/?page%5Bcursor%5D=bmV4dDo6aWQ6OjAxR0RES0FTQVA4VEtEREEyR1JaRFNWUDRI&page%5Bsize%5D=1`;
    const scope = api()
      .get('/api/profiles')
      .query({ 'page[size]': '1' })
      .reply(200, collection('/api/profiles/', [PROFILE], next))
      .get('/api/profiles')
      .query({ 'page[size]': '1', 'page[cursor]': 'bmV4dDo6aWQ6OjAxR0RES0FTQVA4VEtEREEyR1JaRFNWUDRI' })
      .reply(200, collection('/api/profiles/', [PROFILE_2]));
    const conn = klaviyo();

    const p1 = await conn.execute('profiles', 'list', { 'page[size]': 1 });
    expect(p1.data).toEqual([PROFILE]);
    expect(p1.pagination).toEqual({ next });
    expect(p1.next_params).toEqual({ 'page[cursor]': 'bmV4dDo6aWQ6OjAxR0RES0FTQVA4VEtEREEyR1JaRFNWUDRI', 'page[size]': 1 });

    const p2 = await conn.execute('profiles', 'list', { 'page[size]': 1, ...p1.next_params });
    expect(p2.data).toEqual([PROFILE_2]);
    expect(p2.pagination).toEqual({ next: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of SMS campaigns, the channel filter carried by the next link', async () => {
    const filter = "equals(messages.channel,'sms')";
    const next = `${API}/api/campaigns/?filter=equals%28messages.channel%2C%27sms%27%29&page%5Bcursor%5D=bmV4dDo6aWQ6OjAxSEY5VDNR`;
    const scope = api()
      .get('/api/campaigns')
      .query({ filter })
      .reply(200, collection('/api/campaigns/', [SMS_CAMPAIGN], next))
      .get('/api/campaigns')
      .query({ filter, 'page[cursor]': 'bmV4dDo6aWQ6OjAxSEY5VDNR' })
      .reply(200, collection('/api/campaigns/', [{ ...SMS_CAMPAIGN, id: '01HF9T3Q7Z2W5X8Y1V4B6N0M3L' }]));
    const conn = klaviyo();

    const p1 = await conn.execute('campaigns', 'list', { filter });
    expect(p1.data).toEqual([SMS_CAMPAIGN]);
    expect(p1.pagination).toEqual({ next });
    expect(p1.next_params).toEqual({ filter, 'page[cursor]': 'bmV4dDo6aWQ6OjAxSEY5VDNR' });

    const p2 = await conn.execute('campaigns', 'list', { filter, ...p1.next_params });
    expect(p2.data).toEqual([{ ...SMS_CAMPAIGN, id: '01HF9T3Q7Z2W5X8Y1V4B6N0M3L' }]);
    expect(p2.pagination).toEqual({ next: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of events keeping the sort', async () => {
    const next = `${API}/api/events/?page%5Bcursor%5D=bmV4dDo6ZGF0ZXRpbWU6OjE2Njc4NjU2MDA&sort=-datetime`;
    const second = { ...EVENT, id: '4vRpBU', attributes: { ...EVENT.attributes, timestamp: 1667779200, datetime: '2022-11-07T00:00:00+00:00' } };
    const scope = api()
      .get('/api/events')
      .query({ sort: '-datetime' })
      .reply(200, collection('/api/events/', [EVENT], next))
      .get('/api/events')
      .query({ sort: '-datetime', 'page[cursor]': 'bmV4dDo6ZGF0ZXRpbWU6OjE2Njc4NjU2MDA' })
      .reply(200, collection('/api/events/', [second]));
    const conn = klaviyo();

    const p1 = await conn.execute('events', 'list', { sort: '-datetime' });
    expect(p1.next_params).toEqual({ 'page[cursor]': 'bmV4dDo6ZGF0ZXRpbWU6OjE2Njc4NjU2MDA', sort: '-datetime' });
    const p2 = await conn.execute('events', 'list', { sort: '-datetime', ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next: null });
    expect(scope.isDone()).toBe(true);
  });
});

describe('klaviyo metrics filter (integration.name, integration.category)', () => {
  it('sends the filter as given and keeps it on the next page read from links.next', async () => {
    const filter = 'equals(integration.name,"Shopify")';
    const next = `${API}/api/metrics/?filter=equals%28integration.name%2C%22Shopify%22%29&page%5Bcursor%5D=bmV4dDo6aWQ6OlkzUVhodg`;
    const second = { ...METRIC, id: 'Y3QXhv', attributes: { ...METRIC.attributes, name: 'Started Checkout' }, links: { self: `${API}/api/metrics/Y3QXhv/` } };
    const scope = api()
      .get('/api/metrics')
      .query({ filter })
      .reply(200, collection('/api/metrics/', [METRIC], next))
      .get('/api/metrics')
      .query({ filter, 'page[cursor]': 'bmV4dDo6aWQ6OlkzUVhodg' })
      .reply(200, collection('/api/metrics/', [second]));
    const conn = klaviyo();

    const p1 = await conn.execute('metrics', 'list', { filter });
    expect(p1.data).toEqual([METRIC]);
    expect(p1.pagination).toEqual({ next });
    expect(p1.next_params).toEqual({ filter, 'page[cursor]': 'bmV4dDo6aWQ6OlkzUVhodg' });

    const p2 = await conn.execute('metrics', 'list', { filter, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next: null });
    expect(scope.isDone()).toBe(true);
  });

  it('sends an and() of both allowed fields', async () => {
    const filter = "and(equals(integration.name,'Shopify'),equals(integration.category,'eCommerce'))";
    const scope = api()
      .get('/api/metrics')
      .query({ filter })
      .reply(200, collection('/api/metrics/', [METRIC]));

    const res = await klaviyo().execute('metrics', 'list', { filter });
    expect(res.data).toEqual([METRIC]);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    'greater-than(updated,2024-05-01T00:00:00Z)',
    'equals(name,"Placed Order")',
    'contains(integration.name,"Shop")',
    'equals(integration.name,Shopify)',
  ])('refuses %s (only equals on integration.name or integration.category, quoted) before any request', async (filter) => {
    const scope = nock(API);

    const err = await klaviyo()
      .execute('metrics', 'list', { filter })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'filter', rule: 'pattern' })]);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// validation and errors
// ---------------------------------------------------------------------------------------------
describe('klaviyo validation', () => {
  it.each([
    ['profiles', { 'page[size]': 101 }, 'page[size]', 'maximum', 100],
    ['lists', { 'page[size]': 11 }, 'page[size]', 'maximum', 10],
    ['flows', { 'page[size]': 51 }, 'page[size]', 'maximum', 50],
    ['email_templates', { 'page[size]': 11 }, 'page[size]', 'maximum', 10],
    ['events', { 'page[size]': 0 }, 'page[size]', 'minimum', 1],
  ])('%s list rejects %j before any request', async (entity, params, field, rule, limit) => {
    const scope = nock(API);

    const err = await klaviyo()
      .execute(entity, 'list', params)
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field, rule, limit })]);
    expect(scope.isDone()).toBe(true);
  });

  it('campaigns list requires the channel filter and accepts only the three channel strings', async () => {
    const scope = nock(API);
    const conn = klaviyo();

    const e1 = await conn.execute('campaigns', 'list', {}).catch((e: unknown) => e);
    expect((e1 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'filter', rule: 'required' })]);

    const e2 = await conn.execute('campaigns', 'list', { filter: 'email' }).catch((e: unknown) => e);
    expect((e2 as ValidationError).issues).toEqual([
      expect.objectContaining({
        field: 'filter',
        rule: 'enum',
        limit: ["equals(messages.channel,'email')", "equals(messages.channel,'sms')", "equals(messages.channel,'mobile_push')"],
      }),
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it('metrics list takes no page size and events sort is a closed set', async () => {
    const scope = nock(API);
    const conn = klaviyo();

    const e1 = await conn.execute('metrics', 'list', { 'page[size]': 10 }).catch((e: unknown) => e);
    expect((e1 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'page[size]', rule: 'unknown' })]);

    const e2 = await conn.execute('events', 'list', { sort: 'created' }).catch((e: unknown) => e);
    expect((e2 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'sort', rule: 'enum' })]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('klaviyo errors', () => {
  it('maps a 401 (bad key) to AuthenticationError', async () => {
    const scope = api()
      .get('/api/flows/XVTP5Q')
      .reply(401, {
        errors: [
          {
            id: '7b2d9c4e-1f3a-4b6c-8d0e-2a5f7c9b1d3e',
            status: 401,
            code: 'not_authenticated',
            title: 'Authentication credentials were not provided.',
            detail: 'Missing or invalid private key.',
            source: { pointer: '/data/' },
          },
        ],
      });

    const err = await klaviyo()
      .execute('flows', 'get', { id: 'XVTP5Q' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).upstreamStatus).toBe(401);
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 429 with a long Retry-After to RateLimitedError', async () => {
    const scope = api()
      .get('/api/metrics')
      .reply(
        429,
        {
          errors: [
            {
              id: 'c1d2e3f4-a5b6-4c7d-8e9f-0a1b2c3d4e5f',
              status: 429,
              code: 'throttled',
              title: 'Request was throttled.',
              detail: 'Request was throttled. Expected available in 120 seconds.',
            },
          ],
        },
        { 'retry-after': '120' },
      );

    const err = await klaviyo()
      .execute('metrics', 'list', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(120);
    expect(scope.isDone()).toBe(true);
  });
});
