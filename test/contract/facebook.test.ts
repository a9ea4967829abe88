import { execFileSync } from 'node:child_process';
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runContract } from '../../codegen/contract/check.js';
import {
  checkFacebookAction,
  facebookFormat,
  facebookSpecFromObjects,
  FACEBOOK_SDK_CODEGEN,
  loadFacebookSpec,
  nodeTypesForTemplate,
} from '../../codegen/contract/facebook.js';
import { defaultFormats } from '../../codegen/contract/formats.js';
import { exitCodeFor, formatReport } from '../../codegen/contract/report.js';
import type { ActionDef, ActionRef, Mismatch, ParamDef } from '../../codegen/contract/types.js';

// ---------------------------------------------------------------- fixture: a tiny api_specs/specs

const p = (name: string, type = 'string', required = false) => ({ name, type, required });

const FILES: Record<string, unknown> = {
  User: {
    apis: [
      { method: 'GET', endpoint: 'adaccounts', return: 'AdAccount', params: [] },
      { method: 'GET', name: '#get', return: 'User', params: [] },
    ],
    fields: [{ name: 'id', type: 'string' }],
  },
  AdAccount: {
    apis: [
      { method: 'GET', endpoint: 'campaigns', return: 'Campaign', params: [p('effective_status', 'list<string>'), p('date_preset')] },
      {
        method: 'POST',
        endpoint: 'campaigns',
        return: 'Campaign',
        params: [p('name'), p('objective'), p('special_ad_categories', 'list<string>', true), p('promoted_object', 'Object')],
      },
      { method: 'GET', name: '#get', return: 'AdAccount', params: [] },
    ],
    fields: [],
  },
  Campaign: {
    apis: [
      { method: 'GET', name: '#get', return: 'Campaign', params: [p('date_preset')] },
      { method: 'POST', name: '#update', return: 'Campaign', params: [p('name'), p('status')] },
    ],
    fields: [],
  },
  AdsPixel: {
    apis: [{ method: 'GET', endpoint: 'stats', return: 'AdsPixelStatsResult', params: [p('start_time', 'datetime'), p('aggregation')] }],
    fields: [],
  },
  AdsPixelStatsResult: { fields: [{ name: 'start_time', type: 'datetime' }] },
  // Not a node: specs/enum_types.json is a list of enum definitions.
  enum_types: [{ name: 'adaccountcampaigns_status_enum_param', values: ['ACTIVE', 'PAUSED'] }],
};

const spec = facebookSpecFromObjects(FILES);

const q = (wire?: string): ParamDef => ({ in: 'query', wire });
const b = (wire?: string): ParamDef => ({ in: 'body', wire });
const path_: ParamDef = { in: 'path', required: true };

function act(method: string, route: string, params: Record<string, ParamDef> = {}, extra: Partial<ActionDef> = {}): ActionRef {
  return { entity: 'things', action: 'x', def: { method, path: route, params, ...extra } };
}

function check(action: ActionRef, pathPrefix?: string): Mismatch[] {
  return checkFacebookAction(spec, { action, baseUrl: 'https://graph.facebook.com/v25.0', pathPrefix });
}

const kinds = (ms: Mismatch[]) => ms.map((m) => `${m.kind}${m.param ? `:${m.param}` : ''}`);

// ---------------------------------------------------------------- tests

describe('facebook_sdk_codegen: loading the node specs', () => {
  it('keeps node files and skips files that are not node specs', () => {
    expect([...spec.nodes.keys()].sort()).toEqual(['AdAccount', 'AdsPixel', 'AdsPixelStatsResult', 'Campaign', 'User']);
    expect(spec.nodes.get('AdAccount')?.apis.map((a) => `${a.method} ${a.endpoint ?? a.name}`)).toEqual(['GET campaigns', 'POST campaigns', 'GET #get']);
  });

  it('refuses a catalogue without any node spec', () => {
    expect(() => facebookSpecFromObjects({ enum_types: [] })).toThrow(/no node specs/);
  });

  it('maps {template} names to node types (as is, or with an Ad/Ads prefix)', () => {
    expect(nodeTypesForTemplate(spec, 'campaign_id')).toEqual(['Campaign']);
    expect(nodeTypesForTemplate(spec, 'pixel_id')).toEqual(['AdsPixel']);
    expect(nodeTypesForTemplate(spec, 'account_id')).toEqual(['AdAccount']);
    expect(nodeTypesForTemplate(spec, 'id')).toEqual([]);
    expect(nodeTypesForTemplate(spec, 'creative_id')).toEqual([]);
  });

  it('is registered as a spec format', () => {
    expect(defaultFormats.get(FACEBOOK_SDK_CODEGEN)).toBe(facebookFormat);
  });
});

