/**
 * The sync service of one ServiceContext: starts syncs (API, CLI, scheduler, connector creation),
 * guarantees one sync per (connector, entity) through SyncLocks, runs them in the background and stops
 * them cleanly when the service closes.
 */
import type { FastifyBaseLogger } from 'fastify';
import pino from 'pino';
import { connectorModules, type ConnectorDefinition } from '../../../runtime/index.js';
import type { ServiceContext } from '../../service-context.js';
import { BadRequestError, ConflictError, ResourceNotFoundError } from '../../errors.js';
import { findConnector, type ConnectorRow } from '../../services/connector-lookup.js';
import { connectorInstance } from '../../services/execution.js';
import { assertWorkspaceActive, findWorkspace } from '../../services/workspaces.js';
import { ConnectorSync, DEFAULT_RETRY_POLICY, type EntityOutcome, type RetryPolicy, type RunEntity, type SyncProgress } from './engine.js';
import { SyncLocks, type SyncLock } from './lock.js';
import { syncableEntities, syncProblem } from './plan.js';
import { beginEntitySync } from './state.js';

export type SyncTrigger = 'api' | 'cli' | 'schedule' | 'created';

export interface StartSyncOptions {
  /** The caller's organization (API); omitted for the operator's CLI and the scheduler. */
  organizationId?: string;
  connectorId: string;
  /** One entity; all the entities the sync can read when omitted. */
  entity?: string;
  trigger: SyncTrigger;
  /** Scheduled runs: skip an entity whose last sync started at or after this time (another process ran it meanwhile). */
  dueBefore?: Date;
  onProgress?: (progress: SyncProgress) => void;
}

export interface StartedSync {
  connector_id: string;
  entities: Array<{ entity: string; state: 'started' | 'already_running' | 'not_due' }>;
  /** Resolves when the run ends (never rejects). */
  done: Promise<EntityOutcome[]>;
}

export interface SyncServiceOptions {
  retry?: Partial<RetryPolicy>;
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
    throw new BadRequestError(`Connector ${row.id} is of type "${row.connector_type}", which this service no longer offers: it cannot be synchronized.`, 'connector_type_unavailable');
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

export class SyncService {
  readonly locks: SyncLocks;
  private readonly retry: RetryPolicy;
  private readonly runs = new Set<Promise<EntityOutcome[]>>();
  private readonly runningConnectors = new Map<string, number>();
  private readonly abort = new AbortController();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly log: FastifyBaseLogger,
    options: SyncServiceOptions = {},
  ) {
    this.locks = new SyncLocks(ctx.store.kind, ctx.config.databaseUrl);
    this.retry = { ...DEFAULT_RETRY_POLICY, ...options.retry };
  }

  /** Whether this process is syncing (some entity of) the connector. */
  isRunning(connectorId: string): boolean {
    return (this.runningConnectors.get(connectorId) ?? 0) > 0;
  }

  /** Runs in progress in this process. */
  get activeRuns(): number {
    return this.runs.size;
  }

  /**
   * Starts a sync of the connector (one entity or all), answering once the entities are locked and
   * marked as syncing; the walk goes on in the background (`done`). 404 for a connector of another
   * organization, 403 in an inactive workspace, 400 for an entity that does not exist or cannot be
   * synced, 409 when every requested entity is already being synced.
   */
  async start(options: StartSyncOptions): Promise<StartedSync> {
    if (this.abort.signal.aborted) throw new ConflictError('The service is stopping: no new sync starts.');
    const { ctx } = this;
    const row = options.organizationId !== undefined ? await findConnector(ctx.store.db, options.organizationId, options.connectorId) : await findConnectorAnyOrganization(ctx, options.connectorId);
    assertWorkspaceActive(await findWorkspace(ctx.store.db, row.organization_id, row.workspace_id));
    const definition = definitionOf(row);
    const names = entitiesToSync(definition, options.entity);

    const states: StartedSync['entities'] = [];
    const locked: Array<{ name: string; lock: SyncLock }> = [];
    try {
      for (const name of names) {
        const lock = await this.locks.tryAcquire(row.id, name);
        if (lock) locked.push({ name, lock });
        else states.push({ entity: name, state: 'already_running' });
      }
      if (locked.length === 0) {
        const which = options.entity === undefined ? `every entity of connector ${row.id}` : `${options.entity} of connector ${row.id}`;
        const message = `A sync of ${which} is already running; wait for it to finish (inspect shows its progress).`;
        throw new ConflictError(message, { issues: [{ field: options.entity === undefined ? 'connector' : 'entity', rule: 'sync_in_progress', message }] });
      }
      // The connector instance is built (credentials opened, config checked) before anything is marked.
      const connector = connectorInstance(ctx, row);
      const entities: RunEntity[] = [];
      for (const { name, lock } of locked) {
        if (options.dueBefore !== undefined && (await this.ranSince(row.id, name, options.dueBefore))) {
          states.push({ entity: name, state: 'not_due' });
          await lock.release();
          continue;
        }
        const { startedAt } = await beginEntitySync(ctx.store.db, row.id, name);
        entities.push({ name, lock, startedAt });
        states.push({ entity: name, state: 'started' });
        options.onProgress?.({ connectorId: row.id, entity: name, phase: 'queued', records: 0, changed: 0, pages: 0, deleted: 0, elapsedMs: 0 });
      }
      const order = new Map(names.map((name, index) => [name, index]));
      states.sort((a, b) => (order.get(a.entity) ?? 0) - (order.get(b.entity) ?? 0));
      const done = this.launch(row, connector, entities, options);
      return { connector_id: row.id, entities: states, done };
    } catch (error) {
      for (const { lock } of locked) await lock.release();
      throw error;
    }
  }

  private async ranSince(connectorId: string, entity: string, since: Date): Promise<boolean> {
    const row = await this.ctx.store.db
      .selectFrom('context_sync_state')
      .select('started_at')
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .executeTakeFirst();
    return row?.started_at != null && new Date(row.started_at).getTime() >= since.getTime();
  }

  private launch(row: ConnectorRow, connector: ReturnType<typeof connectorInstance>, entities: RunEntity[], options: StartSyncOptions): Promise<EntityOutcome[]> {
    if (entities.length === 0) return Promise.resolve([]);
    this.runningConnectors.set(row.id, (this.runningConnectors.get(row.id) ?? 0) + 1);
    const sync = new ConnectorSync({
      ctx: this.ctx,
      log: this.log,
      row,
      connector,
      entities,
      retry: this.retry,
      signal: this.abort.signal,
      ...(options.onProgress !== undefined && { onProgress: options.onProgress }),
    });
    const run = sync.run().finally(() => {
      this.runs.delete(run);
      const count = (this.runningConnectors.get(row.id) ?? 1) - 1;
      if (count <= 0) this.runningConnectors.delete(row.id);
      else this.runningConnectors.set(row.id, count);
    });
    this.runs.add(run);
    return run;
  }

  /** Stops every running sync at its next page (each records "interrupted"), waits for them, closes the locks. */
  async close(): Promise<void> {
    this.abort.abort();
    await Promise.allSettled([...this.runs]);
    await this.locks.close();
  }
}

/** The sync service of a running service (built by the composition root). */
export function syncServiceFor(ctx: ServiceContext): SyncService {
  return ctx.syncs;
}
