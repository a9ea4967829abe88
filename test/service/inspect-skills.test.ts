import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules, loadSkillDocs, type SkillDocs } from '../../runtime/index.js';
import { insertConnector } from '../support/connector-rows.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

const PAT = 'harvest-pat-secret-0002';
const JIRA_TOKEN = 'jira-api-token-secret-0002';
const LINEAR_KEY = 'lin_api_secret_0002';

type Rec = Record<string, unknown>;
interface Param {
  name: string;
  location: string;
  required: boolean;
  type: unknown;
  description: string | null;
  enum?: unknown[];
  default?: unknown;
  limits: Rec;
  schema: Rec;
  aliases?: string[];
}
interface Action {
  name: string;
  description: string | null;
  result: string;
  idempotent: boolean;
  destructive: boolean;
  params: Param[];
  accepts_additional_params: boolean;
  pagination: { style: string; block_keys: string[] } | null;
}
interface Entity {
  name: string;
  description: string;
  record: { id_field: string; fields: Record<string, Rec> };
  search: { fields: string[]; semantic: Array<{ field: string; context_window: number }> };
  actions: Action[];
}
interface Inspect extends Rec {
  entities: Entity[];
  usage_guidance: string;
  warnings: string[];
  docs_skill_id: string;
}
interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string; details?: Rec }>;
}

const inspect = (id: string) => `/api/v1/integrations/connectors/${id}/inspect`;
const entity = (body: Inspect, name: string) => body.entities.find((e) => e.name === name) as Entity;
const action = (e: Entity, name: string) => e.actions.find((a) => a.name === name) as Action;
const param = (a: Action, name: string) => a.params.find((p) => p.name === name) as Param;