describe('facebook_sdk_codegen: paths and methods', () => {
  it('accepts /me (User #get) and the /me/adaccounts edge with the Graph read params', () => {
    expect(check(act('GET', '/me', { fields: q() }))).toEqual([]);
    expect(check(act('GET', '/me/adaccounts', { fields: q(), limit: q(), after: q(), before: q() }))).toEqual([]);
  });

  it('maps act_{account_id} to AdAccount edges and checks every param name', () => {
    const ok = act('GET', '/act_{account_id}/campaigns', { account_id: path_, effective_status: q(), fields: q(), limit: q(), after: q() });
    expect(check(ok)).toEqual([]);
    const bad = check(act('GET', '/act_{account_id}/campaigns', { account_id: path_, bogus: q(), status_filter: q('statuses[]') }));
    expect(kinds(bad)).toEqual(['param_missing:bogus', 'param_missing:status_filter']);
    expect(bad[0]).toMatchObject({
      entity: 'things',
      action: 'x',
      where: 'GET AdAccount/campaigns',
      message: "query param 'bogus' is not a parameter of GET AdAccount/campaigns",
    });
    expect(bad[1]).toMatchObject({ wire: 'statuses[]', message: "query param 'statuses' is not a parameter of GET AdAccount/campaigns" });
  });

  it('checks create bodies (nested wire names by first segment) and constant_body keys; fields/limit are read-only', () => {
    const create = act(
      'POST',
      '/act_{account_id}/campaigns',
      { account_id: path_, name: b(), objective: b(), special_ad_categories: b(), page: b('promoted_object.page_id') },
      { constant_body: { status_x: 'PAUSED' } },
    );
    expect(kinds(check(create))).toEqual(['param_missing:status_x']);
    expect(kinds(check(act('POST', '/act_{account_id}/campaigns', { account_id: path_, fields: q(), limit: b() })))).toEqual([
      'param_missing:fields',
      'param_missing:limit',
    ]);
  });

  it('maps a bare node to #get / #update / #delete', () => {
    expect(check(act('GET', '/{campaign_id}', { campaign_id: path_, fields: q(), date_preset: q() }))).toEqual([]);
    expect(check(act('POST', '/{campaign_id}', { campaign_id: path_, name: b(), status: b() }))).toEqual([]);
    const del = check(act('DELETE', '/{campaign_id}', { campaign_id: path_ }));
    expect(del).toEqual([
      expect.objectContaining({
        kind: 'method_missing',
        where: 'DELETE Campaign',
        message: 'node Campaign has no DELETE operation (spec has GET (#get), POST (#update))',
      }),
    ]);
  });

  it('reports missing edges, missing methods, ids after an edge and root edges', () => {
    expect(check(act('GET', '/act_{account_id}/adsets', { account_id: path_ }))).toEqual([
      expect.objectContaining({ kind: 'path_missing', message: "node AdAccount has no edge 'adsets'", where: 'GET AdAccount/adsets' }),
    ]);
    expect(check(act('DELETE', '/act_{account_id}/campaigns', { account_id: path_ }))).toEqual([
      expect.objectContaining({ kind: 'method_missing', message: 'edge AdAccount/campaigns has no DELETE (spec has GET, POST)' }),
    ]);
    expect(kinds(check(act('GET', '/act_{account_id}/campaigns/{campaign_id}', { account_id: path_, campaign_id: path_ })))).toEqual(['path_missing']);
    expect(check(act('GET', '/ads_archive', { search_terms: q() }))).toEqual([expect.objectContaining({ kind: 'path_missing', where: 'GET /ads_archive' })]);
  });

  it('follows an edge to its GET return type (/me/adaccounts/campaigns)', () => {
    expect(check(act('GET', '/me/adaccounts/campaigns', { effective_status: q() }))).toEqual([]);
  });

  it('resolves {pixel_id} to AdsPixel; an unknown template name tries every node type', () => {
    expect(check(act('GET', '/{pixel_id}/stats', { pixel_id: path_, start_time: q(), aggregation: q(), after: q() }))).toEqual([]);
    expect(check(act('GET', '/{thing}/stats', { thing: path_, aggregation: q() }))).toEqual([]);
    const none = check(act('GET', '/{thing}/nothing', { thing: path_ }));
    expect(none).toHaveLength(1);
    expect(none[0]?.message).toMatch(/has no edge 'nothing' \(no node type matches \{thing\}; closest of 5 candidates\)$/);
  });

  it('refuses a body on a GET and header or variables params', () => {
    const ms = check(act('GET', '/me', { fields: b(), trace: { in: 'header' }, v: { in: 'variables' } }));
    expect(kinds(ms)).toEqual(['param_location:fields', 'param_location:trace', 'param_location:v']);
  });

  it('strips path_prefix and a leading version segment', () => {
    expect(check(act('GET', '/v25.0/me/adaccounts'))).toEqual([]);
    expect(check(act('GET', '/graph/me/adaccounts'), '/graph')).toEqual([]);
  });
});

