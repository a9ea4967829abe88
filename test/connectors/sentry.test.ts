import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, UpstreamError, ValidationError } from '../../runtime/index.js';

// Sentry web API /api/0 with an auth token as bearer. Response bodies follow the examples of the
// Sentry API reference (docs.sentry.io/api, getsentry/sentry-api-schema).

const HOST = 'https://sentry.io';
const TOKEN = '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';
const ORG = 'the-interstellar-jurisdiction';

type Rec = Record<string, unknown>;

const sentry = (config?: Record<string, string>) =>
  createConnector('sentry', { credentials: { auth_token: TOKEN }, ...(config && { config }), http: { retries: 0 } });

/** A scope that only matches requests with the bearer token and the JSON accept header. */
const api = (host = HOST) => nock(host).matchHeader('authorization', `Bearer ${TOKEN}`).matchHeader('accept', 'application/json');

/** Sentry's Link header: a previous and a next link, each with its results flag and cursor. */
const link = (url: string, next: { cursor: string; results: boolean }, prev = '1735689600000:0:1') =>
  `<${url}?&cursor=${prev}>; rel="previous"; results="false"; cursor="${prev}", ` +
  `<${url}?&cursor=${next.cursor}>; rel="next"; results="${next.results}"; cursor="${next.cursor}"`;

/** The Link header of a last page (next link present but results="false"). */
const lastPage = (path: string) => ({ Link: link(`${HOST}/api/0${path}`, { cursor: '1735689600000:100:0', results: false }) });

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------
const organization = {
  avatar: { avatarType: 'letter_avatar', avatarUuid: null },
  dateCreated: '2018-11-06T21:19:55.101Z',
  features: ['session-replay-video', 'onboarding', 'advanced-search', 'monitor-seat-billing', 'issue-platform'],
  hasAuthProvider: false,
  id: '2',
  isEarlyAdopter: false,
  allowMemberInvite: true,
  allowMemberProjectCreation: true,
  allowSuperuserAccess: false,
  links: { organizationUrl: 'https://the-interstellar-jurisdiction.sentry.io', regionUrl: 'https://us.sentry.io' },
  name: 'The Interstellar Jurisdiction',
  require2FA: false,
  slug: ORG,
  status: { id: 'active', name: 'active' },
};
const organizationDetail = {
  ...organization,
  access: ['member:read', 'org:read', 'project:read', 'event:read', 'team:read', 'project:releases'],
  onboardingTasks: [],
  teams: [{ id: '2', slug: 'powerful-abolitionist', name: 'Powerful Abolitionist' }],
  projects: [{ id: '4505278496', slug: 'pump-station', name: 'Pump Station' }],
};

const project = {
  id: '4505278496',
  slug: 'pump-station',
  name: 'Pump Station',
  platform: 'python',
  dateCreated: '2021-01-14T22:08:52.711809Z',
  isBookmarked: false,
  isMember: true,
  features: ['alert-filters', 'custom-inbound-filters', 'data-forwarding', 'discard-groups', 'minidump', 'rate-limits'],
  firstEvent: '2021-01-14T22:08:52.711809Z',
  firstTransactionEvent: true,
  access: ['member:read', 'event:read', 'project:read', 'team:read'],
  hasAccess: true,
  hasMinifiedStackTrace: false,
  hasMonitors: false,
  hasProfiles: false,
  hasReplays: false,
  hasSessions: false,
  isInternal: false,
  isPublic: false,
  avatar: { avatarType: 'letter_avatar', avatarUuid: null },
  color: '#3f70bf',
  status: 'active',
};
const projectDetail = {
  ...project,
  team: { id: '2', name: 'Powerful Abolitionist', slug: 'powerful-abolitionist' },
  teams: [{ id: '2', name: 'Powerful Abolitionist', slug: 'powerful-abolitionist' }],
  latestRelease: { version: 'backend@3e90a5d9e767ebcfa70e921d7a7ff6c037461168' },
  options: { 'sentry:grouping_auto_update': true, 'sentry:reprocessing_active': false },
  digestsMinDelay: 180,
  digestsMaxDelay: 600,
  subjectPrefix: '[Pump Station]',
  allowedDomains: ['*'],
  resolveAge: 0,
  dataScrubber: true,
  dataScrubberDefaults: true,
  safeFields: [],
  storeCrashReports: null,
  sensitiveFields: [],
  subjectTemplate: '$shortID - $title',
  securityToken: '693faaa24e4611ed9e6b0a8b0d5d0f5a',
  securityTokenHeader: null,
  verifySSL: false,
  scrubIPAddresses: false,
  scrapeJavaScript: true,
  groupingConfig: 'newstyle:2023-01-11',
  groupingEnhancements: '',
  fingerprintingRules: '',
  organization: { id: '2', slug: ORG, name: 'The Interstellar Jurisdiction' },
  plugins: [{ id: 'webhooks', name: 'WebHooks', enabled: false, version: '23.4.0.dev0' }],
  platforms: ['python'],
  processingIssues: 0,
  defaultEnvironment: null,
};

