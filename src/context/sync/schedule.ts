/**
 * When connectors are due for an automatic sync: when created (and at start-up when never synced), then
 * every `sync_interval_minutes` (its replication_config, else the service-wide SYNC_INTERVAL_MINUTES,
 * default 60; 0 turns automatic syncs off). The job queue (queue.ts) asks this on every due check and
 * enqueues a sync job for each connector found.
 */
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../../db/schema.js';

export const DEFAULT_SYNC_INTERVAL_MINUTES = 60;
export const MAX_SYNC_INTERVAL_MINUTES = 525_600;

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

export interface DueConnector {
  id: string;
  connectorType: string;
  /** An entity whose last sync started at or after this time was synced meanwhile: not due. */
  dueBefore: Date;
}

/** Connectors of active workspaces whose interval has passed since their last sync started (or that never synced). */
export async function dueConnectors(db: Kysely<DatabaseSchema>, serviceWideMinutes: number, now = Date.now()): Promise<DueConnector[]> {
  const rows = await db
    .selectFrom('connectors')
    .innerJoin('workspaces', 'workspaces.id', 'connectors.workspace_id')
    .leftJoin('context_sync_state', 'context_sync_state.connector_id', 'connectors.id')
    .select(['connectors.id', 'connectors.connector_type', 'connectors.replication_config'])
    .select((eb) => [eb.fn.max('context_sync_state.started_at').as('last_started'), eb.fn.count('context_sync_state.entity').as('states')])
    .where('workspaces.deleted_at', 'is', null)
    .where('workspaces.status', '=', 'active')
    .groupBy(['connectors.id', 'connectors.connector_type', 'connectors.replication_config', 'connectors.created_at'])
    .orderBy('connectors.created_at', 'asc')
    .execute();
  const found: DueConnector[] = [];
  for (const row of rows) {
    const interval = connectorInterval(row.replication_config, serviceWideMinutes);
    if (interval === 0) continue;
    const last = row.last_started === null ? undefined : new Date(row.last_started as Date | string).getTime();
    const dueBefore = new Date(now - interval * 60_000);
    if (last === undefined || Number(row.states) === 0) found.push({ id: row.id, connectorType: row.connector_type, dueBefore: new Date(now) });
    else if (last <= dueBefore.getTime()) found.push({ id: row.id, connectorType: row.connector_type, dueBefore });
  }
  return found;
}