// ---------------------------------------------------------------- archive loading and end to end

const tmp = mkdtempSync(path.join(tmpdir(), 'fb-contract-test-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

function writeSpecsTree(root: string): void {
  const specsDir = path.join(root, 'api_specs', 'specs');
  mkdirSync(specsDir, { recursive: true });
  writeFileSync(path.join(root, 'api_specs', 'SDKCodegen.json'), JSON.stringify({ spec_overriding: {} }));
  for (const [name, doc] of Object.entries(FILES)) writeFileSync(path.join(specsDir, `${name}.json`), JSON.stringify(doc));
}

describe('facebook_sdk_codegen: reading the vendor file', () => {
  const tree = path.join(tmp, 'tree');
  writeSpecsTree(tree);
  const specsRoot = path.join(tmp, 'vendor-specs');
  mkdirSync(path.join(specsRoot, 'facebook'), { recursive: true });
  const archive = path.join(specsRoot, 'facebook', 'api_specs.tar.gz');
  execFileSync('tar', ['-czf', archive, '-C', tree, 'api_specs']);

  it('extracts a .tar.gz once into a temporary folder and reads specs/*.json', async () => {
    const loaded = await loadFacebookSpec(archive);
    expect([...loaded.nodes.keys()].sort()).toEqual(['AdAccount', 'AdsPixel', 'AdsPixelStatsResult', 'Campaign', 'User']);
    const viaFormat = await facebookFormat.load(archive);
    expect(viaFormat.format).toBe('facebook_sdk_codegen');
    expect(viaFormat.checkAction({ action: act('GET', '/me/adaccounts', { limit: q() }), baseUrl: 'https://graph.facebook.com/v25.0' })).toEqual([]);
  });

  it('also reads an extracted folder, and refuses other files', async () => {
    expect((await loadFacebookSpec(path.join(tree, 'api_specs'))).nodes.size).toBe(5);
    const other = path.join(tmp, 'spec.json');
    writeFileSync(other, '{}');
    await expect(loadFacebookSpec(other)).rejects.toThrow(/folder or a \.tar\.gz/);
  });

  it('runs end to end through npm run contract (runContract) with a waiver', async () => {
    const manifestsDir = path.join(tmp, 'manifests');
    mkdirSync(manifestsDir, { recursive: true });
    writeFileSync(
      path.join(manifestsDir, 'fbtest.yaml'),
      [
        'connector_type: fbtest',
        'base_url: https://graph.facebook.com/v25.0',
        'vendor_spec:',
        '  format: facebook_sdk_codegen',
        '  file: facebook/api_specs.tar.gz',
        '  waivers:',
        '    - { action: ad_library.list, reason: "GET /ads_archive is a root edge the catalogue does not describe." }',
        'entities:',
        '  campaigns:',
        '    actions:',
        '      list: { method: GET, path: "/act_{account_id}/campaigns", params: { account_id: { in: path }, fields: { in: query }, after: { in: query } } }',
        '      update: { method: POST, path: "/{campaign_id}", params: { campaign_id: { in: path }, status: { in: body } } }',
        '  ad_library:',
        '    actions:',
        '      list: { method: GET, path: /ads_archive, params: { search_terms: { in: query } } }',
        '',
      ].join('\n'),
    );
    const results = await runContract({ manifestsDir, specsDir: specsRoot });
    const report = formatReport(results);
    expect(results).toHaveLength(1);
    expect(results[0]).toMatchObject({ connector: 'fbtest', format: 'facebook_sdk_codegen', actionsChecked: 3, unwaived: [] });
    expect(results[0]?.waived.map((w) => w.mismatch.kind)).toEqual(['path_missing']);
    expect(exitCodeFor(results), report).toBe(0);
  });
});
