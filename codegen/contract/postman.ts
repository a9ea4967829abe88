/**
 * Postman collection spec format (`postman_collection`): a vendor's published request collection,
 * e.g. Salesforce's official one (github.com/forcedotcom/postman-salesforce-apis). It is not an
 * API description: each request is an example call (method, URL with query string, headers and an
 * example body), so only what a request shows can be checked.
 *
 * Read from a folder, a .tar.gz / .tgz of it (extracted once per run into a temporary folder), or
 * one .json file. Every JSON file found is looked at:
 * - a legacy v1 exploded request (`{ method, url, queryParams, headerData, dataMode, data, rawModeData }`,
 *   one file per request under collections/<name>/...);
 * - a v1 collection file (`{ requests: [...] }` of the same request objects);
 * - a v2.x collection file (`{ info, item: [...] }`, items nested in folders, each with
 *   `request: { method, url: string | { raw, query }, header, body: { mode, raw, urlencoded, formdata } }`).
 * Other files (environments, header presets, index files) are skipped.
 *
 * How a request URL is compared with a manifest action:
 * - Leading `{{variables}}` stand for scheme and host (`{{_endpoint}}`, `{{url}}{{site}}`) and are
 *   dropped; an absolute URL keeps only its path; the query string is read as query params; a
 *   trailing slash is ignored.
 * - A path segment that is a whole placeholder (`<SOBJECT_API_NAME>`, `{{_jobId}}`, `:id`) matches any
 *   segment of ours, a `{template}` or a literal (`Account`). A segment with a placeholder inside
 *   (`v{{version}}`) matches a literal of that shape (`v62.0`), so API versions compare equal. A
 *   literal segment must be equal. One of our `{templates}` only matches a whole placeholder.
 * - Our side is base_url's path + the action path (path_prefix, when set, stripped from the action
 *   path first), and also the action path alone. When several requests match, the ones with the
 *   most literal segments win; all of them with the action's method are merged (their params joined).
 *
 * Params: query params by wire name (a trailing `[]` ignored) must appear in a matching request's
 * query params or URL query; header params in its headers (case-insensitive); body params need a
 * request body: a `raw` body is an example, not a schema, so any JSON field name is accepted, while
 * form bodies (`urlencoded`, `params`/`formdata`) list their field names, which are then checked.
 * `variables` params are `param_location` mismatches (collections describe REST calls).
 */
import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { ARCHIVE_PATTERN, withExtractedArchive } from './archive.js';
import { firstSegment, urlBasePath } from './openapi.js';
import { isRecord, type ActionCheckInput, type LoadedSpec, type Mismatch, type MismatchKind, type ParamDef, type SpecFormat } from './types.js';

export const POSTMAN_COLLECTION = 'postman_collection';

/** What a request's body lets us check. */
export type BodyKind = 'none' | 'raw' | 'form';

export interface PostmanRequest {
  /** Request name (for messages). */
  readonly name: string;
  readonly method: string;
  /** URL as written in the collection (trimmed). */
  readonly url: string;
  /** Path after the host variables / origin, without query string or trailing slash. */
  readonly path: string;
  readonly segments: readonly string[];
  readonly query: ReadonlySet<string>;
  /** Header names, lowercased. */
  readonly headers: ReadonlySet<string>;
  readonly body: BodyKind;
  /** Field names of a form body. */
  readonly formFields: ReadonlySet<string>;
}

export interface PostmanSpec {
  readonly requests: readonly PostmanRequest[];
}

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function keysOf(list: unknown): string[] {
  if (!Array.isArray(list)) return [];
  const out: string[] = [];
  for (const entry of list) {
    const key = isRecord(entry) ? str(entry['key']) : undefined;
    if (key !== undefined && key.trim() !== '') out.push(key.trim());
  }
  return out;
}

/** Splits a collection URL into its path (host variables or origin dropped) and its query keys. */
export function splitPostmanUrl(rawUrl: string): { path: string; queryKeys: string[] } {
  let u = rawUrl.trim();
  const hash = u.indexOf('#');
  if (hash >= 0) u = u.slice(0, hash);
  let queryString = '';
  const q = u.indexOf('?');
  if (q >= 0) {
    queryString = u.slice(q + 1);
    u = u.slice(0, q);
  }
  // Leading {{variables}} hold scheme and host.
  u = u.replace(/^(\{\{[^{}]*\}\})+/, '');
  const origin = /^[a-z][a-z0-9+.-]*:\/\/[^/]*/i.exec(u);
  if (origin) u = u.slice(origin[0].length);
  if (!u.startsWith('/')) u = `/${u}`;
  while (u.length > 1 && u.endsWith('/')) u = u.slice(0, -1);
  const queryKeys = queryString
    .split('&')
    .map((pair) => (pair.split('=')[0] ?? '').trim())
    .filter((k) => k !== '');
  return { path: u, queryKeys };
}

