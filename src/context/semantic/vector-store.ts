/**
 * Where passages and their embeddings live (table context_passages, migration 3) and how the store can
 * rank them: with pgvector (PGlite ships it; a PostgreSQL server may have it) an HNSW expression index
 * over embedding::vector(dims) per model; without it an exact scan computing the dot product in SQL.
 * Both give the same scores: embeddings are unit vectors, and cosine similarity = 1 - cosine distance.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { DEFAULT_INDEX_BUILD_MEMORY_MB } from '../../config.js';
import type { StoreKind } from '../../db/database.js';
import type { DatabaseSchema } from '../../db/schema.js';
import {
  BackgroundIndexWork,
  type BuildOutcome,
  dropIndex,
  hnswBuildMemoryKb,
  hnswIndex,
  INDEX_LOCK,
  indexValidity,
  raiseBuildMemory,
} from './index-builds.js';
import { UUID_PATTERN } from '../../uuid.js';

type Db = Kysely<DatabaseSchema>;

/** pgvector indexes at most 2000 dimensions of type vector; larger models are searched by exact scan. */
export const MAX_INDEXED_DIMENSIONS = 2000;

/** Candidates the HNSW search keeps per query (hnsw.ef_search); raised to the number of candidates asked for. */
export const HNSW_EF_SEARCH = 400;
/**
 * Candidates kept by a search of a connector that walks the model's index while other connectors hold at least
 * half of it (PGlite, which builds no index per connector; PostgreSQL while a process builds the connector's own index):
 * pgvector's largest. On PGlite, a connector holding 20 000 passages of another corpus beside 110 000 had
 * recall@10 0.89 with 400, 0.94 with 600, 0.955 with 800 and 0.964 with 1000 (p95 14, 15, 18 and 20 ms).
 */
export const SHARED_SCOPE_EF_SEARCH = 1000;

/**
 * Scopes small enough to scan are ranked by exact scan even where an HNSW index exists. The graph can leave a
 * passage unlike all its neighbours unreachable (every neighbour's link list fills with passages more alike):
 * among 2000 near-identical form titles, the one refund form was missing from the index's top 5 for "money
 * back", with ef_search 400. Measured on PGlite (2 cores), the exact scan costs about 2.2 µs a passage plus
 * 7.5 ns a dimension (10 000 passages: 30 ms at 100 dimensions, 50 ms at 384) and the index ~12 ms whatever
 * the size; within this budget the exact scan keeps a search under the 50 ms target.
 */
export const EXACT_SCAN_BUDGET_MS = 30;
const EXACT_SCAN_PASSAGE_US = 2.2;
const EXACT_SCAN_DIMENSION_US = 0.0075;
/**
 * How long a scope's size (beyond the exact scan's limit or not) is remembered: counting up to the limit
 * costs ~4.5 ms on PGlite, a third of an HNSW search. A scope that grows past the limit meanwhile is scanned
 * exactly (correct, a little slower) until then.
 */
const SCOPE_SIZE_TTL_MS = 10_000;
const MAX_REMEMBERED_SCOPES = 10_000;
/**
 * How long a connector found to hold most of its model's passages (so needing no index of its own) is left
 * alone before its share is counted again (a count over the model's passages, in the background).
 */
const CONNECTOR_SHARE_TTL_MS = 10 * 60_000;
/** How often dropping the indexes of deleted connectors looks again whether an index build still runs. */
const DROP_AFTER_BUILD_POLL_MS = 1000;
/** How long a connector whose index another process is building is left alone before it is looked at again. */
const CONNECTOR_INDEX_BUSY_RETRY_MS = 60_000;

/**
 * The most passages over which a model's index is built in the request that needs it (PostgreSQL): about 2 s.
 * Beyond (a server that gained pgvector after storing passages), it is built in the background, concurrently,
 * and searches scan exactly until it is there: a build over a million passages takes minutes.
 */
export const MODEL_INDEX_INLINE_MAX = 10_000;
/**
 * How long searches answer 'no index' for a model whose index another process is building before this process
 * looks again (each look costs the search a few queries: the index's validity, a capped count of the model's
 * passages, the build lock). Short: until it looks, its searches scan exactly even once the index is there.
 */
