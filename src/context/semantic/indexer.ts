/**
 * The semantic index of the context store: a RecordObserver of the sync (src/context/observers.ts) that
 * splits each semantic field of every new or changed record into passages, embeds them and stores them.
 *
 * - A record whose content hash and embedding model match context_semantic_state is not touched (a
 *   retried page, a record re-synced unchanged), and within a changed record a passage whose text is
 *   unchanged keeps its stored embedding.
 * - reconcile() embeds every live record the index does not hold as synced, or holds from another model:
 *   it runs at start-up, so switching provider (or model, or rebuilding the offline vocabulary) re-embeds,
 *   and after a failure of the embeddings provider (the sync itself never fails because of one).
 */
import { sql } from 'kysely';
import { connectorModules, type EntityDefinition } from '../../../runtime/index.js';
import type { ServiceContext } from '../../service-context.js';
import type { RecordBatch, RecordObserver } from '../observers.js';
import { registerRecordObserver } from '../sync/registry.js';
import { fieldText, splitPassages, type Passage } from './chunking.js';
import type { EmbeddingProvider } from './providers.js';
import { embeddingProvider } from './runtime.js';
import { realArrayLiteral, type PassageRow } from './vector-store.js';

/** The logging the indexer needs (pino's, Fastify's). */
export interface IndexerLog {
  info(object: Record<string, unknown>, message: string): void;
  warn(object: Record<string, unknown>, message: string): void;
  error(object: Record<string, unknown>, message: string): void;
}

const silent: IndexerLog = { info: () => undefined, warn: () => undefined, error: () => undefined };

export interface IndexStats {
  /** Records whose passages were (re)written. */
  records: number;
  passages: number;
  /** Passages sent to the provider (the others kept their stored embedding). */
  embedded: number;
}

export interface SemanticIndexer extends RecordObserver {
  /** Embeds the live records the index is missing or holds from another model; resolves when none is left. */
  reconcile(): Promise<IndexStats>;
  /** Resolves once every record the sync reported so far is embedded (or left to a reconcile after a failure). */
  idle(): Promise<void>;
  /** Starts a reconcile in the background (start-up), and on PostgreSQL one every five minutes. */
  start(): void;
  /** Waits for the indexing under way and stops retrying. */
  stop(): Promise<void>;
}

/** The entity's definition when it has semantic fields. */
export function semanticEntity(connectorType: string, entity: string): EntityDefinition | undefined {
  const definition = connectorModules[connectorType]?.definition.entities[entity];
  return definition && definition.search.semantic.length > 0 ? definition : undefined;
}

/** `connector_type:entity` of every entity with semantic fields. */
export function semanticEntityKeys(): string[] {
  const keys: string[] = [];
  for (const [type, module] of Object.entries(connectorModules)) {
    for (const entity of Object.values(module.definition.entities)) if (entity.search.semantic.length > 0) keys.push(`${type}:${entity.name}`);
  }
  return keys;
}

const WRITE_BATCH = 200;
/** Records embedded per transaction when the sync reports them. */
const INDEX_CHUNK = 64;
/**
 * The same on a store with a single connection (PGlite), where every other query waits for the chunk: 8
 * records kept the event loop's p99 delay under ~75 ms while a 5000-form index caught up, where 64 let it
 * reach ~390 ms (and caught up in 29 s instead of 37).
 */
const SHARED_CONNECTION_INDEX_CHUNK = 8;
/** Record ids kept waiting to be embedded; past it, a reconcile finds the rest in the store. */
const MAX_PENDING = 100_000;
/** How long the index waits at most for the syncs of a single-connection store before it embeds a chunk. */
const MAX_SYNC_YIELD_MS = 5_000;
const SYNC_YIELD_POLL_MS = 50;
const EMBED_BATCH = 256;
const RECONCILE_BATCH = 200;
const RETRY_AFTER_MS = 60_000;
/** Background catch-up on PostgreSQL: records another process synced (the CLI) without this one's observer. */
const RECONCILE_EVERY_MS = 5 * 60_000;