const issue = {
  annotations: [],
  assignedTo: null,
  count: '150',
  culprit: 'raven.scripts.runner in main',
  firstSeen: '2018-11-06T21:19:55Z',
  hasSeen: false,
  id: '1',
  isBookmarked: false,
  isPublic: false,
  isSubscribed: true,
  lastSeen: '2018-11-06T21:19:55Z',
  level: 'error',
  logger: null,
  metadata: { title: 'This is an example Python exception' },
  numComments: 0,
  permalink: 'https://sentry.io/the-interstellar-jurisdiction/pump-station/issues/1/',
  project: { id: '2', name: 'Pump Station', slug: 'pump-station' },
  shareId: null,
  shortId: 'PUMP-STATION-1',
  stats: {
    '24h': [
      [1541455200.0, 473],
      [1541458800.0, 914],
    ],
  },
  status: 'unresolved',
  statusDetails: {},
  subscriptionDetails: null,
  title: 'This is an example Python exception',
  type: 'default',
  userCount: 0,
};
const resolvedIssue = { ...issue, id: '2', shortId: 'PUMP-STATION-2', status: 'resolved', count: '3', title: 'ZeroDivisionError: division by zero' };
const issueDetail = {
  ...issue,
  activity: [{ data: {}, dateCreated: '2018-11-06T21:19:55Z', id: '0', type: 'first_seen', user: null }],
  firstRelease: { version: '17642328ead24b51867165985996d04b29310337', shortVersion: '1764232', dateCreated: '2018-11-06T21:19:55.146Z' },
  lastRelease: null,
  participants: [],
  pluginActions: [],
  pluginContexts: [],
  pluginIssues: [],
  seenBy: [],
  tags: [],
  userReportCount: 0,
};

const event = {
  eventID: '9fac2ceed9344f2bbfdd1fdacb0ed9b1',
  tags: [
    { key: 'browser', value: 'Chrome 60.0' },
    { key: 'environment', value: 'production' },
    { key: 'level', value: 'fatal' },
  ],
  dateCreated: '2020-09-11T17:46:36Z',
  user: null,
  message: '',
  title: 'This is an example Python exception',
  id: 'dfb1a2d057194e76a4186cc8a5271553',
  platform: 'python',
  'event.type': 'error',
  groupID: '1',
  crashFile: null,
  location: 'example.py:123',
  culprit: '/books/new/',
  projectID: '49271',
  metadata: null,
};
const eventDetail = {
  groupID: '1',
  eventID: '9999aaaaca8b46d797c23c6077c6ff01',
  dist: null,
  userReport: null,
  previousEventID: null,
  message: '',
  title: 'This is an example Python exception',
  id: '9999aaaaca8b46d797c23c6077c6ff01',
  size: 107762,
  errors: [{ data: { column: 8, row: 15 }, message: 'Invalid location in sourcemap', type: 'js_invalid_sourcemap_location' }],
  platform: 'javascript',
  nextEventID: '99f9e199e9a74a14bfef6196ad741619',
  type: 'error',
  metadata: { type: 'ForbiddenError', value: 'GET /organizations/hellboy-meowmeow/users/ 403' },
  tags: [{ value: 'Chrome 83.0.4103', key: 'browser', _meta: null }],
  dateCreated: '2020-06-17T22:26:56.098086Z',
  dateReceived: '2020-06-17T22:26:56.428721Z',
  user: { username: null, name: 'Hell Boy', ip_address: '192.168.1.1', email: 'hell@boy.cat', data: { isStaff: false }, id: '550747' },
  entries: [{ type: 'exception', data: { values: [{ type: 'ForbiddenError', value: 'GET /organizations/hellboy-meowmeow/users/ 403' }] } }],
  packages: {},
  sdk: { version: '5.17.0', name: 'sentry.javascript.browser' },
  contexts: { browser: { version: '83.0.4103', type: 'browser', name: 'Chrome' } },
  fingerprints: ['fbe908cc63d63ea9763fd84cb6bad177'],
  context: { resp: { status: 403, responseJSON: { detail: 'You do not have permission to perform this action.' } } },
  release: { version: 'frontend@1.0.0' },
};

