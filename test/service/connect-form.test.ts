/**
 * The connect page's credentials form as a browser posts it, sent more than once: a double click, a reload
 * of the answer, a form the back button restored. Each rendered form creates at most one connector.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { issueWidgetToken } from '../../src/security/tokens.js';
import { takeSubmissionTurn } from '../../src/services/connect-submissions.js';
import { formPost } from '../support/connect-flow.js';
import { startHarvestStandIn, type HarvestStandIn } from '../support/harvest-stand-in.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const TOKEN = 'harvest-pat-3f9c0e';

/** The value of the form input named `name` in a page. */
function input(html: string, name: string): string {
  const value = new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
  if (value === undefined) throw new Error(`no input ${name} in the page`);
  return value;
}

describe.each(storeKinds())('connect page form sent twice (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  let harvest: HarvestStandIn;
  let widgetToken: string;

  beforeAll(async () => {
    harvest = await startHarvestStandIn();
    service = await startTestService(kind, { upstreamBaseUrls: { harvest: harvest.url } });
    tenant = await createTenant(service);
    const template = await tenant.api.post('/api/v1/integrations/templates/sources', {
      actor_definition_id: connectorModules.harvest?.definition.definitionId,
      partial_default_config: {},
    });
    expect(template.status).toBe(200);
    const widget = await tenant.api.post<{ token: string }>('/api/v1/account/applications/widget-token', {
      workspace_name: `forms-${kind}`,
      allowed_origin: 'https://app.example.com',
    });
    widgetToken = widget.body.token;
  });
  afterAll(async () => {
    await service?.close();
    await harvest?.close();
  });

  async function renderedForm(): Promise<Record<string, string>> {
    const page = await (await fetch(`${service.url}/connect?token=${widgetToken}&connector_type=harvest`)).text();
    // Its own empty icon: browsers otherwise ask for /favicon.ico, a 404 in every page's console.
    expect(page).toContain('<link rel="icon" href="data:,">');
    return {
      token: input(page, 'token'),
      template: input(page, 'template'),
      option_title: 'Personal Access Token',
      submission: input(page, 'submission'),
      name: 'Harvest',
      'credentials.api_token': TOKEN,
      'credentials.account_id': '123456',
    };
  }

  const post = (fields: Record<string, string>) => fetch(`${service.url}/connect/connectors`, formPost(fields));
  const connectorIdOf = (html: string) => /data-connector-id="([^"]+)"/.exec(html)?.[1];
  const connectorsInWorkspace = async () =>
    (await tenant.api.get<{ data: Array<{ id: string }> }>(`/api/v1/integrations/connectors?workspace_name=forms-${kind}`)).body.data.map((c) => c.id);

  it('creates one connector for a form sent twice at once, and answers both posts with it', async () => {
    const fields = await renderedForm();
    const checks = () => harvest.requests.filter((r) => r.target.endsWith('/company')).length;
    const checksBefore = checks();
    const [first, second] = await Promise.all([post(fields), post(fields)]);
    expect([first.status, second.status]).toEqual([200, 200]);
    const ids = [connectorIdOf(await first.text()), connectorIdOf(await second.text())];
    expect(ids[0]).toBeDefined();
    expect(ids[1]).toBe(ids[0]);
    expect(await connectorsInWorkspace()).toEqual([ids[0]]);
    expect(checks() - checksBefore).toBe(1);

    // A reload of the answer (or the form the back button restored) posts it again: the same connector.
    const again = await post(fields);
    expect(again.status).toBe(200);
    expect(connectorIdOf(await again.text())).toBe(ids[0]);
    expect(await connectorsInWorkspace()).toEqual([ids[0]]);

    // The restored form sent with other values (another account) is another connector, not the first one's page.
    const other = await post({ ...fields, name: 'Second account', 'credentials.account_id': '222222' });
    expect(other.status).toBe(200);
    const otherId = connectorIdOf(await other.text());
    expect(otherId).not.toBe(ids[0]);
    expect(await connectorsInWorkspace()).toEqual([ids[0], otherId]);
  });

  it('lets a form refused for its values be sent again once corrected, and gives each render its own id', async () => {
    const fields = await renderedForm();
    expect((await renderedForm()).submission).not.toBe(fields.submission);
    const before = await connectorsInWorkspace();
    const refused = await post({ ...fields, 'credentials.account_id': 'not-digits' });
    expect(refused.status).toBe(400);
    // The field refused is marked for assistive technology and points at the summary; labels read as words.
    const page = await refused.text();
    expect(page).toMatch(/<input [^>]*name="credentials\.account_id"[^>]*aria-invalid="true"/);
    expect(page).toMatch(/<input [^>]*name="credentials\.account_id"[^>]*aria-describedby="form-error/);
    expect(page).not.toMatch(/<input [^>]*name="credentials\.api_token"[^>]*aria-invalid/);
    expect(page).toContain('>API token <span class="required">');
    expect(page).toContain('>Account ID <span class="required">');
    expect(await connectorsInWorkspace()).toEqual(before);
    const corrected = await post(fields);
    expect(corrected.status).toBe(200);
    const id = connectorIdOf(await corrected.text());
    expect(await connectorsInWorkspace()).toEqual([...before, id]);
  });

  it('marks every credential field when the vendor refuses the credentials as a whole', async () => {
    harvest.refusedTokens.add('harvest-pat-revoked');
    const fields = await renderedForm();
    const refused = await post({ ...fields, 'credentials.api_token': 'harvest-pat-revoked' });
    expect(refused.status).toBe(400);
    const page = await refused.text();
    for (const name of ['credentials.api_token', 'credentials.account_id']) {
      expect(page, name).toMatch(new RegExp(`<input [^>]*name="${name.replace('.', '\\.')}"[^>]*aria-invalid="true"`));
    }
    expect(page).not.toMatch(/<input [^>]*name="name"[^>]*aria-invalid/);
    expect(page).not.toContain('harvest-pat-revoked');
  });

  it('waits for a post still running, and takes over the claim of one that never ended', async () => {
    const db = service.store.db;
    const running = randomUUID();
    await db.insertInto('connect_submissions').values({ id: running, organization_id: tenant.organizationId }).execute();
    expect(await takeSubmissionTurn(db, running, tenant.organizationId, 300)).toEqual({ kind: 'pending' });
    const abandoned = randomUUID();
    await db
      .insertInto('connect_submissions')
      .values({ id: abandoned, organization_id: tenant.organizationId, created_at: new Date(Date.now() - 10 * 60_000) })
      .execute();
    expect(await takeSubmissionTurn(db, abandoned, tenant.organizationId, 300)).toEqual({ kind: 'claimed' });
  });

  it("shows an expired link's page in the application's frame, and a forged link's only in its own", async () => {
    const claims = { organizationId: tenant.organizationId, workspaceId: '00000000-0000-4000-8000-000000000001', workspaceName: 'w' };
    const key = service.keyring.derive('token-signing');
    const expired = await issueWidgetToken({ ...claims, allowedOrigin: 'https://app.example.com', tags: [], tagsMode: 'any' }, key, -60);
    const expiredPage = await fetch(`${service.url}/connect?token=${expired}`);
    expect(expiredPage.status).toBe(401);
    expect(await expiredPage.text()).toContain('Link expired');
    expect(expiredPage.headers.get('content-security-policy')).toContain("frame-ancestors 'self' https://app.example.com;");
    const forged = `${expired.slice(0, -4)}AAAA`;
    const forgedPage = await fetch(`${service.url}/connect?token=${forged}`);
    expect(forgedPage.status).toBe(401);
    expect(forgedPage.headers.get('content-security-policy')).toContain("frame-ancestors 'self';");
  });
});
