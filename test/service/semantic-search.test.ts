/**
 * Semantic search of the context store on both stores: PGlite ranks through the pgvector HNSW index,
 * PostgreSQL through it too where the server offers pgvector and through the exact scan where it does not
 * (the suite runs on machines of both kinds); every way must give the ranking an exact computation in the
 * test gives.
 */
import { createHash } from 'node:crypto';
import { type Kysely, type KyselyPlugin, sql, type ValueNode } from 'kysely';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { connectorModules, type EntityDefinition } from '../../runtime/index.js';
import type { ServiceContext } from '../../src/service-context.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { fieldText, splitPassages } from '../../src/context/semantic/chunking.js';
import { indexRecords, startSemanticIndexing, semanticIndexStatus, type SemanticIndexer } from '../../src/context/semantic/indexer.js';
import { OfflineEmbeddingProvider, providerFromConfig, type EmbeddingProvider } from '../../src/context/semantic/providers.js';
import { embeddingProvider, setEmbeddingProvider } from '../../src/context/semantic/runtime.js';
import { semanticSearch, type SemanticParams } from '../../src/context/semantic/search.js';
import {
  connectorVectorIndexName,
  EXACT_SCAN_BUDGET_MS,
  HNSW_EF_SEARCH,
  SHARED_SCOPE_EF_SEARCH,
  VectorIndexes,
  vectorIndexName,
} from '../../src/context/semantic/vector-store.js';
import { hnswBuildMemoryKb } from '../../src/context/semantic/index-builds.js';
import { deleteConnector } from '../../src/services/connectors.js';
import { forgetSeen, preparePage, writePage, sweepUnseen } from '../../src/context/sync/records.js';
import { notifyObservers } from '../../src/context/sync/registry.js';
import { insertConnector } from '../support/connector-rows.js';
import { connectorSyncApi } from '../support/sync-api.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { form, startTypeformStandIn, type StandIn } from '../support/typeform-stand-in.js';

const issues = connectorModules.linear!.definition.entities.issues as EntityDefinition;

type Issue = { id: string; identifier: string; title: string; description: string; state: { name: string }; assignee?: { name: string }; priority?: number };

const CORPUS: Issue[] = [
  {
    id: 'i-refund',
    identifier: 'SUP-1',
    title: 'Customer asks for a refund',
    description: 'The customer wants a refund for the annual plan because the product arrived broken.',
    state: { name: 'Todo' },
    assignee: { name: 'Ada' },
  },
  {
    id: 'i-address',
    identifier: 'SUP-2',
    title: 'Wrong shipping address',
    description: 'The shipping address on the account is wrong and must be updated before the next delivery.',
    state: { name: 'Done' },
  },
  {
    id: 'i-password',
    identifier: 'SUP-3',
    title: 'Password reset email missing',
    description: 'A user forgot the password and the reset email never arrives in the inbox.',
    state: { name: 'Todo' },
  },
  {
    id: 'i-seats',
    identifier: 'SUP-4',
    title: 'More seats',
    description: 'Our team needs more seats on the enterprise license for new employees.',
    state: { name: 'Done' },
  },
  { id: 'i-dark', identifier: 'SUP-5', title: 'Dark mode', description: 'Please add a dark mode to the mobile application.', state: { name: 'Backlog' } },
  {
    id: 'i-chart',
    identifier: 'SUP-6',
    title: 'Chart colors',
    description: 'The dashboard chart uses the wrong colors for the weekly report.',
    state: { name: 'Todo' },
  },
  {
    id: 'i-billing',
    identifier: 'SUP-7',
    title: 'Charged twice',
    description: 'The credit card was charged twice; the client expects the duplicate payment to be returned.',
    state: { name: 'Done' },
  },
];

/** A long description about money being returned (several passages of the 2048-character window). */
/** Whether the store's server offers pgvector: PGlite always; a PostgreSQL server when the extension is installed on it. */
async function pgvectorOffered(db: Kysely<DatabaseSchema>): Promise<boolean> {
  const { rows } = await sql<{ offered: boolean }>`SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS offered`.execute(db);
  return rows[0]?.offered === true;
}

function longRefundStory(): string {
  const parts: string[] = [];
  for (let i = 0; i < 40; i += 1) {
    parts.push(
      i % 4 === 0
        ? `Paragraph ${i}: the client insists on a refund and wants the money back quickly.`
        : `Paragraph ${i}: notes about the delivery schedule, the warehouse and the carrier for the order.`,
    );
  }
  return parts.join(' ');
}

/** Deterministic 64-dimension vectors from word hashes: a stand-in for another embedding model. */
class HashingProvider implements EmbeddingProvider {
  readonly id = 'test-hashing-64d';
  calls = 0;
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.calls += texts.length;
    return texts.map((text) => {
      const vector = new Float32Array(64);
      for (const word of text.toLowerCase().match(/[a-z0-9]+/g) ?? []) vector[createHash('sha256').update(word).digest()[0]! % 64]! += 1;
      const norm = Math.hypot(...vector) || 1;
      return vector.map((x) => x / norm);
    });
  }
}

/** The offline provider under another name, counting the texts it embeds. */
class CountingProvider implements EmbeddingProvider {
  readonly id: string;
  texts: string[] = [];
  constructor(private readonly inner: EmbeddingProvider) {
    this.id = inner.id;
  }
  async embed(texts: string[]): Promise<Float32Array[]> {
    this.texts.push(...texts);
    return this.inner.embed(texts);
  }
}

interface ExecuteBody {
  status: string;
  result: {
    data: Array<{ entity: Record<string, unknown>; metadata: Record<string, unknown> }>;
    meta: { has_more: boolean; cursor: string | null; took_ms: number };
  };
  message?: string;
  errors?: Array<{ field: string | null; error_code: string; message: string }>;
}

const defaults: Omit<SemanticParams, 'prompt'> = { field: 'description', min_similarity: 0.25, dedup: 'max' };