function segmentsOf(p: string): string[] {
  return p.split('/').filter((s) => s !== '');
}

const PLACEHOLDER = /\{\{[^{}]*\}\}|<[^<>/]*>/;

/** True when the whole segment is one placeholder: `<NAME>`, `{{var}}` or a `:var` path variable. */
export function isWholePlaceholder(segment: string): boolean {
  return /^(\{\{[^{}]*\}\}|<[^<>/]*>|:[A-Za-z_][A-Za-z0-9_]*)$/.test(segment);
}

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/** Does one spec segment accept one of our segments? */
export function segmentMatches(spec: string, ours: string): boolean {
  if (isWholePlaceholder(spec)) return true;
  if (/^\{[^{}]*\}$/.test(ours)) return false; // our template only fills a whole placeholder
  if (!PLACEHOLDER.test(spec)) return spec === ours;
  const pattern = spec.split(PLACEHOLDER).map(escapeRegex).join('[^/]+');
  return new RegExp(`^${pattern}$`).test(ours);
}

function literalCount(segments: readonly string[]): number {
  return segments.filter((s) => !isWholePlaceholder(s) && !PLACEHOLDER.test(s)).length;
}

function makeRequest(
  name: string,
  method: string,
  url: string,
  extraQuery: readonly string[],
  headers: readonly string[],
  body: BodyKind,
  formFields: readonly string[],
): PostmanRequest {
  const split = splitPostmanUrl(url);
  return {
    name,
    method: method.toUpperCase(),
    url: url.trim(),
    path: split.path,
    segments: segmentsOf(split.path),
    query: new Set([...split.queryKeys, ...extraQuery]),
    headers: new Set(headers.map((h) => h.toLowerCase())),
    body,
    formFields: new Set(formFields),
  };
}

function headerLines(text: unknown): string[] {
  if (typeof text !== 'string') return [];
  return text
    .split('\n')
    .map((line) => (line.split(':')[0] ?? '').trim())
    .filter((h) => h !== '');
}

/** A legacy (v1) request object: `{ method, url, queryParams, headerData, headers, dataMode, data, rawModeData }`. */
function fromV1(doc: Record<string, unknown>): PostmanRequest | undefined {
  const method = str(doc['method']);
  const url = str(doc['url']);
  if (method === undefined || url === undefined) return undefined;
  const mode = str(doc['dataMode']);
  let body: BodyKind = 'none';
  let formFields: string[] = [];
  if (mode === 'raw') body = 'raw';
  else if (mode === 'urlencoded' || mode === 'params') {
    body = 'form';
    formFields = keysOf(doc['data']);
  } else if (mode !== undefined && mode !== '') body = 'raw';
  return makeRequest(
    str(doc['name']) ?? url,
    method,
    url,
    keysOf(doc['queryParams']),
    [...keysOf(doc['headerData']), ...headerLines(doc['headers'])],
    body,
    formFields,
  );
}

/** A v2.x item's request. */
function fromV2(name: string, request: unknown): PostmanRequest | undefined {
  if (typeof request === 'string') return makeRequest(name, 'GET', request, [], [], 'none', []);
  if (!isRecord(request)) return undefined;
  const method = str(request['method']) ?? 'GET';
  const rawUrl = request['url'];
  let url: string | undefined;
  let query: string[] = [];
  if (typeof rawUrl === 'string') url = rawUrl;
  else if (isRecord(rawUrl)) {
    url = str(rawUrl['raw']);
    query = keysOf(rawUrl['query']);
    if (url === undefined && Array.isArray(rawUrl['path'])) url = `/${rawUrl['path'].map(String).join('/')}`;
  }
  if (url === undefined) return undefined;
  const b = request['body'];
  let body: BodyKind = 'none';
  let formFields: string[] = [];
  if (isRecord(b)) {
    const mode = str(b['mode']);
    if (mode === 'urlencoded' || mode === 'formdata') {
      body = 'form';
      formFields = keysOf(b[mode]);
    } else if (mode !== undefined && mode !== '') body = 'raw';
  }
  return makeRequest(name, method, url, query, keysOf(request['header']), body, formFields);
}

