/**
 * The typo tolerance of fuzzy (src/context/typos.ts): which words are one typo apart, the index keys that
 * find them, the words a page keeps, and migration 16, which keeps the words of the records stored before it
 * by the same rule in SQL (on both stores).
 */
import { randomUUID } from 'node:crypto';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, PostgresDialect, sql } from 'kysely';
import pg from 'pg';
import { afterEach, describe, expect, it } from 'vitest';
import { connectorModules, type EntityDefinition } from '../../runtime/index.js';
import { compileSearchFilter } from '../../src/context/filter/index.js';
import { lookUpTypos, nearWordsQuery, oneTypoApart, toleratesTypos, typoKeys, wordsOf, wordsToKeep } from '../../src/context/typos.js';
import { migrate } from '../../src/db/migrate.js';
import { migrations } from '../../src/db/migrations.js';
import { PGlitePool } from '../../src/db/pglite-pool.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { createOrganization } from '../../src/services/organizations.js';
import { ensureWorkspace } from '../../src/services/workspaces.js';
import { freshPostgresDatabase, storeKinds } from '../support/service.js';

describe('one typo apart', () => {
  it('takes a letter left out, added or changed, or two neighbours swapped, as one typo', () => {
    expect(oneTypoApart('report', 'report')).toBe(true);
    expect(oneTypoApart('rport', 'report')).toBe(true);
    expect(oneTypoApart('reporrt', 'report')).toBe(true);
    expect(oneTypoApart('repart', 'report')).toBe(true);
    expect(oneTypoApart('rpeort', 'report')).toBe(true);
    expect(oneTypoApart('reprot', 'report')).toBe(true);
    expect(oneTypoApart('report', 'reports')).toBe(true);
    expect(oneTypoApart('eport', 'report')).toBe(true);
    expect(oneTypoApart('crème', 'creme')).toBe(true);
  });

  it('refuses two typos, whatever they are', () => {
    expect(oneTypoApart('rprt', 'report')).toBe(false);
    expect(oneTypoApart('rpoert', 'report')).toBe(false);
    expect(oneTypoApart('repotr', 'reprot')).toBe(false);
    expect(oneTypoApart('raport', 'reports')).toBe(false);
    expect(oneTypoApart('abcd', 'badc')).toBe(false);
    expect(oneTypoApart('abc', 'cba')).toBe(false);
  });

  it('gives typos to words of 4 to 64 letters without a digit', () => {
    expect(toleratesTypos('bug')).toBe(false);
    expect(toleratesTypos('bugs')).toBe(true);
    expect(toleratesTypos('ipv6')).toBe(false);
    expect(toleratesTypos('é'.repeat(64))).toBe(true);
    expect(toleratesTypos('a'.repeat(65))).toBe(false);
  });

  it('finds every word one typo away through its prefix, its suffix or the swap across its middle', () => {
    const word = 'delivery';
    const { prefix, suffix, swapped } = typoKeys(word);
    expect({ prefix, suffix, swapped }).toEqual({ prefix: 'deli', suffix: 'very', swapped: 'delviery' });
    const letters = 'abcdefghijklmnopqrstuvwxyz'.split('');
    const near = new Set<string>();
    for (let i = 0; i <= word.length; i += 1) {
      near.add(word.slice(0, i) + word.slice(i + 1));
      if (i < word.length - 1) near.add(word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2));
      for (const letter of letters) {
        near.add(word.slice(0, i) + letter + word.slice(i));
        near.add(word.slice(0, i) + letter + word.slice(i + 1));
      }
    }
    for (const other of near) {
      if (other === word) continue;
      expect(oneTypoApart(word, other), other).toBe(true);
      expect(other.startsWith(prefix) || other.endsWith(suffix) || other === swapped, other).toBe(true);
    }
  });

  it('keeps the words of every string value at any depth, lowercased, without digits, 3 to 64 letters', () => {
    const records = [
      { id: 'a1', title: 'Crème BRÛLÉE, v2 of the UI', tags: ['Kubernetes', { name: 'on-call' }], count: 42, open: true },
      { id: 'b2', body: `${'x'.repeat(65)} ${'y'.repeat(64)} déjà-vu snake_case` },
    ];
    expect(wordsToKeep(records)).toEqual(['brûlée', 'call', 'case', 'crème', 'déjà', 'kubernetes', 'snake', 'the', 'y'.repeat(64)]);
    expect(wordsOf('Crème BRÛLÉE, crème')).toEqual(['crème', 'brûlée']);
  });
});

/** Records whose words both rules must agree on: accents, digits, nesting, lengths, punctuation. */
const RECORDS = [
  { id: 'r-1', title: 'Crème BRÛLÉE, v2 of the UI', tags: ['Kubernetes', { name: 'on-call' }], count: 42, open: true },
  { id: 'r-2', body: `${'x'.repeat(65)} ${'y'.repeat(64)} déjà-vu snake_case ÅNGSTRÖM`, nested: { deep: [['Naïve résumé']] } },
  { id: 'r-3', title: 'ENG-1234 login broken; see https://example.com/a?b=c', note: null },
  { id: 'r-4', title: 'ภาษาไทย กำลัง किताब İSTANBUL' },
];

