import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { checkManifest, runContract } from '../../codegen/contract/check.js';
import { checkGraphqlAction, graphqlLoaded, parseGraphqlSchema } from '../../codegen/contract/graphql.js';
import { parseManifest } from '../../codegen/contract/manifests.js';
import { checkOpenApiAction, findSpecPath, normalizePath, openApiFromObject, openApiLoaded } from '../../codegen/contract/openapi.js';
import { exitCodeFor, formatReport, NO_SPEC } from '../../codegen/contract/report.js';
import { applyWaivers } from '../../codegen/contract/waivers.js';
import type { ActionDef, ActionRef, Mismatch, ParamDef } from '../../codegen/contract/types.js';

// ---------------------------------------------------------------- fixtures

const openapiDoc = {
  openapi: '3.0.1',
  servers: [{ url: 'https://api.example.com/v2' }],
  paths: {
    '/users': {
      get: {
        parameters: [
          { name: 'page', in: 'query', schema: { type: 'integer' } },
          { $ref: '#/components/parameters/PerPage' },
          { name: 'X-Request-Id', in: 'header', schema: { type: 'string' } },
        ],
      },
      post: {
        requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/NewUser' } } } },
      },
    },
    '/users/{userId}': {
      parameters: [{ name: 'userId', in: 'path', required: true, schema: { type: 'integer' } }],
      get: { parameters: [{ name: 'expand', in: 'query' }] },
      patch: {
        requestBody: {
          $ref: '#/components/requestBodies/UserPatch',
        },
      },
    },
    '/users/{userId}/avatar': {
      put: { requestBody: { content: { 'multipart/form-data': { schema: { type: 'object' } } } } },
    },
    '/notes': {
      post: { requestBody: { content: { 'application/json': { schema: { type: 'object' } } } } },
    },
  },
  components: {
    parameters: { PerPage: { name: 'per_page', in: 'query', schema: { type: 'integer' } } },
    schemas: {
      NewUser: { type: 'object', properties: { name: { type: 'string' }, email: { type: 'string' }, profile: { type: 'object' } } },
      Base: { type: 'object', properties: { name: { type: 'string' } } },
    },
    requestBodies: {
      UserPatch: {
        content: {
          'application/json; charset=utf-8': {
            schema: { allOf: [{ $ref: '#/components/schemas/Base' }, { properties: { role: { type: 'string' } } }] },
          },
        },
      },
    },
  },
};

const spec = openApiFromObject(openapiDoc);
const BASE = 'https://api.example.com/v2';

function act(method: string, p: string, params: Record<string, ParamDef> = {}, extra: Partial<ActionDef> = {}): ActionRef {
  return { entity: 'users', action: 'x', def: { method, path: p, params, ...extra } };
}

function check(action: ActionRef, baseUrl = BASE, pathPrefix?: string): Mismatch[] {
  return checkOpenApiAction(spec, { action, baseUrl, pathPrefix });
}

const kinds = (ms: readonly Mismatch[]): string[] => ms.map((m) => m.kind);

const sdl = /* GraphQL */ `
  type Query {
    issue(id: String!): Issue
    issues(first: Int, after: String, filter: IssueFilter): IssueConnection!
  }
  type Mutation {
    issueCreate(input: IssueCreateInput!): IssuePayload!
  }
  input IssueFilter { title: String }
  input IssueCreateInput { teamId: String!, title: String }
  type IssuePayload { success: Boolean!, issue: Issue }
  type Issue { id: ID!, title: String, priority: Float }
  type PageInfo { hasNextPage: Boolean!, endCursor: String }
  type IssueConnection { nodes: [Issue!]!, pageInfo: PageInfo! }
`;
const schema = parseGraphqlSchema(sdl);

function gql(document: string, params: Record<string, ParamDef> = {}): ActionRef {
  return { entity: 'issues', action: 'list', def: { method: 'POST', path: '/graphql', params, graphql: { document } } };
}

// ---------------------------------------------------------------- OpenAPI

