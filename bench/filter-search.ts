/**
 * Filter search: p50 and p95 latency of every filter shape through the real execute endpoint (HTTP on
 * 127.0.0.1, application token, connector lookup, readiness check, query, projection, JSON), measured
 * by the client, next to the service's own meta.took_ms. 100k records (Linear issues) on PGlite, and 1M
 * on PostgreSQL when its server binaries are on the machine (a throwaway cluster).
 *
 * Shapes (each query varies its value; limit 100, the searchable fields of each record returned):
 * - eq on assignee.id (0.5% of records): GIN index on data (containment); on PostgreSQL, windows read in
 *   record order first (src/context/search.ts, unsortedRows): a second window of ~20 000 records at 1M.
 * - range: a 7-day window of createdAt (~1000 records): day index of migration 4.
 * - contains a common title word (~7%): read in order until the 101st match.
 * - startswith / like on rare values (~10-1000 records): the trigram index of the record's value text
 *   (migration 11); keyword on a rare title word: the title's own trigram index (migration 9).
 * - fuzzy: two misspelled title words (from none to ~30% of the titles match): windows in record order
 *   first, then the trigram index of migration 9 when the window finds few or none; on PGlite the second
 *   window is read through the trigram index (only its records' candidates are rechecked).
 * - and/or sorted: (state Todo or In Progress) and priority >= 2 or 3 (~20%), sorted by updatedAt desc:
 *   sort index of migration 9, read backward until a page matches.
 * - sorted, no filter: title asc; eq + sort: assignee.id sorted by createdAt desc (on PostgreSQL a window
 *   along the sort index, then one query in the whole order: the GIN index, the 5000 matches sorted).
 * - keyword: on PostgreSQL windows in record order first, then the matches fetched through the index.
 * Records are generated in SQL (generate_series) with the context_records indexes dropped and rebuilt
 * afterwards (a bulk load; the queries see the same indexes a sync leaves), then ANALYZE runs, as
 * autovacuum would on PostgreSQL (PGlite has no autovacuum). Target: p95 <= 50 ms for every shape.
 *
 * PostgreSQL runs twice on the same data: with the server's default memory settings, then restarted with
 * shared_buffers sized for the data (benchPostgres); each run's settings are printed and name its rows.
 *
 * Run alone: node --import tsx bench/filter-search.ts. RECORDS (PGlite, 100000), POSTGRES_RECORDS
 * (1000000), QUERIES (40 a shape), STORES (pglite,postgres), POSTGRES_MEMORY (default,sized) change the run.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'kysely';
import { buildApp } from '../src/app.js';
import { composeService } from '../src/composition.js';
import type { ServiceConfig } from '../src/config.js';
import { openStore, type Store } from '../src/db/database.js';
import { KEEP_STORED_WORDS } from '../src/db/migrations.js';
import { Keyring } from '../src/security/keyring.js';
import { createClient, createOrganization } from '../src/services/organizations.js';
import { insertConnector } from '../test/support/connector-rows.js';
import { postgresAvailable, startCluster } from '../test/support/postgres-cluster.js';
import pg from 'pg';
import { testConfig } from '../test/support/config.js';
import { describeSettings, MB, serverSettings, sizedSettings, tableRelations, warmRelations } from './postgres-memory.js';

const RECORDS = Number(process.env.RECORDS ?? 100_000);
const POSTGRES_RECORDS = Number(process.env.POSTGRES_RECORDS ?? 1_000_000);
const QUERIES = Number(process.env.QUERIES ?? 40);
const STORES = (process.env.STORES ?? 'pglite,postgres').split(',');
const POSTGRES_MEMORY = (process.env.POSTGRES_MEMORY ?? 'default,sized').split(',');
const WARMUP = 5;
const LIMIT = 100;
const TARGET_MS = 50;

type Row = Record<string, string | number>;

const WORDS = [
  'refund',
  'invoice',
  'shipping',
  'login',
  'password',
  'billing',
  'delivery',
  'account',
  'upgrade',
  'cancel',
  'broken',
  'export',
  'report',
  'email',
  'sync',
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

/** The shapes: each returns the params of query number i over `records` records. */
export const SHAPES: Array<{ name: string; params: (i: number, records: number) => Record<string, unknown> }> = [
  { name: 'eq (assignee.id, 0.5%)', params: (i) => ({ query: { filter: { eq: { 'assignee.id': `user-${(i * 37) % 200}` } } }, limit: LIMIT }) },
  {
    name: 'range (7 days of createdAt)',
    params: (i, records) => {
      const from = START + ((i * 104_729) % Math.max(1, records - 1100)) * STEP_MS;
      return {
        query: { filter: { gte: { createdAt: new Date(from).toISOString() }, lt: { createdAt: new Date(from + 7 * 86_400_000).toISOString() } } },
        limit: LIMIT,
      };
    },
  },
  {
    name: 'contains (a common title word)',
    params: (i) => ({ query: { filter: { contains: { title: (WORDS[i % WORDS.length] as string).toUpperCase() } } }, limit: LIMIT }),
  },
  {
    name: 'startswith (rare identifier prefix)',
    params: (i, records) => ({
      query: { filter: { startswith: { identifier: `ENG-${1000 + ((i * 7919) % Math.max(1, Math.floor(records / 100)))}` } } },
      limit: LIMIT,
    }),
  },
  {
    name: 'like (rare url pattern)',
    params: (i, records) => ({
      query: { filter: { like: { url: `%/eng-${100 + ((i * 7919) % Math.max(1, Math.floor(records / 10) - 100))}_` } } },
      limit: LIMIT,
    }),
  },
  { name: 'keyword (a rare title word)', params: (i) => ({ query: { filter: { keyword: { title: String(100 + ((i * 131) % 897)) } } }, limit: LIMIT }) },
  {
    name: 'fuzzy (two misspelled title words)',
    params: (i) => ({
      query: { filter: { fuzzy: { title: `${misspell(WORDS[i % WORDS.length] as string, i)} ${misspell(WORDS[(i * 7) % WORDS.length] as string, i + 1)}` } } },
      limit: LIMIT,
    }),
  },
  {
    name: 'and/or sorted (updatedAt desc)',
    params: (i) => ({
      query: {
        filter: { and: [{ or: [{ eq: { 'state.name': 'Todo' } }, { eq: { 'state.name': 'In Progress' } }] }, { gte: { priority: 2 + (i % 2) } }] },
        sort: [{ updatedAt: 'desc' }],
      },
      limit: LIMIT,
    }),
  },
  { name: 'sorted, no filter (title asc)', params: (i) => ({ query: { sort: [{ title: i % 2 === 0 ? 'asc' : 'desc' }] }, limit: LIMIT }) },
  {
    name: 'eq sorted (assignee.id, createdAt desc)',
    params: (i) => ({ query: { filter: { eq: { 'assignee.id': `user-${(i * 37) % 200}` } }, sort: [{ createdAt: 'desc' }] }, limit: LIMIT }),
  },
];

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] as number;
}

