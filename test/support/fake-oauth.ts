/**
 * Stand-ins on 127.0.0.1 for the connect flow's third parties:
 * - a fake OAuth authorization server (Salesforce's paths): a consent page with Allow / Deny links, and a
 *   token endpoint that checks the code, the client, the redirect URI and the PKCE verifier exactly as
 *   issued, and answers refresh grants;
 * - a fake vendor API answering Harvest's and Salesforce's reads (under /harvest and /salesforce), which
 *   accepts only the tokens it is told to;
 * - a scripted token server for flows that are OAuth-like rather than OAuth (Facebook's GET exchanges,
 *   TikTok's JSON body and 200 errors): it answers each request with the test's function and keeps the
 *   request exactly as received (raw body included).
 * Every request is recorded so tests can assert what was sent.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  body: Record<string, string>;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}

function json(response: ServerResponse, status: number, body: unknown): void {
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

function close(server: Server): Promise<void> {
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

interface IssuedCode {
  clientId: string;
  redirectUri: string;
  challenge?: string;
}

export interface FakeAuthorizationServer {
  url: string;
  clientId: string;
  clientSecret: string;
  requests: RecordedRequest[];
  /** Access tokens issued so far, in order. */
  accessTokens: string[];
  refreshToken: string;
  instanceUrl: string;
  close(): Promise<void>;
}

/**
 * Any path ending in /authorize is the consent page and any ending in /token the token endpoint, so one fake
 * serves every vendor's layout. `callbackParams` are added to the redirect back (Harvest's scope=harvest:ID).
 */
export async function startFakeAuthorizationServer(options: {
  clientId: string;
  clientSecret: string;
  instanceUrl: string;
  callbackParams?: Record<string, string>;
}): Promise<FakeAuthorizationServer> {
  const codes = new Map<string, IssuedCode>();
  const requests: RecordedRequest[] = [];
  const accessTokens: string[] = [];
  const refreshToken = `sf-refresh-${randomBytes(6).toString('hex')}`;
  const issueAccess = () => {
    const token = `sf-access-${accessTokens.length + 1}`;
    accessTokens.push(token);
    return token;
  };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const query = Object.fromEntries(url.searchParams);
    const text = await readBody(request);
    const body = Object.fromEntries(new URLSearchParams(text));
    requests.push({ method: request.method ?? 'GET', path: url.pathname, query, headers: request.headers, body });
    if (request.method === 'GET' && url.pathname.endsWith('/authorize')) {
      if (query.response_type !== 'code' || query.client_id !== options.clientId || !query.redirect_uri || !query.state) {
        response.writeHead(400, { 'content-type': 'text/plain' }).end('invalid authorization request');
        return;
      }
      const code = `code-${randomBytes(8).toString('hex')}`;
      codes.set(code, {
        clientId: query.client_id,
        redirectUri: query.redirect_uri,
        ...(query.code_challenge !== undefined && { challenge: query.code_challenge }),
      });
      const allow = new URL(query.redirect_uri);
      allow.searchParams.set('code', code);
      allow.searchParams.set('state', query.state);
      for (const [name, value] of Object.entries(options.callbackParams ?? {})) allow.searchParams.set(name, value);
      const deny = new URL(query.redirect_uri);
      deny.searchParams.set('error', 'access_denied');
      deny.searchParams.set('error_description', 'end-user denied authorization');
      deny.searchParams.set('state', query.state);
      response.writeHead(200, { 'content-type': 'text/html; charset=utf-8' }).end(
        `<!doctype html><html lang="en"><head><title>Allow access?</title></head><body><main><h1>Allow Switchyard to access your Salesforce org?</h1>
<p>Scopes: ${query.scope ?? ''}</p><p><a id="allow" href="${allow.toString().replace(/&/g, '&amp;')}">Allow</a> <a id="deny" href="${deny.toString().replace(/&/g, '&amp;')}">Deny</a></p></main></body></html>`,
      );
      return;
    }
    if (request.method === 'POST' && url.pathname.endsWith('/token')) {
      if (body.client_id !== options.clientId || body.client_secret !== options.clientSecret) return json(response, 401, { error: 'invalid_client' });
      if (body.grant_type === 'authorization_code') {
        const issued = body.code === undefined ? undefined : codes.get(body.code);
        if (!issued) return json(response, 400, { error: 'invalid_grant', error_description: 'unknown or used code' });
        codes.delete(body.code as string);
        if (issued.redirectUri !== body.redirect_uri) return json(response, 400, { error: 'invalid_grant', error_description: 'redirect_uri mismatch' });
        if (issued.challenge !== undefined) {
          const computed = createHash('sha256')
            .update(body.code_verifier ?? '')
            .digest('base64url');
          if (computed !== issued.challenge) return json(response, 400, { error: 'invalid_grant', error_description: 'code verifier mismatch' });
        }
        return json(response, 200, {
          access_token: issueAccess(),
          refresh_token: refreshToken,
          instance_url: options.instanceUrl,
          token_type: 'Bearer',
          issued_at: String(Date.now()),
        });
      }
      if (body.grant_type === 'refresh_token' && body.refresh_token === refreshToken) {
        return json(response, 200, { access_token: issueAccess(), instance_url: options.instanceUrl, token_type: 'Bearer' });
      }
      return json(response, 400, { error: 'invalid_grant' });
    }
    json(response, 404, { error: 'not_found' });
  });
  const url = await listen(server);
  return {
    url,
    clientId: options.clientId,
    clientSecret: options.clientSecret,
    requests,
    accessTokens,
    refreshToken,
    instanceUrl: options.instanceUrl,
    close: () => close(server),
  };
}

