import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, UpstreamError, ValidationError } from '../../runtime/index.js';

// Customer.io App API (https://api.customer.io/v1, EU https://api-eu.customer.io/v1) with an App API key
// as bearer. Bodies follow the examples and schemas of Customer.io's App API reference
// (docs.customer.io/integrations/api/app/, OpenAPI "journeys-app").

const API = 'https://api.customer.io';
const EU_API = 'https://api-eu.customer.io';
const KEY = '2a1e3f9c7b6d5e4f3a2b1c0d9e8f7a6b';

type Rec = Record<string, unknown>;

const cio = (config?: Record<string, string>, retries = 0) =>
  createConnector('customer-io', { credentials: { app_api_key: KEY }, ...(config && { config }), http: { retries } });

/** A scope that only matches requests with the bearer App API key and the JSON accept header. */
const api = (host = API) => nock(host).matchHeader('authorization', `Bearer ${KEY}`).matchHeader('accept', 'application/json');

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------
const CAMPAIGN: Rec = {
  id: 5,
  deduplicate_id: '5:1552341937',
  name: 'Trial onboarding',
  description: 'Sends a welcome series to new trial signups.',
  type: 'segment',
  created: 1552341937,
  updated: 1552341937,
  active: true,
  state: 'running',
  actions: [
    { type: 'email', id: 259 },
    { type: 'webhook', id: 260 },
  ],
  first_started: 1552341937,
  tags: ['new', 'welcome'],
  trigger_segment_ids: [90],
  filter_segment_ids: [21, 42],
};
const ACTION = (id: number, name: string, subject: string): Rec => ({
  id,
  campaign_id: 5,
  parent_action_id: null,
  broadcast_id: null,
  deduplicate_id: `${id}:1552341937`,
  name,
  layout: '<html><body>{{ content }}</body></html>',
  created: 1552341937,
  updated: 1552341937,
  body: `<p>Hi {{customer.first_name}},</p><p>${subject}</p>`,
  type: 'email',
  sending_state: 'automatic',
  language: '',
  from: 'Acme <hello@acme.example>',
  from_id: 1,
  reply_to: 'support@acme.example',
  reply_to_id: 38,
  preprocessor: 'premailer',
  recipient: '{{customer.email}}',
  subject,
  cc: '',
  bcc: '',
  fake_bcc: false,
  preheader_text: 'Your first week with Acme',
  body_amp: '',
  headers: '[{"name":"X-Mailgun-Tag","value":"onboarding"}]',
});
const ACTION_1 = ACTION(259, 'Welcome email', 'Welcome to Acme!');
const ACTION_2 = ACTION(261, 'Day 3 tips', 'Three tips to get started');
const NEWSLETTER: Rec = {
  id: 128275,
  deduplicate_id: '128275:1484870424',
  type: 'email',
  content_ids: [45],
  name: 'Weekly Product Update',
  sent_at: 1481653929,
  created: 1481653919,
  updated: 1481653929,
  recipient_segment_ids: [42, 99],
  tags: ['Product Updates'],
  subscription_topic_id: 5,
};
const SEGMENT: Rec = {
  id: 7,
  deduplicate_id: '7:1552341937',
  name: 'Manual Segment 1',
  description: 'My first manual segment',
  state: 'events',
  progress: null,
  type: 'manual',
  tags: null,
  created_at: 1552341937,
  updated_at: 1552341937,
};
const MESSAGE: Rec = {
  id: 'ag1q6QWq6QUBAAF4_CGoeVX7mFkDbRFu7ek=',
  deduplicate_id: 'ag1q6QWq6QUBAAF4_CGoeVX7mFkDbRFu7ek=:1619137768',
  msg_template_id: 43,
  action_id: 215,
  parent_action_id: null,
  customer_id: null,
  customer_identifiers: { email: 'person@example.com', id: null, cio_id: 'a3000001' },
  recipient: 'person@example.com',
  subject: 'Did you get that thing I sent you?',
  metrics: { delivered: 1619137768, sent: 1619137768 },
  created: 1619137767,
  failure_message: null,
  newsletter_id: null,
  content_id: null,
  campaign_id: 23,
  broadcast_id: null,
  trigger_event_id: null,
  type: 'email',
  forgotten: false,
};
const ACTIVITY: Rec = {
  customer_id: '42',
  customer_identifiers: { email: 'test@example.com', id: '42', cio_id: 'a3000001' },
  data: { delivery_id: 'ZAIAAVTJVG0QcCok0-0ZKj6yiQ==', opened: null, delivered: null },
  delivery_id: 'ZAIAAVTJVG0QcCok0-0ZKj6yiQ==',
  delivery_type: 'email',
  id: '01AK4N8V8G8KVA4HN8Y50CCZ59',
  timestamp: 1397566226,
  type: 'sent_email',
};
const SENDER: Rec = {
  id: 4534,
  deduplicate_id: '4534:1478035647',
  name: 'Cher Ami',
  email: 'test@example.com',
  address: 'Cher Ami <test@example.com>',
  template_type: 'email',
  auto_generated: false,
};
const SNIPPET: Rec = { name: 'address', value: '<strong>My Company</strong></br>1234 Fake St<br/>Fake,NY<br/>10111', updated_at: 1582500000 };
const COLLECTION: Rec = {
  bytes: 296,
  created_at: 1552341937,
  updated_at: 1552341937,
  id: 1,
  name: 'upcoming events',
  rows: 2,
  schema: ['eventDate', 'eventName', 'presents'],
};
const WEBHOOK: Rec = {
  name: 'my cool webhook',
  id: 4,
  type: 'webhook',
  endpoint: 'https://example.com/webhook',
  disabled: false,
  full_resolution: true,
  with_content: false,
  events: ['email_failed', 'webhook_failed'],
};
const EXPORT: Rec = {
  id: 110,
  user_id: 0,
  user_email: 'person@email.com',
  total: 1234,
  deduplicate_id: '110:1530296738',
  type: 'customers',
  failed: false,
  status: 'done',
  description: 'Customers with segment filters—in Purchased Flowers',
  downloads: 2,
  created_at: 1530296738,
  updated_at: 1530296738,
};
const TRANSACTIONAL: Rec = {
  id: 2,
  name: 'password reset',
  description: 'sends a temporary password and lets the customer reset their password.',
  send_to_unsubscribed: true,
  link_tracking: true,
  open_tracking: true,
  hide_message_body: false,
  queue_drafts: false,
  created_at: 1552341937,
  updated_at: 1552341937,
};
const CONTENT: Rec = {
  id: 139,
  name: 'Receipt',
  created: 1552341937,
  updated: 1552341937,
  body: '<p>Your temporary password is {{message_data.password_reset_token}}</p>',
  language: 'fr',
  type: 'email',
  from: 'sentFrom@example.com',
  from_id: 1,
  reply_to: 'replyto@example.com',
  reply_to_id: 38,
  preprocessor: 'premailer',
  recipient: '{{customer.email}}',
  subject: 'Réinitialisez votre mot de passe',
  cc: '',
  bcc: '',
  fake_bcc: false,
  preheader_text: '',
  body_amp: '',
  headers: '[{"name":"X-Mailgun-Tag","value":"my-cool-tag"}]',
};
const TRIGGER: Rec = { id: 3, broadcast_id: 2, created_at: 1552341937, processed_at: 1552341950 };

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Unpaged lists: every record at once, no pagination block
// ---------------------------------------------------------------------------------------------
// [entity, path under /v1, records key, record]
const UNPAGED: Array<[string, string, string, Rec]> = [
  ['campaigns', '/campaigns', 'campaigns', CAMPAIGN],
  ['segments', '/segments', 'segments', SEGMENT],
  ['snippets', '/snippets', 'snippets', SNIPPET],
  ['collections', '/collections', 'collections', COLLECTION],
  ['reporting_webhooks', '/reporting_webhooks', 'reporting_webhooks', WEBHOOK],
  ['exports', '/exports', 'exports', EXPORT],
  ['transactional_messages', '/transactional', 'messages', TRANSACTIONAL],
];