export const MODEL_INDEX_BUSY_RECHECK_MS = 10_000;

async function extensionInstalled(db: Db): Promise<boolean> {
  const { rows } = await sql<{ present: number }>`SELECT 1 AS present FROM pg_extension WHERE extname = 'vector'`.execute(db);
  return rows.length > 0;
}

/** The start of every HNSW index name. */
const HNSW_INDEX_PREFIX = 'context_passages_hnsw_';

/** Name of the HNSW index of one model's vectors. */
export function vectorIndexName(model: string, dims: number): string {
  return `${HNSW_INDEX_PREFIX}${createHash('sha256').update(`${model}|${dims}`).digest('hex').slice(0, 16)}`;
}

/** The start of the names of one connector's HNSW indexes (noteLargeScope). */
function connectorIndexPrefix(connectorId: string): string {
  if (!UUID_PATTERN.test(connectorId)) throw new Error(`not a connector id: ${connectorId}`);
  return `${HNSW_INDEX_PREFIX}${connectorId.replace(/-/g, '').toLowerCase()}_`;
}

/** Name of the HNSW index of one connector's vectors of one model: 63 characters, PostgreSQL's longest name. */
export function connectorVectorIndexName(connectorId: string, model: string, dims: number): string {
  return `${connectorIndexPrefix(connectorId)}${createHash('sha256').update(`${model}|${dims}`).digest('hex').slice(0, 8)}`;
}

/** `embedding::vector(dims)`: the indexed expression, which queries must repeat exactly. */
export function vectorExpression(alias: string, dims: number): RawBuilder<unknown> {
  return sql`${sql.ref(`${alias}.embedding`)}::vector(${sql.raw(String(Math.trunc(dims)))})`;
}

/**
 * What this service learned of its store's vector search (whether pgvector is there, which HNSW indexes
 * exist), how searches are tuned and how they ran. The composition root builds one per service over its store.
 */
export class VectorIndexes {
  private support?: Promise<boolean>;
  /** Per model and dimension count: whether its searches can use an index, and until when a 'no' holds (another process builds it). */
  private readonly indexes = new Map<string, { usable: Promise<boolean>; until?: number }>();
  /** Candidates an HNSW search keeps (hnsw.ef_search); the semantic-search benchmark varies it. */
  efSearch = HNSW_EF_SEARCH;
  /** Time an exact scan may take where an index exists (see EXACT_SCAN_BUDGET_MS); 0 always uses the index. */
  exactScanBudgetMs = EXACT_SCAN_BUDGET_MS;
  /** Semantic searches answered through an HNSW index and by exact scan. */
  readonly searches = { index: 0, exact: 0 };

  /** Per scope (and limit): whether it held more passages than an exact scan ranks, and until when that is trusted. */
  private readonly scopeSizes = new Map<string, { beyond: boolean; until: number }>();

  /** Per connector, model and dimension count: its own index is being looked at or built, or when to look again. */
  private readonly connectorIndexes = new Map<string, Promise<void> | { checkAfter: number }>();
  /**
   * Per connector, model and dimension count: whether its searches walk the model's index while other connectors
   * hold at least half of it (no index of its own): they keep more candidates (efSearchFor).
   */
  private readonly sharesModelIndex = new Map<string, boolean>();
  /** Connector indexes built by this service (the benchmark and tests wait for them through connectorIndexSettled). */
  readonly connectorIndexBuilds = { started: 0, built: 0 };
  /** Models' indexes built in the background by this service (modelIndexBuilt waits for them). */
  readonly modelIndexBuilds = { started: 0, built: 0 };
  /** Passages of a model over which its index is still built inline (MODEL_INDEX_INLINE_MAX); tests lower it. */
  modelIndexInlineMax = MODEL_INDEX_INLINE_MAX;
  /** MODEL_INDEX_BUSY_RECHECK_MS; tests lower it. */
  modelIndexBusyRecheckMs = MODEL_INDEX_BUSY_RECHECK_MS;
  /** Per model and dimension count: its index being built in the background. */
  private readonly modelIndexBuilding = new Map<string, Promise<BuildOutcome>>();

