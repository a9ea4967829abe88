import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, createConnector, NotFoundError, ValidationError } from '../../runtime/index.js';

// Zendesk Talk API on https://{subdomain}.zendesk.com/api/v2/channels/voice. Two auth options:
// API token (basic auth "{email}/token:{api_token}") and an OAuth access token (bearer).
// Response bodies follow the examples of the Talk API reference
// (developer.zendesk.com/api-reference/voice/talk-api/...).

const HOST = 'https://acme.zendesk.com';
const BASE = '/api/v2/channels/voice';
const EMAIL = 'ana@acme.com';
const API_TOKEN = 'wRjw5wZFzeBaPsHi2Lmn1dPcNZNPSaXD2IiPqj2r';
const ACCESS_TOKEN = 'a6e8f4c1b2d3e4f5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9';
const BASIC = `Basic ${Buffer.from(`${EMAIL}/token:${API_TOKEN}`).toString('base64')}`;

type Rec = Record<string, unknown>;

/** API token option (basic auth). */
const talk = () =>
  createConnector('zendesk-talk', {
    credentials: { email: EMAIL, api_token: API_TOKEN },
    config: { subdomain: 'acme' },
    http: { retries: 0 },
  });

/** OAuth access token option (bearer). */
const talkOAuth = () =>
  createConnector('zendesk-talk', {
    credentials: { option_title: 'OAuth Access Token', access_token: ACCESS_TOKEN },
    config: { subdomain: 'acme' },
    http: { retries: 0 },
  });

const api = (authorization = BASIC) => nock(HOST).matchHeader('authorization', authorization).matchHeader('accept', 'application/json');

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Fixtures (vendor examples)
// ---------------------------------------------------------------------------------------------
const phoneNumber = (id: number, number: string, nickname: string) => ({
  brand_id: 360000146193,
  call_recording_consent: 'always',
  capabilities: { emergency_address: true, mms: false, sms: true, voice: true },
  categorised_greetings: { '1': 'voicemail_en', '2': 'available_en' },
  categorised_greetings_with_sub_settings: { '1': { voicemail_on: 'voicemail_en' }, '2': { voicemail_off: 'available_en' } },
  country_code: 'US',
  created_at: '2013-04-13T16:02:33Z',
  default_greeting_ids: ['voicemail_en', 'available_en'],
  default_group_id: 1,
  display_number: '+1 (234) 123-4567',
  external: false,
  failover_number: null,
  greeting_ids: [1],
  group_ids: [1],
  id,
  ivr_id: null,
  line_type: 'phone',
  location: 'CA',
  name: nickname,
  nickname,
  number,
  outbound_enabled: true,
  priority: 0,
  recorded: true,
  schedule_id: 1,
  sms_enabled: true,
  sms_group_id: 1,
  token: 'abc123',
  toll_free: false,
  transcription: true,
  voice_enabled: true,
});
const pn1 = phoneNumber(6, '+12341234567', 'Support line');
const pn2 = phoneNumber(7, '+12341234568', 'Sales line');

