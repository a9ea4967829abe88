/**
 * When the context store's tables are analyzed (src/db/statistics.ts): once the rows written reach a fifth
 * of what the last ANALYZE saw of the table, or three times what it saw of one scope (a connector's entity),
 * so that a new connector's first sync into a large table is planned with its rows. And what the planner
 * then estimates of a scope (migration 12: its columns depend on each other).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openStore, type Store } from '../../src/db/database.js';
import { TableStatistics } from '../../src/db/statistics.js';
import { Keyring } from '../../src/security/keyring.js';
import { createOrganization } from '../../src/services/organizations.js';
import { insertConnector } from '../support/connector-rows.js';
import { freshPostgresDatabase, storeKinds } from '../support/service.js';
import { openMemoryStore } from '../support/store.js';

/** A new organization with one Linear connector holding `records` issues (generated in SQL). */
async function organizationWithRecords(store: Store, name: string, records: number): Promise<{ organizationId: string; connectorId: string }> {
  const { organization_id: organizationId } = await createOrganization(store.db, name);
  const connectorId = await insertConnector({ store, keyring: new Keyring(randomBytes(32)) }, organizationId, {
    connectorType: 'linear',
    authOption: 'API Key',
    credentials: { api_key: 'k' },
  });
  await sql`
    INSERT INTO context_records (connector_id, organization_id, entity, record_id, data, content_hash)
    SELECT ${connectorId}::uuid, ${organizationId}::uuid, 'issues', 'i-' || n, jsonb_build_object('id', 'i-' || n), 'h'
    FROM generate_series(1, ${records}::int) AS n`.execute(store.db);
  return { organizationId, connectorId };
}

describe('planner statistics of the context store', () => {
  let store: Store;
  let statistics: TableStatistics;

  const analyses = async () =>
    Number((await sql<{ n: number }>`SELECT analyze_count::int AS n FROM pg_stat_user_tables WHERE relname = 'context_records'`.execute(store.db)).rows[0]?.n);

  beforeAll(async () => {
    store = await openMemoryStore();
    await organizationWithRecords(store, 'Acme', 5000);
    statistics = new TableStatistics(store.db);
    // A table without statistics is analyzed once by its first reader: 5000 rows, so a fifth is 1000.
    await statistics.ensure('context_records');
  });

  afterAll(async () => {
    await store.close();
  });

  it('analyzes when one scope grew to four times what the last ANALYZE saw of it, or the table by a fifth', async () => {
    const start = await analyses();
    expect(start).toBeGreaterThan(0);
    // A connector's first rows: 500 make it worth planning with, though the table grew by a tenth.
    await statistics.noteRowsWritten('context_records', { connectorId: 'new', entity: 'issues', count: 499 });
    expect(await analyses()).toBe(start);
    await statistics.noteRowsWritten('context_records', { connectorId: 'new', entity: 'issues', count: 1 });
    expect(await analyses()).toBe(start + 1);
    // Now 500 of the scope are known: the next 1500 make it four times that; 900 are not enough (nor a fifth of the table).
    await statistics.noteRowsWritten('context_records', { connectorId: 'new', entity: 'issues', count: 900 });
    expect(await analyses()).toBe(start + 1);
    // Another scope's rows count toward the table's fifth (1000 since the last ANALYZE).
    await statistics.noteRowsWritten('context_records', { connectorId: 'other', entity: 'issues', count: 99 });
    expect(await analyses()).toBe(start + 1);
    await statistics.noteRowsWritten('context_records', { connectorId: 'other', entity: 'issues', count: 1 });
    expect(await analyses()).toBe(start + 2);
    // The first scope's known rows are now 1400 (its next analysis is 4200 rows away) and the table's count restarted.
    await statistics.noteRowsWritten('context_records', { connectorId: 'new', entity: 'issues', count: 999 });
    expect(await analyses()).toBe(start + 2);
  });
});

describe.each(storeKinds())('planner estimates of a scope (%s)', (kind) => {
  let store: Store;

  beforeAll(async () => {
    store = kind === 'postgres' ? await openStore({ databaseUrl: await freshPostgresDatabase() }) : await openMemoryStore();
  });

  afterAll(async () => {
    await store.close();
  });

  it("estimates a connector's records as the connector's share of the table, not that share times its organization's", async () => {
    await organizationWithRecords(store, 'Large', 9000);
    const small = await organizationWithRecords(store, 'Small', 1000);
    await sql`ANALYZE context_records`.execute(store.db);
    const { rows } = await sql<{ 'QUERY PLAN': Array<{ Plan: { 'Plan Rows': number } }> }>`
      EXPLAIN (FORMAT JSON) SELECT record_id FROM context_records
      WHERE organization_id = ${small.organizationId} AND connector_id = ${small.connectorId} AND entity = 'issues'`.execute(store.db);
    const estimated = rows[0]?.['QUERY PLAN'][0]?.Plan['Plan Rows'] ?? 0;
    // Independent columns would give 1000 × 1000 / 10 000 = 100.
    expect(estimated).toBeGreaterThan(700);
    expect(estimated).toBeLessThan(1300);
  });
});