  /** Builds and drops of indexes in the background (PostgreSQL). */
  private readonly background: BackgroundIndexWork;

  constructor(
    private readonly db: Db,
    private readonly kind: StoreKind,
    /** The most memory an index build takes (SEMANTIC_INDEX_BUILD_MEMORY_MB). */
    private readonly buildMemoryMb = DEFAULT_INDEX_BUILD_MEMORY_MB,
  ) {
    this.background = new BackgroundIndexWork(db, buildMemoryMb);
  }

  /** The most passages of `dims` dimensions an exact scan ranks within exactScanBudgetMs. */
  exactScanLimit(dims: number): number {
    return Math.floor((this.exactScanBudgetMs * 1000) / (EXACT_SCAN_PASSAGE_US + EXACT_SCAN_DIMENSION_US * dims));
  }

  /**
   * Whether a scope (`scopeKey`) holds more passages than exactScanLimit(dims); `count` counts them up to
   * the number given. Remembered for SCOPE_SIZE_TTL_MS.
   */
  async beyondExactScan(scopeKey: string, dims: number, count: (upTo: number) => Promise<number>): Promise<boolean> {
    const limit = this.exactScanLimit(dims);
    const key = `${limit}|${scopeKey}`;
    const now = Date.now();
    const known = this.scopeSizes.get(key);
    if (known && known.until > now) return known.beyond;
    const beyond = (await count(limit + 1)) > limit;
    if (this.scopeSizes.size >= MAX_REMEMBERED_SCOPES) this.scopeSizes.clear();
    this.scopeSizes.set(key, { beyond, until: now + SCOPE_SIZE_TTL_MS });
    return beyond;
  }

  /**
   * Whether this store has pgvector: installed already, or available (pg_available_extensions) and
   * installable by us. Checked once per service; PostgreSQL servers without the extension get `false`.
   */
  hasVectorSupport(): Promise<boolean> {
    if (!this.support) {
      const db = this.db;
      const found = (async () => {
        if (await extensionInstalled(db)) return true;
        const { rows } = await sql<{ present: number }>`SELECT 1 AS present FROM pg_available_extensions WHERE name = 'vector'`.execute(db);
        if (rows.length === 0) return false;
        try {
          await sql`CREATE EXTENSION IF NOT EXISTS vector`.execute(db);
        } catch {
          // Not allowed to create it (or a concurrent start-up did): use it only if it is there now.
        }
        return extensionInstalled(db);
      })();
      this.support = found;
      found.catch(() => {
        if (this.support === found) this.support = undefined;
      });
    }
    return this.support;
  }

  /**
   * What the operator can do when the store has no pgvector, in one line (undefined when it has it): every
   * semantic search then scans all the passages of the field searched. Said once at start-up.
   */
  async missingSupportAdvice(): Promise<string | undefined> {
    if (await this.hasVectorSupport()) return undefined;
    const { rows } = await sql<{ available: boolean; major: number }>`
      SELECT EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') AS available,
             current_setting('server_version_num')::int / 10000 AS major`.execute(this.db);
    const { available, major } = rows[0] ?? { available: false, major: 0 };
    const cost = 'Semantic search scans every passage of the field searched (about 1 s per 100,000 passages) instead of an HNSW index';
    return available
      ? `${cost}: the PostgreSQL server has the pgvector extension, but Switchyard's database user could not create it. Have an administrator run CREATE EXTENSION vector in this database, then restart Switchyard.`
      : `${cost}: the PostgreSQL server lacks the pgvector extension. Install it on the server (Debian and Ubuntu: the postgresql-${major}-pgvector package from apt.postgresql.org; managed services: enable the vector extension), then restart Switchyard.`;
  }

