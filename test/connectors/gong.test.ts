import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConnector, RateLimitedError, ValidationError } from '../../runtime/index.js';

// Gong API v2 with an access key (HTTP basic) or OAuth. Response bodies follow the schemas and examples
// of shared/vendor-specs/gong/openapi.json (UsersMetadata, User, CallsResponse, SpecificCall, Calls,
// Scorecards, AnsweredScorecards).

const API = 'https://api.gong.io';
const ACCESS_KEY = 'WQHT5GYDZX7NKPRL3M2A4BVE';
const ACCESS_KEY_SECRET = 'eyJhbGciOiJIUzI1NiJ9.eyJleHAiOjIwNTQ1NjYyNjAsImFjY2Vzc0tleSI6IldRSFQ1In0.Xq9k';
const BASIC = `Basic ${Buffer.from(`${ACCESS_KEY}:${ACCESS_KEY_SECRET}`).toString('base64')}`;

const gong = () => createConnector('gong', { credentials: { access_key: ACCESS_KEY, access_key_secret: ACCESS_KEY_SECRET }, http: { retries: 0 } });

/** A scope that only matches requests with the access-key basic auth and the JSON accept header. */
const api = (host = API, authorization = BASIC) => nock(host).matchHeader('authorization', authorization).matchHeader('accept', 'application/json');

const REQUEST_ID = '4al018gzaztcr8nbukw';
const records = (o: { total: number; size: number; page: number; cursor?: string }) => ({
  totalRecords: o.total,
  currentPageSize: o.size,
  currentPageNumber: o.page,
  ...(o.cursor !== undefined && { cursor: o.cursor }),
});

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------
const user = {
  id: '234599484848423',
  emailAddress: 'test@test.com',
  created: '2018-02-17T02:30:00-08:00',
  active: true,
  emailAliases: ['testAlias@test.com'],
  trustedEmailAddress: 'test@test.com',
  firstName: 'Jon',
  lastName: 'Snow',
  title: 'Enterprise Account Executive',
  phoneNumber: '+1 123-567-8989',
  extension: '123',
  personalMeetingUrls: ['https://zoom.us/j/1234567890'],
  settings: {
    webConferencesRecorded: true,
    preventWebConferenceRecording: false,
    telephonyCallsImported: false,
    emailsImported: true,
    preventEmailImport: false,
    nonRecordedMeetingsImported: true,
    gongConnectEnabled: true,
  },
  managerId: '563515258458745',
  meetingConsentPageUrl: 'https://join.gong.io/my-company/jon.snow?tkn=MoNpS9tMNt8BK7EZxQpSJl',
  spokenLanguages: [{ language: 'es-ES', primary: true }],
};
const user2 = { ...user, id: '563515258458745', emailAddress: 'arya@test.com', firstName: 'Arya', lastName: 'Stark', title: 'VP Sales', managerId: null };

const call = {
  id: '7782342274025937895',
  url: 'https://app.gong.io/call?id=7782342274025937895',
  title: 'Example call',
  scheduled: '2018-02-18T02:30:00-07:00',
  started: '2018-02-18T02:30:00-07:00',
  duration: 460,
  primaryUserId: '234599484848423',
  direction: 'Inbound',
  system: 'Outreach',
  scope: 'Internal',
  media: 'Video',
  language: 'eng',
  workspaceId: '623457276584334',
  sdrDisposition: 'Got the gatekeeper',
  clientUniqueId: '7JEHFRGXDDZFEW2FC4U',
  customData: 'Conference Call',
  purpose: 'Demo Call',
  meetingUrl: 'https://zoom.us/j/123',
  isPrivate: false,
  calendarEventId: 'abcde@google.com',
};
const call2 = {
  ...call,
  id: '1847293847561029384',
  url: 'https://app.gong.io/call?id=1847293847561029384',
  title: 'Discovery call',
  duration: 1810,
  direction: 'Outbound',
  scope: 'External',
};

