/**
 * Runtime rules every connector gets, checked against real HTTP servers on 127.0.0.1 (two ports = two
 * origins) that record every request they receive: redirects, credential headers across origins, the
 * response size cap, and very large pages.
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createConnector, UpstreamError, ValidationError } from '../../runtime/index.js';
import { isInternalHost } from '../../runtime/internal-hosts.js';
import { publicAddressLookup } from '../../runtime/transport.js';
import { resolveAs } from '../support/resolve-as.js';

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

interface Upstream {
  origin: string;
  seen: Seen[];
  handle: (seen: Seen, response: ServerResponse) => void;
  close(): Promise<void>;
}

async function upstream(): Promise<Upstream> {
  const state: Upstream = {
    origin: '',
    seen: [],
    handle: (_seen, response) => response.writeHead(404).end(),
    close: async () => undefined,
  };
  const server: Server = createServer((request, response) => {
    let body = '';
    request.setEncoding('utf8').on('data', (chunk: string) => (body += chunk));
    request.on('end', () => {
      const seen = { method: request.method ?? '', url: request.url ?? '', headers: request.headers, body };
      state.seen.push(seen);
      state.handle(seen, response);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  state.origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  state.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return state;
}

const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) =>
  response.writeHead(status, { 'content-type': 'application/json', ...headers }).end(JSON.stringify(body));
const redirect = (response: ServerResponse, status: number, location: string) => response.writeHead(status, { location }).end();

const TIKTOK_TOKEN = 'tiktok-access-token-secret';
const INTERCOM_TOKEN = 'intercom-token-secret';
const HARVEST = { api_token: 'harvest-pat-secret', account_id: '4242' };
const noRetry = { retries: 0 };

let vendor: Upstream;
let foreign: Upstream;

beforeAll(async () => {
  nock.enableNetConnect('127.0.0.1');
  vendor = await upstream();
  foreign = await upstream();
});
afterAll(async () => {
  await vendor.close();
  await foreign.close();
});
afterEach(() => {
  vendor.seen = [];
  foreign.seen = [];
});

const intercom = () => createConnector('intercom', { credentials: { access_token: INTERCOM_TOKEN }, baseUrl: vendor.origin, http: noRetry });
const tiktok = (http: Record<string, number> = noRetry) =>
  createConnector('tiktok-marketing', { credentials: { access_token: TIKTOK_TOKEN }, baseUrl: vendor.origin, http });
const harvest = (http: Record<string, number> = noRetry) => createConnector('harvest', { credentials: HARVEST, baseUrl: vendor.origin, http });
const campaignsPage = { code: 0, message: 'OK', data: { list: [{ campaign_id: '1' }], page_info: { page: 1, page_size: 10, total_number: 1, total_page: 1 } } };

describe('redirects of requests that change data', () => {
  for (const status of [301, 302, 303, 307, 308]) {
    it(`a ${status} to a create is an upstream error naming the Location host, and the create is sent once`, async () => {
      vendor.handle = (_seen, response) => redirect(response, status, `${foreign.origin}/contacts`);
      const error = (await intercom()
        .execute('contacts', 'create', { role: 'user', email: 'a@example.com' })
        .catch((e: unknown) => e)) as UpstreamError;
      expect(error).toBeInstanceOf(UpstreamError);
      expect(error.status).toBe(502);
      expect(error.upstreamStatus).toBe(status);
      expect(error.message).toContain(`redirecting to ${new URL(foreign.origin).host}`);
      expect(error.message).toContain('sent once');
      expect(vendor.seen.map((s) => `${s.method} ${s.url}`)).toEqual(['POST /contacts']);
      expect(foreign.seen).toEqual([]);
    });
  }

  it('a 307 loop on a create still sends exactly one request', async () => {
    vendor.handle = (_seen, response) => redirect(response, 307, '/contacts');
    await expect(intercom().execute('contacts', 'create', { role: 'lead' })).rejects.toBeInstanceOf(UpstreamError);
    expect(vendor.seen).toHaveLength(1);
  });
});

describe('path params', () => {
  it('refuses ".", ".." and "" before any request: as path segments they would reach another endpoint', async () => {
    const jira = createConnector('jira', {
      credentials: { email: 'a@example.com', api_token: 'jira-token' },
      config: { subdomain: 'acme' },
      baseUrl: vendor.origin,
    });
    for (const id of ['..', '.', '']) {
      const error = (await jira.execute('issue_comments', 'delete', { issueIdOrKey: 'ABC-1', id }).catch((e: unknown) => e)) as ValidationError;
      expect(error, JSON.stringify(id)).toBeInstanceOf(ValidationError);
      expect(error.issues.map((i) => [i.field, i.rule])).toEqual([['id', expect.stringMatching(/^(path_segment|minLength)$/)]]);
    }
    const dots = (await jira.execute('issues', 'get', { issueIdOrKey: '..' }).catch((e: unknown) => e)) as ValidationError;
    expect(dots.issues).toEqual([
      { field: 'issueIdOrKey', rule: 'path_segment', message: 'issueIdOrKey must not be "..": as a segment of the request path it would name another URL' },
    ]);
    expect(vendor.seen).toEqual([]);
    // Dots inside a value are part of it.
    vendor.handle = (_seen, response) => json(response, 200, { id: '1', key: 'A.B-1' });
    await jira.execute('issues', 'get', { issueIdOrKey: 'A.B-1' });
    expect(vendor.seen.map((s) => s.url)).toEqual(['/rest/api/3/issue/A.B-1']);
  });
});

describe('nesting', () => {
  it('refuses params nested more than 64 deep with the path where they do, before any request (a deeper value overflowed the stack)', async () => {
    const jira = createConnector('jira', {
      credentials: { email: 'a@example.com', api_token: 'jira-token' },
      config: { subdomain: 'acme' },
      baseUrl: vendor.origin,
    });
    let deep: unknown = 'x';
    for (let i = 0; i < 50_000; i++) deep = [deep];
    const error = (await jira
      .execute('issues', 'create', { fields: { project: { key: 'ABC' }, summary: 's', issuetype: { name: 'Task' }, customfield_1: deep } })
      .catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues).toEqual([
      {
        field: `fields.customfield_1${'[0]'.repeat(63)}`,
        rule: 'max_depth',
        message: `fields.customfield_1${'[0]'.repeat(63)} nests objects and arrays more than 64 deep`,
        limit: 64,
      },
    ]);
    expect(vendor.seen).toEqual([]);
  });
});

describe('redirects of reads', () => {
  it('follows a same-origin redirect, keeping the credential headers', async () => {
    vendor.handle = (seen, response) => (seen.url.startsWith('/moved/') ? json(response, 200, campaignsPage) : redirect(response, 302, `/moved${seen.url}`));
    const result = await tiktok().execute('campaigns', 'list', { advertiser_id: '7' });
    expect(result.data).toEqual([{ campaign_id: '1' }]);
    expect(vendor.seen).toHaveLength(2);
    expect(vendor.seen.map((s) => s.headers['access-token'])).toEqual([TIKTOK_TOKEN, TIKTOK_TOKEN]);
  });

  for (const status of [302, 307]) {
    it(`drops every credential header on a cross-origin ${status} (TikTok's Access-Token, Harvest's account header)`, async () => {
      vendor.handle = (seen, response) => redirect(response, status, `${foreign.origin}${seen.url}`);
      foreign.handle = (_seen, response) => json(response, 200, campaignsPage);
      await tiktok().execute('campaigns', 'list', { advertiser_id: '7' });
      expect(vendor.seen).toHaveLength(1);
      expect(vendor.seen[0]?.headers['access-token']).toBe(TIKTOK_TOKEN);
      expect(foreign.seen).toHaveLength(1);
      expect(foreign.seen[0]?.headers).not.toHaveProperty('access-token');
      expect(JSON.stringify(foreign.seen[0]?.headers)).not.toContain(TIKTOK_TOKEN);
      expect(foreign.seen[0]?.headers.accept).toBe('application/json');

      vendor.seen = [];
      foreign.seen = [];
      foreign.handle = (_seen, response) => json(response, 200, { users: [], links: { next: null } });
      await harvest().execute('users', 'list');
      expect(vendor.seen[0]?.headers.authorization).toBe(`Bearer ${HARVEST.api_token}`);
      expect(vendor.seen[0]?.headers['harvest-account-id']).toBe(HARVEST.account_id);
      const forwarded = foreign.seen[0]?.headers ?? {};
      expect(forwarded).not.toHaveProperty('authorization');
      expect(forwarded).not.toHaveProperty('harvest-account-id');
      // A header that carries no credential still goes.
      expect(forwarded['user-agent']).toContain('Switchyard');
    });
  }

  it('keeps the credential headers dropped when a later hop comes back to the vendor', async () => {
    vendor.handle = (seen, response) => (seen.url.startsWith('/back') ? json(response, 200, campaignsPage) : redirect(response, 302, `${foreign.origin}/hop`));
    foreign.handle = (_seen, response) => redirect(response, 302, `${vendor.origin}/back`);
    await tiktok().execute('campaigns', 'list', { advertiser_id: '7' });
    expect(vendor.seen).toHaveLength(2);
    expect(vendor.seen[1]?.url).toBe('/back');
    expect(vendor.seen[1]?.headers).not.toHaveProperty('access-token');
  });

  it("refuses a vendor's redirect to this machine or its private network, so its answer never reaches the caller", async () => {
    foreign.handle = (_seen, response) => json(response, 200, { users: [{ id: 666 }], links: { next: null } });
    for (const location of [
      `${foreign.origin}/steal`,
      'http://169.254.169.254/latest/meta-data/',
      'http://[::1]:8080/',
      'http://localhost/admin',
      'http://localhost./admin',
      'http://[64:ff9b::a00:1]/',
      'http://10.1.2.3/',
    ]) {
      const scope = nock('https://api.harvestapp.com').get('/v2/users').reply(302, '', { location });
      const error = (await createConnector('harvest', { credentials: HARVEST, http: noRetry })
        .execute('users', 'list')
        .catch((e: unknown) => e)) as UpstreamError;
      expect(error, location).toBeInstanceOf(UpstreamError);
      expect(error.message).toContain(`redirecting to ${new URL(location).host}, an address of this machine or its private network`);
      expect(scope.isDone()).toBe(true);
    }
    expect(foreign.seen).toEqual([]);
    // A public host is still followed, without the credentials.
    nock('https://api.harvestapp.com').get('/v2/users').reply(302, '', { location: 'https://files.example.com/users' });
    nock('https://files.example.com')
      .get('/users')
      .reply(200, { users: [], links: { next: null } });
    expect((await createConnector('harvest', { credentials: HARVEST, http: noRetry }).execute('users', 'list')).data).toEqual([]);
  });

  describe('a redirect to a host name', () => {
    afterEach(() => {
      vi.restoreAllMocks();
      nock.enableNetConnect('127.0.0.1');
    });

    it('is refused when the name resolves to an address of this machine or its private network (any of its addresses), and not retried', async () => {
      const lookup = resolveAs({
        'intranet.example.com': [{ address: '10.0.0.7', family: 4 }],
        'mixed.example.com': [
          { address: '93.184.215.14', family: 4 },
          { address: '::1', family: 6 },
        ],
      });
      // The hop's host has no mock: the request goes to the network, where the lookup refuses it before any connection.
      nock.enableNetConnect((host) => host.startsWith('127.0.0.1') || host.endsWith('.example.com:80') || host.endsWith('.example.com:443'));
      for (const [location, address] of [
        ['http://intranet.example.com/admin', '10.0.0.7'],
        ['https://mixed.example.com/users', '::1'],
      ] as const) {
        const scope = nock('https://api.harvestapp.com').get('/v2/users').reply(302, '', { location });
        const error = (await createConnector('harvest', { credentials: HARVEST, http: { retries: 2, retryBaseMs: 1, retryMaxMs: 2 } })
          .execute('users', 'list')
          .catch((e: unknown) => e)) as UpstreamError;
        expect(error, location).toBeInstanceOf(UpstreamError);
        expect(error.message).toBe(
          `The vendor answered GET https://api.harvestapp.com/v2/users with HTTP 302, redirecting to ${new URL(location).host}, which resolves to an address of this machine or its private network (${address}): not followed.`,
        );
        expect(error.upstreamStatus).toBe(302);
        expect(scope.isDone()).toBe(true);
      }
      expect(lookup.mock.calls.map((call) => call[0])).toEqual(['intranet.example.com', 'mixed.example.com']);
    });

    it('judges a NAT64 address by the IPv4 address it embeds (behind DNS64 every IPv4 vendor resolves to one)', () => {
      for (const internal of [
        '64:ff9b::a00:1',
        '64:ff9b::10.0.0.1',
        '[64:ff9b::7f00:1]',
        '64:ff9b::a9fe:a9fe',
        '::ffff:10.0.0.1',
        '224.0.0.1',
        'ff02::1',
        'fec0::1',
      ])
        expect(isInternalHost(internal), internal).toBe(true);
      for (const external of ['64:ff9b::5db8:d70e', '64:ff9b::93.184.215.14', '8.8.8.8', '2606:4700::1111'])
        expect(isInternalHost(external), external).toBe(false);
    });

    it('connects to the addresses it checked when they are public', async () => {
      resolveAs({
        'files.example.com': [
          { address: '93.184.215.14', family: 4 },
          { address: '2606:2800:21f:cb07::1', family: 6 },
        ],
      });
      const one = await new Promise<unknown[]>((resolve) => publicAddressLookup('files.example.com', { family: 0 }, (...result: unknown[]) => resolve(result)));
      expect(one).toEqual([null, '93.184.215.14', 4]);
      const all = await new Promise<unknown[]>((resolve) => publicAddressLookup('files.example.com', { all: true }, (...result: unknown[]) => resolve(result)));
      expect(all).toEqual([
        null,
        [
          { address: '93.184.215.14', family: 4 },
          { address: '2606:2800:21f:cb07::1', family: 6 },
        ],
      ]);
    });
  });

  it('stops a redirect loop after maxRedirects (3 by default): 4 requests, then an upstream error', async () => {
    vendor.handle = (seen, response) => redirect(response, 302, seen.url);
    const error = (await tiktok()
      .execute('campaigns', 'list', { advertiser_id: '7' })
      .catch((e: unknown) => e)) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.message).toContain('after 3 redirects');
    expect(vendor.seen).toHaveLength(4);
  });

  it('a loop is not retried: retries apply to 429/5xx and network errors only', async () => {
    vendor.handle = (seen, response) => redirect(response, 301, seen.url);
    await expect(
      tiktok({ retries: 3, retryBaseMs: 1, retryMaxMs: 2, maxRedirects: 1 }).execute('campaigns', 'list', { advertiser_id: '7' }),
    ).rejects.toBeInstanceOf(UpstreamError);
    expect(vendor.seen).toHaveLength(2);
  });
});

describe('response size cap', () => {
  it('abandons a body larger than maxResponseBytes while streaming, with a clear 502', async () => {
    let written = 0;
    let aborted = false;
    vendor.handle = (_seen, response) => {
      response.writeHead(200, { 'content-type': 'application/json' });
      response.on('close', () => (aborted = written < 64 * 1024 * 1024));
      const chunk = Buffer.alloc(64 * 1024, 0x20);
      response.write('{"users":[');
      const pump = () => {
        while (written < 64 * 1024 * 1024) {
          written += chunk.length;
          if (!response.write(chunk)) return void response.once('drain', pump);
        }
        response.end(']}');
      };
      pump();
    };
    const error = (await harvest({ retries: 0, maxResponseBytes: 1024 * 1024 })
      .execute('users', 'list')
      .catch((e: unknown) => e)) as UpstreamError;
    expect(error).toBeInstanceOf(UpstreamError);
    expect(error.status).toBe(502);
    expect(error.message).toContain('larger than 1 MB');
    expect(error.message).toContain('UPSTREAM_MAX_RESPONSE_BYTES');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(aborted).toBe(true);
    expect(written).toBeLessThan(64 * 1024 * 1024);
    expect(vendor.seen).toHaveLength(1);
  });

  it('refuses at once a body whose Content-Length is over the cap', async () => {
    vendor.handle = (_seen, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': String(3 * 1024 * 1024) });
      response.end(`{"users":[${' '.repeat(3 * 1024 * 1024 - 13)}]}`);
    };
    await expect(harvest({ retries: 3, maxResponseBytes: 1024 * 1024 }).execute('users', 'list')).rejects.toThrow(/larger than 1 MB/);
    // The cap is not a transient failure: no retry.
    expect(vendor.seen).toHaveLength(1);
  });

  it('reads a page of 300,000 records without an argument-count limit', async () => {
    const users = JSON.stringify({ users: Array.from({ length: 300_000 }, (_, i) => i), links: { next: null } });
    vendor.handle = (_seen, response) => response.writeHead(200, { 'content-type': 'application/json' }).end(users);
    const result = await harvest().execute('users', 'list');
    expect((result.data as number[]).length).toBe(300_000);
    expect((result.data as number[])[299_999]).toBe(299_999);
  });
});
