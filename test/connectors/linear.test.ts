import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { createConnector, UpstreamRejectedError, ValidationError } from '../../runtime/index.js';

// The GraphQL documents are read from the manifest so the tests assert that exactly that text is sent.
const manifest = parse(readFileSync(new URL('../../manifests/linear.yaml', import.meta.url), 'utf8'));
const documentOf = (entity: string, action: string): string => manifest.entities[entity].actions[action].graphql.document;

const API = 'https://api.linear.app';
const API_KEY = 'lin_api_7Qm2cV9xKpL4sT8wZr1bN6yH3dF0gJ5eA2uXo9Ci';

const linear = () => createConnector('linear', { credentials: { api_key: API_KEY } });

/** Nock one GraphQL POST with the exact {query, variables} body and the exact auth header. */
function graphql(entity: string, action: string, variables: nock.DataMatcherMap, response: unknown, authorization = API_KEY) {
  return nock(API)
    .matchHeader('authorization', authorization)
    .matchHeader('content-type', /^application\/json/)
    .post('/graphql', { query: documentOf(entity, action), variables })
    .reply(200, response as nock.Body, { 'content-type': 'application/json; charset=utf-8' });
}

async function rejection(promise: () => Promise<unknown>): Promise<any> {
  try {
    await promise();
  } catch (error) {
    return error;
  }
  throw new Error('expected the call to fail');
}

// ---------------------------------------------------------------------------------------------
// Realistic records (shapes from schema.graphql: Issue, Project, Team, WorkflowState, User, Comment)
// ---------------------------------------------------------------------------------------------
const TEAM_ENG = { id: '4a1f5c2e-0b7d-4e3a-9c6f-2d8b1e0a7f35', name: 'Engineering' };
const USER_ADA = { id: 'b6d0f8a2-3c41-4e9b-8a7d-5f2e1c0b9d64', name: 'Ada Lovelace', email: 'ada@acme.dev' };
const USER_GRACE = { id: 'e3c9a1b7-5d2f-4a80-b6e4-9f1d2c3b4a57', name: 'Grace Hopper', email: 'grace@acme.dev' };
const STATE_IN_PROGRESS = { id: '7e2d9b40-1f6a-4c8e-a3b5-0d9c8e7f6a12', name: 'In Progress' };
const STATE_TODO = { id: '2c5b8e1d-9a4f-4b7c-8e0d-3f6a9b2c5d81', name: 'Todo' };
const PROJECT_CHECKOUT = { id: 'd41f7a3c-6b2e-4f9d-a0c8-1e5b9d3f7a26', name: 'Checkout revamp' };

const issueNode = {
  id: '9cfb482a-81e3-4154-b5b9-2c805e70a02d',
  identifier: 'ENG-123',
  number: 123,
  title: 'Checkout fails when the cart holds more than 50 items',
  description: 'Steps to reproduce:\n\n1. Add 51 items to the cart\n2. Click **Checkout**\n\nThe API answers 500.',
  priority: 2,
  priorityLabel: 'High',
  estimate: 3,
  dueDate: '2026-12-04',
  url: 'https://linear.app/acme/issue/ENG-123/checkout-fails-when-the-cart-holds-more-than-50-items',
  branchName: 'ada/eng-123-checkout-fails-when-the-cart-holds-more-than-50-items',
  labelIds: ['5f0e3a9c-2b7d-4c1e-8f6a-9d4b2e7c1a03'],
  state: STATE_IN_PROGRESS,
  assignee: USER_ADA,
  creator: USER_GRACE,
  team: TEAM_ENG,
  project: PROJECT_CHECKOUT,
  cycle: { id: 'a8e4c2f6-7d1b-4e3a-9b5c-0f2d4e6a8c17', name: null },
  createdAt: '2026-11-02T09:14:27.512Z',
  updatedAt: '2026-11-19T16:41:03.208Z',
  startedAt: '2026-11-10T08:02:55.000Z',
  completedAt: null,
  canceledAt: null,
  archivedAt: null,
};

const issueNode2 = {
  ...issueNode,
  id: '0f3b6e91-4c2a-4d8b-9e7f-1a5c3b8d2e40',
  identifier: 'ENG-124',
  number: 124,
  title: 'Add retry to the payment webhook',
  description: null,
  priority: 0,
  priorityLabel: 'No priority',
  estimate: null,
  dueDate: null,
  url: 'https://linear.app/acme/issue/ENG-124/add-retry-to-the-payment-webhook',
  branchName: 'eng-124-add-retry-to-the-payment-webhook',
  labelIds: [],
  state: STATE_TODO,
  assignee: null,
  project: null,
  cycle: null,
  startedAt: null,
};

