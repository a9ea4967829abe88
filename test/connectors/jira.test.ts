import { afterEach, beforeAll, afterAll, describe, expect, it } from 'vitest';
import nock from 'nock';
import { createConnector, ValidationError, AuthenticationError, NotFoundError } from '../../runtime/index.js';

// Jira Cloud platform REST v3 on https://acme.atlassian.net, basic auth email:api_token.
const BASE = 'https://acme.atlassian.net';
const EMAIL = 'ana@acme.com';
const TOKEN = 'ATATT3xFfGF0-test-token';
const AUTH = `Basic ${Buffer.from(`${EMAIL}:${TOKEN}`).toString('base64')}`;

const jira = () =>
  createConnector('jira', {
    credentials: { email: EMAIL, api_token: TOKEN },
    config: { subdomain: 'acme' },
    http: { retries: 0 },
  });

/** Every request must carry the basic auth header. */
const api = () => nock(BASE).matchHeader('authorization', AUTH);

// Requests that nock could not match (with net connect disabled nothing else can leave).
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
// Fixtures, adapted from the examples of the vendor spec (swagger-v3.v3.json).
// ---------------------------------------------------------------------------------------------
const mia = {
  accountId: '5b10a2844c20165700ede21g',
  active: false,
  displayName: 'Mia Krystof',
  self: `${BASE}/rest/api/3/user?accountId=5b10a2844c20165700ede21g`,
};

const adf = (text: string) => ({
  type: 'doc',
  version: 1,
  content: [{ type: 'paragraph', content: [{ type: 'text', text }] }],
});

const issue = (id: string, key: string, summary: string) => ({
  expand: '',
  id,
  key,
  self: `${BASE}/rest/api/3/issue/${id}`,
  fields: {
    summary,
    status: { name: 'Open', iconUrl: `${BASE}/images/icons/statuses/open.png` },
    assignee: mia,
    project: { id: '10000', key: 'ABC', name: 'Alphabetical', self: `${BASE}/rest/api/3/project/ABC` },
    created: '2023-06-24T19:24:50.000+0000',
    updated: '2023-06-25T08:01:12.000+0000',
  },
});
const i1 = issue('10002', 'ABC-1', 'Main order flow broken');
const i2 = issue('10003', 'ABC-2', 'Checkout button misaligned');
const i3 = issue('10004', 'ABC-3', 'Invoice totals rounded twice');

const project = (id: string, key: string, name: string) => ({
  avatarUrls: {
    '16x16': `${BASE}/secure/projectavatar?size=xsmall&pid=${id}`,
    '48x48': `${BASE}/secure/projectavatar?size=large&pid=${id}`,
  },
  id,
  insight: { lastIssueUpdateTime: '2021-04-22T05:37:05.000+0000', totalIssueCount: 100 },
  key,
  name,
  projectCategory: {
    description: 'First Project Category',
    id: '10000',
    name: 'FIRST',
    self: `${BASE}/rest/api/3/projectCategory/10000`,
  },
  self: `${BASE}/rest/api/3/project/${key}`,
  simplified: false,
  style: 'classic',
});
const p1 = project('10000', 'EX', 'Example');
const p2 = project('10001', 'ABC', 'Alphabetical');
const p3 = project('10002', 'OPS', 'Operations');

const emma = {
  accountId: '5b10ac8d82e05b22cc7d4ef5',
  accountType: 'atlassian',
  active: true,
  avatarUrls: {
    '16x16': 'https://avatar-management--avatars.server-location.prod.public.atl-paas.net/initials/ER-3.png?size=16&s=16',
  },
  displayName: 'Emma Richards',
  key: '',
  name: '',
  self: `${BASE}/rest/api/3/user?accountId=5b10ac8d82e05b22cc7d4ef5`,
};

const field = {
  clauseNames: ['summary'],
  custom: false,
  id: 'summary',
  key: 'summary',
  name: 'Summary',
  navigable: true,
  orderable: true,
  schema: { system: 'summary', type: 'string' },
  searchable: true,
};
const customField = {
  clauseNames: ['cf[10101]', 'Story points'],
  custom: true,
  id: 'customfield_10101',
  key: 'customfield_10101',
  name: 'Story points',
  navigable: true,
  orderable: true,
  schema: { custom: 'com.atlassian.jira.plugin.system.customfieldtypes:float', customId: 10101, type: 'number' },
  searchable: true,
};

const comment = {
  author: mia,
  body: adf('Lorem ipsum dolor sit amet, consectetur adipiscing elit.'),
  created: '2021-01-17T12:34:00.000+0000',
  id: '10000',
  self: `${BASE}/rest/api/3/issue/10010/comment/10000`,
  updateAuthor: mia,
  updated: '2021-01-18T23:45:00.000+0000',
  visibility: { identifier: 'Administrators', type: 'role', value: 'Administrators' },
};

const worklog = {
  author: mia,
  comment: adf('I did some work here.'),
  id: '100028',
  issueId: '10002',
  self: `${BASE}/rest/api/3/issue/10010/worklog/10000`,
  started: '2021-01-17T12:34:00.000+0000',
  timeSpent: '3h 20m',
  timeSpentSeconds: 12000,
  updateAuthor: mia,
  updated: '2021-01-18T23:45:00.000+0000',
  visibility: { identifier: '276f955c-63d7-42c8-9520-92d01dca0625', type: 'group', value: 'jira-developers' },
};

