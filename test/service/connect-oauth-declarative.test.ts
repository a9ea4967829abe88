/**
 * The connect page's consent for flows the manifest describes with its declarative exchange keys:
 * Facebook (a GET code exchange, then follow_up_exchange trading the short-lived user token for the
 * long-lived one), TikTok (param_names, omit_params, a JSON body, token_path data.access_token and an
 * error_in_body rule for failures answered with HTTP 200) and Zendesk Chat (an oauth2_refresh option
 * whose single-use refresh token rotates). Token requests go to a scripted server on 127.0.0.1 (the
 * service's OAUTH_SERVER_URLS override), which keeps each request exactly as received; the vendors' APIs
 * are mocked with nock on their real hosts.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { openCredentials } from '../../src/services/credentials.js';
import { startScriptedTokenServer, type RawRequest, type ScriptedTokenServer } from '../support/fake-oauth.js';
import { attribute, consentTemplate, startConsentAt } from '../support/connect-flow.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const CLIENT_ID = 'client-id-for-tests';
const CLIENT_SECRET = 'client-secret-S3CRET-5d1e';

/** What a test asserts of a request: method, path, query, the headers that carry meaning, the raw body. */
function sent(request: RawRequest | undefined) {
  return {
    method: request?.method,
    path: request?.path,
    query: request?.query,
    accept: request?.headers.accept,
    contentType: request?.headers['content-type'],
    authorization: request?.headers.authorization,
    body: request?.text,
  };
}