function walkV2Items(items: unknown, into: PostmanRequest[]): void {
  if (!Array.isArray(items)) return;
  for (const item of items) {
    if (!isRecord(item)) continue;
    if (Array.isArray(item['item'])) walkV2Items(item['item'], into);
    if (item['request'] !== undefined) {
      const r = fromV2(str(item['name']) ?? '', item['request']);
      if (r) into.push(r);
    }
  }
}

/** The requests one parsed JSON file holds (none for environments, presets, index files). */
export function requestsFromDocument(doc: unknown): PostmanRequest[] {
  if (!isRecord(doc)) return [];
  const out: PostmanRequest[] = [];
  if (Array.isArray(doc['item'])) walkV2Items(doc['item'], out);
  if (Array.isArray(doc['requests'])) {
    for (const r of doc['requests']) {
      const req = isRecord(r) ? fromV1(r) : undefined;
      if (req) out.push(req);
    }
  }
  const single = fromV1(doc);
  if (single) out.push(single);
  return out;
}

/** Builds the spec from parsed JSON documents. Pure. */
export function postmanSpecFromDocuments(docs: readonly unknown[]): PostmanSpec {
  const requests = docs.flatMap(requestsFromDocument);
  if (requests.length === 0) throw new Error('no Postman requests found (expected v1 request files, a v1 collection or a v2 collection)');
  return { requests };
}

async function listJsonFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...(await listJsonFiles(full)));
    else if (entry.isFile() && entry.name.endsWith('.json')) out.push(full);
  }
  return out.sort();
}