describe('openapi: paths and methods', () => {
  it('normalises template names', () => {
    expect(normalizePath('/users/{id}/')).toBe('/users/{}');
    expect(normalizePath('/a/{x}.json')).toBe('/a/{}.json');
  });

  it('finds a path whose template names differ from ours', () => {
    expect(findSpecPath(spec, '/users/{id}', { baseUrl: BASE })?.entry.raw).toBe('/users/{userId}');
    expect(check(act('GET', '/users/{id}', { id: { in: 'path' }, expand: { in: 'query' } }))).toEqual([]);
  });

  it('reports a missing method with the methods the spec has', () => {
    const ms = check(act('DELETE', '/users/{id}', { id: { in: 'path' } }));
    expect(kinds(ms)).toEqual(['method_missing']);
    expect(ms[0]?.message).toContain('GET, PATCH');
    expect(ms[0]?.where).toBe('DELETE /users/{userId}');
  });

  it('reports a missing path', () => {
    const ms = check(act('GET', '/groups'));
    expect(kinds(ms)).toEqual(['path_missing']);
    expect(ms[0]?.where).toBe('GET /groups');
  });

  it('reconciles the server base path with base_url and strips path_prefix', () => {
    // base_url without /v2, our path carries it; spec server URL holds /v2
    expect(check(act('GET', '/v2/users'), 'https://api.example.com')).toEqual([]);
    // base_url with a template host still yields its path
    expect(check(act('GET', '/users'), 'https://{{config.sub}}.example.com/v2')).toEqual([]);
    // path_prefix is stripped before lookup
    expect(check(act('GET', '/api/users'), 'https://other.example.com', '/api')).toEqual([]);
    // without the prefix the path is unknown
    expect(kinds(check(act('GET', '/api/users'), 'https://other.example.com'))).toEqual(['path_missing']);
  });

  it('reports a path param that is not a template segment of our path', () => {
    expect(kinds(check(act('GET', '/users/{id}', { userId: { in: 'path' } })))).toEqual(['path_param_template']);
  });
});

describe('openapi: params', () => {
  it('reports a missing query param', () => {
    const ms = check(act('GET', '/users', { page: { in: 'query' }, sort: { in: 'query' } }));
    expect(ms).toEqual([expect.objectContaining({ kind: 'param_missing', param: 'sort', message: "query param 'sort' not in spec", where: 'GET /users' })]);
  });

  it('uses the wire name of a param', () => {
    expect(check(act('GET', '/users', { pageNumber: { in: 'query', wire: 'page' } }))).toEqual([]);
    const ms = check(act('GET', '/users', { page: { in: 'query', wire: 'pg' } }));
    expect(ms).toEqual([expect.objectContaining({ kind: 'param_missing', param: 'page', wire: 'pg' })]);
  });

  it('finds a $ref parameter (and path-item parameters)', () => {
    expect(check(act('GET', '/users', { per_page: { in: 'query' } }))).toEqual([]);
  });

  it('compares header names case-insensitively', () => {
    expect(check(act('GET', '/users', { request_id: { in: 'header', wire: 'x-request-id' } }))).toEqual([]);
  });

  it('reports a param at the wrong location', () => {
    const asHeader = check(act('GET', '/users', { page: { in: 'header' } }));
    expect(asHeader).toEqual([expect.objectContaining({ kind: 'param_location', message: "param 'page' is in: header here but in: query in the spec" })]);
    const bodyAsQuery = check(act('POST', '/users', { email: { in: 'query' } }));
    expect(bodyAsQuery).toEqual([expect.objectContaining({ kind: 'param_location', message: "param 'email' is in: query here but in: body in the spec" })]);
    expect(kinds(check(act('GET', '/users', { q: { in: 'variables' } })))).toEqual(['param_location']);
  });

  it('checks body params against the $ref request body schema (first dot segment of wire)', () => {
    const ok = check(act('POST', '/users', { name: { in: 'body' }, mail: { in: 'body', wire: 'email' }, city: { in: 'body', wire: 'profile.city' } }));
    expect(ok).toEqual([]);
    const ms = check(act('POST', '/users', { nickname: { in: 'body' } }));
    expect(ms).toEqual([
      expect.objectContaining({ kind: 'param_missing', param: 'nickname', message: "body param 'nickname' not in the spec's request body" }),
    ]);
  });

  it('resolves $ref request bodies, allOf and json media types with parameters', () => {
    expect(check(act('PATCH', '/users/{id}', { id: { in: 'path' }, name: { in: 'body' }, role: { in: 'body' } }))).toEqual([]);
    expect(kinds(check(act('PATCH', '/users/{id}', { id: { in: 'path' }, age: { in: 'body' } })))).toEqual(['param_missing']);
  });

  it('reports body params when the operation has no JSON body', () => {
    expect(kinds(check(act('GET', '/users', { name: { in: 'body' } })))).toEqual(['body_missing']);
    const ms = check(act('PUT', '/users/{id}/avatar', { id: { in: 'path' }, file: { in: 'body' } }));
    expect(ms[0]?.message).toContain('multipart/form-data');
  });

  it('accepts any body name for a free-form object body', () => {
    expect(check(act('POST', '/notes', { anything: { in: 'body' } }))).toEqual([]);
  });

  it('checks constant_body fields', () => {
    expect(check(act('POST', '/users', {}, { constant_body: { name: 'x' } }))).toEqual([]);
    const ms = check(act('POST', '/users', {}, { constant_body: { kind: 'x' } }));
    expect(ms).toEqual([expect.objectContaining({ kind: 'param_missing', param: 'kind' })]);
  });

  it('skips unknown-body checks with additional_params: body', () => {
    const a = act('POST', '/users', { nickname: { in: 'body' } }, { additional_params: 'body', constant_body: { kind: 'x' } });
    expect(check(a)).toEqual([]);
    // query params are still checked
    const b = act('POST', '/users', { sort: { in: 'query' } }, { additional_params: 'body' });
    expect(kinds(check(b))).toEqual(['param_missing']);
  });
});

