/**
 * Checks for authoring mistakes that the JSON Schema accepts but that fail only at run time:
 * body params on GET/DELETE, a list-like action without a records path (or with `record_path`
 * typed for `records_path`), and "did you mean" suggestions for misspelt names.
 */
import type { Diagnostic, LoadedManifest } from './load.js';
import { positionOf } from './load.js';
import type { Manifest as RawManifest } from '../generated/manifest.js';

/** The explicit marker for "the records are the response body itself" (a top-level array). */
export const ROOT_RECORDS_PATH = '$';

function distance(a: string, b: string): number {
  const prev = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let diagonal = prev[0] as number;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const above = prev[j] as number;
      prev[j] = Math.min(above + 1, (prev[j - 1] as number) + 1, diagonal + (a[i - 1] === b[j - 1] ? 0 : 1));
      diagonal = above;
    }
  }
  return prev[b.length] as number;
}

/** The closest candidate within a third of the name's length (at least 2 edits), if any. */
export function nearest(name: string, candidates: Iterable<string>): string | undefined {
  let best: string | undefined;
  let bestDistance = Number.POSITIVE_INFINITY;
  const lower = name.toLowerCase();
  for (const candidate of candidates) {
    if (candidate === name) continue;
    const d = distance(lower, candidate.toLowerCase());
    if (d < bestDistance) {
      best = candidate;
      bestDistance = d;
    }
  }
  return best !== undefined && bestDistance <= Math.max(2, Math.floor(name.length / 3)) ? best : undefined;
}

/** `; did you mean "x"?` or an empty string. */
export function didYouMean(name: string, candidates: Iterable<string>): string {
  const hit = nearest(name, candidates);
  return hit === undefined ? '' : `; did you mean "${hit}"?`;
}

/** Runs on schema-valid manifests, beside checkSemantics. */
export function checkAuthoringMistakes(manifest: LoadedManifest): Diagnostic[] {
  const m = manifest.data as RawManifest;
  const diagnostics: Diagnostic[] = [];
  const report = (segments: string[], rule: string, message: string, atKey = false) =>
    diagnostics.push({ file: manifest.file, ...positionOf(manifest, segments, atKey), path: segments.join('.'), rule, message });

  for (const [entityName, entity] of Object.entries(m.entities)) {
    for (const [actionName, action] of Object.entries(entity.actions)) {
      const at = ['entities', entityName, 'actions', actionName];
      if (action.method === 'GET' || action.method === 'DELETE') {
        for (const [name, param] of Object.entries(action.params ?? {})) {
          if (param.in === 'body') {
            report(
              [...at, 'params', name, 'in'],
              'body-on-read',
              `param "${name}" is in: body, but a ${action.method} request sends no body; use in: query (or change the method)`,
            );
          }
        }
        if (action.constant_body !== undefined)
          report([...at, 'constant_body'], 'body-on-read', `constant_body on a ${action.method} request is never sent; use constant_query`, true);
        if (action.additional_params === 'body')
          report([...at, 'additional_params'], 'body-on-read', `additional_params: body on a ${action.method} request is never sent`, true);
      }
      const many = (action.result ?? (actionName === 'list' || actionName === 'api_search' ? 'many' : 'one')) === 'many';
      // An explicit result: many with record_path lists the answer's one record (Zendesk Talk's overviews);
      // without result, record_path on a list is taken for a typo of records_path.
      const oneRecordList = action.result === 'many' && action.record_path !== undefined;
      if (many && action.records_path === undefined && !oneRecordList) {
        const typo = action.record_path !== undefined ? `; "record_path" is for one record: did you mean "records_path"?` : '';
        report(
          at,
          'missing-records-path',
          `a ${actionName === 'list' || actionName === 'api_search' ? actionName : 'result: many'} action needs records_path (the dot path of the record array, or "${ROOT_RECORDS_PATH}" when the body itself is the array)${typo}`,
        );
      }
    }
  }
  return diagnostics;
}