const issueNode3 = {
  ...issueNode2,
  id: '6a2d8c4e-0b9f-4e1a-8d3c-7f5b2a9e6c18',
  identifier: 'ENG-125',
  number: 125,
  title: 'Document the checkout error codes',
  url: 'https://linear.app/acme/issue/ENG-125/document-the-checkout-error-codes',
  branchName: 'eng-125-document-the-checkout-error-codes',
};

const projectNode = {
  id: PROJECT_CHECKOUT.id,
  name: 'Checkout revamp',
  description: 'Faster, more reliable checkout for large carts',
  content: '## Goals\n\n- p95 checkout under 800 ms\n- no 500s above 50 items',
  slugId: '7c1e9a2b4d6f',
  url: 'https://linear.app/acme/project/checkout-revamp-7c1e9a2b4d6f',
  color: '#bec2c8',
  icon: 'Cart',
  priority: 2,
  priorityLabel: 'High',
  progress: 0.35,
  status: { id: '1b9e5d3f-8c2a-4f6e-b0d7-4a3c9e1f5b28', name: 'In Progress' },
  lead: USER_ADA,
  creator: USER_GRACE,
  startDate: '2026-11-01',
  targetDate: '2027-01-31',
  startedAt: '2026-11-03T10:00:00.000Z',
  completedAt: null,
  canceledAt: null,
  createdAt: '2026-10-28T14:22:10.331Z',
  updatedAt: '2026-11-18T12:05:44.917Z',
  archivedAt: null,
};

const teamNode = {
  id: TEAM_ENG.id,
  name: 'Engineering',
  key: 'ENG',
  displayName: 'Engineering',
  description: 'Product engineering',
  color: '#5e6ad2',
  icon: 'Code',
  timezone: 'Europe/Paris',
  visibility: 'public',
  cyclesEnabled: true,
  triageEnabled: false,
  parent: null,
  createdAt: '2024-03-11T08:30:00.000Z',
  updatedAt: '2026-11-01T09:00:12.004Z',
  archivedAt: null,
};

const workflowStateNode = {
  id: STATE_IN_PROGRESS.id,
  name: 'In Progress',
  type: 'started',
  color: '#f2c94c',
  description: null,
  position: 2,
  team: TEAM_ENG,
  createdAt: '2024-03-11T08:30:00.000Z',
  updatedAt: '2024-03-11T08:30:00.000Z',
  archivedAt: null,
};

const userNode = {
  id: USER_ADA.id,
  name: 'Ada Lovelace',
  displayName: 'ada',
  email: 'ada@acme.example',
  active: true,
  admin: true,
  guest: false,
  avatarUrl: 'https://public.linear.app/b6d0f8a2-3c41-4e9b-8a7d-5f2e1c0b9d64/avatar.png',
  timezone: 'Europe/London',
  url: 'https://linear.app/acme/profiles/ada',
  lastSeen: '2026-11-21T07:55:31.000Z',
  createdAt: '2024-03-11T08:29:41.000Z',
  updatedAt: '2026-11-21T07:55:31.000Z',
  archivedAt: null,
};

const commentNode = {
  id: 'c7a3e9f1-2b5d-4c8a-9e6f-0d1b3a5c7e92',
  body: 'Reproduced on staging: the `cart_items` query times out above 50 rows.',
  url: 'https://linear.app/acme/issue/ENG-123/checkout-fails-when-the-cart-holds-more-than-50-items#comment-c7a3e9f1',
  issue: { id: issueNode.id, identifier: 'ENG-123', title: issueNode.title },
  user: USER_GRACE,
  parentId: null,
  editedAt: null,
  resolvedAt: null,
  createdAt: '2026-11-12T15:03:22.640Z',
  updatedAt: '2026-11-12T15:03:22.640Z',
  archivedAt: null,
};

// entity, GraphQL list field, GraphQL get field, a record
const cases = [
  ['issues', 'issues', 'issue', issueNode],
  ['projects', 'projects', 'project', projectNode],
  ['teams', 'teams', 'team', teamNode],
  ['workflow_states', 'workflowStates', 'workflowState', workflowStateNode],
  ['users', 'users', 'user', userNode],
  ['comments', 'comments', 'comment', commentNode],
] as const;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