// ---------------------------------------------------------------- GraphQL

describe('graphql', () => {
  it('accepts a valid document whose params map to declared variables', () => {
    const a = gql(
      'query Issues($first: Int, $after: String) { issues(first: $first, after: $after) { nodes { id title } pageInfo { hasNextPage endCursor } } }',
      {
        first: { in: 'variables' },
        after: { in: 'variables' },
      },
    );
    expect(checkGraphqlAction(schema, { action: a, baseUrl: 'https://api.example.com' })).toEqual([]);
  });

  it('maps nested wire names by their first segment', () => {
    const a = gql('mutation C($input: IssueCreateInput!) { issueCreate(input: $input) { success issue { id } } }', {
      teamId: { in: 'variables', wire: 'input.teamId' },
      title: { in: 'variables', wire: 'input.title' },
    });
    expect(checkGraphqlAction(schema, { action: a, baseUrl: '' })).toEqual([]);
  });

  it('reports an invalid field with its location', () => {
    const a = gql('query I($id: String!) {\n  issue(id: $id) { id estimate }\n}', { id: { in: 'variables' } });
    const ms = checkGraphqlAction(schema, { action: a, baseUrl: '' });
    expect(ms).toEqual([
      expect.objectContaining({ kind: 'graphql_invalid', message: 'Cannot query field "estimate" on type "Issue".', where: 'graphql.document 2:23' }),
    ]);
  });

  it('reports a param whose variable the document does not declare', () => {
    const a = gql('query I($id: String!) { issue(id: $id) { id } }', { id: { in: 'variables' }, teamId: { in: 'variables' } });
    const ms = checkGraphqlAction(schema, { action: a, baseUrl: '' });
    expect(ms).toEqual([expect.objectContaining({ kind: 'variable_undeclared', param: 'teamId' })]);
  });

  it('reports a parse error, a missing document, a required variable no param feeds, and non-variable params', () => {
    expect(kinds(checkGraphqlAction(schema, { action: gql('query { issue(id: "1") { id }'), baseUrl: '' }))).toEqual(['graphql_parse']);
    const noDoc: ActionRef = { entity: 'issues', action: 'get', def: { method: 'POST', path: '/graphql', params: {} } };
    expect(kinds(checkGraphqlAction(schema, { action: noDoc, baseUrl: '' }))).toEqual(['graphql_document_missing']);
    const unfed = gql('query I($id: String!) { issue(id: $id) { id } }');
    expect(kinds(checkGraphqlAction(schema, { action: unfed, baseUrl: '' }))).toEqual(['variable_unfed']);
    const q = gql('query I($id: String!) { issue(id: $id) { id } }', { id: { in: 'variables' }, x: { in: 'query' } });
    expect(kinds(checkGraphqlAction(schema, { action: q, baseUrl: '' }))).toEqual(['param_location']);
  });
});

