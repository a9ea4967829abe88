/**
 * The token endpoint's limit on failed attempts, over a running service: 20 wrong client secrets from one
 * address within a minute, then 429 too_many_attempts with Retry-After and no hashing; other addresses (as a
 * trusted proxy names them) keep their own budget; and the limiter itself on a fake clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { attemptSource, FAILED_TOKEN_REQUESTS_PER_MINUTE } from '../../src/routes/token.js';
import { AttemptLimiter } from '../../src/security/attempt-limiter.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const TOKEN = '/api/v1/account/applications/token';

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; error_code: string }>;
}

async function tokenRequest(service: TestService, body: Record<string, string>, forwardedFor?: string) {
  const response = await fetch(`${service.url}${TOKEN}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(forwardedFor !== undefined && { 'x-forwarded-for': forwardedFor }) },
    body: JSON.stringify(body),
  });
  return { status: response.status, retryAfter: response.headers.get('retry-after'), body: (await response.json()) as ErrorBody };
}

describe('failed token requests', () => {
  let service: TestService;
  let tenant: Tenant;
  beforeAll(async () => {
    service = await startTestService('pglite', { trustProxy: 1 });
    tenant = await createTenant(service);
  });
  afterAll(async () => service?.close());

  it('refuses an address after 20 wrong secrets for a client in a minute, with 429 and Retry-After, while other addresses and clients go on', async () => {
    const wrong = { client_id: tenant.clientId, client_secret: 'wrong-secret' };
    const attempts = await Promise.all(Array.from({ length: FAILED_TOKEN_REQUESTS_PER_MINUTE }, () => tokenRequest(service, wrong, '203.0.113.7')));
    expect(attempts.map((a) => a.status)).toEqual(Array(FAILED_TOKEN_REQUESTS_PER_MINUTE).fill(401));

    for (const body of [wrong, { client_id: tenant.clientId, client_secret: tenant.clientSecret }]) {
      const refused = await tokenRequest(service, body, '203.0.113.7');
      expect(refused.status).toBe(429);
      expect(refused.body.errors[0]?.error_code).toBe('too_many_attempts');
      expect(refused.body.message).toMatch(/^Too many failed token requests from this address within a minute: try again in \d+ s\.$/);
      expect(Number(refused.retryAfter)).toBeGreaterThanOrEqual(1);
      expect(Number(refused.retryAfter)).toBeLessThanOrEqual(60);
    }

    // Another client address behind the same proxy has its own budget, and the right secret works there.
    const elsewhere = await tokenRequest(service, { client_id: tenant.clientId, client_secret: tenant.clientSecret }, '198.51.100.20');
    expect(elsewhere.status).toBe(200);
    // So does another client behind the same address (a shared NAT): the budget is per address and client_id.
    const neighbour = await createTenant(service, 'Neighbour');
    expect((await tokenRequest(service, { client_id: neighbour.clientId, client_secret: neighbour.clientSecret }, '203.0.113.7')).status).toBe(200);
  });

  it('does not count successful requests', async () => {
    for (let i = 0; i < FAILED_TOKEN_REQUESTS_PER_MINUTE + 5; i++) {
      expect((await tokenRequest(service, { client_id: tenant.clientId, client_secret: tenant.clientSecret }, '198.51.100.30')).status).toBe(200);
    }
  });
});

describe('AttemptLimiter', () => {
  it('counts failures and attempts under way per source, and forgets them when the window ends', () => {
    let now = 1_000_000;
    const limiter = new AttemptLimiter(2, 60_000, 10_000, () => now);
    limiter.begin('a');
    limiter.begin('a');
    expect(limiter.refusal('a')).toBe(60);
    limiter.settle('a', true);
    expect(limiter.refusal('a')).toBeUndefined();
    limiter.settle('a', false);
    limiter.begin('a');
    limiter.settle('a', false);
    now += 45_000;
    expect(limiter.refusal('a')).toBe(15);
    expect(limiter.refusal('b')).toBeUndefined();
    now += 15_000;
    expect(limiter.refusal('a')).toBeUndefined();
  });

  it('keeps at most maxSources sources, forgetting the oldest', () => {
    const limiter = new AttemptLimiter(1, 60_000, 2);
    for (const source of ['a', 'b', 'c']) {
      limiter.begin(source);
      limiter.settle(source, false);
    }
    expect(limiter.refusal('a')).toBeUndefined();
    expect(limiter.refusal('b')).toBeGreaterThan(0);
    expect(limiter.refusal('c')).toBeGreaterThan(0);
  });
});

describe('the source of an attempt', () => {
  it('is an IPv4 address whole, and an IPv6 one by its /64', () => {
    expect(attemptSource('203.0.113.7')).toBe('203.0.113.7');
    expect(attemptSource('::ffff:10.0.0.1')).toBe('10.0.0.1');
    expect(attemptSource('2001:db8:1:2:3:4:5:6')).toBe('2001:db8:1:2::/64');
    expect(attemptSource('2001:db8:1:2::9')).toBe('2001:db8:1:2::/64');
    expect(attemptSource('2001:db8::')).toBe('2001:db8:0:0::/64');
  });
});

describe('TRUST_PROXY', () => {
  it('takes a hop count or proxy addresses and subnets, and names a bad entry', () => {
    expect(loadConfig({ TRUST_PROXY: '1' }).trustProxy).toBe(1);
    expect(loadConfig({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1,::1' }).trustProxy).toEqual(['10.0.0.0/8', '127.0.0.1', '::1']);
    expect(loadConfig({}).trustProxy).toBeUndefined();
    expect(() => loadConfig({ TRUST_PROXY: '0' })).toThrow('TRUST_PROXY as a hop count must be from 1 to 10; got 0.');
    for (const bad of ['true', '10.0.0.0/33', 'proxy.internal', '10.0.0.1/8/2']) {
      expect(() => loadConfig({ TRUST_PROXY: bad }), bad).toThrow(`"${bad}" is not one`);
    }
  });
});
