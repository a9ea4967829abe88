/**
 * Meta's Business SDK codegen spec format (`facebook_sdk_codegen`): the Graph / Marketing API
 * node and edge catalogue that Meta's Business SDKs are generated from
 * (github.com/facebook/facebook-business-sdk-codegen, folder api_specs/). It is not OpenAPI: each
 * node type has one `specs/<NodeType>.json` holding
 * `{ apis: [{ method, endpoint | name, return, params: [{ name, type, required }] }], fields: [...] }`,
 * where `endpoint` is an edge (`GET /{node-id}/<endpoint>`) and `name` is `#get`, `#update` or
 * `#delete` for the node itself (`GET`, `POST`, `DELETE /{node-id}`).
 *
 * The vendor file may be the folder itself or a .tar.gz / .tgz of it; an archive is extracted
 * once per run (`tar -xzf` into a temporary folder, removed after reading).
 *
 * How a manifest path is mapped (after path_prefix and a leading /vNN.N segment are stripped):
 * - The first segment names the node: `me` is a User, `act_{…}` (or `act_123`) an AdAccount, and
 *   `{name}` a node of the type its template name suggests: the name without a trailing `_id` and
 *   without underscores, compared case-insensitively with the node type names as is, or with an
 *   `Ad` / `Ads` prefix (`campaign_id` → Campaign, `adset_id` → AdSet, `creative_id` → AdCreative,
 *   `pixel_id` → AdsPixel, `video_id` → AdVideo). When no node type matches, every node type is a
 *   candidate and the action passes if one of them has the edge and params.
 * - A path of one segment is the node itself (GET → `#get`, POST → `#update`, DELETE → `#delete`).
 * - Each further literal segment is an edge of the current node; an edge followed by more
 *   segments continues from its GET `return` type. Other shapes (root edges such as
 *   `/ads_archive`, ids after an edge) are not described by the format: `path_missing`.
 *
 * Params: every query/body param (first segment of its wire name) must be listed in the api's
 * `params`. GET calls may also use the Graph API's own request parameters that the catalogue
 * leaves out: `fields` (field selection), `limit`, `after` and `before` (cursor paging), see
 * developers.facebook.com/docs/graph-api/results and /docs/graph-api/guides/field-expansion.
 * The format does not say whether a param travels in the query or the body, so both are
 * accepted; a body on a GET and header/variables params are `param_location` mismatches.
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ARCHIVE_PATTERN, withExtractedArchive } from './archive.js';
import { firstSegment } from './openapi.js';
import { isRecord, type ActionCheckInput, type LoadedSpec, type Mismatch, type MismatchKind, type ParamDef, type SpecFormat } from './types.js';

export const FACEBOOK_SDK_CODEGEN = 'facebook_sdk_codegen';

/** Request parameters every Graph API read accepts that the SDK catalogue does not list per edge. */
export const GRAPH_READ_PARAMS: readonly string[] = ['fields', 'limit', 'after', 'before'];

export interface FbParam {
  readonly name: string;
  readonly type?: string | undefined;
  readonly required?: boolean | undefined;
}

export interface FbApi {
  readonly method: string;
  /** The edge name (`campaigns`), or undefined for a node operation. */
  readonly endpoint?: string | undefined;
  /** `#get`, `#update`, `#delete` for node operations. */
  readonly name?: string | undefined;
  readonly return?: string | undefined;
  readonly params: readonly FbParam[];
}

export interface FbNode {
  readonly name: string;
  readonly apis: readonly FbApi[];
}

export interface FacebookSpec {
  readonly nodes: ReadonlyMap<string, FbNode>;
  /** lowercase node type name -> node type name */
  readonly byLowerName: ReadonlyMap<string, string>;
}

const NODE_OPERATIONS: Readonly<Record<string, string>> = { GET: '#get', POST: '#update', DELETE: '#delete' };

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function parseNode(name: string, doc: unknown): FbNode {
  if (!isRecord(doc)) throw new Error(`${name}: not a JSON object`);
  const apis: FbApi[] = [];
  const raw = doc['apis'];
  if (raw !== undefined && !Array.isArray(raw)) throw new Error(`${name}: apis is not a list`);
  for (const a of raw ?? []) {
    if (!isRecord(a)) continue;
    const method = str(a['method']);
    if (method === undefined) continue;
    const params: FbParam[] = [];
    if (Array.isArray(a['params'])) {
      for (const p of a['params']) {
        if (isRecord(p) && typeof p['name'] === 'string') {
          params.push({ name: p['name'], type: str(p['type']), required: p['required'] === true });
        }
      }
    }
    apis.push({ method: method.toUpperCase(), endpoint: str(a['endpoint']), name: str(a['name']), return: str(a['return']), params });
  }
  return { name, apis };
}

/**
 * Builds the spec from parsed node files, keyed by node type name (`AdAccount`); files that are not
 * node specs (no `apis`/`fields` list) are skipped. Pure.
 */
