import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, createConnector, type TokenRefresh } from '../../runtime/index.js';

const API = 'https://api.harvestapp.com';
const ID = 'https://id.getharvest.com';
const credentials = {
  client_id: 'cid',
  client_secret: 'csecret-value',
  refresh_token: 'refresh-1',
  account_id: '42',
};
const page = { users: [{ id: 1 }], links: { next: null } };

function tokenEndpoint(refreshToken: string, answer: Record<string, unknown>, times = 1) {
  return nock(ID)
    .post('/api/v2/oauth2/token', { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: 'cid', client_secret: 'csecret-value' })
    .matchHeader('content-type', 'application/x-www-form-urlencoded')
    .times(times)
    .reply(200, answer);
}

describe('OAuth2 refresh-token auth', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    vi.useRealTimers();
  });

  it('refreshes when no access token is given, then reuses the cached token', async () => {
    const token = tokenEndpoint('refresh-1', { access_token: 'access-A', expires_in: 3600, token_type: 'bearer' });
    const api = nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-A').times(2).reply(200, page);
    const harvest = createConnector('harvest', { credentials });
    await harvest.execute('users', 'list');
    await harvest.execute('users', 'list');
    expect(token.isDone()).toBe(true);
    expect(api.isDone()).toBe(true);
  });

  it('refreshes shortly before the token expires', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    tokenEndpoint('refresh-1', { access_token: 'access-A', expires_in: 3600 });
    tokenEndpoint('refresh-1', { access_token: 'access-B', expires_in: 3600 });
    const first = nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-A').reply(200, page);
    const second = nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-B').reply(200, page);
    const harvest = createConnector('harvest', { credentials });
    await harvest.execute('users', 'list');
    vi.setSystemTime(Date.now() + 3600_000 - 30_000);
    await harvest.execute('users', 'list');
    expect(first.isDone() && second.isDone()).toBe(true);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('uses a token that lives a minute or less without refreshing it again at once', async () => {
    const token = tokenEndpoint('refresh-1', { access_token: 'short', expires_in: 30 });
    const extra = tokenEndpoint('refresh-1', { access_token: 'again', expires_in: 30 });
    nock(API).get('/v2/users').matchHeader('authorization', 'Bearer short').reply(200, page);
    await createConnector('harvest', { credentials }).execute('users', 'list');
    expect(token.isDone()).toBe(true);
    expect(extra.isDone()).toBe(false);
  });

  it('shares one refresh among 10 concurrent calls', async () => {
    const token = tokenEndpoint('refresh-1', { access_token: 'access-A', expires_in: 3600 });
    const extraRefresh = tokenEndpoint('refresh-1', { access_token: 'access-X', expires_in: 3600 });
    const api = nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-A').times(10).reply(200, page);
    const harvest = createConnector('harvest', { credentials });
    const results = await Promise.all(Array.from({ length: 10 }, () => harvest.execute('users', 'list')));
    expect(results).toHaveLength(10);
    expect(token.isDone()).toBe(true);
    expect(extraRefresh.isDone()).toBe(false);
    expect(api.isDone()).toBe(true);
  });

  it('answers an upstream 401 with exactly one refresh and one retry', async () => {
    const token = tokenEndpoint('refresh-1', { access_token: 'access-B', expires_in: 3600 });
    const rejected = nock(API).get('/v2/users').matchHeader('authorization', 'Bearer stale').reply(401, { error: 'invalid_token' });
    const retried = nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-B').reply(200, page);
    const harvest = createConnector('harvest', { credentials: { ...credentials, access_token: 'stale' } });
    const result = await harvest.execute('users', 'list');
    expect(result.data).toEqual([{ id: 1 }]);
    expect(token.isDone() && rejected.isDone() && retried.isDone()).toBe(true);
  });

  it('gives up after one refresh when the fresh token is refused too', async () => {
    tokenEndpoint('refresh-1', { access_token: 'access-B', expires_in: 3600 });
    nock(API).get('/v2/users').matchHeader('authorization', 'Bearer stale').reply(401, {});
    nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-B').reply(401, { message: 'nope' });
    const harvest = createConnector('harvest', { credentials: { ...credentials, access_token: 'stale' } });
    const error = await harvest.execute('users', 'list').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AuthenticationError);
    expect((error as AuthenticationError).upstreamStatus).toBe(401);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('hands a rotated refresh token to the callback and uses it next time', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    tokenEndpoint('refresh-1', { access_token: 'access-A', refresh_token: 'refresh-2', expires_in: 3600 });
    tokenEndpoint('refresh-2', { access_token: 'access-B', refresh_token: 'refresh-2', expires_in: 3600 });
    nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-A').reply(200, page);
    nock(API).get('/v2/users').matchHeader('authorization', 'Bearer access-B').reply(200, page);
    const refreshes: TokenRefresh[] = [];
    const harvest = createConnector('harvest', { credentials, onTokenRefresh: (r) => void refreshes.push(r) });
    await harvest.execute('users', 'list');
    vi.setSystemTime(Date.now() + 7200_000);
    await harvest.execute('users', 'list');
    expect(refreshes.map((r) => [r.access_token, r.refresh_token, r.rotated])).toEqual([
      ['access-A', 'refresh-2', true],
      ['access-B', 'refresh-2', false],
    ]);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('reports a refused refresh without leaking the secrets', async () => {
    nock(ID).post('/api/v2/oauth2/token').reply(400, { error: 'invalid_grant', error_description: 'refresh token refresh-1 is revoked; secret csecret-value' });
    const harvest = createConnector('harvest', { credentials });
    const error = (await harvest.execute('users', 'list').catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toContain('HTTP 400');
    expect(error.message).not.toContain('refresh-1');
    expect(error.message).not.toContain('csecret-value');
  });

  it('reads an RFC 6749 error object sent with status 200 as a refused refresh, not a missing token', async () => {
    tokenEndpoint('refresh-1', { error: 'invalid_grant', error_description: 'The refresh token was revoked.' });
    const harvest = createConnector('harvest', { credentials });
    const error = (await harvest.execute('users', 'list').catch((e: unknown) => e)) as AuthenticationError;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe('The OAuth token refresh was refused (HTTP 200): The refresh token was revoked.');
    expect(error.upstreamStatus).toBe(200);
  });
});