/** A request as the scripted token server received it: the raw body, so tests assert its exact encoding. */
export interface RawRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: Record<string, string | string[] | undefined>;
  text: string;
}

export interface ScriptedTokenServer {
  url: string;
  requests: RawRequest[];
  close(): Promise<void>;
}

/** Answers every request with `answer` (JSON) and records it; the test decides what each path returns. */
export async function startScriptedTokenServer(answer: (request: RawRequest) => { status: number; body: unknown }): Promise<ScriptedTokenServer> {
  const requests: RawRequest[] = [];
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    const recorded: RawRequest = {
      method: request.method ?? 'GET',
      path: url.pathname,
      query: Object.fromEntries(url.searchParams),
      headers: request.headers,
      text: await readBody(request),
    };
    requests.push(recorded);
    const { status, body } = answer(recorded);
    json(response, status, body);
  });
  const url = await listen(server);
  return { url, requests, close: () => close(server) };
}

export interface FakeVendorApi {
  url: string;
  requests: RecordedRequest[];
  /** Bearer tokens accepted per vendor; anything else is answered 401. */
  accepted: { harvest: Set<string>; salesforce: Set<string> };
  close(): Promise<void>;
}

export const HARVEST_USERS = [{ id: 3230547, first_name: 'Jim', last_name: 'Allen', email: 'jimallen@example.com' }];
export const SALESFORCE_CONTACTS = [
  { attributes: { type: 'Contact', url: '/services/data/v62.0/sobjects/Contact/003D000000QOJf2IAH' }, Id: '003D000000QOJf2IAH', Name: 'Ana Lima' },
];

/** Harvest- and Salesforce-like answers; cheap reads of any other path answer an empty page. */
export async function startFakeVendorApi(): Promise<FakeVendorApi> {
  const requests: RecordedRequest[] = [];
  const accepted = { harvest: new Set<string>(), salesforce: new Set<string>() };
  const server = createServer(async (request, response) => {
    const url = new URL(request.url ?? '/', 'http://127.0.0.1');
    await readBody(request);
    requests.push({ method: request.method ?? 'GET', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: request.headers, body: {} });
    const [, vendor, ...rest] = url.pathname.split('/');
    const token = /^Bearer (.+)$/.exec(request.headers.authorization ?? '')?.[1];
    if ((vendor !== 'harvest' && vendor !== 'salesforce') || token === undefined || !accepted[vendor].has(token)) {
      return json(
        response,
        401,
        vendor === 'salesforce' ? [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }] : { error: 'invalid_token' },
      );
    }
    const resource = rest.join('/');
    if (vendor === 'harvest' && resource === 'users') {
      return json(response, 200, {
        users: HARVEST_USERS,
        per_page: 2000,
        total_pages: 1,
        total_entries: 1,
        next_page: null,
        previous_page: null,
        page: 1,
        links: { first: null, next: null, previous: null, last: null },
      });
    }
    if (vendor === 'salesforce' && resource === 'query') {
      return json(response, 200, { totalSize: 1, done: true, records: SALESFORCE_CONTACTS });
    }
    const last = rest[rest.length - 1] ?? 'records';
    json(response, 200, { [last]: [], records: [], done: true, totalSize: 0, per_page: 100, total_pages: 1, page: 1, links: { next: null } });
  });
  const url = await listen(server);
  return { url, requests, accepted, close: () => close(server) };
}
