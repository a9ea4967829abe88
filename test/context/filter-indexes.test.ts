/**
 * The indexes of filter search (migration 9) on both stores: the trigram index behind fuzzy and the
 * text operators must never change what they match (checked against the bare condition, with escapes,
 * quotes, backslashes, control characters and accents in the records), sorted searches read in phases
 * (numbers, other values, missing) must page through the same order as one full sort, unsorted searches
 * (windows read in record order, then the filter's indexes) must return the rows of the plain query page
 * after page, and EXPLAIN shows the compiled SQL and the index expressions agree (the planner can use the
 * trigram and sort indexes) and that a window reads the primary key in order.
 */
import { randomBytes } from 'node:crypto';
import { sql, type RawBuilder } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules, type EntityDefinition } from '../../runtime/index.js';
import { composeService } from '../../src/composition.js';
import { compileFilter, compileSearchFilter, parseSort, sortPlan } from '../../src/context/filter/index.js';
import {
  contextStoreSearch,
  guessedSelectivity,
  readWindow,
  recordsQuery,
  sortedRows,
  sortedWindowQuery,
  unsortedRows,
  WINDOW,
  windowQuery,
  type RecordRow,
  type SearchScope,
  type SortedPass,
  type UnsortedPass,
  type WindowSettings,
} from '../../src/context/search.js';
import { openStore, type Store } from '../../src/db/database.js';
import { migrate, MissingExtensionError } from '../../src/db/migrate.js';
import { migrations, TRIGRAM_INDEXED_FIELDS, VALUE_TEXT_OMITTED_FIELDS } from '../../src/db/migrations.js';
import { Keyring } from '../../src/security/keyring.js';
import { createOrganization } from '../../src/services/organizations.js';
import { insertConnector } from '../support/connector-rows.js';
import { markSearchable, storeRecords } from '../support/context-store.js';
import { freshPostgresDatabase, storeKinds } from '../support/service.js';
import { openMemoryStore } from '../support/store.js';
import { testConfig } from '../support/config.js';
import { preparePage, writePage } from '../../src/context/sync/records.js';
import { exactWords, oneTypoApart, toleratesTypos, wordsOf } from '../../src/context/typos.js';

const entity = connectorModules.linear!.definition.entities.issues as EntityDefinition;

/** Titles that JSON escapes or that sit near the fuzzy threshold. */
const TITLES: Record<string, unknown> = {
  't-newline': 'Refund\nrequest for order 42',
  't-quote': 'The "shipping" label is wrong',
  't-backslash': 'Path C:\\exports\\invoice.csv fails',
  't-control': 'Billing\u0001export broken',
  't-tab': 'dark\tmode toggle',
  't-accent': 'Café crème déjà vu',
  't-near': 'Dark mode support',
  't-plain': 'Login broken on Safari',
  't-number': 42,
  't-bool': true,
  't-null': null,
  't-array': ['shipping', 'Invoice'],
};

/** A few hundred plain records, so the planner has a table to choose plans for. */
const FILLER = 400;

it("leaves out of the record's value text exactly the fields whose own trigram index serves them", () => {
  // compile.ts sends a text filter on one of TRIGRAM_INDEXED_FIELDS to its own index, never to the value
  // text: a field left out of the text without its own index would lose matches
  expect([...VALUE_TEXT_OMITTED_FIELDS].sort()).toEqual([...TRIGRAM_INDEXED_FIELDS].sort());
});

