/**
 * How the HNSW indexes of context_passages are built and dropped: the index definition, the memory a build
 * asks for, and the background work (PostgreSQL) that builds them concurrently, one at a time per process,
 * under a session advisory lock per index name, and that stop() cancels. VectorIndexes decides which indexes
 * to build and when.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import { ifAdvisoryLockFree } from '../../db/advisory-lock.js';
import type { DatabaseSchema } from '../../db/schema.js';

type Db = Kysely<DatabaseSchema>;

/**
 * HNSW settings, measured by bench/semantic-search.ts on 50k passages of 100-d offline vectors (PGlite,
 * 2 cores): m = 16 links per node and ef_construction = 64 (pgvector's defaults) build the index in about
 * 45 s; raising them slows the build (and every insert) more than raising ef_search, the candidate list
 * kept per query, costs at search time. ef_search 40 / 100 / 200 / 400 gave recall@10 of 0.80 / 0.92 /
 * 0.97 / 0.99 with p95 between 15 and 25 ms for all of them (the SQL around the index scan dominates), so
 * the default is 400. Averaged word vectors crowd together (every text shares common directions), which
 * is why they need more than pgvector's default ef_search of 40.
 */
export const HNSW_M = 16;
export const HNSW_EF_CONSTRUCTION = 64;

/** Advisory lock class of index builds: alone (one key) it serializes inline builds, with a name's hash it locks one index. */
export const INDEX_LOCK = 727_100_006;

/** The HNSW index definition shared by the model's index and the connectors' ones, over the rows `where` picks. */
export function hnswIndex(name: string, dims: number, where: RawBuilder<unknown>, concurrently: boolean): RawBuilder<unknown> {
  return sql`
    CREATE INDEX ${sql.raw(concurrently ? 'CONCURRENTLY ' : '')}IF NOT EXISTS ${sql.id(name)} ON context_passages
    USING hnsw ((embedding::vector(${sql.raw(String(dims))})) vector_cosine_ops)
    WITH (m = ${sql.raw(String(HNSW_M))}, ef_construction = ${sql.raw(String(HNSW_EF_CONSTRUCTION))})
    WHERE ${where}`;
}

/**
 * maintenance_work_mem, in kB, for building an HNSW index of `passages` vectors of `dims` dimensions: what
 * pgvector's graph holds in memory, a quarter more for safety, at most `capMb`. A build whose graph outgrows
 * maintenance_work_mem goes on far slower (pgvector: "hnsw graph no longer fits into maintenance_work_mem"):
 * 150 000 passages of 100 dimensions built in 67 s with PostgreSQL's default 64 MB, which held 58 145 of them
 * (~1.15 kB each), and in 22 s with 512 MB (PostgreSQL 15, pgvector 0.8, 2 cores).
 */
export function hnswBuildMemoryKb(passages: number, dims: number, capMb: number): number {
  const bytesPerPassage = 4 * dims + 800; // the vector, then the graph node and its links (m = 16)
  return Math.min(capMb * 1024, Math.ceil((passages * bytesPerPassage * 1.25) / 1024));
}

/**
 * Raises maintenance_work_mem to `kb` (never lowers it) for the session, or the transaction when `local`.
 * Returns the setting it had, for the session's builds to put back.
 */
export async function raiseBuildMemory(db: Db, kb: number, local: boolean): Promise<string> {
  const { rows } = await sql<{ previous: string }>`SELECT current_setting('maintenance_work_mem') AS previous`.execute(db);
  await sql`
    SELECT set_config('maintenance_work_mem',
      greatest(${kb}::bigint, (SELECT setting::bigint FROM pg_settings WHERE name = 'maintenance_work_mem')) || 'kB', ${local})`.execute(db);
  return rows[0]?.previous ?? '64MB';
}

/** Whether an index of that name exists, and whether it is valid (a failed concurrent build leaves one invalid). */
export async function indexValidity(db: Db, name: string): Promise<'valid' | 'invalid' | 'absent'> {
  const { rows } = await sql<{ valid: boolean }>`SELECT indisvalid AS valid FROM pg_index WHERE indexrelid = to_regclass(${name})`.execute(db);
  if (rows.length === 0) return 'absent';
  return rows[0]?.valid ? 'valid' : 'invalid';
}

