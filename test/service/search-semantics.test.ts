/**
 * context_store_search against the semantics docs/api-reference.md gives (Filters, Sort and paging), written
 * here a second time in plain TypeScript: seeded random records (numbers, numeric and other strings, booleans,
 * null, missing fields, accents, underscores, arrays, instants written every allowed way) and seeded random
 * filters (every operator but fuzzy, nested in and/or/not) and sorts, each searched through the execute endpoint
 * and paged to the end with a random page size, on both stores, half of them with windows shrunk to the table
 * (smallWindows) so they take the paths of a large table. Semantic mode must keep exactly the records its
 * filter selects (every passage of the titles, by exact scan and through the HNSW index). Paging while records
 * arrive and leave between pages must return none twice and skip none present throughout, in order. A
 * difference is reported with its case number, filter, sort and page size, and the records that differ.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules, type EntityDefinition } from '../../runtime/index.js';
import { WINDOW, type WindowSettings } from '../../src/context/search.js';
import { indexRecords } from '../../src/context/semantic/indexer.js';
import { insertConnector } from '../support/connector-rows.js';
import { markSearchable, storeRecords } from '../support/context-store.js';
import { seededRandom } from '../support/seeded-random.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };
type Rec = Record<string, Json>;
type Filter = Record<string, unknown>;
type FieldType = 'string' | 'number' | 'array' | undefined;

interface SearchBody {
  result: { data: Rec[]; meta: { has_more: boolean; cursor: string | null } };
}

interface SemanticBody {
  result: { data: Array<{ entity: Rec; metadata: { record_id: string; score: number } }>; meta: { has_more: boolean; cursor: string | null } };
}

const WORDS = [
  'refund',
  'Refund',
  'REFUND',
  'invoice',
  'café',
  'Café',
  'ÉCOLE',
  'école',
  'snake_case',
  'login',
  'broken',
  'x1',
  '42',
  'Zed',
  'zed',
  'a%b',
  'c_d',
];
const NUMERIC_TEXTS = ['12', '7', '1.5', '-3', '0', '100'];
const OTHER_TEXTS = ['abc', 'Abc', 'ABC', 'b', 'Zed', 'zed', 'café', 'Café', '', 'x y'];
const LABELS = ['bug', 'Bug', 'billing', 'ui', 'UI'];
/** Instants written every way the docs allow (1707120000 is 2024-02-05T08:00:00Z in Unix seconds), and a string that is none. */
const DUE: Json[] = [
  '2024-02-05T08:00:00Z',
  '2024-02-05T10:00:00+02:00',
  '2024-02-05T03:00-0500',
  '2024-02-05',
  '2024-02-05 08:00',
  '2024-02-05T08:00:00.5Z',
  '2024-02-06T00:00:00-01',
  '2024-02-30',
  'soon',
  1707120000,
  1707091200,
];

/** The schema's types of the top-level fields used (Linear issues); nested paths are untyped. */
const TYPES: Record<string, FieldType> = { title: 'string', priority: 'number', estimate: 'number', labelIds: 'array' };

function records(random: () => number, count: number): Rec[] {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const maybe = (record: Rec, key: string, value: () => Json) => {
    const roll = random();
    if (roll < 0.1) return; // missing
    record[key] = roll < 0.15 ? null : value();
  };
  return Array.from({ length: count }, (_, index) => {
    const record: Rec = { id: `r-${String(index).padStart(4, '0')}` };
    maybe(record, 'title', () => Array.from({ length: 1 + Math.floor(random() * 3) }, () => pick(WORDS)).join(pick([' ', ', ', '-', ' / '])));
    maybe(record, 'priority', () => Math.floor(random() * 5));
    maybe(record, 'estimate', () => pick([0.5, 1, 2, 10, 2.25]));
    maybe(record, 'labelIds', () => Array.from({ length: Math.floor(random() * 3) }, () => pick(LABELS)));
    maybe(record, 'state', () => ({ name: pick(['Todo', 'todo', 'In Progress', 'Done']) }));
    maybe(record, 'project', () => {
      const project: Rec = {};
      maybe(project, 'n', () => {
        const roll = random();
        if (roll < 0.4) return pick([12, 7, 1.5, -3, 0, 100, 3.75]);
        if (roll < 0.7) return pick(NUMERIC_TEXTS);
        if (roll < 0.9) return pick(OTHER_TEXTS);
        return random() < 0.5;
      });
      maybe(project, 's', () => pick([...OTHER_TEXTS, ...WORDS]));
      maybe(project, 'due', () => pick(DUE));
      return project;
    });
    return record;
  });
}

