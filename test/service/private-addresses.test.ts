/**
 * A vendor host a connector's configuration writes (Sentry's `host`, for a self-hosted Sentry) is the API
 * user's to choose: by default the service refuses one that is, or resolves to, an address of this machine or
 * its private network, before anything is sent; UPSTREAM_PRIVATE_ADDRESSES=allow lets an operator reach a
 * Sentry on their own network.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { SwitchyardClient } from '../../client/index.js';
import { createConnector, PrivateAddressError } from '../../runtime/index.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import { attribute, consentTemplate, startConsentAt } from '../support/connect-flow.js';
import { insertConnector } from '../support/connector-rows.js';
import { resolveAs } from '../support/resolve-as.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const TOKEN = 'sentry-auth-token-secret-0001';
const ORGANIZATIONS = [{ id: '2', slug: 'acme', name: 'Acme' }];

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string }>;
}

async function sentryConnector(service: TestService, tenant: Tenant, host: string): Promise<string> {
  return insertConnector(service, tenant.organizationId, {
    connectorType: 'sentry',
    authOption: 'Auth Token',
    credentials: { auth_token: TOKEN },
    config: { host },
  });
}

const listOrganizations = (tenant: Tenant, id: string) =>
  tenant.api.post<ErrorBody & { result: unknown }>(`/api/v1/integrations/connectors/${id}/execute`, { entity: 'organizations', action: 'list', params: {} });

beforeAll(() => {
  nock.disableNetConnect();
  nock.enableNetConnect('127.0.0.1');
});
afterEach(() => {
  nock.cleanAll();
  vi.restoreAllMocks();
  nock.enableNetConnect('127.0.0.1');
});

describe('by default (UPSTREAM_PRIVATE_ADDRESSES unset: refuse)', () => {
  let service: TestService;
  let tenant: Tenant;
  beforeAll(async () => {
    service = await startTestService('pglite', { upstreamRetries: 0 });
    tenant = await createTenant(service);
  });
  afterAll(async () => {
    await service.close();
  });

  it('refuses a configured host that is an internal IP address, sending nothing', async () => {
    for (const host of ['10.0.0.7', '169.254.169.254', '127.0.0.1']) {
      const scope = nock(`https://${host}`).get('/api/0/organizations/').reply(200, ORGANIZATIONS);
      const response = await listOrganizations(tenant, await sentryConnector(service, tenant, host));
      expect(response.status, host).toBe(400);
      expect(response.body.errors[0]?.error_code).toBe('private_address');
      expect(response.body.message).toContain(
        `The host ${host}, which the connector's configuration gives, is an address of this machine or its private network`,
      );
      expect(scope.isDone(), host).toBe(false);
    }
  });

  it("reaches the TypeScript client as the runtime's PrivateAddressError", async () => {
    const client = new SwitchyardClient({ baseUrl: service.url, credentials: { clientId: tenant.clientId, clientSecret: tenant.clientSecret } });
    const id = await sentryConnector(service, tenant, '10.0.0.8');
    await expect(client.execute(id, { entity: 'organizations', action: 'list' })).rejects.toBeInstanceOf(PrivateAddressError);
  });

  it('refuses a configured host name that resolves to one, before connecting', async () => {
    const lookup = resolveAs({ 'sentry.intranet.example': [{ address: '10.20.30.40', family: 4 }] });
    // No mock for the host: the request goes to the network, where the lookup refuses it.
    nock.enableNetConnect((host) => host.startsWith('127.0.0.1') || host.startsWith('sentry.intranet.example'));
    const response = await listOrganizations(tenant, await sentryConnector(service, tenant, 'sentry.intranet.example'));
    expect(response.status).toBe(400);
    expect(response.body.errors[0]?.error_code).toBe('private_address');
    expect(response.body.message).toContain(
      "The host sentry.intranet.example, which the connector's configuration gives, resolves to 10.20.30.40, an address of this machine or its private network",
    );
    expect(response.body.message).not.toContain(TOKEN);
    expect(lookup.mock.calls.map((call) => call[0])).toContain('sentry.intranet.example');
  });

  it('refuses to create a connector whose configured host is one, naming the setting (skipping the check would store a connector no call can use)', async () => {
    const response = await tenant.api.post<ErrorBody>('/api/v1/integrations/connectors', {
      workspace_name: 'default',
      connector_type: 'sentry',
      name: 'Internal Sentry',
      credentials: { auth_token: TOKEN },
      replication_config: { host: '192.168.1.20' },
    });
    expect(response.status).toBe(400);
    expect(response.body.errors).toEqual([
      {
        field: 'replication_config',
        error_code: 'private_address',
        message:
          "The replication_config (host) points Sentry at a host this service does not call. The host 192.168.1.20, which the connector's configuration gives, is an address of this machine or its private network, which this service is set not to call (UPSTREAM_PRIVATE_ADDRESSES=refuse, or the privateAddresses: 'refuse' option): nothing was sent. Give the vendor's public host.",
      },
    ]);
    expect(response.body.message).toContain('UPSTREAM_PRIVATE_ADDRESSES=allow');
    expect(response.body.message).not.toContain('check=false');
    const listed = await tenant.api.get<{ data: unknown[] }>('/api/v1/integrations/connectors');
    expect(JSON.stringify(listed.body)).not.toContain('Internal Sentry');
  });

  it('refuses such a host at create and update with check=false too, calling nothing and storing nothing', async () => {
    const vendor = nock('https://10.0.0.11').get(/.*/).reply(200, ORGANIZATIONS).post(/.*/).reply(200, {});
    const created = await tenant.api.post<ErrorBody>('/api/v1/integrations/connectors?check=false', {
      workspace_name: 'default',
      connector_type: 'sentry',
      name: 'Unchecked Sentry',
      credentials: { auth_token: TOKEN },
      replication_config: { host: '10.0.0.11' },
    });
    expect(created.status).toBe(400);
    expect(created.body.errors).toEqual([
      {
        field: 'replication_config',
        error_code: 'private_address',
        message:
          "The replication_config (host) points Sentry at a host this service does not call. The host 10.0.0.11, which the connector's configuration gives, is an address of this machine or its private network, which this service is set not to call (UPSTREAM_PRIVATE_ADDRESSES=refuse, or the privateAddresses: 'refuse' option): nothing was sent. Give the vendor's public host.",
      },
    ]);
    expect(JSON.stringify((await tenant.api.get('/api/v1/integrations/connectors')).body)).not.toContain('Unchecked Sentry');

    // A public host is stored unchecked, as check=false asks: nothing is sent.
    const publicHost = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
      workspace_name: 'default',
      connector_type: 'sentry',
      credentials: { auth_token: TOKEN },
      replication_config: { host: 'sentry.example.com' },
    });
    expect(publicHost.status, JSON.stringify(publicHost.body)).toBe(200);
    const id = publicHost.body.id;
    for (const host of ['127.0.0.2', 'sentry.localhost', '192.168.0.5']) {
      const updated = await tenant.api.put<ErrorBody>(`/api/v1/integrations/connectors/${id}?check=false`, { replication_config: { host } });
      expect(updated.status, host).toBe(400);
      expect(updated.body.errors[0]?.error_code, host).toBe('private_address');
      expect(updated.body.message, host).toContain(`The host ${host}, which the connector's configuration gives`);
    }
    const stored = await tenant.api.get<{ replication_config: unknown }>(`/api/v1/integrations/connectors/${id}`);
    expect(stored.body.replication_config).toEqual({ host: 'sentry.example.com' });
    const renamed = await tenant.api.put<{ replication_config: unknown }>(`/api/v1/integrations/connectors/${id}?check=false`, {
      replication_config: { host: 'sentry.acme.example' },
    });
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200);
    expect(renamed.body.replication_config).toEqual({ host: 'sentry.acme.example' });
    expect(vendor.isDone()).toBe(false);
  });

  it("refuses the connect page's code exchange with such a host before the client secret is sent", async () => {
    const templateId = await consentTemplate(tenant, 'sentry', { client_id: 'sentry-app', client_secret: 'sentry-client-secret-0002' }, { host: '10.0.0.9' });
    const widget = await tenant.api.post<{ token: string }>('/api/v1/account/applications/widget-token', {
      workspace_name: 'customer-1',
      allowed_origin: 'https://app.example.com',
    });
    const consent = await startConsentAt(service.url, { token: widget.body.token, template: templateId, option_title: 'OAuth2.0', name: 'Sentry' });
    // The browser goes where the settings say: that is the end user's own request, not the service's.
    expect(`${consent.origin}${consent.pathname}`).toBe('https://10.0.0.9/oauth/authorize/');
    const exchange = nock('https://10.0.0.9').post('/oauth/token/').reply(200, { access_token: 'a', refresh_token: 'b' });
    const done = await fetch(`${service.url}/connect/oauth/callback?code=c-1&state=${encodeURIComponent(consent.searchParams.get('state') as string)}`);
    const html = await done.text();
    expect(done.status).toBe(400);
    expect(html).toContain('Sentry cannot finish the sign-in here. The host 10.0.0.9, which the connector&#39;s configuration gives, is an address');
    expect(html).not.toContain('sentry-client-secret-0002');
    expect(attribute(html, 'data-connector-id')).toBeUndefined();
    expect(exchange.isDone()).toBe(false);
  });

  it('calls a public configured host as before', async () => {
    const scope = nock('https://sentry.example.com').matchHeader('authorization', `Bearer ${TOKEN}`).get('/api/0/organizations/').reply(200, ORGANIZATIONS);
    const response = await listOrganizations(tenant, await sentryConnector(service, tenant, 'sentry.example.com'));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.result).toEqual(ORGANIZATIONS);
    expect(scope.isDone()).toBe(true);
  });
});

