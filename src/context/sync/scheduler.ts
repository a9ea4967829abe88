/**
 * Automatic syncs: every connector in an active workspace is synced when it is created (and at start-up
 * when it never was), then again every `sync_interval_minutes` (its replication_config, else the
 * service-wide SYNC_INTERVAL_MINUTES, default 60; 0 turns automatic syncs off). A tick looks for due
 * connectors; several processes sharing one PostgreSQL may tick at once: the sync locks and the
 * "not due any more" check keep them from syncing the same entity twice.
 */
import type { FastifyBaseLogger } from 'fastify';
import type { ServiceContext } from '../../service-context.js';
import { SwitchyardError } from '../../errors.js';
import { syncServiceFor } from './service.js';

export const DEFAULT_SYNC_INTERVAL_MINUTES = 60;
export const MAX_SYNC_INTERVAL_MINUTES = 525_600;

export interface SchedulerOptions {
  /** Service-wide interval (minutes); 0 disables automatic syncs of connectors that set none. */
  intervalMinutes?: number;
  /** How often due connectors are looked for. */
  tickMs?: number;
  /** Connectors synced at the same time by this process. */
  concurrency?: number;
}

export interface SyncScheduler {
  /** Looks for due connectors now (after a connector was created). */
  poke(): void;
  /** Resolves when the current tick (if any) has started its syncs. */
  idle(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The connector's interval: replication_config.sync_interval_minutes (an integer, or a string of
 * digits) when set, else the service-wide one.
 */
export function connectorInterval(replicationConfig: unknown, serviceWide: number): number {
  const config = typeof replicationConfig === 'string' ? safeParse(replicationConfig) : replicationConfig;
  if (config !== null && typeof config === 'object' && !Array.isArray(config)) {
    const value = (config as Record<string, unknown>).sync_interval_minutes;
    const parsed = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value.trim()) ? Number(value.trim()) : undefined;
    if (parsed !== undefined && Number.isInteger(parsed) && parsed >= 0) return parsed;
  }
  return serviceWide;
}

function safeParse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Tells the scheduler (when one runs) that a connector was created: its first sync starts now. */
export function connectorCreated(ctx: ServiceContext): void {
  ctx.scheduler?.poke();
}

export function startSyncScheduler(ctx: ServiceContext, log: FastifyBaseLogger, options: SchedulerOptions = {}): SyncScheduler {
  const serviceWide = options.intervalMinutes ?? ctx.config.syncIntervalMinutes ?? DEFAULT_SYNC_INTERVAL_MINUTES;
  const tickMs = options.tickMs ?? 30_000;
  const concurrency = options.concurrency ?? 2;
  const service = syncServiceFor(ctx);
  const active = new Set<string>();
  let stopped = false;
  let ticking: Promise<void> = Promise.resolve();
  let again = false;
  let timer: NodeJS.Timeout | undefined;

  const due = async (): Promise<Array<{ id: string; dueBefore: Date }>> => {
    const rows = await ctx.store.db
      .selectFrom('connectors')
      .innerJoin('workspaces', 'workspaces.id', 'connectors.workspace_id')
      .leftJoin('context_sync_state', 'context_sync_state.connector_id', 'connectors.id')
      .select(['connectors.id', 'connectors.replication_config'])
      .select((eb) => [eb.fn.max('context_sync_state.started_at').as('last_started'), eb.fn.count('context_sync_state.entity').as('states')])
      .where('workspaces.deleted_at', 'is', null)
      .where('workspaces.status', '=', 'active')
      .groupBy(['connectors.id', 'connectors.replication_config', 'connectors.created_at'])
      .orderBy('connectors.created_at', 'asc')
      .execute();
    const now = Date.now();
    const found: Array<{ id: string; dueBefore: Date }> = [];
    for (const row of rows) {
      const interval = connectorInterval(row.replication_config, serviceWide);
      if (interval === 0) continue;
      const last = row.last_started === null ? undefined : new Date(row.last_started as Date | string).getTime();
      const dueBefore = new Date(now - interval * 60_000);
      if (last === undefined || Number(row.states) === 0) found.push({ id: row.id, dueBefore: new Date(now) });
      else if (last <= dueBefore.getTime()) found.push({ id: row.id, dueBefore });
    }
    return found;
  };

  const runOne = (id: string, dueBefore: Date) => {
    active.add(id);
    service
      .start({ connectorId: id, trigger: 'schedule', dueBefore })
      .then((started) => started.done)
      .catch((error: unknown) => {
        // 409 (running elsewhere), a workspace turned inactive, a connector deleted meanwhile: not errors of the scheduler.
        if (!(error instanceof SwitchyardError)) log.error({ err: error, connector_id: id }, 'scheduled sync could not start');
      })
      .finally(() => {
        active.delete(id);
        if (!stopped) poke();
      });
  };

  const tick = async () => {
    if (stopped) return;
    let candidates: Array<{ id: string; dueBefore: Date }>;
    try {
      candidates = await due();
    } catch (error) {
      if (!stopped) log.error({ err: error }, 'could not look for connectors to sync');
      return;
    }
    for (const { id, dueBefore } of candidates) {
      if (stopped || active.size >= concurrency) break;
      if (active.has(id) || service.isRunning(id)) continue;
      runOne(id, dueBefore);
    }
  };

  const poke = () => {
    if (stopped) return;
    again = true;
    ticking = ticking.then(async () => {
      if (!again) return;
      again = false;
      await tick();
    });
  };

  const schedule = () => {
    timer = setTimeout(() => {
      poke();
      schedule();
    }, tickMs);
    timer.unref();
  };

  const scheduler: SyncScheduler = {
    poke,
    idle: () => ticking,
    async stop() {
      stopped = true;
      if (timer) clearTimeout(timer);
      await ticking;
    },
  };
  poke();
  schedule();
  return scheduler;
}
