/**
 * The connect page's OAuth consent for vendors whose manifest flow differs from Salesforce's: Intercom and ClickUp
 * (a token that never expires and no refresh token: the flow fills a plain bearer option, exchanged at
 * the workspace's regional host) and Zendesk Talk (the subdomain in the consent and token URLs, a JSON
 * token request with PKCE, and refresh with the stored tokens). The vendors are mocked with nock on
 * their real hosts, so every URL is asserted as the vendor receives it; the browser's trip to the vendor
 * is the callback request the vendor would redirect to. Jira shows the manifest's lookup: the site's cloud id
 * read from accessible-resources with the new token.
 */
import { createHash } from 'node:crypto';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { openCredentials } from '../../src/services/credentials.js';
import { attribute, consentTemplate, startConsentAt } from '../support/connect-flow.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const CLIENT_ID = 'client-id-for-tests';
const CLIENT_SECRET = 'client-secret-S3CRET-5d1e';
const RETURN_TO = 'https://app.example.com/connected';

describe('OAuth consent beyond Salesforce: non-expiring bearer tokens (Intercom, ClickUp), a lookup (Jira), a subdomain flow (Zendesk Talk)', () => {
  let service: TestService;
  let tenant: Tenant;
  let widgetToken: string;

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    service = await startTestService('pglite', { connectRedirectUris: [RETURN_TO] });
    tenant = await createTenant(service);
    widgetToken = (
      await tenant.api.post<{ token: string }>('/api/v1/account/applications/widget-token', {
        workspace_name: 'customer-9',
        allowed_origin: 'https://app.example.com',
      })
    ).body.token;
  });
  afterEach(() => {
    expect(nock.pendingMocks()).toEqual([]);
    nock.cleanAll();
  });
  afterAll(async () => {
    nock.enableNetConnect();
    await service?.close();
  });

  const template = (connectorType: 'intercom' | 'zendesk-talk' | 'jira' | 'gong' | 'typeform', config: Record<string, string>) =>
    consentTemplate(tenant, connectorType, { client_id: CLIENT_ID, client_secret: CLIENT_SECRET }, config);

  const start = (templateId: string, optionTitle: string, extra: Record<string, string> = {}) =>
    startConsentAt(service.url, { token: widgetToken, template: templateId, option_title: optionTitle, name: 'Connected', ...extra });

  it('offers the consent for the bearer option once the OAuth app exists, and fills access_token from the exchange', async () => {
    const templateId = await template('intercom', { region_host: 'api.eu' });
    const page = await (await fetch(`${service.url}/connect?token=${widgetToken}&connector_type=intercom`)).text();
    expect(page).toContain('Continue to Intercom');

    const consentUrl = await start(templateId, 'Access Token', { redirect_uri: RETURN_TO });
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe('https://app.intercom.com/oauth');
    const state = consentUrl.searchParams.get('state') as string;
    expect(Object.fromEntries(consentUrl.searchParams)).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${service.url}/connect/oauth/callback`,
      state,
    });

    // The exchange goes to the workspace's regional host, form-encoded, client in the body; Intercom
    // answers with token and access_token and no refresh token.
    const exchange = nock('https://api.eu.intercom.io')
      .post('/auth/eagle/token', (body: Record<string, string>) => {
        expect(body).toEqual({
          grant_type: 'authorization_code',
          code: 'intercom-code-1',
          redirect_uri: `${service.url}/connect/oauth/callback`,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        });
        return true;
      })
      .matchHeader('content-type', 'application/x-www-form-urlencoded')
      .matchHeader('accept', 'application/json')
      .reply(200, { token_type: 'Bearer', token: 'ic-token-77', access_token: 'ic-token-77' });
    // Creating the connector runs the manifest's check (GET /admins) with the new token.
    const check = nock('https://api.eu.intercom.io')
      .get('/admins')
      .matchHeader('authorization', 'Bearer ic-token-77')
      .matchHeader('intercom-version', '2.14')
      .reply(200, { type: 'admin.list', admins: [{ type: 'admin', id: '814860', name: 'Ana Lima', email: 'ana@example.com' }] });

    const done = await fetch(`${service.url}/connect/oauth/callback?code=intercom-code-1&state=${encodeURIComponent(state)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    expect(exchange.isDone() && check.isDone()).toBe(true);
    const connectorId = attribute(html, 'data-connector-id') as string;
    expect(attribute(html, 'data-return-to')).toBe(`${RETURN_TO}?connector_id=${connectorId}`);
    for (const secret of [CLIENT_SECRET, 'ic-token-77']) expect(html).not.toContain(secret);

    // Only what the bearer option declares is stored: no client secret, no refresh token.
    const row = await service.store.db.selectFrom('connectors').selectAll().where('id', '=', connectorId).executeTakeFirstOrThrow();
    expect(openCredentials(service.keyring, row.id, row)).toEqual({ access_token: 'ic-token-77' });

    nock('https://api.eu.intercom.io')
      .get('/admins')
      .matchHeader('authorization', 'Bearer ic-token-77')
      .reply(200, { type: 'admin.list', admins: [{ type: 'admin', id: '814860', name: 'Ana Lima' }] });
    const listed = await tenant.api.post<{ result: unknown[] }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'admins',
      action: 'list',
      params: {},
    });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.result).toEqual([{ type: 'admin', id: '814860', name: 'Ana Lima' }]);
  });

  it('asks Gong and Typeform for the scopes of every entity they offer, so no entity of a connector made so is refused', async () => {
    const gong = await start(await template('gong', {}), 'OAuth2.0');
    expect(`${gong.origin}${gong.pathname}`).toBe('https://app.gong.io/oauth2/authorize');
    expect(gong.searchParams.get('scope')).toBe(
      'api:users:read api:calls:read:basic api:calls:read:extensive api:settings:scorecards:read api:stats:scorecards api:workspaces:read ' +
        'api:calls:read:transcript api:stats:user-actions api:stats:user-actions:detailed api:stats:interaction api:settings:trackers:read ' +
        'api:library:read api:coaching:read',
    );
    const typeform = await start(await template('typeform', {}), 'OAuth2.0');
    expect(`${typeform.origin}${typeform.pathname}`).toBe('https://api.typeform.com/oauth/authorize');
    expect(typeform.searchParams.get('scope')).toBe('forms:read responses:read workspaces:read themes:read images:read webhooks:read offline');
  });

  it('refuses an exchange that returns no access token for the bearer option, creating nothing', async () => {
    const templateId = await template('intercom', {});
    const before = (await service.store.db.selectFrom('connectors').select('id').execute()).length;
    const state = (await start(templateId, 'Access Token')).searchParams.get('state') as string;
    nock('https://api.intercom.io').post('/auth/eagle/token').reply(200, { token_type: 'Bearer' });
    const refused = await fetch(`${service.url}/connect/oauth/callback?code=c&state=${encodeURIComponent(state)}`);
    expect(refused.status).toBe(400);
    expect(await refused.text()).toContain('granted access without an access token');
    expect((await service.store.db.selectFrom('connectors').select('id').execute()).length).toBe(before);
  });

  it("exchanges ClickUp's code with its parameters in the query string of an empty POST (body_format: query)", async () => {
    expect(
      (await tenant.api.put('/api/v1/oauth/credentials', { connector_type: 'clickup', configuration: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } }))
        .status,
    ).toBe(200);
    const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/templates/sources', {
      actor_definition_id: connectorModules.clickup!.definition.definitionId,
      partial_default_config: {},
    });
    const consentUrl = await start(created.body.id, 'OAuth2 Access Token');
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe('https://app.clickup.com/api');
    const state = consentUrl.searchParams.get('state') as string;
    const exchange = nock('https://api.clickup.com')
      .post('/api/v2/oauth/token', '')
      .query({
        grant_type: 'authorization_code',
        code: 'cu-code-1',
        redirect_uri: `${service.url}/connect/oauth/callback`,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      })
      .reply(200, { access_token: '4753994_cu-oauth-token' });
    nock('https://api.clickup.com')
      .get('/api/v2/user')
      .matchHeader('authorization', 'Bearer 4753994_cu-oauth-token')
      .reply(200, { user: { id: 4753994, username: 'Ana Lima' } });
    const done = await fetch(`${service.url}/connect/oauth/callback?code=cu-code-1&state=${encodeURIComponent(state)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    expect(exchange.isDone()).toBe(true);
    const row = await service.store.db
      .selectFrom('connectors')
      .selectAll()
      .where('id', '=', attribute(html, 'data-connector-id') as string)
      .executeTakeFirstOrThrow();
    expect(openCredentials(service.keyring, row.id, row)).toEqual({ access_token: '4753994_cu-oauth-token' });
  });

  it("fills Jira's cloud id from accessible-resources (the manifest's lookup), matched on the configured site", async () => {
    const cloudId = '11223344-a1b2-3b33-c444-def123456789';
    const templateId = await template('jira', { subdomain: 'acme' });
    const consentUrl = await start(templateId, 'OAuth2.0');
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe('https://auth.atlassian.com/authorize');
    const params = Object.fromEntries(consentUrl.searchParams);
    expect(params).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${service.url}/connect/oauth/callback`,
      state: params.state,
      scope: 'read:jira-work read:jira-user write:jira-work offline_access',
      audience: 'api.atlassian.com',
      prompt: 'consent',
    });

    const exchange = nock('https://auth.atlassian.com')
      .post('/oauth/token', {
        grant_type: 'authorization_code',
        code: 'jira-code-1',
        redirect_uri: `${service.url}/connect/oauth/callback`,
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
      })
      .matchHeader('content-type', 'application/json')
      .reply(200, {
        access_token: 'atl-access-1',
        refresh_token: 'atl-refresh-1',
        expires_in: 3600,
        scope: 'read:jira-work read:jira-user write:jira-work offline_access',
        token_type: 'Bearer',
      });
    const resources = nock('https://api.atlassian.com')
      .get('/oauth/token/accessible-resources')
      .matchHeader('authorization', 'Bearer atl-access-1')
      .reply(200, [
        { id: '99999999-0000-4000-8000-000000000000', url: 'https://other.atlassian.net', name: 'other', scopes: ['read:jira-work'] },
        { id: cloudId, url: 'https://acme.atlassian.net', name: 'acme', scopes: ['read:jira-work', 'read:jira-user', 'write:jira-work'] },
      ]);
    const check = nock('https://api.atlassian.com')
      .get(`/ex/jira/${cloudId}/rest/api/3/users/search`)
      .query({ maxResults: '1' })
      .matchHeader('authorization', 'Bearer atl-access-1')
      .reply(200, [{ accountId: '5b10a2844c20165700ede21g', displayName: 'Ana Lima', active: true }]);

    const done = await fetch(`${service.url}/connect/oauth/callback?code=jira-code-1&state=${encodeURIComponent(params.state as string)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    expect(exchange.isDone() && resources.isDone() && check.isDone()).toBe(true);
    const row = await service.store.db
      .selectFrom('connectors')
      .selectAll()
      .where('id', '=', attribute(html, 'data-connector-id') as string)
      .executeTakeFirstOrThrow();
    expect(openCredentials(service.keyring, row.id, row)).toEqual({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: 'atl-refresh-1',
      access_token: 'atl-access-1',
      cloud_id: cloudId,
    });
  });

  it('refuses a Jira consent whose token cannot reach the configured site, creating nothing', async () => {
    const templateId = await template('jira', { subdomain: 'acme' });
    const before = (await service.store.db.selectFrom('connectors').select('id').execute()).length;
    const state = (await start(templateId, 'OAuth2.0')).searchParams.get('state') as string;
    nock('https://auth.atlassian.com').post('/oauth/token').reply(200, { access_token: 'atl-access-9', refresh_token: 'atl-refresh-9', expires_in: 3600 });
    nock('https://api.atlassian.com')
      .get('/oauth/token/accessible-resources')
      .reply(200, [{ id: '99999999-0000-4000-8000-000000000000', url: 'https://other.atlassian.net', name: 'other' }]);
    const refused = await fetch(`${service.url}/connect/oauth/callback?code=c&state=${encodeURIComponent(state)}`);
    expect(refused.status).toBe(400);
    const text = await refused.text();
    expect(text).toContain('granted access, but not to https://acme.atlassian.net');
    expect(text).not.toContain('atl-access-9');
    expect((await service.store.db.selectFrom('connectors').select('id').execute()).length).toBe(before);
  });

  it("runs Zendesk Talk's flow on the account's subdomain: consent URL, JSON exchange with PKCE, check, then refresh", async () => {
    const templateId = await template('zendesk-talk', {});
    const consentUrl = await start(templateId, 'OAuth2.0 Refresh Token', { 'settings.subdomain': 'acme' });
    expect(`${consentUrl.origin}${consentUrl.pathname}`).toBe('https://acme.zendesk.com/oauth/authorizations/new');
    const params = Object.fromEntries(consentUrl.searchParams);
    expect(params).toEqual({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${service.url}/connect/oauth/callback`,
      state: params.state,
      scope: 'read',
      code_challenge: params.code_challenge,
      code_challenge_method: 'S256',
    });
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);

    let verifier = '';
    const exchange = nock('https://acme.zendesk.com')
      .post('/oauth/tokens', (body: Record<string, string>) => {
        verifier = body.code_verifier ?? '';
        expect(body).toEqual({
          grant_type: 'authorization_code',
          code: 'zd-code-1',
          redirect_uri: `${service.url}/connect/oauth/callback`,
          code_verifier: verifier,
          client_id: CLIENT_ID,
          client_secret: CLIENT_SECRET,
        });
        return true;
      })
      .matchHeader('content-type', 'application/json')
      .reply(200, { access_token: 'zd-access-1', refresh_token: 'zd-refresh-1', token_type: 'bearer', scope: 'read', expires_in: 172800 });
    const check = nock('https://acme.zendesk.com')
      .get('/api/v2/channels/voice/phone_numbers')
      .query(true)
      .matchHeader('authorization', 'Bearer zd-access-1')
      .reply(200, { phone_numbers: [{ id: 6, number: '+14155550100', nickname: 'Support' }], next_page: null });

    const done = await fetch(`${service.url}/connect/oauth/callback?code=zd-code-1&state=${encodeURIComponent(params.state as string)}`);
    const html = await done.text();
    expect(done.status, html).toBe(200);
    expect(exchange.isDone() && check.isDone()).toBe(true);
    // The verifier sent is the one whose S256 digest the consent URL carried.
    expect(createHash('sha256').update(verifier).digest('base64url')).toBe(params.code_challenge);

    const connectorId = attribute(html, 'data-connector-id') as string;
    const row = await service.store.db.selectFrom('connectors').selectAll().where('id', '=', connectorId).executeTakeFirstOrThrow();
    expect(openCredentials(service.keyring, row.id, row)).toEqual({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: 'zd-refresh-1',
      access_token: 'zd-access-1',
    });

    // Zendesk stops accepting the first token: the runtime refreshes at the same subdomain, JSON body.
    nock('https://acme.zendesk.com')
      .get('/api/v2/channels/voice/phone_numbers')
      .query(true)
      .matchHeader('authorization', 'Bearer zd-access-1')
      .reply(401, { error: 'invalid_token' });
    const refresh = nock('https://acme.zendesk.com')
      .post('/oauth/tokens', { grant_type: 'refresh_token', refresh_token: 'zd-refresh-1', client_id: CLIENT_ID, client_secret: CLIENT_SECRET })
      .matchHeader('content-type', 'application/json')
      .reply(200, { access_token: 'zd-access-2', refresh_token: 'zd-refresh-2', token_type: 'bearer', expires_in: 172800 });
    nock('https://acme.zendesk.com')
      .get('/api/v2/channels/voice/phone_numbers')
      .query(true)
      .matchHeader('authorization', 'Bearer zd-access-2')
      .reply(200, { phone_numbers: [{ id: 6, number: '+14155550100', nickname: 'Support' }], next_page: null });
    const listed = await tenant.api.post<{ result: unknown[] }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'phone_numbers',
      action: 'list',
      params: {},
    });
    expect(listed.status, JSON.stringify(listed.body)).toBe(200);
    expect(listed.body.result).toEqual([{ id: 6, number: '+14155550100', nickname: 'Support' }]);
    expect(refresh.isDone()).toBe(true);
  });
});
