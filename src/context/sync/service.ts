/**
 * The sync service of one ServiceContext: every sync is a job on a PostgreSQL job queue (pg-boss, in
 * the store's own database, schema `pgboss`), whatever asked for it (API, CLI, the due check,
 * connector creation). This process works the queues of the vendors it has seen; several processes
 * sharing one PostgreSQL share the jobs, and the queue runs one job per connector at a time.
 *
 * - One queue per vendor, `context-sync.<connector_type>`, policy `stately` with the connector id as the
 *   singleton key: at most one job of a connector runs and at most one waits. A second request joins the
 *   waiting job (its entities are added) or, while a job runs, is refused for the entities it covers.
 * - Per vendor, each process runs `concurrency` workers (SYNC_CONCURRENCY, SYNC_VENDOR_CONCURRENCY).
 * - A job with a failed entity fails and is retried with exponential backoff (SYNC_RETRY_LIMIT,
 *   SYNC_RETRY_DELAY_SECONDS); a retry syncs again only what did not complete.
 * - `context-sync-due`: the due check (schedule.ts), at most one per period across all processes.
 */
import type { FastifyBaseLogger } from 'fastify';
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { CompiledQuery, sql } from 'kysely';
import PgBoss from 'pg-boss';
import { connectorModules, type ConnectorDefinition } from '../../../runtime/index.js';
import { ConfigError, type SyncQueueSettings } from '../../config.js';
import { isStoreUnavailable } from '../../db/store-errors.js';
import type { ServiceContext } from '../../service-context.js';
import { BadRequestError, ConflictError, ResourceNotFoundError, SwitchyardError } from '../../errors.js';
import { findConnector, type ConnectorRow } from '../../services/connector-lookup.js';
import { connectorInstance } from '../../services/execution.js';
import { assertWorkspaceActive, findWorkspace } from '../../services/workspaces.js';
import { observerOf } from '../../observability/observer.js';
import {
  CLAIM_LOST,
  ConnectorSync,
  DEFAULT_RETRY_POLICY,
  skippedOutcome,
  type EntityOutcome,
  type RetryPolicy,
  type RunEntity,
  type SyncProgress,
} from './engine.js';
import { JobClaim } from './lock.js';
import { holdRunnerLock, whileRunnerGone, type RunnerLock } from './runner-lock.js';
import { jobSettleStatements } from './queue-settle.js';
import { createQueueOnce } from './queue-creation.js';
import { syncableEntities, syncProblem } from './plan.js';
import { connectorInterval, DEFAULT_SYNC_INTERVAL_MINUTES, dueConnectors } from './schedule.js';
import { beginEntitySync } from './state.js';

export type SyncTrigger = 'api' | 'cli' | 'schedule' | 'created' | 'updated';

/** The schema pg-boss keeps its tables in (job, archive, queue, version...). */
export const QUEUE_SCHEMA = 'pgboss';

/** Tries to record a job's end while the store is unavailable: 1 s, 2 s, 4 s, 8 s, then every 10 s, about ten minutes in all. */
const SETTLE_ATTEMPTS = 64;
export const SYNC_QUEUE_PREFIX = 'context-sync.';
export const DUE_QUEUE = 'context-sync-due';

export const SYNC_QUEUE_DEFAULTS: Required<Omit<SyncQueueSettings, 'vendorConcurrency'>> = {
  concurrency: 2,
  retryLimit: 3,
  retryDelaySeconds: 60,
  jobTimeoutMinutes: 240,
  pollSeconds: 2,
  checkSeconds: 30,
};

export interface StartSyncOptions {
  /** The caller's organization (API); omitted for the operator's CLI. */
  organizationId?: string;
  connectorId: string;
  /** One entity; all the entities the sync can read when omitted. */
  entity?: string;
  /** Walk them in full (every page, then the sweep of deleted records) even where an incremental sync is due. */
  full?: boolean;
  trigger: SyncTrigger;
}

export type EntityRequestState = 'started' | 'queued' | 'already_running';

export interface StartedSync {
  connector_id: string;
  /** The queue's job that runs the sync (pgboss.job id). */
  job_id: string;
  /** started: the job runs it as soon as a worker is free; queued: after the connector's running sync; already_running: the running sync covers it. */
  entities: Array<{ entity: string; state: EntityRequestState }>;
  /**
   * Waits for the job's attempt to end and answers the outcomes of the requested entities (never rejects
   * for a failed sync). `onProgress` hears each entity's progress: from the sync itself when this
   * process runs the job, else from the sync state in the store.
   */
  wait(onProgress?: (progress: SyncProgress) => void, options?: { timeoutMs?: number }): Promise<EntityOutcome[] | undefined>;
}

export interface SyncServiceOptions {
  /** Page-level retries inside one sync (the engine's). */
  retry?: Partial<RetryPolicy>;
  /** Replaces settings of config.syncQueue (tests shorten the periods). */
  queue?: SyncQueueSettings;
}

interface SyncJobData {
  connectorId: string;
  /** Entity names, parents first. */
  entities: string[];
  /** Those of `entities` a request asked to walk in full. */
  full?: string[];
  /**
   * Those a request joined to the job asked to walk in full, with when (the database's time, ISO): a walk that
   * began before the request cannot answer it, so an earlier attempt's sync of them does not count as done.
   */
  fullAskedAt?: Record<string, string>;
  trigger: SyncTrigger;
  /** Scheduled jobs: an entity whose last sync started at or after this time (ISO) is not due any more. */
  dueBefore?: string;
}

/** What a request puts on a connector's queue. */
interface QueueRequest {
  /** Entity names, parents first. */
  names: string[];
  trigger: SyncTrigger;
  /** Every entity of the connector was asked for (not one): names the refusal's field. */
  wholeConnector: boolean;
  /** Walk them in full. */
  full: boolean;
}

interface QueuedJob {
  id: string;
  state: 'created' | 'retry' | 'active';
  data: SyncJobData;
}

/** The reason an entity's sync, or a job fetched while stopping, gives when the service stops under it. */
const STOPPING = 'interrupted: the service is stopping';
/** Why a job left active by a process that is gone failed. */
const RUNNER_GONE = 'the process that ran this sync stopped without finishing it';
/** The answer of a settle statement that was not run: pg-boss reads the count of the jobs it settled (rows[0].count). */
const NOTHING_SETTLED = { rows: [{ count: '0' }] };
/** How long a disowned job's mark waits for the queue's settle statement (sent as soon as its handler returns). */
const DISOWNED_MS = 10_000;
/** How long a job fetched while this process lacks its runner lock waits for it before it is handed back. */
const RUNNER_WAIT_MS = 15_000;

/**
 * Whether a job's failure is a stop alone (`reason`: the service stopping, the claim lost): every entity that
 * failed says so (or was stopped by a parent that did).
 */
function stoppedOnly(error: unknown, reason: string): boolean {
  if (!(error instanceof SyncJobFailed)) return false;
  return error.outcomes.filter((o) => o.status === 'failed').every((o) => o.reason?.includes(reason) === true);
}