const round = (n: number) => Math.round(n * 10) / 10;

/** issue(n) of every n in [from, to), written by the database itself (the same records as issue(n)). */
function generatedIssues(from: number, to: number, connectorId: string, organizationId: string) {
  const words = sql`ARRAY[${sql.join(WORDS)}]::text[]`;
  const word = (k: number) => sql`(${words})[((n * ${sql.lit(k)} + n / 7) % ${sql.lit(WORDS.length)}) + 1]`;
  const instant = (shift: ReturnType<typeof sql>) =>
    sql`to_char(timestamp '2023-01-01' + n * interval '10 minutes' + ${shift}, 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;
  return sql`
    INSERT INTO context_records (connector_id, organization_id, entity, record_id, data, content_hash)
    SELECT ${connectorId}, ${organizationId}, 'issues', d ->> 'id', d, md5(d::text)
    FROM (
      SELECT jsonb_build_object(
        'id', '00000000-0000-4000-8000-' || lpad(n::text, 12, '0'),
        'identifier', 'ENG-' || n,
        'title', ${word(1)} || ' ' || ${word(7)} || ' problem for customer ' || (n % 997),
        'description', 'Customer ' || (n % 997) || ' reports that ' || ${word(3)} || ' does not work after the ' || ${word(11)} || ' change. Steps to reproduce are attached.',
        'priority', (n / 5) % 5,
        'priorityLabel', (ARRAY['No priority', 'Urgent', 'High', 'Normal', 'Low'])[((n / 5) % 5) + 1],
        'labelIds', jsonb_build_array(${word(2)}, ${word(5)}),
        'state', jsonb_build_object('id', 'state-' || (n % 5), 'name', (ARRAY[${sql.join(STATES)}]::text[])[(n % 5) + 1]),
        'assignee', jsonb_build_object('id', 'user-' || (n % 200), 'name', 'Engineer ' || (n % 200)),
        'team', jsonb_build_object('id', 'team-' || (n % 8), 'name', 'Team ' || (n % 8)),
        'createdAt', ${instant(sql`interval '0'`)},
        'updatedAt', ${instant(sql`((n * 7919) % 30) * interval '1 day'`)},
        'url', 'https://linear.app/acme/issue/ENG-' || n
      ) AS d
      FROM generate_series(${from}::bigint, ${to - 1}::bigint) AS n
    ) AS generated`;
}

/**
 * Bulk load: the indexes of context_records are dropped, the records generated, the indexes rebuilt
 * (far faster than updating them row by row) and the table analyzed.
 */
export async function seed(store: Store, organizationId: string, connectorId: string, records: number, label: string): Promise<number> {
  const started = performance.now();
  const { rows: indexes } = await sql<{ indexname: string; indexdef: string }>`
    SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'context_records' AND indexname <> 'context_records_pkey'`.execute(store.db);
  for (const index of indexes) await sql`DROP INDEX ${sql.ref(index.indexname)}`.execute(store.db);
  const batch = 100_000;
  for (let from = 0; from < records; from += batch) {
    await generatedIssues(from, Math.min(records, from + batch), connectorId, organizationId).execute(store.db);
    if (records > batch) console.log(`[${label}] ${Math.min(records, from + batch)} records written`);
  }
  await sql`SET maintenance_work_mem = '256MB'`.execute(store.db);
  for (const index of indexes) await sql.raw(index.indexdef).execute(store.db);
  // the words a sync keeps with its records, for the typos of fuzzy (what migration 16 runs on a store's records)
  const wordsStarted = performance.now();
  await sql.raw(KEEP_STORED_WORDS).execute(store.db);
  console.log(`[${label}] kept the words of ${records} records in ${Math.round(performance.now() - wordsStarted)} ms`);
  await sql`INSERT INTO context_sync_state (connector_id, entity, status, record_count, last_synced_at) VALUES (${connectorId}, 'issues', 'ready', ${records}, now())`.execute(
    store.db,
  );
  await sql`ANALYZE context_records`.execute(store.db);
  // The SQL generator must write what issue(n) describes.
  const sample = Math.min(records - 1, 12_345);
  const { rows } = await sql<{
    data: Record<string, unknown>;
  }>`SELECT data FROM context_records WHERE connector_id = ${connectorId} AND record_id = ${issue(sample).id as string}`.execute(store.db);
  const stored = rows[0]?.data ?? {};
  const expected = issue(sample);
  const differing = Object.keys(expected).filter((key) => JSON.stringify(stored[key]) !== JSON.stringify(expected[key]));
  if (differing.length > 0) throw new Error(`the generated record ${sample} differs from issue(${sample}) in ${differing.join(', ')}`);
  return performance.now() - started;
}

/** What a measurement needs of a loaded store: the connector searched and the application that searches it. */
interface Loaded {
  keyring: Keyring;
  connectorId: string;
  clientId: string;
  clientSecret: string;
  records: number;
}

async function load(kind: string, store: Store, records: number): Promise<Loaded> {
  const keyring = new Keyring(randomBytes(32));
  const { organization_id: organizationId } = await createOrganization(store.db, 'Bench');
  const { client_id, client_secret } = await createClient(store.db, [organizationId]);
  const connectorId = await insertConnector({ store, keyring }, organizationId, {
    connectorType: 'linear',
    authOption: 'API Key',
    credentials: { api_key: 'bench-key' },
    name: 'Linear',
  });
  const seedMs = await seed(store, organizationId, connectorId, records, kind);
  console.log(`[${kind}] loaded ${records} records in ${Math.round(seedMs)} ms (indexes rebuilt, ANALYZE)`);
  return { keyring, connectorId, clientId: client_id, clientSecret: client_secret, records };
}

/** Every shape through the execute endpoint of a service over `store`; `label` names the store (and its settings) in the table. */
async function measure(label: string, store: Store, loaded: Loaded): Promise<Row[]> {
  const config: ServiceConfig = testConfig({ dataDir: '/nonexistent' });
  const { records, connectorId } = loaded;
  const app = buildApp(composeService({ store, keyring: loaded.keyring, config }).ctx);
  const base = await app.listen({ host: '127.0.0.1', port: 0 });
  try {
    const tokenResponse = await fetch(`${base}/api/v1/account/applications/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id: loaded.clientId, client_secret: loaded.clientSecret }),
    });
    const token = ((await tokenResponse.json()) as { access_token: string }).access_token;
    const url = `${base}/api/v1/integrations/connectors/${connectorId}/execute`;
    const rows: Row[] = [];
    for (const shape of SHAPES) {
      const client: number[] = [];
      const server: number[] = [];
      let returned = 0;
      const queries = QUERIES;
      for (let i = 0; i < WARMUP + queries; i += 1) {
        const body = JSON.stringify({ entity: 'issues', action: 'context_store_search', params: shape.params(i, records) });
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
        store: label,
        shape: shape.name,
        records,
        queries,
        'avg results': round(returned / queries),
        p50_ms: round(percentile(client, 50)),
        p95_ms: round(p95),
        'took_ms p50': round(percentile(server, 50)),
        'took_ms p95': round(percentile(server, 95)),
        target: `p95 <= ${TARGET_MS} ms: ${p95 <= TARGET_MS ? 'met' : 'NOT met'}`,
      });
      console.log(`[${label}] ${shape.name}: p50 ${round(percentile(client, 50))} ms, p95 ${round(p95)} ms (took_ms p50 ${round(percentile(server, 50))})`);
    }
    return rows;
  } finally {
    await app.close();
  }
}

