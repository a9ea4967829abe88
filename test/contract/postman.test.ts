import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runContract } from '../../codegen/contract/check.js';
import { defaultFormats } from '../../codegen/contract/formats.js';
import {
  checkPostmanAction,
  findRequests,
  loadPostmanSpec,
  POSTMAN_COLLECTION,
  postmanFormat,
  postmanSpecFromDocuments,
  requestsFromDocument,
  segmentMatches,
  splitPostmanUrl,
} from '../../codegen/contract/postman.js';
import { exitCodeFor, formatReport } from '../../codegen/contract/report.js';
import type { ActionDef, ActionRef, Mismatch, ParamDef } from '../../codegen/contract/types.js';

// ---------------------------------------------------------------- fixture: a tiny exploded v1 collection

/** A legacy (v1) exploded request file, shaped like those of forcedotcom/postman-salesforce-apis. */
const v1 = (name: string, method: string, url: string, extra: Record<string, unknown> = {}) => ({
  id: `id-${name}`,
  name,
  url,
  method,
  headerData: [{ key: 'Content-Type', value: 'application/json' }],
  headers: 'Content-Type: application/json\n',
  queryParams: [],
  dataMode: null,
  data: null,
  ...extra,
});

const FILES: Record<string, unknown> = {
  'collections/apis/rest/query.json': v1('Query', 'GET', '{{_endpoint}}/services/data/v{{version}}/query/?q=SELECT+name+from+Account', {
    queryParams: [{ key: 'q', value: 'SELECT+name+from+Account', enabled: true }],
  }),
  'collections/apis/rest/describe_global.json': v1('Describe Global', 'GET', '{{_endpoint}}/services/data/v{{version}}/sobjects/'),
  'collections/apis/rest/sobject_create.json': v1('SObject Create', 'POST', '{{_endpoint}}/services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>', {
    dataMode: 'raw',
    rawModeData: '{\n"Name":"test"\n}\n',
  }),
  'collections/apis/rest/sobject_rows.json': v1('SObject Rows', 'GET', '{{_endpoint}}/services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/<RECORD_ID>'),
  'collections/apis/rest/sobject_rows_update.json': v1(
    'SObject Rows Update',
    'PATCH',
    '{{_endpoint}}/services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/<RECORD_ID>',
    {
      dataMode: 'raw',
      rawModeData: '{\n\t"field API name": "value"\n}',
    },
  ),
  'collections/apis/rest/sobject_rows_delete.json': v1(
    'SObject Rows Delete',
    'DELETE',
    '{{_endpoint}}/services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/<RECORD_ID>',
  ),
  'collections/apis/rest/sobject_describe.json': v1('SObject Describe', 'GET', '{{_endpoint}}/services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/describe'),
  'collections/apis/bulk/get_job.json': v1('Get Job Info', 'GET', '{{_endpoint}}/services/data/v{{version}}/jobs/ingest/{{_jobId}}'),
  'collections/apis/auth/refresh_token.json': v1('OAuth Refresh Token', 'POST', '{{url}}{{site}}/services/oauth2/token', {
    dataMode: 'urlencoded',
    data: [
      { key: 'grant_type', value: 'refresh_token' },
      { key: 'client_id', value: '{{clientId}}' },
      { key: 'refresh_token', value: '{{_refreshToken}}' },
    ],
  }),
  // Not requests: the environment, a header preset and the index files.
  'environments/template.json': { id: 'env', name: 'Template', values: [{ key: 'version', value: '50.0' }] },
  'headerpresets/salesforce.json': { id: 'preset', name: 'Salesforce', headers: [{ key: 'Content-Type', value: 'application/json' }] },
  'index.json': { version: 1, globals: [] },
  'collections/apis/index.json': { id: 'c', name: 'Salesforce APIs', description: 'A collection.', order: [] },
};

const spec = postmanSpecFromDocuments(Object.values(FILES));

const BASE = '{{token.instance_url}}/services/data/v62.0';
const q = (wire?: string): ParamDef => ({ in: 'query', wire });
const h = (wire?: string): ParamDef => ({ in: 'header', wire });
const b = (wire?: string): ParamDef => ({ in: 'body', wire });
const path_: ParamDef = { in: 'path', required: true };