/** An attempt whose end this process may not record (maySettle): it carries what stopped it. */
class AttemptDisowned extends Error {
  constructor(readonly reason: unknown) {
    super(`this attempt's job may be another process's now (${reason instanceof Error ? reason.message : String(reason)})`);
    this.name = 'AttemptDisowned';
  }
}

/** This process does not hold its runner lock (its connection dropped): it starts no sync job until it does. */
class RunnerLockMissing extends Error {
  constructor() {
    super('this process lost the connection that tells other processes it is alive; the job waits for it');
    this.name = 'RunnerLockMissing';
  }
}

/** A job attempt with a failed entity: the queue retries it. Its outcomes are kept in the job's output. */
class SyncJobFailed extends Error {
  constructor(readonly outcomes: EntityOutcome[]) {
    const failed = outcomes.filter((o) => o.status === 'failed');
    super(`sync failed for ${failed.map((o) => `${o.entity} (${o.reason ?? 'unknown reason'})`).join('; ')}`);
    this.name = 'SyncJobFailed';
  }
}

async function findConnectorAnyOrganization(ctx: ServiceContext, connectorId: string): Promise<ConnectorRow> {
  const row = await ctx.store.db
    .selectFrom('connectors')
    .innerJoin('workspaces', 'workspaces.id', 'connectors.workspace_id')
    .selectAll('connectors')
    .where('connectors.id', '=', connectorId)
    .where('workspaces.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ResourceNotFoundError(`No connector ${connectorId}.`);
  return row;
}

function definitionOf(row: ConnectorRow): ConnectorDefinition {
  const definition = connectorModules[row.connector_type]?.definition;
  if (!definition) {
    throw new BadRequestError(
      `Connector ${row.id} is of type "${row.connector_type}", which this service no longer offers: it cannot be synchronized.`,
      'connector_type_unavailable',
    );
  }
  return definition;
}

/** The entities to sync, checked: a named entity must exist and be readable by a sync. */
function entitiesToSync(definition: ConnectorDefinition, entity: string | undefined): string[] {
  const syncable = syncableEntities(definition);
  if (entity === undefined) {
    if (syncable.length === 0) {
      throw new BadRequestError(`${definition.displayName} has no entity the context store can synchronize.`, 'nothing_to_sync');
    }
    return syncable;
  }
  if (!Object.hasOwn(definition.entities, entity)) {
    const message = `Unknown entity "${entity}" for ${definition.connectorType}. Entities the sync reads: ${syncable.join(', ') || 'none'}.`;
    throw new BadRequestError(message, 'unknown_entity', [{ field: 'entity', rule: 'unknown_entity', message, limit: syncable }]);
  }
  const problem = syncProblem(definition, entity);
  if (problem !== undefined) {
    const message = `${entity} cannot be synchronized: ${problem}. Entities the sync reads: ${syncable.join(', ') || 'none'}.`;
    throw new BadRequestError(message, 'entity_not_syncable', [{ field: 'entity', rule: 'entity_not_syncable', message, limit: syncable }]);
  }
  return [entity];
}

/** The names in the definition's order (parents first). */
function inSyncOrder(definition: ConnectorDefinition, names: Iterable<string>): string[] {
  const wanted = new Set(names);
  const ordered = syncableEntities(definition).filter((name) => wanted.has(name));
  for (const name of wanted) if (!ordered.includes(name)) ordered.push(name);
  return ordered;
}

function queueName(connectorType: string): string {
  return `${SYNC_QUEUE_PREFIX}${connectorType}`;
}

function asDate(value: unknown): Date | undefined {
  if (value === null || value === undefined) return undefined;
  const date = value instanceof Date ? value : new Date(String(value));
  return Number.isNaN(date.getTime()) ? undefined : date;
}

/**
 * Whether the entity's last sync answers the job (`created`: when it was created): a sync completed since, or,
 * for an entity a request joined to the job to walk in full, a walk begun after that request.
 */
function answersJob(data: SyncJobData, created: number, state: { entity: string; status: string; started_at: unknown; last_synced_at: unknown }): boolean {
  if (state.status !== 'ready') return false;
  const time = (value: unknown) => asDate(value)?.getTime() ?? Number.NEGATIVE_INFINITY;
  const fullAsked = data.fullAskedAt?.[state.entity];
  return fullAsked === undefined ? time(state.last_synced_at) >= created : time(state.started_at) > time(fullAsked);
}

function isOutcome(value: unknown): value is EntityOutcome {
  return (
    value !== null && typeof value === 'object' && typeof (value as EntityOutcome).entity === 'string' && typeof (value as EntityOutcome).status === 'string'
  );
}

export class SyncService {
  private readonly retry: RetryPolicy;
  private readonly settings: Required<SyncQueueSettings>;
  private boss: PgBoss;
  private starting: Promise<void> | undefined;
  /** Vendors whose queue exists and is worked by this process. */
  private readonly vendors = new Map<string, Promise<void>>();
  private readonly workerIds = new Map<string, string[]>();
  private readonly runs = new Set<Promise<unknown>>();
  /** Connector id -> the attempt id (its own, not the job's) of the connector's sync job this process runs. */
  private readonly running = new Map<string, string>();
  private readonly listeners = new Map<string, Set<(progress: SyncProgress) => void>>();
  /** Enqueues in progress per connector: requests of this process read the queue and add to it one at a time. */
  private readonly enqueueing = new Map<string, Promise<unknown>>();
  private readonly abort = new AbortController();
  private dueTimer: NodeJS.Timeout | undefined;
  /** On PostgreSQL, the lock that tells the other processes this one is alive (runner-lock.ts); taken when the queue starts. */
  private runner: RunnerLock | undefined;
  /**
   * Jobs whose end this process must not record (maySettle), until when: the queue's settle statement for one,
   * sent as soon as its handler returns, is dropped once; a mark it did not use lapses after DISOWNED_MS.
   */
  private readonly disowned = new Map<string, number>();
  private closing = false;
  /** Jobs this process's stop interrupted (id -> queue name): handed back to the queue at close, without spending a retry. */
  private readonly interrupted = new Map<string, string>();
  /** Queue statements under way, and whether the queue may still use the store (not after close). */
  private inFlight = 0;
  private storeReleased = false;
  /** Jobs this process has completed or failed (tests, diagnostics). */
  jobsRun = 0;

  constructor(
    private readonly ctx: ServiceContext,
    private readonly log: FastifyBaseLogger,
    options: SyncServiceOptions = {},
  ) {
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
    const configured = { ...ctx.config.syncQueue, ...options.queue };
    this.settings = {
      concurrency: configured.concurrency ?? SYNC_QUEUE_DEFAULTS.concurrency,
      vendorConcurrency: configured.vendorConcurrency ?? {},
      retryLimit: configured.retryLimit ?? SYNC_QUEUE_DEFAULTS.retryLimit,
      retryDelaySeconds: configured.retryDelaySeconds ?? SYNC_QUEUE_DEFAULTS.retryDelaySeconds,
      jobTimeoutMinutes: configured.jobTimeoutMinutes ?? SYNC_QUEUE_DEFAULTS.jobTimeoutMinutes,
      pollSeconds: configured.pollSeconds ?? SYNC_QUEUE_DEFAULTS.pollSeconds,
      checkSeconds: configured.checkSeconds ?? SYNC_QUEUE_DEFAULTS.checkSeconds,
    };
    const unknown = Object.keys(this.settings.vendorConcurrency).filter((type) => !connectorModules[type]);
    if (unknown.length > 0) {
      throw new ConfigError(
        `SYNC_VENDOR_CONCURRENCY names no connector type ${unknown.map((t) => `"${t}"`).join(', ')}; connector types: ${Object.keys(connectorModules).sort().join(', ')}.`,
      );
    }
    this.boss = this.newBoss();
  }

  private newBoss(): PgBoss {
    const db = this.ctx.store.db;
    const settleStatements = jobSettleStatements(QUEUE_SCHEMA);
    /** A job's end, recorded once the store answers again (see queue-settle.ts); given up after about ten minutes. */
    const settle = async (query: CompiledQuery, values: unknown[]): Promise<{ rows: unknown[] }> => {
      for (let attempt = 1; ; attempt += 1) {
        try {
          return { rows: (await db.executeQuery(query)).rows };
        } catch (error) {
          // Nothing awaits this statement: a rejection would be unhandled and end the process. A job whose end is not
          // recorded stays active until SYNC_JOB_TIMEOUT_MINUTES (or the next start, on the embedded store).
          if (!isStoreUnavailable(error) || this.closing || attempt > SETTLE_ATTEMPTS) {
            this.log.error(
              { err: (error as Error).message, job_ids: values[1] },
              'could not record the end of a sync job; it stays active until SYNC_JOB_TIMEOUT_MINUTES',
            );
            return NOTHING_SETTLED;
          }
          if (attempt === 1)
            this.log.warn({ err: (error as Error).message, job_ids: values[1] }, 'the store is unavailable: the end of a sync job is recorded when it is back');
          await sleep(Math.min(1000 * 2 ** (attempt - 1), 10_000));
        }
      }
    };
    // pg-boss runs its SQL through the store's own connection (PGlite or the PostgreSQL pool): no second connection, no LISTEN needed (it polls).
    const boss = new PgBoss({
      db: {
        executeSql: async (text: string, values?: unknown[]) => {
          if (this.storeReleased) {
            // A job's end sent after the store was released: nothing awaits it, so it must not reject (see settle).
            if (settleStatements.has(text)) return NOTHING_SETTLED;
            throw new Error('the sync queue is stopped');
          }
          this.inFlight += 1;
          try {
            const query = CompiledQuery.raw(text, values ?? []);
            if (settleStatements.has(text)) {
              if (this.settlesDisowned(values)) return NOTHING_SETTLED;
              return await settle(query, values ?? []);
            }
            if (!/^\s*BEGIN\b/i.test(text)) return { rows: (await db.executeQuery(query)).rows };
            // A script with its own transaction (schema install, migrations) that fails midway leaves its connection in the
            // aborted transaction: rolled back here before the connection goes back to the pool.
            return await db.connection().execute(async (connection) => {
              try {
                return { rows: (await connection.executeQuery(query)).rows };
              } catch (error) {
                await connection.executeQuery(CompiledQuery.raw('ROLLBACK')).catch(() => undefined);
                throw error;
              }
            });
          } finally {
            this.inFlight -= 1;
          }
        },
      },
      schema: QUEUE_SCHEMA,
      schedule: false,
      supervise: true,
      maintenanceIntervalSeconds: 60,
    });
    boss.on('error', (error: Error) => {
      if (!this.closing) this.log.warn({ err: error.message }, 'sync queue error');
    });
    return boss;
  }

  /** Whether a settle statement (pg-boss's complete or fail: values [queue, job ids, output]) is for disowned jobs only; they are forgotten then. */
  private settlesDisowned(values: unknown[] | undefined): boolean {
    const now = Date.now();
    for (const [id, until] of this.disowned) if (until < now) this.disowned.delete(id);
    const ids = values?.[1];
    if (!Array.isArray(ids) || ids.length === 0 || !ids.every((id) => typeof id === 'string' && this.disowned.has(id))) return false;
    for (const id of ids) this.disowned.delete(id as string);
    return true;
  }

  /** Whether this process is running a sync job of the connector. */
  isRunning(connectorId: string): boolean {
    return this.running.has(connectorId);
  }

  /** Sync jobs running in this process. */
  get activeRuns(): number {
    return this.running.size;
  }

  /** Whether the due checks run (the composition root's background work). */
  get scheduling(): boolean {
    return this.dueTimer !== undefined;
  }

  private concurrencyOf(connectorType: string): number {
    return this.settings.vendorConcurrency[connectorType] ?? this.settings.concurrency;
  }

  /** Installs or migrates the queue's schema (pg-boss's own, under its advisory lock) and starts it, once. */
  private started(): Promise<void> {
    if (this.closing) return Promise.reject(new ConflictError('The service is stopping: no new sync starts.'));
    this.starting ??= (async () => {
      const { databaseUrl } = this.ctx.config;
      // Before the queue starts: its workers fetch jobs at once, and a job is noted under this process's key.
      if (this.ctx.store.kind === 'postgres' && databaseUrl !== undefined && this.runner === undefined) {
        this.runner = await holdRunnerLock(databaseUrl, (error) =>
          this.log.warn({ err: error.message }, 'lost the connection that tells other processes this one runs its sync jobs; its running syncs stop'),
        );
      }
      for (let attempt = 1; ; attempt += 1) {
        try {
          await this.boss.start();
        } catch (error) {
          // Two processes installing the schema at once: pg-boss checks "installed?" before its lock, so the later one
          // fails. A fresh instance then finds it installed (a pg-boss instance whose start failed cannot be started again).
          if (attempt >= 3) throw error;
          this.log.info({ err: error instanceof Error ? error.message : String(error) }, 'the sync queue could not start; trying again');
          this.boss = this.newBoss();
          await sleep(100 * attempt);
          continue;
        }
        // Once, on the started queue: a failure here is told and leaves the jobs to their timeout, not a second queue.
        if (this.ctx.store.kind === 'pglite') {
          await this.reclaimOrphanedJobs().catch((error: unknown) =>
            this.log.error({ err: error instanceof Error ? error.message : String(error) }, 'could not hand back the sync jobs a stopped process left running'),
          );
        }
        return;
      }
    })();
    this.starting.catch(() => {
      this.starting = undefined;
      this.boss = this.newBoss();
    });
    return this.starting;
  }

  /**
   * The embedded store has one process (its lock): a sync job still active when the queue starts was left by a
   * process that died (kill -9, a crash). Failing it hands it to the queue's retries now, where it would otherwise
   * block the connector's syncs until SYNC_JOB_TIMEOUT_MINUTES. On PostgreSQL another process may be running it.
   */
  private async reclaimOrphanedJobs(): Promise<void> {
    const { rows } = await sql<{ id: string; name: string }>`
      SELECT id, name FROM ${sql.id(QUEUE_SCHEMA, 'job')}
      WHERE name LIKE ${`${SYNC_QUEUE_PREFIX}%`} AND state = 'active'`.execute(this.ctx.store.db);
    await this.failAsRunnerGone(rows, false);
  }

  /** Hands jobs a stopped process left active back to the queue (failed, `keepRetry` or spending one), and says so. */
  private async failAsRunnerGone(jobs: ReadonlyArray<{ name: string; id: string }>, keepRetry: boolean): Promise<void> {
    if (jobs.length === 0) return;
    for (const job of jobs) {
      if (keepRetry) await this.giveRetryBack(job);
      await this.boss.fail(job.name, job.id, { message: RUNNER_GONE });
    }
    this.log.warn({ jobs: jobs.map((job) => job.id) }, 'sync jobs left running by a process that stopped are handed back to the queue');
  }

  /**
   * PostgreSQL, at each due check: the active sync jobs noted under a runner whose lock is free (its process
   * died, or lost its connection to the store) are handed back to the queue, and so are this process's own
   * notes of jobs it no longer runs (it lost its lock under them and took it again); notes of jobs no longer
   * active are dropped. A job is failed only while its runner's lock is held here, and only if it is still
   * noted under that runner (re-read under the lock): never an attempt another process has taken since.
   */
  private async handBackJobsOfGoneRunners(): Promise<void> {
    const runner = this.runner;
    if (runner === undefined) return;
    const db = this.ctx.store.db;
    const job = sql.table(`${QUEUE_SCHEMA}.job`);
    const { rows } = await sql<{ runner_key: number }>`
      SELECT DISTINCT r.runner_key FROM sync_job_runners r JOIN ${job} j ON j.name = r.queue_name AND j.id = r.job_id
      WHERE j.state = 'active'`.execute(db);
    for (const { runner_key: key } of rows) {
      // This process's own jobs lost under a lost lock keep their retry; a process that died may have died of its job.
      if (key === runner.key) {
        if (runner.connection.held) await this.handBackNotedUnder(key, new Set(this.running.values()), true);
      } else await whileRunnerGone(db, key, () => this.handBackNotedUnder(key, new Set(), false));
    }
    await sql`
      DELETE FROM sync_job_runners r
      WHERE NOT EXISTS (SELECT 1 FROM ${job} j WHERE j.name = r.queue_name AND j.id = r.job_id AND j.state = 'active')`.execute(db);
  }

  /**
   * Fails the active jobs noted under `key` (but the attempts in `running`), `keepRetry` or spending one, and
   * drops the notes of those it failed.
   */
  private async handBackNotedUnder(key: number, running: Set<string>, keepRetry: boolean): Promise<void> {
    const db = this.ctx.store.db;
    const job = sql.table(`${QUEUE_SCHEMA}.job`);
    const { rows } = await sql<{ job_id: string; queue_name: string; attempt: string }>`
      SELECT r.job_id, r.queue_name, r.attempt FROM sync_job_runners r JOIN ${job} j ON j.name = r.queue_name AND j.id = r.job_id
      WHERE r.runner_key = ${key} AND j.state = 'active'`.execute(db);
    const gone = rows.filter((row) => !running.has(row.attempt));
    if (gone.length === 0) return;
    await this.failAsRunnerGone(
      gone.map((row) => ({ name: row.queue_name, id: row.job_id })),
      keepRetry,
    );
    // A failure the queue could not record leaves its note, for the next pass.
    await sql`
      DELETE FROM sync_job_runners r USING ${job} j
      WHERE j.name = r.queue_name AND j.id = r.job_id AND r.runner_key = ${key} AND j.state <> 'active'`.execute(db);
  }

  /** Notes this process as the runner of this attempt of the job (PostgreSQL); the attempt id tells it from later ones. */
  private async noteRunner(job: PgBoss.JobWithMetadata<SyncJobData>, runner: RunnerLock, attempt: string): Promise<void> {
    const note = { runner_key: runner.key, attempt, started_at: sql<Date>`now()` };
    await this.ctx.store.db
      .insertInto('sync_job_runners')
      .values({ job_id: job.id, queue_name: job.name, ...note })
      .onConflict((conflict) => conflict.column('job_id').doUpdateSet(note))
      .execute();
  }

  /** Whether this attempt is still the job's noted one (no other process handed it back meanwhile). */
  private async stillNoted(jobId: string, runner: RunnerLock, attempt: string): Promise<boolean> {
    const row = await this.ctx.store.db
      .selectFrom('sync_job_runners')
      .select('job_id')
      .where('job_id', '=', jobId)
      .where('runner_key', '=', runner.key)
      .where('attempt', '=', attempt)
      .executeTakeFirst();
    return row !== undefined;
  }

  /** Creates the vendor's queue (or brings its settings up to date) and starts this process's workers on it, once. */
  private worked(connectorType: string): Promise<void> {
    let ready = this.vendors.get(connectorType);
    if (!ready) {
      ready = (async () => {
        await this.started();
        const name = queueName(connectorType);
        const options = {
          name,
          policy: 'stately' as const,
          retryLimit: this.settings.retryLimit,
          retryDelay: this.settings.retryDelaySeconds,
          retryBackoff: true,
          expireInSeconds: this.settings.jobTimeoutMinutes * 60,
        };
        await createQueueOnce(this.boss, name, options);
        await this.boss.updateQueue(name, options);
        const ids: string[] = [];
        for (let i = 0; i < this.concurrencyOf(connectorType); i += 1) {
          ids.push(
            await this.boss.work<SyncJobData>(
              name,
              { includeMetadata: true, batchSize: 1, pollingIntervalSeconds: this.settings.pollSeconds },
              async ([job]) => (job ? this.runJob(job) : undefined),
            ),
          );
        }
        this.workerIds.set(connectorType, ids);
      })();
      ready.catch(() => this.vendors.delete(connectorType));
      this.vendors.set(connectorType, ready);
    }
    return ready;
  }

  /** The connector's jobs that are waiting or running. */
  private async pendingJobs(connectorType: string, connectorId: string): Promise<QueuedJob[]> {
    const result = await sql<QueuedJob>`
      SELECT id, state::text AS state, data FROM ${sql.table(`${QUEUE_SCHEMA}.job`)}
      WHERE name = ${queueName(connectorType)} AND singleton_key = ${connectorId} AND state < 'completed'
      ORDER BY created_on`.execute(this.ctx.store.db);
    return result.rows;
  }

  /** Options of a new sync job; `behindRunning`: the connector's job runs, so this one is held back (see enqueue). */
  private sendOptions(behindRunning = false): PgBoss.SendOptions {
    return {
      retryLimit: this.settings.retryLimit,
      retryDelay: this.settings.retryDelaySeconds,
      retryBackoff: true,
      expireInSeconds: this.settings.jobTimeoutMinutes * 60,
      ...(behindRunning && { startAfter: new Date(Date.now() + this.settings.jobTimeoutMinutes * 60_000) }),
    };
  }

  /**
   * Puts the entities on the connector's queue: joins the job that waits (adding what it lacks), or sends
   * a new one. Entities the running job covers are `already_running`; a 409 when that is all of them.
   */
  private async enqueue(
    row: ConnectorRow,
    definition: ConnectorDefinition,
    request: QueueRequest,
  ): Promise<{ jobId: string; states: StartedSync['entities'] }> {
    // Two requests that both read "no job waits" before either sends would queue two jobs: one at a time, the
    // second sees the first's job and joins it (or gets a 409 once it runs).
    const turn = (this.enqueueing.get(row.id) ?? Promise.resolve()).catch(() => undefined).then(() => this.enqueueNow(row, definition, request));
    this.enqueueing.set(row.id, turn);
    try {
      return await turn;
    } finally {
      if (this.enqueueing.get(row.id) === turn) this.enqueueing.delete(row.id);
    }
  }

  private async enqueueNow(
    row: ConnectorRow,
    definition: ConnectorDefinition,
    { names, trigger, wholeConnector, full }: QueueRequest,
  ): Promise<{ jobId: string; states: StartedSync['entities'] }> {
    await this.worked(row.connector_type);
    const name = queueName(row.connector_type);
    for (let attempt = 0; attempt < 5; attempt += 1) {
      const jobs = await this.pendingJobs(row.connector_type, row.id);
      const active = jobs.find((job) => job.state === 'active');
      const waiting = jobs.find((job) => job.state !== 'active');
      const runningNames = new Set(active?.data.entities ?? []);
      const rest = names.filter((n) => !runningNames.has(n));
      if (rest.length === 0) {
        const which = wholeConnector ? `every entity of connector ${row.id}` : `${names[0]} of connector ${row.id}`;
        const message = `A sync of ${which} is already running; wait for it to finish (inspect shows its progress).`;
        throw new ConflictError(message, { issues: [{ field: wholeConnector ? 'connector' : 'entity', rule: 'sync_in_progress', message }] });
      }
      const states = names.map((entity) => ({
        entity,
        state: (runningNames.has(entity) ? 'already_running' : active ? 'queued' : 'started') as EntityRequestState,
      }));
      if (waiting) {
        const entities = inSyncOrder(definition, [...waiting.data.entities, ...rest]);
        const fullWalks = inSyncOrder(definition, [...(waiting.data.full ?? []), ...(full ? rest : [])]);
        // Asked for now: a job waiting out a retry delay starts at once (one held back behind a running job stays so).
        const updated = await sql`
          UPDATE ${sql.table(`${QUEUE_SCHEMA}.job`)}
          SET data = jsonb_set(jsonb_set(data, '{entities}', ${JSON.stringify(entities)}::jsonb), '{full}', ${JSON.stringify(fullWalks)}::jsonb)
              || jsonb_build_object('fullAskedAt', coalesce(data -> 'fullAskedAt', '{}'::jsonb) || (
                SELECT coalesce(jsonb_object_agg(entity, to_char(now() AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')), '{}'::jsonb)
                FROM jsonb_array_elements_text(${JSON.stringify(full ? rest : [])}::jsonb) AS entity)),
            start_after = CASE WHEN ${active !== undefined} THEN start_after ELSE LEAST(start_after, now()) END
          WHERE name = ${name} AND id = ${waiting.id} AND state IN ('created', 'retry')`.execute(this.ctx.store.db);
        if (Number(updated.numAffectedRows ?? 0) === 1) return { jobId: waiting.id, states };
        continue;
      }
      const data: SyncJobData = { connectorId: row.id, entities: inSyncOrder(definition, rest), ...(full && { full: inSyncOrder(definition, rest) }), trigger };
      // Behind a running job of the same connector a job cannot start, and pg-boss's fetch of it would fail (and hold up the
      // other connectors' jobs behind it): it is held back until that job ends (releaseWaiting), at most its timeout.
      const id = await this.boss.send(name, { ...data }, { ...this.sendOptions(active !== undefined), singletonKey: row.id });
      if (id) {
        this.wake(row.connector_type);
        return { jobId: id, states };
      }
    }
    throw new ConflictError(`The sync queue of connector ${row.id} changed too often while the request was placed; try again.`);
  }

  /** Local workers look for the job now instead of at their next poll. */
  private wake(connectorType: string): void {
    for (const id of this.workerIds.get(connectorType) ?? []) this.boss.notifyWorker(id);
  }

  /**
   * Asks for a sync of the connector (one entity or all) and answers once it is on the queue. 404 for a
   * connector of another organization, 403 in an inactive workspace, 400 for an entity that does not
   * exist or cannot be synced, 409 when every requested entity is already being synced.
   */
  async start(options: StartSyncOptions): Promise<StartedSync> {
    if (this.closing) throw new ConflictError('The service is stopping: no new sync starts.');
    const { ctx } = this;
    const row =
      options.organizationId !== undefined
        ? await findConnector(ctx.store.db, options.organizationId, options.connectorId)
        : await findConnectorAnyOrganization(ctx, options.connectorId);
    assertWorkspaceActive(await findWorkspace(ctx.store.db, row.organization_id, row.workspace_id));
    const definition = definitionOf(row);
    const names = entitiesToSync(definition, options.entity);
    const { jobId, states } = await this.enqueue(row, definition, {
      names,
      trigger: options.trigger,
      wholeConnector: options.entity === undefined,
      full: options.full === true,
    });
    const requested = states.filter((s) => s.state !== 'already_running').map((s) => s.entity);
    return {
      connector_id: row.id,
      job_id: jobId,
      entities: states,
      wait: (onProgress, waitOptions) => this.waitFor(row, jobId, requested, onProgress, waitOptions?.timeoutMs),
    };
  }

  /**
   * Follows the job until its attempt ends (completed, failed, or failed and waiting for a retry), then
   * answers the outcomes of `names`; undefined when `timeoutMs` passes first.
   */
  private async waitFor(
    row: ConnectorRow,
    jobId: string,
    names: string[],
    onProgress: ((progress: SyncProgress) => void) | undefined,
    timeoutMs?: number,
  ): Promise<EntityOutcome[] | undefined> {
    const wanted = new Set(names);
    const listener = onProgress ? (progress: SyncProgress) => wanted.has(progress.entity) && onProgress(progress) : undefined;
    if (listener) {
      for (const entity of names) listener({ connectorId: row.id, entity, phase: 'queued', records: 0, changed: 0, pages: 0, deleted: 0, elapsedMs: 0 });
      let set = this.listeners.get(jobId);
      if (!set) this.listeners.set(jobId, (set = new Set()));
      set.add(listener);
    }
    const deadline = timeoutMs === undefined ? Number.POSITIVE_INFINITY : Date.now() + timeoutMs;
    const name = queueName(row.connector_type);
    let firstStart: number | undefined | null = null;
    const lastRemote = new Map<string, string>();
    try {
      for (;;) {
        if (this.closing) return undefined;
        const job = await this.boss.getJobById<SyncJobData>(name, jobId, { includeArchive: true });
        if (!job) return names.map((entity) => skippedOutcome(entity, 'the sync job was removed from the queue'));
        const startedOn = asDate(job.startedOn)?.getTime();
        // A job that was already waiting for a retry when we joined it: its earlier attempt is not ours.
        if (firstStart === null) firstStart = job.state === 'retry' ? startedOn : undefined;
        const attemptEnded =
          job.state === 'completed' || job.state === 'failed' || job.state === 'cancelled' || (job.state === 'retry' && startedOn !== firstStart);
        if (attemptEnded) return await this.outcomesOf(row, job, names);
        if (listener && job.state === 'active' && !this.running.has(row.id) && startedOn !== undefined)
          await this.remoteProgress(row, names, startedOn, listener, lastRemote);
        if (Date.now() >= deadline) return undefined;
        await sleep(job.state === 'active' ? 250 : 100);
      }
    } finally {
      if (listener) {
        const set = this.listeners.get(jobId);
        set?.delete(listener);
        if (set?.size === 0) this.listeners.delete(jobId);
      }
    }
  }

  /** Progress of a job another process runs, as the sync state in the store shows it. */
  private async remoteProgress(
    row: ConnectorRow,
    names: string[],
    startedOn: number,
    listener: (progress: SyncProgress) => void,
    last: Map<string, string>,
  ): Promise<void> {
    const rows = await this.ctx.store.db
      .selectFrom('context_sync_state')
      .select(['entity', 'status', 'record_count', 'pages', 'started_at', 'finished_at', 'last_error'])
      .where('connector_id', '=', row.id)
      .where('entity', 'in', names)
      .execute();
    for (const state of rows) {
      const started = asDate(state.started_at)?.getTime();
      if (started === undefined || started < startedOn - 1000) continue;
      const phase = state.status === 'ready' ? 'ready' : state.status === 'failed' ? 'failed' : 'running';
      const key = `${phase}:${state.pages}:${state.record_count}`;
      if (last.get(state.entity) === key) continue;
      last.set(state.entity, key);
      const finished = asDate(state.finished_at)?.getTime() ?? Date.now();
      listener({
        connectorId: row.id,
        entity: state.entity,
        phase,
        records: state.record_count,
        changed: 0,
        pages: state.pages,
        deleted: 0,
        elapsedMs: finished - started,
        ...(state.last_error !== null && { reason: state.last_error }),
      });
    }
  }

  /** The outcomes of an ended attempt: from the job's output, else (an expired or interrupted job) from the sync state. */
  private async outcomesOf(row: ConnectorRow, job: PgBoss.JobWithMetadata<SyncJobData>, names: string[]): Promise<EntityOutcome[]> {
    const output = (job.output ?? {}) as { value?: unknown; outcomes?: unknown; message?: unknown };
    const stored = Array.isArray(output.value) ? output.value : Array.isArray(output.outcomes) ? output.outcomes : undefined;
    const byEntity = new Map((stored ?? []).filter(isOutcome).map((o) => [o.entity, o]));
    const missing = names.filter((n) => !byEntity.has(n));
    if (missing.length > 0) {
      const states = await this.ctx.store.db
        .selectFrom('context_sync_state')
        .select(['entity', 'status', 'record_count', 'pages', 'last_error', 'started_at', 'last_synced_at'])
        .where('connector_id', '=', row.id)
        .where('entity', 'in', missing)
        .execute();
      const byName = new Map(states.map((s) => [s.entity, s]));
      const jobMessage = typeof output.message === 'string' ? output.message : `the sync job ended as ${job.state}`;
      const created = asDate(job.createdOn)?.getTime() ?? Number.POSITIVE_INFINITY;
      // The status of an entity the output lacks, and why.
      const unreported = (state: (typeof states)[number] | undefined): Pick<EntityOutcome, 'status' | 'reason'> => {
        if (job.data.trigger === 'schedule' && job.state === 'completed') return { status: 'skipped', reason: 'not due: synced meanwhile' };
        // A retried attempt skips what an earlier attempt of the job synced (alreadyDone): that entity is ready,
        // whatever failed since.
        if (state && answersJob(job.data, created, state)) return { status: 'ready', reason: 'synced by an earlier attempt of this job' };
        const reason = state?.last_error ?? jobMessage;
        if (job.state !== 'completed') return { status: 'failed', reason };
        return { status: state?.status === 'ready' ? 'ready' : 'skipped', reason };
      };
      for (const entity of missing) {
        const state = byName.get(entity);
        byEntity.set(entity, {
          entity,
          ...unreported(state),
          records: 0,
          changed: 0,
          deleted: 0,
          unconfirmed: 0,
          pages: state?.pages ?? 0,
          recordCount: state?.record_count ?? 0,
          elapsedMs: 0,
        });
      }
    }
    return names.map((n) => byEntity.get(n) as EntityOutcome);
  }

  /** Runs one job: the connector's entities, parents first. Throws (the queue retries) when an entity failed. */
  private async runJob(job: PgBoss.JobWithMetadata<SyncJobData>): Promise<EntityOutcome[]> {
    // Fetched while the queue was stopping: failed at once, so a process that keeps running retries it.
    if (this.closing) {
      await this.keepRetry(job);
      throw new Error(STOPPING);
    }
    const run = this.execute(job);
    this.runs.add(run);
    try {
      return await run;
    } catch (error) {
      if (this.closing && stoppedOnly(error, STOPPING)) await this.keepRetry(job);
      throw error;
    } finally {
      this.runs.delete(run);
      this.jobsRun += 1;
      await this.releaseWaiting(job);
    }
  }

  /** The job held back behind this one (enqueue) may start now. */
  private async releaseWaiting(job: PgBoss.JobWithMetadata<SyncJobData>): Promise<void> {
    try {
      await sql`
        UPDATE ${sql.table(`${QUEUE_SCHEMA}.job`)} SET start_after = now()
        WHERE name = ${job.name} AND singleton_key = ${job.data.connectorId} AND state = 'created' AND start_after > now()`.execute(this.ctx.store.db);
    } catch (error) {
      // Left to its start_after (the running job's timeout).
      if (!this.closing)
        this.log.warn(
          { err: error instanceof Error ? error.message : String(error), connector_id: job.data.connectorId },
          'could not release the next sync job of the connector',
        );
    }
  }

  private async execute(job: PgBoss.JobWithMetadata<SyncJobData>): Promise<EntityOutcome[]> {
    const { ctx } = this;
    const data = job.data;
    let row: ConnectorRow;
    let definition: ConnectorDefinition;
    try {
      row = await findConnectorAnyOrganization(ctx, data.connectorId);
      assertWorkspaceActive(await findWorkspace(ctx.store.db, row.organization_id, row.workspace_id));
      definition = definitionOf(row);
    } catch (error) {
      // A connector deleted meanwhile, a workspace turned inactive, a type no longer offered: nothing to retry.
      if (error instanceof SwitchyardError) {
        this.log.info({ connector_id: data.connectorId, job_id: job.id, reason: error.message }, 'sync job skipped');
        return [];
      }
      throw error;
    }
    let names = inSyncOrder(definition, data.entities).filter(
      (name) => Object.hasOwn(definition.entities, name) && syncProblem(definition, name) === undefined,
    );
    const skip = await this.alreadyDone(job, names);
    names = names.filter((name) => !skip.has(name));
    if (names.length === 0) return [];

    const runner = this.runner;
    const attempt = randomUUID();
    this.running.set(row.id, attempt);
    let runnerHeld: (() => boolean) | undefined;
    let noted = false;
    /** Whether this process may record the job's end (maySettle), once judged. */
    let settles: boolean | undefined;
    try {
      if (runner !== undefined) {
        // Noted first: should this process die while it waits for its lock, the others hand the job back.
        await this.noteRunner(job, runner, attempt);
        noted = true;
        if (!runner.connection.held) await this.waitForRunnerLock(runner);
        // Read with the check just made: a loss from here on is a loss of this attempt.
        const losses = runner.connection.losses;
        runnerHeld = () => runner.connection.held && runner.connection.losses === losses;
        // Handed back while it waited (its lock was free): the job is not this attempt's any more.
        if (!(await this.stillNoted(job.id, runner, attempt))) {
          settles = false;
          this.disowned.set(job.id, Date.now() + DISOWNED_MS);
          throw new AttemptDisowned(new RunnerLockMissing());
        }
      }
      const connector = connectorInstance(ctx, row);
      const expireMs = Number(job.expireInSeconds) * 1000;
      // Stop writing a little before the queue may hand the job to another process.
      const validUntil = (asDate(job.startedOn)?.getTime() ?? Date.now()) + expireMs - Math.min(60_000, expireMs / 10);
      const entities: RunEntity[] = [];
      for (const name of names) {
        const { startedAt } = await beginEntitySync(ctx.store.db, row.id, name);
        entities.push({ name, lock: new JobClaim(row.id, name, validUntil, runnerHeld), startedAt, full: data.full?.includes(name) === true });
      }
      this.log.info({ connector_id: row.id, job_id: job.id, trigger: data.trigger, attempt: job.retryCount + 1, entities: names }, 'sync job started');
      const sync = new ConnectorSync({
        ctx,
        log: this.log,
        row,
        connector,
        entities,
        retry: this.retry,
        signal: this.abort.signal,
        onProgress: (progress) => {
          for (const listener of this.listeners.get(job.id) ?? []) listener(progress);
        },
      });
      const outcomes = await sync.run();
      const observer = observerOf(ctx);
      for (const outcome of outcomes) observer.syncFinished(row.connector_type, outcome.status, outcome.records, outcome.deleted);
      settles = await this.maySettle(job, runner, runnerHeld, noted ? attempt : undefined);
      if (outcomes.some((o) => o.status === 'failed')) throw new SyncJobFailed(outcomes);
      return outcomes;
    } catch (error) {
      if (error instanceof AttemptDisowned) throw error;
      settles ??= await this.maySettle(job, runner, runnerHeld, noted ? attempt : undefined);
      // Not this attempt's to settle: its failure is not recorded, so it must not give a retry back either.
      if (!settles) throw new AttemptDisowned(error);
      // Stopped because this process lost its runner lock, not for anything the job did: it keeps its retry.
      if (runnerHeld?.() === false && stoppedOnly(error, CLAIM_LOST)) await this.giveRetryBack(job);
      throw error;
    } finally {
      // A job this process may not settle keeps its note: the hand-back (here or in another process) ends it.
      if (runner !== undefined && noted && settles !== false)
        await this.ctx.store.db
          .deleteFrom('sync_job_runners')
          .where('job_id', '=', job.id)
          .where('runner_key', '=', runner.key)
          .where('attempt', '=', attempt)
          .execute()
          .catch(() => undefined);
      if (this.running.get(row.id) === attempt) this.running.delete(row.id);
    }
  }

  /**
   * Whether this process may still complete or fail the job: it holds the runner lock it held when the job
   * began, or holds it again and the job is still noted under this attempt (no one handed it back meanwhile).
   * Otherwise the queue's settle statements for it are dropped (`disowned`): the job may be another process's
   * attempt by now, and the queue settles by job id alone.
   */
  private async maySettle(
    job: PgBoss.JobWithMetadata<SyncJobData>,
    runner: RunnerLock | undefined,
    runnerHeld: (() => boolean) | undefined,
    attempt: string | undefined,
  ): Promise<boolean> {
    if (runner === undefined || attempt === undefined || runnerHeld?.() === true) return true;
    const noted = runner.connection.held && (await this.stillNoted(job.id, runner, attempt).catch(() => false));
    if (!noted) {
      this.disowned.set(job.id, Date.now() + DISOWNED_MS);
      this.log.warn({ job_id: job.id }, 'a sync job this process lost its runner lock under is left to the hand-back');
    }
    return noted;
  }

  /** Waits up to RUNNER_WAIT_MS for the runner lock to be taken again (every 5 s after a loss); RunnerLockMissing if it is not. */
  private async waitForRunnerLock(runner: RunnerLock): Promise<void> {
    const until = Date.now() + RUNNER_WAIT_MS;
    while (!runner.connection.held) {
      if (this.closing || Date.now() >= until) throw new RunnerLockMissing();
      await sleep(250);
    }
  }

  /**
   * Entities this job need not sync: for a scheduled job, those synced since it became due; for a retry,
   * those the earlier attempt (or any later sync) completed after the job was created (answersJob: for one a
   * request joined to walk in full, only a walk begun after the request).
   */
  private async alreadyDone(job: PgBoss.JobWithMetadata<SyncJobData>, names: string[]): Promise<Set<string>> {
    const dueBefore = asDate(job.data.dueBefore);
    if (dueBefore === undefined && job.retryCount === 0) return new Set();
    const rows = await this.ctx.store.db
      .selectFrom('context_sync_state')
      .select(['entity', 'status', 'started_at', 'last_synced_at'])
      .where('connector_id', '=', job.data.connectorId)
      .where('entity', 'in', names)
      .execute();
    const created = asDate(job.createdOn)?.getTime() ?? Number.POSITIVE_INFINITY;
    const done = new Set<string>();
    for (const row of rows) {
      const started = asDate(row.started_at)?.getTime();
      // A full walk a request joined to ask for is due whatever the schedule says.
      const fullAsked = job.data.fullAskedAt?.[row.entity] !== undefined;
      if ((job.retryCount > 0 || fullAsked) && answersJob(job.data, created, row)) done.add(row.entity);
      else if (!fullAsked && dueBefore !== undefined && started !== undefined && started >= dueBefore.getTime()) done.add(row.entity);
    }
    return done;
  }

  /** Puts every due connector on the queue (the due check job; one per period across the processes). */
  async enqueueDue(): Promise<number> {
    const serviceWide = this.ctx.config.syncIntervalMinutes ?? DEFAULT_SYNC_INTERVAL_MINUTES;
    let sent = 0;
    for (const due of await dueConnectors(this.ctx.store.db, serviceWide)) {
      const definition = connectorModules[due.connectorType]?.definition;
      if (!definition || this.closing) continue;
      const names = syncableEntities(definition);
      if (names.length === 0) continue;
      await this.worked(due.connectorType);
      // Already waiting or running: that job is the sync this check would ask for.
      if ((await this.pendingJobs(due.connectorType, due.id)).length > 0) continue;
      const data: SyncJobData = { connectorId: due.id, entities: names, trigger: 'schedule', dueBefore: due.dueBefore.toISOString() };
      const id = await this.boss.send(queueName(due.connectorType), { ...data }, { ...this.sendOptions(), singletonKey: due.id });
      if (id) {
        sent += 1;
        this.wake(due.connectorType);
      }
    }
    return sent;
  }

  /** The first sync of a new connector, unless its interval is 0; only where the due checks run (the service). */
  connectorCreated(connectorId: string): void {
    this.queueWholeConnector(connectorId, 'created');
  }

  /** A sync of a connector whose credentials or settings changed, on the same terms as a new one's. */
  connectorChanged(connectorId: string): void {
    this.queueWholeConnector(connectorId, 'updated');
  }

  private queueWholeConnector(connectorId: string, trigger: 'created' | 'updated'): void {
    if (!this.scheduling || this.closing) return;
    void (async () => {
      const row = await findConnectorAnyOrganization(this.ctx, connectorId);
      const serviceWide = this.ctx.config.syncIntervalMinutes ?? DEFAULT_SYNC_INTERVAL_MINUTES;
      if (connectorInterval(row.replication_config, serviceWide) === 0) return;
      const definition = definitionOf(row);
      const names = syncableEntities(definition);
      if (names.length === 0) return;
      await this.enqueue(row, definition, { names, trigger, wholeConnector: true, full: false });
    })().catch((error: unknown) => {
      if (!(error instanceof SwitchyardError) && !this.closing)
        this.log.error({ err: error, connector_id: connectorId, trigger }, 'could not queue a sync of a connector');
    });
  }

  /**
   * The background work of a service: works the queues of every vendor that has connectors and runs the
   * due check every `checkSeconds` (each process offers it; the queue lets one run per period).
   */
  async startScheduling(): Promise<void> {
    if (this.closing || this.dueTimer) return;
    await this.started();
    await createQueueOnce(this.boss, DUE_QUEUE, { name: DUE_QUEUE, policy: 'standard', retryLimit: 0, expireInSeconds: 600 });
    await this.boss.work(DUE_QUEUE, { pollingIntervalSeconds: Math.min(this.settings.pollSeconds, this.settings.checkSeconds) }, async () => {
      await this.enqueueDue();
    });
    const tick = async () => {
      await this.handBackJobsOfGoneRunners().catch((error: unknown) => {
        if (!this.closing)
          this.log.error({ err: error instanceof Error ? error.message : String(error) }, 'could not hand back the sync jobs of stopped processes');
      });
      const types = await this.ctx.store.db.selectFrom('connectors').select('connector_type').distinct().execute();
      for (const { connector_type } of types) if (connectorModules[connector_type]) await this.worked(connector_type);
      await this.boss.send(DUE_QUEUE, {}, { singletonKey: 'due', singletonSeconds: this.settings.checkSeconds, retryLimit: 0, expireInSeconds: 600 });
    };
    const safeTick = () =>
      tick().catch((error: unknown) => {
        if (!this.closing) this.log.error({ err: error }, 'could not look for connectors to sync');
      });
    this.dueTimer = setInterval(safeTick, this.settings.checkSeconds * 1000);
    this.dueTimer.unref();
    await safeTick();
  }

  /**
   * Stops the due checks, interrupts the syncs this process runs at their next page (each records
   * "interrupted" and its job fails, to be retried by a process that keeps running), and stops the queue.
   */
  async close(): Promise<void> {
    this.closing = true;
    if (this.dueTimer) clearInterval(this.dueTimer);
    this.dueTimer = undefined;
    this.abort.abort();
    await Promise.allSettled([...this.runs]);
    if (this.starting) {
      await this.starting.catch(() => undefined);
      await this.boss.stop({ graceful: true, wait: true, timeout: 10_000, close: false });
      // A worker's last poll may still be under way: let it end (its job, if any, is failed above) before the store closes.
      const until = Date.now() + 5_000;
      let quiet = 0;
      while (Date.now() < until && quiet < 3) {
        quiet = this.inFlight === 0 ? quiet + 1 : 0;
        await sleep(20);
      }
      await this.handBackInterrupted();
    }
    await this.runner?.connection.release();
    this.storeReleased = true;
  }

  /**
   * A job this stop interrupts keeps its retries: its retry limit grows by one (as pg-boss's own retry does)
   * before the queue fails it, so the failure puts it in the retry state even on its last attempt. A stop is
   * no failure of the job's, and a rolling restart would otherwise spend one retry of every running sync.
   */
  private async keepRetry(job: PgBoss.JobWithMetadata<SyncJobData>): Promise<void> {
    this.interrupted.set(job.id, job.name);
    await this.giveRetryBack(job);
  }

  /** The job's coming failure does not spend one of its retries: its retry limit grows by one first. */
  private async giveRetryBack(job: { name: string; id: string }): Promise<void> {
    try {
      await sql`
        UPDATE ${sql.table(`${QUEUE_SCHEMA}.job`)} SET retry_limit = retry_limit + 1
        WHERE name = ${job.name} AND id = ${job.id} AND state = 'active'`.execute(this.ctx.store.db);
    } catch (error) {
      this.log.warn({ err: error instanceof Error ? error.message : String(error), job_id: job.id }, 'could not keep the retry of an interrupted sync job');
    }
  }

  /**
   * The jobs this stop interrupted, failed by the queue into its retry state behind the retry delay, may start
   * again at once: a rolling restart would otherwise hold each running sync back by that delay.
   */
  private async handBackInterrupted(): Promise<void> {
    for (const [id, name] of this.interrupted) {
      try {
        await sql`
          UPDATE ${sql.table(`${QUEUE_SCHEMA}.job`)} SET start_after = now()
          WHERE name = ${name} AND id = ${id} AND state = 'retry'`.execute(this.ctx.store.db);
      } catch (error) {
        // It starts after the retry delay instead.
        this.log.warn({ err: error instanceof Error ? error.message : String(error), job_id: id }, 'could not hand an interrupted sync job back at once');
      }
    }
  }
}

/** The sync service of a running service (built by the composition root). */
export function syncServiceFor(ctx: ServiceContext): SyncService {
  return ctx.syncs;
}
