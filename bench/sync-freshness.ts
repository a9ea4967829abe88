/**
 * Sync freshness: what incremental syncs (manifest search.incremental) cost and how fresh they keep the
 * context store. A local Harvest stand-in on 127.0.0.1 serves /clients with Harvest's updated_since
 * filter and next links (2,000 per page); the service syncs it on PGlite (data folder on disk).
 *
 * - Upstream requests per sync of an unchanged entity: the first (full) sync, then a re-sync with nothing
 *   changed (target: 1 request, against RECORDS / 2,000 for a full walk).
 * - Change-to-searchable latency: a record is changed upstream at a random moment while incremental syncs
 *   run every INTERVAL_S seconds; the time until the context store search (eq filter on the new name)
 *   finds it (target: <= 60 s with syncs every minute; here the interval is shorter, the bound is the same).
 *
 *   node --import tsx bench/sync-freshness.ts   (RECORDS=100000 INTERVAL_S=5 CHANGES=5 by default)
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { connectorModules } from '../runtime/index.js';
import type { ServiceConfig } from '../src/config.js';
import { composeService } from '../src/composition.js';
import { contextStoreSearch } from '../src/context/search.js';
import { openStore } from '../src/db/database.js';
import { Keyring } from '../src/security/keyring.js';
import { createConnector } from '../src/services/connectors.js';
import { createOrganization } from '../src/services/organizations.js';
import { testConfig } from '../test/support/config.js';
import { type HarvestClient, harvestTime as iso, startHarvestStandIn } from '../test/support/harvest-stand-in.js';

type Row = Record<string, string | number>;

const RECORDS = Number(process.env.RECORDS ?? 100_000);
const INTERVAL_S = Number(process.env.INTERVAL_S ?? 5);
const CHANGES = Number(process.env.CHANGES ?? 5);
const PER_PAGE = 2000;
const TOKEN = 'bench-harvest-token';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function run(): Promise<Row[]> {
  const upstream = await startHarvestStandIn({ pageSize: PER_PAGE });
  const base = Date.now() - 30 * 86_400_000;
  for (let i = 1; i <= RECORDS; i += 1) {
    upstream.clients.push({ id: i, name: `Client ${i}`, is_active: true, currency: 'EUR', created_at: iso(base), updated_at: iso(base + i * 1000) });
  }
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-fresh-'));
  const store = await openStore({ dataDir });
  const config: ServiceConfig = testConfig({ dataDir, upstreamBaseUrls: { harvest: upstream.url } });
  const composed = composeService({ store, keyring: new Keyring(randomBytes(32)), config });
  const { ctx } = composed;
  const rows: Row[] = [];
  try {
    const { organization_id } = await createOrganization(store.db, 'Bench');
    const connector = await createConnector(
      ctx,
      organization_id,
      { workspace_name: 'default', connector_type: 'harvest', name: 'bench', credentials: { api_token: TOKEN, account_id: '1' } },
      { check: false },
    );
    const syncClients = async () => {
      const before = upstream.requests.length;
      const started = performance.now();
      const outcome = (await (await ctx.syncs.start({ connectorId: connector.id, entity: 'clients', trigger: 'cli' })).wait())?.[0];
      if (outcome?.status !== 'ready') throw new Error(`the sync failed: ${outcome?.reason ?? 'no outcome'}`);
      return { outcome, requests: upstream.requests.length - before, seconds: (performance.now() - started) / 1000 };
    };

    const first = await syncClients();
    rows.push({
      measure: 'first sync (full walk)',
      mode: first.outcome.mode ?? '?',
      records: first.outcome.records,
      'upstream requests': first.requests,
      seconds: Number(first.seconds.toFixed(2)),
      target: '-',
    });
    const again = await syncClients();
    rows.push({
      measure: `re-sync, ${RECORDS.toLocaleString('en-US')} unchanged`,
      mode: again.outcome.mode ?? '?',
      records: again.outcome.records,
      'upstream requests': again.requests,
      seconds: Number(again.seconds.toFixed(2)),
      target: `1 request (a full walk: ${Math.ceil(RECORDS / PER_PAGE)})`,
    });

    // Freshness: syncs every INTERVAL_S seconds in the background; changes land at random moments.
    const entity = connectorModules.harvest?.definition.entities.clients;
    if (!entity) throw new Error('harvest has no clients entity');
    const scope = { organizationId: organization_id, connectorId: connector.id, connectorType: 'harvest', displayName: 'Harvest', entity };
    let running = true;
    let syncs = 0;
    let syncRequests = 0;
    const loop = (async () => {
      while (running) {
        const next = Date.now() + INTERVAL_S * 1000;
        const result = await syncClients();
        syncs += 1;
        syncRequests += result.requests;
        while (running && Date.now() < next) await sleep(50);
      }
    })();
    const latencies: number[] = [];
    for (let change = 0; change < CHANGES; change += 1) {
      await sleep(Math.random() * INTERVAL_S * 1000);
      const target = upstream.clients[Math.floor(Math.random() * RECORDS)] as HarvestClient;
      const name = `Renamed ${change} ${randomBytes(4).toString('hex')}`;
      const changedAt = Date.now();
      target.name = name;
      target.updated_at = iso(changedAt);
      for (;;) {
        const found = await contextStoreSearch(ctx, scope, { query: { filter: { eq: { name } } }, limit: 1 });
        if (found.data.length > 0) break;
        if (Date.now() - changedAt > 180_000) throw new Error(`change ${change} not searchable after 180 s`);
        await sleep(100);
      }
      latencies.push((Date.now() - changedAt) / 1000);
    }
    running = false;
    await loop;
    latencies.sort((a, b) => a - b);
    rows.push({
      measure: `change-to-searchable, syncs every ${INTERVAL_S} s (${CHANGES} changes)`,
      mode: 'incremental',
      records: RECORDS,
      'upstream requests': `${(syncRequests / Math.max(1, syncs)).toFixed(2)} per sync (${syncs} syncs)`,
      seconds: `median ${(latencies[Math.floor(latencies.length / 2)] ?? 0).toFixed(2)}, max ${(latencies[latencies.length - 1] ?? 0).toFixed(2)}`,
      target: '<= 60 s with syncs every 60 s (bound: interval + one sync)',
    });
  } finally {
    await composed.close();
    await store.close();
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  return rows;
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.log(`Sync freshness: ${RECORDS.toLocaleString('en-US')} Harvest clients from a stand-in on 127.0.0.1, ${PER_PAGE} per page`);
  console.table(await run());
}