describe.each(storeKinds())('inspect (%s)', (kind) => {
  let service: TestService;
  let a: Tenant;
  let b: Tenant;
  let harvest: string;
  let jira: string;
  let linear: string;
  const bodies: string[] = [];
  const get = async <T = Inspect>(tenant: Tenant, path: string) => {
    const response = await tenant.api.get<T>(path);
    bodies.push(JSON.stringify(response.body));
    return response;
  };

  beforeAll(async () => {
    service = await startTestService(kind);
    a = await createTenant(service, 'A');
    b = await createTenant(service, 'B');
    harvest = await insertConnector(service, a.organizationId, {
      connectorType: 'harvest',
      authOption: 'Personal Access Token',
      credentials: { api_token: PAT, account_id: '123456' },
      name: 'Harvest of A',
    });
    jira = await insertConnector(service, a.organizationId, {
      connectorType: 'jira',
      authOption: 'API Token',
      credentials: { email: 'ops@acme.example', api_token: JIRA_TOKEN },
      config: { subdomain: 'acme' },
    });
    linear = await insertConnector(service, a.organizationId, { connectorType: 'linear', authOption: 'API Key', credentials: { api_key: LINEAR_KEY } });
  });
  afterAll(async () => {
    for (const body of bodies) for (const secret of [PAT, JIRA_TOKEN, LINEAR_KEY, 'ops@acme.example']) expect(body).not.toContain(secret);
    await service.close();
  });

  it("answers the reference's inspect fields", async () => {
    const response = await get(a, inspect(harvest));
    expect(response.status).toBe(200);
    const workspace = await service.store.db
      .selectFrom('workspaces')
      .select('id')
      .where('organization_id', '=', a.organizationId)
      .where('name', '=', 'default')
      .executeTakeFirstOrThrow();
    const definition = connectorModules.harvest?.definition;
    expect(response.body).toMatchObject({
      connector_id: harvest,
      name: 'Harvest of A',
      workspace_id: workspace.id,
      organization_id: a.organizationId,
      source_definition_id: definition?.definitionId,
      source_definition_name: 'Harvest',
      source_config_template_id: definition?.definitionId,
      docs_skill_id: 'connector:harvest',
      context_store_readiness: expect.objectContaining({ connector_id: harvest, source_definition_id: definition?.definitionId }),
      warnings: [],
      connector_type: 'harvest',
    });
  });

  it('gives the full catalog: entities, actions, params with limits, pagination, search and record fields', async () => {
    const { body } = await get(a, inspect(harvest));
    expect(body.entities.map((e) => e.name)).toEqual(Object.keys(connectorModules.harvest?.definition.entities ?? {}));
    const users = entity(body, 'users');
    expect(users.description).toBe('Users (people) in the Harvest account.');
    expect(users.record.id_field).toBe('id');
    expect(users.record.fields.id).toEqual({ type: 'integer' });
    expect(users.record.fields.email).toEqual({ type: ['string', 'null'] });
    // The declared search fields first, then every other top-level record field.
    expect(users.search.semantic).toEqual([]);
    expect(users.search.fields.slice(0, 11)).toEqual([
      'id',
      'first_name',
      'last_name',
      'email',
      'timezone',
      'is_active',
      'is_contractor',
      'roles',
      'access_roles',
      'created_at',
      'updated_at',
    ]);
    expect([...users.search.fields].sort()).toEqual(Object.keys(users.record.fields).sort());
    expect(users.actions.map((x) => x.name)).toEqual(['list', 'get']);
    const list = action(users, 'list');
    expect(list).toMatchObject({
      description: 'List users, most recently created first.',
      result: 'many',
      idempotent: true,
      destructive: false,
      accepts_additional_params: false,
      pagination: { style: 'next_url', block_keys: ['next_link'] },
    });
    expect(param(list, 'per_page')).toEqual({
      name: 'per_page',
      location: 'query',
      required: false,
      type: 'integer',
      description: "Number of records per page, 1 to 2000 (Harvest's default is 2000).",
      limits: { minimum: 1, maximum: 2000 },
      schema: { type: 'integer', minimum: 1, maximum: 2000 },
    });
    expect(action(users, 'get')).toEqual({
      name: 'get',
      description: 'Retrieve one user by ID.',
      result: 'one',
      idempotent: true,
      destructive: false,
      params: [{ name: 'id', location: 'path', required: true, type: 'integer', description: 'ID of the record.', limits: {}, schema: { type: 'integer' } }],
      accepts_additional_params: false,
      pagination: null,
    });
    expect(action(entity(body, 'company'), 'get')).toMatchObject({ params: [], pagination: null });
    expect(param(action(entity(body, 'time_projects'), 'list'), 'from').required).toBe(true);
  });

  it('reports defaults, patterns, enums, locations and the destructive and non-idempotent actions', async () => {
    const { body } = await get(a, inspect(jira));
    const issues = entity(body, 'issues');
    const search = action(issues, 'api_search');
    expect(search.pagination).toEqual({ style: 'next_page_token', block_keys: ['nextPageToken', 'isLast', 'total'] });
    expect(param(search, 'maxResults')).toMatchObject({ type: 'integer', default: 50, limits: { minimum: 1, maximum: 5000 }, location: 'query' });
    expect(param(search, 'maxResults').description).toBe('Maximum issues per page (Jira may return fewer when many fields are requested).');
    expect(param(search, 'properties').limits).toEqual({ pattern: '^[^,]+(,[^,]+){0,4}$' });
    expect(param(action(issues, 'get'), 'issueIdOrKey')).toMatchObject({ location: 'path', required: true, limits: { minLength: 1 } });
    expect(action(issues, 'create')).toMatchObject({ idempotent: false, destructive: false });
    expect(action(issues, 'delete')).toMatchObject({ idempotent: true, destructive: true });
    // The other names a param is accepted under, as Airbyte's clients send them.
    expect(param(action(entity(body, 'issue_comments'), 'get'), 'id').aliases).toEqual(['commentId']);
    expect(param(action(issues, 'get'), 'issueIdOrKey')).not.toHaveProperty('aliases');
    const enums = body.entities.flatMap((e) => e.actions.flatMap((x) => x.params.filter((p) => p.enum !== undefined)));
    for (const p of enums) expect(p.enum).toEqual(p.schema.enum);

    const linearBody = (await get(a, inspect(linear))).body;
    const linearIssues = entity(linearBody, 'issues');
    expect(linearIssues.search.semantic).toEqual([
      { field: 'description', context_window: 2048 },
      { field: 'title', context_window: 2048 },
    ]);
    expect(param(action(linearIssues, 'list'), 'first')).toMatchObject({ location: 'variables', limits: { minimum: 1, maximum: 250 } });
    expect(action(linearIssues, 'list').pagination).toEqual({ style: 'graphql_page_info', block_keys: ['hasNextPage', 'endCursor'] });
  });

  it('gives usage guidance for an agent', async () => {
    const { body } = await get(a, inspect(harvest));
    const guidance = body.usage_guidance;
    expect(guidance).toContain(`POST /api/v1/integrations/connectors/${harvest}/execute`);
    expect(guidance).toContain("connector_metadata carries this connector's native pagination keys (next_link) and, when there is a next page, next_params");
    expect(guidance).toContain('next_params is absent on the last page');
    expect(guidance).toContain('GET /api/v1/skills/docs?id=connector:harvest');
    expect(guidance).toContain('context_store_search is not ready');
    expect(guidance).toContain(`Harvest specifics: ${connectorModules.harvest?.definition.guidance}`);
  });

  it('warns that an inactive workspace cannot execute', async () => {
    const id = await insertConnector(service, a.organizationId, {
      connectorType: 'harvest',
      authOption: 'Personal Access Token',
      credentials: { api_token: PAT, account_id: '123456' },
      workspace: 'dormant',
    });
    await service.store.db
      .updateTable('workspaces')
      .set({ status: 'inactive' })
      .where('organization_id', '=', a.organizationId)
      .where('name', '=', 'dormant')
      .execute();
    const { body } = await get(a, inspect(id));
    expect(body.warnings).toEqual(['Workspace "dormant" is inactive: execute calls on this connector are refused with 403 until it is active again.']);
  });

  it('gives another organization 404, and checks the id and the token', async () => {
    const foreign = await get<ErrorBody>(b, inspect(harvest));
    expect(foreign.status).toBe(404);
    expect(foreign.body).toEqual({
      message: `No connector ${harvest}.`,
      errors: [{ field: null, message: `No connector ${harvest}.`, error_code: 'not_found' }],
    });
    const bad = await get<ErrorBody>(a, inspect('123'));
    expect(bad.status).toBe(422);
    expect(bad.body.errors[0]).toMatchObject({ field: 'id', error_code: 'pattern' });
    expect((await get(a, inspect('00000000-0000-4000-8000-000000000000'))).status).toBe(404);
    expect((await a.api.get(inspect(harvest), { token: null })).status).toBe(401);
  });
});