const release = {
  id: 2,
  authors: [],
  commitCount: 0,
  data: {},
  dateCreated: '2018-11-06T21:20:08.033Z',
  dateReleased: null,
  deployCount: 0,
  firstEvent: null,
  lastCommit: null,
  lastDeploy: null,
  lastEvent: null,
  newGroups: 0,
  owner: null,
  projects: [{ name: 'Pump Station', slug: 'pump-station' }],
  ref: '6ba09a7c53235ee8a8fa5ee4c1ca8ca886e7fdbb',
  shortVersion: '2.0rc2',
  url: null,
  version: '2.0rc2',
};

const team = {
  id: '48531',
  slug: 'ancient-gabelers',
  name: 'Ancient Gabelers',
  dateCreated: '2018-11-06T21:20:08.115Z',
  isMember: false,
  teamRole: null,
  flags: { 'idp:provisioned': false },
  access: ['member:read', 'alerts:read', 'org:read', 'event:read', 'project:read', 'project:releases', 'event:write', 'team:read'],
  hasAccess: true,
  isPending: false,
  memberCount: 2,
  avatar: { avatarType: 'letter_avatar', avatarUuid: null },
};
const teamDetail = {
  ...team,
  id: '2',
  slug: 'powerful-abolitionist',
  name: 'Powerful Abolitionist',
  teamRole: 'contributor',
  organization: { id: '2', slug: ORG, name: 'The Interstellar Jurisdiction', status: { id: 'active', name: 'active' } },
};

// ---------------------------------------------------------------------------------------------
// Lists: [entity, params, path under /api/0, exact query sent, records returned]
// ---------------------------------------------------------------------------------------------
const LISTS: Array<[string, Rec, string, Record<string, string>, Rec[]]> = [
  ['organizations', { owner: true, sortBy: 'projects' }, '/organizations/', { owner: 'true', sortBy: 'projects' }, [organization]],
  ['projects', { organization_slug: ORG }, `/organizations/${ORG}/projects/`, {}, [project]],
  [
    'issues',
    { organization_slug: ORG, project_slug: 'pump-station', statsPeriod: '14d', shortIdLookup: '1' },
    `/projects/${ORG}/pump-station/issues/`,
    { statsPeriod: '14d', shortIdLookup: '1' },
    [issue],
  ],
  [
    'issue_events',
    { organization_slug: ORG, issue_id: '1', statsPeriod: '24h', environment: ['production', 'staging'], full: true, query: 'release:abc' },
    `/organizations/${ORG}/issues/1/events/`,
    { statsPeriod: '24h', environment: ['production', 'staging'], full: 'true', query: 'release:abc' } as unknown as Record<string, string>,
    [event],
  ],
  [
    'events',
    { organization_slug: ORG, project_slug: 'pump-station', statsPeriod: '95m', full: 'true', sample: false },
    `/projects/${ORG}/pump-station/events/`,
    { statsPeriod: '95m', full: 'true', sample: 'false' },
    [event],
  ],
  ['releases', { organization_slug: ORG, query: '2.0' }, `/organizations/${ORG}/releases/`, { query: '2.0' }, [release]],
  ['teams', { organization_slug: ORG, detailed: '0' }, `/organizations/${ORG}/teams/`, { detailed: '0' }, [team]],
];