describe.each(storeKinds())('semantic search (%s)', (kind) => {
  let service: TestService;
  let ctx: ServiceContext;
  let indexer: SemanticIndexer;
  let stopIndexing: () => Promise<void>;
  let a: Tenant;
  let b: Tenant;
  let connectorA: string;
  let connectorB: string;
  const offline = new OfflineEmbeddingProvider();

  async function put(tenant: Tenant, connectorId: string, records: Issue[]) {
    const prepared = preparePage(records, issues.record);
    const scope = { organizationId: tenant.organizationId, connectorId, entity: 'issues' };
    const written = await writePage(service.store.db, scope, prepared.records);
    await notifyObservers(ctx, { ...scope, records: written.changed });
    // The sync does not wait for the embeddings: the index catches up in the background.
    await indexer.idle();
    return written;
  }

  function search(
    tenant: Tenant,
    connectorId: string,
    params: Partial<SemanticParams> & { prompt: string },
    options: { limit?: number; cursor?: string; fields?: string[] } = {},
  ) {
    return semanticSearch(
      ctx,
      { organizationId: tenant.organizationId, connectorId, entity: issues, connectorType: 'linear' },
      { ...defaults, ...params },
      { limit: 10, ...options },
    );
  }

  /** Every passage's exact score, computed here from the texts (not from the store). */
  async function exactRanking(records: Issue[], prompt: string, field = 'description') {
    const [query] = await offline.embed([prompt]);
    const window = issues.search.semantic.find((s) => s.field === field)!.context_window;
    const out: Array<{ record: string; ordinal: number; score: number }> = [];
    for (const record of records) {
      const passages = splitPassages(fieldText(record, field), window);
      const vectors = await offline.embed(passages.map((p) => p.text));
      passages.forEach((p, i) => out.push({ record: record.id, ordinal: p.ordinal, score: vectors[i]!.reduce((s, x, d) => s + x * query![d]!, 0) }));
    }
    return out.sort((x, y) => y.score - x.score || (x.record < y.record ? -1 : x.record > y.record ? 1 : x.ordinal - y.ordinal));
  }

  /** What a finished sync leaves: the entity is ready for search. */
  async function markSynced(connectorId: string) {
    await service.store.db
      .insertInto('context_sync_state')
      .values({
        connector_id: connectorId,
        entity: 'issues',
        status: 'ready',
        record_count: 0,
        pages: 1,
        last_synced_at: new Date(),
        started_at: new Date(),
        finished_at: new Date(),
      })
      .onConflict((oc) => oc.columns(['connector_id', 'entity']).doUpdateSet({ status: 'ready' }))
      .execute();
  }

  function execute(tenant: Tenant, connectorId: string, params: Record<string, unknown>, extra: Record<string, unknown> = {}) {
    return tenant.api.post<ExecuteBody>(`/api/v1/integrations/connectors/${connectorId}/execute`, {
      entity: 'issues',
      action: 'context_store_search',
      params,
      ...extra,
    });
  }

  beforeAll(async () => {
    service = await startTestService(kind);
    ctx = service.app.ctx;
    ({ indexer, stop: stopIndexing } = startSemanticIndexing(ctx));
    a = await createTenant(service, 'Org A');
    b = await createTenant(service, 'Org B');
    connectorA = await insertConnector(service, a.organizationId, { connectorType: 'linear', authOption: 'API Key', credentials: { api_key: 'lin_api_a' } });
    connectorB = await insertConnector(service, b.organizationId, { connectorType: 'linear', authOption: 'API Key', credentials: { api_key: 'lin_api_b' } });
    await put(a, connectorA, [...CORPUS, { id: 'i-long', identifier: 'SUP-8', title: 'Long thread', description: longRefundStory(), state: { name: 'Todo' } }]);
    // Organization B holds a record that would rank first for A's prompts.
    await put(b, connectorB, [
      { id: 'b-refund', identifier: 'B-1', title: 'Refund', description: 'Refund: the customer wants the money back for the order.', state: { name: 'Todo' } },
    ]);
    await markSynced(connectorA);
    await markSynced(connectorB);
  });

  afterAll(async () => {
    await stopIndexing();
    await service.close();
  });

  it('uses the HNSW index where pgvector exists (PGlite, a PostgreSQL server offering it) and the exact scan elsewhere', async () => {
    const indexed = await pgvectorOffered(service.store.db);
    expect(await ctx.vectors.hasVectorSupport()).toBe(indexed);
    const { rows } = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE tablename = 'context_passages'`.execute(service.store.db);
    const names = rows.map((row) => row.indexname);
    if (indexed) expect(names).toContain(vectorIndexName(offline.id, 100));
    else expect(names.some((name) => name.startsWith('context_passages_hnsw_'))).toBe(false);
  });

  it('ranks the paraphrase first: "money back" finds the refund issue', async () => {
    const result = await search(a, connectorA, { prompt: 'money back' });
    expect(result.data.length).toBeGreaterThan(0);
    expect(['i-refund', 'i-long', 'i-billing']).toContain(result.data[0]!.entity.id);
    const ids = result.data.map((hit) => hit.entity.id);
    expect(ids.indexOf('i-refund')).toBeLessThan(ids.indexOf('i-chart') === -1 ? Infinity : ids.indexOf('i-chart'));
    for (const hit of result.data) {
      expect(hit.metadata.score).toBeGreaterThanOrEqual(0.25);
      expect(hit.metadata.score).toBeLessThanOrEqual(1);
      expect(typeof hit.metadata.context).toBe('string');
      expect(hit.metadata.field).toBe('description');
    }
    const scores = result.data.map((hit) => hit.metadata.score as number);
    expect([...scores].sort((x, y) => y - x)).toEqual(scores);
    expect(result.meta).toEqual({ has_more: false, cursor: null });
  });

  it.each([
    ['password recovery', 'i-password'],
    ['cannot log in', 'i-password'],
    ['delivery address is incorrect', 'i-address'],
    ['licenses for new hires', 'i-seats'],
    ['graph shows incorrect colours', 'i-chart'],
    ['double charge on my card', 'i-billing'],
  ])('ranks the paraphrase "%s" first', async (prompt, expected) => {
    const result = await search(a, connectorA, { prompt });
    expect(result.data[0]?.entity.id).toBe(expected);
  });

  it('gives the same ranking and scores as an exact computation', async () => {
    const records = [...CORPUS, { id: 'i-long', identifier: 'SUP-8', title: 'Long thread', description: longRefundStory(), state: { name: 'Todo' } }];
    const expected = await exactRanking(records, 'refund the payment', 'description');
    const result = await search(a, connectorA, { prompt: 'refund the payment', min_similarity: -1, dedup: 'none' }, { limit: 100 });
    expect(result.data.map((hit) => [hit.entity.id, hit.metadata.passage])).toEqual(expected.map((e) => [e.record, e.ordinal]));
    result.data.forEach((hit, i) => expect(hit.metadata.score as number).toBeCloseTo(expected[i]?.score ?? Number.NaN, 4));
  });

  it('dedup max keeps the best passage per record; none returns several passages of one record', async () => {
    const max = await search(a, connectorA, { prompt: 'the client wants the money back', min_similarity: -1 }, { limit: 100 });
    const ids = max.data.map((hit) => hit.entity.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toHaveLength(CORPUS.length + 1);
    const none = await search(a, connectorA, { prompt: 'the client wants the money back', min_similarity: -1, dedup: 'none' }, { limit: 100 });
    const long = none.data.filter((hit) => hit.entity.id === 'i-long');
    expect(long.length).toBeGreaterThan(1);
    expect(new Set(long.map((hit) => hit.metadata.passage)).size).toBe(long.length);
    // The record's entry under max is its best passage.
    const best = max.data.find((hit) => hit.entity.id === 'i-long')!;
    expect(best.metadata.score).toBe(Math.max(...long.map((hit) => hit.metadata.score as number)));
  });

  it('min_similarity drops lower scores before dedup and top-k; -1 disables it', async () => {
    const all = await search(a, connectorA, { prompt: 'refund', min_similarity: -1, dedup: 'none' }, { limit: 100 });
    const threshold = (all.data[2]!.metadata.score as number) - 1e-6;
    const cut = await search(a, connectorA, { prompt: 'refund', min_similarity: threshold, dedup: 'none' }, { limit: 100 });
    expect(cut.data.length).toBe(all.data.filter((hit) => (hit.metadata.score as number) >= threshold).length);
    expect(cut.data.every((hit) => (hit.metadata.score as number) >= threshold)).toBe(true);
    const none = await search(a, connectorA, { prompt: 'refund', min_similarity: 0.999 });
    expect(none.data).toEqual([]);
    // Negative scores exist and are returned with -1.
    expect(all.data.length).toBe(
      (await exactRanking([...CORPUS, { id: 'i-long', identifier: '', title: '', description: longRefundStory(), state: { name: '' } }], 'refund')).length,
    );
  });

  it('context_size trims the passage around the match; without it the whole passage comes back', async () => {
    const full = await search(a, connectorA, { prompt: 'refund money back', dedup: 'none' }, { limit: 20 });
    const longHit = full.data.find((hit) => hit.entity.id === 'i-long')!;
    expect((longHit.metadata.context as string).length).toBeGreaterThan(1000);
    expect((longHit.metadata.context as string).length).toBeLessThanOrEqual(2048);
    const trimmed = await search(a, connectorA, { prompt: 'refund money back', dedup: 'none', context_size: 80 }, { limit: 20 });
    for (const hit of trimmed.data) expect((hit.metadata.context as string).length).toBeLessThanOrEqual(80);
    const trimmedLong = trimmed.data.find((hit) => hit.entity.id === 'i-long' && hit.metadata.passage === longHit.metadata.passage)!;
    expect(trimmedLong.metadata.context).toMatch(/refund|money/);
    expect(longHit.metadata.context).toContain(trimmedLong.metadata.context);
  });

  it('projects fields into each hit, defaulting to the searchable fields', async () => {
    const projected = await search(a, connectorA, { prompt: 'money back' }, { fields: ['identifier', 'assignee.name'] });
    const refund = projected.data.find((hit) => hit.metadata.record_id === 'i-refund')!;
    expect(refund.entity).toEqual({ identifier: 'SUP-1', assignee: { name: 'Ada' } });
    const plain = await search(a, connectorA, { prompt: 'money back' });
    const hit = plain.data.find((h) => h.metadata.record_id === 'i-refund')!;
    expect(hit.entity).toMatchObject({ id: 'i-refund', identifier: 'SUP-1', title: 'Customer asks for a refund', state: { name: 'Todo' } });
  });

  it('adds the read-only metadata the manifest declares (search.metadata), and none where it declares none', async () => {
    expect(issues.search.metadata).toEqual({ assignee_name: 'assignee.name', state_name: 'state.name', team_name: 'team.name' });
    const result = await search(a, connectorA, { prompt: 'money back' });
    const refund = result.data.find((hit) => hit.metadata.record_id === 'i-refund')!;
    expect(refund.metadata).toMatchObject({ assignee_name: 'Ada', state_name: 'Todo' });
    const other = result.data.find((hit) => hit.metadata.record_id !== 'i-refund')!;
    expect('assignee_name' in other.metadata).toBe(false);
    const { metadata: _declared, ...searchWithout } = issues.search;
    const bare: EntityDefinition = { ...issues, search: searchWithout };
    const plain = await semanticSearch(
      ctx,
      { organizationId: a.organizationId, connectorId: connectorA, entity: bare, connectorType: 'linear' },
      { ...defaults, prompt: 'money back' },
      { limit: 10 },
    );
    expect(Object.keys(plain.data[0]!.metadata).sort()).toEqual(['context', 'field', 'passage', 'record_id', 'score']);
  });

  it('searches the title field separately from the description', async () => {
    const result = await search(a, connectorA, { field: 'title', prompt: 'dark theme', min_similarity: -1 }, { limit: 3 });
    expect(result.data[0]!.entity.id).toBe('i-dark');
    expect(result.data[0]!.metadata.field).toBe('title');
    await expect(search(a, connectorA, { field: 'state.name', prompt: 'x' })).rejects.toMatchObject({ status: 400 });
  });

  it('pages with a signed cursor in the same order as one large page, and rejects altered or foreign cursors', async () => {
    const params = { prompt: 'customer payment', min_similarity: -1, dedup: 'none' as const };
    const whole = await search(a, connectorA, params, { limit: 100 });
    const seen: unknown[] = [];
    let cursor: string | undefined;
    for (let page = 0; page < 50; page += 1) {
      const result = await search(a, connectorA, params, { limit: 3, ...(cursor !== undefined && { cursor }) });
      seen.push(...result.data.map((hit) => [hit.entity.id, hit.metadata.passage]));
      if (!result.meta.has_more) {
        expect(result.meta.cursor).toBeNull();
        break;
      }
      cursor = result.meta.cursor!;
    }
    expect(seen).toEqual(whole.data.map((hit) => [hit.entity.id, hit.metadata.passage]));
    const first = await search(a, connectorA, params, { limit: 2 });
    const token = first.meta.cursor!;
    const [payload, signature] = token.split('.');
    const altered = `${Buffer.from(JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), s: 1 })).toString('base64url')}.${signature}`;
    await expect(search(a, connectorA, params, { limit: 2, cursor: altered })).rejects.toMatchObject({ status: 400, code: 'invalid_cursor' });
    await expect(search(a, connectorA, { ...params, prompt: 'another prompt' }, { limit: 2, cursor: token })).rejects.toMatchObject({
      status: 400,
      code: 'invalid_cursor',
    });
    await expect(search(a, connectorA, params, { limit: 2, cursor: 'garbage' })).rejects.toMatchObject({ status: 400 });
  });

  it('answers context_store_search with semantic params through execute', async () => {
    const res = await execute(a, connectorA, {
      semantic: { field: 'description', prompt: 'money back', context_size: 60, min_similarity: -1 },
      limit: 2,
      fields: ['identifier', 'state.name'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const { data, meta } = res.body.result;
    expect(data).toHaveLength(2);
    expect(Number.isInteger(meta.took_ms)).toBe(true);
    expect(meta.took_ms).toBeGreaterThanOrEqual(1);
    expect(meta.has_more).toBe(true);
    expect(typeof meta.cursor).toBe('string');
    expect(Object.keys(data[0]!.entity).sort()).toEqual(['identifier', 'state']);
    expect((data[0]!.metadata.context as string).length).toBeLessThanOrEqual(60);
    expect(data[0]!.metadata).toMatchObject({ field: 'description' });
    const next = await execute(a, connectorA, {
      semantic: { field: 'description', prompt: 'money back', context_size: 60, min_similarity: -1 },
      limit: 2,
      fields: ['identifier', 'state.name'],
      cursor: meta.cursor,
    });
    expect(next.status).toBe(200);
    const firstIds = data.map((hit) => hit.metadata.record_id);
    for (const hit of next.body.result.data) expect(firstIds).not.toContain(hit.metadata.record_id);
    const bad = await execute(a, connectorA, { semantic: { field: 'description', prompt: 'money back' }, cursor: `${meta.cursor!}x` });
    expect(bad.status).toBe(400);
    expect(bad.body.errors?.[0]).toMatchObject({ field: 'cursor', error_code: 'invalid_cursor' });
  });

  it('combines a filter with semantic ranking', async () => {
    const res = await execute(a, connectorA, {
      semantic: { field: 'description', prompt: 'money back', filter: { eq: { 'state.name': 'Done' } }, min_similarity: -1 },
      limit: 100,
      fields: ['id', 'state.name'],
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    const ids = res.body.result.data.map((hit) => hit.entity.id);
    expect(ids.sort()).toEqual(
      CORPUS.filter((issue) => issue.state.name === 'Done')
        .map((issue) => issue.id)
        .sort(),
    );
    expect(res.body.result.data.every((hit) => (hit.entity.state as { name: string }).name === 'Done')).toBe(true);
    const direct = await search(a, connectorA, {
      prompt: 'money back',
      filter: { or: [{ eq: { 'state.name': 'Backlog' } }, { contains: { title: 'refund' } }] },
      min_similarity: -1,
    });
    expect(direct.data.map((hit) => hit.entity.id).sort()).toEqual(['i-dark', 'i-refund']);
    // The filter is checked against the searchable fields.
    const wrong = await execute(a, connectorA, { semantic: { field: 'description', prompt: 'x', filter: { eq: { nope: 1 } } } });
    expect(wrong.status).toBe(400);
    expect(wrong.body.errors?.[0]?.field).toMatch(/^semantic\.filter/);
  });

  it('keeps organizations apart', async () => {
    const cross = await execute(b, connectorA, { semantic: { field: 'description', prompt: 'refund' } });
    expect(cross.status).toBe(404);
    expect(JSON.stringify(cross.body)).not.toContain('i-refund');
    const result = await search(a, connectorA, { prompt: 'refund money back', min_similarity: -1 }, { limit: 100 });
    expect(result.data.some((hit) => hit.entity.id === 'b-refund')).toBe(false);
    const own = await search(b, connectorB, { prompt: 'refund money back' });
    expect(own.data.map((hit) => hit.entity.id)).toEqual(['b-refund']);
    // Another organization's connector id yields nothing, even if a caller got past the route's check.
    expect((await search(b, connectorA, { prompt: 'refund', min_similarity: -1 })).data).toEqual([]);
    expect((await search(a, connectorB, { prompt: 'refund', min_similarity: -1 })).data).toEqual([]);
  });

  it('does not re-embed a record re-synced unchanged, nor the unchanged passages of a changed record', async () => {
    const counting = new CountingProvider(offline);
    setEmbeddingProvider(ctx, counting);
    try {
      const again = await put(a, connectorA, CORPUS);
      expect(again.changed).toEqual([]);
      // A retried page reports the same records again: the index skips them.
      await notifyObservers(ctx, {
        organizationId: a.organizationId,
        connectorId: connectorA,
        entity: 'issues',
        records: CORPUS.map((r) => ({ recordId: r.id, data: r })),
      });
      await indexer.idle();
      expect(counting.texts).toEqual([]);
      // Only the state changes: title and description passages keep their embeddings.
      const moved = { ...CORPUS[0]!, state: { name: 'In Progress' } };
      expect((await put(a, connectorA, [moved])).changed).toHaveLength(1);
      expect(counting.texts).toEqual([]);
      // The description changes: only that passage is embedded.
      const edited = { ...moved, description: 'The customer now also wants a discount on the next invoice.' };
      await put(a, connectorA, [edited]);
      expect(counting.texts).toEqual([edited.description]);
      const result = await search(a, connectorA, { prompt: 'discount on the invoice' });
      expect(result.data[0]!.entity.id).toBe('i-refund');
    } finally {
      setEmbeddingProvider(ctx, offline);
      await put(a, connectorA, [CORPUS[0]!]);
    }
  });

  it('leaves deleted records out of the results', async () => {
    const connector = await insertConnector(service, a.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'lin_api_c' },
      name: 'deletions',
    });
    await put(a, connector, CORPUS.slice(0, 3));
    expect((await search(a, connector, { prompt: 'money back', min_similarity: -1 })).data).toHaveLength(3);
    // Two full syncs that read every record but i-refund: the first one's sweep notes it, the second one's marks it deleted.
    const scope = { organizationId: a.organizationId, connectorId: connector, entity: 'issues' };
    const seen = CORPUS.slice(0, 3).filter((issue) => issue.id !== 'i-refund');
    for (const expected of [
      { deleted: 0, unconfirmed: 1 },
      { deleted: 1, unconfirmed: 0 },
    ]) {
      await writePage(service.store.db, scope, preparePage(seen, issues.record).records, { track: true });
      expect(await sweepUnseen(service.store.db, scope)).toEqual(expected);
      await forgetSeen(service.store.db, scope);
    }
    const after = await search(a, connector, { prompt: 'money back', min_similarity: -1 });
    expect(after.data.map((hit) => hit.entity.id).sort()).toEqual(['i-address', 'i-password']);
  });

  it('re-embeds everything when the provider changes, and searches with the new model', async () => {
    const hashing = new HashingProvider();
    const count = async (model: string) =>
      Number(
        (
          await service.store.db
            .selectFrom('context_passages')
            .select((eb) => eb.fn.countAll<string>().as('n'))
            .where('connector_id', '=', connectorA)
            .where('model', '=', model)
            .executeTakeFirstOrThrow()
        ).n,
      );
    const before = await count(offline.id);
    expect(before).toBeGreaterThan(CORPUS.length);
    setEmbeddingProvider(ctx, hashing);
    try {
      expect(await semanticIndexStatus(ctx, connectorA, 'issues')).toBe('INDEXING');
      const stats = await indexer.reconcile();
      expect(stats.records).toBeGreaterThanOrEqual(CORPUS.length + 1);
      expect(await count(hashing.id)).toBe(before);
      expect(await count(offline.id)).toBe(0);
      expect(await semanticIndexStatus(ctx, connectorA, 'issues')).toBe('READY');
      expect(hashing.calls).toBeGreaterThan(0);
      const result = await search(a, connectorA, { prompt: 'enterprise license seats' });
      expect(result.data[0]!.entity.id).toBe('i-seats');
      // A second reconcile has nothing to do.
      const calls = hashing.calls;
      expect((await indexer.reconcile()).records).toBe(0);
      expect(hashing.calls).toBe(calls);
    } finally {
      setEmbeddingProvider(ctx, offline);
      await indexer.reconcile();
    }
    expect(await count(offline.id)).toBe(before);
    expect(embeddingProvider(ctx).id).toBe(offline.id);
  });

  it('ranks by exact scan a scope small enough to scan, where the index can miss a passage unlike its neighbours', { timeout: 60_000 }, async () => {
    const connector = await insertConnector(service, a.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'lin_api_t' },
      name: 'templated',
    });
    // Templated tickets, and one unlike them all: among these, the HNSW graph often cannot reach the refund.
    const refund: Issue = { id: 't-refund', identifier: 'T-0', title: 'Refund request', description: 'Refund request', state: { name: 'Todo' } };
    const templated: Issue[] = Array.from({ length: 2000 }, (_, i) => ({
      id: `t-${String(i).padStart(4, '0')}`,
      identifier: `T-${i + 1}`,
      title: `Customer feedback survey number ${i}`,
      description: `Customer feedback survey number ${i}`,
      state: { name: 'Todo' },
    }));
    const records = [refund, ...templated];
    for (let i = 0; i < records.length; i += 250) await put(a, connector, records.slice(i, i + 250));
    expect(ctx.vectors.exactScanLimit(offline.vocabulary.dimensions)).toBeGreaterThan(records.length);
    const before = { ...ctx.vectors.searches };
    const result = await search(a, connector, { prompt: 'money back', min_similarity: -1 }, { limit: 5 });
    expect(ctx.vectors.searches).toEqual({ index: before.index, exact: before.exact + 1 });
    const expected = (await exactRanking(records, 'money back')).slice(0, 5);
    expect(expected[0]?.record).toBe('t-refund');
    expect(result.data[0]?.metadata.record_id).toBe('t-refund');
    result.data.forEach((hit, i) => expect(hit.metadata.score as number).toBeCloseTo(expected[i]?.score ?? Number.NaN, 4));
  });

  it('ranks through the HNSW index a scope beyond the exact scan budget, with the same results as the exact scan', async () => {
    const connector = await insertConnector(service, a.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'lin_api_d' },
      name: 'larger',
    });
    const topics = [
      'refund of the payment',
      'password reset email',
      'shipping address change',
      'dark mode request',
      'invoice download',
      'team seats license',
      'slow dashboard',
      'export to spreadsheet',
    ];
    const records: Issue[] = Array.from({ length: 400 }, (_, i) => ({
      id: `n-${String(i).padStart(3, '0')}`,
      identifier: `N-${i}`,
      title: `Issue ${i}`,
      description: `Ticket ${i} about ${topics[i % topics.length]} for customer ${i % 37} in region ${i % 11}.`,
      state: { name: i % 2 ? 'Todo' : 'Done' },
    }));
    await put(a, connector, records);
    const before = { ...ctx.vectors.searches };
    // 800 passages stand for a scope beyond the budget (over 10 000 passages by default).
    ctx.vectors.exactScanBudgetMs = 0;
    const result = await search(a, connector, { prompt: 'customer wants money back', min_similarity: -1 }, { limit: 10 }).finally(() => {
      ctx.vectors.exactScanBudgetMs = EXACT_SCAN_BUDGET_MS;
    });
    if (await pgvectorOffered(service.store.db)) expect(ctx.vectors.searches.index).toBe(before.index + 1);
    else expect(ctx.vectors.searches.exact).toBe(before.exact + 1);
    const expected = await exactRanking(records, 'customer wants money back');
    const seen = new Set<string>();
    const top = expected.filter((e) => !seen.has(e.record) && seen.add(e.record)).slice(0, 10);
    // Ties are broken by record id in both; allow the scores to match to 1e-4.
    result.data.forEach((hit, i) => expect(hit.metadata.score as number).toBeCloseTo(top[i]!.score, 4));
    expect(result.meta.has_more).toBe(true);
  });

  /**
   * A connector of the organization holding `count` issues' passages: a neighbour of the one under test (so that
   * other connectors hold at least as many), or one whose index builds are under test. Returns its id.
   */
  async function neighbour(tenant: Tenant, count: number, key: string, workspace?: string): Promise<string> {
    const id = await insertConnector(service, tenant.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: `lin_api_${key}` },
      name: `neighbour ${key}`,
      ...(workspace !== undefined && { workspace }),
    });
    const records: Issue[] = Array.from({ length: count }, (_, i) => ({
      id: `${key}-${i}`,
      identifier: `${key.toUpperCase()}-${i}`,
      title: `Issue ${i}`,
      description: `Note ${i} on shipping to region ${i % 9} and invoices of month ${i % 12}.`,
      state: { name: 'Done' },
    }));
    await put(tenant, id, records);
    return id;
  }

  /** A connector holding `count` issues with one 3-dimension passage each, of `model`, written directly. Returns its id. */
  async function connectorWithPassages(name: string, count: number, model: string): Promise<string> {
    const connector = await insertConnector(service, a.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'lin_api_g' },
      name,
    });
    const records = Array.from({ length: count }, (_, i) => ({
      id: `${name}-${i}`,
      identifier: `S-${i}`,
      title: `Issue ${i}`,
      description: 'x',
      state: { name: 'Todo' },
    }));
    await writePage(
      service.store.db,
      { organizationId: a.organizationId, connectorId: connector, entity: 'issues' },
      preparePage(records, issues.record).records,
    );
    for (const [i, record] of records.entries()) {
      await sql`
        INSERT INTO context_passages (connector_id, entity, record_id, field, ordinal, organization_id, start_offset, content, content_hash, model, dims, embedding)
        VALUES (${connector}, 'issues', ${record.id}, 'description', 0, ${a.organizationId}, 0, 'x', 'h', ${model}, 3, ${`{1,${i},0}`}::real[])`.execute(
        service.store.db,
      );
    }
    return connector;
  }

  it("gives a large scope that shares the model's index with other connectors an index of its own (PostgreSQL), which its searches use, dropped with the connector", async () => {
    const builds = kind === 'postgres' && (await pgvectorOffered(service.store.db));
    const connector = await insertConnector(service, a.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'lin_api_e' },
      name: 'tenant with its own index',
    });
    await neighbour(a, 300, 'nb1');
    const records: Issue[] = Array.from({ length: 300 }, (_, i) => ({
      id: `o-${String(i).padStart(3, '0')}`,
      identifier: `O-${i}`,
      title: `Issue ${i}`,
      description: `Ticket ${i} about ${i % 3 === 0 ? 'a refund of the payment' : i % 3 === 1 ? 'a password reset' : 'a slow dashboard'} for customer ${i % 13}.`,
      state: { name: 'Todo' },
    }));
    await put(a, connector, records);
    const name = connectorVectorIndexName(connector, offline.id, 100);
    const indexNames = async () =>
      (await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE tablename = 'context_passages'`.execute(service.store.db)).rows.map(
        (row) => row.indexname,
      );
    const before = { ...ctx.vectors.connectorIndexBuilds };
    ctx.vectors.exactScanBudgetMs = 0; // 300 passages stand for a scope beyond the budget
    try {
      const first = await search(a, connector, { prompt: 'money back', min_similarity: -1 }, { limit: 5 });
      await ctx.vectors.connectorIndexSettled(connector, offline.id, 100);
      if (!builds) {
        // Without pgvector every search is an exact scan: no index of any kind. PGlite builds none (it would stop
        // the service while it builds): its searches use the model's index.
        expect(ctx.vectors.connectorIndexBuilds).toEqual(before);
        expect(await indexNames()).not.toContain(name);
        expect(first.data).toHaveLength(5);
        return;
      }
      expect(ctx.vectors.connectorIndexBuilds).toEqual({ started: before.started + 1, built: before.built + 1 });
      expect(await indexNames()).toContain(name);
      expect(name).toHaveLength(63);

      // The service's candidate query (the connector id a bound parameter) is planned onto the connector's index.
      const [query] = await offline.embed(['money back']);
      const vector = `[${Array.from(query ?? []).join(',')}]`;
      const { rows: plan } = await sql<{ 'QUERY PLAN': string }>`
        EXPLAIN SELECT p.record_id FROM context_passages p
        WHERE p.organization_id = ${a.organizationId} AND p.connector_id = ${connector} AND p.entity = 'issues' AND p.field = 'description'
          AND p.model = ${sql.lit(offline.id)} AND p.dims = 100
        ORDER BY p.embedding::vector(100) <=> ${vector}::vector(100) LIMIT 20`.execute(service.store.db);
      expect(plan.map((row) => row['QUERY PLAN']).join('\n')).toContain(`Index Scan using ${name}`);

      // Its searches rank as the exact computation does.
      const result = await search(a, connector, { prompt: 'money back', min_similarity: -1 }, { limit: 5 });
      const expected = await exactRanking(records, 'money back');
      result.data.forEach((hit, i) => expect(hit.metadata.score as number).toBeCloseTo(expected[i]?.score ?? Number.NaN, 4));
      // A second search builds nothing more.
      expect(ctx.vectors.connectorIndexBuilds.started).toBe(before.started + 1);
    } finally {
      ctx.vectors.exactScanBudgetMs = EXACT_SCAN_BUDGET_MS;
    }

    await deleteConnector(ctx, a.organizationId, connector);
    await ctx.vectors.idle(); // the indexes are dropped in the background
    expect(await indexNames()).not.toContain(name);
    expect(await indexNames()).toContain(vectorIndexName(offline.id, 100));
  });

  it("drops the own indexes of a deleted workspace's connectors", async () => {
    await neighbour(a, 200, 'nb2');
    const connector = await neighbour(a, 200, 'w', 'short-lived');
    const name = connectorVectorIndexName(connector, offline.id, 100);
    const hasIndex = async () =>
      (await sql<{ present: number }>`SELECT 1 AS present FROM pg_indexes WHERE indexname = ${name}`.execute(service.store.db)).rows.length > 0;
    ctx.vectors.exactScanBudgetMs = 0;
    try {
      await search(a, connector, { prompt: 'money back', min_similarity: -1 }, { limit: 5 });
      await ctx.vectors.connectorIndexSettled(connector, offline.id, 100);
    } finally {
      ctx.vectors.exactScanBudgetMs = EXACT_SCAN_BUDGET_MS;
    }
    expect(await hasIndex()).toBe(kind === 'postgres' && (await pgvectorOffered(service.store.db)));
    const { rows } = await sql<{ workspace_id: string }>`SELECT workspace_id FROM connectors WHERE id = ${connector}`.execute(service.store.db);
    const res = await a.api.delete(`/api/v1/workspaces/${rows[0]?.workspace_id}`);
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ connectors_deleted: 1 });
    await ctx.vectors.idle(); // the indexes are dropped in the background
    expect(await hasIndex()).toBe(false);
  });

  it("builds a connector's own index in one process at a time, and replaces one a failed build left invalid", async ({ skip }) => {
    if (kind !== 'postgres' || !(await pgvectorOffered(service.store.db))) {
      skip('needs several sessions of a PostgreSQL server offering pgvector');
    }
    await neighbour(a, 150, 'nb4');
    const connector = await neighbour(a, 150, 'p');
    const name = connectorVectorIndexName(connector, offline.id, 100);
    const db = service.store.db;
    const definition = async () =>
      (
        await sql<{ valid: boolean; definition: string }>`
          SELECT indisvalid AS valid, pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indexrelid = to_regclass(${name})`.execute(db)
      ).rows[0];

    // A failed concurrent build leaves an invalid index of that name behind (here: a unique index over duplicates).
    await expect(sql`CREATE UNIQUE INDEX CONCURRENTLY ${sql.id(name)} ON context_passages (model)`.execute(db)).rejects.toThrow(/duplicate|unique/i);
    expect(await definition()).toMatchObject({ valid: false });

    // Another process holds the build lock (it is building the index): this one neither builds nor drops it.
    const lockKey = sql`${727_100_006}, hashtext(${name})`;
    await db.connection().execute(async (other) => {
      await sql`SELECT pg_advisory_lock(${lockKey})`.execute(other);
      try {
        const meanwhile = new VectorIndexes(db, kind);
        meanwhile.noteLargeScope(connector, offline.id, 100);
        await meanwhile.connectorIndexSettled(connector, offline.id, 100);
        expect(meanwhile.connectorIndexBuilds).toEqual({ started: 0, built: 0 });
        // Its searches walk the model's index until the other process's build ends: with more candidates.
        expect(meanwhile.efSearchFor(connector, offline.id, 100)).toBe(SHARED_SCOPE_EF_SEARCH);
        expect(await definition()).toMatchObject({ valid: false });
      } finally {
        await sql`SELECT pg_advisory_unlock(${lockKey})`.execute(other);
      }
    });

    // Once the lock is free, a process finding the invalid index replaces it with the HNSW index.
    const later = new VectorIndexes(db, kind);
    later.noteLargeScope(connector, offline.id, 100);
    await later.connectorIndexSettled(connector, offline.id, 100);
    expect(later.connectorIndexBuilds).toEqual({ started: 1, built: 1 });
    expect(later.efSearchFor(connector, offline.id, 100)).toBe(HNSW_EF_SEARCH);
    const built = await definition();
    expect(built?.valid).toBe(true);
    expect(built?.definition).toContain('USING hnsw');
    expect(built?.definition).toContain(connector);

    // A process finding it valid builds nothing.
    const third = new VectorIndexes(db, kind);
    third.noteLargeScope(connector, offline.id, 100);
    await third.connectorIndexSettled(connector, offline.id, 100);
    expect(third.connectorIndexBuilds).toEqual({ started: 0, built: 0 });
    await deleteConnector(ctx, a.organizationId, connector);
    await ctx.vectors.idle(); // the indexes are dropped in the background
    expect(await definition()).toBeUndefined();
  });

  it("sizes the memory of a connector index build for its passages, then puts the session's own setting back", async ({ skip }) => {
    if (kind !== 'postgres' || !(await pgvectorOffered(service.store.db))) skip('needs a PostgreSQL server offering pgvector');
    await neighbour(a, 400, 'nb5');
    const connector = await neighbour(a, 400, 'm');
    const { rows: counted } = await sql<{ passages: number }>`
      SELECT count(*)::int AS passages FROM context_passages WHERE connector_id = ${connector} AND model = ${offline.id}`.execute(service.store.db);
    const passages = counted[0]?.passages ?? 0;
    const asked: unknown[][] = [];
    const recorder: KyselyPlugin = {
      transformQuery: ({ node }) => {
        if (node.kind === 'RawNode' && node.sqlFragments.join('?').includes("set_config('maintenance_work_mem'")) {
          asked.push(node.parameters.map((parameter) => (parameter.kind === 'ValueNode' ? (parameter as ValueNode).value : parameter.kind)));
        }
        return node;
      },
      transformResult: async ({ result }) => result,
    };
    const indexes = new VectorIndexes(service.store.db.withPlugin(recorder), kind, 1024);
    const { rows: setting } = await sql<{ memory: string }>`SELECT current_setting('maintenance_work_mem') AS memory`.execute(service.store.db);
    try {
      indexes.noteLargeScope(connector, offline.id, 100);
      await indexes.connectorIndexSettled(connector, offline.id, 100);
      expect(indexes.connectorIndexBuilds).toEqual({ started: 1, built: 1 });
      // Raised to what the passages need (never lowered: the server's setting wins when larger), then put back.
      expect(asked).toEqual([[hnswBuildMemoryKb(passages, 100, 1024), false], [setting[0]?.memory]]);
    } finally {
      await deleteConnector(ctx, a.organizationId, connector);
    }
  });

  it('builds the own indexes of several connectors searched at once one after the other', async ({ skip }) => {
    if (kind !== 'postgres' || !(await pgvectorOffered(service.store.db))) {
      skip('needs a PostgreSQL server offering pgvector (PGlite has one connection: its builds never overlap)');
    }
    const connectors: string[] = [];
    for (const key of ['q1', 'q2', 'q3']) connectors.push(await neighbour(a, 150, key));
    // Which CREATE INDEX statements were running, as the queries went out and their results came back.
    const running = new Set<unknown>();
    let mostAtOnce = 0;
    const recorder: KyselyPlugin = {
      transformQuery: ({ node, queryId }) => {
        if (node.kind === 'RawNode' && node.sqlFragments.join('?').includes('CREATE INDEX')) {
          running.add(queryId);
          mostAtOnce = Math.max(mostAtOnce, running.size);
        }
        return node;
      },
      transformResult: async ({ result, queryId }) => {
        running.delete(queryId);
        return result;
      },
    };
    const indexes = new VectorIndexes(service.store.db.withPlugin(recorder), kind);
    try {
      for (const connector of connectors) indexes.noteLargeScope(connector, offline.id, 100);
      for (const connector of connectors) await indexes.connectorIndexSettled(connector, offline.id, 100);
      expect(indexes.connectorIndexBuilds).toEqual({ started: 3, built: 3 });
      expect(mostAtOnce).toBe(1);
    } finally {
      for (const connector of connectors) await deleteConnector(ctx, a.organizationId, connector);
    }
  });

  it('cancels a connector index build under way when it stops (a shutdown), leaving no index behind', { timeout: 90_000 }, async ({ skip }) => {
    if (kind !== 'postgres' || !(await pgvectorOffered(service.store.db))) skip('needs a PostgreSQL server offering pgvector');
    await neighbour(a, 150, 'nb6');
    const connector = await neighbour(a, 150, 's');
    const name = connectorVectorIndexName(connector, offline.id, 100);
    const db = service.store.db;
    const indexes = new VectorIndexes(db, kind);
    // An open transaction that has written to context_passages holds the concurrent build in its wait for older
    // transactions: it cannot end while the transaction is open.
    await db.connection().execute(async (blocker) => {
      await sql`BEGIN`.execute(blocker);
      let stopping: Promise<void> | undefined;
      let built: Promise<void> = Promise.resolve();
      let settled = false;
      try {
        await sql`LOCK TABLE context_passages IN ROW EXCLUSIVE MODE`.execute(blocker);
        indexes.noteLargeScope(connector, offline.id, 100);
        built = indexes.connectorIndexSettled(connector, offline.id, 100);
        built.catch(() => {
          settled = true;
        });
        await vi.waitFor(
          async () => {
            const { rows } = await sql<{ waiting: number }>`
              SELECT count(*)::int AS waiting FROM pg_stat_activity
              WHERE pid <> pg_backend_pid() AND state = 'active' AND query LIKE ${`%CREATE INDEX CONCURRENTLY IF NOT EXISTS "${name}"%`}`.execute(db);
            expect(rows[0]?.waiting).toBe(1);
          },
          { timeout: 30_000, interval: 50 },
        );
        stopping = indexes.stop();
        // Cancelled, the build has ended (cancelled before its index existed: another session's ANALYZE held the
        // table), or it drops the index it left, which waits for the open transaction to end.
        await vi.waitFor(
          async () => {
            const { rows } = await sql<{ waiting: number }>`
              SELECT count(*)::int AS waiting FROM pg_stat_activity
              WHERE pid <> pg_backend_pid() AND state = 'active' AND query LIKE ${`%DROP INDEX CONCURRENTLY IF EXISTS "${name}"%`}`.execute(db);
            expect(settled || rows[0]?.waiting === 1).toBe(true);
          },
          { timeout: 30_000, interval: 50 },
        );
      } finally {
        await sql`COMMIT`.execute(blocker);
      }
      await expect(built).rejects.toThrow(/cancel/i);
      await stopping;
    });
    expect(indexes.connectorIndexBuilds).toEqual({ started: 1, built: 0 });
    const { rows } = await sql`SELECT 1 FROM pg_class WHERE relname = ${name}`.execute(db);
    expect(rows).toEqual([]);
    // Stopped: later searches start no build.
    indexes.noteLargeScope(connector, offline.id, 100);
    await indexes.connectorIndexSettled(connector, offline.id, 100);
    expect(indexes.connectorIndexBuilds).toEqual({ started: 1, built: 0 });
    await deleteConnector(ctx, a.organizationId, connector);
  });

  it("builds a model's index over many stored passages in the background on PostgreSQL (answering 'no index' to searches, which scan exactly, until it is there), and replaces one left invalid", async ({
    skip,
  }) => {
    if (!(await pgvectorOffered(service.store.db))) skip('needs pgvector');
    const model = 'background-build-test-model';
    const connector = await connectorWithPassages('background-build', 30, model);
    const name = vectorIndexName(model, 3);
    const definition = async () =>
      (
        await sql<{ valid: boolean; definition: string }>`
          SELECT indisvalid AS valid, pg_get_indexdef(indexrelid) AS definition FROM pg_index WHERE indexrelid = to_regclass(${name})`.execute(service.store.db)
      ).rows[0];
    const buildsOver30Passages = async () => {
      const indexes = new VectorIndexes(service.store.db, kind);
      indexes.modelIndexInlineMax = 10; // 30 passages stand for a large store
      const first = await indexes.ensureVectorIndex(model, 3);
      if (kind === 'postgres') {
        expect(first).toBe(false); // searches scan exactly until it is built
        await indexes.modelIndexBuilt(model, 3);
        expect(indexes.modelIndexBuilds).toEqual({ started: 1, built: 1 });
      } else {
        expect(first).toBe(true); // PGlite builds in the request, as it builds everything
        expect(indexes.modelIndexBuilds).toEqual({ started: 0, built: 0 });
      }
      expect(await indexes.ensureVectorIndex(model, 3)).toBe(true);
      const built = await definition();
      expect(built?.valid).toBe(true);
      expect(built?.definition).toContain('USING hnsw');
    };
    try {
      await buildsOver30Passages();
      if (kind === 'postgres') {
        // A process that stopped mid-build leaves the index invalid: the next process replaces it.
        await sql`DROP INDEX ${sql.id(name)}`.execute(service.store.db);
        await expect(sql`CREATE UNIQUE INDEX CONCURRENTLY ${sql.id(name)} ON context_passages (model)`.execute(service.store.db)).rejects.toThrow(
          /duplicate|unique/i,
        );
        expect(await definition()).toMatchObject({ valid: false });
        await buildsOver30Passages();
      }
    } finally {
      await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(service.store.db);
      await deleteConnector(ctx, a.organizationId, connector);
    }
  });

  it("answers 'no index' without looking again for a while when another process is building a model's index, then finds it built", async ({ skip }) => {
    if (kind !== 'postgres' || !(await pgvectorOffered(service.store.db))) {
      skip('needs several sessions of a PostgreSQL server offering pgvector');
    }
    const db = service.store.db;
    const model = 'busy-build-test-model';
    const connector = await connectorWithPassages('busy-build', 30, model);
    const name = vectorIndexName(model, 3);
    const lockKey = sql`${727_100_006}, hashtext(${name})`;
    const makeValid = async () => {
      await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
      await sql`CREATE INDEX ${sql.id(name)} ON context_passages USING hnsw ((embedding::vector(3)) vector_cosine_ops) WHERE model = ${sql.lit(model)} AND dims = 3`.execute(
        db,
      );
    };
    // Both paths of a build held by another process: in the background (over modelIndexInlineMax passages),
    // and inline (fewer passages, its invalid index found while that process builds it).
    for (const path of ['background', 'inline'] as const) {
      await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
      if (path === 'inline') {
        await expect(sql`CREATE UNIQUE INDEX CONCURRENTLY ${sql.id(name)} ON context_passages (model)`.execute(db)).rejects.toThrow(/duplicate|unique/i);
      }
      const indexes = new VectorIndexes(db, kind);
      if (path === 'background') indexes.modelIndexInlineMax = 10;
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        await db.connection().execute(async (other) => {
          await sql`SELECT pg_advisory_lock(${lockKey})`.execute(other);
          try {
            expect(await indexes.ensureVectorIndex(model, 3)).toBe(false);
            await indexes.modelIndexBuilt(model, 3);
            expect(indexes.modelIndexBuilds).toEqual({ started: 0, built: 0 });
            // The other process ends its build: this one answers as it found until the recheck is due.
            await makeValid();
            vi.setSystemTime(Date.now() + indexes.modelIndexBusyRecheckMs - 1000);
            expect(await indexes.ensureVectorIndex(model, 3)).toBe(false);
          } finally {
            await sql`SELECT pg_advisory_unlock(${lockKey})`.execute(other);
          }
        });
        vi.setSystemTime(Date.now() + 2000);
        expect(await indexes.ensureVectorIndex(model, 3)).toBe(true);
        expect(indexes.modelIndexBuilds).toEqual({ started: 0, built: 0 });
      } finally {
        vi.useRealTimers();
      }
    }
    await sql`DROP INDEX IF EXISTS ${sql.id(name)}`.execute(db);
    await deleteConnector(ctx, a.organizationId, connector);
  });

  it("keeps more candidates for a connector searching a model's index mostly made of other connectors' passages, until it has its own", async ({ skip }) => {
    if (!(await ctx.vectors.hasVectorSupport())) skip('no HNSW index without pgvector');
    const model = 'shared-scope-ef-test-model';
    const large = await connectorWithPassages('ef-large', 6, model);
    const small = await connectorWithPassages('ef-small', 3, model);
    const indexes = new VectorIndexes(service.store.db, kind);
    try {
      expect(indexes.efSearchFor(small, model, 3)).toBe(HNSW_EF_SEARCH); // nothing known yet
      indexes.noteLargeScope(small, model, 3);
      await indexes.connectorIndexSettled(small, model, 3);
      if (kind === 'postgres') {
        // Its own index was built: its searches walk that, with the usual candidates.
        expect(indexes.connectorIndexBuilds).toEqual({ started: 1, built: 1 });
        expect(indexes.efSearchFor(small, model, 3)).toBe(HNSW_EF_SEARCH);
      } else {
        // PGlite builds none: the other connector holds 6 of the model's 9 passages.
        expect(indexes.connectorIndexBuilds).toEqual({ started: 0, built: 0 });
        expect(indexes.efSearchFor(small, model, 3)).toBe(SHARED_SCOPE_EF_SEARCH);
      }
      indexes.noteLargeScope(large, model, 3);
      await indexes.connectorIndexSettled(large, model, 3);
      expect(indexes.efSearchFor(large, model, 3)).toBe(HNSW_EF_SEARCH); // most of the model's index is its own
    } finally {
      await deleteConnector(ctx, a.organizationId, large);
      await deleteConnector(ctx, a.organizationId, small);
    }
  });

  it("answers a connector's deletion at once while another index build holds the table, dropping its index after", { timeout: 90_000 }, async ({ skip }) => {
    if (kind !== 'postgres' || !(await pgvectorOffered(service.store.db))) skip('needs a PostgreSQL server offering pgvector');
    await neighbour(a, 150, 'nb7');
    const deleted = await neighbour(a, 150, 'd');
    const building = await neighbour(a, 150, 'e');
    ctx.vectors.noteLargeScope(deleted, offline.id, 100);
    await ctx.vectors.connectorIndexSettled(deleted, offline.id, 100);
    const name = connectorVectorIndexName(deleted, offline.id, 100);
    const present = async () => (await sql`SELECT 1 FROM pg_class WHERE relname = ${name}`.execute(service.store.db)).rows.length > 0;
    expect(await present()).toBe(true);
    const other = new VectorIndexes(service.store.db, kind); // another process's build
    await service.store.db.connection().execute(async (blocker) => {
      await sql`BEGIN`.execute(blocker);
      try {
        // An open transaction that wrote to context_passages keeps the other build (and any concurrent drop) waiting.
        await sql`LOCK TABLE context_passages IN ROW EXCLUSIVE MODE`.execute(blocker);
        other.noteLargeScope(building, offline.id, 100);
        await vi.waitFor(
          async () => {
            const { rows } = await sql<{ running: number }>`
              SELECT count(*)::int AS running FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND state = 'active'
                AND query LIKE ${`%CREATE INDEX CONCURRENTLY IF NOT EXISTS "${connectorVectorIndexName(building, offline.id, 100)}"%`}`.execute(
              service.store.db,
            );
            expect(rows[0]?.running).toBe(1);
          },
          { timeout: 30_000, interval: 50 },
        );
        const started = performance.now();
        const res = await a.api.delete(`/api/v1/integrations/connectors/${deleted}`);
        expect(res.status).toBe(202);
        expect(performance.now() - started).toBeLessThan(5000);
      } finally {
        await sql`COMMIT`.execute(blocker);
      }
    });
    await other.connectorIndexSettled(building, offline.id, 100);
    await ctx.vectors.idle(); // the deleted connector's index is dropped in the background
    expect(await present()).toBe(false);
    await deleteConnector(ctx, a.organizationId, building);
    await ctx.vectors.idle();
  });

  it('embeds with an OpenAI-compatible endpoint: exact request body and bearer key, key never returned', async () => {
    const KEY = 'sk-test-embeddings-secret-0001';
    const BASE = 'https://embeddings.example.test/v1';
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    // Three made-up dimensions: money, access, everything else.
    const vectorOf = (text: string) => [/refund|money|payment|charged/i.test(text) ? 1 : 0, /password|log in|sign/i.test(text) ? 1 : 0, 0.2];
    const requests: Array<{ body: { model: string; input: string[] }; authorization: string | undefined }> = [];
    const endpoint = nock(BASE)
      .persist()
      .post('/embeddings')
      .reply(function reply(_uri, body) {
        const parsed = body as { model: string; input: string[] };
        requests.push({ body: parsed, authorization: this.req.headers.authorization });
        return [
          200,
          { object: 'list', model: parsed.model, data: parsed.input.map((text, index) => ({ object: 'embedding', index, embedding: vectorOf(text) })) },
        ];
      });
    const provider = providerFromConfig({ ...service.config, embeddings: { url: BASE, model: 'text-embedding-3-small', apiKey: KEY } });
    setEmbeddingProvider(ctx, provider);
    const connector = await insertConnector(service, a.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'lin_api_f' },
      name: 'openai',
    });
    try {
      const records = [CORPUS[0]!, CORPUS[2]!, CORPUS[5]!];
      await put(a, connector, records);
      await markSynced(connector);
      // One request for the page: every passage (description and title of each record), in order.
      expect(requests).toHaveLength(1);
      expect(requests[0]!.body).toEqual({ model: 'text-embedding-3-small', input: records.flatMap((r) => [r.description, r.title]) });
      expect(requests[0]!.authorization).toBe(`Bearer ${KEY}`);
      const res = await execute(a, connector, { semantic: { field: 'description', prompt: 'I cannot sign in' } });
      expect(res.status, JSON.stringify(res.body)).toBe(200);
      expect(requests.at(-1)!.body).toEqual({ model: 'text-embedding-3-small', input: ['I cannot sign in'] });
      expect(res.body.result.data[0]!.entity.id).toBe('i-password');
      const stored = await service.store.db.selectFrom('context_passages').select(['model', 'dims']).where('connector_id', '=', connector).execute();
      expect(new Set(stored.map((row) => `${row.model}/${row.dims}`))).toEqual(new Set(['openai-compatible:text-embedding-3-small/3']));
      // The endpoint failing: a 502 in the envelope, naming the status, never the key.
      nock.cleanAll();
      nock(BASE)
        .post('/embeddings')
        .times(3)
        .reply(500, { error: { message: 'model overloaded' } });
      const failed = await execute(a, connector, { semantic: { field: 'description', prompt: 'refund please' } });
      expect(failed.status).toBe(502);
      expect(failed.body.message).toContain('500');
      for (const body of [res.body, failed.body]) expect(JSON.stringify(body)).not.toContain(KEY);
    } finally {
      endpoint.persist(false);
      nock.cleanAll();
      nock.enableNetConnect();
      setEmbeddingProvider(ctx, offline);
    }
  });

  it('answers an empty list for a prompt with no word', async () => {
    expect(await search(a, connectorA, { prompt: '?!', min_similarity: -1 })).toEqual({ data: [], meta: { has_more: false, cursor: null } });
  });

  it('indexes records synced before the indexer existed (reconcile at start-up)', async () => {
    const connector = await insertConnector(service, a.organizationId, {
      connectorType: 'linear',
      authOption: 'API Key',
      credentials: { api_key: 'lin_api_e' },
      name: 'late',
    });
    const prepared = preparePage(CORPUS.slice(0, 2), issues.record);
    await writePage(service.store.db, { organizationId: a.organizationId, connectorId: connector, entity: 'issues' }, prepared.records);
    expect((await search(a, connector, { prompt: 'refund', min_similarity: -1 })).data).toEqual([]);
    await indexer.reconcile();
    expect((await search(a, connector, { prompt: 'refund', min_similarity: -1 })).data).toHaveLength(2);
    // indexRecords on records already indexed does nothing.
    expect(await indexRecords(ctx, offline, { connectorId: connector, entity: issues }, ['i-refund'])).toEqual({ records: 0, passages: 0, embedded: 0 });
  });

  it("gives a connector its own index only while other connectors hold at least half of the model's passages", async ({ skip }) => {
    if (kind !== 'postgres' || !(await ctx.vectors.hasVectorSupport())) skip('connector indexes are built on PostgreSQL with pgvector only');
    // A model of its own (3 dimensions), its passages written directly: only the share of the model counts.
    const model = 'share-rule-test-model';
    const own = async (connector: string) =>
      (
        await sql<{ present: number }>`SELECT 1 AS present FROM pg_indexes WHERE indexname = ${connectorVectorIndexName(connector, model, 3)}`.execute(
          service.store.db,
        )
      ).rows.length > 0;

    const large = await connectorWithPassages('share-large', 6, model);
    ctx.vectors.noteLargeScope(large, model, 3);
    await ctx.vectors.connectorIndexSettled(large, model, 3);
    expect(await own(large)).toBe(false); // alone with the model: its index is the model's

    const small = await connectorWithPassages('share-small', 3, model);
    ctx.vectors.noteLargeScope(small, model, 3);
    await ctx.vectors.connectorIndexSettled(small, model, 3);
    expect(await own(small)).toBe(true); // the other connector holds 6 of 9

    ctx.vectors.noteLargeScope(large, model, 3); // still most of them, and its share was counted minutes ago
    await ctx.vectors.connectorIndexSettled(large, model, 3);
    expect(await own(large)).toBe(false);

    await deleteConnector(ctx, a.organizationId, large);
    await deleteConnector(ctx, a.organizationId, small);
    await ctx.vectors.idle(); // the indexes are dropped in the background
    expect(await own(small)).toBe(false);
  });
});

