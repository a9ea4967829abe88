/**
 * Field paths of filter search: their syntax, the check against the entity's searchable fields, and
 * the JSON types a field's schema declares (used to reject comparisons that cannot hold and to pick
 * the index-friendly form of a date comparison).
 */
import { own } from '../../../runtime/own.js';
import type { EntityDefinition } from '../../../runtime/index.js';

/** Longest accepted field path, in characters. */
export const MAX_PATH_LENGTH = 300;

/** Inside `any`, the path that stands for the array element itself (an array of strings or numbers). */
export const ELEMENT_PATH = '$';

/** The segments of a dot path, or a reason it is malformed. */
export function parsePath(path: string): { segments: string[] } | { problem: string } {
  if (path.length === 0) return { problem: 'a field path must not be empty' };
  if (path.length > MAX_PATH_LENGTH) return { problem: `a field path is at most ${MAX_PATH_LENGTH} characters` };
  if (path.includes('\u0000')) return { problem: 'a field path must not contain NUL characters' };
  const segments = path.split('.');
  if (segments.some((segment) => segment === '')) return { problem: `field path '${path}' has an empty segment (dot paths look like state.name)` };
  return { segments };
}

/**
 * Whether a path may be used in filters, sort and fields: a searchable field itself, or a dot path
 * under one (a searchable object field `state` allows `state.name`). A searchable nested path such as
 * `state.name` does not make its parent `state` searchable.
 */
export function isSearchablePath(path: string, searchable: readonly string[]): boolean {
  return searchable.some((field) => path === field || path.startsWith(`${field}.`));
}

/** The "unknown field" message: names the field and lists what may be used instead. */
export function unknownFieldMessage(path: string, allowed: readonly string[]): string {
  return `unknown field '${path}'; searchable fields: ${allowed.join(', ')}`;
}

/**
 * The JSON types the record schema declares for a top-level field ('null' removed), or undefined
 * when unknown: a nested path (the schema does not describe inside objects) or a schema without type.
 */
export function declaredTypes(entity: EntityDefinition, segments: readonly string[]): Set<string> | undefined {
  if (segments.length !== 1) return undefined;
  const schema = own(entity.record.fields, segments[0] as string);
  const type = schema?.type;
  const types = typeof type === 'string' ? [type] : Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
  const declared = new Set(types.filter((t) => t !== 'null').map((t) => (t === 'integer' ? 'number' : t)));
  return declared.size > 0 ? declared : undefined;
}