describe.each(storeKinds())('migration 16 on a store with records (%s)', (kind) => {
  let db: Kysely<DatabaseSchema> | undefined;

  afterEach(async () => {
    await db?.destroy();
    db = undefined;
  });

  async function open(): Promise<Kysely<DatabaseSchema>> {
    if (kind === 'postgres')
      return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: new pg.Pool({ connectionString: await freshPostgresDatabase() }) }) });
    const pglite = await PGlite.create('memory://', { extensions: { vector, pg_trgm } });
    return new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) });
  }

  it('keeps the words of the stored records by the rule a sync keeps them, and the typos find them', async () => {
    db = await open();
    await migrate(
      db,
      migrations.filter((migration) => migration.version <= 15),
    );
    const { organization_id } = await createOrganization(db, 'Before the upgrade');
    const workspace = await ensureWorkspace(db, organization_id, 'default');
    const connectorId = randomUUID();
    await db
      .insertInto('connectors')
      .values({
        id: connectorId,
        organization_id,
        workspace_id: workspace.id,
        connector_type: 'linear',
        definition_id: randomUUID(),
        name: 'Linear',
        auth_option: 'API Key',
        config: '{}',
        replication_config: '{}',
        credentials_key_id: 'k',
        credentials_iv: '',
        credentials_ciphertext: '',
        credentials_tag: '',
      })
      .execute();
    await db
      .insertInto('context_records')
      .values(
        RECORDS.map((record) => ({
          connector_id: connectorId,
          organization_id,
          entity: 'issues',
          record_id: record.id,
          data: JSON.stringify(record),
          content_hash: 'before',
        })),
      )
      .execute();

    expect(await migrate(db, migrations)).toEqual([16]);
    const { rows } = await sql<{
      word: string;
    }>`SELECT word FROM context_words WHERE connector_id = ${connectorId} AND entity = 'issues' ORDER BY word`.execute(db);
    expect(rows.map((row) => row.word)).toEqual(wordsToKeep(RECORDS));

    const typos = await lookUpTypos(db, { connectorId, entity: 'issues' }, ['kubernets', 'logn', 'creme', 'brulee', 'resume', 'nothing']);
    expect(typos('kubernets')).toEqual(['kubernets', 'kubernetes']);
    expect(typos('logn')).toEqual(['logn', 'login']);
    expect(typos('creme')).toEqual(['creme', 'crème']);
    expect(typos('brulee')).toEqual(['brulee']);
    expect(typos('resume')).toEqual(['resume']);
    expect(typos('nothing')).toEqual(['nothing']);
    expect(typos('ui')).toEqual(['ui']);

    // the ranges are read through the indexes (the C collation makes a prefix an index range), among many words
    const letters = 'abcdefghijklmnopqrstuvwxyz';
    const many = Array.from({ length: 20_000 }, (_, n) => Array.from({ length: 7 }, (_, at) => letters[Math.floor(n / 26 ** at) % 26]).join(''));
    await sql`INSERT INTO context_words (connector_id, entity, word) SELECT ${connectorId}, 'issues', w FROM jsonb_array_elements_text(${JSON.stringify(many)}::jsonb) AS w ON CONFLICT DO NOTHING`.execute(
      db,
    );
    await sql`ANALYZE context_words`.execute(db);
    const { rows: plan } = await sql<{ 'QUERY PLAN': string }>`EXPLAIN ${nearWordsQuery({ connectorId, entity: 'issues' }, ['kubernets'])}`.execute(db);
    const text = plan.map((row) => row['QUERY PLAN']).join('\n');
    expect(text).toMatch(/Index (Only )?Scan using context_words_pkey on context_words[^\n]*\n\s+Index Cond: [^\n]*word >= q\.prefix/);
    expect(text).toMatch(/Index (Only )?Scan using context_words_suffix on context_words[^\n]*\n\s+Index Cond: [^\n]*reverse\(word\) >= q\.reversed/);
    expect((await lookUpTypos(db, { connectorId, entity: 'issues' }, ['kubernets']))('kubernets')).toEqual(['kubernets', 'kubernetes']);

    // words of other scripts, whole as PostgreSQL's [[:alnum:]] has them (vowel signs are part of a word)
    const entity = connectorModules.linear?.definition.entities.issues as EntityDefinition;
    const found = async (value: string): Promise<string[]> => {
      const filter = await compileSearchFilter(db as Kysely<DatabaseSchema>, { connectorId, entity }, { fuzzy: { title: value } }, 'query.filter');
      const { rows } = await sql<{ record_id: string }>`SELECT r.record_id FROM context_records AS r WHERE ${filter} ORDER BY r.record_id`.execute(
        db as Kysely<DatabaseSchema>,
      );
      return rows.map((row) => row.record_id);
    };
    for (const value of ['กำลัง', 'किताब', 'ภาษาไทย กำลัง', 'ภาษาไทยy']) expect(await found(value), value).toEqual(['r-4']);
    expect(wordsOf('กำลัง किताब')).toEqual(['กำลัง', 'किताब']);
    expect(await found('logn brokn')).toEqual(['r-3']);
  });
});