describe('linear: list and get (API key auth, no Bearer prefix)', () => {
  it.each(cases)('%s list sends {first} and returns the nodes and pageInfo block', async (entity, field, _one, record) => {
    const cursor = Buffer.from(`${record.id}`).toString('base64');
    const scope = graphql(
      entity,
      'list',
      { first: 50 },
      {
        data: { [field]: { nodes: [record], pageInfo: { hasNextPage: false, endCursor: cursor } } },
      },
    );
    const page = await linear().execute(entity, 'list', { first: 50 });
    expect(page.data).toEqual([record]);
    expect(page.pagination).toEqual({ hasNextPage: false, endCursor: cursor });
    expect(page.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it.each(cases)('%s get sends {id} and returns the record', async (entity, _many, field, record) => {
    const scope = graphql(entity, 'get', { id: record.id }, { data: { [field]: record } });
    const result = await linear().execute(entity, 'get', { id: record.id });
    expect(result.data).toEqual(record);
    expect(result.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('issues get accepts the human identifier', async () => {
    const scope = graphql('issues', 'get', { id: 'ENG-123' }, { data: { issue: issueNode } });
    const result = await linear().execute('issues', 'get', { id: 'ENG-123' });
    expect(result.data).toEqual(issueNode);
    expect(scope.isDone()).toBe(true);
  });

  it('list without params sends empty variables; an empty connection gives endCursor null', async () => {
    const scope = graphql(
      'teams',
      'list',
      {},
      {
        data: { teams: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } },
      },
    );
    const page = await linear().execute('teams', 'list', {});
    expect(page.data).toEqual([]);
    expect(page.pagination).toEqual({ hasNextPage: false, endCursor: null });
    expect(page.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('linear: people are selected with their email', () => {
  // Every selection of an assignee, a comment author (user) or a project lead asks for id, name and email.
  const selections = Object.entries(manifest.entities as Record<string, { actions: Record<string, { graphql?: { document: string } }> }>).flatMap(
    ([entity, e]) =>
      Object.entries(e.actions).flatMap(([action, a]) =>
        [...(a.graphql?.document ?? '').matchAll(/\b(assignee|user|lead)\s*\{([^}]*)\}/g)].map(
          (m) => [`${entity}.${action}`, m[1] as string, (m[2] as string).trim().split(/\s+/)] as const,
        ),
      ),
  );

  it('finds the person selections (sanity check)', () => {
    expect(new Set(selections.map(([, field]) => field))).toEqual(new Set(['assignee', 'user', 'lead']));
  });

  it.each(selections)('%s selects %s { id name email }', (_action, _field, fields) => {
    expect(fields).toEqual(['id', 'name', 'email']);
  });

  it('issues get, comments list and projects get return the email of the assignee, author and lead', async () => {
    const issue = graphql('issues', 'get', { id: issueNode.id }, { data: { issue: issueNode } });
    const comments = graphql(
      'comments',
      'list',
      { first: 10 },
      {
        data: { comments: { nodes: [commentNode], pageInfo: { hasNextPage: false, endCursor: null } } },
      },
    );
    const project = graphql('projects', 'get', { id: projectNode.id }, { data: { project: projectNode } });

    expect((await linear().execute('issues', 'get', { id: issueNode.id })).data).toMatchObject({ assignee: { email: 'ada@acme.dev' } });
    expect((await linear().execute('comments', 'list', { first: 10 })).data).toEqual([expect.objectContaining({ user: USER_GRACE })]);
    expect((await linear().execute('projects', 'get', { id: projectNode.id })).data).toMatchObject({ lead: { email: 'ada@acme.dev' } });
    expect([issue.isDone(), comments.isDone(), project.isDone()]).toEqual([true, true, true]);
  });
});

describe('linear: graphql_page_info pagination', () => {
  it('walks two pages of issues with next_params (after = endCursor)', async () => {
    const page1Cursor = 'MGYzYjZlOTEtNGMyYS00ZDhiLTllN2YtMWE1YzNiOGQyZTQw';
    const page2Cursor = 'NmEyZDhjNGUtMGI5Zi00ZTFhLThkM2MtN2Y1YjJhOWU2YzE4';
    const scope1 = graphql(
      'issues',
      'list',
      { first: 2 },
      {
        data: { issues: { nodes: [issueNode, issueNode2], pageInfo: { hasNextPage: true, endCursor: page1Cursor } } },
      },
    );
    const scope2 = graphql(
      'issues',
      'list',
      { first: 2, after: page1Cursor },
      {
        data: { issues: { nodes: [issueNode3], pageInfo: { hasNextPage: false, endCursor: page2Cursor } } },
      },
    );
    const connector = linear();

    const page1 = await connector.execute('issues', 'list', { first: 2 });
    expect(page1.data).toEqual([issueNode, issueNode2]);
    expect(page1.pagination).toEqual({ hasNextPage: true, endCursor: page1Cursor });
    expect(page1.next_params).toEqual({ after: page1Cursor });

    const page2 = await connector.execute('issues', 'list', { first: 2, ...page1.next_params });
    expect(page2.data).toEqual([issueNode3]);
    expect(page2.pagination).toEqual({ hasNextPage: false, endCursor: page2Cursor });
    expect(page2.next_params).toBeUndefined();

    expect(scope1.isDone()).toBe(true);
    expect(scope2.isDone()).toBe(true);
  });
});

describe('linear: issues create and update', () => {
  const mutationIssue = {
    id: issueNode.id,
    title: issueNode.title,
    description: issueNode.description,
    state: STATE_TODO,
    priority: 2,
    assignee: null,
    project: PROJECT_CHECKOUT,
    createdAt: '2026-11-21T10:12:45.118Z',
    updatedAt: '2026-11-21T10:12:45.118Z',
  };

  it('create nests every param into input and returns {success, issue}', async () => {
    const input = {
      teamId: TEAM_ENG.id,
      title: issueNode.title,
      description: issueNode.description,
      stateId: STATE_TODO.id,
      priority: 2,
      projectId: PROJECT_CHECKOUT.id,
    };
    const scope = graphql('issues', 'create', { input }, { data: { issueCreate: { success: true, issue: mutationIssue } } });
    const result = await linear().execute('issues', 'create', input);
    expect(result.data).toEqual({ success: true, issue: mutationIssue });
    expect(scope.isDone()).toBe(true);
  });

  it('update sends id apart and only the given fields in input (no assigneeId when omitted)', async () => {
    const updated = {
      ...mutationIssue,
      title: 'Checkout fails above 50 items',
      state: STATE_IN_PROGRESS,
      priority: 1,
      assignee: USER_ADA,
      updatedAt: '2026-11-21T11:00:02.541Z',
    };
    const scope = graphql(
      'issues',
      'update',
      { id: 'ENG-123', input: { title: 'Checkout fails above 50 items', stateId: STATE_IN_PROGRESS.id, priority: 1 } },
      { data: { issueUpdate: { success: true, issue: updated } } },
    );
    const result = await linear().execute('issues', 'update', {
      id: 'ENG-123',
      title: 'Checkout fails above 50 items',
      stateId: STATE_IN_PROGRESS.id,
      priority: 1,
    });
    expect(result.data).toEqual({ success: true, issue: updated });
    expect(scope.isDone()).toBe(true);
  });

  it('update with assigneeId null unassigns; description, projectId are sent as given', async () => {
    const updated = { ...mutationIssue, description: 'Moved to backlog', assignee: null, project: null };
    const scope = graphql(
      'issues',
      'update',
      { id: issueNode.id, input: { description: 'Moved to backlog', assigneeId: null, projectId: null } },
      { data: { issueUpdate: { success: true, issue: updated } } },
    );
    const result = await linear().execute('issues', 'update', {
      id: issueNode.id,
      description: 'Moved to backlog',
      assigneeId: null,
      projectId: null,
    });
    expect(result.data).toEqual({ success: true, issue: updated });
    expect(scope.isDone()).toBe(true);
  });
});

describe('linear: comments and projects create and update', () => {
  const mutationComment = {
    id: commentNode.id,
    body: commentNode.body,
    url: commentNode.url,
    issue: commentNode.issue,
    user: USER_GRACE,
    parentId: null,
    createdAt: commentNode.createdAt,
    updatedAt: commentNode.updatedAt,
  };
  const mutationProject = {
    id: projectNode.id,
    name: projectNode.name,
    description: projectNode.description,
    content: projectNode.content,
    url: projectNode.url,
    priority: 2,
    status: projectNode.status,
    lead: USER_ADA,
    startDate: '2026-11-01',
    targetDate: '2027-01-31',
    createdAt: projectNode.createdAt,
    updatedAt: projectNode.createdAt,
  };

  it('comments create sends input {issueId, body} and returns {success, comment}', async () => {
    const scope = graphql(
      'comments',
      'create',
      { input: { issueId: 'ENG-123', body: commentNode.body } },
      { data: { commentCreate: { success: true, comment: mutationComment } } },
    );
    const result = await linear().execute('comments', 'create', { issueId: 'ENG-123', body: commentNode.body });
    expect(result.data).toEqual({ success: true, comment: mutationComment });
    expect(scope.isDone()).toBe(true);
  });

  it('comments update sends id and input {body}', async () => {
    const edited = { ...mutationComment, body: 'Fixed by #4821.', editedAt: '2026-11-21T12:30:00.000Z', updatedAt: '2026-11-21T12:30:00.000Z' };
    const scope = graphql(
      'comments',
      'update',
      { id: commentNode.id, input: { body: 'Fixed by #4821.' } },
      { data: { commentUpdate: { success: true, comment: edited } } },
    );
    const result = await linear().execute('comments', 'update', { id: commentNode.id, body: 'Fixed by #4821.' });
    expect(result.data).toEqual({ success: true, comment: edited });
    expect(scope.isDone()).toBe(true);
  });

  it('projects create sends input with name, teamIds and optional fields', async () => {
    const input = {
      name: 'Checkout revamp',
      teamIds: [TEAM_ENG.id],
      description: projectNode.description,
      content: projectNode.content,
      leadId: USER_ADA.id,
      priority: 2,
      startDate: '2026-11-01',
      targetDate: '2027-01-31',
    };
    const scope = graphql('projects', 'create', { input }, { data: { projectCreate: { success: true, project: mutationProject } } });
    const result = await linear().execute('projects', 'create', input);
    expect(result.data).toEqual({ success: true, project: mutationProject });
    expect(scope.isDone()).toBe(true);
  });

  it('projects update sends id and only the given fields', async () => {
    const updated = { ...mutationProject, targetDate: '2027-02-28', priority: 1, updatedAt: '2026-11-21T13:45:10.000Z' };
    const scope = graphql(
      'projects',
      'update',
      { id: projectNode.id, input: { targetDate: '2027-02-28', priority: 1 } },
      { data: { projectUpdate: { success: true, project: updated } } },
    );
    const result = await linear().execute('projects', 'update', { id: projectNode.id, targetDate: '2027-02-28', priority: 1 });
    expect(result.data).toEqual({ success: true, project: updated });
    expect(scope.isDone()).toBe(true);
  });
});

describe('linear: comments list of one issue (issueId)', () => {
  it('issueId is sent as the filter variable {issue: {id: {eq}}} with the page params', async () => {
    const scope = graphql(
      'comments',
      'list',
      { first: 25, filter: { issue: { id: { eq: issueNode.id } } } },
      { data: { comments: { nodes: [commentNode], pageInfo: { hasNextPage: false, endCursor: 'YzdhM2U5ZjE=' } } } },
    );
    const page = await linear().execute('comments', 'list', { issueId: issueNode.id, first: 25 });
    expect(page.data).toEqual([commentNode]);
    expect(page.pagination).toEqual({ hasNextPage: false, endCursor: 'YzdhM2U5ZjE=' });
    expect(scope.isDone()).toBe(true);
  });

  it('issueId together with filter is refused before any request (rule at_most_one_of)', async () => {
    const scope = nock(API);
    const error = await rejection(() =>
      linear().execute('comments', 'list', { issueId: issueNode.id, filter: { updatedAt: { gte: '2026-11-01T00:00:00.000Z' } } }),
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_most_one_of', limit: ['filter', 'issueId'] })]);
    expect(scope.isDone()).toBe(true);
  });

  it('an empty issueId is refused before any request (rule minLength)', async () => {
    const scope = nock(API);
    const error = await rejection(() => linear().execute('comments', 'list', { issueId: '' }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([expect.objectContaining({ field: 'issueId', rule: 'minLength' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('projects create and update do not take the deprecated state (statusId sets the status)', async () => {
    const scope = nock(API);
    for (const [action, params] of [
      ['create', { name: 'Checkout revamp', teamIds: [TEAM_ENG.id], state: 'started' }],
      ['update', { id: projectNode.id, state: 'started' }],
    ] as const) {
      const error = await rejection(() => linear().execute('projects', action, params));
      expect(error).toBeInstanceOf(ValidationError);
      expect(error.issues).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'state' })]));
    }
    expect(scope.isDone()).toBe(true);
  });
});

describe('linear: OAuth2.0 refresh-token auth', () => {
  it('refreshes the access token with a form body, then sends it as Bearer (cached for the next call)', async () => {
    const tokenScope = nock(API)
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .post('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: 'lin_refresh_3e8Yq1Tn7Vb5Xc2Mz9Ka4Ld6',
        client_id: '8f2c6a1e9b4d7f3a0c5e2b8d1f6a9c4e',
        client_secret: 'lin_oauth_secret_Wq3Er5Ty7Ui9Op1As3Df',
      })
      .reply(200, {
        access_token: 'lin_oauth_2b7e4c9a1f6d3e8b0a5c7f2d9e4b1a6c',
        token_type: 'Bearer',
        expires_in: 86399,
        scope: 'read,write',
        refresh_token: 'lin_refresh_9Hs2Jd4Kf6Lg8Zx0Cv1Bn3Mq',
      });
    const bearer = 'Bearer lin_oauth_2b7e4c9a1f6d3e8b0a5c7f2d9e4b1a6c';
    const listScope = graphql(
      'teams',
      'list',
      { first: 10 },
      {
        data: { teams: { nodes: [teamNode], pageInfo: { hasNextPage: false, endCursor: 'NGExZjVjMmU' } } },
      },
      bearer,
    );
    const getScope = graphql('users', 'get', { id: USER_ADA.id }, { data: { user: userNode } }, bearer);

    const refreshed: unknown[] = [];
    const connector = createConnector('linear', {
      credentials: {
        client_id: '8f2c6a1e9b4d7f3a0c5e2b8d1f6a9c4e',
        client_secret: 'lin_oauth_secret_Wq3Er5Ty7Ui9Op1As3Df',
        refresh_token: 'lin_refresh_3e8Yq1Tn7Vb5Xc2Mz9Ka4Ld6',
      },
      onTokenRefresh: (tokens: unknown) => {
        refreshed.push(tokens);
      },
    });

    const page = await connector.execute('teams', 'list', { first: 10 });
    expect(page.data).toEqual([teamNode]);
    expect(page.pagination).toEqual({ hasNextPage: false, endCursor: 'NGExZjVjMmU' });
    const user = await connector.execute('users', 'get', { id: USER_ADA.id });
    expect(user.data).toEqual(userNode);

    expect(refreshed).toHaveLength(1);
    expect(tokenScope.isDone()).toBe(true);
    expect(listScope.isDone()).toBe(true);
    expect(getScope.isDone()).toBe(true);
  });
});

describe('linear: errors', () => {
  it('a GraphQL errors array (HTTP 200) becomes an UpstreamRejectedError carrying the message', async () => {
    const scope = graphql(
      'issues',
      'get',
      { id: 'ENG-99999' },
      {
        errors: [
          {
            message: 'Entity not found: Issue',
            path: ['issue'],
            locations: [{ line: 2, column: 3 }],
            extensions: {
              type: 'invalid input',
              code: 'INPUT_ERROR',
              statusCode: 400,
              userError: true,
              userPresentableMessage: 'Could not find referenced Issue.',
            },
          },
        ],
        data: null,
      },
    );
    const error = await rejection(() => linear().execute('issues', 'get', { id: 'ENG-99999' }));
    expect(error).toBeInstanceOf(UpstreamRejectedError);
    expect(error.upstreamStatus).toBe(200);
    expect(String(error.message)).toContain('Entity not found: Issue');
    expect(scope.isDone()).toBe(true);
  });
});

describe('linear: validation (no request is sent)', () => {
  const untouched = () => nock(API).post('/graphql').reply(200, { data: {} });

  it('first above 250 is rejected with rule maximum', async () => {
    const scope = untouched();
    const error = await rejection(() => linear().execute('issues', 'list', { first: 251 }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'first', rule: 'maximum' })]));
    expect(scope.isDone()).toBe(false);
  });

  it('issue priority 5 is rejected with rule maximum', async () => {
    const scope = untouched();
    const error = await rejection(() => linear().execute('issues', 'create', { teamId: TEAM_ENG.id, title: 'Too urgent', priority: 5 }));
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual(expect.arrayContaining([expect.objectContaining({ field: 'priority', rule: 'maximum' })]));
    expect(scope.isDone()).toBe(false);
  });

  it('issue create without teamId and title reports both at once', async () => {
    const scope = untouched();
    const error = await rejection(() => linear().execute('issues', 'create', { description: 'orphan' }));
    expect(error).toBeInstanceOf(ValidationError);
    const fields = (error.issues as Array<{ field: string }>).map((issue) => issue.field);
    expect(fields).toEqual(expect.arrayContaining(['teamId', 'title']));
    expect(scope.isDone()).toBe(false);
  });
});
