/**
 * OpenAPI 3.0 / 3.1 spec format (JSON or YAML).
 *
 * For each action: METHOD + path must exist (template names normalised, path_prefix stripped,
 * server/base_url base paths reconciled), and every param must exist at the same location.
 */
import { readFile } from 'node:fs/promises';
import YAML from 'yaml';
import { isRecord, type ActionCheckInput, type LoadedSpec, type Mismatch, type MismatchKind, type ParamDef, type SpecFormat } from './types.js';

type Obj = Record<string, unknown>;

const HTTP_METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'] as const;

interface SpecPathEntry {
  readonly raw: string;
  readonly item: Obj;
}

/** A parsed OpenAPI document with path indexes. */
export interface OpenApiSpec {
  readonly doc: Obj;
  /** Path of servers[0].url without trailing slash ('' when none). */
  readonly serverBasePath: string;
  /** normalised spec path -> entries */
  readonly byPath: ReadonlyMap<string, readonly SpecPathEntry[]>;
  /** normalised (server base path + spec path) -> entries */
  readonly byFullPath: ReadonlyMap<string, readonly SpecPathEntry[]>;
}

/** `/users/{user_id}/` -> `/users/{}` : every `{...}` becomes `{}`, no trailing slash. */
export function normalizePath(p: string): string {
  let out = p.replace(/\{[^}/]*\}/g, '{}');
  if (out.length > 1 && out.endsWith('/')) out = out.slice(0, -1);
  if (!out.startsWith('/')) out = `/${out}`;
  return out;
}

function templateNames(p: string): string[] {
  return [...p.matchAll(/\{([^}/]*)\}/g)].map((m) => m[1] ?? '');
}

function joinPath(base: string, p: string): string {
  const b = base.endsWith('/') ? base.slice(0, -1) : base;
  return `${b}${p.startsWith('/') ? p : `/${p}`}`;
}

/** Path part of a URL that may hold `{{...}}` templates or OpenAPI `{var}` server variables. */
export function urlBasePath(url: string, variables?: Obj): string | undefined {
  let u = url.trim();
  if (variables) {
    u = u.replace(/\{([^{}]+)\}/g, (whole, name: string) => {
      const v = variables[name];
      const def = isRecord(v) ? v['default'] : undefined;
      return typeof def === 'string' ? def : whole;
    });
  }
  // A leading template stands for scheme+host (e.g. {{token.instance_url}}).
  u = u.replace(/^\{\{[^}]*\}\}/, 'https://template.invalid');
  u = u.replace(/\{\{[^}]*\}\}/g, 'x').replace(/\{[^}]*\}/g, 'x');
  let pathname: string;
  try {
    pathname = decodeURIComponent(new URL(u, 'https://relative.invalid').pathname);
  } catch {
    return undefined;
  }
  while (pathname.endsWith('/')) pathname = pathname.slice(0, -1);
  return pathname;
}