function act(method: string, route: string, params: Record<string, ParamDef> = {}, extra: Partial<ActionDef> = {}): ActionRef {
  return { entity: 'accounts', action: 'x', def: { method, path: route, params, ...extra } };
}

function check(action: ActionRef, baseUrl = BASE, pathPrefix?: string): Mismatch[] {
  return checkPostmanAction(spec, { action, baseUrl, pathPrefix });
}

const kinds = (ms: Mismatch[]) => ms.map((m) => `${m.kind}${m.param ? `:${m.param}` : ''}`);

// ---------------------------------------------------------------- tests

describe('postman_collection: reading requests', () => {
  it('keeps request files and skips environments, header presets and index files', () => {
    expect(spec.requests.map((r) => `${r.method} ${r.path}`).sort()).toEqual([
      'DELETE /services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/<RECORD_ID>',
      'GET /services/data/v{{version}}/jobs/ingest/{{_jobId}}',
      'GET /services/data/v{{version}}/query',
      'GET /services/data/v{{version}}/sobjects',
      'GET /services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/<RECORD_ID>',
      'GET /services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/describe',
      'PATCH /services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/<RECORD_ID>',
      'POST /services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>',
      'POST /services/oauth2/token',
    ]);
  });

  it('refuses documents without any request', () => {
    expect(() => postmanSpecFromDocuments([{ version: 1, globals: [] }])).toThrow(/no Postman requests/);
  });

  it('splits URLs: host variables or origin dropped, query keys read, trailing slash ignored', () => {
    expect(splitPostmanUrl('{{_endpoint}}/services/data/v{{version}}/query/?q=SELECT+Id&explain')).toEqual({
      path: '/services/data/v{{version}}/query',
      queryKeys: ['q', 'explain'],
    });
    expect(splitPostmanUrl('{{url}}{{site}}/services/oauth2/token')).toEqual({ path: '/services/oauth2/token', queryKeys: [] });
    expect(splitPostmanUrl('https://login.salesforce.com/id/keys\n')).toEqual({ path: '/id/keys', queryKeys: [] });
  });

  it('reads v1 collection files and v2.x collections (nested folders, url objects, form bodies)', () => {
    const fromV1 = requestsFromDocument({ requests: [v1('Limits', 'GET', '{{_endpoint}}/services/data/v{{version}}/limits')] });
    expect(fromV1.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /services/data/v{{version}}/limits']);
    const fromV2 = requestsFromDocument({
      info: { name: 'v2', schema: 'https://schema.getpostman.com/json/collection/v2.1.0/collection.json' },
      item: [
        {
          name: 'Folder',
          item: [
            {
              name: 'Search',
              request: {
                method: 'GET',
                header: [{ key: 'Accept', value: 'application/json' }],
                url: { raw: '{{_endpoint}}/services/data/v{{version}}/search?q=FIND', query: [{ key: 'q', value: 'FIND' }] },
              },
            },
          ],
        },
        { name: 'Token', request: { method: 'POST', url: '{{url}}/services/oauth2/token', body: { mode: 'urlencoded', urlencoded: [{ key: 'grant_type' }] } } },
      ],
    });
    expect(fromV2.map((r) => [r.name, r.method, r.path, [...r.query], [...r.headers], r.body, [...r.formFields]])).toEqual([
      ['Search', 'GET', '/services/data/v{{version}}/search', ['q'], ['accept'], 'none', []],
      ['Token', 'POST', '/services/oauth2/token', [], [], 'form', ['grant_type']],
    ]);
  });

  it('is registered as a spec format', () => {
    expect(defaultFormats.get(POSTMAN_COLLECTION)).toBe(postmanFormat);
  });
});

describe('postman_collection: paths and methods', () => {
  it('matches placeholders, API versions and literals segment by segment', () => {
    expect(segmentMatches('<SOBJECT_API_NAME>', 'Account')).toBe(true);
    expect(segmentMatches('<SOBJECT_API_NAME>', '{sobjectType}')).toBe(true);
    expect(segmentMatches('{{_jobId}}', '{id}')).toBe(true);
    expect(segmentMatches(':id', '{id}')).toBe(true);
    expect(segmentMatches('v{{version}}', 'v62.0')).toBe(true);
    expect(segmentMatches('v{{version}}', 'x62.0')).toBe(false);
    expect(segmentMatches('v{{version}}', '{version}')).toBe(false);
    expect(segmentMatches('describe', '{id}')).toBe(false);
    expect(segmentMatches('query', 'query')).toBe(true);
    expect(segmentMatches('query', 'queryAll')).toBe(false);
  });

  it('joins base_url path and action path, whatever the pinned version', () => {
    expect(check(act('GET', '/query', { q: q() }))).toEqual([]);
    expect(check(act('GET', '/query', { q: q() }), '{{token.instance_url}}/services/data/v58.0')).toEqual([]);
    expect(check(act('GET', '/services/data/v62.0/query', { q: q() }), '{{token.instance_url}}')).toEqual([]);
    expect(check(act('GET', '/sobjects'))).toEqual([]);
  });

  it('strips path_prefix from the action path before joining', () => {
    expect(check(act('GET', '/api/query', { q: q() }), BASE, '/api')).toEqual([]);
  });

  it('fills placeholders with our templates or literals; prefers the most literal match', () => {
    expect(check(act('POST', '/sobjects/Account', { Name: b(), Industry: b() }))).toEqual([]);
    expect(check(act('POST', '/sobjects/{sobjectType}', { sobjectType: path_ }, { additional_params: 'body' }))).toEqual([]);
    expect(check(act('GET', '/sobjects/Account/{id}', { id: path_ }))).toEqual([]);
    expect(check(act('PATCH', '/sobjects/{sobjectType}/{id}', { sobjectType: path_, id: path_ }, { additional_params: 'body' }))).toEqual([]);
    expect(check(act('DELETE', '/sobjects/Account/{id}', { id: path_ }))).toEqual([]);
    // The literal 'describe' beats the <RECORD_ID> placeholder for /sobjects/Account/describe.
    expect(findRequests(spec, '/sobjects/Account/describe', { baseUrl: BASE }).matches.map((r) => r.name)).toEqual(['SObject Describe']);
    expect(check(act('GET', '/jobs/ingest/{jobId}', { jobId: path_ }))).toEqual([]);
  });

  it('reports unknown paths and methods the collection does not show', () => {
    expect(check(act('GET', '/analytics/reports'))).toEqual([
      expect.objectContaining({
        kind: 'path_missing',
        where: 'GET /analytics/reports',
        message: 'no request of the collection has the path /services/data/v62.0/analytics/reports',
      }),
    ]);
    expect(check(act('PUT', '/sobjects/Account/{id}', { id: path_ }))).toEqual([
      expect.objectContaining({
        kind: 'method_missing',
        message: 'no PUT request for /services/data/v{{version}}/sobjects/<SOBJECT_API_NAME>/<RECORD_ID> (the collection has DELETE, GET, PATCH)',
      }),
    ]);
    // Our template never fills a literal segment of the collection.
    expect(kinds(check(act('GET', '/jobs/{kind}/{id}', { kind: path_, id: path_ })))).toEqual(['path_missing']);
  });
});

describe('postman_collection: params', () => {
  it('checks query params against the request query, header params against its headers', () => {
    const ms = check(act('GET', '/query', { q: q(), nextRecordsUrl: q(), batchSize: h('Sforce-Query-Options'), ct: h('content-type') }));
    expect(kinds(ms)).toEqual(['param_missing:nextRecordsUrl', 'param_missing:batchSize']);
    expect(ms[0]).toMatchObject({
      where: 'GET /services/data/v{{version}}/query (Query)',
      message: "query param 'nextRecordsUrl' is not in the collection's request",
    });
    expect(ms[1]).toMatchObject({ wire: 'Sforce-Query-Options', message: "header 'Sforce-Query-Options' is not in the collection's request" });
    expect(kinds(check(act('GET', '/query', { q: h() })))).toEqual(['param_location:q']);
    expect(kinds(check(act('GET', '/query', { ct: q('Content-Type') })))).toEqual(['param_location:ct']);
  });

  it('accepts any field of a raw (example) body, needs a body, checks form fields', () => {
    expect(check(act('PATCH', '/sobjects/Account/{id}', { id: path_, Phone: b() }, { constant_body: { Type: 'Customer' } }))).toEqual([]);
    expect(kinds(check(act('DELETE', '/sobjects/Account/{id}', { id: path_, hard: b() })))).toEqual(['body_missing:hard']);
    const token = (params: Record<string, ParamDef>) => check(act('POST', '/services/oauth2/token', params), '{{config.host}}');
    expect(token({ grant_type: b(), refresh_token: b(), client_id: b() })).toEqual([]);
    expect(kinds(token({ grant_type: b(), scope: b() }))).toEqual(['param_missing:scope']);
  });

  it('checks path params are templates of the path and refuses variables params', () => {
    expect(kinds(check(act('GET', '/sobjects/Account/{id}', { id: path_, other: path_, v: { in: 'variables' } })))).toEqual([
      'path_param_template:other',
      'param_location:v',
    ]);
  });
});

// ---------------------------------------------------------------- archive loading and end to end

const tmp = mkdtempSync(path.join(tmpdir(), 'postman-contract-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function writeTree(root: string): void {
  for (const [rel, doc] of Object.entries(FILES)) {
    const file = path.join(root, 'src', rel);
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, JSON.stringify(doc, null, 2));
  }
}

describe('postman_collection: reading the vendor file', () => {
  const tree = path.join(tmp, 'tree');
  writeTree(tree);
  const specsRoot = path.join(tmp, 'vendor-specs');
  mkdirSync(path.join(specsRoot, 'acme'), { recursive: true });
  const archive = path.join(specsRoot, 'acme', 'collection_src.tar.gz');
  execFileSync('tar', ['-czf', archive, '-C', tree, 'src']);

  it('extracts a .tar.gz into a temporary folder and reads every request file', async () => {
    expect((await loadPostmanSpec(archive)).requests).toHaveLength(9);
    const viaFormat = await postmanFormat.load(archive);
    expect(viaFormat.format).toBe(POSTMAN_COLLECTION);
    expect(viaFormat.checkAction({ action: act('GET', '/query', { q: q() }), baseUrl: BASE })).toEqual([]);
  });

  it('also reads a folder and a single .json collection, and refuses other files', async () => {
    expect((await loadPostmanSpec(path.join(tree, 'src'))).requests).toHaveLength(9);
    const single = path.join(tmp, 'collection.json');
    writeFileSync(single, JSON.stringify({ requests: [FILES['collections/apis/rest/query.json']] }));
    expect((await loadPostmanSpec(single)).requests.map((r) => r.name)).toEqual(['Query']);
    const other = path.join(tmp, 'spec.yaml');
    writeFileSync(other, 'x: 1');
    await expect(loadPostmanSpec(other)).rejects.toThrow(/folder, a \.json collection or a \.tar\.gz/);
  });

  it('runs end to end through npm run contract (runContract) with waivers', async () => {
    const manifestsDir = path.join(tmp, 'manifests');
    mkdirSync(manifestsDir, { recursive: true });
    writeFileSync(
      path.join(manifestsDir, 'acme.yaml'),
      [
        'connector_type: acme',
        'base_url: "{{token.instance_url}}/services/data/v62.0"',
        'vendor_spec:',
        '  format: postman_collection',
        '  file: acme/collection_src.tar.gz',
        '  waivers:',
        '    - { action: accounts.list, param: nextRecordsUrl, reason: "Carries nextRecordsUrl between pages; never sent." }',
        '    - { action: reports.list, reason: "The collection has no Reports REST API request." }',
        'entities:',
        '  accounts:',
        '    actions:',
        '      list: { method: GET, path: /query, params: { q: { in: query }, nextRecordsUrl: { in: query } } }',
        '      get: { method: GET, path: "/sobjects/Account/{id}", params: { id: { in: path } } }',
        '  reports:',
        '    actions:',
        '      list: { method: GET, path: /analytics/reports }',
        '',
      ].join('\n'),
    );
    const results = await runContract({ manifestsDir, specsDir: specsRoot });
    const report = formatReport(results);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ connector: 'acme', format: 'postman_collection', actionsChecked: 3, unwaived: [] });
    expect(results[0]?.waived.map((w) => w.mismatch.kind)).toEqual(['param_missing', 'path_missing']);
    expect(exitCodeFor(results), report).toBe(0);
  });
});
