/**
 * Params as clients written for other services send them: null for none, a universal `limit` on every
 * list (sent as the list's own page-size param), and scalars typed as text. Each case asserts the exact
 * upstream request with nock.
 */
import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { createConnector, limitPlan, ValidationError, connectorModules, type ActionDefinition } from '../../runtime/index.js';

const harvestApi = () => nock('https://api.harvestapp.com').matchHeader('authorization', 'Bearer harvest-pat-0001').matchHeader('harvest-account-id', '123456');
const harvest = () => createConnector('harvest', { credentials: { api_token: 'harvest-pat-0001', account_id: '123456' } });
const usersPage = { users: [{ id: 1 }], links: { next: null } };

async function validationError(run: () => Promise<unknown>): Promise<ValidationError> {
  try {
    await run();
  } catch (error) {
    expect(error).toBeInstanceOf(ValidationError);
    return error as ValidationError;
  }
  throw new Error('expected a ValidationError');
}

afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

describe('params: null', () => {
  it('means no params', async () => {
    harvestApi().get('/v2/users').reply(200, usersPage);
    expect((await harvest().execute('users', 'list', null)).data).toEqual([{ id: 1 }]);
  });
});

describe('the universal limit', () => {
  it('Harvest: limit 1 is sent as per_page=1, as text too', async () => {
    harvestApi().get('/v2/users').query({ per_page: '1' }).reply(200, usersPage);
    await harvest().execute('users', 'list', { limit: 1 });
    harvestApi()
      .get('/v2/clients')
      .query({ per_page: '7' })
      .reply(200, { clients: [], links: { next: null } });
    await harvest().execute('clients', 'list', { limit: '7' });
  });

  it('is clamped to the page-size maximum (Harvest 2000)', async () => {
    harvestApi().get('/v2/users').query({ per_page: '2000' }).reply(200, usersPage);
    await harvest().execute('users', 'list', { limit: 50_000 });
  });

  it("the list's own page-size param wins when both are given", async () => {
    harvestApi().get('/v2/users').query({ per_page: '25' }).reply(200, usersPage);
    await harvest().execute('users', 'list', { limit: 1, per_page: 25 });
  });

  it('Linear GraphQL: limit becomes the first variable, clamped to 250', async () => {
    const linear = createConnector('linear', { credentials: { api_key: 'lin_api_0001' } });
    const document = (connectorModules.linear?.definition.entities.users?.actions.list as ActionDefinition | undefined)?.graphql?.document;
    for (const [limit, first] of [
      [1, 1],
      [1000, 250],
    ] as const) {
      nock('https://api.linear.app')
        .matchHeader('authorization', 'lin_api_0001')
        .post('/graphql', { query: document as string, variables: { first } })
        .reply(200, { data: { users: { nodes: [{ id: 'u1' }], pageInfo: { hasNextPage: false, endCursor: null } } } });
      expect((await linear.execute('users', 'list', { limit })).data).toEqual([{ id: 'u1' }]);
    }
  });

  it('must be a positive integer', async () => {
    for (const limit of [0, -3, 1.5, 'ten', true]) {
      const error = await validationError(() => harvest().execute('users', 'list', { limit }));
      expect(error.issues).toEqual([expect.objectContaining({ field: 'limit', rule: 'type' })]);
    }
  });

  it('is not a param of actions returning one record: still a 400 naming it', async () => {
    const error = await validationError(() => harvest().execute('users', 'get', { id: 1, limit: 1 }));
    expect(error.issues).toEqual([{ field: 'limit', rule: 'unknown', message: 'limit is not a known parameter' }]);
  });

  it('is found for every list: a page-size param within the declared range, or a cut page', () => {
    for (const module of Object.values(connectorModules)) {
      for (const entity of Object.values(module.definition.entities)) {
        for (const action of Object.values(entity.actions)) {
          const plan = limitPlan(action);
          if (action.result === 'one') expect(plan).toBeUndefined();
          else if ('limit' in action.params) expect(plan).toBeUndefined();
          else {
            expect(plan, `${module.definition.connectorType}.${entity.name}.${action.name}`).toBeDefined();
            if (plan?.param !== undefined) expect(action.params[plan.param]?.schema.type).toBe('integer');
          }
        }
      }
    }
    const planOf = (type: string, entity: string) => limitPlan(connectorModules[type]?.definition.entities[entity]?.actions.list as ActionDefinition);
    expect(planOf('harvest', 'users')).toEqual({ param: 'per_page', minimum: 1, maximum: 2000 });
    expect(planOf('jira', 'projects')).toMatchObject({ param: 'maxResults', maximum: 100 });
    expect(planOf('klaviyo', 'profiles')).toMatchObject({ param: 'page[size]' });
    expect(planOf('clickup', 'teams')).toEqual({});
  });
});

describe('scalars given as text', () => {
  it('an integer id given as a string of digits is that integer', async () => {
    harvestApi().get('/v2/users/1001').reply(200, { id: 1001 });
    expect((await harvest().execute('users', 'get', { id: '1001' })).data).toEqual({ id: 1001 });
  });

  it('a string that is not an integer is still refused', async () => {
    const error = await validationError(() => harvest().execute('users', 'get', { id: '10a' }));
    expect(error.issues).toEqual([expect.objectContaining({ field: 'id', rule: 'type' })]);
  });

  it('"true" and "false" for a boolean param', async () => {
    const sentry = createConnector('sentry', { credentials: { auth_token: 'sntrys_0001' } });
    nock('https://sentry.io')
      .matchHeader('authorization', 'Bearer sntrys_0001')
      .get('/api/0/organizations/')
      .query({ owner: 'true' })
      .reply(200, [{ slug: 'acme' }]);
    expect((await sentry.execute('organizations', 'list', { owner: 'true' })).data).toEqual([{ slug: 'acme' }]);
  });

  it('the items of an array param likewise: Jira project ids as strings of digits are those integers', async () => {
    const jira = createConnector('jira', { credentials: { email: 'ana@acme.com', api_token: 'jira-token-0001' }, config: { subdomain: 'acme' } });
    nock('https://acme.atlassian.net')
      .get('/rest/api/3/project/search')
      .query({ id: ['10000', '10001'] })
      .reply(200, { startAt: 0, maxResults: 50, total: 0, isLast: true, values: [] });
    expect((await jira.execute('projects', 'api_search', { id: ['10000', 10001] })).data).toEqual([]);

    const error = await validationError(() => jira.execute('projects', 'api_search', { id: ['10000', 'ten'] }));
    expect(error.issues).toEqual([expect.objectContaining({ field: 'id.1', rule: 'type' })]);
  });

  it('unknown params stay refused, named', async () => {
    const error = await validationError(() => harvest().execute('users', 'list', { limt: 1 }));
    expect(error.issues).toEqual([{ field: 'limt', rule: 'unknown', message: 'limt is not a known parameter' }]);
  });
});