describe('customer-io unpaged lists', () => {
  it.each(UNPAGED)('%s list -> GET /v1%s, records from %s', async (entity, path, key, record) => {
    const scope = api()
      .get(`/v1${path}`)
      .query({})
      .reply(200, { [key]: [record] });

    const res = await cio().execute(entity, 'list', {});
    expect(res.data).toEqual([record]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('transactional_message_contents list -> GET /v1/transactional/{transactional_id}/contents', async () => {
    const scope = api()
      .get('/v1/transactional/3/contents')
      .reply(200, { contents: [CONTENT] });

    const res = await cio().execute('transactional_message_contents', 'list', { transactional_id: 3 });
    expect(res.data).toEqual([CONTENT]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Paged lists: start / next
// ---------------------------------------------------------------------------------------------
// [entity, path, records key, record, params, expected query]
const PAGED: Array<[string, string, string, Rec, Rec, Record<string, string>]> = [
  ['campaign_actions', '/campaigns/5/actions', 'actions', ACTION_1, { campaign_id: 5 }, {}],
  ['newsletters', '/newsletters', 'newsletters', NEWSLETTER, { limit: 1, sort: 'asc' }, { limit: '1', sort: 'asc' }],
  [
    'messages',
    '/messages',
    'messages',
    MESSAGE,
    {
      limit: 50,
      type: 'email',
      metric: 'delivered',
      drafts: false,
      campaign_id: 23,
      newsletter_id: 10,
      action_id: 215,
      start_ts: 1619000000,
      end_ts: 1620000000,
      get_tracked_responses: true,
    },
    {
      limit: '50',
      type: 'email',
      metric: 'delivered',
      drafts: 'false',
      campaign_id: '23',
      newsletter_id: '10',
      action_id: '215',
      start_ts: '1619000000',
      end_ts: '1620000000',
      get_tracked_responses: 'true',
    },
  ],
  [
    'activities',
    '/activities',
    'activities',
    ACTIVITY,
    { limit: 100, type: 'sent_email', name: 'purchase', deleted: false, customer_id: 'test@example.com', id_type: 'email' },
    { limit: '100', type: 'sent_email', name: 'purchase', deleted: 'false', customer_id: 'test@example.com', id_type: 'email' },
  ],
  [
    'sender_identities',
    '/sender_identities',
    'sender_identities',
    SENDER,
    { limit: 10, sort: 'desc', hidden: true },
    { limit: '10', sort: 'desc', hidden: 'true' },
  ],
];

describe('customer-io paged lists', () => {
  it.each(PAGED)('%s list -> GET /v1%s with its filters, block next', async (entity, path, key, record, params, query) => {
    const scope = api()
      .get(`/v1${path}`)
      .query(query)
      .reply(200, { [key]: [record], next: '' });

    const res = await cio().execute(entity, 'list', params);
    expect(res.data).toEqual([record]);
    expect(res.pagination).toEqual({ next: '' });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('campaign_actions walks two pages: next goes back as start (cursor)', async () => {
    const scope = api()
      .get('/v1/campaigns/5/actions')
      .query({})
      .reply(200, { actions: [ACTION_1], next: 'MjYx' })
      .get('/v1/campaigns/5/actions')
      .query({ start: 'MjYx' })
      .reply(200, { actions: [ACTION_2], next: '' });

    const page1 = await cio().execute('campaign_actions', 'list', { campaign_id: 5 });
    expect(page1.data).toEqual([ACTION_1]);
    expect(page1.pagination).toEqual({ next: 'MjYx' });
    expect(page1.next_params).toEqual({ start: 'MjYx' });

    const page2 = await cio().execute('campaign_actions', 'list', { campaign_id: 5, ...page1.next_params });
    expect(page2.data).toEqual([ACTION_2]);
    expect(page2.pagination).toEqual({ next: '' });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('messages stops when next is absent (block next null)', async () => {
    const scope = api()
      .get('/v1/messages')
      .query({ start: 'bWVzc2FnZXM=' })
      .reply(200, { messages: [MESSAGE] });

    const res = await cio().execute('messages', 'list', { start: 'bWVzc2FnZXM=' });
    expect(res.data).toEqual([MESSAGE]);
    expect(res.pagination).toEqual({ next: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('messages list takes at most 100 deliveries per page (Customer.io documents no larger page)', async () => {
    await expect(cio().execute('messages', 'list', { limit: 101 })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'limit' })],
    });
    const scope = api()
      .get('/v1/messages')
      .query({ limit: '100' })
      .reply(200, { messages: [MESSAGE], next: '' });
    expect((await cio().execute('messages', 'list', { limit: 100 })).data).toEqual([MESSAGE]);
    expect(scope.isDone()).toBe(true);
  });

  it('campaign_actions list requires an integer campaign_id', async () => {
    await expect(cio().execute('campaign_actions', 'list', { start: 'x' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'campaign_id', rule: 'required' })],
    });
    await expect(cio().execute('campaign_actions', 'list', { campaign_id: 'five' })).rejects.toBeInstanceOf(ValidationError);
  });
});

// ---------------------------------------------------------------------------------------------
// get
// ---------------------------------------------------------------------------------------------
// [entity, params, path under /v1, response body, expected record]
const GETS: Array<[string, Rec, string, Rec, Rec]> = [
  ['campaigns', { campaign_id: 5 }, '/campaigns/5', { campaign: CAMPAIGN }, CAMPAIGN],
  ['campaign_actions', { campaign_id: 5, action_id: 259 }, '/campaigns/5/actions/259', { action: ACTION_1 }, ACTION_1],
  ['newsletters', { newsletter_id: 128275 }, '/newsletters/128275', { newsletter: NEWSLETTER }, NEWSLETTER],
  ['segments', { segment_id: 7 }, '/segments/7', { segment: SEGMENT }, SEGMENT],
  ['messages', { message_id: MESSAGE.id }, `/messages/${encodeURIComponent(MESSAGE.id as string)}`, { message: MESSAGE }, MESSAGE],
  ['sender_identities', { sender_id: 4534 }, '/sender_identities/4534', { sender_identity: SENDER }, SENDER],
  ['collections', { collection_id: 1 }, '/collections/1', { collection: COLLECTION }, COLLECTION],
  ['reporting_webhooks', { webhook_id: 4 }, '/reporting_webhooks/4', WEBHOOK, WEBHOOK],
  ['exports', { export_id: 110 }, '/exports/110', { export: EXPORT }, EXPORT],
  ['transactional_messages', { transactional_id: 2 }, '/transactional/2', { message: TRANSACTIONAL }, TRANSACTIONAL],
  ['broadcast_trigger', { broadcast_id: 2, trigger_id: 3 }, '/campaigns/2/triggers/3', TRIGGER, TRIGGER],
];

describe('customer-io get', () => {
  it.each(GETS)('%s get -> GET /v1%s', async (entity, params, path, body, record) => {
    const scope = api().get(`/v1${path}`).reply(200, body);

    const res = await cio().execute(entity, 'get', params);
    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('messages get sends get_tracked_responses', async () => {
    const scope = api().get('/v1/messages/dgOq6QWq6QUBAAF4').query({ get_tracked_responses: 'true' }).reply(200, { message: MESSAGE });

    const res = await cio().execute('messages', 'get', { message_id: 'dgOq6QWq6QUBAAF4', get_tracked_responses: true });
    expect(res.data).toEqual(MESSAGE);
    expect(scope.isDone()).toBe(true);
  });

  it('uses the EU host when config api_host is api-eu.customer.io', async () => {
    const scope = api(EU_API).get('/v1/campaigns/5').reply(200, { campaign: CAMPAIGN });

    const res = await cio({ api_host: 'api-eu.customer.io' }).execute('campaigns', 'get', { campaign_id: 5 });
    expect(res.data).toEqual(CAMPAIGN);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an api_host outside the two Customer.io hosts', () => {
    expect(() => createConnector('customer-io', { credentials: { app_api_key: KEY }, config: { api_host: 'track.customer.io' } })).toThrow(ValidationError);
  });
});

// ---------------------------------------------------------------------------------------------
// Sends (create): transactional messages and broadcast triggers
// ---------------------------------------------------------------------------------------------
const DELIVERY = { delivery_id: 'RAECAAFwnUSneIa0ZXkmq8EdkAM==', queued_at: 1613630125 };

describe('customer-io transactional sends', () => {
  it('transactional_email create -> POST /v1/send/email with the exact body', async () => {
    const body = {
      transactional_message_id: 44,
      to: 'cool.person@example.com',
      identifiers: { email: 'cool.person@example.com' },
      message_data: { password_reset_token: 'abcde-12345-fghij-d888', account_id: '123dj' },
      from: 'override-templated-address@example.com',
      subject: 'Order receipt',
      bcc: 'bcc@example.com',
      attachments: { 'file1.csv': 'YSxiLGMKMSwyLDMK' },
      headers: { 'X-Mailgun-Tag': 'my-cool-tag' },
      disable_message_retention: false,
      send_to_unsubscribed: true,
      tracked: true,
      queue_draft: false,
      disable_css_preprocessing: true,
    };
    const scope = api().matchHeader('content-type', 'application/json').post('/v1/send/email', body).reply(200, DELIVERY);

    const res = await cio().execute('transactional_email', 'create', body);
    expect(res.data).toEqual(DELIVERY);
    expect(scope.isDone()).toBe(true);
  });

  it('transactional_email create accepts a Trigger Name and inline content, and a scheduled send', async () => {
    const body = {
      transactional_message_id: 'pwdreset',
      to: '"Cool Person" <cool.person@example.com>',
      identifiers: { id: '12345' },
      subject: 'Reset your password!',
      body: '<p>Your temporary password is {{message_data.password_reset_token}}</p>',
      body_plain: 'Your temporary password is {{message_data.password_reset_token}}',
      reply_to: 'support@example.com',
      preheader: 'Reset link inside',
      send_at: 1893456000,
      language: 'fr',
    };
    const scheduled = { ...DELIVERY, send_at: 1893456000 };
    const scope = api().post('/v1/send/email', body).reply(200, scheduled);

    const res = await cio().execute('transactional_email', 'create', body);
    expect(res.data).toEqual(scheduled);
    expect(scope.isDone()).toBe(true);
  });

  it('transactional_email create without a template or identifiers sends inline content to the address', async () => {
    const body = { to: 'cool.person@example.com', from: 'support@example.com', subject: 'Hello', body: '<p>Hi there</p>' };
    const scope = api().post('/v1/send/email', body).reply(200, DELIVERY);

    const res = await cio().execute('transactional_email', 'create', body);
    expect(res.data).toEqual(DELIVERY);
    expect(scope.isDone()).toBe(true);
  });

  it('transactional_sms create -> POST /v1/send/sms', async () => {
    const body = {
      transactional_message_id: 'confirmation code',
      to: '+15559876543',
      from: '+15551234567',
      identifiers: { id: '123456' },
      message_data: { confirmation_code: '123456', account_name: 'Jane Doe' },
      tracked: false,
    };
    const scope = api().post('/v1/send/sms', body).reply(200, DELIVERY);

    const res = await cio().execute('transactional_sms', 'create', body);
    expect(res.data).toEqual(DELIVERY);
    expect(scope.isDone()).toBe(true);
  });

  it('transactional_push create -> POST /v1/send/push', async () => {
    const body = {
      transactional_message_id: 44,
      identifiers: { id: '12345' },
      to: 'last_used',
      title: 'Did you really login from a new location?',
      message: 'Tap to review the sign-in.',
      link: 'acme://security/sessions',
      sound: 'default',
      custom_data: { session_id: 's_981' },
      message_data: { password_reset_token: 'abcde-12345-fghij-d888', account_id: '123dj' },
    };
    const scope = api().post('/v1/send/push', body).reply(200, DELIVERY);

    const res = await cio().execute('transactional_push', 'create', body);
    expect(res.data).toEqual(DELIVERY);
    expect(scope.isDone()).toBe(true);
  });

  it('transactional_inbox_message create -> POST /v1/send/inbox_message', async () => {
    const body = {
      transactional_message_id: 'order_shipped',
      identifiers: { id: 'user_123' },
      message_data: { order_id: 'ORD-5678', tracking_url: 'https://track.example.com/5678', product_name: 'Blue Widget' },
    };
    const scope = api().post('/v1/send/inbox_message', body).reply(200, DELIVERY);

    const res = await cio().execute('transactional_inbox_message', 'create', body);
    expect(res.data).toEqual(DELIVERY);
    expect(scope.isDone()).toBe(true);
  });

  it('is sent exactly once: a 503 is not retried even with retries enabled', async () => {
    const body = { transactional_message_id: 44, to: '+15559876543', identifiers: { id: '1' } };
    const scope = api()
      .post('/v1/send/sms', body)
      .once()
      .reply(503, { meta: { error: 'unavailable' } });

    await expect(cio(undefined, 3).execute('transactional_sms', 'create', body)).rejects.toBeInstanceOf(UpstreamError);
    expect(scope.isDone()).toBe(true);
  });

  it('requires identifiers with exactly one of id, email, cio_id, and the SMS template and number', async () => {
    await expect(
      cio().execute('transactional_email', 'create', { to: 'a@example.com', identifiers: { id: '1', email: 'a@example.com' } }),
    ).rejects.toMatchObject({ name: 'ValidationError', issues: [expect.objectContaining({ field: 'identifiers' })] });
    await expect(cio().execute('transactional_sms', 'create', { identifiers: { id: '1' } })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'transactional_message_id', rule: 'required' }),
        expect.objectContaining({ field: 'to', rule: 'required' }),
      ]),
    });
  });
});

describe('customer-io broadcast_trigger create', () => {
  it('POST /v1/campaigns/{broadcast_id}/triggers with data and ids returns the trigger id', async () => {
    const body = {
      data: { headline: 'Roadrunner spotted in Albuquerque!', date: 1511315635 },
      ids: ['wiley_coyote', 'road_runner'],
      id_ignore_missing: true,
    };
    const scope = api().post('/v1/campaigns/2/triggers', body).reply(200, { id: 3 });

    const res = await cio().execute('broadcast_trigger', 'create', { broadcast_id: 2, ...body });
    expect(res.data).toEqual({ id: 3 });
    expect(scope.isDone()).toBe(true);
  });

  it('sends the default audience with only data', async () => {
    const body = { data: { text: 'We received reports of a roadrunner in your immediate area!' }, email_add_duplicates: false, email_ignore_missing: false };
    const scope = api().post('/v1/campaigns/2/triggers', body).reply(200, { id: 4 });

    const res = await cio().execute('broadcast_trigger', 'create', { broadcast_id: 2, ...body });
    expect(res.data).toEqual({ id: 4 });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses two audiences at once before any request', async () => {
    await expect(cio().execute('broadcast_trigger', 'create', { broadcast_id: 2, ids: ['a'], emails: ['a@example.com'] })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ rule: 'at_most_one_of' })],
    });
  });
});

// ---------------------------------------------------------------------------------------------
// Writes Airbyte's clients send (Customer.io App API reference: createManSegment, createSnippet,
// updateSnippets, addCollection, updateCollection, createWebhook, updateWebhook, exportPeopleData,
// updateTransactional), and the names they send for existing params
// ---------------------------------------------------------------------------------------------
/** Runs a call that must be refused before any request: a nock scope without interceptors stays done. */
const refused = async (entity: string, action: string, params: Rec) => {
  const scope = nock(API);
  const err = await cio()
    .execute(entity, action, params)
    .then(
      () => null,
      (e: unknown) => e,
    );
  expect(err).toBeInstanceOf(ValidationError);
  expect(scope.isDone()).toBe(true);
  return (err as InstanceType<typeof ValidationError>).issues;
};

describe('customer-io segments create', () => {
  it('POST /v1/segments with the segment object returns the segment', async () => {
    const body = { segment: { name: 'Manual Segment 1', description: 'My first manual segment' } };
    const scope = api().matchHeader('content-type', 'application/json').post('/v1/segments', body).reply(200, { segment: SEGMENT });

    const res = await cio().execute('segments', 'create', body);
    expect(res.data).toEqual(SEGMENT);
    expect(scope.isDone()).toBe(true);
  });

  it('is sent once (a 503 is not retried) and needs segment.name', async () => {
    const body = { segment: { name: 'Manual Segment 1' } };
    const scope = api().post('/v1/segments', body).once().reply(503, {});
    await expect(cio(undefined, 3).execute('segments', 'create', body)).rejects.toBeInstanceOf(UpstreamError);
    expect(scope.isDone()).toBe(true);

    expect(await refused('segments', 'create', {})).toEqual([expect.objectContaining({ field: 'segment', rule: 'required' })]);
    expect(await refused('segments', 'create', { segment: { description: 'no name' } })).toEqual([
      expect.objectContaining({ field: expect.stringMatching(/^segment/) }),
    ]);
  });
});

describe('customer-io snippets create and update', () => {
  it('create -> POST /v1/snippets with name and value; update -> PUT /v1/snippets (create or replace by name)', async () => {
    const body = { name: SNIPPET.name as string, value: SNIPPET.value as string };
    const changed = { ...SNIPPET, value: 'Acme Inc, 1 Main St', updated_at: 1582500100 };
    const scope = api()
      .post('/v1/snippets', body)
      .reply(200, { snippet: SNIPPET })
      .put('/v1/snippets', { name: 'address', value: 'Acme Inc, 1 Main St' })
      .reply(200, { snippet: changed });

    const c = cio();
    expect((await c.execute('snippets', 'create', body)).data).toEqual(SNIPPET);
    expect((await c.execute('snippets', 'update', { name: 'address', value: 'Acme Inc, 1 Main St' })).data).toEqual(changed);
    expect(scope.isDone()).toBe(true);
  });

  it('needs name (at most 150 characters) and value', async () => {
    expect(await refused('snippets', 'create', { name: 'address' })).toEqual([expect.objectContaining({ field: 'value', rule: 'required' })]);
    expect(await refused('snippets', 'update', { name: 'x'.repeat(151), value: 'v' })).toEqual([expect.objectContaining({ field: 'name', rule: 'maxLength' })]);
  });
});

describe('customer-io collections create and update', () => {
  const DATA = [
    { eventName: 'christmas', presents: { something_you_want: 'toys', something_you_need: 'socks', total: 2 } },
    { eventName: 'birthday', presents: { something_you_want: 'video games', something_you_need: 'books', total: 2 } },
  ];

  it('create -> POST /v1/collections with name and data, or name and url', async () => {
    const scope = api()
      .post('/v1/collections', { name: 'events', data: DATA })
      .reply(200, { collection: COLLECTION })
      .post('/v1/collections', { name: 'events', url: 'https://example.com/events.json' })
      .reply(200, { collection: COLLECTION });

    const c = cio();
    expect((await c.execute('collections', 'create', { name: 'events', data: DATA })).data).toEqual(COLLECTION);
    expect((await c.execute('collections', 'create', { name: 'events', url: 'https://example.com/events.json' })).data).toEqual(COLLECTION);
    expect(scope.isDone()).toBe(true);
  });

  it('update -> PUT /v1/collections/{collection_id} with only the fields given', async () => {
    const renamed = { ...COLLECTION, name: 'upcoming events' };
    const scope = api().put('/v1/collections/1', { name: 'upcoming events' }).reply(200, { collection: renamed });

    const res = await cio().execute('collections', 'update', { collection_id: 1, name: 'upcoming events' });
    expect(res.data).toEqual(renamed);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses data and url together, neither of them, an empty update and a url that is not one', async () => {
    expect(await refused('collections', 'create', { name: 'events', data: DATA, url: 'https://example.com/e.json' })).toEqual([
      expect.objectContaining({ rule: 'at_most_one_of' }),
    ]);
    expect(await refused('collections', 'create', { name: 'events' })).toEqual([expect.objectContaining({ rule: 'at_least_one_of' })]);
    expect(await refused('collections', 'update', { collection_id: 1 })).toEqual([expect.objectContaining({ rule: 'at_least_one_of' })]);
    expect(await refused('collections', 'update', { collection_id: 1, url: 'events.json' })).toEqual([expect.objectContaining({ field: 'url' })]);
  });
});

describe('customer-io reporting_webhooks create and update', () => {
  const body = {
    name: 'my cool webhook',
    endpoint: 'https://example.com/webhook',
    events: ['email_failed', 'webhook_failed'],
    disabled: false,
    full_resolution: true,
    with_content: false,
  };

  it('create -> POST /v1/reporting_webhooks returns the webhook (unwrapped); update -> PUT /v1/reporting_webhooks/{webhook_id}', async () => {
    const disabled = { ...WEBHOOK, disabled: true };
    const scope = api()
      .post('/v1/reporting_webhooks', body)
      .reply(200, WEBHOOK)
      .put('/v1/reporting_webhooks/4', { ...body, disabled: true })
      .reply(200, disabled);

    const c = cio();
    expect((await c.execute('reporting_webhooks', 'create', body)).data).toEqual(WEBHOOK);
    expect((await c.execute('reporting_webhooks', 'update', { webhook_id: 4, ...body, disabled: true })).data).toEqual(disabled);
    expect(scope.isDone()).toBe(true);
  });

  it('needs name, endpoint and at least one event, on update too', async () => {
    expect(await refused('reporting_webhooks', 'update', { webhook_id: 4, disabled: true })).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'name', rule: 'required' }),
        expect.objectContaining({ field: 'endpoint', rule: 'required' }),
        expect.objectContaining({ field: 'events', rule: 'required' }),
      ]),
    );
    expect(await refused('reporting_webhooks', 'create', { ...body, events: [] })).toEqual([expect.objectContaining({ field: 'events', rule: 'minItems' })]);
    expect(await refused('reporting_webhooks', 'create', { ...body, endpoint: 'not a url' })).toEqual([expect.objectContaining({ field: 'endpoint' })]);
  });
});

