/**
 * The filter compiler on its own: the SQL it writes (index-friendly forms), the located errors it
 * throws, the instant parsing shared by JS (comparison values) and SQL (stored values), projection,
 * and cursors. Query semantics end to end are in test/service/context-search.test.ts.
 */
import { randomBytes } from 'node:crypto';
import { Kysely, PostgresDialect, sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules, ValidationError, type EntityDefinition } from '../../runtime/index.js';
import { openCursor, searchFingerprint, signCursor } from '../../src/context/cursor.js';
import { compileFilter, projectFields } from '../../src/context/filter/index.js';
import { isoInstantSeconds } from '../../src/context/filter/values.js';
import type { Store } from '../../src/db/database.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { BadRequestError } from '../../src/errors.js';
import { Keyring } from '../../src/security/keyring.js';
import { openMemoryStore } from '../support/store.js';
import { exactWords } from '../../src/context/typos.js';

const issues = connectorModules.linear!.definition.entities.issues as EntityDefinition;
const conversations = connectorModules.intercom!.definition.entities.conversations as EntityDefinition;

/** Compiles without a database (the dialect is only used to write SQL). */
const offline = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: {} as never }) });

function compiled(condition: RawBuilder<boolean>): { sql: string; parameters: readonly unknown[] } {
  const query = sql`SELECT 1 FROM context_records AS r WHERE ${condition}`.compile(offline);
  return { sql: query.sql, parameters: query.parameters };
}

function thrown(run: () => unknown): ValidationError {
  try {
    run();
  } catch (error) {
    if (error instanceof ValidationError) return error;
    throw error;
  }
  throw new Error('expected a ValidationError');
}