export function facebookSpecFromObjects(files: Readonly<Record<string, unknown>>): FacebookSpec {
  const nodes = new Map<string, FbNode>();
  const byLowerName = new Map<string, string>();
  for (const [name, doc] of Object.entries(files)) {
    // specs/ also holds non-node files (enum_types.json is a list of enum definitions).
    if (!isRecord(doc) || (!Array.isArray(doc['apis']) && !Array.isArray(doc['fields']))) continue;
    nodes.set(name, parseNode(name, doc));
    byLowerName.set(name.toLowerCase(), name);
  }
  if (nodes.size === 0) throw new Error('no node specs (specs/<NodeType>.json) found');
  return { nodes, byLowerName };
}

async function listJsonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listJsonFiles(full)));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(full);
  }
  return out;
}

/** Reads every `specs/<NodeType>.json` under a folder (api_specs/ or its parent). */
export async function readFacebookSpecDir(dir: string): Promise<FacebookSpec> {
  const files = (await listJsonFiles(dir)).filter((f) => path.basename(path.dirname(f)) === 'specs').sort();
  const objects: Record<string, unknown> = {};
  for (const f of files) {
    const name = path.basename(f, '.json');
    try {
      objects[name] = JSON.parse(await readFile(f, 'utf8'));
    } catch (e) {
      throw new Error(`${path.relative(dir, f)}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }
  return facebookSpecFromObjects(objects);
}

/** Loads the catalogue from a folder or a .tar.gz / .tgz of it (extracted into a temporary folder). */
export async function loadFacebookSpec(absPath: string): Promise<FacebookSpec> {
  if ((await stat(absPath)).isDirectory()) return readFacebookSpecDir(absPath);
  if (!ARCHIVE_PATTERN.test(absPath)) throw new Error('expected a folder or a .tar.gz/.tgz archive of api_specs/');
  return withExtractedArchive(absPath, readFacebookSpecDir);
}

/** Node types a `{template}` first segment may stand for (empty when the name suggests none). */
export function nodeTypesForTemplate(spec: FacebookSpec, templateName: string): string[] {
  const stem = templateName.replace(/_?id$/i, '').replace(/_/g, '').toLowerCase();
  if (stem === '') return [];
  for (const candidate of [stem, `ad${stem}`, `ads${stem}`]) {
    const hit = spec.byLowerName.get(candidate);
    if (hit !== undefined) return [hit];
  }
  return [];
}

function stripPrefix(p: string, prefix: string | undefined): string {
  if (!prefix) return p;
  const pre = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (pre !== '' && (p === pre || p.startsWith(`${pre}/`))) return p.slice(pre.length) || '/';
  return p;
}

function describeApi(node: string, api: FbApi): string {
  return api.endpoint !== undefined ? `${api.method} ${node}/${api.endpoint}` : `${api.method} ${node} (${api.name ?? '?'})`;
}

interface Resolution {
  readonly api?: FbApi | undefined;
  readonly where: string;
  readonly problem?: { kind: MismatchKind; message: string } | undefined;
}

/** Finds the api a path of segments (the first already resolved to `start`) designates. */
function resolveFrom(spec: FacebookSpec, start: string, rest: readonly string[], method: string): Resolution {
  let current = start;
  if (rest.length === 0) {
    const op = NODE_OPERATIONS[method];
    const node = spec.nodes.get(current);
    const api = op === undefined ? undefined : node?.apis.find((a) => a.endpoint === undefined && a.name === op && a.method === method);
    if (api) return { api, where: describeApi(current, api) };
    const has = (node?.apis ?? []).filter((a) => a.endpoint === undefined).map((a) => `${a.method} (${a.name ?? '?'})`);
    return {
      where: `${method} ${current}`,
      problem: { kind: 'method_missing', message: `node ${current} has no ${method} operation (spec has ${has.join(', ') || 'none'})` },
    };
  }
  for (let i = 0; i < rest.length; i += 1) {
    const seg = rest[i] ?? '';
    const last = i === rest.length - 1;
    const node = spec.nodes.get(current);
    if (/^\{[^}]*\}$/.test(seg)) {
      return {
        where: `${method} ${current}/${seg}`,
        problem: { kind: 'path_missing', message: `an id segment after an edge (${current}/${seg}) is not described by the SDK codegen specs` },
      };
    }
    const edgeApis = (node?.apis ?? []).filter((a) => a.endpoint === seg);
    if (edgeApis.length === 0) {
      return { where: `${method} ${current}/${seg}`, problem: { kind: 'path_missing', message: `node ${current} has no edge '${seg}'` } };
    }
    if (last) {
      const api = edgeApis.find((a) => a.method === method);
      if (api) return { api, where: describeApi(current, api) };
      return {
        where: `${method} ${current}/${seg}`,
        problem: {
          kind: 'method_missing',
          message: `edge ${current}/${seg} has no ${method} (spec has ${[...new Set(edgeApis.map((a) => a.method))].join(', ')})`,
        },
      };
    }
    const read = edgeApis.find((a) => a.method === 'GET');
    if (!read?.return || !spec.nodes.has(read.return)) {
      return {
        where: `${method} ${current}/${seg}`,
        problem: { kind: 'path_missing', message: `edge ${current}/${seg} has no GET returning a known node type` },
      };
    }
    current = read.return;
  }
  return { where: `${method} ${current}`, problem: { kind: 'path_missing', message: 'empty path' } };
}

function checkParams(
  api: FbApi,
  where: string,
  input: ActionCheckInput,
  add: (kind: MismatchKind, message: string, where: string, param?: string, wire?: string) => void,
): void {
  const { def } = input.action;
  const method = def.method.toUpperCase();
  const listed = new Set(api.params.map((p) => p.name));
  const known = (name: string): boolean => listed.has(name) || (method === 'GET' && GRAPH_READ_PARAMS.includes(name));
  const checkName = (label: string, key: string, param: string, wire: string | undefined): void => {
    if (!known(key)) add('param_missing', `${label} '${key}' is not a parameter of ${where}`, where, param, wire);
  };
  for (const [name, p] of Object.entries(def.params) as Array<[string, ParamDef]>) {
    const wireName = p.wire ?? name;
    const wire = p.wire !== undefined && p.wire !== name ? p.wire : undefined;
    switch (p.in) {
      case 'path':
        break;
      case 'query':
        checkName('query param', firstSegment(wireName).replace(/\[\]$/, ''), name, wire);
        break;
      case 'body':
        if (method === 'GET') add('param_location', `body param '${wireName}' on a GET (Graph API reads take query params)`, where, name, wire);
        else checkName('body param', firstSegment(wireName), name, wire);
        break;
      default:
        add('param_location', `param '${name}' is in: ${p.in}, which the SDK codegen format does not describe`, where, name, wire);
    }
  }
  for (const key of Object.keys(def.constant_body ?? {})) {
    if (def.params[key]?.in === 'body') continue;
    checkName('constant_body field', key, key, undefined);
  }
}

/** Checks one action against the catalogue. Pure. */
export function checkFacebookAction(spec: FacebookSpec, input: ActionCheckInput): Mismatch[] {
  const { entity, action, def } = input.action;
  const method = def.method.toUpperCase();
  const bare = stripPrefix(def.path, input.pathPrefix);
  const segments = bare.split('/').filter((s) => s !== '');
  if (segments.length > 0 && /^v\d+\.\d+$/.test(segments[0] ?? '')) segments.shift();

  const attempt = (start: string): Mismatch[] => {
    const out: Mismatch[] = [];
    const add = (kind: MismatchKind, message: string, where: string, param?: string, wire?: string): void => {
      out.push({ kind, entity, action, param, wire, message, where });
    };
    const r = resolveFrom(spec, start, segments.slice(1), method);
    if (!r.api) {
      add(r.problem?.kind ?? 'path_missing', r.problem?.message ?? 'not found', r.where);
      return out;
    }
    checkParams(r.api, r.where, input, add);
    return out;
  };

  const head = segments[0];
  if (head === undefined) {
    return [{ kind: 'path_missing', entity, action, message: `path ${def.path} names no node`, where: `${method} ${def.path}` }];
  }
  let starts: string[];
  if (head === 'me') starts = ['User'];
  else if (/^act_(\{[^}]*\}|[0-9]+)$/.test(head)) starts = ['AdAccount'];
  else if (/^\{[^}]*\}$/.test(head)) {
    const hinted = nodeTypesForTemplate(spec, head.slice(1, -1));
    starts = hinted.length > 0 ? hinted : [...spec.nodes.keys()].sort();
  } else if (spec.nodes.has(head)) starts = [head];
  else {
    return [
      {
        kind: 'path_missing',
        entity,
        action,
        message: `'/${head}' is neither a node id nor a node type of the SDK codegen specs (root edges are not described)`,
        where: `${method} ${def.path}`,
      },
    ];
  }
  let best: Mismatch[] | undefined;
  for (const start of starts) {
    const result = attempt(start);
    if (result.length === 0) return [];
    if (best === undefined || result.length < best.length) best = result;
  }
  if (starts.length > 1 && best !== undefined) {
    return best.map((m) => ({ ...m, message: `${m.message} (no node type matches {${head.slice(1, -1)}}; closest of ${starts.length} candidates)` }));
  }
  return best ?? [];
}

/** Wraps a loaded catalogue as a LoadedSpec. */
export function facebookLoaded(spec: FacebookSpec): LoadedSpec {
  return { format: FACEBOOK_SDK_CODEGEN, checkAction: (input) => checkFacebookAction(spec, input) };
}

export const facebookFormat: SpecFormat = {
  name: FACEBOOK_SDK_CODEGEN,
  async load(absPath: string): Promise<LoadedSpec> {
    return facebookLoaded(await loadFacebookSpec(absPath));
  },
};