  /**
   * Ensures the HNSW index of a model's vectors exists (pgvector stores only; partial on the model, so one
   * index per model and dimension count). Returns whether searches of this model can use an index. Usually the
   * model's first passages are yet to come and the index is built at once. On PostgreSQL, over more than
   * modelIndexInlineMax stored passages it is built in the background and this answers false (searches scan
   * exactly) until it is there; found being built by another process, false for modelIndexBusyRecheckMs, then
   * it looks again.
   */
  ensureVectorIndex(model: string, dims: number): Promise<boolean> {
    const key = `${model}|${dims}`;
    const known = this.indexes.get(key);
    if (known && (known.until === undefined || known.until > Date.now())) return known.usable;
    const entry = {
      usable: this.modelIndexState(model, dims, key).then((found) => {
        if (found === 'busy') this.answerBusy(key);
        return found === 'usable';
      }),
    };
    this.indexes.set(key, entry);
    entry.usable.catch(() => {
      if (this.indexes.get(key) === entry) this.indexes.delete(key);
    });
    return entry.usable;
  }

  /**
   * ensureVectorIndex's look at the model's index: usable, none (no pgvector, too many dimensions, or built
   * in the background by this process), or busy (another process is building it: looked at again after
   * modelIndexBusyRecheckMs).
   */
  private async modelIndexState(model: string, dims: number, key: string): Promise<'usable' | 'none' | 'busy'> {
    if (dims < 1 || dims > MAX_INDEXED_DIMENSIONS || !(await this.hasVectorSupport())) return 'none';
    const name = vectorIndexName(model, dims);
    const where = sql`model = ${sql.lit(model)} AND dims = ${sql.raw(String(dims))}`;
    if ((await indexValidity(this.db, name)) === 'valid') return 'usable';
    if (this.kind === 'postgres' && (await this.modelPassagesBeyond(model, dims, this.modelIndexInlineMax))) {
      if (!this.modelIndexBuilding.has(key)) {
        const building = this.background.build({
          name,
          dims,
          where,
          counts: this.modelIndexBuilds,
          size: (connection) => this.modelPassages(connection, model, dims),
        });
        this.modelIndexBuilding.set(key, building);
        // Looked at again by the next search once the build has ended, however it ended; a while later when
        // another process holds the build.
        const ended = (outcome?: BuildOutcome) => {
          this.modelIndexBuilding.delete(key);
          if (outcome === 'another process builds it') this.answerBusy(key);
          else this.indexes.delete(key);
        };
        building.then(ended, () => ended());
      }
      return 'none';
    }
    return this.db.transaction().execute(async (trx) => {
      // Serializes start-ups of several processes (CREATE INDEX IF NOT EXISTS alone can race).
      await sql`SELECT pg_advisory_xact_lock(${INDEX_LOCK})`.execute(trx);
      const validity = await indexValidity(trx, name);
      if (validity === 'valid') return 'usable';
      if (validity === 'invalid') {
        // Being built concurrently by another process (its lock is taken), or left by such a build that failed.
        const { rows } = await sql<{ free: boolean }>`SELECT pg_try_advisory_xact_lock(${INDEX_LOCK}, hashtext(${name})) AS free`.execute(trx);
        if (!rows[0]?.free) return 'busy';
        await dropIndex(trx, name, false);
      }
      // Built over the passages already there (a model used before): sized for them.
      await raiseBuildMemory(trx, hnswBuildMemoryKb(await this.modelPassages(trx, model, dims), dims, this.buildMemoryMb), true);
      await hnswIndex(name, dims, where, false).execute(trx);
      return 'usable';
    });
  }

  /** Another process is building the model's index: its searches hear 'no index' until modelIndexBusyRecheckMs has passed. */
  private answerBusy(key: string): void {
    this.indexes.set(key, { usable: Promise.resolve(false), until: Date.now() + this.modelIndexBusyRecheckMs });
  }

  /** Resolves once the background build of a model's index (if one is under way) has ended; rejects if it failed. */
  async modelIndexBuilt(model: string, dims: number): Promise<void> {
    await this.indexes.get(`${model}|${dims}`)?.usable;
    await this.modelIndexBuilding.get(`${model}|${dims}`);
  }

  /** The model's passages. */
  private async modelPassages(db: Db, model: string, dims: number): Promise<number> {
    const { rows } = await sql<{ passages: number }>`
      SELECT count(*)::int AS passages FROM context_passages WHERE model = ${model} AND dims = ${dims}`.execute(db);
    return rows[0]?.passages ?? 0;
  }