describe('compileFilter', () => {
  it('writes eq as containment on the record (served by the GIN index) and ranges on text timestamps in the indexed day form', () => {
    const eq = compiled(compileFilter({ eq: { 'state.name': 'Todo' } }, issues, 'r', { typos: exactWords }));
    expect(eq.sql).toBe('SELECT 1 FROM context_records AS r WHERE "r"."data" @> $1::jsonb');
    expect(eq.parameters).toEqual(['{"state":{"name":"Todo"}}']);
    const range = compiled(compileFilter({ gte: { createdAt: '2024-02-01T00:00:00+02:00' } }, issues, 'r', { typos: exactWords }));
    expect(range.sql).toContain(`"r"."data" ? 'createdAt'`);
    expect(range.sql).toContain(`left(("r"."data" ->> 'createdAt'), 10) >= $1`);
    // UTC timestamps to the second compare as text; the others are parsed (switchyard_instant)
    expect(range.sql).toContain(
      `(CASE WHEN ("r"."data" ->> 'createdAt') ~ $2 AND left(("r"."data" ->> 'createdAt'), 19) COLLATE "C" <> $3 THEN left(("r"."data" ->> 'createdAt'), 19) COLLATE "C" > $4 ELSE (switchyard_instant(("r"."data" ->> 'createdAt')) >= $5::numeric) END)`,
    );
    // the day bound is the UTC date of the instant minus a day (offsets shift a local date by less than that)
    expect(range.parameters).toEqual(['2024-01-30', expect.stringMatching(/^\^/), '2024-01-31T22:00:00', '2024-01-31T22:00:00', '1706738400']);
    // a field the schema types as a number keeps Unix seconds: no text-only day condition
    const unix = compiled(compileFilter({ lt: { created_at: '2024-02-05T08:00:00Z' } }, conversations, 'r', { typos: exactWords }));
    expect(unix.sql).toContain(`NOT LIKE '____-__-__%' OR`);
    expect(unix.sql).not.toContain(`"r"."data" ? 'created_at'`);
  });

  it('compiles a lower and an upper instant bound on one field together (one check of the text per record)', () => {
    const both = compiled(
      compileFilter({ gte: { createdAt: '2024-01-01T00:00:00Z' }, lt: { createdAt: '2024-01-08T00:00:00Z' } }, issues, 'r', { typos: exactWords }),
    );
    expect(both.sql.match(/~ \$/g)).toHaveLength(1);
    expect(both.parameters).toEqual([
      '2023-12-31',
      '2024-01-09',
      expect.stringMatching(/^\^/),
      '2024-01-01T00:00:00',
      '2024-01-08T00:00:00',
      '2024-01-01T00:00:00',
      '2024-01-08T00:00:00',
      '1704067200',
      '1704672000',
    ]);
    // bounds on different fields, or not both instants, stay separate
    const apart = compiled(
      compileFilter({ gte: { createdAt: '2024-01-01T00:00:00Z' }, lt: { updatedAt: '2024-01-08T00:00:00Z', priority: 3 } }, issues, 'r', { typos: exactWords }),
    );
    expect(apart.sql.match(/~ \$/g)).toHaveLength(2);
  });

  it('combines operators and fields with AND, writes not as IS NOT TRUE, and any as EXISTS over the array', () => {
    const { sql: text } = compiled(
      compileFilter({ not: { eq: { priority: 1 } }, any: { labelIds: { eq: { $: 'bug' } } } }, issues, 'r', { typos: exactWords }),
    );
    expect(text).toContain('IS NOT TRUE');
    expect(text).toContain(`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(("r"."data" -> 'labelIds')) = 'array'`);
    expect(text).toContain(`"_any1"."value" = $`);
    expect(compiled(compileFilter({}, issues, 'r', { typos: exactWords })).sql).toBe('SELECT 1 FROM context_records AS r WHERE true');
  });

  it('writes field names as escaped literals', () => {
    const entity: EntityDefinition = {
      ...issues,
      search: { ...issues.search, fields: ["it's"] },
      record: { ...issues.record, fields: { "it's": { type: 'string' } } },
    };
    const { sql: text } = compiled(compileFilter({ startswith: { "it's": 'x' } }, entity, 'r', { typos: exactWords }));
    expect(text).toContain(`("r"."data" ->> 'it''s')`);
  });

  it('reports every problem at once, each located, under the given location', () => {
    const error = thrown(() =>
      compileFilter({ and: [{ eq: { titel: 1 } }, { nope: {} }], gt: { title: [] } }, issues, 'r', { at: 'semantic.filter', typos: exactWords }),
    );
    expect(error.issues.map((issue) => [issue.field, issue.rule])).toEqual([
      ['semantic.filter.and[0].eq', 'unknown_field'],
      ['semantic.filter.and[1]', 'unknown_operator'],
      ['semantic.filter.gt', 'invalid_value'],
    ]);
    expect(error.status).toBe(400);
    expect(error.message).toMatch(/^Invalid semantic\.filter: semantic\.filter\.and\[0\]\.eq: unknown field 'titel'; searchable fields: id, identifier, title/);
    const deep = thrown(() =>
      compileFilter(
        Array.from({ length: 40 }).reduce<unknown>((inner) => ({ not: inner }), { eq: { id: 'x' } }),
        issues,
        'r',
        { typos: exactWords },
      ),
    );
    expect(deep.issues[0]?.rule).toBe('too_deep');
  });

  it('refuses a text operator on a field the manifest declares with values it never matches, naming the field and the rule', () => {
    const refused = (filter: unknown) => thrown(() => compileFilter(filter, issues, 'r', { typos: exactWords })).issues;
    expect(refused({ fuzzy: { priority: 'urgent' } })).toEqual([
      {
        field: 'query.filter.fuzzy',
        rule: 'invalid_value',
        message: "query.filter.fuzzy: 'priority' holds number values; fuzzy matches string fields only (use eq or in)",
      },
    ]);
    expect(refused({ keyword: { state: 'started' } })[0]?.message).toBe(
      "query.filter.keyword: 'state' holds object values; keyword matches string or number fields only (use eq or in)",
    );
    expect(refused({ like: { labelIds: 'a%' } })[0]?.message).toBe(
      "query.filter.like: 'labelIds' holds array values; like matches string or number fields only (use eq or in)",
    );
    // a number field's text is matched by the operators that read numbers as text, and a string field by all
    expect(() => compileFilter({ keyword: { priority: '2' }, startswith: { estimate: '3' } }, issues, 'r', { typos: exactWords })).not.toThrow();
    expect(() => compileFilter({ fuzzy: { title: 'login page' }, like: { url: '%linear%' } }, issues, 'r', { typos: exactWords })).not.toThrow();
    expect(refused({ any: { title: { eq: { $: 'x' } } } })[0]?.message).toBe(
      "query.filter.any: 'title' is not an array field; any applies to arrays (filter the field itself instead)",
    );
    expect(() => compileFilter({ any: { labelIds: { eq: { $: 'x' } } } }, issues, 'r', { typos: exactWords })).not.toThrow();
    // nested paths have no declared type: they are matched as found
    expect(() => compileFilter({ fuzzy: { 'state.name': 'started' } }, issues, 'r', { typos: exactWords })).not.toThrow();
  });

  it('bounds what a filter asks of the database: comparisons in all, and the depth and text of a value compared whole', () => {
    const compile = (filter: unknown) => compileFilter(filter, issues, 'r', { typos: exactWords });
    const values = (count: number) => Array.from({ length: count }, (_, index) => `v${index}`);
    // 200 comparisons in all, wherever they are; an in of 1000 values is one
    const paths = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, index) => [`state.k${index}`, 1]));
    expect(() => compile({ eq: paths(199), in: { title: values(1000) } })).not.toThrow();
    const over = thrown(() => compile({ eq: paths(199), and: [{ eq: { title: 'a' } }, { eq: { title: 'b' } }] }));
    expect(over.issues).toEqual([
      {
        field: 'query.filter.and[1].eq',
        rule: 'too_many',
        message: 'query.filter.and[1].eq: a filter makes at most 200 comparisons in all (each field of an operator is one)',
      },
    ]);
    const branches = Array.from({ length: 10 }, () => ({ or: Array.from({ length: 100 }, (_, index) => ({ eq: { title: `t${index}` } })) }));
    expect(thrown(() => compile({ and: branches })).issues.map((issue) => issue.rule)).toEqual(['too_many']);
    // 2000 values in all the in operators of a filter (100 of 1000 overflowed a statement's parameters: a 503)
    expect(() => compile({ and: [{ in: { title: values(1000) } }, { in: { url: values(1000) } }] })).not.toThrow();
    const manyIn = thrown(() => compile({ and: Array.from({ length: 100 }, () => ({ in: { title: values(1000) } })) }));
    expect(manyIn.issues).toEqual([
      {
        field: 'query.filter.and[2].in',
        rule: 'too_many',
        message: 'query.filter.and[2].in: the in operators of a filter take at most 2000 values in all',
      },
    ]);
    // a value nested deeper than 32 levels (5000 overflowed the stack: a 500), or holding long text inside
    const deep = Array.from({ length: 5000 }).reduce<unknown>((inner) => [inner], 1);
    expect(thrown(() => compile({ eq: { state: deep } })).issues).toEqual([
      { field: 'query.filter.eq', rule: 'too_deep', message: "query.filter.eq: the value for 'state' nests deeper than 32 levels" },
    ]);
    expect(thrown(() => compile({ array_contains: { labelIds: [{ a: { b: deep } }] } })).issues[0]?.rule).toBe('too_deep');
    expect(thrown(() => compile({ eq: { state: { name: 'x'.repeat(1001) } } })).issues[0]?.message).toBe(
      "query.filter.eq: the value for 'state' holds text longer than 1000 characters",
    );
    expect(() => compile({ eq: { state: Array.from({ length: 31 }).reduce<unknown>((inner) => ({ a: inner }), 'x') } })).not.toThrow();
  });

  it('allows every top-level record field and paths under it, no other field, and any path inside any', () => {
    expect(() => compileFilter({ eq: { 'state.name': 'x' } }, issues, 'r', { typos: exactWords })).not.toThrow();
    expect(() => compileFilter({ eq: { url: 'https://linear.app/x' } }, issues, 'r', { typos: exactWords })).not.toThrow();
    expect(thrown(() => compileFilter({ eq: { stat: 'x' } }, issues, 'r', { typos: exactWords })).issues[0]?.rule).toBe('unknown_field');
    expect(() => compileFilter({ eq: { 'tags.tags.name': 'vip' } }, conversations, 'r', { typos: exactWords })).not.toThrow();
    expect(() => compileFilter({ any: { 'tags.tags': { eq: { 'anything.at.all': 1 } } } }, conversations, 'r', { typos: exactWords })).not.toThrow();
  });
});

