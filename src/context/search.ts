/**
 * The context_store_search action (hosted mode): validates its params, checks the entity has been
 * synchronized, and answers `{data, meta: {has_more, cursor, took_ms}}` from context_records (filter
 * mode, `query`) or from the semantic index (semantic mode, `semantic`, src/context/semantic).
 * Only the caller's connector's live records are read: the connector was looked up in the caller's
 * organization, and every query is scoped by organization and connector and skips deleted records.
 */
import { performance } from 'node:perf_hooks';
import { sql, type RawBuilder } from 'kysely';
import { ValidationError, type EntityDefinition, type ErrorIssue } from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import { BadRequestError } from '../errors.js';
import type { StoreKind } from '../db/database.js';
import { openCursor, searchFingerprint, signCursor, MAX_CURSOR_LENGTH } from './cursor.js';
import { compileFilterInto } from './filter/compile.js';
import { notingWords, withTypos, type ExactFilter } from './filter/index.js';
import { exactWords } from './typos.js';
import { isSearchablePath, parsePath } from './filter/fields.js';
import { projectFields } from './filter/project.js';
import { parseSort, sortPlan, type SortField, type SortPhase, type SortPlan } from './filter/sort.js';
import { semanticSearch, type SemanticParams } from './semantic/search.js';
import type { RecordScope } from './sync/records.js';
import { entityReadiness } from './sync/state.js';

export const CONTEXT_STORE_SEARCH = 'context_store_search';
export const FILTER_LIMIT_DEFAULT = 1000;
export const FILTER_LIMIT_MAX = 5000;
export const SEMANTIC_LIMIT_DEFAULT = 10;
export const SEMANTIC_LIMIT_MAX = 100;
export const SEMANTIC_MIN_SIMILARITY_DEFAULT = 0.25;
export const MAX_FIELDS = 200;
export const MAX_PROMPT_LENGTH = 4000;

const PARAMS = ['query', 'semantic', 'limit', 'cursor', 'fields'];
const QUERY_KEYS = ['filter', 'sort'];
const SEMANTIC_KEYS = ['field', 'prompt', 'filter', 'context_size', 'min_similarity', 'dedup'];

/** The connector and entity a search runs over; the connector is already known to belong to the organization. */
export interface SearchScope {
  organizationId: string;
  connectorId: string;
  connectorType: string;
  /** The connector kind's display name, for messages. */
  displayName: string;
  entity: EntityDefinition;
}

export interface SearchMeta {
  has_more: boolean;
  cursor: string | null;
  took_ms: number;
}

export type SearchResult =
  | { mode: 'query'; data: Array<Record<string, unknown>>; meta: SearchMeta }
  | { mode: 'semantic'; data: Array<{ entity: Record<string, unknown>; metadata: Record<string, unknown> }>; meta: SearchMeta };

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}

class Issues {
  readonly list: ErrorIssue[] = [];
  add(field: string, rule: string, message: string, limit?: unknown): void {
    this.list.push({ field, rule, message: `${field}: ${message}`, ...(limit !== undefined && { limit }) });
  }
}

/** Everything a validated search needs. */
type Plan =
  | { mode: 'query'; filter: ExactFilter; rawFilter: unknown; sort: SortField[]; limit: number; cursor?: string; fields?: string[] }
  | { mode: 'semantic'; semantic: SemanticParams; limit: number; cursor?: string; fields?: string[] };

function validateLimit(value: unknown, max: number, fallback: number, issues: Issues): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    issues.add('limit', 'type', `limit is an integer, not ${describe(value)}`);
    return fallback;
  }
  if (value < 1 || value > max) {
    issues.add('limit', value < 1 ? 'minimum' : 'maximum', `limit is between 1 and ${max}, not ${value}`, value < 1 ? 1 : max);
    return fallback;
  }
  return value;
}

function validateCursor(value: unknown, issues: Issues): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string' || value === '' || value.length > MAX_CURSOR_LENGTH) {
    issues.add('cursor', 'type', `cursor is the non-empty string meta.cursor of the previous response, not ${describe(value)}`);
    return undefined;
  }
  return value;
}