describe('OAuth consent for OAuth-like flows declared in the manifest: Facebook, TikTok, Zendesk Chat', () => {
  let service: TestService;
  let tenant: Tenant;
  let widgetToken: string;
  let tokens: ScriptedTokenServer;
  let answer: (request: RawRequest) => { status: number; body: unknown };
  let callbackUrl: string;

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    tokens = await startScriptedTokenServer((request) => answer(request));
    service = await startTestService('pglite', {
      oauthServerUrls: { 'facebook-marketing': tokens.url, 'tiktok-marketing': tokens.url, 'zendesk-chat': tokens.url },
    });
    callbackUrl = `${service.url}/connect/oauth/callback`;
    tenant = await createTenant(service);
    widgetToken = (
      await tenant.api.post<{ token: string }>('/api/v1/account/applications/widget-token', {
        workspace_name: 'customer-9',
        allowed_origin: 'https://app.example.com',
      })
    ).body.token;
  });
  beforeEach(() => {
    tokens.requests.length = 0;
    answer = () => ({ status: 500, body: { error: 'unexpected request' } });
  });
  afterEach(() => {
    expect(nock.pendingMocks()).toEqual([]);
    nock.cleanAll();
  });
  afterAll(async () => {
    nock.enableNetConnect();
    await service?.close();
    await tokens?.close();
  });

  const template = (connectorType: 'facebook-marketing' | 'tiktok-marketing' | 'zendesk-chat', config: Record<string, string>) =>
    consentTemplate(tenant, connectorType, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, config);

  const start = (templateId: string, optionTitle: string) =>
    startConsentAt(service.url, { token: widgetToken, template: templateId, option_title: optionTitle, name: 'Connected' });

  async function connectorCount(): Promise<number> {
    return (await service.store.db.selectFrom('connectors').select('id').execute()).length;
  }

  async function storedCredentials(connectorId: string): Promise<Record<string, string>> {
    const row = await service.store.db.selectFrom('connectors').selectAll().where('id', '=', connectorId).executeTakeFirstOrThrow();
    return openCredentials(service.keyring, row.id, row);
  }

  it('Facebook: exchanges the code with a GET, trades the short-lived token for the long-lived one, and the connector runs with it', async () => {
    const templateId = await template('facebook-marketing', {});
    const consentUrl = await start(templateId, 'Access Token');
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe(`${tokens.url}/v25.0/dialog/oauth`);
    const params = Object.fromEntries(consentUrl.searchParams);
    expect(params).toEqual({ response_type: 'code', client_id: CLIENT_ID, redirect_uri: callbackUrl, state: params.state, scope: 'ads_read,ads_management' });

    answer = (request) =>
      request.query.fb_exchange_token === undefined
        ? { status: 200, body: { access_token: 'fb-short-lived-1', token_type: 'bearer', expires_in: 5400 } }
        : { status: 200, body: { access_token: 'fb-long-lived-1', token_type: 'bearer', expires_in: 5183944 } };
    // Creating the connector runs the manifest's check, GET /me?fields=id, with the long-lived token.
    const check = nock('https://graph.facebook.com')
      .get('/v25.0/me')
      .query({ fields: 'id', access_token: 'fb-long-lived-1' })
      .reply(200, { id: '10150000000000001' });

    const done = await fetch(`${callbackUrl}?code=fb-code-1&state=${encodeURIComponent(params.state as string)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    expect(check.isDone()).toBe(true);
    for (const secret of [CLIENT_SECRET, 'fb-short-lived-1', 'fb-long-lived-1']) expect(html).not.toContain(secret);

    expect(tokens.requests.map(sent)).toEqual([
      {
        method: 'GET',
        path: '/v25.0/oauth/access_token',
        query: { code: 'fb-code-1', redirect_uri: callbackUrl, client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
        accept: 'application/json',
        contentType: undefined,
        authorization: undefined,
        body: '',
      },
      {
        method: 'GET',
        path: '/v25.0/oauth/access_token',
        query: { grant_type: 'fb_exchange_token', client_id: CLIENT_ID, client_secret: CLIENT_SECRET, fb_exchange_token: 'fb-short-lived-1' },
        accept: 'application/json',
        contentType: undefined,
        authorization: undefined,
        body: '',
      },
    ]);

    const connectorId = attribute(html, 'data-connector-id') as string;
    expect(await storedCredentials(connectorId)).toEqual({ client_id: CLIENT_ID, client_secret: CLIENT_SECRET, access_token: 'fb-long-lived-1' });

    nock('https://graph.facebook.com')
      .get('/v25.0/me')
      .query((query) => query.access_token === 'fb-long-lived-1')
      .reply(200, { id: '10150000000000001', name: 'Ana Lima' });
    const me = await tenant.api.post<{ result: unknown }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'current_user',
      action: 'get',
      params: {},
    });
    expect(me.status, JSON.stringify(me.body)).toBe(200);
    expect(me.body.result).toEqual({ id: '10150000000000001', name: 'Ana Lima' });
  });

  it('Facebook: a refused follow-up exchange fails the sign-in without a connector and without echoing the token', async () => {
    const templateId = await template('facebook-marketing', {});
    const before = await connectorCount();
    const state = (await start(templateId, 'Access Token')).searchParams.get('state') as string;
    answer = (request) =>
      request.query.fb_exchange_token === undefined
        ? { status: 200, body: { access_token: 'fb-short-lived-2', token_type: 'bearer', expires_in: 5400 } }
        : { status: 400, body: { error: { message: 'Error validating client secret.', type: 'OAuthException', code: 1 } } };
    const refused = await fetch(`${callbackUrl}?code=fb-code-2&state=${encodeURIComponent(state)}`);
    const text = await refused.text();
    expect(refused.status).toBe(400);
    expect(text).toContain('Facebook Marketing refused to finish the sign-in: HTTP 400');
    for (const secret of [CLIENT_SECRET, 'fb-short-lived-2']) expect(text).not.toContain(secret);
    expect(tokens.requests).toHaveLength(2);
    expect(await connectorCount()).toBe(before);
  });

  it('an RFC 6749 error object answered with status 200 is a refused sign-in, not a grant without a token', async () => {
    const templateId = await template('facebook-marketing', {});
    const before = await connectorCount();
    const state = (await start(templateId, 'Access Token')).searchParams.get('state') as string;
    answer = () => ({ status: 200, body: { error: 'invalid_grant', error_description: 'The code was already redeemed.' } });
    const refused = await fetch(`${callbackUrl}?code=fb-code-3&state=${encodeURIComponent(state)}`);
    const text = await refused.text();
    expect(refused.status).toBe(400);
    expect(text).toContain('Facebook Marketing refused to finish the sign-in: HTTP 200 (invalid_grant)');
    expect(text).not.toContain('without an access token');
    expect(tokens.requests).toHaveLength(1);
    expect(await connectorCount()).toBe(before);
  });

  it('TikTok: consent with app_id, the auth_code sent as JSON {app_id, secret, auth_code}, the token read from data.access_token', async () => {
    const templateId = await template('tiktok-marketing', {});
    const consentUrl = await start(templateId, 'Access Token');
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe(`${tokens.url}/portal/auth`);
    const params = Object.fromEntries(consentUrl.searchParams);
    // TikTok's authorization URL: app_id, redirect_uri and state only (no response_type, no scope).
    expect(params).toEqual({ app_id: CLIENT_ID, redirect_uri: callbackUrl, state: params.state });

    answer = () => ({
      status: 200,
      body: {
        code: 0,
        message: 'OK',
        request_id: '2026112516000001',
        data: { access_token: 'tt-token-1', advertiser_ids: ['7012345678901234567'], scope: [4, 5, 6] },
      },
    });
    const check = nock('https://business-api.tiktok.com')
      .get('/open_api/v1.3/user/info/')
      .matchHeader('access-token', 'tt-token-1')
      .reply(200, { code: 0, message: 'OK', request_id: 'r1', data: { core_user_id: '7000000000000000001', display_name: 'Ana Lima' } });

    // TikTok redirects back with auth_code (and code) and state.
    const done = await fetch(`${callbackUrl}?auth_code=tt-code-1&code=tt-code-1&state=${encodeURIComponent(params.state as string)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    expect(check.isDone()).toBe(true);

    expect(tokens.requests.map(sent)).toEqual([
      {
        method: 'POST',
        path: '/open_api/v1.3/oauth2/access_token/',
        query: {},
        accept: 'application/json',
        contentType: 'application/json',
        authorization: undefined,
        body: JSON.stringify({ auth_code: 'tt-code-1', app_id: CLIENT_ID, secret: CLIENT_SECRET }),
      },
    ]);
    const connectorId = attribute(html, 'data-connector-id') as string;
    expect(await storedCredentials(connectorId)).toEqual({ access_token: 'tt-token-1' });
    // The advertisers the user authorized become the setting the context store syncs them with.
    const stored = await tenant.api.get<{ replication_config: Record<string, unknown> }>(`/api/v1/integrations/connectors/${connectorId}`);
    expect(stored.body.replication_config).toEqual({ advertiser_ids: '["7012345678901234567"]' });

    nock('https://business-api.tiktok.com')
      .get('/open_api/v1.3/user/info/')
      .matchHeader('access-token', 'tt-token-1')
      .reply(200, { code: 0, message: 'OK', request_id: 'r2', data: { core_user_id: '7000000000000000001', display_name: 'Ana Lima' } });
    const user = await tenant.api.post<{ result: unknown }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'user',
      action: 'get',
      params: {},
    });
    expect(user.status, JSON.stringify(user.body)).toBe(200);
    expect(user.body.result).toEqual({ core_user_id: '7000000000000000001', display_name: 'Ana Lima' });
  });

  it('TikTok: advertiser ids the setting refuses (more than 100) are left out, and the connection is still made', async () => {
    const templateId = await template('tiktok-marketing', {});
    const consentUrl = await start(templateId, 'Access Token');
    const state = consentUrl.searchParams.get('state') as string;
    const many = Array.from({ length: 101 }, (_, i) => String(7012345678901234000n + BigInt(i)));
    answer = () => ({ status: 200, body: { code: 0, message: 'OK', request_id: 'r', data: { access_token: 'tt-token-2', advertiser_ids: many, scope: [4] } } });
    nock('https://business-api.tiktok.com')
      .get('/open_api/v1.3/user/info/')
      .matchHeader('access-token', 'tt-token-2')
      .reply(200, { code: 0, message: 'OK', request_id: 'r1', data: { core_user_id: '7000000000000000002', display_name: 'Bo' } });
    const done = await fetch(`${callbackUrl}?auth_code=tt-code-2&state=${encodeURIComponent(state)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    const connectorId = attribute(html, 'data-connector-id') as string;
    const stored = await tenant.api.get<{ replication_config: Record<string, unknown> }>(`/api/v1/integrations/connectors/${connectorId}`);
    expect(stored.body.replication_config).toEqual({});
  });

  it('TikTok: a failure answered as HTTP 200 with a non-zero code is a clear refusal, with no secret echoed and no connector', async () => {
    const templateId = await template('tiktok-marketing', {});
    const before = await connectorCount();
    const state = (await start(templateId, 'Access Token')).searchParams.get('state') as string;
    // A vendor message that repeats the secret and the code must not carry them to the end user.
    answer = () => ({
      status: 200,
      body: { code: 40105, message: `Auth code tt-code-2 is invalid for secret ${CLIENT_SECRET}`, request_id: 'r3', data: {} },
    });
    const refused = await fetch(`${callbackUrl}?auth_code=tt-code-2&state=${encodeURIComponent(state)}`);
    const text = await refused.text();
    expect(refused.status).toBe(400);
    expect(text).toContain('TikTok Marketing refused to finish the sign-in (code 40105: Auth code [redacted] is invalid for secret [redacted])');
    expect(text).not.toContain(CLIENT_SECRET);
    expect(text).not.toContain('tt-code-2');
    expect(tokens.requests).toHaveLength(1);
    expect(JSON.parse(tokens.requests[0]?.text ?? '{}')).toEqual({ auth_code: 'tt-code-2', app_id: CLIENT_ID, secret: CLIENT_SECRET });
    expect(await connectorCount()).toBe(before);
  });

  it('Zendesk Chat: consent and exchange on the subdomain, then the single-use refresh token rotates and is kept', async () => {
    const templateId = await template('zendesk-chat', { subdomain: 'acme' });
    const consentUrl = await start(templateId, 'OAuth2.0');
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe(`${tokens.url}/oauth2/chat/authorizations/new`);
    const params = Object.fromEntries(consentUrl.searchParams);
    expect(params).toEqual({ response_type: 'code', client_id: CLIENT_ID, redirect_uri: callbackUrl, state: params.state, scope: 'read' });

    answer = (request) => {
      const body = Object.fromEntries(new URLSearchParams(request.text));
      return body.grant_type === 'refresh_token'
        ? { status: 200, body: { access_token: 'zc-access-2', refresh_token: 'zc-refresh-2', token_type: 'Bearer', scope: 'read' } }
        : { status: 200, body: { access_token: 'zc-access-1', refresh_token: 'zc-refresh-1', token_type: 'Bearer', scope: 'read' } };
    };
    const check = nock('https://acme.zendesk.com')
      .get('/api/v2/chat/account')
      .matchHeader('authorization', 'Bearer zc-access-1')
      .reply(200, { account_key: 'abc123', status: 'active', plan: { name: 'enterprise' } });
    const done = await fetch(`${callbackUrl}?code=zc-code-1&state=${encodeURIComponent(params.state as string)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    expect(check.isDone()).toBe(true);
    expect(tokens.requests.map(sent)).toEqual([
      {
        method: 'POST',
        path: '/oauth2/chat/token',
        query: {},
        accept: 'application/json',
        contentType: 'application/x-www-form-urlencoded',
        authorization: undefined,
        body: new URLSearchParams({
          grant_type: 'authorization_code',
          code: 'zc-code-1',
          redirect_uri: callbackUrl,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        }).toString(),
      },
    ]);
    const connectorId = attribute(html, 'data-connector-id') as string;
    expect(await storedCredentials(connectorId)).toEqual({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: 'zc-refresh-1',
      access_token: 'zc-access-1',
    });

    // The access token expires: the runtime refreshes at the same token URL and keeps the rotated refresh token.
    nock('https://acme.zendesk.com').get('/api/v2/chat/account').matchHeader('authorization', 'Bearer zc-access-1').reply(401, { error: 'invalid_token' });
    nock('https://acme.zendesk.com')
      .get('/api/v2/chat/account')
      .matchHeader('authorization', 'Bearer zc-access-2')
      .reply(200, { account_key: 'abc123', status: 'active' });
    const account = await tenant.api.post<{ result: unknown }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'accounts',
      action: 'get',
      params: {},
    });
    expect(account.status, JSON.stringify(account.body)).toBe(200);
    expect(account.body.result).toEqual({ account_key: 'abc123', status: 'active' });
    expect(sent(tokens.requests[1])).toEqual({
      method: 'POST',
      path: '/oauth2/chat/token',
      query: {},
      accept: 'application/json',
      contentType: 'application/x-www-form-urlencoded',
      authorization: undefined,
      body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'zc-refresh-1', client_id: CLIENT_ID, client_secret: CLIENT_SECRET }).toString(),
    });
    await expect.poll(async () => (await storedCredentials(connectorId)).refresh_token).toBe('zc-refresh-2');
  });
});
