/**
 * Loads connector manifests (top-level manifests/*.yaml) into the shape the checker needs.
 * Full schema validation is `npm run generate`'s job; this only reads what it uses and
 * reports a manifest it cannot read.
 */
import { readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { loadManifest } from '../manifest/load.js';
import { isRecord, type ActionRef, type LiveWaiver, type Manifest, type ParamDef, type VendorSpecRef, type Waiver } from './types.js';

export type ManifestLoad =
  | { readonly ok: true; readonly manifest: Manifest }
  | { readonly ok: false; readonly file: string; readonly connector: string; readonly error: string };

function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

function readParams(v: unknown, where: string): Record<string, ParamDef> {
  if (v === undefined || v === null) return {};
  if (!isRecord(v)) throw new Error(`${where}.params is not a mapping`);
  const out: Record<string, ParamDef> = {};
  for (const [name, p] of Object.entries(v)) {
    if (!isRecord(p) || typeof p['in'] !== 'string') throw new Error(`${where}.params.${name} has no 'in'`);
    out[name] = { in: p['in'], wire: str(p['wire']), required: typeof p['required'] === 'boolean' ? p['required'] : undefined };
  }
  return out;
}

function readVendorSpec(v: unknown): VendorSpecRef | undefined {
  if (v === undefined || v === null) return undefined;
  if (!isRecord(v)) throw new Error('vendor_spec is not a mapping');
  const format = str(v['format']);
  const file = str(v['file']);
  if (format === undefined || file === undefined) throw new Error('vendor_spec needs format and file');
  const waivers: Waiver[] = [];
  const rawWaivers = v['waivers'];
  if (rawWaivers !== undefined && rawWaivers !== null) {
    if (!Array.isArray(rawWaivers)) throw new Error('vendor_spec.waivers is not a list');
    rawWaivers.forEach((w: unknown, i) => {
      const action = isRecord(w) ? str(w['action']) : undefined;
      if (!isRecord(w) || action === undefined) throw new Error(`vendor_spec.waivers[${i}] has no action`);
      waivers.push({ action, param: str(w['param']), reason: str(w['reason']) ?? '' });
    });
  }
  const live: LiveWaiver[] = [];
  const rawLive = v['live_waivers'];
  if (Array.isArray(rawLive)) {
    for (const w of rawLive as unknown[]) {
      if (isRecord(w) && typeof w['action'] === 'string' && typeof w['kind'] === 'string')
        live.push({ action: w['action'], kind: w['kind'], reason: str(w['reason']) ?? '' });
    }
  }
  return { format, file, path_prefix: str(v['path_prefix']), waivers, live_waivers: live };
}

/** Fixed query values are checked like query params of the same names. */
function constantQueryParams(v: unknown): Record<string, ParamDef> {
  if (!isRecord(v)) return {};
  return Object.fromEntries(Object.keys(v).map((name) => [name, { in: 'query', wire: name, required: undefined }]));
}

/** The GET an entity's deleted feed sends (search.incremental.deleted_feed), with its two range params. */
function deletedFeedRequest(entity: Record<string, unknown>): ActionRef['def'] | undefined {
  const search = entity['search'];
  const incremental = isRecord(search) ? search['incremental'] : undefined;
  const feed = isRecord(incremental) ? incremental['deleted_feed'] : undefined;
  if (!isRecord(feed)) return undefined;
  const path = str(feed['path']);
  const from = str(feed['from']);
  const to = str(feed['to']);
  if (path === undefined || from === undefined || to === undefined) return undefined;
  return { method: 'GET', path, params: { [from]: { in: 'query', wire: from, required: true }, [to]: { in: 'query', wire: to, required: true } } };
}

/** Reads the checker's view of a parsed manifest object; throws with a message on bad shape. */
export function manifestFromObject(obj: unknown, file: string): Manifest {
  if (!isRecord(obj)) throw new Error('top level is not a mapping');
  const connector = str(obj['connector_type']) ?? path.basename(file).replace(/\.ya?ml$/, '');
  const entities = obj['entities'];
  if (!isRecord(entities)) throw new Error('entities is missing or not a mapping');
  const actions: ActionRef[] = [];
  for (const [entity, e] of Object.entries(entities)) {
    if (!isRecord(e) || !isRecord(e['actions'])) throw new Error(`entities.${entity}.actions is missing`);
    for (const [action, a] of Object.entries(e['actions'])) {
      const where = `entities.${entity}.actions.${action}`;
      if (!isRecord(a)) throw new Error(`${where} is not a mapping`);
      const method = str(a['method']);
      const p = str(a['path']);
      if (method === undefined || p === undefined) throw new Error(`${where} needs method and path`);
      const gql = a['graphql'];
      const constantBody = a['constant_body'];
      actions.push({
        entity,
        action,
        def: {
          method,
          path: p,
          params: { ...constantQueryParams(a['constant_query']), ...readParams(a['params'], where) },
          additional_params: str(a['additional_params']),
          constant_body: isRecord(constantBody) ? constantBody : undefined,
          graphql: isRecord(gql) && typeof gql['document'] === 'string' ? { document: gql['document'] } : undefined,
        },
      });
    }
    const feed = deletedFeedRequest(e);
    if (feed) actions.push({ entity, action: 'search.incremental.deleted_feed', def: feed, syncOnly: true });
  }
  return {
    connector,
    file,
    base_url: str(obj['base_url']) ?? '',
    vendor_spec: readVendorSpec(obj['vendor_spec']),
    actions,
  };
}

/** Parses with the generator's own loader, so anchors, merge keys and YAML errors behave the same. */
export function parseManifest(text: string, file: string): Manifest {
  const { manifest, diagnostics } = loadManifest(file, text);
  const first = diagnostics[0];
  if (first || !manifest) throw new Error(first ? `line ${first.line}, column ${first.column}: ${first.message}` : 'unreadable manifest');
  return manifestFromObject(manifest.data, file);
}

export async function loadManifestFile(file: string): Promise<ManifestLoad> {
  try {
    return { ok: true, manifest: parseManifest(await readFile(file, 'utf8'), file) };
  } catch (e) {
    const error = e instanceof Error ? e.message : String(e);
    return { ok: false, file, connector: path.basename(file).replace(/\.ya?ml$/, ''), error };
  }
}

/** Top-level `*.yaml` files of the folder, sorted by name. */
export async function listManifestFiles(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true });
  return entries
    .filter((d) => d.isFile() && d.name.endsWith('.yaml'))
    .map((d) => path.join(dir, d.name))
    .sort();
}

export async function loadManifests(dir: string): Promise<ManifestLoad[]> {
  return Promise.all((await listManifestFiles(dir)).map(loadManifestFile));
}