const extensiveCall = {
  metaData: call,
  context: [
    {
      system: 'Salesforce',
      objects: [{ objectType: 'Opportunity', objectId: '0013601230sV7grAAC', fields: [{ name: 'Name', value: 'Gong Inc.' }], timing: 'Now' }],
    },
  ],
  parties: [
    {
      id: '56825452554556',
      emailAddress: 'test@test.com',
      name: 'Test User',
      title: 'Enterprise Account Executive',
      userId: '234599484848423',
      speakerId: '6432345678555530067',
      context: [],
      affiliation: 'Internal',
      phoneNumber: '+1 123-567-8989',
      methods: ['Invitee'],
    },
  ],
  content: {
    topics: [{ name: 'Pricing', duration: 125 }],
    trackers: [{ id: '56825452554556', name: 'Competitors', count: 2, type: 'KEYWORD', occurrences: [{ startTime: 32.56, speakerId: '6432345678555530067' }] }],
    brief: 'The customer asked about pricing tiers and the rollout timeline.',
  },
  interaction: {
    speakers: [{ id: '56825452554556', userId: '234599484848423', talkTime: 145.2 }],
    interactionStats: [{ name: 'Interactivity', value: 5.3 }],
    questions: { companyCount: 5, nonCompanyCount: 3 },
  },
  collaboration: { publicComments: [] },
  media: { audioUrl: 'https://gong-audio.s3.amazonaws.com/7782342274025937895.mp3', videoUrl: 'https://gong-video.s3.amazonaws.com/7782342274025937895.mp4' },
};
const extensiveCall2 = { ...extensiveCall, metaData: call2 };

describe('gong users', () => {
  it('list -> GET /v2/users', async () => {
    const scope = api()
      .get('/v2/users')
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 1, size: 1, page: 0 }), users: [user] });

    const res = await gong().execute('users', 'list', {});

    expect(res.data).toEqual([user]);
    expect(res.pagination).toEqual({ cursor: null, total_records: 1, current_page_number: 0 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('get -> GET /v2/users/{id} returns the user object', async () => {
    const scope = api().get(`/v2/users/${user.id}`).reply(200, { requestId: REQUEST_ID, user });

    const res = await gong().execute('users', 'get', { id: user.id });

    expect(res.data).toEqual(user);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages with the cursor query param', async () => {
    const cursor = 'eyJhbGciOiJIUzI1NiJ9.eyJwYWdlU2l6ZSI6MTAwLCJsYXN0SWQiOjIzNDU5OTQ4NDg0ODQyM30.oHb2';
    const scope = api()
      .get('/v2/users')
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 0, cursor }), users: [user] })
      .get('/v2/users')
      .query({ cursor })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 1 }), users: [user2] });
    const conn = gong();

    const p1 = await conn.execute('users', 'list', {});
    expect(p1.data).toEqual([user]);
    expect(p1.pagination).toEqual({ cursor, total_records: 2, current_page_number: 0 });
    expect(p1.next_params).toEqual({ cursor });

    const p2 = await conn.execute('users', 'list', { ...p1.next_params });
    expect(p2.data).toEqual([user2]);
    expect(p2.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 1 });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('gong calls', () => {
  it('list -> GET /v2/calls with fromDateTime and toDateTime', async () => {
    const scope = api()
      .get('/v2/calls')
      .query({ fromDateTime: '2018-02-18T08:00:00Z', toDateTime: '2018-02-19T08:00:00Z' })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 2, page: 0 }), calls: [call, call2] });

    const res = await gong().execute('calls', 'list', { fromDateTime: '2018-02-18T08:00:00Z', toDateTime: '2018-02-19T08:00:00Z' });

    expect(res.data).toEqual([call, call2]);
    expect(res.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 0 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('list without a date range is refused before any request (Gong requires fromDateTime and toDateTime)', async () => {
    const scope = api()
      .get('/v2/calls')
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 1, size: 1, page: 0 }), calls: [call] });

    const err = await gong()
      .execute('calls', 'list', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
      ['fromDateTime', 'required'],
      ['toDateTime', 'required'],
    ]);
    expect(scope.isDone()).toBe(false);
  });

  it('get -> GET /v2/calls/{id} returns the call object', async () => {
    const scope = api().get(`/v2/calls/${call.id}`).reply(200, { requestId: REQUEST_ID, call });

    const res = await gong().execute('calls', 'get', { id: call.id });

    expect(res.data).toEqual(call);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 429 to RateLimitedError with Retry-After', async () => {
    const scope = api()
      .get(`/v2/calls/${call.id}`)
      .reply(429, { requestId: REQUEST_ID, errors: ['API request limit exceeded'] }, { 'Retry-After': '120' });

    const err = await gong()
      .execute('calls', 'get', { id: call.id })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(RateLimitedError);
    expect((err as RateLimitedError).retryAfterSeconds).toBe(120);
    expect(scope.isDone()).toBe(true);
  });
});