/** The value at a dotted path; undefined when missing (JSON null counts as missing, as the docs say). */
function valueAt(record: Rec, path: string): Json | undefined {
  let value: Json | undefined = record;
  for (const segment of path.split('.')) {
    if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
    value = (value as Record<string, Json>)[segment];
  }
  return value === null ? undefined : value;
}

const NUMERIC = /^-?\d+(\.\d+)?$/;
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(Z|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** The moment (ms since the epoch) an ISO 8601 string names, as the docs define instants; undefined for any other value. */
function instant(value: Json | undefined): number | undefined {
  if (typeof value !== 'string') return undefined;
  const found = INSTANT.exec(value);
  if (!found) return undefined;
  const [, year, month, day, hour = '00', minute = '00', second = '00', fraction = '', offset = 'Z'] = found;
  const date = new Date(Date.UTC(Number(year), Number(month) - 1, Number(day)));
  if (date.getUTCFullYear() !== Number(year) || date.getUTCMonth() !== Number(month) - 1 || date.getUTCDate() !== Number(day)) return undefined;
  const sign = offset.startsWith('-') ? -1 : 1;
  const offsetDigits = offset === 'Z' ? '0000' : offset.slice(1).replace(':', '').padEnd(4, '0');
  const offsetMinutes = sign * (Number(offsetDigits.slice(0, 2)) * 60 + Number(offsetDigits.slice(2)));
  return date.getTime() + ((Number(hour) * 60 + Number(minute) - offsetMinutes) * 60 + Number(second)) * 1000 + Number(`0.${fraction || '0'}`) * 1000;
}

/** A stored value as a moment, when a filter compares it with an instant: an instant string, or a number of Unix seconds. */
function storedMoment(stored: Json | undefined): number | undefined {
  return typeof stored === 'number' ? stored * 1000 : instant(stored);
}

/** eq as the docs give it. */
function equals(stored: Json | undefined, value: Json, type: FieldType): boolean {
  if (value === null) return stored === undefined;
  if (stored === undefined) return false;
  const moment = instant(value);
  if (moment !== undefined) return storedMoment(stored) === moment;
  if (typeof value === 'number') {
    if (typeof stored === 'number') return stored === value;
    if (instant(stored) !== undefined) return instant(stored) === value * 1000;
    return typeof stored === 'string' && type !== 'number' && NUMERIC.test(stored) && Number(stored) === value;
  }
  if (typeof value === 'string') {
    if (typeof stored === 'string') return stored === value;
    return typeof stored === 'number' && type !== 'string' && NUMERIC.test(value) && Number(value) === stored;
  }
  if (typeof value === 'boolean') return stored === value;
  return JSON.stringify(stored) === JSON.stringify(value);
}

function compare(stored: Json | undefined, operator: string, value: Json): boolean {
  if (stored === undefined) return false;
  const holds = (order: number) => (operator === 'gt' ? order > 0 : operator === 'gte' ? order >= 0 : operator === 'lt' ? order < 0 : order <= 0);
  const moment = instant(value);
  if (moment !== undefined) {
    const at = storedMoment(stored);
    return at !== undefined && holds(at - moment);
  }
  const numeric = typeof value === 'number' || (typeof value === 'string' && NUMERIC.test(value));
  if (numeric) {
    const target = Number(value);
    if (typeof stored === 'number') return holds(stored - target);
    if (typeof stored === 'string' && NUMERIC.test(stored)) return holds(Number(stored) - target);
    const at = instant(stored);
    return at !== undefined && holds(at - target * 1000);
  }
  if (typeof stored !== 'string') return false;
  return holds(stored < (value as string) ? -1 : stored > (value as string) ? 1 : 0);
}

function text(stored: Json | undefined): string | undefined {
  if (typeof stored === 'string') return stored;
  if (typeof stored === 'number') return String(stored);
  return undefined;
}

function likeMatches(subject: string, pattern: string): boolean {
  let source = '';
  const lowered = pattern.toLowerCase();
  for (let index = 0; index < lowered.length; index += 1) {
    const char = lowered[index] as string;
    if (char === '\\' && index + 1 < pattern.length) {
      index += 1;
      source += (lowered[index] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    } else if (char === '%') source += '[\\s\\S]*';
    else if (char === '_') source += '[\\s\\S]';
    else source += char.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`, 'u').test(subject.toLowerCase());
}

function words(value: string): string[] {
  return value.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

/** Whether the record matches the filter, by the docs. */
function matches(record: Rec, filter: Filter): boolean {
  return Object.entries(filter).every(([operator, operand]) => {
    if (operator === 'and') return (operand as Filter[]).every((item) => matches(record, item));
    if (operator === 'or') return (operand as Filter[]).some((item) => matches(record, item));
    if (operator === 'not') return !matches(record, operand as Filter);
    if (operator === 'any') {
      return Object.entries(operand as Record<string, Filter>).every(([path, inner]) => {
        const stored = valueAt(record, path);
        return Array.isArray(stored) && stored.some((element) => matches({ $: element }, inner));
      });
    }
    return Object.entries(operand as Record<string, Json>).every(([path, value]) => {
      const stored = valueAt(record, path);
      const type = TYPES[path];
      switch (operator) {
        case 'eq':
          return equals(stored, value, type);
        case 'neq':
          return !equals(stored, value, type);
        case 'in':
          return (value as Json[]).some((item) => equals(stored, item, type));
        case 'gt':
        case 'gte':
        case 'lt':
        case 'lte':
          return compare(stored, operator, value);
        case 'startswith':
        case 'endswith':
        case 'contains': {
          if (Array.isArray(stored) && operator === 'contains') {
            return stored.some((element) =>
              typeof element === 'string' && typeof value === 'string' ? element.toLowerCase() === value.toLowerCase() : element === value,
            );
          }
          const subject = text(stored)?.toLowerCase();
          const needle = String(value).toLowerCase();
          if (subject === undefined) return false;
          return operator === 'startswith' ? subject.startsWith(needle) : operator === 'endswith' ? subject.endsWith(needle) : subject.includes(needle);
        }
        case 'like': {
          const subject = text(stored);
          return subject !== undefined && likeMatches(subject, value as string);
        }
        case 'keyword': {
          const subject = text(stored);
          if (subject === undefined) return false;
          const present = new Set(words(subject));
          return words(value as string).some((word) => present.has(word));
        }
        case 'array_contains': {
          if (!Array.isArray(stored)) return false;
          const wanted = Array.isArray(value) ? value : [value];
          return wanted.every((item) => stored.some((element) => JSON.stringify(element) === JSON.stringify(item)));
        }
        default:
          throw new Error(`no reference for ${operator}`);
      }
    });
  });
}

/** A record's sort key for one field: numbers by value, then other values by lowercased text, then missing (both directions). */
function sortKey(record: Rec, path: string): { rank: number; number?: number; text?: string } {
  const stored = valueAt(record, path);
  if (stored === undefined) return { rank: 2 };
  if (typeof stored === 'number') return { rank: 0, number: stored };
  return { rank: 1, text: (typeof stored === 'string' ? stored : JSON.stringify(stored)).toLowerCase() };
}

function codePointOrder(a: string, b: string): number {
  const left = [...a].map((char) => char.codePointAt(0) as number);
  const right = [...b].map((char) => char.codePointAt(0) as number);
  for (let index = 0; index < Math.min(left.length, right.length); index += 1) {
    if (left[index] !== right[index]) return (left[index] as number) - (right[index] as number);
  }
  return left.length - right.length;
}

function sortRecords(list: Rec[], sort: Array<Record<string, 'asc' | 'desc'>>): Rec[] {
  return [...list].sort((a, b) => {
    for (const entry of sort) {
      const [path, direction] = Object.entries(entry)[0] as [string, 'asc' | 'desc'];
      const left = sortKey(a, path);
      const right = sortKey(b, path);
      if (left.rank === 2 || right.rank === 2) {
        if (left.rank !== right.rank) return left.rank === 2 ? 1 : -1;
        continue;
      }
      // Numbers before other values in both directions; the direction orders each group.
      if (left.rank !== right.rank) return left.rank - right.rank;
      const order = left.rank === 0 ? (left.number as number) - (right.number as number) : codePointOrder(left.text as string, right.text as string);
      if (order !== 0) return direction === 'asc' ? order : -order;
    }
    return codePointOrder(String(a.id), String(b.id));
  });
}

/** How a search's ids differ from the expected ones: records missing or extra (a few of each), or the first out of order. */
function difference(data: Rec[], found: string[], expected: string[], sort: Array<Record<string, string>>): string {
  const record = (id: string | undefined) => data.find((candidate) => candidate.id === id);
  const missing = expected.filter((id) => !found.includes(id));
  const extra = found.filter((id) => !expected.includes(id));
  const counts = `${found.length} found, ${expected.length} expected`;
  if (missing.length + extra.length > 0) {
    const sample = (ids: string[]) => ids.slice(0, 3).map((id) => JSON.stringify(record(id)));
    return `${counts}; missing ${sample(missing).join(' ')}; extra ${sample(extra).join(' ')}`;
  }
  const at = found.findIndex((id, position) => id !== expected[position]);
  const keys = (id: string | undefined) =>
    `${id} ${JSON.stringify(sort.map((entry) => valueAt(record(id) ?? {}, Object.keys(entry)[0] as string) ?? 'missing'))}`;
  return `${counts}; at ${at} found ${keys(found[at])}, expected ${keys(expected[at])}, after ${keys(found[at - 1])}`;
}

/** A random filter over the seeded fields, `depth` levels of and/or/not at most. */
function randomFilter(random: () => number, depth: number): Filter {
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)] as T;
  const roll = random();
  if (depth > 0 && roll < 0.25) {
    const kind = pick(['and', 'or', 'not'] as const);
    if (kind === 'not') return { not: randomFilter(random, depth - 1) };
    return { [kind]: Array.from({ length: 1 + Math.floor(random() * 3) }, () => randomFilter(random, depth - 1)) };
  }
  const scalar = (): Json => {
    const r = random();
    if (r < 0.35) return pick([12, 7, 1.5, -3, 0, 100, 3.75, 2, 1]);
    if (r < 0.55) return pick(NUMERIC_TEXTS);
    if (r < 0.9) return pick([...OTHER_TEXTS.filter((value) => value !== ''), 'Todo', 'todo', 'Done']);
    return random() < 0.5;
  };
  const operator = pick([
    'eq',
    'neq',
    'in',
    'gt',
    'gte',
    'lt',
    'lte',
    'startswith',
    'endswith',
    'contains',
    'like',
    'keyword',
    'array_contains',
    'any',
    'instant',
  ] as const);
  switch (operator) {
    case 'instant':
      return {
        [pick(['eq', 'neq', 'gt', 'gte', 'lt', 'lte'])]: {
          'project.due': pick(['2024-02-05T08:00:00Z', '2024-02-05', '2024-02-05T09:00:00+01:00', '2024-02-05t08:00', '2024-02-06', 1707120000, 1707091200]),
        },
      };
    case 'any':
      return {
        any: { labelIds: random() < 0.5 ? { startswith: { $: pick(['bi', 'B', 'u']) } } : { eq: { $: pick(LABELS) } } },
      };
    case 'eq':
    case 'neq':
      return { [operator]: { [pick(['project.n', 'project.s', 'state.name', 'title', 'priority'])]: random() < 0.1 ? null : scalar() } };
    case 'in':
      return { in: { [pick(['project.n', 'project.s', 'state.name'])]: Array.from({ length: 1 + Math.floor(random() * 3) }, scalar) } };
    case 'gt':
    case 'gte':
    case 'lt':
    case 'lte': {
      const field = pick(['project.n', 'project.s', 'priority', 'estimate']);
      const numberOnly = TYPES[field] === 'number';
      const value = scalar();
      return { [operator]: { [field]: numberOnly ? pick([0, 1, 2.5, 3, 10]) : typeof value === 'boolean' ? 'b' : value } };
    }
    case 'startswith':
    case 'endswith':
    case 'contains':
      return {
        [operator]: {
          // an array field takes contains (an element equal to the value), not startswith or endswith (a 400)
          [pick(operator === 'contains' ? ['title', 'project.s', 'project.n', 'labelIds'] : ['title', 'project.s', 'project.n'])]: pick([
            'ref',
            'REF',
            'und',
            'é',
            'É',
            'caf',
            'CAF',
            '1',
            '2',
            'case',
            'b',
            '_',
            '%',
            'bug',
            'UI',
          ]),
        },
      };
    case 'like':
      return { like: { [pick(['title', 'project.s'])]: pick(['ref%', '%UND', '%é%', 'caf_', 'a\\%b', 'c\\_d', '_bc', '%_%', 'z%d']) } };
    case 'keyword':
      return { keyword: { title: pick(['refund', 'snake', 'case', 'snake_case', 'café', 'CAFÉ', 'ecole', 'école', 'x1', '42', 'zed broken']) } };
    case 'array_contains':
      return { array_contains: { labelIds: random() < 0.7 ? pick(LABELS) : [pick(LABELS), pick(LABELS)] } };
  }
}

/**
 * The store's window settings shrunk to this table, every filter read through windows: a search then takes
 * the paths a large table takes (a second window, the matches fetched after the windows, the plain query after
 * them, windows along a sort index), which the defaults reach only beyond thousands of records.
 */
function smallWindows(kind: 'pglite' | 'postgres'): WindowSettings {
  const base = WINDOW[kind] as WindowSettings;
  return {
    ...base,
    filters: () => true,
    perResult: 2,
    min: 10,
    max: 30,
    orderedMax: 100,
    fetchMax: 10,
    ...(base.sortedIndexCost !== undefined && { sortedIndexCost: 2 }),
  };
}

/** Runs `search` with the store's small windows when `small`, its own otherwise. */
async function withWindows<T>(kind: 'pglite' | 'postgres', small: boolean, search: () => Promise<T>): Promise<T> {
  const own = WINDOW[kind];
  if (small) WINDOW[kind] = smallWindows(kind);
  try {
    return await search();
  } finally {
    WINDOW[kind] = own;
  }
}

/** A connector whose issues are ready for search, holding `records`. */
async function searchableConnector(service: TestService, tenant: Tenant, records: Rec[]): Promise<string> {
  const connectorId = await insertConnector(service, tenant.organizationId, {
    connectorType: 'linear',
    authOption: 'API Key',
    credentials: { api_key: 'key' },
  });
  const scope = { organizationId: tenant.organizationId, connectorId, entity: 'issues' };
  await storeRecords(service.store, scope, records);
  await markSearchable(service.store, scope);
  return connectorId;
}

/** A random sort over the seeded fields (none in `unsortedShare` of the cases), one or two keys. */
function randomSort(random: () => number, unsortedShare: number): Array<Record<string, 'asc' | 'desc'>> {
  const fields = ['title', 'priority', 'project.n', 'project.s', 'estimate'];
  if (random() < unsortedShare) return [];
  return Array.from({ length: 1 + Math.floor(random() * 2) }, () => ({
    [fields[Math.floor(random() * fields.length)] as string]: random() < 0.5 ? ('asc' as const) : ('desc' as const),
  }));
}

/**
 * The ids of every page of a filter search through execute, following meta.cursor; `betweenPages` runs after
 * each page that has more after it.
 */
async function searchIds(
  tenant: Tenant,
  connectorId: string,
  query: Record<string, unknown>,
  limit: number,
  betweenPages?: (page: number) => Promise<void>,
): Promise<string[]> {
  const found: string[] = [];
  let cursor: string | null = null;
  for (let page = 0; page < 1000; page += 1) {
    const response: { status: number; body: SearchBody } = await tenant.api.post<SearchBody>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'issues',
      action: 'context_store_search',
      params: { query, limit, fields: ['id'], ...(cursor !== null && { cursor }) },
    });
    expect(response.status, JSON.stringify(response.body)).toBe(200);
    found.push(...response.body.result.data.map((record) => String(record.id)));
    cursor = response.body.result.meta.cursor;
    if (!response.body.result.meta.has_more) break;
    await betweenPages?.(page);
  }
  return found;
}

const RECORDS = 300;
const SEARCHES = 250;

describe.each(storeKinds())('context_store_search by the documented semantics, seeded random cases (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  let connectorId: string;
  const data = records(seededRandom(20261126), RECORDS);

  beforeAll(async () => {
    service = await startTestService(kind);
    tenant = await createTenant(service, 'Semantics');
    connectorId = await searchableConnector(service, tenant, data);
    const ctx = service.app.ctx;
    const issues = connectorModules.linear?.definition.entities.issues as EntityDefinition;
    await indexRecords(
      ctx,
      ctx.embeddings.provider,
      { connectorId, entity: issues },
      data.map((record) => String(record.id)),
    );
  });

  afterAll(async () => {
    await service?.close();
  });

  /** Every record a semantic search of the titles returns (all passages: min_similarity -1), following meta.cursor. */
  async function semanticAll(filter: Filter): Promise<string[]> {
    const found = new Set<string>();
    let cursor: string | null = null;
    for (let page = 0; page < 100; page += 1) {
      const response: { status: number; body: SemanticBody } = await tenant.api.post<SemanticBody>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
        entity: 'issues',
        action: 'context_store_search',
        params: {
          semantic: { field: 'title', prompt: 'refund for a broken login', filter, min_similarity: -1 },
          limit: 100,
          ...(cursor !== null && { cursor }),
        },
      });
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      for (const hit of response.body.result.data) found.add(hit.metadata.record_id);
      cursor = response.body.result.meta.cursor;
      if (!response.body.result.meta.has_more) break;
    }
    return [...found].sort();
  }

  it('semantic search keeps exactly the records its filter selects, by exact scan and through the HNSW index', { timeout: 120_000 }, async () => {
    const random = seededRandom(8);
    const vectors = service.app.ctx.vectors;
    const budget = vectors.exactScanBudgetMs;
    const differences: string[] = [];
    const titled = data.filter((record) => typeof record.title === 'string');
    const before = { ...vectors.searches };
    let selective = 0;
    try {
      for (let index = 0; index < 40; index += 1) {
        const filter = randomFilter(random, 1);
        const expected = titled
          .filter((record) => matches(record, filter))
          .map((record) => String(record.id))
          .sort();
        if (expected.length > 0 && expected.length < titled.length) selective += 1;
        for (const path of ['exact', 'index'] as const) {
          // 0 sends every search of the scope through the index (300 passages are within the exact scan's budget).
          vectors.exactScanBudgetMs = path === 'index' ? 0 : budget;
          const found = await semanticAll(filter);
          if (JSON.stringify(found) !== JSON.stringify(expected)) {
            const missing = expected.filter((id) => !found.includes(id));
            const extra = found.filter((id) => !expected.includes(id));
            differences.push(
              `#${index} ${path} ${JSON.stringify(filter)}: ${found.length} found, ${expected.length} expected; missing ${missing.slice(0, 5)}; extra ${extra.slice(0, 5)}`,
            );
          }
        }
      }
    } finally {
      vectors.exactScanBudgetMs = budget;
    }
    expect(differences).toEqual([]);
    expect(selective).toBeGreaterThan(20);
    // Both paths ran: the exact scan, and (pgvector being there) the index.
    expect(vectors.searches.exact).toBeGreaterThan(before.exact);
    if (await vectors.hasVectorSupport()) expect(vectors.searches.index).toBeGreaterThan(before.index);
  });

  it('finds the records the documented semantics select, in the documented order, page after page', { timeout: 120_000 }, async () => {
    const random = seededRandom(7);
    const differences: string[] = [];
    let selective = 0;
    for (let index = 0; index < SEARCHES; index += 1) {
      const filter = randomFilter(random, 2);
      const sort = randomSort(random, 0.5);
      const limit = 1 + Math.floor(random() * 60);
      const expected = sortRecords(
        data.filter((record) => matches(record, filter)),
        sort,
      ).map((record) => String(record.id));
      const found = await withWindows(kind, index % 2 === 1, () => searchIds(tenant, connectorId, { filter, ...(sort.length > 0 && { sort }) }, limit));
      if (found.length > 0 && found.length < RECORDS) selective += 1;
      if (JSON.stringify(found) !== JSON.stringify(expected))
        differences.push(`#${index} ${JSON.stringify({ filter, sort, limit })}: ${difference(data, found, expected, sort)}`);
    }
    expect(differences).toEqual([]);
    // Most cases select some records and leave others: the comparison is not between empty or whole lists.
    expect(selective).toBeGreaterThan(SEARCHES / 2);
  });
});