/** Every kind's generated docs, loaded once (they are loaded on demand by the service). */
const skillDocs: Record<string, SkillDocs> = Object.fromEntries(
  await Promise.all(Object.keys(connectorModules).map(async (type) => [type, (await loadSkillDocs(type)) as SkillDocs] as const)),
);

describe.each(storeKinds())('skill docs (%s)', (kind) => {
  let service: TestService;
  let a: Tenant;
  let b: Tenant;
  const types = Object.keys(skillDocs).sort();
  const ids = types.map((t) => `connector:${t}`);
  const harvestDocs = skillDocs.harvest;
  if (!harvestDocs) throw new Error('harvest docs missing');
  const outline = harvestDocs.sections.map((s) => ({ id: s.id, title: s.title, summary: s.summary, available: true }));
  const metadata = {
    id: 'connector:harvest',
    kind: 'connector_source',
    title: harvestDocs.title,
    summary: harvestDocs.summary,
    tags: harvestDocs.tags,
    provenance: `Generated from the connector manifest manifests/harvest.yaml (source definition ${connectorModules.harvest?.definition.definitionId}).`,
    version: harvestDocs.version,
    freshness: { state: 'static', checked_at: null },
    warnings: [],
  };

  beforeAll(async () => {
    service = await startTestService(kind);
    a = await createTenant(service, 'A');
    b = await createTenant(service, 'B');
  });
  afterAll(async () => service.close());

  describe.each(['/api/v1/skills/docs', '/skills/docs'])('%s', (path) => {
    it('gives the default document (execution guidance) with the outline, for both id forms', async () => {
      for (const id of ['connector:harvest', 'harvest']) {
        const response = await a.api.get(`${path}?id=${encodeURIComponent(id)}`);
        expect(response.status).toBe(200);
        expect(response.body).toEqual({ metadata, outline, section_id: null, content: harvestDocs.sections[0]?.blocks });
      }
      const content = JSON.stringify((await a.api.get(`${path}?id=connector:harvest`)).body.content);
      expect(content).toContain('How to execute');
      expect(content).toContain('next_params');
    });

    it('gives one section', async () => {
      const response = await a.api.get(`${path}?id=connector:harvest&section=users.list`);
      expect(response.status).toBe(200);
      expect(response.body).toEqual({
        metadata,
        outline,
        section_id: 'users.list',
        content: harvestDocs.sections.find((s) => s.id === 'users.list')?.blocks,
      });
    });

    it('answers 404 listing the skills for an unknown id, and the sections for an unknown section', async () => {
      const unknown = await a.api.get<ErrorBody>(`${path}?id=connector:nope`);
      expect(unknown.status).toBe(404);
      const message = `No skill "connector:nope". Skills: ${ids.join(', ')} (the bare connector type is accepted too).`;
      expect(unknown.body).toEqual({ message, errors: [{ field: 'id', message, error_code: 'not_found', details: { limit: ids } }] });
      expect((await a.api.get(`${path}?id=toString`)).status).toBe(404);
      const section = await a.api.get<ErrorBody>(`${path}?id=harvest&section=users.delete`);
      expect(section.status).toBe(404);
      const sectionIds = harvestDocs.sections.map((s) => s.id);
      expect(section.body.message).toBe(`Skill connector:harvest has no section "users.delete". Sections: ${sectionIds.join(', ')}.`);
      expect(section.body.errors[0]).toMatchObject({ field: 'section', error_code: 'not_found', details: { limit: sectionIds } });
    });

    it('validates the query and the scope', async () => {
      const missing = await a.api.get<ErrorBody>(path);
      expect(missing.status).toBe(422);
      expect(missing.body.errors).toEqual([{ field: 'id', message: 'query id is required', error_code: 'required' }]);
      const extra = await a.api.get<ErrorBody>(`${path}?id=harvest&page=2`);
      expect(extra.status).toBe(422);
      expect(extra.body.errors[0]).toMatchObject({ field: 'page', error_code: 'unknown' });
      expect((await a.api.get(`${path}?id=harvest&organization_id=${a.organizationId}`)).status).toBe(200);
      expect((await a.api.get(`${path}?id=harvest&organization_id=${b.organizationId}`)).status).toBe(404);
      expect((await a.api.get(`${path}?id=harvest&organization_id=nope`)).status).toBe(422);
      const workspace = await service.store.db.selectFrom('workspaces').select('id').where('organization_id', '=', a.organizationId).executeTakeFirstOrThrow();
      const foreign = await service.store.db.selectFrom('workspaces').select('id').where('organization_id', '=', b.organizationId).executeTakeFirstOrThrow();
      expect((await a.api.get(`${path}?id=harvest&workspace_id=${workspace.id}`)).status).toBe(200);
      expect((await a.api.get(`${path}?id=harvest&workspace_id=${foreign.id}`)).status).toBe(404);
      expect((await a.api.get(`${path}?id=harvest`, { token: null })).status).toBe(401);
    });
  });

  it('reads the docs of every kind by the id inspect returns', async () => {
    for (const type of types) {
      const response = await a.api.get(`/api/v1/skills/docs?id=connector:${type}`);
      expect(response.status).toBe(200);
      expect(response.body.outline).toEqual(skillDocs[type]?.sections.map((s) => ({ id: s.id, title: s.title, summary: s.summary, available: true })));
    }
  });

  it('lists the skills, a page at a time', async () => {
    const all = await a.api.get<{ data: Array<{ id: string }>; next_cursor: string | null }>('/api/v1/skills');
    expect(all.status).toBe(200);
    expect(all.body.data.map((s) => s.id)).toEqual(ids);
    expect(all.body.next_cursor).toBeNull();
    expect(all.body.data.find((s) => s.id === 'connector:harvest')).toEqual(metadata);

    const seen: string[] = [];
    let cursor: string | null = null;
    do {
      const query: string = cursor === null ? '' : `&cursor=${cursor}`;
      const page = await a.api.get<{ data: Array<{ id: string }>; next_cursor: string | null }>(`/api/v1/skills?limit=2${query}`);
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      seen.push(...page.body.data.map((s) => s.id));
      cursor = page.body.next_cursor;
    } while (cursor !== null);
    expect(seen).toEqual(ids);

    const badCursor = await a.api.get<ErrorBody>('/api/v1/skills?cursor=garbage');
    expect(badCursor.status).toBe(400);
    expect(badCursor.body.errors[0]).toMatchObject({ field: 'cursor', error_code: 'invalid_cursor' });
    // Well-formed, but naming no skill: not a cursor this service issued.
    const forged = Buffer.from(JSON.stringify({ after: 'connector:zzz' })).toString('base64url');
    const forgedCursor = await a.api.get<ErrorBody>(`/api/v1/skills?cursor=${forged}`);
    expect(forgedCursor.status).toBe(400);
    expect(forgedCursor.body.errors[0]).toMatchObject({ field: 'cursor', error_code: 'invalid_cursor' });
    const tooMany = await a.api.get<ErrorBody>('/api/v1/skills?limit=101');
    expect(tooMany.status).toBe(422);
    expect(tooMany.body.errors[0]).toMatchObject({ field: 'limit', error_code: 'maximum', details: { limit: 100 } });
    expect((await a.api.get(`/api/v1/skills?organization_id=${b.organizationId}`)).status).toBe(404);
  });

  it('describes the execute, inspect and skills routes in the OpenAPI document', async () => {
    const doc = await a.api.get<{ paths: Record<string, Record<string, { responses: Record<string, unknown> }>> }>('/api/v1/openapi.json');
    const paths = doc.body.paths;
    expect(Object.keys(paths['/api/v1/integrations/connectors/{id}/execute']?.post?.responses ?? {})).toEqual(
      expect.arrayContaining(['200', '400', '403', '404', '422', '424', '429', '502', '504']),
    );
    expect(paths['/api/v1/integrations/connectors/{id}/inspect']?.get).toBeDefined();
    expect(paths['/api/v1/skills']?.get).toBeDefined();
    expect(paths['/api/v1/skills/docs']?.get).toBeDefined();
    expect(paths['/skills/docs']?.get).toBeDefined();
  });
});
