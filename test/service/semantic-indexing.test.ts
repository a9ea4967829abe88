/**
 * The semantic index runs behind the sync, on both stores: a sync is ready once its records are stored
 * (filter search is fresh) and the index embeds them in the background; records reported faster than it
 * keeps them waiting are found again by a reconcile, which on PGlite's single connection lets a running sync
 * go first, as the background index does.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectorModules, type EntityDefinition } from '../../runtime/index.js';
import { createSemanticIndexer, startSemanticIndexing, type SemanticIndexer } from '../../src/context/semantic/indexer.js';
import { OfflineEmbeddingProvider, type EmbeddingProvider } from '../../src/context/semantic/providers.js';
import { setEmbeddingProvider } from '../../src/context/semantic/runtime.js';
import { preparePage, writePage } from '../../src/context/sync/records.js';
import { notifyObservers, registerRecordObserver } from '../../src/context/sync/registry.js';
import { insertConnector } from '../support/connector-rows.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { connectorSyncApi } from '../support/sync-api.js';
import { form, startTypeformStandIn, type StandIn } from '../support/typeform-stand-in.js';

const issues = connectorModules.linear?.definition.entities.issues as EntityDefinition;

/** The offline model, answering only once `open()` was called. */
class GatedProvider implements EmbeddingProvider {
  readonly id: string;
  calls = 0;
  private opened!: () => void;
  private readonly gate = new Promise<void>((resolve) => {
    this.opened = resolve;
  });
  constructor(private readonly inner: EmbeddingProvider) {
    this.id = inner.id;
  }
  open(): void {
    this.opened();
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += 1;
    await this.gate;
    return this.inner.embed(texts);
  }
}

interface Readiness {
  context_store_readiness: {
    configured_cache_entities: Array<{
      entity: string;
      status: string;
      entity_count: number;
      semantic_search_status: Array<{ field: string; status: string }>;
    }>;
  };
}