function decodePointerToken(t: string): string {
  return decodeURIComponent(t).replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Follows local `$ref`s (`#/...`) until a non-ref value; undefined when unresolvable. */
export function resolveRef(doc: Obj, value: unknown, depth = 0): unknown {
  if (!isRecord(value) || typeof value['$ref'] !== 'string') return value;
  if (depth > 50) return undefined;
  const ref = value['$ref'];
  if (!ref.startsWith('#')) return undefined;
  let cur: unknown = doc;
  for (const token of ref
    .slice(1)
    .split('/')
    .filter((t) => t !== '')) {
    if (Array.isArray(cur)) cur = cur[Number(decodePointerToken(token))];
    else if (isRecord(cur)) cur = cur[decodePointerToken(token)];
    else return undefined;
  }
  return resolveRef(doc, cur, depth + 1);
}

/** Builds the indexes of a parsed OpenAPI document (object from JSON.parse / YAML.parse). */
export function openApiFromObject(doc: unknown): OpenApiSpec {
  if (!isRecord(doc)) throw new Error('not an OpenAPI document (top level is not an object)');
  const version = doc['openapi'];
  if (typeof version !== 'string' || !version.startsWith('3.')) {
    throw new Error(`unsupported OpenAPI version ${JSON.stringify(version ?? doc['swagger'] ?? null)} (3.0/3.1 only)`);
  }
  const paths = doc['paths'];
  if (!isRecord(paths)) throw new Error('OpenAPI document has no paths object');
  let serverBasePath = '';
  const servers = doc['servers'];
  if (Array.isArray(servers) && isRecord(servers[0]) && typeof servers[0]['url'] === 'string') {
    const vars = servers[0]['variables'];
    serverBasePath = urlBasePath(servers[0]['url'], isRecord(vars) ? vars : undefined) ?? '';
  }
  const byPath = new Map<string, SpecPathEntry[]>();
  const byFullPath = new Map<string, SpecPathEntry[]>();
  for (const [raw, value] of Object.entries(paths)) {
    const item = resolveRef(doc, value);
    if (!isRecord(item)) continue;
    const entry: SpecPathEntry = { raw, item };
    const k1 = normalizePath(raw);
    const k2 = normalizePath(joinPath(serverBasePath, raw));
    byPath.set(k1, [...(byPath.get(k1) ?? []), entry]);
    byFullPath.set(k2, [...(byFullPath.get(k2) ?? []), entry]);
  }
  return { doc, serverBasePath, byPath, byFullPath };
}

/** Parses OpenAPI JSON or YAML text. */
export function parseOpenApi(text: string, file = ''): OpenApiSpec {
  const trimmed = text.trimStart();
  const isJson = file.endsWith('.json') || trimmed.startsWith('{');
  const doc: unknown = isJson ? JSON.parse(text) : YAML.parse(text, { maxAliasCount: -1 });
  return openApiFromObject(doc);
}

function stripPrefix(p: string, prefix: string | undefined): string {
  if (!prefix) return p;
  const pre = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (pre === '') return p;
  if (p === pre) return '/';
  if (p.startsWith(`${pre}/`)) return p.slice(pre.length);
  return p;
}

/** Where our path should be looked up: spec path entry plus our path as compared (for template mapping). */
export interface PathMatch {
  readonly entry: SpecPathEntry;
  /** The spec path as compared (server base path prepended when matched on full paths). */
  readonly specCompared: string;
  /** Our path as compared. */
  readonly oursCompared: string;
}

/**
 * Finds the spec path for one of our paths. Tries, in order: our path (path_prefix stripped)
 * against spec paths; then base_url's path + our path against servers[0] path + spec path
 * (so a base_url ending in /v2 matches a server URL ending in /v2, and a base_url without
 * it matches spec paths that the server prefixes).
 */
export function findSpecPath(
  spec: OpenApiSpec,
  ourPath: string,
  opts: { baseUrl?: string | undefined; pathPrefix?: string | undefined } = {},
): PathMatch | undefined {
  const stripped = stripPrefix(ourPath, opts.pathPrefix);
  const direct = spec.byPath.get(normalizePath(stripped))?.[0];
  if (direct) return { entry: direct, specCompared: direct.raw, oursCompared: stripped };
  const base = opts.baseUrl !== undefined ? urlBasePath(opts.baseUrl) : undefined;
  if (base === undefined) return undefined;
  for (const ours of stripped === ourPath ? [ourPath] : [stripped, ourPath]) {
    const full = joinPath(base, ours);
    const hit = spec.byFullPath.get(normalizePath(full))?.[0];
    if (hit) return { entry: hit, specCompared: joinPath(spec.serverBasePath, hit.raw), oursCompared: full };
  }
  return undefined;
}

interface SpecParam {
  readonly name: string;
  readonly in: string;
}

function collectParams(spec: OpenApiSpec, item: Obj, op: Obj): SpecParam[] {
  const out = new Map<string, SpecParam>();
  for (const list of [item['parameters'], op['parameters']]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = resolveRef(spec.doc, raw);
      if (!isRecord(p) || typeof p['name'] !== 'string' || typeof p['in'] !== 'string') continue;
      out.set(`${p['in']}:${p['name']}`, { name: p['name'], in: p['in'] });
    }
  }
  return [...out.values()];
}