const address = {
  city: 'San Francisco',
  country_code: 'US',
  id: 4,
  name: 'Acme HQ',
  provider_reference: 'ADbf98a0e5f2c1d4a3b9c7e6f5a4b3c2d1',
  province: '',
  state: 'California',
  street: '989 Market St',
  zip: '94103',
};
const greeting = {
  active: true,
  audio_name: 'premium-support-greeting.mp3',
  audio_url: '/system/voice/uploads/0000/0002/premium-support-greeting.mp3',
  category_id: 1,
  default: false,
  default_lang: true,
  has_sub_settings: false,
  id: 123,
  ivr_ids: [],
  name: 'Premium Support',
  pending: false,
  phone_number_ids: [6],
  upload_id: 2,
};
const defaultGreeting = { ...greeting, id: 'voicemail_en', name: 'Default (voicemail on)', default: true, audio_name: null, upload_id: null };
const greetingCategory = { id: 1, name: 'voicemail' };
const ivr = {
  id: 10001,
  menus: [
    {
      default: true,
      greeting_id: 10001,
      id: 10001,
      name: 'Main menu',
      routes: [{ action: 'group', greeting: null, id: 10001, keypress: '0', option_text: 'Support Group', options: { group_ids: [10001] } }],
    },
  ],
  name: 'IVR Menu',
  phone_number_ids: [6],
  phone_number_names: ['Support line'],
};
const agentActivity = {
  accepted_third_party_conferences: 0,
  accepted_transfers: 1,
  agent_id: 1,
  agent_state: 'online',
  available_time: 3600,
  avatar_url: 'https://acme.zendesk.com/system/photos/0000/0001/agent.png',
  average_hold_time: 20,
  average_talk_time: 150,
  average_wrap_up_time: 30,
  away_time: 120,
  call_status: null,
  calls_accepted: 10,
  calls_denied: 1,
  calls_missed: 2,
  calls_put_on_hold: 4,
  forwarding_number: null,
  name: 'Johnny Agent',
  online_time: 3900,
  started_third_party_conferences: 0,
  started_transfers: 2,
  total_call_duration: 1800,
  total_hold_time: 80,
  total_talk_time: 1500,
  total_wrap_up_time: 300,
  transfers_only_time: 0,
  via: 'client',
};
const agentsOverview = {
  average_accepted_transfers: 1,
  average_available_time: 3600,
  average_away_time: 120,
  average_calls_accepted: 10,
  average_calls_denied: 1,
  average_calls_missed: 2,
  average_calls_put_on_hold: 4,
  average_hold_time: 20,
  average_online_time: 3900,
  average_started_transfers: 2,
  average_talk_time: 150,
  average_transfers_only_time: 0,
  average_wrap_up_time: 30,
  total_accepted_transfers: 3,
  total_calls_accepted: 30,
  total_calls_denied: 3,
  total_calls_missed: 6,
  total_calls_put_on_hold: 12,
  total_hold_time: 240,
  total_started_transfers: 6,
  total_talk_time: 4500,
  total_wrap_up_time: 900,
};
const accountOverview = {
  average_call_duration: 33,
  average_callback_wait_time: 12,
  average_hold_time: 5,
  average_queue_wait_time: 1,
  average_time_to_answer: 7,
  average_wrap_up_time: 1,
  max_calls_waiting: 1,
  max_queue_wait_time: 10,
  total_call_duration: 41,
  total_callback_calls: 2,
  total_calls: 39,
  total_calls_abandoned_in_queue: 1,
  total_calls_outside_business_hours: 3,
  total_calls_with_exceeded_queue_wait_time: 0,
  total_calls_with_requested_voicemail: 2,
  total_embeddable_callback_calls: 0,
  total_hold_time: 60,
  total_inbound_calls: 30,
  total_outbound_calls: 9,
  total_textback_requests: 1,
  total_voicemails: 12,
  total_wrap_up_time: 11,
};
const currentQueueActivity = {
  agents_online: 12,
  ai_agent_calls: 3,
  average_wait_time: 45,
  callbacks_waiting: 2,
  calls_waiting: 5,
  embeddable_callbacks_waiting: 1,
  longest_wait_time: 120,
};
const call = (id: number, updatedAt: string) => ({
  agent_id: 1,
  call_channel: 'phone',
  call_charge: '0.0015',
  call_group_id: 1,
  call_recording_consent: 'always',
  call_recording_consent_action: null,
  call_recording_consent_keypress: null,
  callback: false,
  callback_source: null,
  completion_status: 'completed',
  consultation_time: 0,
  created_at: '2019-01-16T10:39:19Z',
  customer_id: 1234,
  customer_requested_voicemail: false,
  default_group: true,
  direction: 'inbound',
  duration: 126,
  exceeded_queue_time: false,
  exceeded_queue_wait_time: false,
  hold_time: 0,
  id,
  ivr_action: null,
  ivr_destination_group_name: null,
  ivr_hops: null,
  ivr_routed_to: null,
  ivr_time_spent: null,
  line: '+12341234567',
  line_id: 6,
  line_type: 'phone',
  minutes_billed: 3,
  not_recording_time: 0,
  outside_business_hours: false,
  overflowed: false,
  overflowed_to: null,
  phone_number: '+14155551212',
  phone_number_id: 6,
  quality_issues: ['none'],
  recording_control_interactions: 0,
  recording_time: 120,
  talk_time: 120,
  ticket_id: 35436,
  time_to_answer: 6,
  updated_at: updatedAt,
  voicemail: false,
  wait_time: 6,
  wrap_up_time: 10,
});
const call1 = call(360001381413, '2019-01-16T10:41:25Z');
const call2 = call(360001381414, '2019-01-16T10:45:02Z');
const leg = (id: number, updatedAt: string) => ({
  agent_id: 1,
  available_via: 'client',
  call_charge: '0.0015',
  call_id: 360001381413,
  completion_status: 'completed',
  conference_from: null,
  conference_time: null,
  conference_to: null,
  consultation_from: null,
  consultation_time: null,
  consultation_to: null,
  created_at: '2019-01-16T10:39:19Z',
  duration: 120,
  forwarded_to: null,
  hold_time: 0,
  id,
  minutes_billed: 2,
  quality_issues: ['none'],
  talk_time: 120,
  transferred_from: null,
  transferred_to: null,
  type: 'agent',
  updated_at: updatedAt,
  user_id: 1,
  wrap_up_time: 10,
});
const leg1 = leg(360001381415, '2019-01-16T10:41:25Z');