describe.each(storeKinds())('context_store_search paging while records arrive and leave, seeded random cases (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  let connectorId: string;
  /** The live records, as the store holds them, and every record ever stored (none changes once stored). */
  const live = new Map<string, Rec>();
  const known = new Map<string, Rec>();
  let created = 0;

  /** Notes records as stored (and live). */
  function note(records: Rec[]): void {
    for (const record of records) {
      live.set(String(record.id), record);
      known.set(String(record.id), record);
    }
  }

  async function insert(records: Rec[]): Promise<void> {
    await storeRecords(service.store, { organizationId: tenant.organizationId, connectorId, entity: 'issues' }, records);
    note(records);
  }

  beforeAll(async () => {
    service = await startTestService(kind);
    tenant = await createTenant(service, 'Paging');
    const initial = records(seededRandom(4242), RECORDS);
    connectorId = await searchableConnector(service, tenant, initial);
    note(initial);
  });

  afterAll(async () => {
    await service?.close();
  });

  it('returns no record twice, skips none present throughout, and keeps the documented order', { timeout: 120_000 }, async () => {
    const random = seededRandom(99);
    const problems: string[] = [];
    const stats = { paged: 0, arrived: 0, left: 0 };
    for (let index = 0; index < 40; index += 1) {
      const filter = random() < 0.3 ? {} : randomFilter(random, 1);
      const sort = randomSort(random, 0.25);
      const limit = 5 + Math.floor(random() * 30);
      const atStart = new Set([...live.values()].filter((record) => matches(record, filter)).map((record) => String(record.id)));
      const removed = new Set<string>();
      // Between pages, records arrive (with ids and sort values anywhere) and others leave.
      const churn = async (page: number) => {
        const arriving = records(seededRandom(10_000 + created), 1 + Math.floor(random() * 4)).map((record) => ({
          ...record,
          id: `r-${String(Math.floor(random() * RECORDS)).padStart(4, '0')}-n${(created += 1)}`,
        }));
        await insert(arriving);
        stats.arrived += arriving.length;
        if (page === 0) stats.paged += 1;
        const ids = [...live.keys()];
        const leaving = Array.from({ length: Math.floor(random() * 3) }, () => ids[Math.floor(random() * ids.length)] as string);
        if (leaving.length === 0) return;
        await service.store.db
          .updateTable('context_records')
          .set({ deleted_at: new Date() })
          .where('connector_id', '=', connectorId)
          .where('record_id', 'in', leaving)
          .execute();
        for (const id of leaving) {
          if (live.delete(id)) stats.left += 1;
          removed.add(id);
        }
      };
      const query = { filter, ...(sort.length > 0 && { sort }) };
      const returned = await withWindows(kind, index % 2 === 1, () => searchIds(tenant, connectorId, query, limit, churn));
      const where = `#${index} ${JSON.stringify({ filter, sort, limit })}`;
      const twice = returned.filter((id, position) => returned.indexOf(id) !== position);
      if (twice.length > 0) problems.push(`${where}: returned twice ${twice.slice(0, 5)}`);
      const skipped = [...atStart].filter((id) => !removed.has(id) && !returned.includes(id));
      if (skipped.length > 0) problems.push(`${where}: skipped ${skipped.slice(0, 5)} present throughout`);
      const unmatched = returned.filter((id) => !matches(known.get(id) as Rec, filter));
      if (unmatched.length > 0) problems.push(`${where}: returned ${unmatched.slice(0, 5)} that do not match`);
      const ordered = sortRecords(
        returned.map((id) => known.get(id) as Rec),
        sort,
      ).map((record) => String(record.id));
      if (JSON.stringify(ordered) !== JSON.stringify(returned)) problems.push(`${where}: out of order`);
    }
    expect(problems).toEqual([]);
    // Most searches took several pages, with records arriving and leaving between them.
    expect(stats.paged).toBeGreaterThan(20);
    expect(Math.min(stats.arrived, stats.left)).toBeGreaterThan(50);
  });
});