interface BodyInfo {
  /** The media type used, undefined when the operation has no request body. */
  readonly mediaType?: string | undefined;
  /** Other media types offered (for messages). */
  readonly offered: readonly string[];
  readonly properties: ReadonlySet<string>;
  /** True when the schema declares no properties at all (free-form object): any name is accepted. */
  readonly freeForm: boolean;
}

function pickJsonMedia(content: Obj): string | undefined {
  const types = Object.keys(content);
  const base = (t: string): string => (t.split(';')[0] ?? '').trim().toLowerCase();
  return types.find((t) => base(t) === 'application/json') ?? types.find((t) => /[/+]json$/.test(base(t))) ?? types.find((t) => base(t) === '*/*');
}

function collectProperties(doc: Obj, schema: unknown, into: Set<string>, seen: Set<unknown>): boolean {
  const s = resolveRef(doc, schema);
  if (!isRecord(s) || seen.has(s)) return false;
  seen.add(s);
  let declared = false;
  const props = s['properties'];
  if (isRecord(props)) {
    declared = true;
    for (const k of Object.keys(props)) into.add(k);
  }
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const parts = s[key];
    if (!Array.isArray(parts)) continue;
    for (const part of parts) if (collectProperties(doc, part, into, seen)) declared = true;
  }
  return declared;
}

function bodyInfo(spec: OpenApiSpec, op: Obj): BodyInfo {
  const rb = resolveRef(spec.doc, op['requestBody']);
  if (!isRecord(rb) || !isRecord(rb['content'])) return { offered: [], properties: new Set(), freeForm: false };
  const content = rb['content'];
  const mediaType = pickJsonMedia(content);
  const offered = Object.keys(content);
  if (mediaType === undefined) return { offered, properties: new Set(), freeForm: false };
  const media = content[mediaType];
  const properties = new Set<string>();
  const declared = isRecord(media) ? collectProperties(spec.doc, media['schema'], properties, new Set()) : false;
  return { mediaType, offered, properties, freeForm: !declared };
}