/** Zendesk's offset-paginated list envelope. */
const envelope = (key: string, records: Rec[], next: string | null = null, previous: string | null = null) => ({
  [key]: records,
  next_page: next,
  previous_page: previous,
  count: records.length,
});

// ---------------------------------------------------------------------------------------------
// list
// ---------------------------------------------------------------------------------------------
// [entity, path under /api/v2/channels/voice, records key, record]
const LISTS: Array<[string, string, string, Rec]> = [
  ['phone_numbers', '/phone_numbers', 'phone_numbers', pn1],
  ['addresses', '/addresses', 'addresses', address],
  ['greetings', '/greetings', 'greetings', greeting],
  ['greeting_categories', '/greeting_categories', 'greeting_categories', greetingCategory],
  ['ivrs', '/ivr', 'ivrs', ivr],
  ['agents_activity', '/stats/agents_activity', 'agents_activity', agentActivity],
];

describe('zendesk-talk list', () => {
  it.each(LISTS)('%s list -> GET /api/v2/channels/voice%s (no params)', async (entity, path, key, record) => {
    const scope = api()
      .get(`${BASE}${path}`)
      .query({})
      .reply(200, envelope(key, [record]));

    const res = await talk().execute(entity, 'list', {});

    expect(res).toEqual({ data: [record], pagination: { next_page: null } });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of phone numbers with the page of the next_page URL', async () => {
    const next = `${HOST}${BASE}/phone_numbers.json?page=2`;
    const scope = api()
      .get(`${BASE}/phone_numbers`)
      .query({})
      .reply(200, { phone_numbers: [pn1], next_page: next, previous_page: null, count: 2 })
      .get(`${BASE}/phone_numbers`)
      .query({ page: '2' })
      .reply(200, { phone_numbers: [pn2], next_page: null, previous_page: `${HOST}${BASE}/phone_numbers.json?page=1`, count: 2 });
    const c = talk();

    const page1 = await c.execute('phone_numbers', 'list', {});
    expect(page1.data).toEqual([pn1]);
    expect(page1.pagination).toEqual({ next_page: next });
    expect(page1.next_params).toEqual({ page: 2 });

    const page2 = await c.execute('phone_numbers', 'list', { ...page1.next_params });
    expect(page2.data).toEqual([pn2]);
    expect(page2.pagination).toEqual({ next_page: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('carries page and per_page of a next_page URL that has both', async () => {
    const next = `${HOST}${BASE}/greetings.json?page=3&per_page=1`;
    const scope = api()
      .get(`${BASE}/greetings`)
      .query({ page: '2', per_page: '1' })
      .reply(200, envelope('greetings', [defaultGreeting], next, `${HOST}${BASE}/greetings.json?page=1&per_page=1`));

    const res = await talk().execute('greetings', 'list', { page: 2, per_page: 1 });

    expect(res.data).toEqual([defaultGreeting]);
    expect(res.pagination).toEqual({ next_page: next });
    expect(res.next_params).toEqual({ page: 3, per_page: 1 });
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a per_page above 100 before any request', async () => {
    const err = await talk()
      .execute('addresses', 'list', { per_page: 101 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'per_page', rule: 'maximum' })]);
  });
});

// ---------------------------------------------------------------------------------------------
// get
// ---------------------------------------------------------------------------------------------
// [entity, path, params, wrapper key, record]
const GETS: Array<[string, string, Rec, string, Rec]> = [
  ['phone_numbers', '/phone_numbers/6', { phone_number_id: 6 }, 'phone_number', pn1],
  ['addresses', '/addresses/4', { address_id: 4 }, 'address', address],
  ['greetings', '/greetings/123', { greeting_id: 123 }, 'greeting', greeting],
  ['greetings', '/greetings/voicemail_en', { greeting_id: 'voicemail_en' }, 'greeting', defaultGreeting],
  ['greeting_categories', '/greeting_categories/1', { greeting_category_id: 1 }, 'greeting_category', greetingCategory],
  ['ivrs', '/ivr/10001', { ivr_id: 10001 }, 'ivr', ivr],
];

describe('zendesk-talk get', () => {
  it.each(GETS)('%s get -> GET /api/v2/channels/voice%s', async (entity, path, params, key, record) => {
    const scope = api()
      .get(`${BASE}${path}`)
      .query({})
      .reply(200, { [key]: record });

    const res = await talk().execute(entity, 'get', params);

    expect(res).toEqual({ data: record });
    expect(scope.isDone()).toBe(true);
  });

  // Stats endpoints answer with one object under a key: get returns it; list returns it as the only
  // record, for clients that list these entities (Airbyte's).
  const STATS: Array<[string, string, Rec]> = [
    ['agents_overview', '/stats/agents_overview', agentsOverview],
    ['account_overview', '/stats/account_overview', accountOverview],
    ['current_queue_activity', '/stats/current_queue_activity', currentQueueActivity],
  ];
  it.each(STATS)('%s get -> GET /api/v2/channels/voice%s (no params)', async (entity, path, record) => {
    const scope = api()
      .get(`${BASE}${path}`)
      .query({})
      .reply(200, { [entity]: record });

    const res = await talk().execute(entity, 'get', {});

    expect(res).toEqual({ data: record });
    expect(scope.isDone()).toBe(true);
  });
  it.each(STATS)('%s list -> GET /api/v2/channels/voice%s returns the object as a list of one', async (entity, path, record) => {
    const scope = api()
      .get(`${BASE}${path}`)
      .query({})
      .reply(200, { [entity]: record });

    const res = await talk().execute(entity, 'list', {});

    expect(res).toEqual({ data: [record] });
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a missing or non-integer phone_number_id before any request', async () => {
    const missing = await talk()
      .execute('phone_numbers', 'get', {})
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).issues).toEqual([expect.objectContaining({ field: 'phone_number_id', rule: 'required' })]);

    const wrongType = await talk()
      .execute('addresses', 'get', { address_id: 'hq' })
      .catch((e: unknown) => e);
    expect(wrongType).toBeInstanceOf(ValidationError);
    expect((wrongType as ValidationError).issues).toEqual([expect.objectContaining({ field: 'address_id', rule: 'type' })]);
  });

  it('maps a 404 to NotFoundError', async () => {
    const scope = api().get(`${BASE}/phone_numbers/999`).reply(404, { error: 'RecordNotFound', description: 'Not found' });

    const err = await talk()
      .execute('phone_numbers', 'get', { phone_number_id: 999 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NotFoundError);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Incremental exports (start_time required by Zendesk, 0 when omitted; next_page always returned)
// ---------------------------------------------------------------------------------------------
describe('zendesk-talk incremental exports', () => {
  it('calls list walks two pages with the start_time of the next_page URL, and ends at a page short of 1000', async () => {
    const next1 = `${HOST}${BASE}/stats/incremental/calls.json?start_time=1547635325`;
    const next2 = `${HOST}${BASE}/stats/incremental/calls.json?start_time=1547635502`;
    // A full page: the exports return at most 1000 records.
    const full = Array.from({ length: 1000 }, (_, i) => ({ ...call1, id: 1000 + i }));
    const scope = api()
      .get(`${BASE}/stats/incremental/calls`)
      .query({ start_time: '1547635159' })
      .reply(200, { calls: full, count: 1000, end_time: 1547635325, next_page: next1 })
      .get(`${BASE}/stats/incremental/calls`)
      .query({ start_time: '1547635325' })
      .reply(200, { calls: [call2], count: 1, end_time: 1547635502, next_page: next2 });
    const c = talk();

    const page1 = await c.execute('calls', 'list', { start_time: 1547635159 });
    expect(page1.data).toEqual(full);
    expect(page1.pagination).toEqual({ next_page: next1 });
    expect(page1.next_params).toEqual({ start_time: 1547635325 });

    const page2 = await c.execute('calls', 'list', { start_time: 1547635159, ...page1.next_params });
    expect(page2.data).toEqual([call2]);
    // Zendesk returns the URL of the next export even when nothing more is available yet (caught up, it may
    // be the URL just requested): the short page ends the walk, and the URL stays in the block for polling.
    expect(page2.pagination).toEqual({ next_page: next2 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('call_legs list reads legs from start_time with the OAuth access token option', async () => {
    const next = `${HOST}${BASE}/stats/incremental/legs.json?start_time=1547635285`;
    const scope = api(`Bearer ${ACCESS_TOKEN}`)
      .get(`${BASE}/stats/incremental/legs`)
      .query({ start_time: '1547635159' })
      .reply(200, { legs: [leg1], count: 1, end_time: 1547635285, next_page: next });

    const res = await talkOAuth().execute('call_legs', 'list', { start_time: 1547635159 });

    expect(res.data).toEqual([leg1]);
    expect(res.pagination).toEqual({ next_page: next });
    // One leg of at most 1000: the export has caught up.
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('exports from start_time 0 (everything) when list is called without params, as the contract has it (Zendesk requires the param)', async () => {
    const scope = api()
      .get(`${BASE}/stats/incremental/calls`)
      .query({ start_time: '0' })
      .reply(200, { calls: [call1], count: 1, end_time: 1547635325, next_page: `${HOST}${BASE}/stats/incremental/calls.json?start_time=1547635325` });
    expect((await talk().execute('calls', 'list', {})).data).toEqual([call1]);
    expect(scope.isDone()).toBe(true);
    const err = await talk()
      .execute('calls', 'list', { start_time: -1 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'start_time', rule: 'minimum' })]);
  });
});

// ---------------------------------------------------------------------------------------------
// Auth options and configuration
// ---------------------------------------------------------------------------------------------
describe('zendesk-talk auth', () => {
  it('sends the OAuth access token as bearer on a list', async () => {
    const scope = api(`Bearer ${ACCESS_TOKEN}`)
      .get(`${BASE}/addresses`)
      .query({})
      .reply(200, envelope('addresses', [address]));

    const res = await talkOAuth().execute('addresses', 'list', {});

    expect(res).toEqual({ data: [address], pagination: { next_page: null } });
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 401 to AuthenticationError', async () => {
    const scope = api().get(`${BASE}/stats/current_queue_activity`).reply(401, { error: "Couldn't authenticate you" });

    const err = await talk()
      .execute('current_queue_activity', 'get', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a subdomain that is not a bare host label', () => {
    expect(() => createConnector('zendesk-talk', { credentials: { email: EMAIL, api_token: API_TOKEN }, config: { subdomain: 'acme.evil.com' } })).toThrow(
      ValidationError,
    );
  });
});
