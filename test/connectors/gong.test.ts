import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConnector, RateLimitedError, ValidationError } from '../../runtime/index.js';

// Gong API v2 with an access key (HTTP basic) or OAuth. Response bodies follow the schemas and examples
// of shared/vendor-specs/gong/openapi.json (UsersMetadata, User, CallsResponse, SpecificCall, Calls,
// Scorecards, AnsweredScorecards, WorkspacesMetadata, CallTranscripts, CompanyUsersAggregateActivityResponse,
// UsersDayByDayActivity, CompanyUsersIntercationStatsResponse, Trackers, LibraryResponse,
// LibraryFolderListOfCallsResponse, CoachingMetrics).

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

// Gong's WorkspaceMetadata.
const workspace = { id: '623457276584334', name: 'Some Workspace', description: 'This is one of our workspaces' };
const workspace2 = { id: '623457276584335', name: 'EMEA', description: null };

describe('gong workspaces', () => {
  it('list -> GET /v2/workspaces returns the workspaces array, all in one answer', async () => {
    const scope = api()
      .get('/v2/workspaces')
      .reply(200, { requestId: REQUEST_ID, workspaces: [workspace, workspace2] });

    const res = await gong().execute('workspaces', 'list', {});

    expect(res.data).toEqual([workspace, workspace2]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// Gong's CallTranscript: one entry per call, its monologues and their sentences (milliseconds from the call start).
const transcript = {
  callId: '7782342274025937895',
  transcript: [
    {
      speakerId: '6432345678555530067',
      topic: 'Objections',
      sentences: [
        { start: 460230, end: 462343, text: 'No wait, I think we should check that out first.' },
        { start: 462500, end: 464120, text: 'Sure, let me pull up the pricing page.' },
      ],
    },
  ],
};
const transcript2 = {
  callId: '1847293847561029384',
  transcript: [{ speakerId: '6432345678555530068', topic: 'Pricing', sentences: [{ start: 1000, end: 2500, text: 'What does the enterprise tier include?' }] }],
};

describe('gong call_transcripts', () => {
  it('list without params -> POST /v2/calls/transcript with the empty filter Gong requires', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/calls/transcript', { filter: {} })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 2, page: 0 }), callTranscripts: [transcript, transcript2] });

    const res = await gong().execute('call_transcripts', 'list', {});

    expect(res.data).toEqual([transcript, transcript2]);
    expect(res.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 0 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('list sends every filter field as given', async () => {
    const filter = { fromDateTime: '2018-02-17T02:30:00-08:00', toDateTime: '2018-02-19T02:30:00-08:00', workspaceId: '623457276584334', callIds: [call.id] };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/calls/transcript', { filter })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 1, size: 1, page: 0 }), callTranscripts: [transcript] });

    const res = await gong().execute('call_transcripts', 'list', { filter });

    expect(res.data).toEqual([transcript]);
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages with the cursor in the request body', async () => {
    const cursor = 'eyJhbGciOiJIUzI1NiJ9.eyJjYWxsSWQiM1M30.6qKwpOcvnuweTZmFRzYdtjs_YwJphJU4QIwWFM';
    const byDate = { fromDateTime: '2018-02-18T08:00:00Z', toDateTime: '2018-02-19T08:00:00Z' };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/calls/transcript', { filter: byDate })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 0, cursor }), callTranscripts: [transcript] })
      .post('/v2/calls/transcript', { filter: byDate, cursor })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 1 }), callTranscripts: [transcript2] });
    const conn = gong();

    const p1 = await conn.execute('call_transcripts', 'list', { filter: byDate });
    expect(p1.data).toEqual([transcript]);
    expect(p1.pagination).toEqual({ cursor, total_records: 2, current_page_number: 0 });
    expect(p1.next_params).toEqual({ cursor });

    const p2 = await conn.execute('call_transcripts', 'list', { filter: byDate, ...p1.next_params });
    expect(p2.data).toEqual([transcript2]);
    expect(p2.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 1 });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('rejects unknown filter keys and non-numeric call ids before any request', async () => {
    const scope = nock(API);

    const err = await gong()
      .execute('call_transcripts', 'list', { filter: { fromDate: '2018-02-18', callIds: ['call-1'] } })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
      ['filter.fromDate', 'unknown'],
      ['filter.callIds.0', 'pattern'],
    ]);
    expect(scope.isDone()).toBe(true);
  });
});

// Gong's UserActivity, UserDayByDayActivity and InteractionStats: one row per user with activity in the range.
const aggregateActivity = {
  userId: '234599484848423',
  userEmailAddress: 'test@test.com',
  userAggregateActivityStats: {
    callsAsHost: 20,
    callsGaveFeedback: 35,
    callsRequestedFeedback: 77,
    callsReceivedFeedback: 67,
    ownCallsListenedTo: 668,
    othersCallsListenedTo: 96,
    callsSharedInternally: 478,
    callsSharedExternally: 75,
    callsScorecardsFilled: 876,
    callsScorecardsReceived: 876,
    callsAttended: 46,
    callsCommentsGiven: 21,
    callsCommentsReceived: 13,
    callsMarkedAsFeedbackGiven: 24,
    callsMarkedAsFeedbackReceived: 35,
  },
};
const aggregateActivity2 = {
  userId: '563515258458745',
  userEmailAddress: 'arya@test.com',
  userAggregateActivityStats: { ...aggregateActivity.userAggregateActivityStats, callsAsHost: 3, callsAttended: 9 },
};
const dailyActivity = {
  userId: '234599484848423',
  userEmailAddress: 'test@test.com',
  userDailyActivityStats: [
    {
      callsAsHost: ['7782342274025937895'],
      callsGaveFeedback: [],
      callsRequestedFeedback: [],
      callsReceivedFeedback: [],
      ownCallsListenedTo: ['7782342274025937895'],
      othersCallsListenedTo: ['1847293847561029384'],
      callsSharedInternally: [],
      callsSharedExternally: [],
      callsAttended: [],
      callsCommentsGiven: [],
      callsCommentsReceived: [],
      callsMarkedAsFeedbackGiven: [],
      callsMarkedAsFeedbackReceived: [],
      callsScorecardsFilled: [],
      callsScorecardsReceived: [],
      fromDate: '2019-01-20T00:00:00-08:00',
      toDate: '2019-01-21T00:00:00-08:00',
    },
  ],
};
const dailyActivity2 = { ...dailyActivity, userId: '563515258458745', userEmailAddress: 'arya@test.com' };
const interactionStats = {
  userId: '234599484848423',
  userEmailAddress: 'test@test.com',
  personInteractionStats: [
    { name: 'Longest Monologue', value: 141 },
    { name: 'Interactivity', value: 9.23 },
    { name: 'Patience', value: 0.87 },
    { name: 'Question Rate', value: 4.5 },
  ],
};

describe('gong user stats (aggregate, day by day, interaction)', () => {
  const filter = {
    fromDate: '2019-01-20',
    toDate: '2019-01-21',
    createdFromDateTime: '2018-02-17T02:30:00-08:00',
    createdToDateTime: '2018-02-19T08:00:00Z',
    userIds: ['234599484848423', '563515258458745'],
  };

  it('stats_activity_aggregate list -> POST /v2/stats/activity/aggregate with the filter', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/stats/activity/aggregate', { filter })
      .reply(200, {
        requestId: REQUEST_ID,
        records: records({ total: 2, size: 2, page: 0 }),
        usersAggregateActivityStats: [aggregateActivity, aggregateActivity2],
        fromDateTime: '2019-01-20T00:00:00-08:00',
        toDateTime: '2019-01-21T00:00:00-08:00',
        timeZone: 'US/Pacific',
      });

    const res = await gong().execute('stats_activity_aggregate', 'list', { filter });

    expect(res.data).toEqual([aggregateActivity, aggregateActivity2]);
    expect(res.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 0 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('stats_activity_day_by_day walks two pages with the cursor in the request body', async () => {
    const cursor = 'eyJhbGciOiJIUzI1NiJ9.eyJ1c2VySWQiOjIzNDU5OTQ4NDg0ODQyM30.Kd8s';
    const byDays = { fromDate: '2019-01-20', toDate: '2019-01-21' };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/stats/activity/day-by-day', { filter: byDays })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 0, cursor }), usersDetailedActivities: [dailyActivity] })
      .post('/v2/stats/activity/day-by-day', { filter: byDays, cursor })
      .reply(200, { requestId: REQUEST_ID, records: records({ total: 2, size: 1, page: 1 }), usersDetailedActivities: [dailyActivity2] });
    const conn = gong();

    const p1 = await conn.execute('stats_activity_day_by_day', 'list', { filter: byDays });
    expect(p1.data).toEqual([dailyActivity]);
    expect(p1.pagination).toEqual({ cursor, total_records: 2, current_page_number: 0 });
    expect(p1.next_params).toEqual({ cursor });

    const p2 = await conn.execute('stats_activity_day_by_day', 'list', { filter: byDays, ...p1.next_params });
    expect(p2.data).toEqual([dailyActivity2]);
    expect(p2.pagination).toEqual({ cursor: null, total_records: 2, current_page_number: 1 });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('stats_interaction list -> POST /v2/stats/interaction with the filter', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post('/v2/stats/interaction', { filter })
      .reply(200, {
        requestId: REQUEST_ID,
        records: records({ total: 1, size: 1, page: 0 }),
        peopleInteractionStats: [interactionStats],
        fromDateTime: '2019-01-20T00:00:00-08:00',
        toDateTime: '2019-01-21T00:00:00-08:00',
        timeZone: 'US/Pacific',
      });

    const res = await gong().execute('stats_interaction', 'list', { filter });

    expect(res.data).toEqual([interactionStats]);
    expect(res.pagination).toEqual({ cursor: null, total_records: 1, current_page_number: 0 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it.each(['stats_activity_aggregate', 'stats_activity_day_by_day', 'stats_interaction'])(
    '%s requires filter with fromDate and toDate as YYYY-MM-DD before any request',
    async (entity) => {
      const scope = nock(API);

      const missing = await gong()
        .execute(entity, 'list', {})
        .catch((e: unknown) => e);
      expect(missing).toBeInstanceOf(ValidationError);
      expect((missing as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([['filter', 'required']]);

      const noDates = await gong()
        .execute(entity, 'list', { filter: { userIds: ['234599484848423'] } })
        .catch((e: unknown) => e);
      expect(noDates).toBeInstanceOf(ValidationError);
      expect((noDates as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
        ['filter.fromDate', 'required'],
        ['filter.toDate', 'required'],
      ]);

      const badFormats = await gong()
        .execute(entity, 'list', { filter: { fromDate: '2019-01-20T00:00:00Z', toDate: '20.01.2019', createdFromDateTime: 'yesterday' } })
        .catch((e: unknown) => e);
      expect(badFormats).toBeInstanceOf(ValidationError);
      expect((badFormats as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
        ['filter.fromDate', 'pattern'],
        ['filter.toDate', 'pattern'],
        ['filter.createdFromDateTime', 'format'],
      ]);
      expect(scope.isDone()).toBe(true);
    },
  );
});

// Gong's KeywordTracker.
const tracker = {
  trackerId: '6840000929075400007',
  trackerName: 'Competitors',
  workspaceId: '623457276584334',
  languageKeywords: [{ language: 'eng', keywords: ['Chorus', 'Clari'], includeRelatedForms: false }],
  affiliation: 'NonCompany',
  partOfQuestion: false,
  saidAt: 'First',
  saidAtInterval: 10,
  saidAtUnit: 'minutes',
  saidInTopics: ['Pricing'],
  filterQuery: '{"type":"And","filters":[{"type":"CallDirection","terms":["OUTBOUND"]}]}',
  created: '2018-02-17T02:30:00-08:00',
  creatorUserId: '234599484848423',
  updated: '2018-02-17T02:30:00-08:00',
  updaterUserId: '234599484848423',
};
const builtInTracker = {
  ...tracker,
  trackerId: '6840000929075400008',
  trackerName: 'Pricing',
  saidAt: 'Anytime',
  saidAtInterval: null,
  saidAtUnit: null,
  filterQuery: null,
  creatorUserId: null,
  updaterUserId: null,
};

describe('gong settings_trackers', () => {
  it('list -> GET /v2/settings/trackers returns the keywordTrackers array, all in one answer', async () => {
    const scope = api()
      .get('/v2/settings/trackers')
      .reply(200, { requestId: REQUEST_ID, keywordTrackers: [tracker, builtInTracker] });

    const res = await gong().execute('settings_trackers', 'list', {});

    expect(res.data).toEqual([tracker, builtInTracker]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('list sends workspaceId as a query param', async () => {
    const scope = api()
      .get('/v2/settings/trackers')
      .query({ workspaceId: '623457276584334' })
      .reply(200, { requestId: REQUEST_ID, keywordTrackers: [tracker] });

    const res = await gong().execute('settings_trackers', 'list', { workspaceId: '623457276584334' });

    expect(res.data).toEqual([tracker]);
    expect(scope.isDone()).toBe(true);
  });
});

// Gong's LibraryFolder and LibraryCall.
const folder = {
  id: '3843152912968920037',
  name: 'Sales Onboarding',
  parentFolderId: '295738305212375930',
  createdBy: '234599484848423',
  updated: '2020-03-14T05:30:00-08:00',
};
const rootFolder = { id: '295738305212375930', name: 'Library', parentFolderId: null, createdBy: '234599484848423', updated: '2019-11-02T10:00:00Z' };
const libraryCall = {
  id: '7782342274025937895',
  title: 'Example call',
  note: 'sample note',
  addedBy: '234599484848423',
  created: '2020-01-12T14:30:00-08:00',
  url: 'https://app.gong.io/call?id=7782342274025937895&highlights=%5B%7B%22to%22%3A+3240%2C+%22from%22%3A+1200%2C+%22type%22%3A+%22LIBRARY%22%7D%5D',
  snippet: { fromSec: 21, toSec: 132 },
};
const libraryCall2 = { ...libraryCall, id: '1847293847561029384', title: 'Discovery call', note: null, snippet: null };

describe('gong library_folders and library_folder_content', () => {
  it('library_folders list -> GET /v2/library/folders with workspaceId returns the folders array', async () => {
    const scope = api()
      .get('/v2/library/folders')
      .query({ workspaceId: '623457276584334' })
      .reply(200, { requestId: REQUEST_ID, folders: [rootFolder, folder] });

    const res = await gong().execute('library_folders', 'list', { workspaceId: '623457276584334' });

    expect(res.data).toEqual([rootFolder, folder]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('library_folder_content list -> GET /v2/library/folder-content with folderId returns the calls array', async () => {
    const scope = api()
      .get('/v2/library/folder-content')
      .query({ folderId: folder.id })
      .reply(200, {
        requestId: REQUEST_ID,
        id: folder.id,
        name: folder.name,
        createdBy: folder.createdBy,
        updated: folder.updated,
        calls: [libraryCall, libraryCall2],
      });

    const res = await gong().execute('library_folder_content', 'list', { folderId: folder.id });

    expect(res.data).toEqual([libraryCall, libraryCall2]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('library_folder_content refuses a non-numeric folderId and a cursor (gong/openapi.json documents no paging) before any request', async () => {
    const scope = nock(API);

    const err = await gong()
      .execute('library_folder_content', 'list', { folderId: 'Sales Onboarding', cursor: 'eyJhbGciOiJIUzI1NiJ9' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
      ['cursor', 'unknown'],
      ['folderId', 'pattern'],
    ]);
    expect(scope.isDone()).toBe(true);
  });
});

// Gong's CoachingMetricsData: the manager and, per direct report, its metrics (metric name -> call ids).
const coachingData = {
  manager: { id: '563515258458745', emailAddress: 'arya@test.com', firstName: 'Arya', lastName: 'Stark', title: 'VP Sales' },
  directReportsMetrics: [
    {
      report: { id: '234599484848423', emailAddress: 'test@test.com', firstName: 'Jon', lastName: 'Snow', title: 'Enterprise Account Executive' },
      metrics: { callsListened: ['7782342274025937895'], callsCommented: ['7782342274025937895', '1847293847561029384'] },
    },
  ],
};

describe('gong coaching', () => {
  it('list -> GET /v2/coaching with workspace-id, manager-id, from and to', async () => {
    const scope = api()
      .get('/v2/coaching')
      .query({ 'workspace-id': '623457276584334', 'manager-id': '563515258458745', from: '2018-02-18T08:00:00Z', to: '2018-03-18T08:00:00Z' })
      .reply(200, { requestId: REQUEST_ID, coachingData: [coachingData] });

    const res = await gong().execute('coaching', 'list', {
      workspace_id: '623457276584334',
      manager_id: '563515258458745',
      from: '2018-02-18T08:00:00Z',
      to: '2018-03-18T08:00:00Z',
    });

    expect(res.data).toEqual([coachingData]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('list without its required params, or with a non-numeric id, is refused before any request', async () => {
    const scope = nock(API);

    const missing = await gong()
      .execute('coaching', 'list', {})
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([
      ['workspace_id', 'required'],
      ['manager_id', 'required'],
      ['from', 'required'],
      ['to', 'required'],
    ]);

    const badId = await gong()
      .execute('coaching', 'list', { workspace_id: 'emea', manager_id: 563515258458745, from: '2018-02-18T08:00:00Z', to: '2018-03-18T08:00:00Z' })
      .catch((e: unknown) => e);
    expect(badId).toBeInstanceOf(ValidationError);
    expect((badId as ValidationError).issues.map((i) => [i.field, i.rule])).toEqual([['workspace_id', 'pattern']]);
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
