import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  createConnector,
  CredentialsError,
  RateLimitedError,
  HostedOnlyError,
  UnknownOperationError,
  ValidationError,
  harvestFacade,
  jiraFacade,
} from '../../runtime/index.js';

const harvestCredentials = { api_token: 'pat', account_id: '42' };

describe('execute: validation, operations and credentials', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
  });

  it('reports every violation at once: missing required, wrong type, over a max, unknown param', async () => {
    const jira = createConnector('jira', { credentials: { email: 'a@b.co', api_token: 't' }, config: { subdomain: 'acme' } });
    const error = (await jira
      .execute('issues', 'get', { fields: 3, expand: 'names', bogus: true } as Record<string, unknown>)
      .catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    const byRule = Object.fromEntries(error.issues.map((i) => [i.rule, i.field]));
    expect(byRule).toMatchObject({ required: 'issueIdOrKey', type: 'fields', unknown: 'bogus' });

    const search = (await jira
      .execute('issues', 'api_search', { jql: 'project = A', maxResults: 5001, failFast: 'yes' })
      .catch((e: unknown) => e)) as ValidationError;
    expect(search.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'maxResults', rule: 'maximum', limit: 5000 }),
        expect.objectContaining({ field: 'failFast', rule: 'type', limit: 'boolean' }),
      ]),
    );
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('names the valid entities and actions for an unknown one', async () => {
    const harvest = createConnector('harvest', { credentials: harvestCredentials });
    await expect(harvest.execute('nope', 'list')).rejects.toThrow(/Unknown entity "nope".*users, clients/);
    await expect(harvest.execute('company', 'list')).rejects.toThrow(/Unknown action "list" for company. Valid actions: get/);
    await expect(harvest.execute('company', 'list')).rejects.toBeInstanceOf(UnknownOperationError);
  });

  it('answers context_store_search with a hosted-mode-only error in library mode', async () => {
    const harvest = createConnector('harvest', { credentials: harvestCredentials });
    const error = (await harvest.execute('users', 'context_store_search', { query: {} }).catch((e: unknown) => e)) as HostedOnlyError;
    expect(error).toBeInstanceOf(HostedOnlyError);
    expect(error.message).toMatch(/only in hosted mode/);
  });

  it('rejects an unknown connector type, listing the known ones', () => {
    expect(() => createConnector('nope', { credentials: {} })).toThrow(/Known types: .*harvest/);
  });

  it('infers the auth option from the fields given, or reports what each option needs', () => {
    expect(createConnector('harvest', { credentials: harvestCredentials }).authOptionTitle).toBe('Personal Access Token');
    expect(createConnector('harvest', { credentials: { client_id: 'a', client_secret: 'b', refresh_token: 'c', account_id: '1' } }).authOptionTitle).toBe(
      'OAuth2.0',
    );
    const error = (() => {
      try {
        createConnector('harvest', { credentials: { account_id: '1', password: 'hunter2' } });
      } catch (e) {
        return e as CredentialsError;
      }
    })();
    expect(error).toBeInstanceOf(CredentialsError);
    expect(error?.message).toContain('(account_id, password)');
    expect(error?.message).toContain('"OAuth2.0" (requires client_id, client_secret, refresh_token, account_id)');
    expect(error?.message).not.toContain('hunter2');
  });

  it('selects an option by option_title and rejects fields it does not declare', () => {
    expect(() =>
      createConnector('harvest', { credentials: { option_title: 'Personal Access Token', api_token: 'x', account_id: '1', refresh_token: 'r' } }),
    ).toThrow(/"refresh_token" is not a field of option "Personal Access Token"/);
    expect(() => createConnector('harvest', { credentials: { option_title: 'Magic', api_token: 'x' } })).toThrow(/not offered/);
  });

  it('rejects a tenant subdomain that would point the request at another host', async () => {
    for (const subdomain of ['evil.com/x', 'evil.com#', 'a.b', '']) {
      expect(() => createConnector('jira', { credentials: { email: 'a@b.co', api_token: 't' }, config: { subdomain } })).toThrow(ValidationError);
    }
  });

  it('offers a typed facade generated from the manifests', async () => {
    const scope = nock('https://acme.atlassian.net')
      .get('/rest/api/3/issue/ABC-1')
      .query({ fields: 'summary' })
      .reply(200, { id: '10001', key: 'ABC-1', fields: { summary: 'Hello' } });
    const jira = jiraFacade(createConnector('jira', { credentials: { email: 'a@b.co', api_token: 't' }, config: { subdomain: 'acme' } }));
    const issue = await jira.issues.get({ issueIdOrKey: 'ABC-1', fields: 'summary' });
    expect(issue.data.key).toBe('ABC-1');
    expect(scope.isDone()).toBe(true);

    const harvest = harvestFacade(createConnector('harvest', { credentials: harvestCredentials }));
    nock('https://api.harvestapp.com').get('/v2/company').reply(200, { base_uri: 'https://acme.harvestapp.com', name: 'Acme' });
    const company = await harvest.company.get();
    expect(company.data.name).toBe('Acme');
  });
});

describe('execute: rules beyond single params', () => {
  it('refuses an update that would change nothing, before sending it', async () => {
    const linear = createConnector('linear', { credentials: { api_key: 'lin_api_x' } });
    const error = (await linear.execute('issues', 'update', { id: 'ENG-1' }).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([
      {
        field: 'params',
        rule: 'at_least_one_of',
        message: 'issues.update needs at least one of: title, description, stateId, priority, assigneeId, projectId',
        limit: ['title', 'description', 'stateId', 'priority', 'assigneeId', 'projectId'],
      },
    ]);
  });

  it('classifies GraphQL error codes before the HTTP status, and refreshes once on an auth error', async () => {
    const linear = createConnector('linear', { credentials: { api_key: 'lin_api_x' }, http: { retries: 0 } });
    nock('https://api.linear.app')
      .post('/graphql')
      .reply(400, { errors: [{ message: 'Rate limit exceeded', extensions: { code: 'RATELIMITED' } }] }, { 'Retry-After': '30' });
    const limited = (await linear.execute('teams', 'list').catch((e: unknown) => e)) as RateLimitedError;
    expect(limited).toBeInstanceOf(RateLimitedError);
    expect(limited.retryAfterSeconds).toBe(30);

    nock('https://api.linear.app')
      .post('/graphql')
      .reply(400, { errors: [{ message: 'Authentication required', extensions: { type: 'authentication error', code: 'AUTHENTICATION_ERROR' } }] });
    await expect(linear.execute('teams', 'list')).rejects.toBeInstanceOf(AuthenticationError);

    const oauth = createConnector('linear', { credentials: { client_id: 'c', client_secret: 's', refresh_token: 'r', access_token: 'old' } });
    nock('https://api.linear.app')
      .post('/graphql')
      .matchHeader('authorization', 'Bearer old')
      .reply(400, { errors: [{ message: 'expired', extensions: { code: 'AUTHENTICATION_ERROR' } }] })
      .post('/oauth/token')
      .reply(200, { access_token: 'new', expires_in: 3600 })
      .post('/graphql')
      .matchHeader('authorization', 'Bearer new')
      .reply(200, { data: { teams: { nodes: [], pageInfo: { hasNextPage: false, endCursor: null } } } });
    expect((await oauth.execute('teams', 'list')).data).toEqual([]);
    expect(nock.pendingMocks()).toEqual([]);
  });
});