describe('sentry list', () => {
  it.each(LISTS)('%s list', async (entity, params, path, query, records) => {
    const scope = api().get(`/api/0${path}`).query(query).reply(200, records, lastPage(path));

    const res = await sentry().execute(entity, 'list', params);

    expect(res.data).toEqual(records);
    expect(res.pagination).toEqual({ next: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('treats a response without a Link header as the last page', async () => {
    const scope = api().get(`/api/0/organizations/${ORG}/teams/`).reply(200, [team]);

    const res = await sentry().execute('teams', 'list', { organization_slug: ORG });

    expect(res.data).toEqual([team]);
    expect(res.pagination).toEqual({ next: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Gets: [entity, action, params, path under /api/0, exact query, record]
// ---------------------------------------------------------------------------------------------
const GETS: Array<[string, string, Rec, string, Record<string, string>, Rec]> = [
  ['organizations', 'get', { organization_slug: ORG, detailed: '0' }, `/organizations/${ORG}/`, { detailed: '0' }, organizationDetail],
  ['projects', 'get', { organization_slug: ORG, project_slug: 'pump-station' }, `/projects/${ORG}/pump-station/`, {}, projectDetail],
  ['projects', 'project_detail', { organization_slug: ORG, project_slug: 'pump-station' }, `/projects/${ORG}/pump-station/`, {}, projectDetail],
  // Airbyte's clients call the same read as the entity project_detail.
  ['project_detail', 'get', { organization_slug: ORG, project_slug: 'pump-station' }, `/projects/${ORG}/pump-station/`, {}, projectDetail],
  ['issues', 'get', { organization_slug: ORG, issue_id: '1' }, `/organizations/${ORG}/issues/1/`, {}, issueDetail],
  [
    'issue_events',
    'get',
    { organization_slug: ORG, issue_id: '1', event_id: '9999aaaaca8b46d797c23c6077c6ff01' },
    `/organizations/${ORG}/issues/1/events/9999aaaaca8b46d797c23c6077c6ff01/`,
    {},
    eventDetail,
  ],
  [
    'issue_events',
    'get',
    { organization_slug: ORG, issue_id: '1', event_id: 'latest', environment: ['production'] },
    `/organizations/${ORG}/issues/1/events/latest/`,
    { environment: 'production' },
    eventDetail,
  ],
  [
    'events',
    'get',
    { organization_slug: ORG, project_slug: 'pump-station', event_id: '9999aaaaca8b46d797c23c6077c6ff01' },
    `/projects/${ORG}/pump-station/events/9999aaaaca8b46d797c23c6077c6ff01/`,
    {},
    eventDetail,
  ],
  [
    'releases',
    'get',
    { organization_slug: ORG, version: 'backend@1.2.0+45' },
    `/organizations/${ORG}/releases/backend%401.2.0%2B45/`,
    {},
    { ...release, version: 'backend@1.2.0+45' },
  ],
  [
    'teams',
    'get',
    { organization_slug: ORG, team_slug: 'powerful-abolitionist', expand: 'projects', collapse: 'organization' },
    `/teams/${ORG}/powerful-abolitionist/`,
    { expand: 'projects', collapse: 'organization' },
    teamDetail,
  ],
];

describe('sentry get', () => {
  it.each(GETS)('%s %s', async (entity, action, params, path, query, record) => {
    const scope = api().get(`/api/0${path}`).query(query).reply(200, record);

    const res = await sentry().execute(entity, action, params);

    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('project_detail returns the fields that the listing omits', async () => {
    const listScope = api()
      .get(`/api/0/organizations/${ORG}/projects/`)
      .reply(200, [project], lastPage(`/organizations/${ORG}/projects/`));
    const detailScope = api().get(`/api/0/projects/${ORG}/pump-station/`).reply(200, projectDetail);
    const conn = sentry();

    const listed = (await conn.execute('projects', 'list', { organization_slug: ORG })).data as Rec[];
    const detail = (await conn.execute('projects', 'project_detail', { organization_slug: ORG, project_slug: 'pump-station' })).data as Rec;

    expect(listed[0]).not.toHaveProperty('options');
    expect(detail).toMatchObject({ options: projectDetail.options, organization: projectDetail.organization, teams: projectDetail.teams });
    expect(listScope.isDone()).toBe(true);
    expect(detailScope.isDone()).toBe(true);
  });
});

describe('sentry issues query', () => {
  const path = `/api/0/projects/${ORG}/pump-station/issues/`;
  const base = { organization_slug: ORG, project_slug: 'pump-station' };

  it('sends no query when omitted, so Sentry applies its default is:unresolved', async () => {
    const scope = api()
      .get(path)
      .query((q) => Object.keys(q).length === 0)
      .reply(200, [issue], lastPage(`/projects/${ORG}/pump-station/issues/`));

    const res = await sentry().execute('issues', 'list', base);

    expect(res.data).toEqual([issue]);
    expect(scope.isDone()).toBe(true);
  });

  it('sends an explicit empty query as query= (every status) and an empty statsPeriod', async () => {
    const scope = api()
      .get(path)
      .query((q) => JSON.stringify(q) === JSON.stringify({ query: '', statsPeriod: '' }))
      .reply(200, [issue, resolvedIssue], lastPage(`/projects/${ORG}/pump-station/issues/`));

    const res = await sentry().execute('issues', 'list', { ...base, query: '', statsPeriod: '' });

    expect(res.data).toEqual([issue, resolvedIssue]);
    expect(scope.isDone()).toBe(true);
  });

  it('sends a structured search query as given', async () => {
    const scope = api()
      .get(path)
      .query({ query: 'is:resolved level:error' })
      .reply(200, [resolvedIssue], lastPage(`/projects/${ORG}/pump-station/issues/`));

    const res = await sentry().execute('issues', 'list', { ...base, query: 'is:resolved level:error' });

    expect(res.data).toEqual([resolvedIssue]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a statsPeriod other than 24h, 14d or "" before any request', async () => {
    const scope = nock(HOST);

    const err = await sentry()
      .execute('issues', 'list', { ...base, statsPeriod: '7d' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'statsPeriod', rule: 'enum' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects issues list without project_slug', async () => {
    const err = await sentry()
      .execute('issues', 'list', { organization_slug: ORG })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'project_slug', rule: 'required' })]);
  });
});

describe('sentry pagination (Link header, rel="next" with results="true")', () => {
  it('walks two pages of issues with the cursor of the next link', async () => {
    const path = `/projects/${ORG}/pump-station/issues/`;
    const url = `${HOST}/api/0${path}`;
    const scope = api()
      .get(`/api/0${path}`)
      .query({ query: '' })
      .reply(200, [issue], { Link: link(url, { cursor: '1735689600000:100:0', results: true }) })
      .get(`/api/0${path}`)
      .query({ query: '', cursor: '1735689600000:100:0' })
      .reply(200, [resolvedIssue], { Link: link(url, { cursor: '1735689600000:200:0', results: false }, '1735689600000:0:1') });
    const conn = sentry();
    const params = { organization_slug: ORG, project_slug: 'pump-station', query: '' };

    const p1 = await conn.execute('issues', 'list', params);
    expect(p1.data).toEqual([issue]);
    expect(p1.pagination).toEqual({ next: '1735689600000:100:0' });
    expect(p1.next_params).toEqual({ cursor: '1735689600000:100:0' });

    const p2 = await conn.execute('issues', 'list', { ...params, ...p1.next_params });
    expect(p2.data).toEqual([resolvedIssue]);
    expect(p2.pagination).toEqual({ next: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it("walks two pages of an issue's events", async () => {
    const path = `/organizations/${ORG}/issues/1/events/`;
    const url = `${HOST}/api/0${path}`;
    const second = { ...event, id: 'a1b2c3d4e5f60718293a4b5c6d7e8f90', eventID: 'a1b2c3d4e5f60718293a4b5c6d7e8f90' };
    const scope = api()
      .get(`/api/0${path}`)
      .reply(200, [event], { Link: link(url, { cursor: '0:100:0', results: true }, '0:0:1') })
      .get(`/api/0${path}`)
      .query({ cursor: '0:100:0' })
      .reply(200, [second], { Link: link(url, { cursor: '0:200:0', results: false }, '0:0:1') });
    const conn = sentry();

    const p1 = await conn.execute('issue_events', 'list', { organization_slug: ORG, issue_id: '1' });
    expect(p1.pagination).toEqual({ next: '0:100:0' });
    expect(p1.next_params).toEqual({ cursor: '0:100:0' });
    const p2 = await conn.execute('issue_events', 'list', { organization_slug: ORG, issue_id: '1', ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a next link to another host', async () => {
    const scope = api()
      .get(`/api/0/organizations/${ORG}/projects/`)
      .reply(200, [project], { Link: link('https://evil.example/api/0/organizations/x/projects/', { cursor: '0:100:0', results: true }) });

    const err = await sentry()
      .execute('projects', 'list', { organization_slug: ORG })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(UpstreamError);
    expect(scope.isDone()).toBe(true);
  });
});

describe('sentry host config', () => {
  it('calls a self-hosted Sentry at the configured host', async () => {
    const selfHosted = 'https://sentry.example.com';
    const scope = api(selfHosted)
      .get(`/api/0/organizations/${ORG}/projects/`)
      .reply(200, [project], { Link: link(`${selfHosted}/api/0/organizations/${ORG}/projects/`, { cursor: '0:100:0', results: true }) })
      .get(`/api/0/organizations/${ORG}/projects/`)
      .query({ cursor: '0:100:0' })
      .reply(200, [], { Link: link(`${selfHosted}/api/0/organizations/${ORG}/projects/`, { cursor: '0:200:0', results: false }) });
    const conn = sentry({ host: 'sentry.example.com' });

    const p1 = await conn.execute('projects', 'list', { organization_slug: ORG });
    expect(p1.data).toEqual([project]);
    expect(p1.next_params).toEqual({ cursor: '0:100:0' });
    const p2 = await conn.execute('projects', 'list', { organization_slug: ORG, ...p1.next_params });
    expect(p2.data).toEqual([]);
    expect(p2.pagination).toEqual({ next: null });
    expect(scope.isDone()).toBe(true);
  });

  it.each(['evil.example/x', 'user@evil.example', 'sentry.io:8443', 'sentry', 'https://sentry.io'])('rejects host %s at creation', (host) => {
    expect(() => sentry({ host })).toThrow(ValidationError);
  });
});