/** `fields`: dot paths, or lists of keys (the reference SDK's form, [["user", "name"]]), under searchable or semantic fields. */
function validateFields(value: unknown, entity: EntityDefinition, issues: Issues): string[] | undefined {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    issues.add('fields', 'type', `fields is an array of field paths ("state.name" or ["state", "name"]), not ${describe(value)}`);
    return undefined;
  }
  if (value.length > MAX_FIELDS) {
    issues.add('fields', 'maximum', `fields takes at most ${MAX_FIELDS} paths`, MAX_FIELDS);
    return undefined;
  }
  const allowed = [...new Set([...entity.search.fields, ...entity.search.semantic.map((s) => s.field)])];
  const paths: string[] = [];
  value.forEach((item, index) => {
    const at = `fields[${index}]`;
    const path =
      typeof item === 'string' ? item : Array.isArray(item) && item.length > 0 && item.every((k) => typeof k === 'string') ? item.join('.') : undefined;
    if (path === undefined) {
      issues.add(at, 'type', `each field is a dot path string or a non-empty array of keys, not ${describe(item)}`);
      return;
    }
    const parsed = parsePath(path);
    if ('problem' in parsed) issues.add(at, 'invalid_field', parsed.problem);
    else if (!isSearchablePath(path, allowed)) issues.add(at, 'unknown_field', `unknown field '${path}'; fields: ${allowed.join(', ')}`);
    else paths.push(path);
  });
  return paths.length > 0 ? paths : undefined;
}