  /** Whether the model has more than `limit` passages (counting no further). */
  private async modelPassagesBeyond(model: string, dims: number, limit: number): Promise<boolean> {
    const { rows } = await sql<{ passages: number }>`
      SELECT count(*)::int AS passages FROM (
        SELECT 1 FROM context_passages WHERE model = ${model} AND dims = ${dims} LIMIT ${limit + 1}) AS counted`.execute(this.db);
    return (rows[0]?.passages ?? 0) > limit;
  }

  /**
   * Called by a search of a scope beyond the exact scan's limit: when other connectors hold at least half of the
   * model's passages, starts building, in the background, an HNSW index of this connector's passages of the
   * model alone (partial on the connector), which the planner then prefers for its searches. In the model's index a
   * small connector's search walks a graph made mostly of other connectors' passages and misses many of its
   * nearest (recall@10 0.73 for a tenth of 1.1M passages; 0.99 with its own index). The index is built
   * concurrently (writes and searches go on). A failed build is retried by a later search; what was found
   * (built, present, not needed, another process building it) is looked at again after a while.
   *
   * While this process or another one builds the index, and on PGlite, such a connector's searches keep more
   * candidates (efSearchFor).
   * PGlite builds none: it runs each statement in the service's own thread, so a build there would stop every
   * request, /health included, for as long as it takes (about 0.75 s per 1000 passages: a minute for a large
   * connector, long enough for a liveness probe to restart the service, whose next search would start it again).
   */
  noteLargeScope(connectorId: string, model: string, dims: number): void {
    if (this.background.isStopped) return;
    const key = `${connectorId}|${model}|${dims}`;
    const known = this.connectorIndexes.get(key);
    if (known && (known instanceof Promise || known.checkAfter > Date.now())) return;
    if (this.kind !== 'postgres') {
      // Only whether it shares the model's index, counted in the background.
      const counted = this.modelShare(this.db, connectorId, model, dims).then(({ mine, total }) => {
        this.sharesModelIndex.set(key, total - mine >= mine);
        this.connectorIndexes.set(key, { checkAfter: Date.now() + CONNECTOR_SHARE_TTL_MS });
      });
      this.connectorIndexes.set(key, counted);
      counted.catch(() => this.connectorIndexes.delete(key));
      return;
    }
    const name = connectorVectorIndexName(connectorId, model, dims);
    const where = sql`model = ${sql.lit(model)} AND dims = ${sql.raw(String(dims))} AND connector_id = ${sql.lit(connectorId)}::uuid`;
    const ensured = this.background.build({
      name,
      dims,
      where,
      counts: this.connectorIndexBuilds,
      size: async (connection) => {
        const { mine, total } = await this.modelShare(connection, connectorId, model, dims);
        // Other connectors hold at least half: the model's index is mostly theirs. A connector holding most of the
        // passages searches the model's index well and gets no copy of it.
        this.sharesModelIndex.set(key, total - mine >= mine);
        return total - mine < mine ? 'not needed' : mine;
      },
    });
    const building = ensured.then((outcome) => {
      if (outcome === 'built' || outcome === 'present') this.sharesModelIndex.set(key, false);
      // Another process builds a connector's index only when its passages share the model's index (or it is
      // looking whether they do): until it is there, the model's index answers, with more candidates.
      if (outcome === 'another process builds it') this.sharesModelIndex.set(key, true);
      const wait = outcome === 'another process builds it' ? CONNECTOR_INDEX_BUSY_RETRY_MS : CONNECTOR_SHARE_TTL_MS;
      this.connectorIndexes.set(key, { checkAfter: Date.now() + wait });
    });
    this.connectorIndexes.set(key, building);
    building.catch(() => this.connectorIndexes.delete(key));
  }

  /** hnsw.ef_search for a search of the connector's passages of the model (SHARED_SCOPE_EF_SEARCH, else efSearch). */
  efSearchFor(connectorId: string, model: string, dims: number): number {
    return this.sharesModelIndex.get(`${connectorId}|${model}|${dims}`) ? Math.max(this.efSearch, SHARED_SCOPE_EF_SEARCH) : this.efSearch;
  }