// ---------------------------------------------------------------- waivers and manifests

const manifestYaml = (waivers: string): string => `
connector_type: demo
base_url: https://api.example.com/v2
vendor_spec:
  format: openapi
  file: demo/openapi.json
${waivers}
entities:
  users:
    actions:
      list:
        method: GET
        path: /users
        params:
          sort: { in: query, schema: { type: string } }
          page: { in: query, schema: { type: integer } }
      get:
        method: GET
        path: /users/{id}
        params:
          id: { in: path, required: true, schema: { type: integer } }
      delete:
        method: DELETE
        path: /users/{id}
        params:
          id: { in: path, required: true, schema: { type: integer } }
`;

describe('waivers', () => {
  const loaded = openApiLoaded(spec);

  it('without waivers: all mismatches are unwaived', () => {
    const r = checkManifest(parseManifest(manifestYaml(''), 'demo.yaml'), loaded);
    expect(r.actionsChecked).toBe(3);
    expect(r.unwaived.map((m) => `${m.entity}.${m.action}:${m.kind}`)).toEqual(['users.list:param_missing', 'users.delete:method_missing']);
    expect(exitCodeFor([r])).toBe(1);
  });

  it("checks an entity's deleted feed (a request of the sync, no action) like a GET with its two range params", () => {
    const withFeed = (feedPath: string, from: string) =>
      manifestYaml('').replace(
        '  users:\n    actions:',
        `  users:\n    search:\n      incremental: { param: page, format: unix_seconds, field: updated, docs: "https://x.example.com", deleted_feed: { path: ${feedPath}, from: ${from}, to: per_page, format: unix_seconds, records_path: deleted, id_field: id, docs: "https://x.example.com" } }\n    actions:`,
      );
    const good = checkManifest(parseManifest(withFeed('/users', 'page'), 'demo.yaml'), loaded);
    expect(good.actionsChecked).toBe(4);
    expect(good.unwaived.map((m) => `${m.entity}.${m.action}:${m.kind}`)).toEqual(['users.list:param_missing', 'users.delete:method_missing']);
    const wrongParam = checkManifest(parseManifest(withFeed('/users', 'since'), 'demo.yaml'), loaded);
    expect(wrongParam.unwaived.map((m) => `${m.entity}.${m.action}:${m.kind}`)).toContain('users.search.incremental.deleted_feed:param_missing');
    const wrongPath = checkManifest(parseManifest(withFeed('/deleted-users', 'page'), 'demo.yaml'), loaded);
    expect(wrongPath.unwaived.map((m) => `${m.entity}.${m.action}:${m.kind}`)).toContain('users.search.incremental.deleted_feed:path_missing');
  });

  it('accepts param-level and action-level waivers', () => {
    const waivers = `  waivers:
    - { action: users.list, param: sort, reason: "Documented on the vendor site but missing from the spec." }
    - { action: users.delete, reason: "Delete exists in the API; the spec predates it." }`;
    const r = checkManifest(parseManifest(manifestYaml(waivers), 'demo.yaml'), loaded);
    expect(r.unwaived).toEqual([]);
    expect(r.waived.map((w) => `${subjectOf(w.mismatch)}:${w.waiver.reason.slice(0, 10)}`)).toEqual(['users.list:Documented', 'users.delete:Delete exi']);
    expect(exitCodeFor([r])).toBe(0);
  });

  it('reports stale waivers (no matching mismatch, or unknown action)', () => {
    const waivers = `  waivers:
    - { action: users.list, param: sort, reason: "Documented on the vendor site but missing from the spec." }
    - { action: users.delete, reason: "Delete exists in the API; the spec predates it." }
    - { action: users.get, param: id, reason: "Spec names it userId (stale: names are normalised)." }
    - { action: users.create, reason: "There is no such action in this manifest." }`;
    const r = checkManifest(parseManifest(manifestYaml(waivers), 'demo.yaml'), loaded);
    expect(r.waived).toHaveLength(2);
    expect(r.unwaived).toEqual([
      expect.objectContaining({ kind: 'stale_waiver', entity: 'users', action: 'get', param: 'id', where: 'vendor_spec.waivers[2]' }),
      expect.objectContaining({ kind: 'stale_waiver', entity: 'users', action: 'create', message: expect.stringContaining('no such action') }),
    ]);
    expect(exitCodeFor([r])).toBe(1);
  });

  it('matches a waiver by wire name too', () => {
    const ms: Mismatch[] = [{ kind: 'param_missing', entity: 'a', action: 'b', param: 'p', wire: 'w', message: 'm', where: 'x' }];
    const out = applyWaivers(ms, [{ action: 'a.b', param: 'w', reason: 'because of reasons' }]);
    expect(out.unwaived).toEqual([]);
    expect(out.waived).toHaveLength(1);
  });
});

