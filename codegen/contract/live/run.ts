/**
 * Live conformance (`npm run contract -- --live`): replays the runtime's real requests against a
 * Prism mock of each vendor OpenAPI description. For every OpenAPI file under the vendor-specs folder
 * that a manifest names, Prism is started with --errors; every entity x action of those manifests runs
 * through createConnector (base URL pointed at Prism through a recording proxy) with sample params
 * built from the manifest. A finding is a request Prism rejects (422/400/401 with its violations), a
 * path or method Prism does not know, an unexpected status, or a list whose records or pagination
 * block cannot be read from the vendor's example. Prism's own limits are handled in proxy.ts and here
 * (at most two pages are read, as some examples never end pagination).
 */
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createConnector } from '../../../runtime/index.js';
import type { ActionDefinition, ConnectorDefinition } from '../../../runtime/definition.js';
import { connectorModules } from '../../../runtime/generated/index.js';
import { getPath } from '../../../runtime/paths.js';
import { ARCHIVE_PATTERN, withExtractedArchive } from '../archive.js';
import { loadManifests } from '../manifests.js';
import { findSpecPath, normalizePath, parseOpenApi, resolveRef, type OpenApiSpec } from '../openapi.js';
import { isRecord, type LiveWaiver } from '../types.js';
import { startPrism } from './prism.js';
import { startRecordingProxy, type Exchange, type RecordingProxy } from './proxy.js';
import { responseExample, responseSample, sampleParams, vendorLookup } from './samples.js';

export type LiveFindingKind =
  | 'rejected'
  | 'unknown_path'
  | 'unexpected_status'
  | 'records_unreadable'
  | 'pagination_unreadable'
  | 'no_sample'
  | 'runtime_error'
  | 'prism_failed'
  | 'stale_waiver';

export interface LiveFinding {
  readonly connector: string;
  /** entity.action, absent for a spec-level problem. */
  readonly action?: string | undefined;
  readonly kind: LiveFindingKind;
  readonly message: string;
  /** METHOD path?query of the request concerned. */
  readonly request?: string | undefined;
}

export interface LiveSpecResult {
  readonly spec: string;
  readonly connectors: readonly string[];
  readonly actions: number;
  readonly requests: number;
  readonly findings: readonly LiveFinding[];
  /** Findings accepted by a live waiver of the manifest, with its reason. */
  readonly waived: ReadonlyArray<{ readonly finding: LiveFinding; readonly reason: string }>;
  /** What could not be checked because the vendor description itself lacks it (not failures). */
  readonly notes: readonly LiveFinding[];
  /** Prism limits worked around, with how often. */
  readonly workarounds: ReadonlyMap<string, number>;
  readonly ms: number;
}

export interface LiveOptions {
  readonly manifestsDir: string;
  readonly specsDir: string;
  readonly only?: readonly string[] | undefined;
  /** Prism instances at once (default 2, the machine's shared cores). */
  readonly concurrency?: number | undefined;
  readonly onSpecDone?: ((result: LiveSpecResult) => void) | undefined;
}

/** OpenAPI 3 files under `dir` (relative paths); archives are looked into as well. */
export async function findOpenApiFiles(dir: string): Promise<string[]> {
  const out: string[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const entry of await readdir(abs, { withFileTypes: true })) {
      const childAbs = path.join(abs, entry.name);
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(childAbs, childRel);
      else if (/\.(json|ya?ml)$/i.test(entry.name) && (await isOpenApi(childAbs))) out.push(childRel);
    }
  };
  await walk(dir, '');
  return out.sort();
}

