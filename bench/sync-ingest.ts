/**
 * Sync ingest: records per second a context store sync reads from a paginated HTTP upstream on
 * 127.0.0.1 (100 records per page, 50,000 records: Typeform's forms list, stood in locally through
 * upstreamBaseUrls) and writes into the store, on PGlite (data folder on disk) and on PostgreSQL (a
 * throwaway cluster with the server's durability settings, when the server binaries exist). Two runs per
 * store: the first sync (every record new) and a re-sync (every record unchanged: none is written, each id
 * is noted for the sweep of deleted records). Then a first sync of SEMANTIC_RECORDS new forms with the
 * semantic index running, as the service runs it: the sync's rate, and when the index holds every title
 * (it embeds behind the sync).
 *
 *   node --import tsx bench/sync-ingest.ts          (RECORDS=50000 SEMANTIC_RECORDS=10000 PER_PAGE=100 by default)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ServiceConfig } from '../src/config.js';
import { composeService } from '../src/composition.js';
import { createSemanticIndexer } from '../src/context/semantic/indexer.js';
import type { EntityOutcome } from '../src/context/sync/engine.js';
import { registerRecordObserver } from '../src/context/sync/registry.js';
import type { ServiceContext } from '../src/service-context.js';
import { openStore, type Store } from '../src/db/database.js';
import { Keyring } from '../src/security/keyring.js';
import { createConnector } from '../src/services/connectors.js';
import { createOrganization } from '../src/services/organizations.js';
import { DURABLE_SETTINGS, postgresAvailable, startCluster } from '../test/support/postgres-cluster.js';
import { form, startTypeformStandIn, type StandIn } from '../test/support/typeform-stand-in.js';
import { testConfig } from '../test/support/config.js';

type Row = Record<string, string | number>;

const RECORDS = Number(process.env.RECORDS ?? 50_000);
const PER_PAGE = Number(process.env.PER_PAGE ?? 100);
const SEMANTIC_RECORDS = Number(process.env.SEMANTIC_RECORDS ?? 10_000);
/** The context store's ingest goal, records a second, on either store. */
const TARGET_RATE = 10_000;

async function measure(store: Store, label: string, upstream: StandIn, dataDir: string, databaseUrl?: string): Promise<Row[]> {
  const config: ServiceConfig = testConfig({ dataDir, upstreamBaseUrls: { typeform: upstream.url }, ...(databaseUrl !== undefined && { databaseUrl }) });
  const composed = composeService({ store, keyring: new Keyring(randomBytes(32)), config });
  const { ctx } = composed;
  const { organization_id } = await createOrganization(store.db, 'Bench');
  const connector = await createConnector(
    ctx,
    organization_id,
    { workspace_name: 'default', connector_type: 'typeform', name: 'bench', credentials: { access_token: upstream.token } },
    { check: false },
  );
  const syncs = ctx.syncs;
  const rows: Row[] = [];
  try {
    for (const run of ['first sync (all new)', 're-sync (all unchanged)']) {
      const started = performance.now();
      const outcome = await syncForms(syncs, connector.id, label);
      rows.push(resultRow(label, run, outcome, (performance.now() - started) / 1000, '-'));
    }
    rows.push(await measureWithSemanticIndex(ctx, organization_id, label, upstream));
  } finally {
    await composed.close();
  }
  return rows;
}

/** Syncs the connector's forms through the sync queue; the outcome, which must be ready. */
async function syncForms(syncs: ServiceContext['syncs'], connectorId: string, label: string): Promise<EntityOutcome> {
  const outcome = (await (await syncs.start({ connectorId, entity: 'forms', trigger: 'cli' })).wait())?.[0];
  if (outcome?.status !== 'ready') throw new Error(`the ${label} sync failed: ${outcome?.reason ?? 'no outcome'}`);
  return outcome;
}

function resultRow(label: string, run: string, outcome: EntityOutcome, seconds: number, semanticIndexSeconds: number | string): Row {
  const rate = Math.round(outcome.records / seconds);
  return {
    store: label,
    run,
    records: outcome.records,
    pages: outcome.pages,
    changed: outcome.changed,
    seconds: Number(seconds.toFixed(2)),
    'records/s': rate,
    target: `>= ${TARGET_RATE} records/s: ${rate >= TARGET_RATE ? 'met' : 'NOT met'}`,
    'semantic index (s)': semanticIndexSeconds,
  };
}

/** A first sync of SEMANTIC_RECORDS new forms while the semantic index runs, and the time until it holds them all. */
async function measureWithSemanticIndex(ctx: ServiceContext, organizationId: string, label: string, upstream: StandIn): Promise<Row> {
  const all = upstream.forms;
  upstream.forms = Array.from({ length: SEMANTIC_RECORDS }, (_, i) =>
    form(`s${String(i).padStart(6, '0')}`, `Refund request number ${i} about a broken order`),
  );
  // The indexer as the service registers it, without startSemanticIndexing's start-up catch-up: that would
  // embed the earlier runs' records too (synced here with no index running), and time them with this sync.
  const indexer = createSemanticIndexer(ctx);
  const unregister = registerRecordObserver(ctx, indexer);
  try {
    const connector = await createConnector(
      ctx,
      organizationId,
      { workspace_name: 'default', connector_type: 'typeform', name: 'bench-semantic', credentials: { access_token: upstream.token } },
      { check: false },
    );
    const started = performance.now();
    const outcome = await syncForms(ctx.syncs, connector.id, label);
    const seconds = (performance.now() - started) / 1000;
    await indexer.idle();
    const indexed = (performance.now() - started) / 1000;
    return resultRow(label, 'first sync, semantic index running', outcome, seconds, Number(indexed.toFixed(2)));
  } finally {
    unregister();
    await indexer.stop();
    upstream.forms = all;
  }
}

export async function run(): Promise<Row[]> {
  const upstream = await startTypeformStandIn({ formsPerPage: PER_PAGE });
  upstream.forms = Array.from({ length: RECORDS }, (_, i) =>
    form(`f${String(i).padStart(6, '0')}`, `Customer feedback survey number ${i}`, { language: 'en', settings: { is_public: i % 2 === 0, is_trial: false } }),
  );
  const rows: Row[] = [];
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-sync-'));
  try {
    const pglite = await openStore({ dataDir });
    try {
      rows.push(...(await measure(pglite, 'PGlite (on disk)', upstream, dataDir)));
    } finally {
      await pglite.close();
    }
    if (postgresAvailable()) {
      // Every commit flushed to disk, as on an operator's server; the test clusters' defaults skip that.
      const cluster = await startCluster(DURABLE_SETTINGS);
      try {
        const postgres = await openStore({ databaseUrl: cluster.url });
        try {
          rows.push(...(await measure(postgres, 'PostgreSQL 15 (fsync on)', upstream, dataDir, cluster.url)));
        } finally {
          await postgres.close();
        }
      } finally {
        cluster.stop();
      }
    } else {
      rows.push({
        store: 'PostgreSQL',
        run: 'skipped: no server binaries (PG_BIN)',
        records: 0,
        pages: 0,
        changed: 0,
        seconds: 0,
        'records/s': 0,
        target: 'not measured',
        'semantic index (s)': '-',
      });
    }
  } finally {
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`Sync ingest: ${RECORDS.toLocaleString('en-US')} records, ${PER_PAGE} per page, from a paginated HTTP upstream on 127.0.0.1`);
  console.table(await run());
}