describe('gong calls_extensive', () => {
  const filter = { fromDateTime: '2018-02-18T08:00:00Z', toDateTime: '2018-02-19T08:00:00Z', workspaceId: '623457276584334', callIds: [call.id, call2.id] };
  const contentSelector = {
    context: 'Extended',
    contextTiming: ['Now', 'TimeOfCall'],
    exposedFields: {
      parties: true,
      content: { brief: true, topics: true, trackers: true },
      interaction: { speakers: true, questions: true },
      collaboration: { publicComments: true },
      media: true,
    },
  };

  it('list -> POST /v2/calls/extensive with the filter and contentSelector objects', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/calls/extensive', { filter, contentSelector })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 2, page: 0 }), calls: [extensiveCall, extensiveCall2] });

    const res = await gong().execute('calls_extensive', 'list', { filter, contentSelector });

    expect(res.data).toEqual([extensiveCall, extensiveCall2]);
    expect(res.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 0 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages with the cursor in the request body', async () => {
    const cursor = 'eyJhbGciOiJIUzI1NiJ9.eyJjYWxsSWQiOjc3ODIzNDIyNzQwMjU5Mzc4OTV9.Zt3w';
    const byDate = { fromDateTime: '2018-02-18T08:00:00Z', toDateTime: '2018-02-19T08:00:00Z' };
    const scope = api()
      .post('/v2/calls/extensive', { filter: byDate })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 0, cursor }), calls: [extensiveCall] })
      .post('/v2/calls/extensive', { filter: byDate, cursor })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 1 }), calls: [extensiveCall2] });
    const conn = gong();

    const p1 = await conn.execute('calls_extensive', 'list', { filter: byDate });
    expect(p1.data).toEqual([extensiveCall]);
    expect(p1.pagination).toEqual({ cursor, total_records: 2, current_page_number: 0 });
    expect(p1.next_params).toEqual({ cursor });

    const p2 = await conn.execute('calls_extensive', 'list', { filter: byDate, ...p1.next_params });
    expect(p2.data).toEqual([extensiveCall2]);
    expect(p2.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 1 });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('requires filter and rejects unknown filter keys and context values before any request', async () => {
    const scope = nock(API);

    const missing = await gong()
      .execute('calls_extensive', 'list', {})
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).issues).toEqual([expect.objectContaining({ field: 'filter', rule: 'required' })]);

    const wrong = await gong()
      .execute('calls_extensive', 'list', { filter: { fromDate: '2018-02-18' }, contentSelector: { context: 'Full' } })
      .catch((e: unknown) => e);
    expect(wrong).toBeInstanceOf(ValidationError);
    expect((wrong as ValidationError).issues.length).toBeGreaterThanOrEqual(2);
    expect(scope.isDone()).toBe(true);
  });
});