describe('instants in JS and in SQL agree', () => {
  let store: Store;
  beforeAll(async () => {
    store = await openMemoryStore();
  });
  afterAll(async () => {
    await store?.close();
  });

  it('switchyard_instant (stored values) and isoInstantSeconds (comparison values) read the same texts the same way', async () => {
    const texts = [
      '2024-01-01',
      '2024-01-01T10:00:00Z',
      '2024-01-01t10:00:00z',
      '2024-01-01 10:00:00',
      '2024-01-01T10:00Z',
      '2024-01-01T10:00:00.123456789+02:00',
      '2024-01-01T10:00:00-0530',
      '2024-01-01T10:00:00-05',
      '2024-02-29',
      '2023-02-29',
      '2024-04-31',
      '2024-13-01',
      '2024-01-01T24:00:00Z',
      '1969-12-31T23:59:59.5Z',
      '0050-06-01',
      '9999-12-31T23:59:59Z',
      '2024-01-01T10:00:00 +02:00',
      '20240101',
      'soon',
      '2024-01-01T10:00:00.Z',
    ];
    for (const text of texts) {
      const row = await sql<{ v: string | null }>`SELECT switchyard_instant(${text})::text AS v`.execute(store.db);
      const fromSql = row.rows[0]?.v ?? null;
      const fromJs = isoInstantSeconds(text) ?? null;
      expect(fromSql === null ? null : Number(fromSql), text).toBe(fromJs === null ? null : Number(fromJs));
    }
    const keys = await sql<{ a: string; b: string; c: string | null; d: string | null }>`
      SELECT switchyard_key('12.5'::jsonb)::text AS a, switchyard_key('"-7"'::jsonb)::text AS b, switchyard_key('"abc"'::jsonb)::text AS c, switchyard_key('true'::jsonb)::text AS d`.execute(
      store.db,
    );
    expect(keys.rows[0]).toEqual({ a: '12.5', b: '-7', c: null, d: null });
  });

  it('range and eq conditions on instants decide exactly as comparing the parsed instants would, on every path (day bounds, UTC text, parsing)', async () => {
    const stored = [
      '2024-01-20T12:00:00Z',
      '2024-01-20T12:00:00.000Z',
      '2024-01-20T12:00:00.5Z',
      '2024-01-20T11:59:59.999+00:00',
      '2024-01-20T12:00:00z',
      '2024-01-20T14:00:00+02:00',
      '2024-01-19T23:30:00-12:30',
      '2024-01-21T00:30:00+13:00',
      '2024-01-20',
      '2024-01-21',
      '2024-01-20 12:00:00',
      '2024-01-31T12:00:00Z',
      '2024-02-29T00:00:00Z',
      '2024-02-30T00:00:00Z',
      '2024-01-20T25:00:00Z',
      '2024-01-20T12:00Z',
      'not a date',
      '',
    ];
    const values = [
      '2024-01-20T12:00:00Z',
      '2024-01-20T12:00:00.25Z',
      '2024-01-20T11:00:00-01:00',
      '2024-01-20',
      '2024-01-31T12:00:00.000001Z',
      '2024-02-29T00:00:00+01:00',
    ];
    const rows = sql.join(stored.map((text) => sql`(${JSON.stringify({ createdAt: text })}::jsonb)`));
    for (const value of values) {
      for (const [operator, holds] of [
        ['gt', (a: number, b: number) => a > b],
        ['gte', (a: number, b: number) => a >= b],
        ['lt', (a: number, b: number) => a < b],
        ['lte', (a: number, b: number) => a <= b],
        ['eq', (a: number, b: number) => a === b],
      ] as const) {
        const condition = compileFilter({ [operator]: { createdAt: value } }, issues, 'r', { typos: exactWords });
        const result = await sql<{ ok: boolean | null }>`SELECT (${condition}) AS ok FROM (VALUES ${rows}) AS r(data)`.execute(store.db);
        const expected = stored.map((text) => {
          const instant = isoInstantSeconds(text);
          return instant !== undefined && holds(Number(instant), Number(isoInstantSeconds(value)));
        });
        expect(
          result.rows.map((row) => row.ok === true),
          `${operator} ${value}`,
        ).toEqual(expected);
      }
      for (const [lower, upper] of [
        ['gt', 'lt'],
        ['gte', 'lte'],
        ['gte', 'lt'],
      ] as const) {
        const until = '2024-01-21T00:30:00+00:30';
        const condition = compileFilter({ [lower]: { createdAt: value }, [upper]: { createdAt: until } }, issues, 'r', { typos: exactWords });
        const result = await sql<{ ok: boolean | null }>`SELECT (${condition}) AS ok FROM (VALUES ${rows}) AS r(data)`.execute(store.db);
        const from = Number(isoInstantSeconds(value));
        const to = Number(isoInstantSeconds(until));
        const expected = stored.map((text) => {
          const instant = isoInstantSeconds(text);
          if (instant === undefined) return false;
          const at = Number(instant);
          return (lower === 'gt' ? at > from : at >= from) && (upper === 'lt' ? at < to : at <= to);
        });
        expect(
          result.rows.map((row) => row.ok === true),
          `${lower} ${value} ${upper} ${until}`,
        ).toEqual(expected);
      }
    }
  });

  it('queries can use the indexes of migrations 2 and 4 (containment, and the day of a timestamp)', async () => {
    const plan = async (condition: RawBuilder<boolean>, scoped: boolean) =>
      store.db.transaction().execute(async (trx) => {
        await sql`SET LOCAL enable_seqscan = off`.execute(trx);
        const scope = scoped ? sql`r.connector_id = '00000000-0000-0000-0000-000000000000' AND r.entity = 'issues' AND r.deleted_at IS NULL AND` : sql``;
        const rows = await sql<{ 'QUERY PLAN': string }>`EXPLAIN SELECT r.record_id FROM context_records AS r WHERE ${scope} ${condition}`.execute(trx);
        return rows.rows.map((row) => row['QUERY PLAN']).join('\n');
      });
    expect(await plan(compileFilter({ eq: { identifier: 'ENG-1' } }, issues, 'r', { typos: exactWords }), false)).toContain('context_records_data');
    expect(await plan(compileFilter({ array_contains: { labelIds: ['bug'] } }, issues, 'r', { typos: exactWords }), false)).toContain('context_records_data');
    const days = await plan(compileFilter({ gte: { createdAt: '2024-01-01' }, lt: { createdAt: '2024-01-08' } }, issues, 'r', { typos: exactWords }), true);
    expect(days).toContain('context_records_day_createdAt');
    // both day bounds in the index condition: the range reads only its own days (widened by one for offsets)
    expect(days).toContain(
      `Index Cond: ((connector_id = '00000000-0000-0000-0000-000000000000'::uuid) AND (entity = 'issues'::text) AND ("left"((data ->> 'createdAt'::text), 10) >= '2023-12-31'::text) AND ("left"((data ->> 'createdAt'::text), 10) <= '2024-01-09'::text))`,
    );
  });
});

