/**
 * The OAuth consent round trip of the connect page, over HTTP against a fake authorization server on
 * 127.0.0.1: the start form, the vendor's consent URL (client, redirect URI, scopes, PKCE, signed state),
 * the callback, the code exchange, the sealed tokens, execution and the runtime's refresh with them, and
 * every way a state can be refused (replayed, altered, expired, denied).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { openCredentials } from '../../src/services/credentials.js';
import {
  startFakeAuthorizationServer,
  startFakeVendorApi,
  SALESFORCE_CONTACTS,
  type FakeAuthorizationServer,
  type FakeVendorApi,
} from '../support/fake-oauth.js';
import { attribute, formPost } from '../support/connect-flow.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const CLIENT_ID = '3MVG9-consumer-key-for-tests';
const CLIENT_SECRET = 'consumer-secret-S3CRET-81c2';
const RETURN_TO = 'https://app.example.com/connected';
const salesforce = connectorModules.salesforce!.definition;

describe.each(storeKinds())('OAuth consent round trip on %s', (kind) => {
  let auth: FakeAuthorizationServer;
  let vendor: FakeVendorApi;
  let service: TestService;
  let tenant: Tenant;
  let templateId: string;
  let widgetToken: string;

  beforeAll(async () => {
    auth = await startFakeAuthorizationServer({ clientId: CLIENT_ID, clientSecret: CLIENT_SECRET, instanceUrl: 'https://acme.my.salesforce.com' });
    vendor = await startFakeVendorApi();
    service = await startTestService(kind, {
      oauthServerUrls: { salesforce: auth.url },
      upstreamBaseUrls: { salesforce: `${vendor.url}/salesforce` },
      connectRedirectUris: [RETURN_TO],
    });
    tenant = await createTenant(service);
    expect(
      (
        await tenant.api.put('/api/v1/oauth/credentials', {
          connector_type: 'salesforce',
          configuration: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
        })
      ).status,
    ).toBe(200);
    const template = await tenant.api.post<{ id: string }>('/api/v1/integrations/templates/sources', {
      actor_definition_id: salesforce.definitionId,
      partial_default_config: { login_environment: 'login' },
    });
    templateId = template.body.id;
    widgetToken = (
      await tenant.api.post<{ token: string }>('/api/v1/account/applications/widget-token', {
        workspace_name: 'customer-7',
        allowed_origin: 'https://app.example.com',
      })
    ).body.token;
  });
  afterAll(async () => {
    await service?.close();
    await auth?.close();
    await vendor?.close();
  });

  /** Posts the consent form and returns the vendor URL the browser is sent to. */
  async function startConsent(extra: Record<string, string> = {}): Promise<URL> {
    const response = await fetch(
      `${service.url}/connect/oauth/start`,
      formPost({ token: widgetToken, template: templateId, option_title: 'OAuth2.0', name: 'Acme Salesforce', ...extra }),
    );
    expect(response.status).toBe(303);
    expect(response.headers.get('referrer-policy')).toBe('no-referrer');
    return new URL(response.headers.get('location') ?? '');
  }

  /** The Allow link of the fake consent page. */
  async function consent(authorizeUrl: URL, choice: 'allow' | 'deny' = 'allow'): Promise<string> {
    const page = await (await fetch(authorizeUrl)).text();
    const href = new RegExp(`id="${choice}" href="([^"]+)"`).exec(page)?.[1];
    expect(href).toBeDefined();
    return (href as string).replace(/&amp;/g, '&');
  }

  it('offers the consent option on the page, allowing the form to lead to the authorization server', async () => {
    const response = await fetch(`${service.url}/connect?token=${widgetToken}&connector_type=salesforce`);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-security-policy')).toContain(`form-action 'self' ${auth.url}`);
    const html = await response.text();
    expect(html).toContain('action="/connect/oauth/start"');
    expect(html).toContain('Continue to Salesforce');
    expect(html).not.toContain(CLIENT_ID);
  });

  it('runs the round trip: consent URL, callback, code exchange with PKCE, sealed tokens, execution and refresh', async () => {
    // Creating the connector runs the manifest's check (a SOQL query) with the first access token.
    vendor.accepted.salesforce.add('sf-access-1');
    const authorizeUrl = await startConsent({ redirect_uri: RETURN_TO });
    expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${auth.url}/services/oauth2/authorize`);
    const params = Object.fromEntries(authorizeUrl.searchParams);
    expect(params).toMatchObject({
      response_type: 'code',
      client_id: CLIENT_ID,
      redirect_uri: `${service.url}/connect/oauth/callback`,
      scope: 'api refresh_token',
      code_challenge_method: 'S256',
    });
    expect(params.code_challenge).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(params.state).toMatch(/^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+$/);

    const callback = await consent(authorizeUrl);
    expect(callback.startsWith(`${service.url}/connect/oauth/callback?`)).toBe(true);
    const done = await fetch(callback);
    const html = await done.text();
    expect(done.status).toBe(200);
    const connectorId = attribute(html, 'data-connector-id') as string;
    expect(connectorId).toMatch(/^[0-9a-f-]{36}$/);
    expect(attribute(html, 'data-origin')).toBe('https://app.example.com');
    expect(attribute(html, 'data-return-to')).toBe(`${RETURN_TO}?connector_id=${connectorId}`);
    for (const secret of [CLIENT_SECRET, auth.refreshToken, auth.accessTokens[0] as string]) expect(html).not.toContain(secret);

    const exchange = auth.requests.find((r) => r.path === '/services/oauth2/token' && r.body.grant_type === 'authorization_code');
    expect(exchange?.headers['content-type']).toBe('application/x-www-form-urlencoded');
    expect(exchange?.body).toMatchObject({
      code: new URL(callback).searchParams.get('code'),
      redirect_uri: `${service.url}/connect/oauth/callback`,
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
    });
    expect(exchange?.body.code_verifier).toMatch(/^[A-Za-z0-9_-]{43,128}$/);

    const row = await service.store.db.selectFrom('connectors').selectAll().where('id', '=', connectorId).executeTakeFirstOrThrow();
    expect(row.auth_option).toBe('OAuth2.0');
    expect(JSON.stringify(row)).not.toContain(auth.refreshToken);
    expect(openCredentials(service.keyring, row.id, row)).toEqual({
      client_id: CLIENT_ID,
      client_secret: CLIENT_SECRET,
      refresh_token: auth.refreshToken,
      access_token: 'sf-access-1',
      instance_url: 'https://acme.my.salesforce.com',
    });
    const workspace = await service.store.db.selectFrom('workspaces').select('name').where('id', '=', row.workspace_id).executeTakeFirstOrThrow();
    expect(workspace.name).toBe('customer-7');

    vendor.accepted.salesforce.add('sf-access-1');
    const first = await tenant.api.post<{ result: unknown }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'contacts',
      action: 'list',
      params: {},
    });
    expect(first.status, JSON.stringify(first.body)).toBe(200);
    expect(first.body.result).toEqual(SALESFORCE_CONTACTS);
    expect(vendor.requests.at(-1)).toMatchObject({
      method: 'GET',
      path: '/salesforce/query',
      headers: expect.objectContaining({ authorization: 'Bearer sf-access-1' }),
    });

    // The vendor stops accepting the first token: the runtime refreshes at the (overridden) token URL.
    vendor.accepted.salesforce.clear();
    vendor.accepted.salesforce.add('sf-access-2');
    const second = await tenant.api.post<{ result: unknown }>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'contacts',
      action: 'list',
      params: {},
    });
    expect(second.status, JSON.stringify(second.body)).toBe(200);
    const refresh = auth.requests.find((r) => r.body.grant_type === 'refresh_token');
    expect(refresh?.body).toMatchObject({ refresh_token: auth.refreshToken, client_id: CLIENT_ID, client_secret: CLIENT_SECRET });

    // The state is single-use.
    const replay = await fetch(callback);
    expect(replay.status).toBe(400);
    expect(await replay.text()).toContain('already used or has expired');
  });

  it('refuses an altered state, an expired consent and a denied one, creating nothing', async () => {
    const before = (await service.store.db.selectFrom('connectors').select('id').execute()).length;
    const authorizeUrl = await startConsent();
    const callback = new URL(await consent(authorizeUrl));
    const altered = new URL(callback);
    altered.searchParams.set('state', `${callback.searchParams.get('state')}x`);
    const alteredPage = await fetch(altered);
    expect(alteredPage.status).toBe(400);
    expect(await alteredPage.text()).toContain('not valid');

    await service.store.db
      .updateTable('oauth_sessions')
      .set({ expires_at: new Date(Date.now() - 1000) })
      .where('used_at', 'is', null)
      .execute();
    const expired = await fetch(callback);
    expect(expired.status).toBe(400);
    expect(await expired.text()).toContain('expired');

    const denied = await fetch(await consent(await startConsent(), 'deny'));
    expect(denied.status).toBe(400);
    const deniedPage = await denied.text();
    expect(deniedPage).toContain('did not grant access: end-user denied authorization');
    // Shown in the application's frame as the form was; never with the link's token, which anyone holding the
    // state could then read by answering the callback first.
    expect(denied.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://app.example.com");
    expect(deniedPage).not.toContain('token=');
    expect((await service.store.db.selectFrom('connectors').select('id').execute()).length).toBe(before);
  });

  it("fills a credential from the redirect back: Harvest's account id from scope=harvest:<id>", async () => {
    const harvestAuth = await startFakeAuthorizationServer({
      clientId: CLIENT_ID,
      clientSecret: CLIENT_SECRET,
      instanceUrl: 'https://unused.example.com',
      callbackParams: { scope: 'harvest:5551234' },
    });
    try {
      service.config.oauthServerUrls = { ...service.config.oauthServerUrls, harvest: harvestAuth.url };
      // Creating the connector runs the manifest's check (GET /v2/company), answered by the fake vendor.
      service.config.upstreamBaseUrls = { ...service.config.upstreamBaseUrls, harvest: `${vendor.url}/harvest` };
      vendor.accepted.harvest.add('sf-access-1');
      await tenant.api.put('/api/v1/oauth/credentials', { connector_type: 'harvest', configuration: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET } });
      const template = await tenant.api.post<{ id: string }>('/api/v1/integrations/templates/sources', {
        actor_definition_id: connectorModules.harvest!.definition.definitionId,
        partial_default_config: {},
      });
      const start = await fetch(`${service.url}/connect/oauth/start`, formPost({ token: widgetToken, template: template.body.id, option_title: 'OAuth2.0' }));
      const authorizeUrl = new URL(start.headers.get('location') ?? '');
      expect(`${authorizeUrl.origin}${authorizeUrl.pathname}`).toBe(`${harvestAuth.url}/oauth2/authorize`);
      expect(authorizeUrl.searchParams.has('code_challenge')).toBe(false);
      const done = await fetch(await consent(authorizeUrl));
      const connectorId = attribute(await done.text(), 'data-connector-id') as string;
      expect(harvestAuth.requests.find((r) => r.body.grant_type === 'authorization_code')?.path).toBe('/api/v2/oauth2/token');
      const row = await service.store.db.selectFrom('connectors').selectAll().where('id', '=', connectorId).executeTakeFirstOrThrow();
      expect(openCredentials(service.keyring, row.id, row)).toEqual({
        client_id: CLIENT_ID,
        client_secret: CLIENT_SECRET,
        refresh_token: harvestAuth.refreshToken,
        access_token: 'sf-access-1',
        account_id: '5551234',
      });
    } finally {
      await harvestAuth.close();
    }
  });

  it("refuses a return address that is not on the list and a consent without the organization's OAuth app", async () => {
    const notListed = await fetch(
      `${service.url}/connect/oauth/start`,
      formPost({ token: widgetToken, template: templateId, option_title: 'OAuth2.0', redirect_uri: 'https://evil.example.net/x' }),
    );
    expect(notListed.status).toBe(400);
    expect(notListed.headers.get('location')).toBeNull();

    expect((await tenant.api.delete('/api/v1/oauth/credentials/connector_type/salesforce')).status).toBe(204);
    const page = await (await fetch(`${service.url}/connect?token=${widgetToken}&connector_type=salesforce`)).text();
    expect(page).not.toContain('/connect/oauth/start');
    const direct = await fetch(`${service.url}/connect/oauth/start`, formPost({ token: widgetToken, template: templateId, option_title: 'OAuth2.0' }));
    expect(direct.status).toBe(400);
    expect(await direct.text()).toContain('has not configured its OAuth app');
  });
});