describe.each(storeKinds())('the semantic index behind the sync (%s)', (kind) => {
  let service: TestService;
  let upstream: StandIn;
  let tenant: Tenant;
  let indexer: SemanticIndexer;
  let stopIndexing: (() => Promise<void>) | undefined;
  const offline = new OfflineEmbeddingProvider();

  const { create } = connectorSyncApi(() => tenant);
  /** A Linear connector stored directly, for records written as another process's sync would. */
  const linearConnector = (apiKey: string) =>
    insertConnector(service, tenant.organizationId, { connectorType: 'linear', authOption: 'API Key', credentials: { api_key: apiKey } });

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 2 });
    service = await startTestService(kind, { upstreamBaseUrls: { typeform: upstream.url }, upstreamRetries: 0 });
    tenant = await createTenant(service, 'Forms Org');
  });

  afterAll(async () => {
    await stopIndexing?.();
    await service.close();
    await upstream.close();
  });

  it('answers a sync once its records are stored, and embeds them in the background', async () => {
    const ctx = service.app.ctx;
    const gated = new GatedProvider(offline);
    setEmbeddingProvider(ctx, gated);
    // What startService (npm start) does.
    ({ indexer, stop: stopIndexing } = startSemanticIndexing(ctx));
    upstream.forms = [
      form('f-refund', 'Refund request'),
      form('f-jobs', 'Job application'),
      form('f-event', 'Conference registration'),
      form('f-nps', 'Product feedback'),
      form('f-bug', 'Bug report'),
    ];
    const id = await create({ connector_type: 'typeform', name: 'Typeform', credentials: { access_token: upstream.token } });
    // The embeddings cannot be made yet: a sync that waited for them would not answer.
    const synced = await tenant.api.post<{ results: Array<{ entity: string; status: string; records: number }> }>(
      `/api/v1/integrations/connectors/${id}/sync`,
      { entity: 'forms', wait: true, wait_seconds: 20 },
    );
    expect(synced.status, JSON.stringify(synced.body)).toBe(200);
    expect(synced.body.results).toEqual([expect.objectContaining({ entity: 'forms', status: 'ready', records: 5 })]);
    const inspect = async () =>
      (await tenant.api.get<Readiness>(`/api/v1/integrations/connectors/${id}/inspect`)).body.context_store_readiness.configured_cache_entities.find(
        (entity) => entity.entity === 'forms',
      );
    expect(await inspect()).toMatchObject({
      status: 'ready',
      entity_count: 5,
      semantic_search_status: [
        { field: 'title', status: 'INDEXING' },
        { field: 'fields', status: 'INDEXING' },
      ],
    });
    // Filter search has the records already.
    const filtered = await tenant.api.post<{ result: { data: Array<{ id: string }> } }>(`/api/v1/integrations/connectors/${id}/execute`, {
      entity: 'forms',
      action: 'context_store_search',
      params: { query: { filter: { contains: { title: 'refund' } } } },
    });
    expect(filtered.body.result.data.map((record) => record.id)).toEqual(['f-refund']);

    gated.open();
    await indexer.idle();
    expect(gated.calls).toBeGreaterThan(0);
    expect((await inspect())?.semantic_search_status).toEqual([
      { field: 'title', status: 'READY' },
      { field: 'fields', status: 'READY' },
    ]);
    const semantic = await tenant.api.post<{ result: { data: Array<{ entity: { id: string } }> } }>(`/api/v1/integrations/connectors/${id}/execute`, {
      entity: 'forms',
      action: 'context_store_search',
      params: { semantic: { field: 'title', prompt: 'money back' } },
    });
    expect(semantic.body.result.data[0]?.entity.id).toBe('f-refund');
  });

  it.runIf(kind === 'pglite')('lets a running sync go first in a reconcile on the single connection, and catches up once it ends', async () => {
    const ctx = service.app.ctx;
    setEmbeddingProvider(ctx, offline);
    // Records another process stored (the CLI), which only a reconcile finds.
    const linearId = await linearConnector('lin_api_y');
    const scope = { organizationId: tenant.organizationId, connectorId: linearId, entity: 'issues' };
    const records = Array.from({ length: 12 }, (_, i) => ({
      id: `j-${i}`,
      identifier: `OPS-${i}`,
      title: `Ticket ${i}`,
      description: `Shipment number ${i} arrived damaged.`,
      state: { name: 'Todo' },
    }));
    await writePage(service.store.db, scope, preparePage(records, issues.record).records);
    const indexed = async () =>
      Number(
        (await sql<{ n: number }>`SELECT count(*)::int AS n FROM context_semantic_state WHERE connector_id = ${linearId}`.execute(service.store.db)).rows[0]?.n,
      );

    upstream.forms = Array.from({ length: 16 }, (_, i) => form(`slow-${i}`, `Slow form ${i}`));
    upstream.delays.set('/forms', 120);
    const reconciling = createSemanticIndexer(ctx, { chunk: 4 });
    try {
      const typeformId = await insertConnector(service, tenant.organizationId, {
        connectorType: 'typeform',
        authOption: 'Personal Access Token',
        credentials: { access_token: upstream.token },
      });
      const sync = await ctx.syncs.start({ connectorId: typeformId, entity: 'forms', trigger: 'cli' });
      for (let waited = 0; ctx.syncs.activeRuns === 0; waited += 10) {
        expect(waited, 'the sync did not start').toBeLessThan(10_000);
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      const caughtUp = reconciling.reconcile();
      let writtenDuringSync = 0;
      while (ctx.syncs.activeRuns > 0) {
        const count = await indexed();
        if (ctx.syncs.activeRuns > 0) writtenDuringSync = Math.max(writtenDuringSync, count);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      await sync.wait();
      expect(writtenDuringSync).toBe(0);
      expect((await caughtUp).records).toBeGreaterThanOrEqual(records.length);
      expect(await indexed()).toBe(records.length);
    } finally {
      upstream.delays.clear();
      await reconciling.stop();
    }
  });

  it('catches up every five minutes on PostgreSQL, where other processes sync too, and not on PGlite, whose store is this process alone', async () => {
    const ctx = service.app.ctx;
    setEmbeddingProvider(ctx, offline);
    const connectorId = await linearConnector('lin_api_z');
    const periodic = createSemanticIndexer(ctx);
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    try {
      periodic.start();
      expect(vi.getTimerCount()).toBe(kind === 'pglite' ? 0 : 1);
      // After the start-up catch-up: a record that only another process's sync would have reported.
      await periodic.reconcile();
      const scope = { organizationId: tenant.organizationId, connectorId, entity: 'issues' };
      const record = { id: 'p-1', identifier: 'P-1', title: 'Late invoice', description: 'The invoice arrived late.', state: { name: 'Todo' } };
      await writePage(service.store.db, scope, preparePage([record], issues.record).records);
      vi.advanceTimersByTime(5 * 60_000);
      if (kind === 'postgres') {
        for (let waited = 0; ; waited += 20) {
          const { rows } = await sql<{ record_id: string }>`
            SELECT record_id FROM context_semantic_state WHERE connector_id = ${connectorId}`.execute(service.store.db);
          if (rows.length === 1) break;
          expect(waited, 'the periodic catch-up did not embed the record').toBeLessThan(10_000);
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
      }
    } finally {
      vi.useRealTimers();
      await periodic.stop();
    }
  });

  it('finds again, by a reconcile, the records reported past the ones it keeps waiting', async () => {
    const ctx = service.app.ctx;
    setEmbeddingProvider(ctx, offline);
    const small = createSemanticIndexer(ctx, { maxPending: 3, chunk: 2 });
    const remove = registerRecordObserver(ctx, small);
    try {
      const connectorId = await linearConnector('lin_api_x');
      const scope = { organizationId: tenant.organizationId, connectorId, entity: 'issues' };
      const records = Array.from({ length: 10 }, (_, i) => ({
        id: `i-${i}`,
        identifier: `SUP-${i}`,
        title: `Issue ${i}`,
        description: `The customer reports problem number ${i} with the invoice.`,
        state: { name: 'Todo' },
      }));
      const written = await writePage(service.store.db, scope, preparePage(records, issues.record).records);
      await notifyObservers(ctx, { ...scope, records: written.changed });
      await small.idle();
      const { rows } = await sql<{ record_id: string }>`
        SELECT record_id FROM context_semantic_state WHERE connector_id = ${connectorId} ORDER BY record_id`.execute(service.store.db);
      expect(rows.map((row) => row.record_id)).toEqual(records.map((record) => record.id).sort());
    } finally {
      remove();
      await small.stop();
    }
  });
});