interface PlannedRecord {
  recordId: string;
  organizationId: string;
  contentHash: string;
  passages: Array<Passage & { field: string }>;
}

/**
 * (Re)indexes records of one entity of one connector with `provider`: the records' current rows are read
 * from context_records (deleted ones are skipped), so a late or repeated call writes what is stored.
 */
export async function indexRecords(
  service: Pick<ServiceContext, 'store' | 'statistics' | 'vectors'>,
  provider: EmbeddingProvider,
  scope: { connectorId: string; entity: EntityDefinition },
  recordIds: string[],
): Promise<IndexStats> {
  const db = service.store.db;
  const stats: IndexStats = { records: 0, passages: 0, embedded: 0 };
  if (recordIds.length === 0) return stats;
  const { connectorId, entity } = scope;
  // Each record and its state looked up by its whole key, in the order given (the page's order, so requests
  // to the provider are deterministic). Filtered on record_id IN (...) instead, the planner reads the entity's
  // rows by connector and entity when its statistics still see the table as it was before the sync (PGlite
  // runs no autovacuum; PostgreSQL's lags a first sync), and every page read all of them.
  const { rows } = await sql<{
    record_id: string;
    organization_id: string;
    data: Record<string, unknown>;
    content_hash: string;
    indexed_model: string | null;
    indexed_hash: string | null;
  }>`
    SELECT r.record_id, r.organization_id, r.data, r.content_hash, s.model AS indexed_model, s.content_hash AS indexed_hash
    FROM jsonb_array_elements_text(${JSON.stringify([...new Set(recordIds)])}::jsonb) WITH ORDINALITY AS wanted (record_id, position)
    JOIN context_records r ON r.connector_id = ${connectorId} AND r.entity = ${entity.name} AND r.record_id = wanted.record_id
    LEFT JOIN context_semantic_state s ON s.connector_id = ${connectorId} AND s.entity = ${entity.name} AND s.record_id = wanted.record_id
    WHERE r.deleted_at IS NULL
    ORDER BY wanted.position`.execute(db);
  const planned: PlannedRecord[] = [];
  for (const row of rows) {
    if (row.indexed_model === provider.id && row.indexed_hash === row.content_hash) continue;
    const passages: PlannedRecord['passages'] = [];
    for (const { field, context_window } of entity.search.semantic) {
      for (const passage of splitPassages(fieldText(row.data, field), context_window)) passages.push({ ...passage, field });
    }
    planned.push({ recordId: row.record_id, organizationId: row.organization_id, contentHash: row.content_hash, passages });
  }
  if (planned.length === 0) return stats;

  // Embeddings this model already made for the same texts (a changed record keeps its unchanged passages).
  const known = new Map<string, number[]>();
  const hashes = [...new Set(planned.flatMap((record) => record.passages.map((p) => p.hash)))];
  for (let i = 0; i < hashes.length; i += 1000) {
    const reusable = await db
      .selectFrom('context_passages')
      .select(['content_hash', 'embedding'])
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity.name)
      .where(
        'record_id',
        'in',
        planned.map((record) => record.recordId),
      )
      .where('model', '=', provider.id)
      .where('content_hash', 'in', hashes.slice(i, i + 1000))
      .execute();
    for (const row of reusable) known.set(row.content_hash, row.embedding.map(Number));
  }
  const missing = new Map<string, string>();
  for (const record of planned) for (const passage of record.passages) if (!known.has(passage.hash)) missing.set(passage.hash, passage.text);
  const texts = [...missing.entries()];
  for (let i = 0; i < texts.length; i += EMBED_BATCH) {
    const slice = texts.slice(i, i + EMBED_BATCH);
    const vectors = await provider.embed(slice.map(([, text]) => text));
    slice.forEach(([hash], k) => known.set(hash, Array.from(vectors[k] ?? [])));
    stats.embedded += slice.length;
  }
  const passageRows: PassageRow[] = [];
  for (const record of planned) {
    for (const passage of record.passages) {
      const embedding = known.get(passage.hash) ?? [];
      // A text without any vector (nothing the model could read) cannot be ranked: leave it out.
      if (embedding.length === 0 || embedding.every((x) => x === 0)) continue;
      passageRows.push({
        connector_id: connectorId,
        entity: entity.name,
        record_id: record.recordId,
        field: passage.field,
        ordinal: passage.ordinal,
        organization_id: record.organizationId,
        start_offset: passage.start,
        content: passage.text,
        content_hash: passage.hash,
        model: provider.id,
        dims: embedding.length,
        embedding,
      });
    }
  }
  const dims = passageRows[0]?.dims;
  if (dims !== undefined) await service.vectors.ensureVectorIndex(provider.id, dims);

  await db.transaction().execute(async (trx) => {
    const ids = planned.map((record) => record.recordId);
    // Only records still live and unchanged since they were read are written (a concurrent sync wins).
    const current = await trx
      .selectFrom('context_records')
      .select(['record_id', 'content_hash'])
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity.name)
      .where('record_id', 'in', ids)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .execute();
    const still = new Map(current.map((row) => [row.record_id, row.content_hash]));
    const writable = planned.filter((record) => still.get(record.recordId) === record.contentHash);
    if (writable.length === 0) return;
    const writableIds = new Set(writable.map((record) => record.recordId));
    await trx
      .deleteFrom('context_passages')
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity.name)
      .where('record_id', 'in', [...writableIds])
      .execute();
    const toWrite = passageRows.filter((row) => writableIds.has(row.record_id));
    for (let i = 0; i < toWrite.length; i += WRITE_BATCH) {
      await trx
        .insertInto('context_passages')
        .values(toWrite.slice(i, i + WRITE_BATCH).map((row) => ({ ...row, embedding: sql<number[]>`${realArrayLiteral(row.embedding)}::real[]` })))
        .onConflict((conflict) =>
          conflict.columns(['connector_id', 'entity', 'record_id', 'field', 'ordinal']).doUpdateSet((eb) => ({
            start_offset: eb.ref('excluded.start_offset'),
            content: eb.ref('excluded.content'),
            content_hash: eb.ref('excluded.content_hash'),
            model: eb.ref('excluded.model'),
            dims: eb.ref('excluded.dims'),
            embedding: eb.ref('excluded.embedding'),
            embedded_at: sql`now()`,
          })),
        )
        .execute();
    }
    const counts = new Map<string, number>();
    for (const row of toWrite) counts.set(row.record_id, (counts.get(row.record_id) ?? 0) + 1);
    await trx
      .insertInto('context_semantic_state')
      .values(
        writable.map((record) => ({
          connector_id: connectorId,
          entity: entity.name,
          record_id: record.recordId,
          model: provider.id,
          content_hash: record.contentHash,
          passages: counts.get(record.recordId) ?? 0,
        })),
      )
      .onConflict((conflict) =>
        conflict.columns(['connector_id', 'entity', 'record_id']).doUpdateSet((eb) => ({
          model: eb.ref('excluded.model'),
          content_hash: eb.ref('excluded.content_hash'),
          passages: eb.ref('excluded.passages'),
          indexed_at: sql`now()`,
        })),
      )
      .execute();
    stats.records += writable.length;
    stats.passages += toWrite.length;
  });
  // Analyzed in the background (a search waits for it): awaited here, each ANALYZE held up the sync's page.
  service.statistics.noteRowsWrittenLater('context_passages', { connectorId, entity: entity.name, count: stats.passages }, () => undefined);
  return stats;
}