async function isOpenApi(file: string): Promise<boolean> {
  // The version key may come after the paths (Atlassian's file ends with it).
  return /(^|[{,\s])["']?openapi["']?\s*:\s*["']?3\./m.test(await readFile(file, 'utf8'));
}

/** Archives holding OpenAPI files (reported, since Prism needs them unpacked). */
async function archivedOpenApi(dir: string): Promise<string[]> {
  const archives: string[] = [];
  const walk = async (abs: string, rel: string): Promise<void> => {
    for (const entry of await readdir(abs, { withFileTypes: true })) {
      const childRel = rel === '' ? entry.name : `${rel}/${entry.name}`;
      if (entry.isDirectory()) await walk(path.join(abs, entry.name), childRel);
      else if (ARCHIVE_PATTERN.test(entry.name)) archives.push(childRel);
    }
  };
  await walk(dir, '');
  const found: string[] = [];
  for (const archive of archives) {
    const inner = await withExtractedArchive(path.join(dir, archive), (extracted) => findOpenApiFiles(extracted));
    found.push(...inner.map((f) => `${archive}!${f}`));
  }
  return found;
}

function sampleCredentials(definition: ConnectorDefinition): Record<string, unknown> {
  const option = definition.auth[0];
  if (!option) return {};
  const credentials: Record<string, unknown> = { option_title: option.optionTitle };
  for (const [name, field] of Object.entries(option.fields)) {
    const candidates = [field.example, `live-${name.replace(/_/g, '-')}-0123456789abcdef`, '0123456789abcdef0123456789abcdef'];
    credentials[name] = candidates.find((c) => c !== undefined && (field.pattern === undefined || new RegExp(field.pattern).test(c)));
  }
  return credentials;
}

function sampleConfig(definition: ConnectorDefinition): Record<string, unknown> {
  const config: Record<string, unknown> = {};
  for (const [name, field] of Object.entries(definition.config)) {
    const value = field.default ?? field.example ?? field.enum?.[0];
    if (value !== undefined) config[name] = value;
  }
  return config;
}

/** The part of the request path before the action path, so that it lands on the spec path (Prism ignores server base paths). */
function prismPrefix(specPath: string, actionPath: string): string {
  const spec = normalizePath(specPath);
  const ours = normalizePath(actionPath);
  return spec.endsWith(ours) ? spec.slice(0, spec.length - ours.length) : '';
}

function describeRequest(e: Exchange): string {
  return `${e.method} ${decodeURIComponent(e.url)}`;
}

/**
 * Sources without which the walk cannot go on (a cursor's has_more: when absent, the walk stops after
 * page one). The optional ones (total, page_count, is_last, done) only sharpen the walk and are
 * checked like block keys.
 */
function walkKeys(style: string): string[] {
  return style === 'cursor' || style === 'bookmark' ? ['next_cursor', 'has_more'] : ['next_url', 'next_token', 'page_info'];
}

/** Body sources of the pagination: those the walk reads (must be readable) and the block's other keys. */
function paginationSources(action: ActionDefinition): { walk: Array<[string, string]>; block: Array<[string, string]> } {
  const pagination = action.pagination as (Record<string, unknown> & { block: Record<string, string> }) | undefined;
  if (!pagination) return { walk: [], block: [] };
  const walk: Array<[string, string]> = [];
  for (const key of walkKeys(String(pagination['style']))) {
    const source = pagination[key];
    if (typeof source === 'string' && source.startsWith('body.')) walk.push([key, source]);
  }
  const walkSources = new Set(walk.map(([, source]) => source));
  const optional = ['total', 'page_count', 'is_last', 'done', 'has_more'].map((k) => pagination[k]).filter((v): v is string => typeof v === 'string');
  const block = [...Object.entries(pagination.block), ...optional.map((source) => ['(walk)', source] as [string, string])].filter(
    ([, source], i, all) => source.startsWith('body.') && !walkSources.has(source) && all.findIndex(([, s]) => s === source) === i,
  );
  return { walk, block };
}

/** The JSON schema of the operation's first 2xx response, if it declares one. */
function responseSchema(doc: Record<string, unknown>, operation: Record<string, unknown>): unknown {
  const responses = isRecord(operation['responses']) ? operation['responses'] : {};
  const ok = Object.keys(responses)
    .sort()
    .find((code) => /^2/.test(code));
  const response = ok === undefined ? undefined : resolveRef(doc, responses[ok]);
  const content = isRecord(response) && isRecord(response['content']) ? response['content'] : {};
  const media = Object.entries(content).find(([type]) => /json|\*\/\*/i.test(type))?.[1];
  return isRecord(media) ? resolveRef(doc, media['schema']) : undefined;
}

/** Whether a response schema declares anything (properties or items) at all. */
function declaresShape(doc: Record<string, unknown>, schema: unknown, depth = 0): boolean {
  const s = resolveRef(doc, schema);
  if (!isRecord(s) || depth > 10) return false;
  if (isRecord(s['properties']) || s['items'] !== undefined || s['type'] === 'array') return true;
  return ['allOf', 'oneOf', 'anyOf'].some((k) => Array.isArray(s[k]) && (s[k] as unknown[]).some((p) => declaresShape(doc, p, depth + 1)));
}

/**
 * Whether a response schema declares a dot path (through allOf/oneOf/anyOf and array items):
 * 'opaque' when the path runs into an object the vendor left without properties (Orb's
 * pagination_metadata, "x-sl-internally-excluded"), which nothing can be checked against.
 */
function pathStatus(doc: Record<string, unknown>, schema: unknown, segments: string[], depth = 0): 'declared' | 'opaque' | 'absent' {
  const s = resolveRef(doc, schema);
  if (!isRecord(s) || depth > 20) return 'absent';
  const [head, ...rest] = segments;
  if (head === undefined) return 'declared';
  let best: 'declared' | 'opaque' | 'absent' = 'absent';
  for (const k of ['allOf', 'oneOf', 'anyOf']) {
    const parts = s[k];
    if (!Array.isArray(parts)) continue;
    for (const p of parts) {
      const status = pathStatus(doc, p, segments, depth + 1);
      if (status === 'declared') return status;
      if (status === 'opaque') best = status;
    }
  }
  if (/^\d+$/.test(head) && s['items'] !== undefined) return pathStatus(doc, s['items'], rest, depth + 1);
  const props = s['properties'];
  if (isRecord(props) && props[head] !== undefined) return pathStatus(doc, props[head], rest, depth + 1);
  if (
    best === 'absent' &&
    !isRecord(props) &&
    s['items'] === undefined &&
    (s['type'] === 'object' || s['type'] === undefined) &&
    !['allOf', 'oneOf', 'anyOf'].some((k) => s[k] !== undefined)
  ) {
    return 'opaque';
  }
  return best;
}

interface ActionRun {
  readonly connector: string;
  readonly definition: ConnectorDefinition;
  readonly entity: string;
  readonly action: string;
}

async function runAction(run: ActionRun, spec: OpenApiSpec, proxy: RecordingProxy, findings: LiveFinding[], notes: LiveFinding[]): Promise<number> {
  const { definition, entity, action: actionName, connector } = run;
  const action = definition.entities[entity]?.actions[actionName] as ActionDefinition;
  const id = `${entity}.${actionName}`;
  const add = (kind: LiveFindingKind, message: string, request?: string) => findings.push({ connector, action: id, kind, message, request });
  const note = (kind: LiveFindingKind, message: string, request?: string) => notes.push({ connector, action: id, kind, message, request });

  const match = findSpecPath(spec, action.path, { baseUrl: definition.baseUrl });
  if (!match) {
    add('unknown_path', `${action.method} ${action.path} is not a path of the vendor description`);
    return 0;
  }
  const operation = resolveRef(spec.doc, match.entry.item[action.method.toLowerCase()]);
  const { params, missing } = sampleParams(action, vendorLookup(spec.doc, match.entry.item, isRecord(operation) ? operation : {}));
  if (missing.length > 0) {
    add('no_sample', `no value of the manifest schema could be built for ${missing.join(', ')}`);
    return 0;
  }
  const client = createConnector(connector, {
    credentials: sampleCredentials(definition),
    config: sampleConfig(definition),
    baseUrl: `${proxy.url}${prismPrefix(match.entry.raw, action.path)}`,
    http: { retries: 0, timeoutMs: 20_000 },
  });

  const op = isRecord(operation) ? operation : {};
  proxy.fallback = { example: () => responseExample(spec.doc, op), schema: () => responseSample(spec.doc, op) };
  let sent = 0;
  const page = async (pageParams: Record<string, unknown>, label: string): Promise<Record<string, unknown> | undefined> => {
    const before = proxy.exchanges.length;
    let error: unknown;
    let next: Record<string, unknown> | undefined;
    try {
      next = (await client.execute(entity, actionName, pageParams)).next_params;
    } catch (e) {
      error = e;
    }
    const exchanges = proxy.exchanges.slice(before);
    sent += exchanges.length;
    let answered = exchanges.length > 0;
    for (const e of exchanges) {
      const request = describeRequest(e);
      if (e.violations.length > 0 || e.status === 422 || (e.status === 400 && e.responseText.includes('stoplight'))) {
        const why = e.violations.map((v) => `${v.location.slice(1).join('.')}: ${v.message}`).join('; ') || e.responseText.slice(0, 300);
        add('rejected', `${label}Prism rejected the request (${e.status}): ${why}`, request);
        answered = false;
      } else if (e.status === 404 && e.responseText.includes('NO_PATH_MATCHED')) {
        add('unknown_path', `${label}Prism knows no such path`, request);
        answered = false;
      } else if (e.status === 405 || e.responseText.includes('NO_METHOD_MATCHED')) {
        add('unknown_path', `${label}Prism knows the path but not the method`, request);
        answered = false;
      } else if (e.status === 401 || e.status === 403) {
        add('rejected', `${label}Prism refused the credentials the manifest sends (${e.status}): ${e.responseText.slice(0, 200)}`, request);
        answered = false;
      } else if (e.status < 200 || e.status >= 300) {
        add('unexpected_status', `${label}Prism answered ${e.status}: ${e.responseText.slice(0, 300)}`, request);
        answered = false;
      }
    }
    if (!answered) return undefined;
    const last = exchanges.at(-1) as Exchange;
    if (error !== undefined) {
      // A body made up from the response schema (Prism's dynamic answer, or the harness's) holds a placeholder
      // where the vendor puts its next-page URL: the runtime rightly refuses to follow it, and nothing is learnt.
      const madeUp = last.workarounds.some((w) => w.includes('answered from the'));
      if (madeUp && error instanceof Error && error.message.includes("The vendor's next-page link")) {
        note(
          'pagination_unreadable',
          `${label}next page not checkable: the answer was built from the response schema, whose next link is a placeholder (${error.message})`,
          describeRequest(last),
        );
        return undefined;
      }
      add(
        'runtime_error',
        `${label}${error instanceof Error ? error.message : String(error)}; the answer was ${last.responseText.slice(0, 200)}`,
        describeRequest(last),
      );
      return undefined;
    }
    if (action.result === 'many') {
      const body = last.responseBody;
      const schema = responseSchema(spec.doc, isRecord(operation) ? operation : {});
      const paths = action.recordsPath === undefined ? [undefined] : [action.recordsPath].flat();
      const unreadable = paths.filter((p) => !Array.isArray(getPath(body, p)));
      if (unreadable.length === paths.length) {
        const where = unreadable.map((p) => `"${p ?? '(root)'}"`).join(', ');
        if (!declaresShape(spec.doc, schema))
          note(
            'records_unreadable',
            `${label}records at ${where} not checkable: the vendor description declares no response body for this operation`,
            describeRequest(last),
          );
        else add('records_unreadable', `${label}no list of records at ${where} in the vendor's example`, describeRequest(last));
      }
      const status = (source: string): 'declared' | 'opaque' | 'absent' => {
        const dotPath = source.slice('body.'.length);
        return getPath(body, dotPath) !== undefined ? 'declared' : pathStatus(spec.doc, schema, dotPath.split('.'));
      };
      const readable = (source: string) => status(source) === 'declared';
      const { walk, block } = paginationSources(action);
      const missingWalk = walk.filter(([, source]) => !readable(source));
      if (missingWalk.length > 0) {
        const what = missingWalk.map(([k, src]) => `${k} (${src})`).join(', ');
        if (!declaresShape(spec.doc, schema))
          note('pagination_unreadable', `${label}pagination ${what} not checkable: the vendor description declares no response body`, describeRequest(last));
        else if (missingWalk.every(([, src]) => status(src) === 'opaque'))
          note(
            'pagination_unreadable',
            `${label}pagination ${what} not checkable: the vendor's response schema leaves that object without properties`,
            describeRequest(last),
          );
        else add('pagination_unreadable', `${label}pagination ${what} is neither in the vendor's example nor in its response schema`, describeRequest(last));
      }
      const missingBlock = block.filter(([, source]) => !readable(source));
      if (missingBlock.length > 0 && label === '') {
        note(
          'pagination_unreadable',
          `block ${missingBlock.map(([k, src]) => `${k} (${src})`).join(', ')} is not in this response; the contract key is returned as null`,
          describeRequest(last),
        );
      }
    }
    return next;
  };

  const next = await page(params, '');
  // The second page proves the next-page request is valid too; examples often never end, so stop there.
  if (next !== undefined) await page({ ...params, ...next }, 'page 2: ');
  return sent;
}

/**
 * A copy of the document without security requirements that name schemes it never defines (Orb's
 * `API Key - 1`): Prism refuses every request against such a requirement, whatever is sent.
 */
export function dropUndefinedSecurity(doc: Record<string, unknown>): { doc: Record<string, unknown>; dropped: string[] } {
  const components = isRecord(doc['components']) ? doc['components'] : {};
  const schemes = isRecord(components['securitySchemes']) ? components['securitySchemes'] : {};
  const dropped = new Set<string>();
  const clean = (requirements: unknown): unknown => {
    if (!Array.isArray(requirements)) return requirements;
    return requirements.filter((r) => {
      const names = isRecord(r) ? Object.keys(r) : [];
      const undefinedNames = names.filter((n) => schemes[n] === undefined);
      for (const n of undefinedNames) dropped.add(n);
      return undefinedNames.length === 0;
    });
  };
  const paths: Record<string, unknown> = {};
  for (const [p, item] of Object.entries(isRecord(doc['paths']) ? doc['paths'] : {})) {
    if (!isRecord(item)) {
      paths[p] = item;
      continue;
    }
    paths[p] = Object.fromEntries(
      Object.entries(item).map(([k, op]) => [k, isRecord(op) && op['security'] !== undefined ? { ...op, security: clean(op['security']) } : op]),
    );
  }
  const out = { ...doc, paths, ...(doc['security'] !== undefined && { security: clean(doc['security']) }) };
  return { doc: out, dropped: [...dropped] };
}

interface SpecJob {
  readonly spec: string;
  readonly runs: ActionRun[];
  readonly connectors: string[];
  readonly waivers: Array<LiveWaiver & { readonly connector: string }>;
}

/** Splits findings by the manifests' live waivers; a waiver that accepts nothing becomes a finding. */
export function applyLiveWaivers(
  findings: readonly LiveFinding[],
  waivers: ReadonlyArray<LiveWaiver & { readonly connector: string }>,
): { findings: LiveFinding[]; waived: Array<{ finding: LiveFinding; reason: string }> } {
  const used = new Set<number>();
  const open: LiveFinding[] = [];
  const waived: Array<{ finding: LiveFinding; reason: string }> = [];
  for (const f of findings) {
    const i = waivers.findIndex((w) => w.connector === f.connector && w.action === f.action && w.kind === f.kind);
    if (i < 0) open.push(f);
    else {
      used.add(i);
      waived.push({ finding: f, reason: (waivers[i] as LiveWaiver).reason });
    }
  }
  waivers.forEach((w, i) => {
    if (!used.has(i))
      open.push({ connector: w.connector, action: w.action, kind: 'stale_waiver', message: `live waiver for ${w.kind} accepts nothing; remove it` });
  });
  return { findings: open, waived };
}

async function runSpec(job: SpecJob, specsDir: string): Promise<LiveSpecResult> {
  const started = performance.now();
  const findings: LiveFinding[] = [];
  const notes: LiveFinding[] = [];
  const workarounds = new Map<string, number>();
  const file = path.join(specsDir, job.spec);
  let servedDir: string | undefined;
  let requests = 0;
  let spec: OpenApiSpec;
  try {
    spec = parseOpenApi(await readFile(file, 'utf8'), file);
  } catch (e) {
    findings.push({
      connector: job.connectors.join(', '),
      kind: 'prism_failed',
      message: `unreadable OpenAPI file: ${e instanceof Error ? e.message : String(e)}`,
    });
    return {
      spec: job.spec,
      connectors: job.connectors,
      actions: job.runs.length,
      requests,
      findings,
      waived: [],
      notes,
      workarounds,
      ms: performance.now() - started,
    };
  }
  let prism: Awaited<ReturnType<typeof startPrism>> | undefined;
  let proxy: RecordingProxy | undefined;
  try {
    const repaired = dropUndefinedSecurity(spec.doc);
    let served = file;
    if (repaired.dropped.length > 0) {
      servedDir = await mkdtemp(path.join(tmpdir(), 'live-spec-'));
      served = path.join(servedDir, 'openapi.json');
      await writeFile(served, JSON.stringify(repaired.doc));
      workarounds.set(
        `security requirements name undefined schemes (${repaired.dropped.join(', ')}), a defect of the vendor description; they were dropped from the served copy`,
        1,
      );
    }
    prism = await startPrism(served);
    proxy = await startRecordingProxy(prism.url);
    for (const run of job.runs) requests += await runAction(run, spec, proxy, findings, notes);
    for (const e of proxy.exchanges) for (const w of e.workarounds) workarounds.set(w, (workarounds.get(w) ?? 0) + 1);
  } catch (e) {
    findings.push({ connector: job.connectors.join(', '), kind: 'prism_failed', message: e instanceof Error ? e.message : String(e) });
  } finally {
    await proxy?.close();
    await prism?.stop();
    if (servedDir !== undefined) await rm(servedDir, { recursive: true, force: true });
  }
  const outcome = applyLiveWaivers(findings, job.waivers);
  return {
    spec: job.spec,
    connectors: job.connectors,
    actions: job.runs.length,
    requests,
    findings: outcome.findings,
    waived: outcome.waived,
    notes,
    workarounds,
    ms: performance.now() - started,
  };
}

/** Plans and runs the live check; specs run `concurrency` at a time. */
export async function runLive(opts: LiveOptions): Promise<{ results: LiveSpecResult[]; unnamed: string[]; archived: string[] }> {
  const files = await findOpenApiFiles(opts.specsDir);
  const archived = await archivedOpenApi(opts.specsDir);
  const loads = await loadManifests(opts.manifestsDir);
  const only = opts.only ?? [];
  const jobs = new Map<string, SpecJob>();
  const named = new Set<string>();
  for (const load of loads) {
    if (!load.ok) continue;
    const m = load.manifest;
    if (m.vendor_spec?.format !== 'openapi') continue;
    named.add(m.vendor_spec.file);
    const base = path.basename(m.file).replace(/\.yaml$/, '');
    if (only.length > 0 && !only.includes(base) && !only.includes(m.connector)) continue;
    const definition = connectorModules[m.connector]?.definition;
    if (!definition) throw new Error(`${m.connector} has no generated definition; run npm run generate`);
    const spec = m.vendor_spec.file;
    const job = jobs.get(spec) ?? { spec, runs: [], connectors: [], waivers: [] };
    job.connectors.push(m.connector);
    for (const w of m.vendor_spec.live_waivers ?? []) job.waivers.push({ ...w, connector: m.connector });
    for (const a of m.actions) if (!a.syncOnly) job.runs.push({ connector: m.connector, definition, entity: a.entity, action: a.action });
    jobs.set(spec, job);
  }
  for (const spec of jobs.keys()) {
    if (!files.includes(spec)) throw new Error(`vendor_spec file ${spec} is not an OpenAPI 3 file under ${opts.specsDir}`);
  }
  const queue = [...jobs.values()];
  const results: LiveSpecResult[] = [];
  const worker = async (): Promise<void> => {
    for (let job = queue.shift(); job !== undefined; job = queue.shift()) {
      const result = await runSpec(job, opts.specsDir);
      results.push(result);
      opts.onSpecDone?.(result);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, opts.concurrency ?? 2) }, worker));
  results.sort((a, b) => a.spec.localeCompare(b.spec));
  return { results, unnamed: files.filter((f) => !named.has(f)), archived };
}