  /** Stops background index work before the store closes (BackgroundIndexWork.stop). */
  stop(): Promise<void> {
    return this.background.stop();
  }

  /**
   * Resolves once the connector's index of the model is built, or found unneeded (on PGlite: once its share of the
   * model's index is counted); rejects if its build failed.
   */
  async connectorIndexSettled(connectorId: string, model: string, dims: number): Promise<void> {
    const known = this.connectorIndexes.get(`${connectorId}|${model}|${dims}`);
    if (known instanceof Promise) await known;
  }

  /** The connector's passages of the model, and all of the model's. */
  private async modelShare(db: Db, connectorId: string, model: string, dims: number): Promise<{ mine: number; total: number }> {
    const { rows } = await sql<{ mine: number; total: number }>`
      SELECT count(*) FILTER (WHERE connector_id = ${connectorId})::int AS mine, count(*)::int AS total
      FROM context_passages WHERE model = ${model} AND dims = ${dims}`.execute(db);
    return rows[0] ?? { mine: 0, total: 0 };
  }

  /**
   * Drops, in the background, the HNSW indexes of connectors that no longer exist (deleted alone or with their
   * workspace: their passages went with their rows, their indexes would stay behind, empty). Not in the request
   * that deleted them: a concurrent drop waits for every concurrent build on the table to end (minutes at scale).
   */
  dropDeletedConnectorIndexes(): Promise<void> {
    return this.background.after(() => (this.background.isStopped ? Promise.resolve() : this.dropOrphanIndexes()));
  }

  /** Resolves once the background index work asked for so far (builds, drops) has ended. */
  idle(): Promise<void> {
    return this.background.idle();
  }

  private async dropOrphanIndexes(): Promise<void> {
    const idStart = HNSW_INDEX_PREFIX.length + 1;
    const { rows } = await sql<{ indexname: string }>`
      SELECT i.indexname FROM pg_indexes AS i
      WHERE i.tablename = 'context_passages' AND i.indexname ~ ${`^${HNSW_INDEX_PREFIX}[0-9a-f]{32}_[0-9a-f]{8}$`}
        AND NOT EXISTS (SELECT 1 FROM connectors AS c WHERE replace(c.id::text, '-', '') = substr(i.indexname, ${idStart}, 32))`.execute(this.db);
    if (rows.length === 0) return;
    if (this.kind === 'postgres') {
      // A concurrent drop and a concurrent build on the table (another process's) wait for each other until
      // PostgreSQL ends one as a deadlock: drop once no build is running.
      while (await indexBuildRunning(this.db)) {
        if (this.background.isStopped) return;
        await new Promise((resolve) => setTimeout(resolve, DROP_AFTER_BUILD_POLL_MS));
      }
    }
    // Not concurrently on PGlite, where an earlier version built such indexes too.
    for (const { indexname } of rows) await dropIndex(this.db, indexname, this.kind === 'postgres');
  }
}

/** Whether some session is building an index of context_passages. */
async function indexBuildRunning(db: Db): Promise<boolean> {
  const { rows } = await sql`SELECT 1 FROM pg_stat_progress_create_index WHERE relid = 'context_passages'::regclass`.execute(db);
  return rows.length > 0;
}

/** A passage row to write. */
export interface PassageRow {
  connector_id: string;
  entity: string;
  record_id: string;
  field: string;
  ordinal: number;
  organization_id: string;
  start_offset: number;
  content: string;
  content_hash: string;
  model: string;
  dims: number;
  embedding: number[];
}

/** A real[] literal ('{0.1,-0.2,…}'): arrays travel as text, which PGlite and pg read alike. */
export function realArrayLiteral(vector: ArrayLike<number>): string {
  let out = '{';
  for (let i = 0; i < vector.length; i += 1) {
    if (i > 0) out += ',';
    const value = vector[i]!;
    out += Number.isFinite(value) ? String(value) : '0';
  }
  return `${out}}`;
}
