/**
 * Checks manifests against their vendor descriptions.
 */
import { access } from 'node:fs/promises';
import path from 'node:path';
import { SpecCache } from './formats.js';
import { loadManifests, type ManifestLoad } from './manifests.js';
import { applyWaivers } from './waivers.js';
import type { ConnectorResult, LoadedSpec, Manifest, Mismatch } from './types.js';

export interface ManifestCheck {
  readonly actionsChecked: number;
  readonly mismatches: Mismatch[];
}

/** Runs the spec's per-action check over every action of the manifest (no waivers applied). Pure. */
export function checkManifestActions(manifest: Manifest, spec: LoadedSpec): ManifestCheck {
  const mismatches: Mismatch[] = [];
  for (const action of manifest.actions) {
    mismatches.push(...spec.checkAction({ action, baseUrl: manifest.base_url, pathPrefix: manifest.vendor_spec?.path_prefix }));
  }
  return { actionsChecked: manifest.actions.length, mismatches };
}

/** Checks a manifest against a loaded spec and applies its waivers. Pure. */
export function checkManifest(manifest: Manifest, spec: LoadedSpec): ConnectorResult {
  const { actionsChecked, mismatches } = checkManifestActions(manifest, spec);
  const known = new Set(manifest.actions.map((a) => `${a.entity}.${a.action}`));
  const { unwaived, waived } = applyWaivers(mismatches, manifest.vendor_spec?.waivers ?? [], known);
  return {
    connector: manifest.connector,
    file: manifest.file,
    spec: manifest.vendor_spec?.file,
    format: manifest.vendor_spec?.format,
    actionsChecked,
    unwaived,
    waived,
  };
}

function failed(manifest: Manifest, m: Mismatch): ConnectorResult {
  return {
    connector: manifest.connector,
    file: manifest.file,
    spec: manifest.vendor_spec?.file,
    format: manifest.vendor_spec?.format,
    actionsChecked: 0,
    unwaived: [m],
    waived: [],
  };
}

async function exists(p: string): Promise<boolean> {
  try {
    await access(p);
    return true;
  } catch {
    return false;
  }
}

/** Checks one loaded manifest, reading its spec through the cache. */
export async function checkLoadedManifest(load: ManifestLoad, specsDir: string, cache: SpecCache): Promise<ConnectorResult> {
  if (!load.ok) {
    return {
      connector: load.connector,
      file: load.file,
      actionsChecked: 0,
      unwaived: [{ kind: 'manifest_unreadable', message: `manifest unreadable: ${load.error}`, where: load.file }],
      waived: [],
    };
  }
  const manifest = load.manifest;
  const vs = manifest.vendor_spec;
  if (!vs) return { connector: manifest.connector, file: manifest.file, actionsChecked: 0, unwaived: [], waived: [] };
  if (!cache.hasFormat(vs.format)) {
    return failed(manifest, { kind: 'unsupported_format', message: `no checker for spec format '${vs.format}'`, where: vs.file });
  }
  const abs = path.resolve(specsDir, vs.file);
  if (!(await exists(abs))) {
    return failed(manifest, { kind: 'spec_missing', message: 'vendor_spec file not found', where: abs });
  }
  let spec: LoadedSpec;
  try {
    spec = await cache.get(vs.format, abs);
  } catch (e) {
    const msg = e instanceof Error ? e.message : String(e);
    return failed(manifest, { kind: 'spec_unreadable', message: `vendor_spec file unreadable as ${vs.format}: ${msg}`, where: abs });
  }
  return checkManifest(manifest, spec);
}

export interface RunOptions {
  readonly manifestsDir: string;
  readonly specsDir: string;
  /** Only these connectors (connector_type or file base name); all when empty. */
  readonly only?: readonly string[] | undefined;
  readonly cache?: SpecCache | undefined;
}

export async function runContract(opts: RunOptions): Promise<ConnectorResult[]> {
  const cache = opts.cache ?? new SpecCache();
  let loads = await loadManifests(opts.manifestsDir);
  const only = opts.only ?? [];
  if (only.length > 0) {
    loads = loads.filter((l) => {
      const base = path.basename(l.ok ? l.manifest.file : l.file).replace(/\.yaml$/, '');
      return only.includes(base) || (l.ok && only.includes(l.manifest.connector));
    });
  }
  const results: ConnectorResult[] = [];
  for (const l of loads) results.push(await checkLoadedManifest(l, opts.specsDir, cache));
  return results;
}
