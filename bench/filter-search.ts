/**
 * Filter search over 100k records of one entity (Linear issues): p50 and p95 latency of five query
 * shapes through the real execute endpoint (HTTP on 127.0.0.1, application token, connector lookup,
 * readiness check, query, projection, JSON), measured by the client, next to the service's own
 * meta.took_ms. On PGlite, and on PostgreSQL when its server binaries are on the machine.
 *
 * Shapes (each query varies its value; limit 100, the searchable fields of each record returned):
 * - eq on an indexed field: `eq` on assignee.id (0.5% of records), served by the GIN index on data.
 * - range on a timestamp: a 7-day window of createdAt (~1000 records), served by the day index of
 *   migration 4 (btree on the first 10 characters of created_at/createdAt/... per connector and entity).
 * - contains: a word inside title (~7% of records); no index, the scan stops at the 101st match.
 * - fuzzy: two misspelled title words (pg_trgm word_similarity); no index, the scan stops at the 101st match.
 * - and/or with sort: (state Todo or In Progress) and priority >= 2 or 3 (~20%), sorted by updatedAt desc:
 *   every match is sorted, so this one reads all of them.
 * Records are seeded straight into context_records (as the sync writes them), then ANALYZE runs, as
 * autovacuum would on PostgreSQL (PGlite has no autovacuum). Target: p95 under 50 ms on PGlite for the
 * indexed shapes (eq and range).
 *
 * Run alone: node --import tsx bench/filter-search.ts (RECORDS=…, QUERIES=…, FUZZY_QUERIES=… to change the size).
 */
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { connectorModules } from '../runtime/index.js';
import { buildApp } from '../src/app.js';
import { composeService } from '../src/composition.js';
import type { ServiceConfig } from '../src/config.js';
import { openStore, type Store } from '../src/db/database.js';
import { Keyring } from '../src/security/keyring.js';
import { sealCredentials } from '../src/services/credentials.js';
import { createClient, createOrganization } from '../src/services/organizations.js';
import { ensureWorkspace } from '../src/services/workspaces.js';
import { postgresAvailable, startCluster } from '../test/support/postgres-cluster.js';
import pg from 'pg';

const RECORDS = Number(process.env.RECORDS ?? 100_000);
const QUERIES = Number(process.env.QUERIES ?? 60);
/** fuzzy scans every record (about a second each on PGlite): fewer queries keep the run near two minutes. */
const FUZZY_QUERIES = Number(process.env.FUZZY_QUERIES ?? 20);
const WARMUP = 5;
const LIMIT = 100;
const TARGET_MS = 50;

type Row = Record<string, string | number>;

const WORDS = [
  'refund', 'invoice', 'shipping', 'login', 'password', 'billing', 'delivery', 'account', 'upgrade', 'cancel', 'broken', 'export', 'report', 'email', 'sync',
];
const STATES = ['Todo', 'In Progress', 'Done', 'Canceled', 'Backlog'];
const START = Date.UTC(2023, 0, 1);
const STEP_MS = 10 * 60_000;

/** A plausible Linear issue; record n was created n * 10 minutes after 2023-01-01. */
function issue(n: number): Record<string, unknown> {
  const created = new Date(START + n * STEP_MS);
  const updated = new Date(START + n * STEP_MS + ((n * 7919) % 30) * 86_400_000);
  const word = (k: number) => WORDS[(n * k + Math.floor(n / 7)) % WORDS.length] as string;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`,
    identifier: `ENG-${n}`,
    title: `${word(1)} ${word(7)} problem for customer ${n % 997}`,
    description: `Customer ${n % 997} reports that ${word(3)} does not work after the ${word(11)} change. Steps to reproduce are attached.`,
    priority: Math.floor(n / 5) % 5,
    priorityLabel: ['No priority', 'Urgent', 'High', 'Normal', 'Low'][Math.floor(n / 5) % 5],
    labelIds: [word(2), word(5)],
    state: { id: `state-${n % 5}`, name: STATES[n % 5] },
    assignee: { id: `user-${n % 200}`, name: `Engineer ${n % 200}` },
    team: { id: `team-${n % 8}`, name: `Team ${n % 8}` },
    createdAt: created.toISOString(),
    updatedAt: updated.toISOString(),
    url: `https://linear.app/acme/issue/ENG-${n}`,
  };
}