describe('projectFields', () => {
  it('keeps the nesting of each path, walks arrays, leaves out what is missing', () => {
    const record = { id: 1, state: { id: 's', name: 'Todo' }, tags: [{ id: 1, name: 'a' }, { id: 2 }], nothing: null };
    expect(projectFields(record, ['id', 'state.name', 'tags.name', 'nothing', 'absent', 'state.absent.deeper'])).toEqual({
      id: 1,
      state: { name: 'Todo' },
      tags: [{ name: 'a' }, {}],
      nothing: null,
    });
    expect(projectFields(record, ['state', 'state.name'])).toEqual({ state: { id: 's', name: 'Todo' } });
  });
});

describe('cursors', () => {
  const keyring = new Keyring(randomBytes(32));
  const fingerprint = searchFingerprint({ c: 'conn', e: 'issues', filter: { eq: { a: 1 } } });

  it('round-trips a payload signed with the derived key, and refuses altered, foreign or misplaced cursors', () => {
    const cursor = signCursor(keyring, { v: 1, f: fingerprint, k: ['2', null], id: 'x' });
    expect(openCursor(keyring, cursor, fingerprint)).toEqual({ v: 1, f: fingerprint, k: ['2', null], id: 'x' });
    const [body, mac] = cursor.split('.') as [string, string];
    const altered = `${Buffer.from(JSON.stringify({ v: 1, f: fingerprint, k: ['3', null], id: 'x' })).toString('base64url')}.${mac}`;
    for (const bad of [altered, `${body}.${mac.slice(1)}`, 'abc', `${cursor}.`]) {
      expect(() => openCursor(keyring, bad, fingerprint)).toThrow(BadRequestError);
    }
    expect(() => openCursor(new Keyring(randomBytes(32)), cursor, fingerprint)).toThrow(/integrity/);
    expect(() => openCursor(keyring, cursor, searchFingerprint({ c: 'conn', e: 'issues', filter: { eq: { a: 2 } } }))).toThrow(/another search/);
    // equal searches written with keys in another order are the same search
    expect(searchFingerprint({ b: 1, a: { y: 2, x: 1 } })).toBe(searchFingerprint({ a: { x: 1, y: 2 }, b: 1 }));
  });
});