describe("an OAuth token URL the configuration writes (Sentry's token_url on its host)", () => {
  const OAUTH = { option_title: 'OAuth2.0', client_id: 'sentry-app', client_secret: 'sentry-client-secret-0001', refresh_token: 'sentry-refresh-0001' };

  it('is refused before the client secret is sent, with privateAddresses: refuse', async () => {
    const token = nock('https://10.0.0.7').post('/oauth/token/').reply(200, { access_token: 'a', refresh_token: 'b', expires_in: 3600 });
    const api = nock('https://10.0.0.7').get('/api/0/organizations/').reply(200, ORGANIZATIONS);
    const sentry = createConnector('sentry', { credentials: OAUTH, config: { host: '10.0.0.7' }, privateAddresses: 'refuse', http: { retries: 0 } });
    const error = await sentry.execute('organizations', 'list').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PrivateAddressError);
    expect((error as Error).message).toContain(
      "The host 10.0.0.7, which the connector's configuration gives, is an address of this machine or its private network",
    );
    expect((error as Error).message).not.toContain(OAUTH.client_secret);
    expect(token.isDone()).toBe(false);
    expect(api.isDone()).toBe(false);
  });

  it('is judged without a request by assertConfiguredHostsCallable, as a request would judge it', () => {
    const sentry = (host: string, privateAddresses?: 'allow' | 'refuse') =>
      createConnector('sentry', { credentials: OAUTH, config: { host }, ...(privateAddresses && { privateAddresses }) });
    expect(() => sentry('10.0.0.7', 'refuse').assertConfiguredHostsCallable()).toThrow(PrivateAddressError);
    expect(() => sentry('10.0.0.7', 'refuse').assertConfiguredHostsCallable()).toThrow("The host 10.0.0.7, which the connector's configuration gives");
    expect(() => sentry('sentry.example.com', 'refuse').assertConfiguredHostsCallable()).not.toThrow();
    expect(() => sentry('10.0.0.7').assertConfiguredHostsCallable()).not.toThrow();
  });

  it('is called as before by default in library mode (the caller gives its own configuration)', async () => {
    const token = nock('https://10.0.0.7')
      .post('/oauth/token/', (body: Record<string, string>) => body.client_secret === OAUTH.client_secret && body.grant_type === 'refresh_token')
      .reply(200, { access_token: 'access-1', refresh_token: 'refresh-2', expires_in: 3600 });
    const api = nock('https://10.0.0.7').matchHeader('authorization', 'Bearer access-1').get('/api/0/organizations/').reply(200, ORGANIZATIONS);
    const sentry = createConnector('sentry', { credentials: OAUTH, config: { host: '10.0.0.7' }, http: { retries: 0 } });
    expect((await sentry.execute('organizations', 'list')).data).toEqual(ORGANIZATIONS);
    expect(token.isDone()).toBe(true);
    expect(api.isDone()).toBe(true);
  });
});