function add(total: IndexStats, more: IndexStats): void {
  total.records += more.records;
  total.passages += more.passages;
  total.embedded += more.embedded;
}

function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

export interface SemanticIndexerOptions {
  log?: IndexerLog;
  /** Records embedded per transaction (default: by the store's connections). */
  chunk?: number;
  /** Record ids kept waiting (default MAX_PENDING); past it, a reconcile finds the rest. */
  maxPending?: number;
}

/** The semantic index of a service; register it with the sync's observers (src/context/sync/registry.ts). */
export function createSemanticIndexer(ctx: ServiceContext, options: SemanticIndexerOptions = {}): SemanticIndexer {
  const log = options.log ?? silent;
  const db = ctx.store.db;
  const connectorTypes = new Map<string, string>();
  // One indexing task at a time per service: the observer and the reconcile never race on a record.
  let queue: Promise<unknown> = Promise.resolve();
  let retry: NodeJS.Timeout | undefined;
  let periodic: NodeJS.Timeout | undefined;
  let started = false;
  let stopped = false;

  const serial = <T>(task: () => Promise<T>): Promise<T> => {
    const run = queue.then(task, task);
    queue = run.catch(() => undefined);
    return run;
  };

  const scheduleRetry = (): void => {
    if (stopped || retry) return;
    retry = setTimeout(() => {
      retry = undefined;
      void reconcile().catch(() => undefined);
    }, RETRY_AFTER_MS);
    retry.unref();
  };

  // Records synced and not embedded yet, per connector and entity, in the order the sync wrote them.
  const pending = new Map<string, { connectorId: string; entity: string; ids: Set<string> }>();
  let pendingCount = 0;
  // More records came than pending holds: a reconcile finds them in the store once the rest is embedded.
  let overflowed = false;
  let draining: Promise<void> | undefined;

  // PGlite: one connection, which every other query waits for while a chunk holds it.
  const sharedConnection = ctx.store.kind === 'pglite';
  const chunkSize = options.chunk ?? (sharedConnection ? SHARED_CONNECTION_INDEX_CHUNK : INDEX_CHUNK);
  const maxPending = options.maxPending ?? MAX_PENDING;

  /** The next chunk of pending records (of one entity), removed from pending. */
  const takeChunk = (): { connectorId: string; entity: string; ids: string[] } | undefined => {
    for (const [key, scope] of pending) {
      const ids: string[] = [];
      for (const id of scope.ids) {
        if (ids.length === chunkSize) break;
        ids.push(id);
      }
      for (const id of ids) scope.ids.delete(id);
      pendingCount -= ids.length;
      if (scope.ids.size === 0) pending.delete(key);
      if (ids.length > 0) return { connectorId: scope.connectorId, entity: scope.entity, ids };
    }
    return undefined;
  };

  async function indexChunk(chunk: { connectorId: string; entity: string; ids: string[] }): Promise<void> {
    try {
      const type = await connectorType(chunk.connectorId);
      const entity = type === undefined ? undefined : semanticEntity(type, chunk.entity);
      if (entity) await indexRecords(ctx, embeddingProvider(ctx), { connectorId: chunk.connectorId, entity }, chunk.ids);
    } catch (error) {
      // The sync went on (filter search is fresh); reconcile() embeds these records later.
      log.error(
        { err: errorMessage(error), connector_id: chunk.connectorId, entity: chunk.entity },
        'semantic indexing of synced records failed; retrying in a minute',
      );
      scheduleRetry();
    }
  }

  /**
   * Embeds the pending records in the background, a chunk at a time: the sync does not wait for it (on PGlite,
   * embedding and the HNSW index cost several times what storing a record does), and each chunk is its own
   * transaction, so other queries of a single-connection store wait for one chunk at most.
   */
  function drain(): void {
    if (draining || stopped) return;
    const run = serial(async () => {
      for (let chunk = takeChunk(); chunk !== undefined && !stopped; chunk = takeChunk()) {
        await yieldToSyncs();
        await indexChunk(chunk);
      }
      if (overflowed && !stopped) {
        overflowed = false;
        await reconcileOrRetryLater().catch(() => undefined);
      }
    });
    draining = run
      .catch(() => undefined)
      .finally(() => {
        draining = undefined;
        if (pendingCount > 0 || overflowed) drain();
      });
  }

  /**
   * On a store with a single connection (PGlite) a running sync goes first: embedding a record there costs
   * many times what storing it does, and each chunk would hold the connection the sync's pages wait for.
   * Waits at most MAX_SYNC_YIELD_MS at a time, so syncs that never stop still leave room for the index.
   */
  async function yieldToSyncs(): Promise<void> {
    if (!sharedConnection) return;
    const since = performance.now();
    while (!stopped && ctx.syncs.activeRuns > 0 && performance.now() - since < MAX_SYNC_YIELD_MS) {
      await new Promise((resolve) => setTimeout(resolve, SYNC_YIELD_POLL_MS));
    }
  }

  /** Resolves once every record reported so far is embedded (or left to a reconcile after a failure). */
  async function idle(): Promise<void> {
    while (draining) await draining;
  }

  async function connectorType(connectorId: string): Promise<string | undefined> {
    const cached = connectorTypes.get(connectorId);
    if (cached) return cached;
    const row = await db.selectFrom('connectors').select('connector_type').where('id', '=', connectorId).executeTakeFirst();
    if (row) connectorTypes.set(connectorId, row.connector_type);
    return row?.connector_type;
  }

  async function reconcileOnce(): Promise<IndexStats> {
    const provider = embeddingProvider(ctx);
    const total: IndexStats = { records: 0, passages: 0, embedded: 0 };
    const keys = semanticEntityKeys();
    if (keys.length === 0) return total;
    let after: { connector_id: string; entity: string; record_id: string } | undefined;
    for (;;) {
      const stale = await db
        .selectFrom('context_records as r')
        .innerJoin('connectors as c', 'c.id', 'r.connector_id')
        .leftJoin('context_semantic_state as s', (join) =>
          join.onRef('s.connector_id', '=', 'r.connector_id').onRef('s.entity', '=', 'r.entity').onRef('s.record_id', '=', 'r.record_id'),
        )
        .select(['r.connector_id', 'r.entity', 'r.record_id', 'c.connector_type'])
        .where('r.deleted_at', 'is', null)
        .where(sql<string>`c.connector_type || ':' || r.entity`, 'in', keys)
        .where((eb) => eb.or([eb('s.record_id', 'is', null), eb('s.model', '<>', provider.id), eb('s.content_hash', '<>', eb.ref('r.content_hash'))]))
        // On from the last batch: the records before it are indexed, or were left (changed meanwhile).
        .$if(after !== undefined, (qb) =>
          qb.where(sql<boolean>`(r.connector_id, r.entity, r.record_id) > (${after?.connector_id}::uuid, ${after?.entity}::text, ${after?.record_id}::text)`),
        )
        .orderBy('r.connector_id')
        .orderBy('r.entity')
        .orderBy('r.record_id')
        .limit(RECONCILE_BATCH)
        .execute();
      if (stale.length === 0) return total;
      after = stale.at(-1);
      const groups = new Map<string, { connectorId: string; entity: EntityDefinition; ids: string[] }>();
      for (const row of stale) {
        const key = `${row.connector_id}:${row.entity}`;
        const entity = semanticEntity(row.connector_type, row.entity);
        if (!entity) continue;
        const group = groups.get(key) ?? { connectorId: row.connector_id, entity, ids: [] };
        group.ids.push(row.record_id);
        groups.set(key, group);
      }
      // Records this pass could not write (changed meanwhile) are left to the next sync or start-up.
      for (const group of groups.values()) {
        for (let i = 0; i < group.ids.length && !stopped; i += chunkSize) {
          await yieldToSyncs();
          add(total, await indexRecords(ctx, provider, group, group.ids.slice(i, i + chunkSize)));
        }
      }
      if (stopped) return total;
    }
  }

  /** reconcileOnce, and on a failure a log line and a retry in a minute (the failure is passed on). */
  async function reconcileOrRetryLater(): Promise<IndexStats> {
    try {
      return await reconcileOnce();
    } catch (error) {
      log.error({ err: errorMessage(error) }, 'semantic indexing failed; retrying in a minute');
      scheduleRetry();
      throw error;
    }
  }

  function reconcile(): Promise<IndexStats> {
    return serial(async () => {
      const stats = await reconcileOrRetryLater();
      if (stats.records > 0) log.info({ ...stats, model: embeddingProvider(ctx).id }, 'semantic index caught up');
      return stats;
    });
  }

  return {
    async recordsChanged(batch: RecordBatch): Promise<void> {
      if (stopped || batch.records.length === 0) return;
      const key = `${batch.connectorId}:${batch.entity}`;
      let scope = pending.get(key);
      if (!scope) {
        scope = { connectorId: batch.connectorId, entity: batch.entity, ids: new Set() };
        pending.set(key, scope);
      }
      for (const record of batch.records) {
        if (scope.ids.has(record.recordId)) continue;
        if (pendingCount >= maxPending) {
          overflowed = true;
          break;
        }
        scope.ids.add(record.recordId);
        pendingCount += 1;
      }
      drain();
    },
    idle,
    reconcile,
    start(): void {
      if (stopped || started) return;
      started = true;
      void reconcile().catch(() => undefined);
      // The embedded store is this process's alone (src/db/store-lock.ts): no other process syncs into it,
      // and on its single connection a catch-up that finds nothing still holds every query up (~330 ms at
      // 100 000 records).
      if (ctx.store.kind === 'pglite') return;
      periodic = setInterval(() => void reconcile().catch(() => undefined), RECONCILE_EVERY_MS);
      periodic.unref();
    },
    async stop(): Promise<void> {
      stopped = true;
      pending.clear();
      pendingCount = 0;
      if (retry) clearTimeout(retry);
      if (periodic) clearInterval(periodic);
      retry = undefined;
      periodic = undefined;
      await queue;
    },
  };
}