describe('customer-io exports create', () => {
  it('POST /v1/exports/customers with filters and attributes returns the export', async () => {
    const body = {
      filters: { and: [{ segment: { id: 3 } }, { or: [{ attribute: { field: 'interest', operator: 'eq', value: 'roadrunners' } }] }] },
      attributes: ['email', 'first_name'],
    };
    const pending = { ...EXPORT, status: 'pending', total: 0, downloads: 0 };
    const scope = api().post('/v1/exports/customers', body).reply(200, { export: pending });

    const res = await cio().execute('exports', 'create', body);
    expect(res.data).toEqual(pending);
    expect(scope.isDone()).toBe(true);
  });

  it('needs filters with exactly one top-level condition', async () => {
    expect(await refused('exports', 'create', { attributes: ['email'] })).toEqual([expect.objectContaining({ field: 'filters', rule: 'required' })]);
    expect(await refused('exports', 'create', { filters: { segment: { id: 3 }, attribute: { field: 'a', operator: 'exists' } } })).toEqual([
      expect.objectContaining({ field: 'filters', rule: 'maxProperties' }),
    ]);
  });
});

describe('customer-io transactional_message_contents update', () => {
  it('PUT /v1/transactional/{transactional_id}/content/{content_id} with the fields given returns the variant', async () => {
    const body = {
      body: '<p>Votre mot de passe temporaire est {{message_data.password_reset_token}}</p>',
      from_id: 1,
      reply_to_id: 38,
      recipient: '{{customer.email}}',
      subject: 'Réinitialisez votre mot de passe',
      preheader_text: 'Lien de réinitialisation',
      body_amp: '',
      headers: [{ name: 'X-Mailgun-Tag', value: 'my-cool-tag' }],
    };
    const updated = { ...CONTENT, ...body, headers: '[{"name":"X-Mailgun-Tag","value":"my-cool-tag"}]' };
    const scope = api().matchHeader('content-type', 'application/json').put('/v1/transactional/3/content/139', body).reply(200, { content: updated });

    const res = await cio().execute('transactional_message_contents', 'update', { transactional_id: 3, content_id: 139, ...body });
    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an update without a field, a missing content_id and a header without a value', async () => {
    expect(await refused('transactional_message_contents', 'update', { transactional_id: 3, content_id: 139 })).toEqual([
      expect.objectContaining({ rule: 'at_least_one_of' }),
    ]);
    expect(await refused('transactional_message_contents', 'update', { transactional_id: 3, subject: 'Hi' })).toEqual([
      expect.objectContaining({ field: 'content_id', rule: 'required' }),
    ]);
    expect(await refused('transactional_message_contents', 'update', { transactional_id: 3, content_id: 139, headers: [{ name: 'X-Tag' }] })).toEqual([
      expect.objectContaining({ field: expect.stringMatching(/^headers/) }),
    ]);
  });
});

describe('customer-io names Airbyte sends for existing params', () => {
  it('transactional_email create: preheader_text is sent as preheader', async () => {
    const scope = api()
      .post('/v1/send/email', { transactional_message_id: 44, to: 'cool.person@example.com', identifiers: { id: '12345' }, preheader: 'Reset link inside' })
      .reply(200, DELIVERY);

    const res = await cio().execute('transactional_email', 'create', {
      transactional_message_id: 44,
      to: 'cool.person@example.com',
      identifiers: { id: '12345' },
      preheader_text: 'Reset link inside',
    });
    expect(res.data).toEqual(DELIVERY);
    expect(scope.isDone()).toBe(true);
  });

  it('broadcast_trigger create: campaign_id fills the broadcast id of the path; both names at once are refused', async () => {
    const scope = api()
      .post('/v1/campaigns/2/triggers', { data: { headline: 'Hi' } })
      .reply(200, { id: 5 });

    const res = await cio().execute('broadcast_trigger', 'create', { campaign_id: 2, data: { headline: 'Hi' } });
    expect(res.data).toEqual({ id: 5 });
    expect(scope.isDone()).toBe(true);

    await refused('broadcast_trigger', 'create', { campaign_id: 2, broadcast_id: 2 });
  });
});