/** `input.teamId` -> `input`, `items[0].name` -> `items`. */
export function firstSegment(wire: string): string {
  return (wire.split('.')[0] ?? wire).replace(/\[.*$/, '');
}

/** Checks one action against a parsed OpenAPI document. Pure. */
export function checkOpenApiAction(spec: OpenApiSpec, input: ActionCheckInput): Mismatch[] {
  const { entity, action, def } = input.action;
  const method = def.method.toUpperCase();
  const out: Mismatch[] = [];
  const add = (kind: MismatchKind, message: string, where: string, param?: string, wire?: string): void => {
    out.push({ kind, entity, action, param, wire, message, where });
  };

  const match = findSpecPath(spec, def.path, { baseUrl: input.baseUrl, pathPrefix: input.pathPrefix });
  if (!match) {
    add('path_missing', `path ${def.path} not in spec`, `${method} ${def.path}`);
    return out;
  }
  const specPath = match.entry.raw;
  const where = `${method} ${specPath}`;
  const opValue = resolveRef(spec.doc, match.entry.item[method.toLowerCase()]);
  if (!isRecord(opValue)) {
    const has = HTTP_METHODS.filter((m) => isRecord(match.entry.item[m])).map((m) => m.toUpperCase());
    add('method_missing', `method ${method} not in spec for ${specPath} (spec has ${has.join(', ') || 'none'})`, where);
    return out;
  }
  const op = opValue;
  const specParams = collectParams(spec, match.entry.item, op);
  const body = bodyInfo(spec, op);
  const skipBodyNames = def.additional_params === 'body';

  const ourTemplates = templateNames(match.oursCompared);
  const specTemplates = templateNames(match.specCompared);

  const otherLocations = (name: string, except: string): string[] => {
    const locs = new Set<string>();
    for (const p of specParams) {
      if (p.in !== except && (p.in === 'header' ? p.name.toLowerCase() === name.toLowerCase() : p.name === name)) {
        locs.add(p.in);
      }
    }
    if (except !== 'body' && body.properties.has(firstSegment(name))) locs.add('body');
    return [...locs];
  };

  const checkBodyName = (label: string, key: string, param: string, wire: string | undefined): void => {
    if (body.mediaType === undefined) {
      const what =
        body.offered.length > 0 ? `operation has no application/json request body (offers ${body.offered.join(', ')})` : 'operation has no request body';
      add('body_missing', `${label} '${key}': ${what}`, where, param, wire);
      return;
    }
    if (skipBodyNames || body.freeForm || body.properties.has(key)) return;
    const elsewhere = otherLocations(key, 'body');
    if (elsewhere.length > 0) {
      add('param_location', `${label} '${key}' is in: body here but in: ${elsewhere.join('/')} in the spec`, where, param, wire);
    } else {
      add('param_missing', `${label} '${key}' not in the spec's request body`, where, param, wire);
    }
  };

  for (const [name, p] of Object.entries(def.params)) {
    checkParam(name, p);
  }
  for (const key of Object.keys(def.constant_body ?? {})) {
    if (def.params[key]?.in === 'body') continue; // already checked as a param
    checkBodyName('constant_body field', key, key, undefined);
  }
  return out;

  function checkParam(name: string, p: ParamDef): void {
    const wireName = p.wire ?? name;
    const wire = p.wire !== undefined && p.wire !== name ? p.wire : undefined;
    switch (p.in) {
      case 'path': {
        let idx = ourTemplates.indexOf(name);
        if (idx < 0) idx = ourTemplates.indexOf(wireName);
        if (idx < 0) {
          add('path_param_template', `path param '${name}' is not a {…} segment of ${def.path}`, where, name, wire);
        } else if (specTemplates[idx] === undefined) {
          add('param_missing', `path param '${name}' has no counterpart in the spec path`, where, name, wire);
        }
        return;
      }
      case 'query':
      case 'header': {
        const loc = p.in;
        const candidates = loc === 'query' ? [wireName, wireName.replace(/\[.*$/, '')] : [wireName];
        const found = specParams.some(
          (sp) => sp.in === loc && candidates.some((c) => (loc === 'header' ? sp.name.toLowerCase() === c.toLowerCase() : sp.name === c)),
        );
        if (found) return;
        const elsewhere = otherLocations(wireName, loc);
        if (elsewhere.length > 0) {
          add('param_location', `param '${wireName}' is in: ${loc} here but in: ${elsewhere.join('/')} in the spec`, where, name, wire);
        } else {
          add('param_missing', `${loc} param '${wireName}' not in spec`, where, name, wire);
        }
        return;
      }
      case 'body':
        checkBodyName('body param', firstSegment(wireName), name, wire);
        return;
      default:
        add('param_location', `param '${name}' is in: ${p.in}, which an OpenAPI operation does not have`, where, name, wire);
    }
  }
}

/** Wraps a parsed OpenAPI document as a LoadedSpec. */
export function openApiLoaded(spec: OpenApiSpec): LoadedSpec {
  return { format: 'openapi', checkAction: (input) => checkOpenApiAction(spec, input) };
}

export const openapiFormat: SpecFormat = {
  name: 'openapi',
  async load(absPath: string): Promise<LoadedSpec> {
    const text = await readFile(absPath, 'utf8');
    return openApiLoaded(parseOpenApi(text, absPath));
  },
};