describe.each(storeKinds())('semantic search after a real sync (%s)', (kind) => {
  let service: TestService;
  let upstream: StandIn;
  let tenant: Tenant;
  const connectors = connectorSyncApi(() => tenant);
  let stopIndexing: () => Promise<void>;
  const warnings: Array<{ object: Record<string, unknown>; message: string }> = [];
  const log = {
    info: () => undefined,
    error: () => undefined,
    warn: (object: Record<string, unknown>, message: string) => void warnings.push({ object, message }),
  };

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 2 });
    service = await startTestService(kind, { upstreamBaseUrls: { typeform: upstream.url }, upstreamRetries: 0 });
    // What startService (npm start) does.
    ({ stop: stopIndexing } = startSemanticIndexing(service.app.ctx, log));
    tenant = await createTenant(service, 'Forms Org');
  });

  afterAll(async () => {
    await stopIndexing();
    await service.close();
    await upstream.close();
  });

  it('tells the operator once at start when the store has no pgvector (a PostgreSQL server without it), and otherwise nothing', async () => {
    if (!(await pgvectorOffered(service.store.db))) {
      await vi.waitFor(() => expect(warnings).toHaveLength(1));
      const { rows } = await sql<{ version: string }>`SELECT current_setting('server_version_num') AS version`.execute(service.store.db);
      const major = Math.trunc(Number(rows[0]?.version) / 10000);
      expect(warnings[0]).toEqual({
        object: { store: 'postgres' },
        message:
          'Semantic search scans every passage of the field searched (about 1 s per 100,000 passages) instead of an HNSW index: the PostgreSQL ' +
          `server lacks the pgvector extension. Install it on the server (Debian and Ubuntu: the postgresql-${major}-pgvector package from ` +
          'apt.postgresql.org; managed services: enable the vector extension), then restart Switchyard.',
      });
    } else {
      expect(await service.app.ctx.vectors.missingSupportAdvice()).toBeUndefined();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings).toEqual([]);
    }
  });

  it('syncs forms, embeds their titles and question titles, and ranks a paraphrase first', async () => {
    upstream.forms = [
      form('f-refund', 'Refund request', { fields: [{ id: 'q1', title: 'Why do you want your payment returned?', type: 'long_text' }] }),
      form('f-jobs', 'Job application', { fields: [{ id: 'q1', title: 'Tell us about your work experience', type: 'long_text' }] }),
      form('f-event', 'Conference registration', { fields: [{ id: 'q1', title: 'Which sessions will you attend?', type: 'multiple_choice' }] }),
      form('f-nps', 'Product feedback', { fields: [{ id: 'q1', title: 'How likely are you to recommend us?', type: 'opinion_scale' }] }),
    ];
    upstream.responses = new Map();
    const id = await connectors.create({ connector_type: 'typeform', name: 'Typeform', credentials: { access_token: upstream.token } });
    const sync = await tenant.api.post(`/api/v1/integrations/connectors/${id}/sync`, { entity: 'forms' });
    expect([202, 409]).toContain(sync.status);
    const deadline = Date.now() + 20_000;
    for (;;) {
      const inspect = await tenant.api.get<{
        context_store_readiness: { configured_cache_entities: Array<{ entity: string; status: string; semantic_search_status: Array<{ status: string }> }> };
      }>(`/api/v1/integrations/connectors/${id}/inspect`);
      const forms = inspect.body.context_store_readiness.configured_cache_entities.find((e) => e.entity === 'forms');
      if (forms?.status === 'ready' && forms.semantic_search_status.every((s) => s.status === 'READY')) break;
      if (Date.now() > deadline) throw new Error(`forms did not become searchable: ${JSON.stringify(inspect.body)}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const search = (semantic: Record<string, unknown>) =>
      tenant.api.post<ExecuteBody>(`/api/v1/integrations/connectors/${id}/execute`, { entity: 'forms', action: 'context_store_search', params: { semantic } });
    const byTitle = await search({ field: 'title', prompt: 'money back' });
    expect(byTitle.status, JSON.stringify(byTitle.body)).toBe(200);
    expect(byTitle.body.result.data[0]?.entity.id).toBe('f-refund');
    const byQuestion = await search({ field: 'fields', prompt: 'career history and previous jobs', min_similarity: -1 });
    expect(byQuestion.body.result.data[0]?.entity.id).toBe('f-jobs');
    expect(byQuestion.body.result.data[0]?.metadata.context).toBe('Tell us about your work experience');
    const passages = await service.store.db.selectFrom('context_passages').select(['record_id', 'field']).where('connector_id', '=', id).execute();
    expect(passages).toHaveLength(8);
  });

  it("Intercom: a conversation's replies and notes are searchable by meaning once synced as conversation_parts", async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    try {
      const id = await connectors.create({ connector_type: 'intercom', name: 'Intercom', credentials: { access_token: 'intercom-semantic-token' } });
      const api = () => nock('https://api.intercom.io').matchHeader('authorization', 'Bearer intercom-semantic-token');
      const conversation = (n: number) => ({ type: 'conversation', id: String(n), created_at: 1734537400, updated_at: 1734537460 + n, state: 'open' });
      const part = (n: number, body: string, author: string) => ({
        type: 'conversation_part',
        id: String(n),
        part_type: 'comment',
        body,
        created_at: 1734537460,
        updated_at: 1734537460,
        author: { type: 'admin', id: '274', name: author },
      });
      const scopes = [
        api()
          .get('/conversations')
          .query({ per_page: '150' })
          .reply(200, { type: 'conversation.list', conversations: [conversation(471), conversation(472)], total_count: 2, pages: { type: 'pages' } }),
        api()
          .get('/conversations/471')
          .reply(200, {
            ...conversation(471),
            conversation_parts: {
              type: 'conversation_part.list',
              conversation_parts: [part(1, '<p>The customer wants their money back for the annual plan.</p>', 'Ana')],
              total_count: 1,
            },
          }),
        api()
          .get('/conversations/472')
          .reply(200, {
            ...conversation(472),
            conversation_parts: {
              type: 'conversation_part.list',
              conversation_parts: [part(2, '<p>How do I reset my password on the mobile app?</p>', 'Bo')],
              total_count: 1,
            },
          }),
      ];
      const synced = await tenant.api.post(`/api/v1/integrations/connectors/${id}/sync`, { entity: 'conversation_parts', wait: true, wait_seconds: 30 });
      expect(synced.status, JSON.stringify(synced.body)).toBe(200);
      for (const scope of scopes) expect(scope.isDone()).toBe(true);
      const deadline = Date.now() + 20_000;
      for (;;) {
        const inspect = await tenant.api.get<{
          context_store_readiness: { configured_cache_entities: Array<{ entity: string; status: string; semantic_search_status: Array<{ status: string }> }> };
        }>(`/api/v1/integrations/connectors/${id}/inspect`);
        const parts = inspect.body.context_store_readiness.configured_cache_entities.find((e) => e.entity === 'conversation_parts');
        if (parts?.status === 'ready' && parts.semantic_search_status.every((s) => s.status === 'READY')) break;
        if (Date.now() > deadline) throw new Error(`conversation parts did not become searchable: ${JSON.stringify(inspect.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      const found = await tenant.api.post<ExecuteBody>(`/api/v1/integrations/connectors/${id}/execute`, {
        entity: 'conversation_parts',
        action: 'context_store_search',
        params: { semantic: { field: 'body', prompt: 'refund request' } },
      });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      const [first] = found.body.result.data;
      expect(first?.entity.id).toBe('1');
      expect(first?.metadata).toMatchObject({
        context: 'The customer wants their money back for the annual plan.',
        conversation_id: '471',
        author_name: 'Ana',
      });
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });
});