// Gong's Scorecard: its spec types the ids as int64, which reach 19 digits; Gong's other ids are strings.
// One scorecard carries them as strings, the other as (small) numbers: both pass through as sent.
const scorecard = {
  scorecardId: '6843152929075440037',
  scorecardName: 'SDR Call Scorecard',
  workspaceId: '623457276584334',
  enabled: true,
  updaterUserId: '234599484848423',
  created: '2024-01-17T16:20:05-03:00',
  updated: '2024-02-01T12:34:56.834+05:30',
  reviewMethod: 'MANUAL',
  questions: [
    {
      questionId: '1001',
      questionRevisionId: '43955224753211112',
      questionText: "How do you evaluate the SDR's overall performance in the call?",
      isOverall: true,
      questionType: 'RANGE',
      answerGuide: 'Answer is in the small talk',
      minRange: 0,
      maxRange: 50,
      answerOptions: null,
    },
    {
      questionId: '1002',
      questionRevisionId: '43955224753211113',
      questionText: 'Did the SDR mention the product?',
      isOverall: false,
      questionType: 'SINGLE_SELECT',
      answerGuide: null,
      minRange: null,
      maxRange: null,
      answerOptions: [
        { id: 1, text: 'The SDR did not mention the product' },
        { id: 2, text: 'The SDR mentioned the product' },
      ],
    },
  ],
};
const scorecard2 = {
  scorecardId: 4471829,
  scorecardName: 'Automatic Discovery Scorecard',
  workspaceId: 623457276584,
  enabled: false,
  updaterUserId: 563515258458745,
  created: '2020-11-20T21:30:07.233692Z',
  updated: '2020-11-21T08:00:00Z',
  reviewMethod: 'AUTOMATIC',
  questions: [],
};

// Gong's AnsweredScorecard.
const answered = {
  answeredScorecardId: '563515258458745',
  scorecardId: '6843152929075440037',
  scorecardName: 'SDR Call Scorecard',
  callId: '7782342274025937895',
  callStartTime: '2018-02-18T02:30:00-07:00',
  reviewedUserId: '234599484848423',
  reviewerUserId: '563515258458745',
  reviewMethod: 'MANUAL',
  editorUserId: null,
  reviewTime: '2018-02-19T10:30:00Z',
  visibilityType: 'PUBLIC',
  answers: [
    {
      questionId: '1001',
      questionRevisionId: '43955224753211112',
      isOverall: true,
      score: 4,
      answerText: 'Done a great job. Scheduled a follow-up demo.',
      notApplicable: false,
      selectedOptions: null,
    },
    {
      questionId: '1002',
      questionRevisionId: '43955224753211113',
      isOverall: false,
      score: null,
      answerText: null,
      notApplicable: false,
      selectedOptions: ['2'],
    },
  ],
};
const answered2 = {
  ...answered,
  answeredScorecardId: '733525198384216',
  callId: '1847293847561029384',
  callStartTime: '2018-02-20T09:00:00Z',
  reviewerUserId: null,
  reviewMethod: 'AUTOMATIC',
  reviewTime: '2018-02-20T10:05:00Z',
  visibilityType: 'OPT_IN_USERS',
};