/** DROP INDEX, concurrently on PostgreSQL (searches and writes go on). */
export async function dropIndex(db: Db, name: string, concurrently: boolean): Promise<void> {
  await sql`DROP INDEX ${sql.raw(concurrently ? 'CONCURRENTLY ' : '')}IF EXISTS ${sql.id(name)}`.execute(db);
}

/** An index to build in the background. */
export interface IndexBuild {
  name: string;
  dims: number;
  /** The partial index's condition. */
  where: RawBuilder<unknown>;
  /** The counters of builds of its kind. */
  counts: { started: number; built: number };
  /** How many passages the index will hold (its memory), or that none is needed; asked once the build may start. */
  size: (connection: Db) => Promise<number | 'not needed'>;
}

/** What a background index build found or did. */
export type BuildOutcome = 'built' | 'present' | 'not needed' | 'another process builds it' | 'stopped';

/**
 * The background index work of one process (PostgreSQL): builds, and drops of indexes left by deleted
 * connectors, run one after the other. A build holds a pooled connection and keeps cores busy for seconds to
 * minutes (several large connectors searched at once would otherwise take the pool's connections together),
 * and a concurrent build and a concurrent drop each lock the table against the other anyway.
 */
export class BackgroundIndexWork {
  /** The last task asked for; the next one waits for it. */
  private last: Promise<unknown> = Promise.resolve();
  /** The server process running the build under way, which stop() cancels. */
  private buildBackend?: number;
  private stopped = false;

  constructor(
    private readonly db: Db,
    /** The most memory a build takes (SEMANTIC_INDEX_BUILD_MEMORY_MB). */
    private readonly buildMemoryMb: number,
  ) {}

  /** Whether stop() was called: no task starts any more. */
  get isStopped(): boolean {
    return this.stopped;
  }

  /** Builds an HNSW index concurrently, after the tasks asked for before it. */
  build(request: IndexBuild): Promise<BuildOutcome> {
    return this.after(() => this.buildUnlessPresent(request));
  }

  /** Runs `task` after the tasks asked for before it. */
  after<T>(task: () => Promise<T>): Promise<T> {
    const run = this.last.then(task);
    this.last = run.catch(() => undefined);
    return run;
  }

  /** Resolves once the tasks asked for so far have ended. */
  async idle(): Promise<void> {
    await this.last;
  }

  /**
   * Stops, before the store closes: no task queued starts, and a build under way is cancelled (a build over
   * many passages takes minutes, which a shutdown would otherwise wait for; a later search builds it again).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.buildBackend !== undefined) await sql`SELECT pg_cancel_backend(${this.buildBackend})`.execute(this.db);
    await this.last;
  }

  /**
   * Builds the index unless it is there and valid (or not needed). Holds a session advisory lock on the index
   * name meanwhile, on the connection that builds, so that the processes of one store never build it twice at
   * once, and none drops what another is building: an index is dropped here only when this process holds the
   * lock and finds it invalid (a build that failed, here or in a process that died, which CREATE INDEX IF NOT
   * EXISTS would keep forever).
   */
  private async buildUnlessPresent({ name, dims, where, counts, size }: IndexBuild): Promise<BuildOutcome> {
    if (this.stopped) return 'stopped';
    const outcome = await ifAdvisoryLockFree(this.db, [INDEX_LOCK, sql`hashtext(${name})`], async (connection): Promise<BuildOutcome> => {
      const validity = await indexValidity(connection, name);
      if (validity === 'valid') return 'present';
      const passages = await size(connection);
      if (passages === 'not needed') return 'not needed';
      counts.started += 1;
      if (validity === 'invalid') await dropIndex(connection, name, true);
      const previousMemory = await raiseBuildMemory(connection, hnswBuildMemoryKb(passages, dims, this.buildMemoryMb), false);
      const { rows: backend } = await sql<{ pid: number }>`SELECT pg_backend_pid() AS pid`.execute(connection);
      this.buildBackend = backend[0]?.pid;
      try {
        if (this.stopped) return 'stopped';
        await hnswIndex(name, dims, where, true).execute(connection);
      } catch (error) {
        // A concurrent build that fails (or that stop() cancelled) leaves an invalid index behind.
        await dropIndex(connection, name, true).catch(() => undefined);
        throw error;
      } finally {
        this.buildBackend = undefined;
        await sql`SELECT set_config('maintenance_work_mem', ${previousMemory}, false)`.execute(connection);
      }
      counts.built += 1;
      return 'built';
    });
    return outcome.ran ? outcome.value : 'another process builds it';
  }
}
