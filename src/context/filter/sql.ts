/**
 * SQL building blocks of filter search over context_records.data (jsonb). Field names are written as
 * literals, not parameters, so expressions are identical to those of the indexes (migration 4) and the
 * planner can match them; they are checked paths, quoted by Kysely's literal escaping.
 */
import { sql, type RawBuilder } from 'kysely';

/** Where paths are read from: a record's data column, or an array element inside `any`. */
export interface Scope {
  /** The jsonb value paths start from. */
  base: RawBuilder<unknown>;
  /** True for context_records.data itself: containment there is served by the GIN index of migration 2. */
  record: boolean;
}

export function recordScope(alias: string): Scope {
  return { base: sql.ref(`${alias}.data`), record: true };
}

function pathArray(segments: readonly string[]): RawBuilder<unknown> {
  return sql`ARRAY[${sql.join(segments.map((segment) => sql.lit(segment)))}]::text[]`;
}

/** The jsonb value at a path (SQL NULL when missing); an integer segment selects an array element. */
export function jsonAt(scope: Scope, segments: readonly string[]): RawBuilder<unknown> {
  if (segments.length === 0) return scope.base;
  if (segments.length === 1) return sql`(${scope.base} -> ${sql.lit(segments[0] as string)})`;
  return sql`(${scope.base} #> ${pathArray(segments)})`;
}

/** The value at a path as text (strings unquoted, other JSON as its text; NULL for missing or JSON null). */
export function textAt(scope: Scope, segments: readonly string[]): RawBuilder<string> {
  if (segments.length === 0) return sql<string>`(${scope.base} #>> '{}')`;
  if (segments.length === 1) return sql<string>`(${scope.base} ->> ${sql.lit(segments[0] as string)})`;
  return sql<string>`(${scope.base} #>> ${pathArray(segments)})`;
}

/** A JSON value as a jsonb parameter. */
export function jsonParam(value: unknown): RawBuilder<unknown> {
  return sql`${JSON.stringify(value)}::jsonb`;
}

/** `{a: {b: value}}` for the path a.b. */
export function nest(segments: readonly string[], value: unknown): unknown {
  return segments.reduceRight<unknown>((inner, segment) => ({ [segment]: inner }), value);
}

/**
 * Exact JSON equality of the value at a path, written as containment on the record where possible
 * (`data @> '{"status":"open"}'`, indexed) and as jsonb equality otherwise. Objects and arrays are also
 * compared for equality (containment alone would accept a superset).
 */
export function jsonEquals(scope: Scope, segments: readonly string[], value: unknown): RawBuilder<boolean> {
  const containable = segments.length > 0 && !segments.some((segment) => /^-?\d+$/.test(segment));
  const equality = sql<boolean>`${jsonAt(scope, segments)} = ${jsonParam(value)}`;
  if (!containable) return equality;
  const containment = sql<boolean>`${scope.base} @> ${jsonParam(nest(segments, value))}`;
  return value !== null && typeof value === 'object' ? sql<boolean>`(${containment} AND ${equality})` : containment;
}

export function and(parts: ReadonlyArray<RawBuilder<boolean>>): RawBuilder<boolean> {
  if (parts.length === 0) return sql<boolean>`true`;
  if (parts.length === 1) return parts[0] as RawBuilder<boolean>;
  return sql<boolean>`(${sql.join(parts, sql` AND `)})`;
}

export function or(parts: ReadonlyArray<RawBuilder<boolean>>): RawBuilder<boolean> {
  if (parts.length === 0) return sql<boolean>`false`;
  if (parts.length === 1) return parts[0] as RawBuilder<boolean>;
  return sql<boolean>`(${sql.join(parts, sql` OR `)})`;
}

/** True when the condition is not true (false or unknown): a missing field satisfies `not` and `neq`. */
export function not(part: RawBuilder<boolean>): RawBuilder<boolean> {
  return sql<boolean>`((${part}) IS NOT TRUE)`;
}

/** Escapes LIKE wildcards and the escape character itself, for startswith, endswith and contains. */
/**
 * A caller's LIKE pattern as PostgreSQL accepts it: `%`, `_` and `\` keep their meaning, and a `\`
 * left at the end (which escapes nothing, and PostgreSQL refuses) stands for itself.
 */
export function likePattern(text: string): string {
  const trailing = /\\*$/.exec(text)?.[0].length ?? 0;
  return trailing % 2 === 1 ? `${text}\\` : text;
}

export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (char) => `\\${char}`);
}