describe('gong settings_scorecards', () => {
  it('list -> GET /v2/settings/scorecards returns the scorecards array, all in one answer', async () => {
    const scope = api()
      .get('/v2/settings/scorecards')
      .reply(200, { requestId: REQUEST_ID, scorecards: [scorecard, scorecard2] });

    const res = await gong().execute('settings_scorecards', 'list', {});

    expect(res.data).toEqual([scorecard, scorecard2]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('list refuses a workspaceId before any request (Gong documents no parameter for this list)', async () => {
    const scope = nock(API);

    const err = await gong()
      .execute('settings_scorecards', 'list', { workspaceId: '623457276584334' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([['workspaceId', 'unknown']]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('gong stats_activity_scorecards', () => {
  it('list without params -> POST /v2/stats/activity/scorecards with the empty filter Gong requires', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/stats/activity/scorecards', { filter: {} })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 2, page: 0 }), answeredScorecards: [answered, answered2] });

    const res = await gong().execute('stats_activity_scorecards', 'list', {});

    expect(res.data).toEqual([answered, answered2]);
    expect(res.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 0 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('list sends every filter field as given', async () => {
    const filter = {
      callFromDate: '2019-01-20',
      callToDate: '2019-01-25',
      reviewFromDate: '2019-01-20',
      reviewToDate: '2019-01-26',
      reviewMethod: 'BOTH',
      scorecardIds: ['6843152929075440037'],
      reviewedUserIds: ['234599484848423'],
    };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/stats/activity/scorecards', { filter })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 1, size: 1, page: 0 }), answeredScorecards: [answered] });

    const res = await gong().execute('stats_activity_scorecards', 'list', { filter });

    expect(res.data).toEqual([answered]);
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages with the cursor in the request body', async () => {
    const cursor = 'eyJhbGciOiJIUzI1NiJ9.eyJjYWxsSWQiM1M30.6qKwpOcvnuweTZmFRzYdtjs_YwJphJU4QIwWFM';
    const byReview = { reviewFromDate: '2018-02-01', reviewToDate: '2018-03-01', reviewMethod: 'BOTH' };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/stats/activity/scorecards', { filter: byReview })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 0, cursor }), answeredScorecards: [answered] })
      .post('/v2/stats/activity/scorecards', { filter: byReview, cursor })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 1 }), answeredScorecards: [answered2] });
    const conn = gong();

    const p1 = await conn.execute('stats_activity_scorecards', 'list', { filter: byReview });
    expect(p1.data).toEqual([answered]);
    expect(p1.pagination).toEqual({ cursor, total_records: 2, current_page_number: 0 });
    expect(p1.next_params).toEqual({ cursor });

    const p2 = await conn.execute('stats_activity_scorecards', 'list', { filter: byReview, ...p1.next_params });
    expect(p2.data).toEqual([answered2]);
    expect(p2.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 1 });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('rejects dates other than YYYY-MM-DD, unknown filter keys and review methods before any request', async () => {
    const scope = nock(API);

    const err = await gong()
      .execute('stats_activity_scorecards', 'list', {
        filter: { callFromDate: '2019-01-20T00:00:00Z', fromDateTime: '2019-01-20T00:00:00Z', reviewMethod: 'ALL' },
      })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
      ['filter.fromDateTime', 'unknown'],
      ['filter.callFromDate', 'pattern'],
      ['filter.reviewMethod', 'enum'],
    ]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('gong OAuth2.0 option', () => {
  const CUSTOMER_HOST = 'https://us-55616.api.gong.io';
  const oauthCredentials = { client_id: 'a1b2c3d4e5', client_secret: 'oauth-client-secret-9f8e7d', refresh_token: 'gong-refresh-1' };
  const tokenEndpoint = () =>
    nock('https://app.gong.io')
      .matchHeader('authorization', `Basic ${Buffer.from('a1b2c3d4e5:oauth-client-secret-9f8e7d').toString('base64')}`)
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .post('/oauth2/generate-customer-token', 'grant_type=refresh_token&refresh_token=gong-refresh-1')
      .reply(200, {
        access_token: 'gong-access-2',
        refresh_token: 'gong-refresh-2',
        scope: 'api:calls:read:basic api:calls:read:extensive api:users:read',
        token_type: 'bearer',
        expires_in: 86400,
        api_base_url_for_customer: CUSTOMER_HOST,
      });

  it('refreshes with client credentials in a basic header, reports api_base_url_for_customer, and calls the configured company host', async () => {
    const onTokenRefresh = vi.fn();
    const token = tokenEndpoint();
    const scope = api(CUSTOMER_HOST, 'Bearer gong-access-2')
      .get('/v2/users')
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 1, size: 1, page: 0 }), users: [user] });
    const conn = createConnector('gong', {
      credentials: { option_title: 'OAuth2.0', ...oauthCredentials },
      config: { host: 'us-55616.api.gong.io' },
      onTokenRefresh,
      http: { retries: 0 },
    });

    const res = await conn.execute('users', 'list', {});

    expect(res.data).toEqual([user]);
    expect(onTokenRefresh).toHaveBeenCalledTimes(1);
    expect(onTokenRefresh.mock.calls[0]![0]).toMatchObject({
      access_token: 'gong-access-2',
      refresh_token: 'gong-refresh-2',
      rotated: true,
      kept: { api_base_url_for_customer: CUSTOMER_HOST },
    });
    // Not a credential field of the option: a caller storing the new tokens has nothing more to store.
    expect(onTokenRefresh.mock.calls[0]?.[0]?.keptCredentials).toEqual({});
    expect(token.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it.each(['evil.example', 'api.gong.io.evil.example', 'us-1.api.gong.io/x', 'app.gong.io'])('rejects host %s at creation', (host) => {
    expect(() => createConnector('gong', { credentials: { access_key: ACCESS_KEY, access_key_secret: ACCESS_KEY_SECRET }, config: { host } })).toThrow(
      ValidationError,
    );
  });
});