async function readJson(file: string, root: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(file, 'utf8'));
  } catch (e) {
    throw new Error(`${path.relative(root, file) || path.basename(file)}: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** Reads every JSON file under a folder. */
export async function readPostmanDir(dir: string): Promise<PostmanSpec> {
  const docs: unknown[] = [];
  for (const f of await listJsonFiles(dir)) docs.push(await readJson(f, dir));
  return postmanSpecFromDocuments(docs);
}

/** Loads a collection from a folder, a .tar.gz / .tgz of it, or one .json file. */
export async function loadPostmanSpec(absPath: string): Promise<PostmanSpec> {
  if ((await stat(absPath)).isDirectory()) return readPostmanDir(absPath);
  if (absPath.endsWith('.json')) return postmanSpecFromDocuments([await readJson(absPath, path.dirname(absPath))]);
  if (!ARCHIVE_PATTERN.test(absPath)) throw new Error('expected a folder, a .json collection or a .tar.gz/.tgz archive');
  return withExtractedArchive(absPath, readPostmanDir);
}

function stripPrefix(p: string, prefix: string | undefined): string {
  if (!prefix) return p;
  const pre = prefix.endsWith('/') ? prefix.slice(0, -1) : prefix;
  if (pre === '') return p;
  if (p === pre) return '/';
  if (p.startsWith(`${pre}/`)) return p.slice(pre.length);
  return p;
}

function joinPath(base: string, p: string): string {
  const b = base.endsWith('/') ? base.slice(0, -1) : base;
  return `${b}${p.startsWith('/') ? p : `/${p}`}`;
}

function pathMatches(spec: readonly string[], ours: readonly string[]): boolean {
  return spec.length === ours.length && spec.every((s, i) => segmentMatches(s, ours[i] ?? ''));
}

/** The requests matching one of our paths, most specific first (all of the best specificity). */
export function findRequests(
  spec: PostmanSpec,
  ourPath: string,
  opts: { baseUrl?: string | undefined; pathPrefix?: string | undefined } = {},
): {
  readonly matches: readonly PostmanRequest[];
  readonly compared: string;
} {
  const stripped = stripPrefix(ourPath, opts.pathPrefix);
  const base = opts.baseUrl !== undefined ? urlBasePath(opts.baseUrl) : undefined;
  const candidates = [...new Set([...(base !== undefined && base !== '' ? [joinPath(base, stripped)] : []), stripped])];
  for (const candidate of candidates) {
    const ours = segmentsOf(candidate);
    const hits = spec.requests.filter((r) => pathMatches(r.segments, ours));
    if (hits.length === 0) continue;
    const best = Math.max(...hits.map((r) => literalCount(r.segments)));
    return { matches: hits.filter((r) => literalCount(r.segments) === best), compared: candidate };
  }
  return { matches: [], compared: candidates[0] ?? ourPath };
}

function describeRequests(requests: readonly PostmanRequest[]): string {
  const first = requests[0];
  if (!first) return '';
  const names = [...new Set(requests.map((r) => r.name))].join(', ');
  return `${first.method} ${first.path} (${names})`;
}

/** Checks one action against the collection. Pure. */
export function checkPostmanAction(spec: PostmanSpec, input: ActionCheckInput): Mismatch[] {
  const { entity, action, def } = input.action;
  const method = def.method.toUpperCase();
  const out: Mismatch[] = [];
  const add = (kind: MismatchKind, message: string, where: string, param?: string, wire?: string): void => {
    out.push({ kind, entity, action, param, wire, message, where });
  };

  const { matches, compared } = findRequests(spec, def.path, { baseUrl: input.baseUrl, pathPrefix: input.pathPrefix });
  if (matches.length === 0) {
    add('path_missing', `no request of the collection has the path ${compared}`, `${method} ${def.path}`);
    return out;
  }
  const withMethod = matches.filter((r) => r.method === method);
  if (withMethod.length === 0) {
    const has = [...new Set(matches.map((r) => r.method))].sort();
    add(
      'method_missing',
      `no ${method} request for ${matches[0]?.path ?? compared} (the collection has ${has.join(', ')})`,
      `${method} ${matches[0]?.path ?? compared}`,
    );
    return out;
  }
  const where = describeRequests(withMethod);
  const query = new Set(withMethod.flatMap((r) => [...r.query]));
  const headers = new Set(withMethod.flatMap((r) => [...r.headers]));
  const rawBody = withMethod.some((r) => r.body === 'raw');
  const formBody = withMethod.some((r) => r.body === 'form');
  const formFields = new Set(withMethod.flatMap((r) => [...r.formFields]));
  const ourTemplates = [...compared.matchAll(/\{([^}/]*)\}/g)].map((m) => m[1] ?? '');

  const checkBodyName = (label: string, key: string, param: string, wire: string | undefined): void => {
    if (!rawBody && !formBody) {
      add('body_missing', `${label} '${key}': the collection's request has no body`, where, param, wire);
      return;
    }
    if (rawBody || def.additional_params === 'body' || formFields.has(key)) return;
    if (query.has(key)) add('param_location', `${label} '${key}' is in: body here but in: query in the collection`, where, param, wire);
    else add('param_missing', `${label} '${key}' is not a field of the collection's form body`, where, param, wire);
  };

  for (const [name, p] of Object.entries(def.params) as Array<[string, ParamDef]>) {
    const wireName = p.wire ?? name;
    const wire = p.wire !== undefined && p.wire !== name ? p.wire : undefined;
    switch (p.in) {
      case 'path':
        if (!ourTemplates.includes(name) && !ourTemplates.includes(wireName)) {
          add('path_param_template', `path param '${name}' is not a {…} segment of ${def.path}`, where, name, wire);
        }
        break;
      case 'query': {
        const key = wireName.replace(/\[\]$/, '');
        if (query.has(key) || query.has(wireName)) break;
        if (headers.has(key.toLowerCase())) add('param_location', `param '${wireName}' is in: query here but a header in the collection`, where, name, wire);
        else add('param_missing', `query param '${wireName}' is not in the collection's request`, where, name, wire);
        break;
      }
      case 'header':
        if (headers.has(wireName.toLowerCase())) break;
        if (query.has(wireName)) add('param_location', `param '${wireName}' is in: header here but in: query in the collection`, where, name, wire);
        else add('param_missing', `header '${wireName}' is not in the collection's request`, where, name, wire);
        break;
      case 'body':
        checkBodyName('body param', firstSegment(wireName), name, wire);
        break;
      default:
        add('param_location', `param '${name}' is in: ${p.in}, which a Postman request does not have`, where, name, wire);
    }
  }
  for (const key of Object.keys(def.constant_body ?? {})) {
    if (def.params[key]?.in === 'body') continue;
    checkBodyName('constant_body field', key, key, undefined);
  }
  return out;
}

/** Wraps a loaded collection as a LoadedSpec. */
export function postmanLoaded(spec: PostmanSpec): LoadedSpec {
  return { format: POSTMAN_COLLECTION, checkAction: (input) => checkPostmanAction(spec, input) };
}

export const postmanFormat: SpecFormat = {
  name: POSTMAN_COLLECTION,
  async load(absPath: string): Promise<LoadedSpec> {
    return postmanLoaded(await loadPostmanSpec(absPath));
  },
};