function misspell(word: string, seed: number): string {
  const at = 1 + (seed % (word.length - 2));
  return word.slice(0, at) + word.slice(at + 1);
}

/** The five shapes: each returns the params of query number i. */
const SHAPES: Array<{ name: string; indexed: boolean; queries?: number; params: (i: number) => Record<string, unknown> }> = [
  { name: 'eq on an indexed field (assignee.id)', indexed: true, params: (i) => ({ query: { filter: { eq: { 'assignee.id': `user-${(i * 37) % 200}` } } }, limit: LIMIT }) },
  {
    name: 'range on a timestamp (7 days of createdAt)',
    indexed: true,
    params: (i) => {
      const from = START + ((i * 104_729) % Math.max(1, RECORDS - 1100)) * STEP_MS;
      return { query: { filter: { gte: { createdAt: new Date(from).toISOString() }, lt: { createdAt: new Date(from + 7 * 86_400_000).toISOString() } } }, limit: LIMIT };
    },
  },
  { name: 'contains (a word of title)', indexed: false, params: (i) => ({ query: { filter: { contains: { title: (WORDS[i % WORDS.length] as string).toUpperCase() } } }, limit: LIMIT }) },
  {
    name: 'fuzzy (two misspelled title words)',
    indexed: false,
    queries: FUZZY_QUERIES,
    params: (i) => ({ query: { filter: { fuzzy: { title: `${misspell(WORDS[i % WORDS.length] as string, i)} ${misspell(WORDS[(i * 7) % WORDS.length] as string, i + 1)}` } } }, limit: LIMIT }),
  },
  {
    name: 'and/or with sort (updatedAt desc)',
    indexed: false,
    params: (i) => ({
      query: {
        filter: { and: [{ or: [{ eq: { 'state.name': 'Todo' } }, { eq: { 'state.name': 'In Progress' } }] }, { gte: { priority: 2 + (i % 2) } }] },
        sort: [{ updatedAt: 'desc' }],
      },
      limit: LIMIT,
    }),
  },
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const round = (n: number) => Math.round(n * 10) / 10;

async function seed(store: Store, organizationId: string, connectorId: string): Promise<number> {
  const started = performance.now();
  const batch = 2000;
  for (let from = 0; from < RECORDS; from += batch) {
    const records = Array.from({ length: Math.min(batch, RECORDS - from) }, (_, k) => issue(from + k));
    await sql`
      INSERT INTO context_records (connector_id, organization_id, entity, record_id, data, content_hash)
      SELECT ${connectorId}, ${organizationId}, 'issues', r ->> 'id', r, md5(r::text)
      FROM jsonb_array_elements(${JSON.stringify(records)}::jsonb) AS r`.execute(store.db);
  }
  await sql`INSERT INTO context_sync_state (connector_id, entity, status, record_count, last_synced_at) VALUES (${connectorId}, 'issues', 'ready', ${RECORDS}, now())`.execute(store.db);
  await sql`ANALYZE context_records`.execute(store.db);
  return performance.now() - started;
}

async function benchStore(kind: 'pglite' | 'postgres', store: Store): Promise<Row[]> {
  const keyring = new Keyring(randomBytes(32));
  const config: ServiceConfig = {
    host: '127.0.0.1', port: 0, dataDir: '/nonexistent', upstreamBaseUrls: {}, logLevel: 'silent', tokenTtlSeconds: 900, bodyLimitBytes: 1_048_576,
  } as ServiceConfig;
  const { organization_id: organizationId } = await createOrganization(store.db, 'Bench');
  const { client_id, client_secret } = await createClient(store.db, [organizationId]);
  const workspace = await ensureWorkspace(store.db, organizationId, 'default');
  const connectorId = randomUUID();
  await store.db
    .insertInto('connectors')
    .values({
      id: connectorId, organization_id: organizationId, workspace_id: workspace.id, connector_type: 'linear',
      definition_id: connectorModules.linear!.definition.definitionId, name: 'Linear', auth_option: 'API Key', config: '{}', replication_config: '{}',
      ...sealCredentials(keyring, connectorId, { api_key: 'bench-key' }),
    })
    .execute();
  const seedMs = await seed(store, organizationId, connectorId);
  console.log(`[${kind}] seeded ${RECORDS} records in ${Math.round(seedMs)} ms (with ANALYZE)`);
  const app = buildApp(composeService({ store, keyring, config }).ctx);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const tokenResponse = await fetch(`${base}/api/v1/account/applications/token`, {
      method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_id, client_secret }),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const url = `${base}/api/v1/integrations/connectors/${connectorId}/execute`;
    const rows: Row[] = [];
    for (const shape of SHAPES) {
      const client: number[] = [];
      const server: number[] = [];
      let returned = 0;
      const queries = shape.queries ?? QUERIES;
      for (let i = 0; i < WARMUP + queries; i += 1) {
        const body = JSON.stringify({ entity: 'issues', action: 'context_store_search', params: shape.params(i) });
        const started = performance.now();
        const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` }, body });
        const json = (await response.json()) as { result?: { data: unknown[]; meta: { took_ms: number } }; message?: string };
        const ms = performance.now() - started;
        if (response.status !== 200 || !json.result) throw new Error(`${shape.name}: ${response.status} ${json.message ?? ''}`);
        if (i < WARMUP) continue;
        client.push(ms);
        server.push(json.result.meta.took_ms);
        returned += json.result.data.length;
      }
      client.sort((x, y) => x - y);
      server.sort((x, y) => x - y);
      const p95 = percentile(client, 95);
      rows.push({
        store: kind,
        shape: shape.name,
        records: RECORDS,
        queries,
        'avg results': round(returned / queries),
        p50_ms: round(percentile(client, 50)),
        p95_ms: round(p95),
        'took_ms p50': round(percentile(server, 50)),
        'took_ms p95': round(percentile(server, 95)),
        target: shape.indexed && kind === 'pglite' ? `p95 < ${TARGET_MS} ms: ${p95 < TARGET_MS ? 'met' : 'NOT met'}` : '-',
      });
      console.log(`[${kind}] ${shape.name}: p50 ${round(percentile(client, 50))} ms, p95 ${round(p95)} ms (took_ms p50 ${round(percentile(server, 50))})`);
    }
    return rows;
  } finally {
    await app.close();
  }
}

async function benchPglite(): Promise<Row[]> {
  const store = await openStore({ dataDir: 'memory://' });
  try {
    return await benchStore('pglite', store);
  } finally {
    await store.close();
  }
}

async function benchPostgres(): Promise<Row[]> {
  if (!postgresAvailable()) {
    console.log('[postgres] server binaries not found: skipped');
    return [];
  }
  const cluster = await startCluster();
  try {
    const admin = new pg.Client({ connectionString: cluster.url });
    await admin.connect();
    await admin.query('CREATE DATABASE switchyard_bench');
    await admin.end();
    const url = new URL(cluster.url);
    url.pathname = '/switchyard_bench';
    const store = await openStore({ databaseUrl: url.toString() });
    try {
      return await benchStore('postgres', store);
    } finally {
      await store.close();
    }
  } finally {
    cluster.stop();
  }
}

export async function run(): Promise<Row[]> {
  return [...(await benchPglite()), ...(await benchPostgres())];
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await run();
  console.table(rows);
}