/**
 * Wires semantic indexing into a service (the composition root does, once): registers the indexer with
 * the sync's observers and starts its reconcile (now, then every five minutes on PostgreSQL). Returns a stop
 * function.
 */
export function startSemanticIndexing(ctx: ServiceContext, log?: IndexerLog): { indexer: SemanticIndexer; stop: () => Promise<void> } {
  const indexer = createSemanticIndexer(ctx, log ? { log } : {});
  const unregister = registerRecordObserver(ctx, indexer);
  indexer.start();
  // Without pgvector every semantic search scans all the passages of its field: the operator can install it.
  void ctx.vectors.missingSupportAdvice().then(
    (advice) => {
      if (advice !== undefined) log?.warn({ store: ctx.store.kind }, advice);
    },
    () => undefined,
  );
  return {
    indexer,
    async stop() {
      unregister();
      await indexer.stop();
    },
  };
}

/**
 * READY when every live record of the entity is indexed with the current model, else INDEXING (for
 * inspect's semantic_search_status).
 */
export async function semanticIndexStatus(ctx: ServiceContext, connectorId: string, entity: string): Promise<'READY' | 'INDEXING'> {
  const model = embeddingProvider(ctx).id;
  const row = await ctx.store.db
    .selectFrom('context_records as r')
    .leftJoin('context_semantic_state as s', (join) =>
      join.onRef('s.connector_id', '=', 'r.connector_id').onRef('s.entity', '=', 'r.entity').onRef('s.record_id', '=', 'r.record_id'),
    )
    .select((eb) => eb.fn.countAll<string>().as('pending'))
    .where('r.connector_id', '=', connectorId)
    .where('r.entity', '=', entity)
    .where('r.deleted_at', 'is', null)
    .where((eb) => eb.or([eb('s.record_id', 'is', null), eb('s.model', '<>', model), eb('s.content_hash', '<>', eb.ref('r.content_hash'))]))
    .executeTakeFirst();
  return Number(row?.pending ?? 0) === 0 ? 'READY' : 'INDEXING';
}