function validateSemantic(value: unknown, entity: EntityDefinition, issues: Issues): SemanticParams | undefined {
  if (!isObject(value)) {
    issues.add('semantic', 'type', `semantic is an object {field, prompt, filter?, context_size?, min_similarity?, dedup?}, not ${describe(value)}`);
    return undefined;
  }
  const fields = entity.search.semantic;
  if (fields.length === 0) {
    issues.add('semantic', 'unsupported', `${entity.name} has no semantically searchable fields: use query (filter search)`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (key === 'sort') issues.add('semantic.sort', 'unsupported', 'sort is not supported in semantic search: results are ranked by similarity');
    else if (!SEMANTIC_KEYS.includes(key))
      issues.add(`semantic.${key}`, 'unknown', `${key} is not a semantic search parameter; parameters: ${SEMANTIC_KEYS.join(', ')}`);
  }
  const field = fields.find((s) => s.field === value.field);
  if (value.field === undefined)
    issues.add('semantic.field', 'required', `semantic.field is required; semantic fields: ${fields.map((s) => s.field).join(', ')}`);
  else if (!field) {
    issues.add(
      'semantic.field',
      'enum',
      `unknown semantic field ${JSON.stringify(value.field)}; semantic fields: ${fields.map((s) => s.field).join(', ')}`,
      fields.map((s) => s.field),
    );
  }
  const prompt = value.prompt;
  if (typeof prompt !== 'string' || prompt.trim() === '')
    issues.add('semantic.prompt', prompt === undefined ? 'required' : 'type', 'semantic.prompt is a non-empty string');
  else if (prompt.length > MAX_PROMPT_LENGTH)
    issues.add('semantic.prompt', 'maxLength', `semantic.prompt is at most ${MAX_PROMPT_LENGTH} characters`, MAX_PROMPT_LENGTH);
  const contextSize = value.context_size;
  if (contextSize !== undefined && field) {
    if (typeof contextSize !== 'number' || !Number.isInteger(contextSize) || contextSize < 1 || contextSize > field.context_window) {
      issues.add(
        'semantic.context_size',
        'range',
        `semantic.context_size is an integer from 1 to ${field.context_window} (the context window of ${field.field}), not ${JSON.stringify(contextSize)}`,
        field.context_window,
      );
    }
  }
  const minSimilarity = value.min_similarity ?? SEMANTIC_MIN_SIMILARITY_DEFAULT;
  if (typeof minSimilarity !== 'number' || !Number.isFinite(minSimilarity) || minSimilarity < -1 || minSimilarity > 1) {
    issues.add(
      'semantic.min_similarity',
      'range',
      `semantic.min_similarity is a number from -1.0 to 1.0 (-1.0 disables the cutoff), not ${JSON.stringify(minSimilarity)}`,
      [-1, 1],
    );
  }
  const dedup = value.dedup ?? 'max';
  if (dedup !== 'max' && dedup !== 'none')
    issues.add('semantic.dedup', 'enum', `semantic.dedup is "max" or "none", not ${JSON.stringify(dedup)}`, ['max', 'none']);
  // validated here; compiled by the semantic search, once the typos of its fuzzy words are looked up
  if (value.filter !== undefined && value.filter !== null) compileFilterInto(value.filter, entity, 'r', 'semantic.filter', issues.list, exactWords);
  if (!field || typeof prompt !== 'string' || typeof minSimilarity !== 'number' || (dedup !== 'max' && dedup !== 'none')) return undefined;
  return {
    field: field.field,
    prompt,
    ...(value.filter !== undefined && value.filter !== null && { filter: value.filter }),
    ...(typeof contextSize === 'number' && { context_size: contextSize }),
    min_similarity: minSimilarity,
    dedup,
  };
}

/** Validates every param at once; a 400 lists each problem with where it is. */
function plan(entity: EntityDefinition, params: Record<string, unknown>): Plan {
  const issues = new Issues();
  const hasQuery = params.query !== undefined && params.query !== null;
  const hasSemantic = params.semantic !== undefined && params.semantic !== null;
  for (const key of Object.keys(params)) {
    if (PARAMS.includes(key)) continue;
    if (key === 'sort') {
      issues.add(
        'sort',
        'unknown',
        hasSemantic
          ? 'sort is not supported in semantic search: results are ranked by similarity'
          : 'sort goes inside query: {"query": {"sort": [{"field": "asc"}]}}',
      );
    } else if (key === 'filter') {
      issues.add('filter', 'unknown', 'filter goes inside query (filter search) or semantic (semantic search): {"query": {"filter": {...}}}');
    } else {
      issues.add(key, 'unknown', `${key} is not a parameter of ${CONTEXT_STORE_SEARCH}; parameters: ${PARAMS.join(', ')}`);
    }
  }
  if (hasQuery && hasSemantic) {
    issues.add('semantic', 'mutually_exclusive', 'semantic and query cannot be combined: give query for filter search or semantic for semantic search');
  } else if (!hasQuery && !hasSemantic) {
    issues.add(
      'query',
      'required',
      `${CONTEXT_STORE_SEARCH} needs query (filter search, e.g. {"query": {"filter": {"eq": {"status": "open"}}}}) or semantic (semantic search)`,
    );
  }
  const semanticMode = hasSemantic && !hasQuery;
  const limit = semanticMode
    ? validateLimit(params.limit, SEMANTIC_LIMIT_MAX, SEMANTIC_LIMIT_DEFAULT, issues)
    : validateLimit(params.limit, FILTER_LIMIT_MAX, FILTER_LIMIT_DEFAULT, issues);
  const cursor = validateCursor(params.cursor, issues);
  const fields = validateFields(params.fields, entity, issues);
  let result: Plan | undefined;
  if (semanticMode) {
    const semantic = validateSemantic(params.semantic, entity, issues);
    if (semantic) result = { mode: 'semantic', semantic, limit, ...(cursor !== undefined && { cursor }), ...(fields && { fields }) };
  } else if (hasQuery) {
    const query = params.query;
    if (!isObject(query)) {
      issues.add('query', 'type', `query is an object {filter?, sort?}, not ${describe(query)}`);
    } else {
      for (const key of Object.keys(query)) {
        if (!QUERY_KEYS.includes(key))
          issues.add(`query.${key}`, 'unknown', `${key} is not part of query; query holds filter and sort (limit, cursor and fields are params beside query)`);
      }
      // compiled without typos here; filterSearch adds those of its fuzzy words (withTypos)
      const noting = notingWords();
      const condition =
        query.filter === undefined || query.filter === null
          ? sql<boolean>`true`
          : compileFilterInto(query.filter, entity, 'r', 'query.filter', issues.list, noting.typos);
      const sort = parseSort(query.sort, entity, 'query.sort', issues.list);
      result = {
        mode: 'query',
        filter: { condition, fuzzyWords: noting.words },
        rawFilter: query.filter ?? null,
        sort,
        limit,
        ...(cursor !== undefined && { cursor }),
        ...(fields && { fields }),
      };
    }
  }
  if (issues.list.length > 0 || !result) {
    throw new ValidationError(
      `Invalid params for ${entity.name}.${CONTEXT_STORE_SEARCH}: ${issues.list.map((issue) => issue.message).join('; ')}.`,
      issues.list,
    );
  }
  return result;
}

/**
 * Search needs a complete sync of the entity: never synchronized, first sync still running or failed,
 * or an entity the sync cannot read, is a clear 400 (never an empty list).
 */
async function assertSearchable(ctx: ServiceContext, scope: SearchScope): Promise<{ records: number }> {
  const readiness = await entityReadiness(ctx.store.db, scope.connectorId, scope.entity.name);
  if (readiness.ready_for_search) return { records: readiness.record_count };
  const actions = Object.keys(scope.entity.actions).join(', ');
  const reason = readiness.reason ?? `${scope.entity.name} has not been synchronized yet.`;
  const message =
    `${CONTEXT_STORE_SEARCH} searches the copy of ${scope.displayName} data that Switchyard synchronizes into its context store, ` +
    `and ${scope.entity.name} of this connector is not ready (${readiness.status}): ${reason.replace(/\.?$/, '.')} Use the native actions (${actions}) meanwhile.`;
  throw new BadRequestError(message, 'context_store_not_ready', [{ field: 'entity', rule: 'context_store_not_ready', message }]);
}

/** The condition "a live record of the scope's connector and entity" on context_records aliased r. */
function liveRecords(scope: RecordScope): RawBuilder<boolean> {
  return sql<boolean>`r.organization_id = ${scope.organizationId} AND r.connector_id = ${scope.connectorId} AND r.entity = ${scope.entity} AND r.deleted_at IS NULL`;
}

/**
 * One query of a filter search: the live records of a connector's entity matching the filter, after
 * the cursor's row, in one phase of the sort (exported so tests can EXPLAIN what runs).
 */
export function recordsQuery(
  scope: RecordScope,
  filter: RawBuilder<boolean>,
  after: RawBuilder<boolean>,
  order: SortPlan,
  phase: SortPhase,
  limit: number,
): RawBuilder<RecordRow> {
  return sql<RecordRow>`
    SELECT r.record_id, r.data${order.select}
    FROM context_records AS r
    WHERE ${liveRecords(scope)} AND ${filter} AND ${after} AND ${phase.where}
    ORDER BY ${phase.orderBy}
    LIMIT ${limit}`;
}

export interface RecordRow {
  record_id: string;
  data: Record<string, unknown>;
  [key: `_k${number}`]: string | null;
}

/**
 * How an unsorted search reads: first a window of records in record order, `perResult` per record of the
 * page it asks for, between `min` and `max` (a filter that one record in `perResult` matches fills its
 * page from it). Its hits measure how common the matches are; a second window reads on in order when the
 * rest of the page is expected within `orderedMax` records and within `indexCost` records per match the
 * filter's indexes would fetch (a match found through an index is a random heap page, then sorted; a
 * record read in order is the next one of the primary key). Otherwise the filter's indexes find the rest.
 *
 * `read` is how the windows after the first read their records. The first always evaluates the filter on
 * every record of the window, read through the primary key (windowQuery): a few hundred records cost less
 * than a pass over the index's candidates, which rare matches would pay again after it. `ordered` reads
 * the second window the same way; `indexed` runs the plain query on the records of the second window only
 * (its last record found first through the primary key, windowEndQuery), so the filter's indexes find the
 * candidates inside it and only those are rechecked. `filters` says which filters read windows first.
 */
export interface WindowSettings {
  read: 'ordered' | 'indexed';
  filters: (filter: unknown) => boolean;
  perResult: number;
  min: number;
  max: number;
  orderedMax: number;
  indexCost: number;
  /**
   * After the windows of an unsorted search, its matches are fetched whole through the filter's indexes
   * and sorted when there are at most `fetchMax` of them (the windows found them rare); more, and the
   * plain query runs instead, as the planner chooses (it may read on in record order, trusting a guessed
   * estimate of many matches: a rare keyword read 100 000 records in order so). Without `fetchMax`, the
   * plain query runs after the windows.
   */
  fetchMax?: number;
  /**
   * sortedRows' `indexCost`: records read along a sort index per match the filter's indexes would fetch.
   * Lower than along the primary key: each record is a heap fetch through the index in the sort's order,
   * its sort keys computed and its ties sorted. Measured at 1M records on PostgreSQL, every page in shared
   * buffers: 20 000 records read so in 32-34 ms, the 5000 matches of an eq fetched through the GIN index
   * and sorted in 15-19 ms (a record read in order costs half a match). Without it, a sorted search
   * runs the plain query phase by phase.
   */
  sortedIndexCost?: number;
}

/**
 * The windows of each store. On PostgreSQL a page an index finds is often outside shared buffers (a read,
 * then the matches are sorted), so reading in order pays off early, for every filter whose estimate is a
 * guess. The embedded store holds its pages in memory or a local file, where a misestimated plan costs
 * little (an index fetch is little more than the next record in order, the reasoning of its
 * random_page_cost of 1.1), except for `fuzzy`: PGlite is single-threaded WASM, and two misspelled common
 * words are held by thousands of records, each fetched through the trigram index and its regular expression
 * rechecked before the page is sorted out of them. So a fuzzy search there reads a second window through the
 * indexes: only the candidates among the records it needs are rechecked. A record of such a window costs a
 * step of the primary key, far less than a recheck, hence its larger `indexCost`. Measured at 100k records
 * (bench/filter-search.ts, one run each, one after the other), fuzzy p50 / p95 14 / 16 ms with the windows,
 * 20 / 58 without. (With pg_trgm's word similarity, before migration 16, the index also had several times
 * more candidates than matches: 14 286 for the 1905 of "broen brokn".) Other filters are left to the planner
 * there: measured on 100k records, windows only added their own cost.
 */
export const WINDOW: Partial<Record<StoreKind, WindowSettings>> = {
  postgres: {
    read: 'ordered',
    filters: guessedSelectivity,
    perResult: 5,
    min: 500,
    max: 5000,
    orderedMax: 50_000,
    indexCost: 8,
    fetchMax: 10_000,
    sortedIndexCost: 2,
  },
  pglite: { read: 'indexed', filters: usesFuzzy, perResult: 5, min: 500, max: 5000, orderedMax: 20_000, indexCost: 16 },
};

/** Whether one of `operators` appears anywhere in the filter (through and, or, not and any). */
function filterUses(filter: unknown, operators: readonly string[]): boolean {
  if (filter === null || typeof filter !== 'object') return false;
  if (Array.isArray(filter)) return filter.some((item) => filterUses(item, operators));
  return Object.entries(filter).some(([operator, operand]) => {
    if (operators.includes(operator)) return true;
    if (operator === 'and' || operator === 'or' || operator === 'not') return filterUses(operand, operators);
    if (operator === 'any' && operand !== null && typeof operand === 'object') return Object.values(operand).some((nested) => filterUses(nested, operators));
    return false;
  });
}

/**
 * Whether the planner's estimate of a filter is a guess: `fuzzy` (a regular expression of the words and their
 * typos, estimated as `keyword`'s below),
 * the containment operators (`eq`, `in`, `array_contains`: `data @> ...`, estimated from a sample of
 * whole records) and `keyword` (a regular expression, estimated by the share of the field's histogram
 * it matches: a hundred values, so a word held by 0.1% of the records counts as 1% when one of them
 * holds it, and as nearly none otherwise), anywhere in the filter. Other filters are estimated from the
 * statistics of their index expressions (the day and trigram indexes), and an unsorted search leaves them
 * to the planner.
 */
export function guessedSelectivity(filter: unknown): boolean {
  return filterUses(filter, ['fuzzy', 'eq', 'in', 'array_contains', 'keyword']);
}

/** Whether the filter uses `fuzzy` anywhere. */
export function usesFuzzy(filter: unknown): boolean {
  return filterUses(filter, ['fuzzy']);
}

/** The sort of a search without `sort`: record order, one phase. */
const RECORD_ORDER = sortPlan([], 'r');

/** recordsQuery in record order (the order of a search without `sort`). */
function recordOrderQuery(scope: RecordScope, filter: RawBuilder<boolean>, after: RawBuilder<boolean>, limit: number): RawBuilder<RecordRow> {
  return recordsQuery(scope, filter, after, RECORD_ORDER, RECORD_ORDER.phases()[0] as SortPhase, limit);
}

/**
 * One pass of an unsorted search over a window: the first `size` live records of the entity after the
 * cursor's row, in record order, those matching the filter (`hit`) and the window's last record (its
 * `position` is `size`, whether it matches or not), at most `limit` rows, read in record order and stopped
 * as soon as there are `limit`. So `limit` hits are the first `limit` matches after the cursor, exactly as
 * the plain query finds them; fewer hits and no row at `position` `size` mean the entity ended inside the
 * window (the hits are all the matches); fewer hits and the window's last record mean the search goes on
 * after it. Written so the filter is no index condition: the record-order index (the primary key) is read
 * from the cursor, whatever the planner estimates of the filter (exported so tests can EXPLAIN it).
 */
export function windowQuery(scope: RecordScope, filter: RawBuilder<boolean>, after: RawBuilder<boolean>, size: number, limit: number): RawBuilder<WindowRow> {
  return sql<WindowRow>`
    SELECT w.record_id, w.data, w.hit, w.position
    FROM (
      SELECT r.record_id, r.data, (CASE WHEN ${filter} THEN true ELSE false END) AS hit, row_number() OVER (ORDER BY r.record_id) AS position
      FROM context_records AS r
      WHERE ${liveRecords(scope)} AND ${after}
      ORDER BY r.record_id
      LIMIT ${size}
    ) AS w
    WHERE w.hit OR w.position = ${size}
    ORDER BY w.record_id
    LIMIT ${limit}`;
}

interface WindowRow extends RecordRow {
  hit: boolean;
  position: string | number;
}

/**
 * The last record of an indexed window: the id of the `size`th live record of the entity after the
 * cursor's row, in record order (the primary key), none when the entity ends before it (exported so tests
 * can EXPLAIN it).
 */
export function windowEndQuery(scope: RecordScope, after: RawBuilder<boolean>, size: number): RawBuilder<{ record_id: string }> {
  return sql<{ record_id: string }>`
    SELECT r.record_id
    FROM context_records AS r
    WHERE ${liveRecords(scope)} AND ${after}
    ORDER BY r.record_id
    OFFSET ${size - 1}
    LIMIT 1`;
}

/** The rows of a window query split into its matches (in order) and its last record, none when the records ended inside the window. */
function windowHits(rows: WindowRow[], size: number): { hits: RecordRow[]; end: WindowRow | undefined } {
  const hits: RecordRow[] = [];
  for (const { hit, position: _position, ...row } of rows) if (hit) hits.push(row);
  return { hits, end: rows.find((row) => Number(row.position) === size) };
}

/** The size of a search's first window: `perResult` records per result asked for, between `min` and `max`. */
function firstWindowSize(window: WindowSettings, limit: number): number {
  return Math.min(window.max, Math.max(window.min, window.perResult * limit));
}

/**
 * The size of the second window, or none when the rest should be found through the filter's indexes:
 * the share of the `read` records that matched (`found` of them) expects the `wanted` rest of the page
 * within `expected` more records in order, and the indexes would fetch about `matches` records (of the
 * entity's `records`, as its last sync counted them); read on in order when that is within `orderedMax`
 * records and within `indexCost` records per match.
 */
function secondWindowSize(
  window: WindowSettings,
  indexCost: number,
  progress: { read: number; found: number; wanted: number; records: number },
): number | undefined {
  const share = progress.found / progress.read;
  const expected = progress.wanted / share;
  const matches = share * Math.max(0, progress.records - progress.read);
  if (expected > window.orderedMax || expected > indexCost * matches) return undefined;
  return Math.min(window.orderedMax, Math.max(window.min, Math.ceil(expected * 1.5)));
}

/**
 * One window of `size` records after `from`, read in order or through the filter's indexes (WindowSettings):
 * its first `limit` matches in record order, and its last record's id (none when the entity ends inside
 * the window: the matches are then all there are). Exported for tests.
 */
export async function readWindow(
  db: ServiceContext['store']['db'],
  scope: RecordScope,
  filter: RawBuilder<boolean>,
  from: RawBuilder<boolean>,
  size: number,
  limit: number,
  indexed: boolean,
): Promise<{ hits: RecordRow[]; end: string | undefined }> {
  if (indexed) {
    // The plain query over the window's records: the same first matches in record order, found by the
    // filter's indexes among the window's records only.
    const end = (await windowEndQuery(scope, from, size).execute(db)).rows[0]?.record_id;
    const within = end === undefined ? from : sql<boolean>`(${from} AND r.record_id <= ${end})`;
    const result = await recordOrderQuery(scope, filter, within, limit).execute(db);
    return { hits: result.rows, end };
  }
  const { hits, end } = windowHits((await windowQuery(scope, filter, from, size, limit).execute(db)).rows, size);
  return { hits, end: end?.record_id };
}

/**
 * What unsortedRows read: windows in record order (size, hits), then perhaps every match after them
 * through the filter's indexes (`fetch`: rows returned, matches fetched), or the plain query (rows).
 */
export type UnsortedPass = { kind: 'window'; size: number; hits: number } | { kind: 'fetch'; rows: number; matches: number } | { kind: 'index'; rows: number };

/**
 * Every live record after `after` matching the filter, at most `max + 1` of them, fetched as the planner
 * chooses to fetch them all (no order, no limit to stop early at: the filter's indexes), then the first
 * `limit` in record order, each with the number fetched (`total`; above `max`, the matches were cut).
 */
export function fetchQuery(
  scope: RecordScope,
  filter: RawBuilder<boolean>,
  after: RawBuilder<boolean>,
  max: number,
  limit: number,
): RawBuilder<RecordRow & { total: string | number }> {
  // The fetched matches are held as ids only (thousands of whole records would spill work_mem); the
  // page's records are read again by primary key.
  return sql<RecordRow & { total: string | number }>`
    WITH m AS MATERIALIZED (
      SELECT r.record_id
      FROM context_records AS r
      WHERE ${liveRecords(scope)} AND ${filter} AND ${after}
      LIMIT ${max + 1}
    ), page AS (
      SELECT m.record_id FROM m ORDER BY m.record_id LIMIT ${limit}
    )
    SELECT r.record_id, r.data, (SELECT count(*) FROM m) AS total
    FROM page JOIN context_records AS r
      ON r.connector_id = ${scope.connectorId} AND r.entity = ${scope.entity} AND r.record_id = page.record_id
    ORDER BY r.record_id`;
}

/**
 * The first `limit` matches of an unsorted search (record order), the same rows as recordsQuery, found
 * without trusting the planner's estimate of the filter (see guessedSelectivity and WINDOW): it may sort thousands of
 * matches it takes for a hundred, or read a million records in order for matches it takes as common.
 * Windows as WindowSettings describes, then the plain query after them; `records` is the entity's record
 * count (its last sync's), for the number of matches the indexes would fetch.
 */
export async function unsortedRows(
  db: ServiceContext['store']['db'],
  scope: RecordScope,
  filter: RawBuilder<boolean>,
  after: RawBuilder<boolean>,
  limit: number,
  options: { records: number; window: WindowSettings },
): Promise<{ rows: RecordRow[]; passes: UnsortedPass[] }> {
  const window = options.window;
  const rows: RecordRow[] = [];
  const passes: UnsortedPass[] = [];
  let from = after;
  let read = 0;
  let size: number | undefined = firstWindowSize(window, limit);
  while (size !== undefined) {
    const indexed = window.read === 'indexed' && passes.length > 0;
    const { hits, end } = await readWindow(db, scope, filter, from, size, limit - rows.length, indexed);
    rows.push(...hits);
    passes.push({ kind: 'window', size, hits: hits.length });
    if (rows.length >= limit || end === undefined) return { rows, passes };
    read += size;
    from = sql<boolean>`(${after} AND r.record_id > ${end})`;
    if (passes.length > 1 || rows.length === 0) break;
    size = secondWindowSize(window, window.indexCost, { read, found: rows.length, wanted: limit - rows.length, records: options.records });
  }
  if (window.fetchMax !== undefined) {
    const fetched = await fetchQuery(scope, filter, from, window.fetchMax, limit - rows.length).execute(db);
    const matches = Number(fetched.rows[0]?.total ?? 0);
    if (matches <= window.fetchMax) {
      passes.push({ kind: 'fetch', rows: fetched.rows.length, matches });
      return { rows: [...rows, ...fetched.rows.map(({ total: _total, ...row }) => row)], passes };
    }
  }
  const rest = await recordOrderQuery(scope, filter, from, limit - rows.length).execute(db);
  passes.push({ kind: 'index', rows: rest.rows.length });
  return { rows: [...rows, ...rest.rows], passes };
}

/**
 * One window of a sorted search: the first `size` live records after `after` in one phase of the sort
 * (read in the phase's order: its sort index), those matching the filter (`hit`) and the window's last
 * record (its `position` is `size`), in that order, at most `limit` rows. As windowQuery, but the filter
 * is evaluated on records the sort index reads in order (exported so tests can EXPLAIN it).
 */
export function sortedWindowQuery(
  scope: RecordScope,
  filter: RawBuilder<boolean>,
  after: RawBuilder<boolean>,
  order: SortPlan,
  phase: SortPhase,
  size: number,
  limit: number,
): RawBuilder<WindowRow> {
  return sql<WindowRow>`
    SELECT w.*
    FROM (
      SELECT r.record_id, r.data${order.select}, (CASE WHEN ${filter} THEN true ELSE false END) AS hit,
        row_number() OVER (ORDER BY ${phase.orderBy}) AS position
      FROM context_records AS r
      WHERE ${liveRecords(scope)} AND ${after} AND ${phase.where}
      ORDER BY ${phase.orderBy}
      LIMIT ${size}
    ) AS w
    WHERE w.hit OR w.position = ${size}
    ORDER BY w.position
    LIMIT ${limit}`;
}

/** What sortedRows read: windows along the sort index (phase: of those read from the cursor; size, hits), then perhaps one query in the whole order (rows). */
export type SortedPass = { kind: 'window'; phase: number; size: number; hits: number } | { kind: 'index'; rows: number };

/**
 * The first `limit` matches of a search sorted by a field with a sort index, after the cursor (its key
 * values `keys` and `after`), the same rows in the same order as the phases of recordsQuery, for a filter
 * whose selectivity the planner guesses (see guessedSelectivity). Read in windows along the sort index,
 * phase after phase, as unsortedRows reads along the primary key (the same WindowSettings): a first
 * window; a second one when its hits expect the rest of the page within `orderedMax` records and within
 * `indexCost` (the store's `sortedIndexCost`) records per match the filter's indexes would fetch. A phase ending inside a window starts
 * the next phase with a first window again. Otherwise the rest is one query in the whole order (all
 * phases at once), the filter's indexes then a sort of the matches: the phases as separate queries would
 * each fetch every match again.
 */
export async function sortedRows(
  db: ServiceContext['store']['db'],
  scope: RecordScope,
  filter: RawBuilder<boolean>,
  after: RawBuilder<boolean>,
  limit: number,
  options: { records: number; window: WindowSettings; indexCost: number; order: SortPlan; keys?: ReadonlyArray<string | null> },
): Promise<{ rows: RecordRow[]; passes: SortedPass[] }> {
  const { window, order } = options;
  const rows: RecordRow[] = [];
  const passes: SortedPass[] = [];
  const phases = order.phases(options.keys);
  const first = firstWindowSize(window, limit);
  let from = after;
  let at = 0;
  let phase = phases[0];
  let read = 0;
  let found = 0;
  let windows = 0;
  let size: number | undefined = first;
  while (phase !== undefined && size !== undefined) {
    const result = await sortedWindowQuery(scope, filter, from, order, phase, size, limit - rows.length).execute(db);
    const { hits, end } = windowHits(result.rows, size);
    rows.push(...hits);
    passes.push({ kind: 'window', phase: at, size, hits: hits.length });
    if (rows.length >= limit) return { rows, passes };
    if (end === undefined) {
      // The phase ended inside the window: the next phase, from its start (every record of it is after the cursor's).
      at += 1;
      phase = phases[at];
      read = 0;
      found = 0;
      windows = 0;
      size = first;
      continue;
    }
    const keys = Array.from({ length: order.keyCount }, (_, i) => end[`_k${i}`] ?? null);
    from = order.after(keys, end.record_id);
    phase = order.phases(keys)[0];
    read += size;
    found += hits.length;
    windows += 1;
    if (windows > 1 || found === 0) break;
    size = secondWindowSize(window, options.indexCost, { read, found, wanted: limit - rows.length, records: options.records });
  }
  if (phase === undefined) return { rows, passes };
  const rest = await recordsQuery(scope, filter, from, order, order.whole, limit - rows.length).execute(db);
  passes.push({ kind: 'index', rows: rest.rows.length });
  return { rows: [...rows, ...rest.rows], passes };
}

async function filterSearch(
  ctx: ServiceContext,
  scope: SearchScope,
  search: Extract<Plan, { mode: 'query' }>,
  records: number,
): Promise<{ data: Array<Record<string, unknown>>; has_more: boolean; cursor: string | null }> {
  const order = sortPlan(search.sort, 'r');
  const fingerprint = searchFingerprint({ c: scope.connectorId, e: scope.entity.name, m: 'query', filter: search.rawFilter, sort: search.sort });
  const filter = await withTypos(ctx.store.db, scope, search.rawFilter, search.filter, 'query.filter');
  let after: RawBuilder<boolean> = sql<boolean>`true`;
  let cursorKeys: Array<string | null> | undefined;
  if (search.cursor !== undefined) {
    const payload = openCursor(ctx.keyring, search.cursor, fingerprint);
    const keys = payload.k;
    const id = payload.id;
    if (!Array.isArray(keys) || keys.length !== order.keyCount || !keys.every((k) => k === null || typeof k === 'string') || typeof id !== 'string') {
      throw new BadRequestError('cursor is not a cursor this service issued.', 'invalid_cursor', [
        { field: 'cursor', rule: 'invalid_cursor', message: 'cursor is not a cursor this service issued.' },
      ]);
    }
    cursorKeys = keys as Array<string | null>;
    after = order.after(cursorKeys, id);
  }
  const rows: RecordRow[] = [];
  const where = { ...scope, entity: scope.entity.name };
  const window = WINDOW[ctx.store.kind];
  if (window && order.keyCount === 0 && window.filters(search.rawFilter)) {
    rows.push(...(await unsortedRows(ctx.store.db, where, filter, after, search.limit + 1, { records, window })).rows);
  } else if (window?.sortedIndexCost !== undefined && order.indexed && window.filters(search.rawFilter)) {
    const options = { records, window, indexCost: window.sortedIndexCost, order, ...(cursorKeys !== undefined && { keys: cursorKeys }) };
    rows.push(...(await sortedRows(ctx.store.db, where, filter, after, search.limit + 1, options)).rows);
  } else {
    for (const phase of order.phases(cursorKeys)) {
      const result = await recordsQuery(where, filter, after, order, phase, search.limit + 1 - rows.length).execute(ctx.store.db);
      rows.push(...result.rows);
      if (rows.length > search.limit) break;
    }
  }
  const hasMore = rows.length > search.limit;
  const page = hasMore ? rows.slice(0, search.limit) : rows;
  const last = page[page.length - 1];
  const cursor =
    hasMore && last
      ? signCursor(ctx.keyring, { v: 1, f: fingerprint, k: Array.from({ length: order.keyCount }, (_, i) => last[`_k${i}`] ?? null), id: last.record_id })
      : null;
  const fields = search.fields ?? scope.entity.search.fields;
  const data = page.map((row) => projectFields(typeof row.data === 'string' ? (JSON.parse(row.data) as Record<string, unknown>) : row.data, fields));
  return { data, has_more: hasMore, cursor };
}

/** Whole milliseconds, rounded up (clients type took_ms as an integer; a search is never 0 ms). */
function elapsed(started: number): number {
  return Math.max(1, Math.ceil(performance.now() - started));
}

/** Runs context_store_search for a connector the caller's organization owns. */
export async function contextStoreSearch(ctx: ServiceContext, scope: SearchScope, params: Record<string, unknown>): Promise<SearchResult> {
  const started = performance.now();
  const search = plan(scope.entity, params);
  const { records } = await assertSearchable(ctx, scope);
  if (search.mode === 'semantic') {
    const found = await semanticSearch(
      ctx,
      { organizationId: scope.organizationId, connectorId: scope.connectorId, entity: scope.entity, connectorType: scope.connectorType },
      search.semantic,
      { limit: search.limit, ...(search.cursor !== undefined && { cursor: search.cursor }), ...(search.fields && { fields: search.fields }) },
    );
    return { mode: 'semantic', data: found.data, meta: { has_more: found.meta.has_more, cursor: found.meta.cursor, took_ms: elapsed(started) } };
  }
  await ctx.statistics.ensure('context_records').catch(() => undefined);
  const found = await filterSearch(ctx, scope, search, records);
  return { mode: 'query', data: found.data, meta: { has_more: found.has_more, cursor: found.cursor, took_ms: elapsed(started) } };
}