async function benchPglite(): Promise<Row[]> {
  const store = await openStore({ dataDir: 'memory://' });
  try {
    return await measure('pglite', store, await load('pglite', store, RECORDS));
  } finally {
    await store.close();
  }
}

/**
 * On PostgreSQL the records are loaded once and measured twice: with the server's default memory
 * settings (shared_buffers 128 MB, far less than a million records), then after a restart with
 * shared_buffers sized for the data (sizedSettings), its relations read into shared buffers first
 * (pg_prewarm) and their pages touched by the connection that serves the searches, as on a server that
 * has been serving them. POSTGRES_MEMORY (default,sized) picks them.
 */
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
    let store = await openStore({ databaseUrl: url.toString() });
    const rows: Row[] = [];
    try {
      const loaded = await load('postgres', store, POSTGRES_RECORDS);
      const { rows: size } = await sql<{ bytes: string }>`SELECT pg_total_relation_size('context_records') AS bytes`.execute(store.db);
      const dataBytes = Number(size[0]?.bytes ?? 0);
      console.log(`[postgres] context_records with its indexes: ${Math.round(dataBytes / MB)} MB`);
      if (POSTGRES_MEMORY.includes('default')) {
        const settings = await serverSettings(store);
        console.log(`[postgres] default memory settings: ${describeSettings(settings)}`);
        rows.push(...(await measure(`postgres, shared_buffers ${settings.shared_buffers} (default)`, store, loaded)));
      }
      if (POSTGRES_MEMORY.includes('sized')) {
        await store.close();
        const sized = sizedSettings(dataBytes);
        await cluster.restart(sized);
        store = await openStore({ databaseUrl: url.toString() });
        const warmedMb = await warmRelations(store, tableRelations('context_records'));
        const settings = await serverSettings(store);
        console.log(`[postgres] sized memory settings: ${describeSettings(settings)}; ${warmedMb} MB prewarmed, every page touched by the serving connection`);
        rows.push(...(await measure(`postgres, shared_buffers ${sized.shared_buffers}`, store, loaded)));
      }
      return rows;
    } finally {
      await store.close();
    }
  } finally {
    cluster.stop();
  }
}

export async function run(): Promise<Row[]> {
  return [...(STORES.includes('pglite') ? await benchPglite() : []), ...(STORES.includes('postgres') ? await benchPostgres() : [])];
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await run();
  console.table(rows);
}