describe('UPSTREAM_PRIVATE_ADDRESSES=allow', () => {
  let service: TestService;
  let tenant: Tenant;
  beforeAll(async () => {
    service = await startTestService('pglite', { upstreamRetries: 0, upstreamPrivateAddresses: 'allow' });
    tenant = await createTenant(service);
  });
  afterAll(async () => {
    await service.close();
  });

  it('stores a connector for a Sentry on the private network with check=false', async () => {
    const created = await tenant.api.post<{ id: string; replication_config: unknown }>('/api/v1/integrations/connectors?check=false', {
      workspace_name: 'default',
      connector_type: 'sentry',
      credentials: { auth_token: TOKEN },
      replication_config: { host: '10.0.0.12' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.replication_config).toEqual({ host: '10.0.0.12' });
  });

  it('calls a Sentry on the private network', async () => {
    const scope = nock('https://10.0.0.7').matchHeader('authorization', `Bearer ${TOKEN}`).get('/api/0/organizations/').reply(200, ORGANIZATIONS);
    const response = await listOrganizations(tenant, await sentryConnector(service, tenant, '10.0.0.7'));
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    expect(response.body.result).toEqual(ORGANIZATIONS);
    expect(scope.isDone()).toBe(true);
  });
});

describe('the setting', () => {
  it('takes allow or refuse, and names the variable otherwise', () => {
    const base = { DATA_DIR: 'memory://' };
    expect(loadConfig(base).upstreamPrivateAddresses).toBeUndefined();
    expect(loadConfig({ ...base, UPSTREAM_PRIVATE_ADDRESSES: 'allow' }).upstreamPrivateAddresses).toBe('allow');
    expect(loadConfig({ ...base, UPSTREAM_PRIVATE_ADDRESSES: ' Refuse ' }).upstreamPrivateAddresses).toBe('refuse');
    expect(() => loadConfig({ ...base, UPSTREAM_PRIVATE_ADDRESSES: 'yes' })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, UPSTREAM_PRIVATE_ADDRESSES: 'yes' })).toThrow('UPSTREAM_PRIVATE_ADDRESSES must be allow or refuse; got "yes".');
  });
});