const transition = {
  hasScreen: false,
  id: '2',
  isAvailable: true,
  isConditional: false,
  isGlobal: false,
  isInitial: false,
  name: 'Close Issue',
  to: {
    description: 'The issue is closed.',
    iconUrl: `${BASE}/images/icons/closed.gif`,
    id: '5',
    name: 'Closed',
    self: `${BASE}/rest/api/3/status/5`,
    statusCategory: { colorName: 'green', id: 9, key: 'done', self: `${BASE}/rest/api/3/statuscategory/9` },
  },
};
const transition2 = {
  hasScreen: true,
  id: '711',
  name: 'QA Review',
  to: {
    description: 'The issue is currently being worked on.',
    iconUrl: `${BASE}/images/icons/progress.gif`,
    id: '10000',
    name: 'In Progress',
    self: `${BASE}/rest/api/3/status/10000`,
    statusCategory: { colorName: 'yellow', id: 1, key: 'in-flight', name: 'In Progress', self: `${BASE}/rest/api/3/statuscategory/1` },
  },
};

const issueLink = {
  id: '10001',
  inwardIssue: {
    fields: { status: { name: 'Closed', id: '5' } },
    id: '10004',
    key: 'PR-3',
    self: `${BASE}/rest/api/3/issue/PR-3`,
  },
  outwardIssue: {
    fields: { status: { name: 'In Progress', id: '10000' } },
    id: '10005',
    key: 'PR-2',
    self: `${BASE}/rest/api/3/issue/PR-2`,
  },
  type: {
    id: '1000',
    inward: 'Duplicated by',
    name: 'Duplicate',
    outward: 'Duplicates',
    self: `${BASE}/rest/api/3/issueLinkType/1000`,
  },
};

