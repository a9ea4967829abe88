import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { openCredentials } from '../../src/services/credentials.js';
import { reencryptCredentials } from '../../src/services/key-rotation.js';
import { referenceErrors } from '../support/reference-schemas.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const TEMPLATES = '/api/v1/integrations/templates/sources';
const OAUTH = '/api/v1/oauth/credentials';
const WIDGET = '/api/v1/account/applications/widget-token';
const salesforce = connectorModules.salesforce!.definition;
const jira = connectorModules.jira!.definition;
const harvest = connectorModules.harvest!.definition;
const CLIENT_SECRET = 'byo-client-secret-S3CRET-5e1f';
const CLIENT_ID = 'byo-client-id-3MVG9';

interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string }>;
}
type Template = Record<string, unknown> & {
  id: string;
  user_config_spec: { connectionSpecification: { properties: Record<string, unknown>; required: string[] } };
};

describe.each(storeKinds())('connect API on %s', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  let other: Tenant;

  beforeAll(async () => {
    service = await startTestService(kind);
    tenant = await createTenant(service, 'Acme');
    other = await createTenant(service, 'Other');
  });
  afterAll(async () => service?.close());

  describe('source templates', () => {
    let jiraTemplate: Template;

    it('creates a template with preset settings, in the reference shape, leaving the presets out of the user spec', async () => {
      const response = await tenant.api.post<Template>(TEMPLATES, {
        actor_definition_id: jira.definitionId,
        partial_default_config: { subdomain: 'acme' },
        name: null,
        customization: null,
        mode: null,
      });
      expect(response.status).toBe(200);
      expect(referenceErrors('SourceTemplateCreateResponse', response.body)).toEqual([]);
      jiraTemplate = response.body;
      expect(response.body).toMatchObject({
        name: jira.displayName,
        source_definition_id: jira.definitionId,
        partial_default_config: { subdomain: 'acme' },
        mode: 'REPLICATION',
        tags: [],
      });
      const spec = response.body.user_config_spec.connectionSpecification;
      expect(Object.keys(spec.properties)).toContain('credentials');
      expect(Object.keys(spec.properties)).not.toContain('subdomain');
      expect(spec.required).not.toContain('subdomain');
    });

    it('refuses credentials, unknown settings and values breaking a setting rule, naming each field', async () => {
      const response = await tenant.api.post<ErrorBody>(TEMPLATES, {
        actor_definition_id: salesforce.definitionId,
        partial_default_config: { credentials: { client_secret: 'x' }, region: 'eu', login_environment: 'prod' },
      });
      expect(response.status).toBe(422);
      expect(response.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['partial_default_config.credentials', 'no_secrets'],
        ['partial_default_config.region', 'unknown'],
        ['partial_default_config.login_environment', 'enum'],
      ]);
      const list = await tenant.api.get<{ data: unknown[] }>(TEMPLATES);
      expect(list.body.data).toHaveLength(1);
    });

    it('answers 400 for a definition that is not in the catalog and 422 for a body that is neither create nor clone', async () => {
      const unknown = await tenant.api.post<ErrorBody>(TEMPLATES, { actor_definition_id: '00000000-0000-4000-8000-000000000000', partial_default_config: {} });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0]).toMatchObject({ field: 'actor_definition_id', error_code: 'unknown_definition' });
      const neither = await tenant.api.post<ErrorBody>(TEMPLATES, { name: 'x' });
      expect(neither.status).toBe(422);
    });

    it('clones a template, lists, filters by tags, gets, updates and deletes in the reference shapes', async () => {
      const clone = await tenant.api.post<Template>(TEMPLATES, { original_source_template_id: jiraTemplate.id, name: 'Jira (EU team)' });
      expect(clone.status).toBe(200);
      expect(clone.body).toMatchObject({ name: 'Jira (EU team)', partial_default_config: { subdomain: 'acme' } });

      const list = await tenant.api.get<{ data: Array<Record<string, unknown>> }>(TEMPLATES);
      expect(list.status).toBe(200);
      expect(referenceErrors('SourceTemplateListResponse', list.body)).toEqual([]);
      expect(list.body.data.map((t) => t.id)).toEqual([jiraTemplate.id, clone.body.id]);
      expect(list.body.data[0]).toMatchObject({ connector_name: 'jira', organization_id: tenant.organizationId, actor_definition_id: jira.definitionId });

      const tagged = await tenant.api.get<{ data: unknown[] }>(`${TEMPLATES}?tags=crm&tags_mode=any`);
      expect(tagged.body.data).toEqual([]);
      const global = await tenant.api.get<{ data: Array<Record<string, unknown>> }>(`${TEMPLATES}?use_global=true`);
      expect(referenceErrors('SourceTemplateListResponse', global.body)).toEqual([]);
      expect(global.body.data).toHaveLength(Object.keys(connectorModules).length);

      const got = await tenant.api.get<Template>(`${TEMPLATES}/${jiraTemplate.id}`);
      expect(got.status).toBe(200);
      expect(referenceErrors('SourceTemplateGetResponse', got.body)).toEqual([]);
      expect(got.body.connector_name).toBe('jira');
      expect((await other.api.get(`${TEMPLATES}/${jiraTemplate.id}`)).status).toBe(404);

      const patched = await tenant.api.request<Template>('PATCH', `${TEMPLATES}/${clone.body.id}`, {
        body: { name: 'Jira EU', partial_default_config: { subdomain: 'acme-eu' }, propagate: null, mode: 'DIRECT' },
      });
      expect(patched.status).toBe(200);
      expect(referenceErrors('SourceTemplateUpdateResponse', patched.body)).toEqual([]);
      expect(patched.body).toMatchObject({ name: 'Jira EU', partial_default_config: { subdomain: 'acme-eu' }, mode: 'DIRECT' });
      const empty = await tenant.api.request<ErrorBody>('PATCH', `${TEMPLATES}/${clone.body.id}`, { body: {} });
      expect(empty.status).toBe(422);
      const badPreset = await tenant.api.request<ErrorBody>('PATCH', `${TEMPLATES}/${clone.body.id}`, {
        body: { partial_default_config: { subdomain: 'not a host/..' } },
      });
      expect(badPreset.status).toBe(422);
      expect(badPreset.body.errors[0]).toMatchObject({ field: 'partial_default_config.subdomain', error_code: 'pattern' });

      const deleted = await tenant.api.delete<{ id: string; deleted_at: string }>(`${TEMPLATES}/${clone.body.id}`);
      expect(deleted.status).toBe(200);
      expect(referenceErrors('SourceTemplateDeleteResponse', deleted.body)).toEqual([]);
      expect((await tenant.api.get(`${TEMPLATES}/${clone.body.id}`)).status).toBe(404);
      expect((await tenant.api.delete(`${TEMPLATES}/${clone.body.id}`)).status).toBe(404);
      expect((await other.api.get<{ data: unknown[] }>(TEMPLATES)).body.data).toEqual([]);
    });
  });

  describe('OAuth apps (bring your own)', () => {
    it('stores the client secret sealed, never returns it, and replaces it on a second PUT', async () => {
      const first = await tenant.api.put<Record<string, string>>(OAUTH, {
        connector_type: 'Salesforce',
        connector_definition_id: null,
        configuration: { client_id: CLIENT_ID, client_secret: CLIENT_SECRET },
      });
      expect(first.status).toBe(200);
      expect(referenceErrors('OAuthCredentialsResponse', first.body)).toEqual([]);
      expect(first.body).toMatchObject({
        scope_type: 'organization',
        scope_id: tenant.organizationId,
        connector_type: 'source',
        connector_definition_id: salesforce.definitionId,
      });
      expect(JSON.stringify(first.body)).not.toContain(CLIENT_SECRET);
      expect(JSON.stringify(first.body)).not.toContain(CLIENT_ID);

      const rows = await service.store.db.selectFrom('oauth_apps').selectAll().execute();
      expect(rows).toHaveLength(1);
      expect(JSON.stringify(rows)).not.toContain(CLIENT_SECRET);

      const second = await tenant.api.put<Record<string, string>>(OAUTH, {
        connector_definition_id: salesforce.definitionId,
        configuration: { client_id: CLIENT_ID, client_secret: `${CLIENT_SECRET}-2` },
      });
      expect(second.status).toBe(200);
      expect(second.body.id).toBe(first.body.id);
      expect(await service.store.db.selectFrom('oauth_apps').selectAll().execute()).toHaveLength(1);
    });

    it('refuses a connector without a consent flow, a missing secret, unknown keys and two connector references', async () => {
      const noFlow = await tenant.api.put<ErrorBody>(OAUTH, { connector_type: 'orb', configuration: { client_id: 'a', client_secret: 'b' } });
      expect(noFlow.status).toBe(400);
      expect(noFlow.body.errors[0]).toMatchObject({ field: 'connector_type', error_code: 'oauth_not_supported' });
      const missing = await tenant.api.put<ErrorBody>(OAUTH, { connector_type: 'harvest', configuration: { client_id: 'a', scope: 'x' } });
      expect(missing.status).toBe(422);
      expect(missing.body.errors.map((e) => e.field).sort()).toEqual(['configuration.client_secret', 'configuration.scope']);
      const control = await tenant.api.put<ErrorBody>(OAUTH, {
        connector_type: 'harvest',
        configuration: { client_id: 'cid\nx', client_secret: 'sec\u0001QVZSECRET' },
      });
      expect(control.status).toBe(422);
      expect(control.body.errors.map((e) => [e.field, e.error_code])).toEqual([
        ['configuration.client_id', 'control_character'],
        ['configuration.client_secret', 'control_character'],
      ]);
      expect(JSON.stringify(control.body)).not.toContain('QVZSECRET');
      const both = await tenant.api.put<ErrorBody>(OAUTH, {
        connector_type: 'harvest',
        connector_definition_id: harvest.definitionId,
        configuration: { client_id: 'a', client_secret: 'b' },
      });
      expect(both.status).toBe(422);
      const unknown = await tenant.api.put<ErrorBody>(OAUTH, { connector_type: 'nope', configuration: { client_id: 'a', client_secret: 'b' } });
      expect(unknown.status).toBe(400);
      expect(unknown.body.errors[0]?.error_code).toBe('unknown_connector_type');
    });

    it('deletes idempotently with 204, per organization', async () => {
      await other.api.put(OAUTH, { connector_type: 'salesforce', configuration: { client_id: 'o', client_secret: 'p' } });
      const deleted = await tenant.api.delete(`${OAUTH}/connector_type/salesforce`);
      expect(deleted.status).toBe(204);
      expect((await tenant.api.delete(`${OAUTH}/connector_type/salesforce`)).status).toBe(204);
      const live = await service.store.db.selectFrom('oauth_apps').select(['organization_id']).where('deleted_at', 'is', null).execute();
      expect(live).toEqual([{ organization_id: other.organizationId }]);
      expect((await tenant.api.delete(`${OAUTH}/connector_type/nope`)).status).toBe(400);
    });

    it('re-seals OAuth app secrets when the master key rotates', async () => {
      const rotated = service.keyring.withCurrent(randomBytes(32));
      await reencryptCredentials(service.store.db, service.keyring, rotated);
      const row = await service.store.db.selectFrom('oauth_apps').selectAll().where('organization_id', '=', other.organizationId).executeTakeFirstOrThrow();
      expect(row.credentials_key_id).toBe(rotated.currentKeyId);
      expect(openCredentials(rotated, row.id, row)).toEqual({ client_id: 'o', client_secret: 'p' });
    });
  });

  describe('widget tokens', () => {
    it('issues a token bound to a workspace (created when missing) with a connect link', async () => {
      const response = await tenant.api.post<{ token: string; connect_url: string; expires_in: number }>(WIDGET, {
        workspace_name: 'customer-42',
        allowed_origin: 'https://app.example.com',
        region_id: null,
        selected_source_template_tags: [],
        selected_connection_template_tags: ['ignored'],
      });
      expect(response.status).toBe(200);
      expect(referenceErrors('WidgetTokenCreateResponse', response.body)).toEqual([]);
      expect(response.body.connect_url).toBe(`${service.url}/connect?token=${response.body.token}`);
      expect(response.body.expires_in).toBe(900);
      const workspaces = await service.store.db.selectFrom('workspaces').select('name').where('organization_id', '=', tenant.organizationId).execute();
      expect(workspaces.map((w) => w.name)).toContain('customer-42');
      // A widget token is not an application token.
      const misuse = await tenant.api.get(TEMPLATES, { token: response.body.token });
      expect(misuse.status).toBe(401);
    });

    it('refuses an allowed_origin that is not an origin, a missing workspace_name and a missing application token', async () => {
      for (const origin of ['https://app.example.com/path', 'javascript:alert(1)', 'app.example.com']) {
        const response = await tenant.api.post<ErrorBody>(WIDGET, { workspace_name: 'w', allowed_origin: origin });
        expect(response.status, origin).toBe(422);
        expect(response.body.errors[0]?.field).toBe('allowed_origin');
      }
      const noWorkspace = await tenant.api.post<ErrorBody>(WIDGET, { allowed_origin: 'https://app.example.com' });
      expect(noWorkspace.status).toBe(422);
      expect(JSON.stringify(noWorkspace.body)).toContain('workspace_name');
      expect((await tenant.api.post(WIDGET, { workspace_name: 'w', allowed_origin: 'https://app.example.com' }, { token: null })).status).toBe(401);
    });

    it('serves the connect page only with a valid token, under a strict Content-Security-Policy', async () => {
      const missing = await fetch(`${service.url}/connect`);
      expect(missing.status).toBe(401);
      const forged = await fetch(`${service.url}/connect?token=abc.def.ghi`);
      expect(forged.status).toBe(401);
      expect(await forged.text()).toContain('This connect link is not valid.');
      const token = (await tenant.api.post<{ token: string }>(WIDGET, { workspace_name: 'w', allowed_origin: 'https://app.example.com' })).body.token;
      const page = await fetch(`${service.url}/connect?token=${token}`);
      expect(page.status).toBe(200);
      const csp = page.headers.get('content-security-policy') ?? '';
      expect(csp).toContain("default-src 'none'");
      expect(csp).toContain("script-src 'self'");
      expect(csp).toContain("frame-ancestors 'self' https://app.example.com");
      expect(page.headers.get('referrer-policy')).toBe('no-referrer');
      const html = await page.text();
      expect(html).not.toMatch(/<script>|style=/);
      expect(html).toContain(jira.displayName);
      const notAllowed = await fetch(`${service.url}/connect?token=${token}&redirect_uri=${encodeURIComponent('https://evil.example.net/')}`);
      expect(notAllowed.status).toBe(400);
    });
  });
});
