import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  AuthenticationError,
  createConnector,
  NotFoundError,
  RateLimitedError,
  UpstreamError,
  UpstreamRejectedError,
  UpstreamTimeoutError,
} from '../../runtime/index.js';
import { parseRetryAfter } from '../../runtime/http.js';

const API = 'https://api.harvestapp.com';
const credentials = { api_token: 'pat-secret-token', account_id: '42' };
const fast = { retries: 3, retryBaseMs: 1, retryMaxMs: 5, maxRetryAfterMs: 2_000 };
const page = { users: [{ id: 1 }], links: { next: null } };

function linear() {
  return createConnector('linear', { credentials: { api_key: 'lin_api_secret' }, http: fast });
}

describe('HTTP behaviour', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
  });

  it('waits for Retry-After on 429 and retries an idempotent read', async () => {
    const limited = nock(API).get('/v2/users').reply(429, { message: 'slow down' }, { 'Retry-After': '1' });
    const ok = nock(API).get('/v2/users').reply(200, page);
    const started = Date.now();
    const result = await createConnector('harvest', { credentials, http: fast }).execute('users', 'list');
    expect(Date.now() - started).toBeGreaterThanOrEqual(950);
    expect(result.data).toEqual([{ id: 1 }]);
    expect(limited.isDone() && ok.isDone()).toBe(true);
  });

  it('retries 502, 503 and 504 with backoff, then succeeds', async () => {
    const scope = nock(API).get('/v2/users').reply(502).get('/v2/users').reply(503).get('/v2/users').reply(504).get('/v2/users').reply(200, page);
    const result = await createConnector('harvest', { credentials, http: fast }).execute('users', 'list');
    expect(result.data).toEqual([{ id: 1 }]);
    expect(scope.isDone()).toBe(true);
  });

  it('retries a network error on a read', async () => {
    const scope = nock(API)
      .get('/v2/users')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .get('/v2/users')
      .reply(200, page);
    const result = await createConnector('harvest', { credentials, http: fast }).execute('users', 'list');
    expect(result.data).toEqual([{ id: 1 }]);
    expect(scope.isDone()).toBe(true);
  });

  it('stops after the configured retries and reports the last upstream status', async () => {
    nock(API).get('/v2/users').times(4).reply(503, { message: 'down' });
    const error = (await createConnector('harvest', { credentials, http: fast })
      .execute('users', 'list')
      .catch((e: unknown) => e)) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.upstreamStatus).toBe(503);
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('never sends a create twice: a 503 on a GraphQL mutation is not retried', async () => {
    const mutation = nock('https://api.linear.app')
      .post('/graphql')
      .once()
      .reply(503, { errors: [{ message: 'unavailable' }] });
    const spare = nock('https://api.linear.app').post('/graphql').reply(200, { data: {} });
    const error = await linear()
      .execute('issues', 'create', { teamId: 't1', title: 'Broken' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamError);
    expect(mutation.isDone()).toBe(true);
    expect(spare.isDone()).toBe(false);
  });

  it('does not retry a 429 on a create either, and passes Retry-After on', async () => {
    nock('https://api.linear.app')
      .post('/graphql')
      .reply(429, { errors: [{ message: 'ratelimited' }] }, { 'Retry-After': '7' });
    const error = (await linear()
      .execute('issues', 'create', { teamId: 't1', title: 'x' })
      .catch((e: unknown) => e)) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterSeconds).toBe(7);
  });

  it('returns a Retry-After beyond the cap to the caller instead of waiting', async () => {
    nock(API).get('/v2/users').reply(429, {}, { 'Retry-After': '3600' });
    const error = (await createConnector('harvest', { credentials, http: fast })
      .execute('users', 'list')
      .catch((e: unknown) => e)) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.retryAfterSeconds).toBe(3600);
  });

  it('waits on Retry-After at most maxRetryAfterMs in all: a call does not wait that long once per retry', async () => {
    // The first 429's second is waited; another would make 2 s, past the 1.5 s cap: the second 429 goes back at once.
    nock(API).get('/v2/users').times(3).reply(429, {}, { 'Retry-After': '1' });
    const error = (await createConnector('harvest', { credentials, http: { ...fast, maxRetryAfterMs: 1_500 } })
      .execute('users', 'list')
      .catch((e: unknown) => e)) as RateLimitedError;
    expect(error).toBeInstanceOf(RateLimitedError);
    expect(error.message).toBe('The vendor asked to wait 1 s before retrying, after 1 s of waiting already: more than the 1.5 s this client waits in all.');
    expect(error.retryAfterSeconds).toBe(1);
    // Two requests were sent, not three.
    expect(nock.pendingMocks()).toHaveLength(1);
    nock.cleanAll();
  });

  it('stops at once when the signal is aborted: no retry, no wait, the reason is thrown', async () => {
    nock(API).get('/v2/users').times(4).reply(429, {}, { 'Retry-After': '1' });
    const gone = new AbortController();
    const reason = new Error('the caller went away');
    const call = createConnector('harvest', { credentials, http: { ...fast, maxRetryAfterMs: 10_000 } }).execute('users', 'list', {}, { signal: gone.signal });
    setTimeout(() => gone.abort(reason), 100);
    await expect(call).rejects.toBe(reason);
    // One request, then the abort ended the wait for the next.
    expect(nock.pendingMocks()).toHaveLength(1);
    nock.cleanAll();
    const aborted = new AbortController();
    aborted.abort(reason);
    await expect(createConnector('harvest', { credentials, http: fast }).execute('users', 'list', {}, { signal: aborted.signal })).rejects.toBe(reason);
  });

  it('parses Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120);
    expect(parseRetryAfter('Thu, 01 Jan 2026 00:00:30 GMT', now)).toBe(30);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(null, now)).toBeUndefined();
  });

  it('times out a slow vendor with UpstreamTimeoutError', async () => {
    nock(API).get('/v2/users').delay(500).reply(200, page);
    const error = await createConnector('harvest', { credentials, http: { ...fast, timeoutMs: 100, retries: 0 } })
      .execute('users', 'list')
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
  });

  it('maps 404 and 422 and an unparseable body', async () => {
    nock(API).get('/v2/users/9').reply(404, { message: 'Not found' });
    nock(API).get('/v2/users/8').reply(422, { message: 'bad' });
    nock(API).get('/v2/users/7').reply(200, '<html>oops</html>');
    const harvest = createConnector('harvest', { credentials, http: fast });
    await expect(harvest.execute('users', 'get', { id: 9 })).rejects.toBeInstanceOf(NotFoundError);
    await expect(harvest.execute('users', 'get', { id: 8 })).rejects.toBeInstanceOf(UpstreamRejectedError);
    await expect(harvest.execute('users', 'get', { id: 7 })).rejects.toThrow(/not JSON/);
  });

  it('names a network failure by its code, never by a message that could carry the request', async () => {
    const { createServer } = await import('node:net');
    const port = await new Promise<number>((resolve) => {
      const server = createServer().listen(0, '127.0.0.1', () => {
        const address = server.address();
        server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
      });
    });
    nock.enableNetConnect('127.0.0.1');
    try {
      const error = (await createConnector('harvest', { credentials, baseUrl: `http://127.0.0.1:${port}/v2`, http: { ...fast, retries: 0 } })
        .execute('users', 'list')
        .catch((e: unknown) => e)) as Error;
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error.message).toBe(`The vendor could not be reached (GET http://127.0.0.1:${port}/v2/users): ECONNREFUSED.`);
    } finally {
      nock.disableNetConnect();
    }
  });

  it('never puts a credential in an error message, even when the vendor echoes it', async () => {
    nock(API).get('/v2/users').reply(403, { message: 'token pat-secret-token has no access' });
    const error = (await createConnector('harvest', { credentials, http: fast })
      .execute('users', 'list')
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toContain('[redacted]');
    expect(error.message).not.toContain('pat-secret-token');
  });

  it('redacts an echoed credential in any letter case', async () => {
    nock(API).get('/v2/users').reply(400, { message: 'auth=Bearer PAT-SECRET-TOKEN lower=bearer pat-secret-token mixed=Pat-Secret-Token' });
    const error = (await createConnector('harvest', { credentials, http: fast })
      .execute('users', 'list')
      .catch((e: unknown) => e)) as Error;
    expect(error.message).toBe('The vendor rejected the request (HTTP 400): auth=Bearer [redacted] lower=bearer [redacted] mixed=[redacted]');
  });

  it('never puts a Basic credential in an error message when the vendor echoes the header or a URL-encoded secret', async () => {
    const jira = { email: 'me@acme.com', api_token: 'SUPER/SECRET+123!' };
    const basic = Buffer.from(`${jira.email}:${jira.api_token}`).toString('base64');
    nock('https://acme.atlassian.net')
      .get('/rest/api/3/issue/A-1')
      .matchHeader('authorization', `Basic ${basic}`)
      .reply(401, {
        message: [
          `bad auth header Basic ${basic}`,
          `(token ${encodeURIComponent(jira.api_token)}, form ${new URLSearchParams({ t: jira.api_token }).toString().slice(2)},`,
          `lower ${encodeURIComponent(jira.api_token).replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase())}, b64url ${Buffer.from(`${jira.email}:${jira.api_token}`).toString('base64url')},`,
          `alone ${Buffer.from(jira.api_token).toString('base64').replace(/=+$/, '')})`,
        ].join(' '),
      });
    const error = (await createConnector('jira', { credentials: jira, config: { subdomain: 'acme' }, http: fast })
      .execute('issues', 'get', { issueIdOrKey: 'A-1' })
      .catch((e: unknown) => e)) as Error;
    expect(error).toBeInstanceOf(AuthenticationError);
    expect(error.message).toBe(
      'The vendor refused the credentials (HTTP 401): bad auth header Basic [redacted] (token [redacted], form [redacted], lower [redacted], b64url [redacted], alone [redacted])',
    );
  });
});