// ---------------------------------------------------------------------------------------------
// issues.api_search (GET /rest/api/3/search/jql, next_page_token pagination, bounded JQL guard)
// ---------------------------------------------------------------------------------------------
describe('jira issues.api_search', () => {
  it('walks two pages with nextPageToken and next_params', async () => {
    const scope = api()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = ABC ORDER BY created DESC', maxResults: '2', fields: 'summary,status,assignee' })
      .reply(200, { issues: [i1, i2], nextPageToken: 'CAEaAggD', isLast: false })
      .get('/rest/api/3/search/jql')
      .query({
        jql: 'project = ABC ORDER BY created DESC',
        maxResults: '2',
        fields: 'summary,status,assignee',
        nextPageToken: 'CAEaAggD',
      })
      .reply(200, { issues: [i3], isLast: true });

    const c = jira();
    const params = { jql: 'project = ABC ORDER BY created DESC', maxResults: 2, fields: 'summary,status,assignee' };
    const page1 = await c.execute('issues', 'api_search', params);
    expect(page1.data).toEqual([i1, i2]);
    expect(page1.pagination).toEqual({ nextPageToken: 'CAEaAggD', isLast: false, total: null });
    expect(page1.next_params).toEqual({ nextPageToken: 'CAEaAggD' });

    const page2 = await c.execute('issues', 'api_search', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([i3]);
    expect(page2.pagination).toEqual({ nextPageToken: null, isLast: true, total: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('sends every search param on the query string', async () => {
    const scope = api()
      .get('/rest/api/3/search/jql')
      .query({
        jql: 'assignee = currentUser()',
        maxResults: '5000',
        fields: '*navigable,-comment',
        expand: 'renderedFields,names',
        properties: 'p1,p2,p3,p4,p5',
        fieldsByKeys: 'true',
        failFast: 'false',
      })
      .reply(200, { issues: [i1], isLast: true });

    const res = await jira().execute('issues', 'api_search', {
      jql: 'assignee = currentUser()',
      maxResults: 5000,
      fields: '*navigable,-comment',
      expand: 'renderedFields,names',
      properties: 'p1,p2,p3,p4,p5',
      fieldsByKeys: true,
      failFast: false,
    });
    expect(res.data).toEqual([i1]);
    expect(res.pagination).toEqual({ nextPageToken: null, isLast: true, total: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('issues list takes one project id or key, sent as project = <project>, and no other JQL', async () => {
    const scope = api()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = ABC_2', fields: '*navigable' })
      .reply(200, { issues: [i1], isLast: true });
    expect((await jira().execute('issues', 'list', { project: 'ABC_2' })).data).toEqual([i1]);
    expect(scope.isDone()).toBe(true);
    for (const project of ['ABC OR created >= -3650d', 'ABC ORDER BY created', '10001 AND updated >= "-90m" OR project = XYZ', '"My project"']) {
      const error = (await jira()
        .execute('issues', 'list', { project })
        .catch((e: unknown) => e)) as ValidationError;
      expect(error, project).toBeInstanceOf(ValidationError);
      expect(error.issues.map((i) => [i.field, i.rule])).toEqual([['project', 'pattern']]);
    }
  });

  it.each([
    'project = ABC',
    'assignee = currentUser()',
    'key = ABC-1',
    'sprint = 5',
    'project = ABC AND created >= -7d',
    // JQL's symbol spellings of AND / NOT, and negations that cancel out
    'status = Done && project = ABC',
    'status = Done & project = ABC',
    'status = Done AND !(status = Open) AND project = ABC',
    'NOT NOT project = ABC',
    'NOT project != ABC',
    'NOT (status = Done OR project not in (ABC))',
    'project = ABC || assignee = currentUser()',
  ])('accepts the bounded JQL %j', async (jql) => {
    const scope = api()
      .get('/rest/api/3/search/jql')
      .query({ jql })
      .reply(200, { issues: [i1], isLast: true });
    const res = await jira().execute('issues', 'api_search', { jql });
    expect(res.data).toEqual([i1]);
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    'order by created DESC',
    '',
    'created >= -7d',
    // JQL's symbol spellings of OR: one branch is unrestricted
    'project = ABC || status = Done',
    'project = ABC | status = Done',
    'project = ABC||status = Done',
    '!(project = ABC)',
    'NOT NOT NOT project = ABC',
    'NOT (project = ABC && status = Done)',
  ])('rejects the unbounded JQL %j before any request, explaining the bound needed', async (jql) => {
    const scope = api().get('/rest/api/3/search/jql').query({ jql }).reply(200, { issues: [], isLast: true });
    const err = await jira()
      .execute('issues', 'api_search', { jql })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    const v = err as InstanceType<typeof ValidationError>;
    expect(v.issues).toEqual([expect.objectContaining({ field: 'jql', rule: 'bounded_jql' })]);
    // The message tells which restriction makes the query bounded.
    expect(v.message).toMatch(/project/i);
    expect(v.message).toMatch(/assignee|reporter|key|sprint/i);
    expect(v.message).not.toMatch(/\.\.$/);
    expect(v.issues[0]?.message).not.toMatch(/\.$/);
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(false); // the request was never sent
  });

  it('rejects a search without jql (unbounded) before any request', async () => {
    const err = await jira()
      .execute('issues', 'api_search', { maxResults: 10 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'jql', rule: 'bounded_jql' })]);
    expect(unmatched).toEqual([]);
  });

  it('rejects maxResults above 5000 and more than 5 property keys, with every violation', async () => {
    const scope = api()
      .get('/rest/api/3/search/jql')
      .query({ jql: 'project = ABC', maxResults: '5001', properties: 'p1,p2,p3,p4,p5,p6' })
      .reply(200, { issues: [], isLast: true });
    const err = await jira()
      .execute('issues', 'api_search', {
        jql: 'project = ABC',
        maxResults: 5001,
        properties: 'p1,p2,p3,p4,p5,p6',
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as InstanceType<typeof ValidationError>).issues;
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'maxResults', rule: 'maximum' }),
        expect.objectContaining({ field: 'properties', rule: 'pattern' }),
      ]),
    );
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// issues create / get / update / delete
// ---------------------------------------------------------------------------------------------
describe('jira issues CRUD', () => {
  it('create posts fields and update exactly as Jira expects', async () => {
    const fields = {
      project: { key: 'ABC' },
      issuetype: { name: 'Bug' },
      summary: 'Main order flow broken',
      description: adf('Order entry fails when selecting supplier.'),
      priority: { id: '2' },
      assignee: { accountId: emma.accountId },
      labels: ['bugfix', 'blitz_test'],
      parent: { key: 'ABC-100' },
      customfield_10101: 3,
    };
    const created = {
      id: '10000',
      key: 'ABC-24',
      self: `${BASE}/rest/api/3/issue/10000`,
      transition: { status: 200, errorCollection: { errorMessages: [], errors: {} } },
    };
    const scope = api()
      .post('/rest/api/3/issue', { fields, update: { labels: [{ add: 'triaged' }] } })
      .query({ updateHistory: 'true' })
      .reply(201, created);

    const res = await jira().execute('issues', 'create', {
      fields,
      update: { labels: [{ add: 'triaged' }] },
      updateHistory: true,
    });
    expect(res.data).toEqual(created);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('create requires project, issuetype and summary inside fields', async () => {
    const scope = api().post('/rest/api/3/issue').reply(201, {});
    const err = await jira()
      .execute('issues', 'create', { fields: { project: { key: 'ABC' } } })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(false);
  });

  it('get reads one issue with its query params', async () => {
    const scope = api()
      .get('/rest/api/3/issue/ABC-1')
      .query({
        fields: 'summary,comment',
        expand: 'renderedFields,changelog',
        properties: '*all,-prop1',
        fieldsByKeys: 'false',
        updateHistory: 'true',
        failFast: 'true',
      })
      .reply(200, i1);
    const res = await jira().execute('issues', 'get', {
      issueIdOrKey: 'ABC-1',
      fields: 'summary,comment',
      expand: 'renderedFields,changelog',
      properties: '*all,-prop1',
      fieldsByKeys: false,
      updateHistory: true,
      failFast: true,
    });
    expect(res.data).toEqual(i1);
    expect(scope.isDone()).toBe(true);
  });

  it('get without issueIdOrKey is rejected as required', async () => {
    const err = await jira()
      .execute('issues', 'get', {})
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'issueIdOrKey', rule: 'required' })]),
    );
    expect(unmatched).toEqual([]);
  });

  it('update sends the body as-is (null assignee preserved) and returns {} on 204', async () => {
    const body = {
      fields: { summary: 'Completed orders still displaying in pending', assignee: { accountId: null } },
      update: { labels: [{ add: 'triaged' }, { remove: 'blocker' }] },
      transition: { id: '5' },
    };
    const scope = api()
      .put('/rest/api/3/issue/ABC-1', body)
      .query({ notifyUsers: 'false', overrideScreenSecurity: 'false', overrideEditableFlag: 'false' })
      .reply(204);
    const res = await jira().execute('issues', 'update', {
      issueIdOrKey: 'ABC-1',
      ...body,
      notifyUsers: false,
      overrideScreenSecurity: false,
      overrideEditableFlag: false,
    });
    expect(res.data).toEqual({});
    expect(scope.isDone()).toBe(true);
  });

  it('update with returnIssue=true returns the edited issue', async () => {
    const edited = { ...i1, fields: { ...i1.fields, summary: 'Renamed' } };
    const scope = api()
      .put('/rest/api/3/issue/10002', { fields: { summary: 'Renamed' } })
      .query({ returnIssue: 'true', expand: 'renderedFields' })
      .reply(200, edited);
    const res = await jira().execute('issues', 'update', {
      issueIdOrKey: '10002',
      fields: { summary: 'Renamed' },
      returnIssue: true,
      expand: 'renderedFields',
    });
    expect(res.data).toEqual(edited);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an edit or a worklog update that changes nothing before calling Jira (its request body is required)', async () => {
    const edit = await jira()
      .execute('issues', 'update', { issueIdOrKey: 'ABC-1' })
      .catch((e: unknown) => e);
    expect(edit).toBeInstanceOf(ValidationError);
    expect((edit as ValidationError).issues).toEqual([
      expect.objectContaining({ field: 'params', rule: 'at_least_one_of', limit: ['fields', 'update', 'transition'] }),
    ]);
    const worklog = await jira()
      .execute('issue_worklogs', 'update', { issueIdOrKey: 'ABC-1', id: '100028', notifyUsers: false })
      .catch((e: unknown) => e);
    expect((worklog as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
  });

  it('delete sends deleteSubtasks and returns {} on 204', async () => {
    const scope = api().delete('/rest/api/3/issue/ABC-1').query({ deleteSubtasks: 'true' }).reply(204);
    const res = await jira().execute('issues', 'delete', { issueIdOrKey: 'ABC-1', deleteSubtasks: true });
    expect(res.data).toEqual({});
    expect(scope.isDone()).toBe(true);
  });

  it('maps 404 to NotFoundError and 401 to AuthenticationError', async () => {
    const scope = api()
      .get('/rest/api/3/issue/ABC-404')
      .reply(404, { errorMessages: ['Issue does not exist or you do not have permission to see it.'], errors: {} })
      .get('/rest/api/3/issue/ABC-401')
      .reply(401, { errorMessages: ['Unauthorized'], errors: {} });
    const c = jira();
    const e404 = await c.execute('issues', 'get', { issueIdOrKey: 'ABC-404' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(e404).toBeInstanceOf(NotFoundError);
    expect((e404 as InstanceType<typeof NotFoundError>).upstreamStatus).toBe(404);
    const e401 = await c.execute('issues', 'get', { issueIdOrKey: 'ABC-401' }).then(
      () => null,
      (e: unknown) => e,
    );
    expect(e401).toBeInstanceOf(AuthenticationError);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Offset (startAt/maxResults) lists
// ---------------------------------------------------------------------------------------------
describe('jira offset lists', () => {
  it('projects.list walks two pages with startAt', async () => {
    const scope = api()
      .get('/rest/api/3/project/search')
      .query({ maxResults: '2' })
      .reply(200, {
        isLast: false,
        maxResults: 2,
        nextPage: `${BASE}/rest/api/3/project/search?startAt=2&maxResults=2`,
        self: `${BASE}/rest/api/3/project/search?startAt=0&maxResults=2`,
        startAt: 0,
        total: 3,
        values: [p1, p2],
      })
      .get('/rest/api/3/project/search')
      .query({ maxResults: '2', startAt: '2' })
      .reply(200, {
        isLast: true,
        maxResults: 2,
        self: `${BASE}/rest/api/3/project/search?startAt=2&maxResults=2`,
        startAt: 2,
        total: 3,
        values: [p3],
      });

    const c = jira();
    const page1 = await c.execute('projects', 'list', { maxResults: 2 });
    expect(page1.data).toEqual([p1, p2]);
    expect(page1.pagination).toEqual({ nextPageToken: 2, isLast: false, total: 3 });
    expect(page1.next_params).toEqual({ startAt: 2 });

    const page2 = await c.execute('projects', 'list', { maxResults: 2, ...page1.next_params });
    expect(page2.data).toEqual([p3]);
    expect(page2.pagination).toEqual({ nextPageToken: null, isLast: true, total: 3 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('projects.list rejects maxResults above 100', async () => {
    const err = await jira()
      .execute('projects', 'list', { maxResults: 101 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual(
      expect.arrayContaining([expect.objectContaining({ field: 'maxResults', rule: 'maximum' })]),
    );
    expect(unmatched).toEqual([]);
  });

  // [entity, path, params, expected query, response body, expected data, expected pagination]
  const lastPages: Array<[string, string, Record<string, unknown>, Record<string, string>, unknown, unknown[], Record<string, unknown>]> = [
    [
      'users',
      '/rest/api/3/users/search',
      { startAt: 0, maxResults: 50 },
      { startAt: '0', maxResults: '50' },
      [mia, emma],
      [mia, emma],
      { nextPageToken: null, isLast: null, total: null },
    ],
    [
      'issue_comments',
      '/rest/api/3/issue/ABC-1/comment',
      { issueIdOrKey: 'ABC-1', maxResults: 10 },
      { maxResults: '10' },
      { comments: [comment], maxResults: 10, startAt: 0, total: 1 },
      [comment],
      { nextPageToken: null, isLast: null, total: 1 },
    ],
    [
      'issue_worklogs',
      '/rest/api/3/issue/ABC-1/worklog',
      { issueIdOrKey: 'ABC-1', startAt: 0 },
      { startAt: '0' },
      { maxResults: 5000, startAt: 0, total: 1, worklogs: [worklog] },
      [worklog],
      { nextPageToken: null, isLast: null, total: 1 },
    ],
  ];

  it.each(lastPages)('%s.list reads the records of a last page', async (entity, path, params, query, body, records, pagination) => {
    const scope = api()
      .get(path)
      .query(query)
      .reply(200, body as nock.Body);
    const res = await jira().execute(entity, 'list', params);
    expect(res.data).toEqual(records);
    expect(res.pagination).toEqual(pagination);
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('issue_comments.list walks two pages with startAt', async () => {
    const c2 = { ...comment, id: '10001' };
    const scope = api()
      .get('/rest/api/3/issue/ABC-1/comment')
      .query({ maxResults: '1' })
      .reply(200, { comments: [comment], maxResults: 1, startAt: 0, total: 2 })
      .get('/rest/api/3/issue/ABC-1/comment')
      .query({ maxResults: '1', startAt: '1' })
      .reply(200, { comments: [c2], maxResults: 1, startAt: 1, total: 2 });
    const c = jira();
    const page1 = await c.execute('issue_comments', 'list', { issueIdOrKey: 'ABC-1', maxResults: 1 });
    expect(page1.data).toEqual([comment]);
    expect(page1.pagination).toEqual({ nextPageToken: 1, isLast: null, total: 2 });
    expect(page1.next_params).toEqual({ startAt: 1 });
    const page2 = await c.execute('issue_comments', 'list', { issueIdOrKey: 'ABC-1', maxResults: 1, ...page1.next_params });
    expect(page2.data).toEqual([c2]);
    expect(page2.pagination).toEqual({ nextPageToken: null, isLast: null, total: 2 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Unpaginated lists and single-record reads
// ---------------------------------------------------------------------------------------------
describe('jira reads', () => {
  it('issue_fields.list returns the bare array, without pagination', async () => {
    const scope = api().get('/rest/api/3/field').reply(200, [field, customField]);
    const res = await jira().execute('issue_fields', 'list', {});
    expect(res.data).toEqual([field, customField]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('issue_transitions.list reads body.transitions', async () => {
    const scope = api()
      .get('/rest/api/3/issue/ABC-1/transitions')
      .reply(200, { transitions: [transition, transition2] });
    const res = await jira().execute('issue_transitions', 'list', { issueIdOrKey: 'ABC-1' });
    expect(res.data).toEqual([transition, transition2]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  // [entity, params, path, query, body]
  const gets: Array<[string, Record<string, unknown>, string, Record<string, string> | null, Record<string, unknown>]> = [
    ['projects', { projectIdOrKey: 'ABC' }, '/rest/api/3/project/ABC', null, p2],
    [
      'users',
      { accountId: emma.accountId },
      '/rest/api/3/user',
      { accountId: emma.accountId },
      { ...emma, emailAddress: 'emma@acme.com', timeZone: 'Australia/Sydney' },
    ],
    ['issue_comments', { issueIdOrKey: 'ABC-1', id: '10000' }, '/rest/api/3/issue/ABC-1/comment/10000', null, comment],
    ['issue_worklogs', { issueIdOrKey: 'ABC-1', id: '100028' }, '/rest/api/3/issue/ABC-1/worklog/100028', null, worklog],
    ['issue_links', { linkId: '10001' }, '/rest/api/3/issueLink/10001', null, issueLink],
  ];

  it.each(gets)('%s.get reads one record', async (entity, params, path, query, body) => {
    let interceptor = api().get(path);
    if (query) interceptor = interceptor.query(query);
    const scope = interceptor.reply(200, body);
    const res = await jira().execute(entity, 'get', params);
    expect(res.data).toEqual(body);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('credentials can name the option explicitly (option_title "API Token")', async () => {
    const scope = api().get('/rest/api/3/project/EX').reply(200, p1);
    const c = createConnector('jira', {
      credentials: { option_title: 'API Token', email: EMAIL, api_token: TOKEN },
      config: { subdomain: 'acme' },
    });
    const res = await c.execute('projects', 'get', { projectIdOrKey: 'EX' });
    expect(res.data).toEqual(p1);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Writes on sub-resources
// ---------------------------------------------------------------------------------------------
describe('jira writes', () => {
  it('issue_comments.create posts body/visibility/properties', async () => {
    const body = {
      body: adf('Lorem ipsum dolor sit amet, consectetur adipiscing elit.'),
      visibility: { type: 'role', value: 'Administrators', identifier: 'Administrators' },
      properties: [{ key: 'source', value: 'switchyard' }],
    };
    const scope = api().post('/rest/api/3/issue/ABC-1/comment', body).query({ expand: 'renderedBody' }).reply(201, comment);
    const res = await jira().execute('issue_comments', 'create', { issueIdOrKey: 'ABC-1', ...body, expand: 'renderedBody' });
    expect(res.data).toEqual(comment);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_comments.update puts the new body', async () => {
    const updated = { ...comment, body: adf('Edited text') };
    const scope = api()
      .put('/rest/api/3/issue/ABC-1/comment/10000', { body: adf('Edited text') })
      .query({ notifyUsers: 'false' })
      .reply(200, updated);
    const res = await jira().execute('issue_comments', 'update', {
      issueIdOrKey: 'ABC-1',
      id: '10000',
      body: adf('Edited text'),
      notifyUsers: false,
    });
    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_worklogs.create posts the worklog with its query options', async () => {
    const body = {
      comment: adf('I did some work here.'),
      started: '2021-01-17T12:34:00.000+0000',
      timeSpentSeconds: 12000,
      visibility: { identifier: '276f955c-63d7-42c8-9520-92d01dca0625', type: 'group' },
    };
    const scope = api()
      .post('/rest/api/3/issue/ABC-1/worklog', body)
      .query({ adjustEstimate: 'manual', reduceBy: '2h', notifyUsers: 'false' })
      .reply(201, worklog);
    const res = await jira().execute('issue_worklogs', 'create', {
      issueIdOrKey: 'ABC-1',
      ...body,
      adjustEstimate: 'manual',
      reduceBy: '2h',
      notifyUsers: false,
    });
    expect(res.data).toEqual(worklog);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_worklogs.update puts the changed fields', async () => {
    const updated = { ...worklog, timeSpent: '1h', timeSpentSeconds: 3600 };
    const scope = api()
      .put('/rest/api/3/issue/ABC-1/worklog/100028', { timeSpent: '1h' })
      .query({ adjustEstimate: 'new', newEstimate: '2d' })
      .reply(200, updated);
    const res = await jira().execute('issue_worklogs', 'update', {
      issueIdOrKey: 'ABC-1',
      id: '100028',
      timeSpent: '1h',
      adjustEstimate: 'new',
      newEstimate: '2d',
    });
    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  // [entity, params, path, query] for 204 deletes
  const deletes: Array<[string, Record<string, unknown>, string, Record<string, string> | null]> = [
    ['issue_comments', { issueIdOrKey: 'ABC-1', id: '10000' }, '/rest/api/3/issue/ABC-1/comment/10000', null],
    [
      'issue_worklogs',
      { issueIdOrKey: 'ABC-1', id: '100028', adjustEstimate: 'manual', increaseBy: '3h 20m' },
      '/rest/api/3/issue/ABC-1/worklog/100028',
      { adjustEstimate: 'manual', increaseBy: '3h 20m' },
    ],
    ['issue_links', { linkId: '10001' }, '/rest/api/3/issueLink/10001', null],
  ];

  it.each(deletes)('%s.delete returns {} on 204', async (entity, params, path, query) => {
    let interceptor = api().delete(path);
    if (query) interceptor = interceptor.query(query);
    const scope = interceptor.reply(204);
    const res = await jira().execute(entity, 'delete', params);
    expect(res.data).toEqual({});
    expect(scope.isDone()).toBe(true);
  });

  it('issues_assignee.update assigns by accountId', async () => {
    const scope = api().put('/rest/api/3/issue/ABC-1/assignee', { accountId: emma.accountId }).reply(204);
    const res = await jira().execute('issues_assignee', 'update', { issueIdOrKey: 'ABC-1', accountId: emma.accountId });
    expect(res.data).toEqual({});
    expect(scope.isDone()).toBe(true);
  });

  it('issues_assignee.update with accountId null unassigns (null is sent)', async () => {
    const scope = api().put('/rest/api/3/issue/ABC-1/assignee', { accountId: null }).reply(204);
    const res = await jira().execute('issues_assignee', 'update', { issueIdOrKey: 'ABC-1', accountId: null });
    expect(res.data).toEqual({});
    expect(scope.isDone()).toBe(true);
  });

  it('issue_transitions.create performs a transition', async () => {
    const body = {
      transition: { id: '5' },
      fields: { resolution: { name: 'Fixed' } },
      update: { comment: [{ add: { body: adf('Bug has been fixed') } }] },
    };
    const scope = api().post('/rest/api/3/issue/ABC-1/transitions', body).reply(204);
    const res = await jira().execute('issue_transitions', 'create', { issueIdOrKey: 'ABC-1', ...body });
    expect(res.data).toEqual({});
    expect(scope.isDone()).toBe(true);
  });

  it('issue_links.create links two issues (201 without body -> {})', async () => {
    const body = {
      type: { name: 'Duplicate' },
      inwardIssue: { key: 'HSP-1' },
      outwardIssue: { key: 'MKY-1' },
      comment: { body: adf('Linked related issue!') },
    };
    const scope = api().post('/rest/api/3/issueLink', body).reply(201);
    const res = await jira().execute('issue_links', 'create', body);
    expect(res.data).toEqual({});
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Configuration
// ---------------------------------------------------------------------------------------------
describe('jira config', () => {
  it.each(['evil.com/x', 'acme.atlassian.net@evil.com', '-acme', ''])('rejects the subdomain %j before any request', async (subdomain) => {
    const scope = nock('https://evil.com').get(/.*/).reply(200, {});
    const err = await (async () => {
      const c = createConnector('jira', {
        credentials: { email: EMAIL, api_token: TOKEN },
        config: { subdomain },
      });
      return c.execute('projects', 'get', { projectIdOrKey: 'ABC' });
    })().then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(ValidationError);
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(false);
  });
});

// ---------------------------------------------------------------------------------------------
// api_search actions on projects, users and issue fields (paged by startAt/maxResults)
// ---------------------------------------------------------------------------------------------
describe('jira api_search on projects, users and issue fields', () => {
  /** Records the raw path + query string of each request the scope answers. */
  const seen: string[] = [];
  afterEach(() => {
    seen.length = 0;
  });

  it('projects.api_search sends every filter, arrays as the key repeated, and walks two pages with startAt', async () => {
    const filters = {
      maxResults: 2,
      orderBy: '-issueCount',
      id: [10000, 10001, 10002],
      keys: ['EX', 'ABC', 'OPS'],
      query: 'a',
      typeKey: 'business,software',
      categoryId: 10000,
      action: 'browse',
      expand: 'description,lead,insight',
      status: ['live', 'archived'],
    };
    const query = {
      maxResults: '2',
      orderBy: '-issueCount',
      id: ['10000', '10001', '10002'],
      keys: ['EX', 'ABC', 'OPS'],
      query: 'a',
      typeKey: 'business,software',
      categoryId: '10000',
      action: 'browse',
      expand: 'description,lead,insight',
      status: ['live', 'archived'],
    };
    const scope = api()
      .get('/rest/api/3/project/search')
      .query(query)
      .reply(function () {
        seen.push(this.req.path);
        return [
          200,
          {
            isLast: false,
            maxResults: 2,
            nextPage: `${BASE}/rest/api/3/project/search?startAt=2&maxResults=2`,
            self: `${BASE}/rest/api/3/project/search?startAt=0&maxResults=2`,
            startAt: 0,
            total: 3,
            values: [p1, p2],
          },
        ];
      })
      .get('/rest/api/3/project/search')
      .query({ ...query, startAt: '2' })
      .reply(200, { isLast: true, maxResults: 2, startAt: 2, total: 3, values: [p3] });

    const c = jira();
    const page1 = await c.execute('projects', 'api_search', filters);
    expect(page1.data).toEqual([p1, p2]);
    expect(page1.pagination).toEqual({ nextPageToken: 2, isLast: false, total: 3 });
    expect(page1.next_params).toEqual({ startAt: 2 });
    // id, keys and status are written as the key repeated (id=10000&id=10001), as Jira documents.
    const sent = new URLSearchParams(seen[0]?.split('?')[1]);
    expect(sent.getAll('id')).toEqual(['10000', '10001', '10002']);
    expect(sent.getAll('keys')).toEqual(['EX', 'ABC', 'OPS']);
    expect(sent.getAll('status')).toEqual(['live', 'archived']);
    expect(seen[0]).toContain('id=10000&id=10001&id=10002');
    expect(seen[0]).toContain('status=live&status=archived');

    const page2 = await c.execute('projects', 'api_search', { ...filters, ...page1.next_params });
    expect(page2.data).toEqual([p3]);
    expect(page2.pagination).toEqual({ nextPageToken: null, isLast: true, total: 3 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('projects.api_search refuses bad filters before any request, with every violation', async () => {
    const scope = api();
    const err = await jira()
      .execute('projects', 'api_search', {
        maxResults: 101,
        id: Array.from({ length: 51 }, (_, i) => 10000 + i),
        status: ['live', 'gone'],
        typeKey: 'business,kanban',
        orderBy: 'created',
        action: 'delete',
      })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as InstanceType<typeof ValidationError>).issues;
    expect(issues).toHaveLength(6);
    expect(issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'maxResults', rule: 'maximum', limit: 100 }),
        expect.objectContaining({ field: 'id', rule: 'maxItems', limit: 50 }),
        expect.objectContaining({ field: 'status.1', rule: 'enum' }),
        expect.objectContaining({ field: 'typeKey', rule: 'pattern' }),
        expect.objectContaining({ field: 'orderBy', rule: 'enum' }),
        expect.objectContaining({ field: 'action', rule: 'enum' }),
      ]),
    );
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('users.api_search sends query/accountId/property with maxResults 50 and walks pages of the bare array', async () => {
    const scope = api()
      .get('/rest/api/3/user/search')
      .query({ query: 'em', property: 'team.name=core', maxResults: '2' })
      .reply(200, [mia, emma])
      .get('/rest/api/3/user/search')
      .query({ query: 'em', property: 'team.name=core', maxResults: '2', startAt: '2' })
      .reply(200, [])
      .get('/rest/api/3/user/search')
      .query({ accountId: emma.accountId, maxResults: '50' })
      .reply(200, [emma]);

    const c = jira();
    const page1 = await c.execute('users', 'api_search', { query: 'em', property: 'team.name=core', maxResults: 2 });
    expect(page1.data).toEqual([mia, emma]);
    expect(page1.pagination).toEqual({ nextPageToken: 2, isLast: null, total: null });
    expect(page1.next_params).toEqual({ startAt: 2 });
    const page2 = await c.execute('users', 'api_search', { query: 'em', property: 'team.name=core', maxResults: 2, ...page1.next_params });
    expect(page2.data).toEqual([]);
    expect(page2.pagination).toEqual({ nextPageToken: null, isLast: null, total: null });
    expect(page2.next_params).toBeUndefined();

    // maxResults defaults to Jira's 50 and is sent, so a short page ends the walk.
    const byId = await c.execute('users', 'api_search', { accountId: emma.accountId });
    expect(byId.data).toEqual([emma]);
    expect(byId.pagination).toEqual({ nextPageToken: null, isLast: null, total: null });
    expect(byId.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('users.api_search without query, accountId or property is refused before any request', async () => {
    const scope = api();
    const err = await jira()
      .execute('users', 'api_search', { maxResults: 10 })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([
      expect.objectContaining({ field: 'params', rule: 'at_least_one_of', limit: ['query', 'accountId', 'property'] }),
    ]);
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_fields.api_search sends type and id as the key repeated and walks two pages with startAt', async () => {
    const filters = {
      maxResults: 1,
      type: ['custom', 'system'],
      id: ['customfield_10101', 'summary'],
      query: 'point',
      orderBy: '-lastUsed',
      expand: 'key,lastUsed,searcherKey',
    };
    const query = {
      maxResults: '1',
      type: ['custom', 'system'],
      id: ['customfield_10101', 'summary'],
      query: 'point',
      orderBy: '-lastUsed',
      expand: 'key,lastUsed,searcherKey',
    };
    const scope = api()
      .get('/rest/api/3/field/search')
      .query(query)
      .reply(function () {
        seen.push(this.req.path);
        return [200, { isLast: false, maxResults: 1, startAt: 0, total: 2, values: [customField] }];
      })
      .get('/rest/api/3/field/search')
      .query({ ...query, startAt: '1' })
      .reply(200, { isLast: true, maxResults: 1, startAt: 1, total: 2, values: [field] });

    const c = jira();
    const page1 = await c.execute('issue_fields', 'api_search', filters);
    expect(page1.data).toEqual([customField]);
    expect(page1.pagination).toEqual({ nextPageToken: 1, isLast: false, total: 2 });
    expect(page1.next_params).toEqual({ startAt: 1 });
    expect(seen[0]).toContain('type=custom&type=system');
    expect(seen[0]).toContain('id=customfield_10101&id=summary');

    const page2 = await c.execute('issue_fields', 'api_search', { ...filters, ...page1.next_params });
    expect(page2.data).toEqual([field]);
    expect(page2.pagination).toEqual({ nextPageToken: null, isLast: true, total: 2 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('issue_fields.api_search refuses an unknown field type before any request', async () => {
    const scope = api();
    const err = await jira()
      .execute('issue_fields', 'api_search', { type: ['plugin'] })
      .then(
        () => null,
        (e: unknown) => e,
      );
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: 'type.0', rule: 'enum' })]);
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// Query options of existing reads (expand, orderBy, properties, transition filters)
// ---------------------------------------------------------------------------------------------
describe('jira read options', () => {
  it('projects.get sends expand and properties (comma-separated)', async () => {
    const scope = api().get('/rest/api/3/project/ABC').query({ expand: 'projectKeys,issueTypeHierarchy', properties: 'prop1,prop2' }).reply(200, p2);
    const res = await jira().execute('projects', 'get', {
      projectIdOrKey: 'ABC',
      expand: 'projectKeys,issueTypeHierarchy',
      properties: ['prop1', 'prop2'],
    });
    expect(res.data).toEqual(p2);
    expect(scope.isDone()).toBe(true);
  });

  it('users.get sends expand', async () => {
    const body = { ...emma, groups: { size: 1, items: [] }, applicationRoles: { size: 1, items: [] } };
    const scope = api().get('/rest/api/3/user').query({ accountId: emma.accountId, expand: 'groups,applicationRoles' }).reply(200, body);
    const res = await jira().execute('users', 'get', { accountId: emma.accountId, expand: 'groups,applicationRoles' });
    expect(res.data).toEqual(body);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_comments.list sends orderBy and expand; issue_comments.get sends expand (with the commentId alias)', async () => {
    const rendered = { ...comment, renderedBody: '<p>Lorem ipsum dolor sit amet, consectetur adipiscing elit.</p>' };
    const scope = api()
      .get('/rest/api/3/issue/ABC-1/comment')
      .query({ orderBy: '-created', expand: 'renderedBody' })
      .reply(200, { comments: [rendered], maxResults: 100, startAt: 0, total: 1 })
      .get('/rest/api/3/issue/ABC-1/comment/10000')
      .query({ expand: 'renderedBody' })
      .reply(200, rendered);
    const c = jira();
    const list = await c.execute('issue_comments', 'list', { issueIdOrKey: 'ABC-1', orderBy: '-created', expand: 'renderedBody' });
    expect(list.data).toEqual([rendered]);
    expect(list.pagination).toEqual({ nextPageToken: null, isLast: null, total: 1 });
    const one = await c.execute('issue_comments', 'get', { issueIdOrKey: 'ABC-1', commentId: '10000', expand: 'renderedBody' });
    expect(one.data).toEqual(rendered);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_worklogs.list and get send expand=properties', async () => {
    const withProps = { ...worklog, properties: [{ key: 'source', value: 'switchyard' }] };
    const scope = api()
      .get('/rest/api/3/issue/ABC-1/worklog')
      .query({ expand: 'properties' })
      .reply(200, { maxResults: 5000, startAt: 0, total: 1, worklogs: [withProps] })
      .get('/rest/api/3/issue/ABC-1/worklog/100028')
      .query({ expand: 'properties' })
      .reply(200, withProps);
    const c = jira();
    const list = await c.execute('issue_worklogs', 'list', { issueIdOrKey: 'ABC-1', expand: 'properties' });
    expect(list.data).toEqual([withProps]);
    const one = await c.execute('issue_worklogs', 'get', { issueIdOrKey: 'ABC-1', worklogId: '100028', expand: 'properties' });
    expect(one.data).toEqual(withProps);
    expect(scope.isDone()).toBe(true);
  });

  it('issue_transitions.list sends expand, transitionId and its three flags', async () => {
    const scope = api()
      .get('/rest/api/3/issue/ABC-1/transitions')
      .query({
        expand: 'transitions.fields',
        transitionId: '2',
        skipRemoteOnlyCondition: 'true',
        includeUnavailableTransitions: 'true',
        sortByOpsBarAndStatus: 'false',
      })
      .reply(200, { transitions: [{ ...transition, fields: {} }] });
    const res = await jira().execute('issue_transitions', 'list', {
      issueIdOrKey: 'ABC-1',
      expand: 'transitions.fields',
      transitionId: '2',
      skipRemoteOnlyCondition: true,
      includeUnavailableTransitions: true,
      sortByOpsBarAndStatus: false,
    });
    expect(res.data).toEqual([{ ...transition, fields: {} }]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('refuses undocumented expand and orderBy values before any request', async () => {
    const scope = api();
    const c = jira();
    const calls: Array<[string, string, Record<string, unknown>, string]> = [
      ['projects', 'get', { projectIdOrKey: 'ABC', expand: 'lead,permissions' }, 'expand'],
      ['users', 'get', { accountId: emma.accountId, expand: 'groups,teams' }, 'expand'],
      ['issue_comments', 'list', { issueIdOrKey: 'ABC-1', orderBy: 'updated' }, 'orderBy'],
      ['issue_worklogs', 'get', { issueIdOrKey: 'ABC-1', id: '100028', expand: 'renderedBody' }, 'expand'],
      ['issue_transitions', 'list', { issueIdOrKey: 'ABC-1', includeUnavailableTransitions: 'yes' }, 'includeUnavailableTransitions'],
    ];
    for (const [entity, action, params, fieldName] of calls) {
      const err = await c.execute(entity, action, params).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as InstanceType<typeof ValidationError>).issues).toEqual([expect.objectContaining({ field: fieldName })]);
    }
    expect(unmatched).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });
});