describe.each(storeKinds())('filter search indexes (%s)', (kind) => {
  let store: Store;
  let ctx: ReturnType<typeof composeService>['ctx'];
  let scope: SearchScope;

  beforeAll(async () => {
    store = kind === 'postgres' ? await openStore({ databaseUrl: await freshPostgresDatabase() }) : await openMemoryStore();
    const keyring = new Keyring(randomBytes(32));
    const config = testConfig({ dataDir: '/nonexistent' });
    ctx = composeService({ store, keyring, config }).ctx;
    const { organization_id: organizationId } = await createOrganization(store.db, 'Acme');
    const connectorId = await insertConnector({ store, keyring }, organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'key' },
      name: 'Linear',
    });
    scope = { organizationId, connectorId, connectorType: 'linear', displayName: 'Linear', entity };
    const records = [
      ...Object.entries(TITLES).map(([id, title], index) => ({ id, title, updatedAt: `2024-01-${String(10 + index).padStart(2, '0')}T00:00:00Z` })),
      { id: 't-missing', updatedAt: '2024-02-01T00:00:00Z' },
      ...Array.from({ length: FILLER }, (_, n) => ({
        id: `f-${String(n).padStart(4, '0')}`,
        title: `${['alpha', 'beta', 'gamma', 'delta'][n % 4]} task ${n}`,
        ...(n % 10 !== 0 && { updatedAt: `2023-${String(1 + (n % 12)).padStart(2, '0')}-${String(1 + (n % 28)).padStart(2, '0')}T12:00:00Z` }),
      })),
    ];
    await storeRecords(store, { organizationId, connectorId, entity: 'issues' }, records);
    await markSearchable(store, { connectorId, entity: 'issues' });
    await sql`ANALYZE context_records`.execute(store.db);
  });

  afterAll(async () => {
    await store?.close();
  });

  /** Record ids the search returns for a filter (one page of up to 1000, record-id order), of the issues unless another scope is given. */
  async function searched(filter: unknown, searchScope = scope): Promise<string[]> {
    const result = await contextStoreSearch(ctx, searchScope, { query: { filter }, limit: 1000, fields: ['id'] });
    return result.data.map((record) => String((record as { id: unknown }).id));
  }

  /** The filter's condition as a search compiles it: with the typos of its fuzzy words. */
  function compiled(filter: unknown): Promise<RawBuilder<boolean>> {
    return compileSearchFilter(store.db, scope, filter, 'query.filter');
  }

  /** Record ids of every page of a search, paged 37 at a time through its cursors. */
  async function pagedIds(query: Record<string, unknown>): Promise<string[]> {
    const paged: string[] = [];
    let cursor: string | null = null;
    do {
      const page = await contextStoreSearch(ctx, scope, { query, limit: 37, fields: ['id'], ...(cursor !== null && { cursor }) });
      paged.push(...page.data.map((record) => String((record as { id: unknown }).id)));
      cursor = page.meta.cursor;
    } while (cursor !== null);
    return paged;
  }

  /** Record ids matching a bare SQL condition on the record (r.data), record-id order. */
  async function reference(condition: RawBuilder<boolean>): Promise<string[]> {
    const { rows } = await sql<{ record_id: string }>`
      SELECT r.record_id FROM context_records AS r
      WHERE r.connector_id = ${scope.connectorId} AND r.entity = 'issues' AND r.deleted_at IS NULL AND ${condition}
      ORDER BY r.record_id`.execute(store.db);
    return rows.map((row) => row.record_id);
  }

  it('refuses in one line a pending migration whose extension the server does not have', async () => {
    const needing = { version: 10_000, name: 'test', sql: 'CREATE EXTENSION IF NOT EXISTS switchyard_no_such_extension;' };
    const refused = await migrate(store.db, [...migrations, needing]).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(MissingExtensionError);
    expect((refused as Error).message).toMatch(
      /^The PostgreSQL server lacks the switchyard_no_such_extension extension .*CREATE EXTENSION switchyard_no_such_extension in this database\.$/,
    );
    const { rows } = await sql<{ count: number }>`SELECT count(*)::int AS count FROM schema_migrations WHERE version = 10000`.execute(store.db);
    expect(rows[0]?.count).toBe(0);
  });

  it('fuzzy matches exactly the records whose field holds every word of the value, one typo away from four letters', async () => {
    const queries = [
      'refnd reqest',
      'shiping label',
      'exports invoice',
      'billing export',
      'dark mod',
      'drak mode',
      'cafe creme',
      'café crème',
      'login safri',
      'logn brokn',
      'supprt',
      'alpha tsk',
      'alpha task 12',
      'alpah task',
      'quantum',
      'refund quantum',
    ];
    const titles = new Map(Object.entries(TITLES));
    for (let n = 0; n < FILLER; n += 1) titles.set(`f-${String(n).padStart(4, '0')}`, `${['alpha', 'beta', 'gamma', 'delta'][n % 4]} task ${n}`);
    for (const query of queries) {
      const expected = [...titles]
        .filter(
          ([, title]) =>
            typeof title === 'string' &&
            wordsOf(query).every((word) => wordsOf(title).some((held) => held === word || (toleratesTypos(word) && oneTypoApart(word, held)))),
        )
        .map(([id]) => id)
        .sort();
      expect(await searched({ fuzzy: { title: query } }), query).toEqual(expected);
    }
    // a letter left out, added, changed, two neighbours swapped; every word, in any order
    expect(await searched({ fuzzy: { title: 'supprt' } })).toEqual(['t-near']);
    expect(await searched({ fuzzy: { title: 'suppoort' } })).toEqual(['t-near']);
    expect(await searched({ fuzzy: { title: 'sapport' } })).toEqual(['t-near']);
    expect(await searched({ fuzzy: { title: 'saFAri LOGNI' } })).toEqual(['t-plain']);
    expect(await searched({ fuzzy: { title: 'safari broken logn' } })).toEqual(['t-plain']);
    expect(await searched({ fuzzy: { title: 'safari broken checkout' } })).toEqual([]);
    // two typos in a word, or one in a word of three letters, are too many
    expect(await searched({ fuzzy: { title: 'sappurt' } })).toEqual([]);
    expect(await searched({ fuzzy: { title: 'drak mde' } })).toEqual([]);
    // words next to escaped characters (a newline, a backslash, a control character) are found
    expect(await searched({ fuzzy: { title: 'refund reqest' } })).toEqual(['t-newline']);
    expect(await searched({ fuzzy: { title: 'exprts invoice' } })).toEqual(['t-backslash']);
    expect(await searched({ fuzzy: { title: 'billing exprt' } })).toEqual(['t-control']);
  });

  it('fuzzy finds the typos of words a sync writes later', async () => {
    const later = { organizationId: scope.organizationId, connectorId: scope.connectorId, entity: 'issues' };
    const prepared = preparePage([{ id: 't-later', title: 'Kubernetes upgrade stalls', updatedAt: '2024-03-01T00:00:00Z' }], entity.record);
    await writePage(store.db, later, prepared.records);
    try {
      expect(await searched({ fuzzy: { title: 'kubernets upgarde' } })).toEqual(['t-later']);
      const { rows } = await sql<{ word: string }>`SELECT word FROM context_words WHERE connector_id = ${scope.connectorId} AND word LIKE 'kub%'`.execute(
        store.db,
      );
      expect(rows.map((row) => row.word)).toEqual(['kubernetes']);
    } finally {
      // the other tests count the records
      await sql`DELETE FROM context_records WHERE connector_id = ${scope.connectorId} AND record_id = 't-later'`.execute(store.db);
    }
  });

  it('text operators find values next to escaped characters, and patterns holding them', async () => {
    expect(await searched({ contains: { title: 'request' } })).toEqual(['t-newline']);
    expect(await searched({ startswith: { title: 'request' } })).toEqual([]);
    expect(await searched({ contains: { title: '"shipping"' } })).toEqual(['t-quote']);
    expect(await searched({ contains: { title: 'C:\\exports\\' } })).toEqual(['t-backslash']);
    expect(await searched({ like: { title: '%c:\\\\exports%' } })).toEqual(['t-backslash']);
    expect(await searched({ contains: { title: 'Billing\u0001' } })).toEqual(['t-control']);
    expect(await searched({ endswith: { title: 'export broken' } })).toEqual(['t-control']);
    expect(await searched({ like: { title: 'dark_mode%' } })).toEqual(['t-near', 't-tab']);
    expect(await searched({ contains: { title: 'CRÈME' } })).toEqual(['t-accent']);
    expect(await searched({ contains: { title: 'invoice' } })).toEqual(['t-array', 't-backslash']);
    expect(await searched({ contains: { title: 42 } })).toEqual(['f-0042', 'f-0142', 'f-0242', 'f-0342', 't-newline', 't-number']);
    expect(await searched({ contains: { title: true } })).toEqual([]);
    expect(await searched({ keyword: { title: 'REQUEST mode' } })).toEqual(['t-near', 't-newline', 't-tab']);
    expect(await searched({ keyword: { title: 'beta 7' } })).toEqual(
      await reference(sql<boolean>`r.data ->> 'title' ~* '(^|[^[:alnum:]])(beta|7)([^[:alnum:]]|$)'`),
    );
    // any applies to array fields: title is declared a string (a record holding an array there is found by contains, above)
    await expect(searched({ any: { title: { eq: { $: 'Invoice' } } } })).rejects.toThrow("'title' is not an array field; any applies to arrays");
  });

  it("text operators on other fields find every match through the record's value text: quotes, escapes, line breaks, nested values", async () => {
    // another entity of the same connector, so the records above stay as they are for the other tests
    const probe = { ...entity, name: 'text_probe', search: { ...entity.search, fields: [...entity.search.fields, 'name', 'note'] } } as EntityDefinition;
    const records: Array<Record<string, unknown>> = [
      { id: 'p-quote', description: 'The "shipping" label is wrong', state: { name: 'In "Review"' } },
      { id: 'p-colon', description: 'He said "refund": now', note: 'a": "b' },
      { id: 'p-backslash', description: 'Path C:\\exports\\invoice.csv fails' },
      { id: 'p-newline', description: 'Refund\nrequest for order 42' },
      { id: 'p-control', description: 'Billing\u0001export broken' },
      { id: 'p-accent', description: 'Café crème déjà vu' },
      { id: 'p-key', description: 'plain', refund: 'a key named like the word' },
      { id: 'p-name-object', name: { first: 'Ann Lee' }, description: 'nested under an omitted name' },
      { id: 'p-name-text', name: 'Refund request', subject: 'Invoice', description: 'name is left to its own index' },
      { id: 'p-number', priority: 42, description: 'numbers' },
      { id: 'p-array', labelIds: [true, 'Bug', 7], description: 'an array of values' },
    ];
    await storeRecords(store, { ...scope, entity: 'text_probe' }, records);
    await markSearchable(store, { connectorId: scope.connectorId, entity: 'text_probe' });
    const found = (filter: unknown) => searched(filter, { ...scope, entity: probe });
    expect(await found({ contains: { description: '"shipping"' } })).toEqual(['p-quote']);
    expect(await found({ contains: { 'state.name': 'in "review' } })).toEqual(['p-quote']);
    expect(await found({ contains: { description: '"refund": ' } })).toEqual(['p-colon']);
    expect(await found({ contains: { note: 'a": "b' } })).toEqual(['p-colon']);
    expect(await found({ contains: { description: 'C:\\exports\\' } })).toEqual(['p-backslash']);
    expect(await found({ like: { description: '%c:\\\\exports%' } })).toEqual(['p-backslash']);
    expect(await found({ contains: { description: 'refund\nREQUEST' } })).toEqual(['p-newline']);
    expect(await found({ startswith: { description: 'refund' } })).toEqual(['p-newline']);
    expect(await found({ endswith: { description: 'export broken' } })).toEqual(['p-control']);
    expect(await found({ contains: { description: 'billing\u0001' } })).toEqual(['p-control']);
    expect(await found({ contains: { description: 'CRÈME' } })).toEqual(['p-accent']);
    expect(await found({ keyword: { description: 'REQUEST export' } })).toEqual(['p-control', 'p-newline']);
    expect(await found({ fuzzy: { description: 'refund reqest' } })).toEqual(['p-newline']);
    expect(await found({ fuzzy: { description: 'refnd' } })).toEqual(['p-colon', 'p-newline']);
    expect(await found({ fuzzy: { description: 'exprts invoice' } })).toEqual(['p-backslash']);
    expect(await found({ contains: { 'name.first': 'ann' } })).toEqual(['p-name-object']);
    expect(await found({ fuzzy: { 'name.first': 'ann lee' } })).toEqual(['p-name-object']);
    expect(await found({ contains: { name: 'refund' } })).toEqual(['p-name-text']);
    expect(await found({ contains: { priority: 42 } })).toEqual(['p-number']);
    expect(await found({ contains: { labelIds: true } })).toEqual(['p-array']);
    expect(await found({ contains: { labelIds: 'BUG' } })).toEqual(['p-array']);
    expect(await found({ contains: { labelIds: 7 } })).toEqual(['p-array']);
    // an array field declared as such holds no word to find: keyword on it is refused, not answered empty
    await expect(found({ keyword: { labelIds: 'bug' } })).rejects.toThrow("'labelIds' holds array values; keyword matches string or number fields only");
    // the text is the values: no key, no JSON punctuation
    const { rows } = await sql<{ text: string | null }>`
      SELECT switchyard_value_text(data) AS text FROM context_records
      WHERE connector_id = ${scope.connectorId} AND entity = 'text_probe' AND record_id IN ('p-key', 'p-name-text', 'p-name-object')
      ORDER BY record_id`.execute(store.db);
    expect(rows.map((row) => row.text?.split('\n').sort())).toEqual([
      ['a key named like the word', 'p-key', 'plain'],
      ['Ann Lee', 'nested under an omitted name', 'p-name-object'],
      ['name is left to its own index', 'p-name-text'],
    ]);
  });

  it('pages a sort through numbers, other values and missing fields in the order of one full sort', async () => {
    for (const sort of [[{ title: 'asc' }], [{ title: 'desc' }], [{ updatedAt: 'desc' }, { title: 'asc' }], [{ updatedAt: 'asc' }]] as const) {
      const plan = sortPlan(parseSort(sort, entity, 'query.sort', []), 'r');
      const { rows } = await sql<{ record_id: string }>`
        SELECT r.record_id FROM context_records AS r
        WHERE r.connector_id = ${scope.connectorId} AND r.entity = 'issues' AND r.deleted_at IS NULL
        ORDER BY ${plan.orderBy}`.execute(store.db);
      const expected = rows.map((row) => row.record_id);
      expect(await pagedIds({ sort }), JSON.stringify(sort)).toEqual(expected);
    }
  });

  it.each(['ordered', 'indexed'] as const)('pages an unsorted search through windows (%s) and the index with the rows of the plain query', async (read) => {
    // Small windows, so the table of a few hundred records takes every path: a page filled from the first
    // window, a second window (in order, or the plain query on its records), the matches after the windows
    // fetched whole (at most fetchMax) or the plain query (more), and the entity ending inside a window.
    const window: WindowSettings = { read, filters: guessedSelectivity, perResult: 2, min: 10, max: 30, orderedMax: 100, indexCost: 8, fetchMax: 10 };
    const records = (await reference(sql<boolean>`true`)).length;
    const unsorted = sortPlan([], 'r');
    const cases: Array<{ filter: unknown; first: Array<UnsortedPass['kind']> }> = [
      { filter: {}, first: ['window'] },
      { filter: { contains: { title: 'alpha' } }, first: ['window', 'window'] },
      { filter: { fuzzy: { title: 'alpa' } }, first: ['window', 'window'] },
      { filter: { or: [{ fuzzy: { title: 'gama' } }, { eq: { title: 'beta task 5' } }] }, first: ['window', 'window'] },
      { filter: { like: { title: '%7' } }, first: ['window', 'index'] },
      // few matches after the windows (at most fetchMax): all fetched through the index, then sorted
      { filter: { keyword: { title: '123 77' } }, first: ['window', 'fetch'] },
      { filter: { fuzzy: { title: 'quantum' } }, first: ['window', 'fetch'] },
      { filter: { or: [{ eq: { title: 'beta task 5' } }, { startswith: { id: 't-' } }] }, first: ['window', 'index'] },
    ];
    for (const { filter, first } of cases) {
      const condition = await compiled(filter);
      const expected = await reference(condition);
      for (const limit of [20, 7]) {
        const paged: string[] = [];
        const kinds = new Set<string>();
        let last: string | undefined;
        for (let page = 0; ; page += 1) {
          const after = last === undefined ? sql<boolean>`true` : sql<boolean>`r.record_id > ${last}`;
          const found = await unsortedRows(store.db, { ...scope, entity: 'issues' }, condition, after, limit + 1, { records, window });
          const plain = await recordsQuery({ ...scope, entity: 'issues' }, condition, after, unsorted, unsorted.phases()[0]!, limit + 1).execute(store.db);
          const ids = found.rows.map((row) => row.record_id);
          expect(ids, `${JSON.stringify(filter)} limit ${limit} page ${page}`).toEqual(plain.rows.map((row) => row.record_id));
          expect(found.rows.map((row) => (typeof row.data === 'string' ? JSON.parse(row.data) : row.data))).toEqual(
            plain.rows.map((row) => (typeof row.data === 'string' ? JSON.parse(row.data) : row.data)),
          );
          if (page === 0 && limit === 20)
            expect(
              found.passes.map((pass) => pass.kind),
              JSON.stringify(filter),
            ).toEqual(first);
          for (const pass of found.passes) kinds.add(pass.kind);
          paged.push(...ids.slice(0, limit));
          if (ids.length <= limit) break;
          last = ids[limit - 1];
        }
        expect(paged, `${JSON.stringify(filter)} limit ${limit}`).toEqual(expected);
      }
    }
    // the same common matches in an entity taken as small: its index finds them, the same rows
    const alpha = compileFilter({ contains: { title: 'alpha' } }, entity, 'r', { typos: exactWords });
    const small = await unsortedRows(store.db, { ...scope, entity: 'issues' }, alpha, sql<boolean>`true`, 21, { records: 40, window });
    expect(small.passes.map((pass) => pass.kind)).toEqual(['window', 'index']);
    expect(small.rows.map((row) => row.record_id)).toEqual((await reference(alpha)).slice(0, 21));
    // one window, read either way: the matches among its records and its last record, whether that
    // record matches or not, and no last record when the entity ends inside it
    const ids = await reference(sql<boolean>`true`);
    for (const filter of [{ contains: { title: 'alpha' } }, { fuzzy: { title: 'alpa' } }]) {
      const condition = await compiled(filter);
      const matches = new Set(await reference(condition));
      for (const [start, size] of [
        ['f-0100', 4],
        ['f-0100', 5],
        ['f-0101', 3],
        ['f-0390', 30],
      ] as const) {
        const inside = ids.filter((id) => id > start).slice(0, size);
        for (const indexed of [false, true]) {
          const window = await readWindow(store.db, { ...scope, entity: 'issues' }, condition, sql<boolean>`r.record_id > ${start}`, size, 100, indexed);
          const at = `${JSON.stringify(filter)} after ${start}, ${size} records, ${indexed ? 'indexed' : 'ordered'}`;
          expect(
            window.hits.map((row) => row.record_id),
            at,
          ).toEqual(inside.filter((id) => matches.has(id)));
          expect(window.end, at).toBe(inside.length === size ? inside[size - 1] : undefined);
        }
      }
    }
    // the entity ending inside the second window: every match after the cursor, none missed
    const tail = await unsortedRows(store.db, { ...scope, entity: 'issues' }, alpha, sql<boolean>`r.record_id > 'f-0350'`, 21, { records, window });
    expect(tail.passes.map((pass) => pass.kind)).toEqual(['window', 'window']);
    expect(tail.rows.map((row) => row.record_id)).toEqual((await reference(alpha)).filter((id) => id > 'f-0350'));
    // which filters the search reads in windows first: those whose selectivity the planner guesses
    expect(guessedSelectivity({ and: [{ contains: { title: 'x' } }, { or: [{ gte: { priority: 2 } }, { in: { priority: [1] } }] }] })).toBe(true);
    expect(guessedSelectivity({ any: { labelIds: { eq: { $: 'bug' } } } })).toBe(true);
    expect(guessedSelectivity({ not: { fuzzy: { title: 'refnd' } } })).toBe(true);
    expect(guessedSelectivity({ contains: { eq: 'x' }, like: { title: 'fuzzy%' }, gte: { createdAt: '2024-01-01T00:00:00Z' } })).toBe(false);
    expect(guessedSelectivity({ or: [{ contains: { title: 'x' } }, { keyword: { title: 'eq' } }] })).toBe(true);
    expect(guessedSelectivity(null)).toBe(false);
    // on PGlite only fuzzy reads windows first (its recheck is the costly one there), through the indexes
    expect(WINDOW.pglite?.read).toBe('indexed');
    expect(WINDOW.pglite?.filters({ and: [{ eq: { 'state.name': 'Todo' } }, { not: { any: { labelIds: { fuzzy: { $: 'bgu' } } } } }] })).toBe(true);
    expect(WINDOW.pglite?.filters({ eq: { fuzzy: 'x' }, in: { priority: [1] }, array_contains: { labelIds: 'bug' } })).toBe(false);
    expect(WINDOW.postgres?.filters({ eq: { fuzzy: 'x' } })).toBe(true);
    // and after its windows the plain query, not the fetch; sorted searches run their phases as they are (both measured on PostgreSQL only)
    expect(WINDOW.pglite?.fetchMax).toBeUndefined();
    expect(WINDOW.pglite?.sortedIndexCost).toBeUndefined();
    // through the search itself (default windows), with its cursors
    for (const { filter } of cases) {
      const expected = await reference(await compiled(filter));
      expect(await pagedIds({ filter }), JSON.stringify(filter)).toEqual(expected);
    }
  });

  /** Record ids of the plain query of a sort (its phases one after the other), `limit` from after the cursor's row. */
  async function plainSorted(
    condition: RawBuilder<boolean>,
    order: ReturnType<typeof sortPlan>,
    cursor: { keys: Array<string | null>; id: string } | undefined,
    limit: number,
  ) {
    const rows: RecordRow[] = [];
    const after = cursor === undefined ? sql<boolean>`true` : order.after(cursor.keys, cursor.id);
    for (const phase of order.phases(cursor?.keys)) {
      const result = await recordsQuery({ ...scope, entity: 'issues' }, condition, after, order, phase, limit - rows.length).execute(store.db);
      rows.push(...result.rows);
      if (rows.length >= limit) break;
    }
    return rows;
  }

  it('pages a sorted search through windows along the sort index and the whole order with the rows of the plain query', async () => {
    // Small windows, so a few hundred records take every path: a page filled from the first window, a
    // second window, the whole order after the windows, and phases (numbers, other values, missing) ending
    // inside a window. Titles hold a number (t-number), other values and records missing the field.
    const window = {
      read: 'ordered' as const,
      filters: guessedSelectivity,
      perResult: 2,
      min: 10,
      max: 30,
      orderedMax: 100,
      indexCost: 8,
      fetchMax: 10,
    };
    const records = (await reference(sql<boolean>`true`)).length;
    const w = (phase: number, size: number, hits: number): SortedPass => ({ kind: 'window', phase, size, hits });
    const index = (rows: number): SortedPass => ({ kind: 'index', rows });
    const cases: Array<{ filter: unknown; sort: unknown; first: SortedPass[] }> = [
      // a number, then other values (the phase of numbers ends inside the first window), the missing one found by the whole order
      { filter: { in: { id: ['t-number', 'f-0000', 'f-0004', 't-missing'] } }, sort: [{ title: 'asc' }], first: [w(0, 30, 1), w(1, 30, 1), index(2)] },
      { filter: { fuzzy: { title: 'alpha tsak' } }, sort: [{ title: 'desc' }], first: [w(0, 30, 0), w(1, 30, 0), index(21)] },
      // a second window read on along the sort index
      {
        filter: { or: [{ eq: { title: 'beta task 5' } }, { startswith: { id: 't-' } }] },
        sort: [{ updatedAt: 'desc' }],
        first: [w(0, 30, 0), w(1, 30, 13), w(1, 28, 0), index(1)],
      },
      {
        filter: { or: [{ fuzzy: { title: 'gamma tsak' } }, { fuzzy: { title: 'delta tsak' } }] },
        sort: [{ updatedAt: 'asc' }],
        first: [w(0, 30, 0), w(1, 30, 0), index(21)],
      },
      // common matches: the page from the first window of the values
      { filter: { not: { eq: { title: 'alpha task 4' } } }, sort: [{ updatedAt: 'desc' }, { title: 'asc' }], first: [w(0, 30, 0), w(1, 30, 21)] },
      { filter: { eq: { title: 'no such title' } }, sort: [{ title: 'asc' }], first: [w(0, 30, 0), w(1, 30, 0), index(0)] },
    ];
    for (const { filter, sort, first } of cases) {
      const condition = await compiled(filter);
      const order = sortPlan(parseSort(sort, entity, 'query.sort', []), 'r');
      const label = `${JSON.stringify(filter)} ${JSON.stringify(sort)}`;
      const expected = (await plainSorted(condition, order, undefined, 100_000)).map((row) => row.record_id);
      for (const limit of [20, 7]) {
        const paged: string[] = [];
        let cursor: { keys: Array<string | null>; id: string } | undefined;
        for (let page = 0; ; page += 1) {
          const after = cursor === undefined ? sql<boolean>`true` : order.after(cursor.keys, cursor.id);
          const options = { records, window, indexCost: 1, order, ...(cursor !== undefined && { keys: cursor.keys }) };
          const found = await sortedRows(store.db, { ...scope, entity: 'issues' }, condition, after, limit + 1, options);
          const plain = await plainSorted(condition, order, cursor, limit + 1);
          const ids = found.rows.map((row) => row.record_id);
          expect(ids, `${label} limit ${limit} page ${page}`).toEqual(plain.map((row) => row.record_id));
          const keys = (row: RecordRow) => Array.from({ length: order.keyCount }, (_, i) => row[`_k${i}`] ?? null);
          expect(found.rows.map(keys), `${label} keys`).toEqual(plain.map(keys));
          if (page === 0 && limit === 20) expect(found.passes, label).toEqual(first);
          paged.push(...ids.slice(0, limit));
          if (ids.length <= limit) break;
          const last = found.rows[limit - 1]!;
          cursor = { keys: keys(last), id: last.record_id };
        }
        expect(paged, `${label} limit ${limit}`).toEqual(expected);
      }
      // through the search itself (default windows on PostgreSQL, the plain query on PGlite), with its cursors
      expect(await pagedIds({ filter, sort }), label).toEqual(expected);
    }
  });

  it("keeps a sorted window's last record exactly once, and resumes after it", async () => {
    // Matches at positions size - 1, size and size + 1 of the sort: the first window holds two of them, the
    // last its final record; the second window must start strictly after that record.
    const size = 10;
    const window = {
      read: 'ordered' as const,
      filters: guessedSelectivity,
      perResult: 1,
      min: size,
      max: size,
      orderedMax: 1000,
      indexCost: 8,
      fetchMax: 10,
    };
    const order = sortPlan(parseSort([{ updatedAt: 'desc' }], entity, 'query.sort', []), 'r');
    const all = (await plainSorted(sql<boolean>`true`, order, undefined, 100_000)).map((row) => row.record_id);
    const picked = all.slice(size - 2, size + 1);
    const condition = compileFilter({ in: { id: picked } }, entity, 'r', { typos: exactWords });
    const found = await sortedRows(store.db, { ...scope, entity: 'issues' }, condition, sql<boolean>`true`, 4, {
      records: all.length,
      window,
      indexCost: 1,
      order,
    });
    expect(found.rows.map((row) => row.record_id)).toEqual(picked);
    // updatedAt is never a number: the first phase ends at once, then windows over the text values
    expect(found.passes.slice(0, 3)).toEqual([
      { kind: 'window', phase: 0, size, hits: 0 },
      { kind: 'window', phase: 1, size, hits: 2 },
      { kind: 'window', phase: 1, size: expect.any(Number), hits: 1 },
    ]);
  });

  /** The plan of a query, planned in a transaction of its own without the named plan types (enable_* settings). */
  async function explain(query: RawBuilder<unknown>, disabled: string[]): Promise<string> {
    return store.db.transaction().execute(async (trx) => {
      for (const setting of disabled) await sql`SELECT set_config(${setting}, 'off', true)`.execute(trx);
      const { rows } = await sql<Record<string, string>>`EXPLAIN ${query}`.execute(trx);
      return rows.map((row) => Object.values(row)[0]).join('\n');
    });
  }

  it("EXPLAIN: a sorted window reads the sort index in order, and a resumed page's NULL key is no empty estimate", async () => {
    const order = sortPlan(parseSort([{ updatedAt: 'desc' }], entity, 'query.sort', []), 'r');
    const query = sortedWindowQuery(
      { ...scope, entity: 'issues' },
      compileFilter({ eq: { title: 'beta task 5' } }, entity, 'r', { typos: exactWords }),
      sql<boolean>`true`,
      order,
      order.phases()[1]!,
      100,
      21,
    );
    const text = await explain(query, ['enable_seqscan', 'enable_bitmapscan']);
    expect(text).toMatch(/Index Scan Backward using "context_records_sort_updatedAt"/);
    // after a row whose updatedAt is text (its number key NULL): most records follow it, and the planner knows
    const after = order.after([null, '2023-12-31t00:00:00z'], 'f-0000');
    const { rows } = await sql<Record<string, string>>`
      EXPLAIN SELECT r.record_id FROM context_records AS r
      WHERE r.connector_id = ${scope.connectorId} AND r.entity = 'issues' AND ${after}`.execute(store.db);
    const estimate = Number(/rows=(\d+)/.exec(String(Object.values(rows[0] ?? {})[0]))?.[1]);
    expect(estimate).toBeGreaterThan(10);
  });

  it('EXPLAIN: a window reads the primary key in order and sorts nothing', async () => {
    const query = windowQuery(
      { ...scope, entity: 'issues' },
      await compiled({ fuzzy: { title: 'refnd reqest' } }),
      sql<boolean>`r.record_id > 'f-0100'`,
      1000,
      101,
    );
    const text = await explain(query, ['enable_seqscan', 'enable_bitmapscan']);
    expect(text).toMatch(/Index Scan using context_records_pkey/);
    expect(text).not.toMatch(/Sort/);
  });

  /** The plan of one query of a search, as the search writes it, planned without the named plan types. */
  async function plan(filter: unknown, sort: unknown, phase: number, disabled: string[]): Promise<string> {
    const order = sortPlan(parseSort(sort, entity, 'query.sort', []), 'r');
    const query = recordsQuery(
      { ...scope, entity: 'issues' },
      compileFilter(filter, entity, 'r', { typos: exactWords }),
      sql<boolean>`true`,
      order,
      order.phases()[phase] ?? order.phases()[0]!,
      101,
    );
    return explain(query, disabled);
  }

  /** The plan of the filter's condition alone (no scope: on a table this small the scope index would win), without seq and index scans. */
  async function conditionPlan(filter: unknown): Promise<string> {
    return explain(sql`SELECT r.record_id FROM context_records AS r WHERE ${compileFilter(filter, entity, 'r', { typos: exactWords })}`, [
      'enable_seqscan',
      'enable_indexscan',
    ]);
  }

  it("EXPLAIN: fuzzy and the text operators can be served by the field's trigram index, or the record value text's", async () => {
    const title = [
      { fuzzy: { title: 'refnd reqest' } },
      { contains: { title: 'request' } },
      { keyword: { title: 'safari' } },
      { startswith: { title: 'login br' } },
    ];
    for (const filter of title) {
      expect(await conditionPlan(filter), JSON.stringify(filter)).toMatch(/Bitmap Index Scan on "?context_records_trgm_title/);
    }
    const other = [
      { fuzzy: { description: 'refnd reqest' } },
      { contains: { id: 'newline' } },
      { keyword: { 'state.name': 'todo' } },
      { like: { url: '%/ENG-4_' } },
    ];
    for (const filter of other) {
      expect(await conditionPlan(filter), JSON.stringify(filter)).toMatch(/Bitmap Index Scan on context_records_value_text/);
    }
  });

  it('EXPLAIN: a sorted search reads the sort index in order (forward for asc, backward for desc)', async () => {
    const filter = { or: [{ contains: { title: 'task' } }, { eq: { title: 42 } }] };
    expect(await plan(filter, [{ title: 'asc' }], 1, ['enable_sort', 'enable_seqscan', 'enable_bitmapscan'])).toMatch(
      /Index Scan using context_records_sort_title/,
    );
    expect(await plan(filter, [{ updatedAt: 'desc' }], 1, ['enable_sort', 'enable_seqscan', 'enable_bitmapscan'])).toMatch(
      /Index Scan Backward using "context_records_sort_updatedAt"/,
    );
  });
});