function subjectOf(m: Mismatch): string {
  return `${m.entity ?? ''}.${m.action ?? ''}`;
}

// ---------------------------------------------------------------- end to end over a temp folder

describe('runContract + report', () => {
  const root = mkdtempSync(path.join(tmpdir(), 'contract-'));
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  it('checks manifests, lists ones without vendor_spec, fails on a missing spec file', async () => {
    const manifests = path.join(root, 'manifests');
    const specs = path.join(root, 'specs');
    mkdirSync(path.join(manifests, 'schema'), { recursive: true });
    mkdirSync(path.join(specs, 'demo'), { recursive: true });
    mkdirSync(path.join(specs, 'gql'), { recursive: true });
    writeFileSync(path.join(specs, 'demo', 'openapi.json'), JSON.stringify(openapiDoc));
    writeFileSync(path.join(specs, 'gql', 'schema.graphql'), sdl);
    writeFileSync(path.join(manifests, 'demo.yaml'), manifestYaml(''));
    writeFileSync(
      path.join(manifests, 'gql.yaml'),
      `connector_type: gql
base_url: https://api.example.com
vendor_spec: { format: graphql, file: gql/schema.graphql }
entities:
  issues:
    actions:
      get:
        method: POST
        path: /graphql
        graphql: { document: "query I($id: String!) { issue(id: $id) { id title } }" }
        params:
          id: { in: variables, schema: { type: string } }
`,
    );
    writeFileSync(
      path.join(manifests, 'plain.yaml'),
      'connector_type: plain\nbase_url: https://x.example.com\nentities:\n  a:\n    actions:\n      list: { method: GET, path: /a }\n',
    );
    writeFileSync(
      path.join(manifests, 'lost.yaml'),
      'connector_type: lost\nbase_url: https://x.example.com\nvendor_spec: { format: openapi, file: nowhere/openapi.json }\nentities:\n  a:\n    actions:\n      list: { method: GET, path: /a }\n',
    );
    writeFileSync(path.join(manifests, 'schema', 'ignored.yaml'), 'not: [a manifest');

    const results = await runContract({ manifestsDir: manifests, specsDir: specs });
    expect(results.map((r) => r.connector)).toEqual(['demo', 'gql', 'lost', 'plain']);
    const text = formatReport(results);
    expect(text).toMatch(/^connector \| spec +\| actions checked \| mismatches \| waived$/m);
    expect(text).toMatch(/^demo +\| demo\/openapi\.json \(openapi\) +\| 3 +\| 2 +\| 0$/m);
    expect(text).toMatch(/^gql +\| gql\/schema\.graphql \(graphql\) +\| 1 +\| 0 +\| 0$/m);
    expect(text).toContain(`plain     | ${NO_SPEC}`);
    expect(text).toContain("demo users.list: query param 'sort' not in spec (GET /users)");
    expect(text).toContain('lost vendor_spec: vendor_spec file not found');
    expect(exitCodeFor(results)).toBe(1);

    const onlyGood = await runContract({ manifestsDir: manifests, specsDir: specs, only: ['gql', 'plain'] });
    expect(exitCodeFor(onlyGood)).toBe(0);
    expect(formatReport(onlyGood)).toContain('contract: OK');
  });

  it('the graphql format module loads through the same interface', () => {
    const loaded = graphqlLoaded(schema);
    const r = checkManifest(
      parseManifest(
        'connector_type: g\nbase_url: https://x.example.com\nvendor_spec: { format: graphql, file: f }\nentities:\n  issues:\n    actions:\n      get:\n        method: POST\n        path: /graphql\n        graphql: { document: "{ issue(id: \\"1\\") { nope } }" }\n',
        'g.yaml',
      ),
      loaded,
    );
    expect(r.unwaived.map((m) => m.kind)).toEqual(['graphql_invalid']);
  });
});
