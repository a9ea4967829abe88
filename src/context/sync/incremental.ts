/**
 * Incremental syncs from the manifest's search.incremental: which mode a sync of an entity runs in
 * (a full walk first and every full_sweep_hours, else only the changes since the high-water mark),
 * the change time of a record, and the params that carry the change filter to the vendor.
 */
import type { ActionDefinition, ConnectorDefinition, EntityDefinition, SearchDefinition } from '../../../runtime/index.js';
import { formatInstant } from '../../../runtime/instants.js';
import { getPath } from '../../../runtime/paths.js';
import type { SyncMode } from '../../api-shapes.js';

export type ChangeFilter = NonNullable<SearchDefinition['incremental']>;

/** The entity's change filter, or undefined when every sync walks it in full. */
export function changeFilterOf(entity: EntityDefinition): ChangeFilter | undefined {
  return entity.search.incremental;
}

/**
 * The change filter that decides whether a sync reads only what changed: the entity's own, or for a child
 * that follows its parent's changes (fan_out incremental_with_parent) the parent's.
 */
export function governingChangeFilter(definition: ConnectorDefinition, entity: EntityDefinition): ChangeFilter | undefined {
  const fanOut = entity.search.fanOut;
  const parent = fanOut?.incrementalWithParent ? definition.entities[fanOut.entity] : undefined;
  return changeFilterOf(entity) ?? (parent ? changeFilterOf(parent) : undefined);
}

export interface IncrementalState {
  highWaterMark: Date | null;
  lastFullSweepAt: Date | null;
  /** Start of the last complete sync, full or incremental. */
  syncedThrough: Date | null;
  /** Live records the last complete full walk did not read (context_sync_missed): the next walk is full, to confirm them. */
  unconfirmedDeletions: number;
}

export interface ModeDecision {
  mode: SyncMode;
  /** Why this mode (shown in logs and progress). */
  why: string;
  /** Incremental: the instant sent to the vendor (mark minus overlap). */
  since?: Date;
}

/**
 * Full when the entity has no change filter, no complete full walk yet, no mark, records its last full walk
 * did not read, or its last full walk started full_sweep_hours ago or more; otherwise incremental from the
 * mark minus the overlap.
 */
export function decideMode(filter: ChangeFilter | undefined, state: IncrementalState | undefined, now: Date): ModeDecision {
  if (filter === undefined) return { mode: 'full', why: 'the entity has no change filter' };
  if (!state?.lastFullSweepAt) return { mode: 'full', why: 'first sync: a full walk records the high-water mark' };
  if (!state.highWaterMark) return { mode: 'full', why: `no record carried ${filter.field} yet` };
  if (state.unconfirmedDeletions > 0) return { mode: 'full', why: unconfirmedWhy(state.unconfirmedDeletions) };
  if (now.getTime() - state.lastFullSweepAt.getTime() >= filter.fullSweepHours * 3_600_000) {
    return { mode: 'full', why: `full sweep (every ${filter.fullSweepHours} h) to find deleted records` };
  }
  return { mode: 'incremental', why: 'changes since the high-water mark', since: new Date(state.highWaterMark.getTime() - filter.overlapSeconds * 1000) };
}

/** Why a walk is full: records the last full walk missed are deleted only if this one misses them too. */
export function unconfirmedWhy(count: number): string {
  return `${count} record${count === 1 ? '' : 's'} the last full walk did not read: deleted if this full walk misses ${count === 1 ? 'it' : 'them'} too`;
}

const ZONE = /(Z|[+-]\d{2}:?\d{2})$/i;

/** Milliseconds since the epoch of an ISO 8601 text; a date-time without a zone is UTC. */
function parseIso(text: string): number | undefined {
  const trimmed = text.trim();
  if (!/^\d{4}-\d{2}-\d{2}/.test(trimmed)) return undefined;
  let normalized = trimmed.replace(' ', 'T');
  if (normalized.length > 10 && !ZONE.test(normalized)) normalized += 'Z';
  // "+0000" (Jira) reads as "+00:00".
  normalized = normalized.replace(/([+-]\d{2})(\d{2})$/, '$1:$2');
  const ms = Date.parse(normalized);
  return Number.isFinite(ms) ? ms : undefined;
}

/** The record's change time in milliseconds since the epoch, or undefined when it has none. */
export function changeTime(record: unknown, filter: Pick<ChangeFilter, 'field' | 'fieldFormat'>): number | undefined {
  const value = getPath(record, filter.field);
  if (value === undefined || value === null || value === '') return undefined;
  if (filter.fieldFormat === 'iso8601') return typeof value === 'string' ? parseIso(value) : undefined;
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\d+(\.\d+)?$/.test(value.trim()) ? Number(value) : Number.NaN;
  if (!Number.isFinite(number)) return undefined;
  return filter.fieldFormat === 'unix_seconds' ? number * 1000 : number;
}

/**
 * The params an incremental walk adds to the ones it would send otherwise (`current`: defaults, page size,
 * fan-out values) to carry the change filter (or the newest-first order).
 */
export function changeFilterParams(
  filter: ChangeFilter,
  action: ActionDefinition,
  since: Date,
  current: Record<string, unknown>,
  now: Date,
): Record<string, unknown> {
  if (filter.newestFirst !== undefined) return { ...filter.newestFirst };
  const { param, format } = filter;
  // The generator requires param and format wherever newest_first is absent.
  if (param === undefined || format === undefined) return {};
  const value = formatInstant(since, format, now);
  if (filter.template === undefined) return { [param]: value };
  const before = current[param];
  const text = filter.template.replaceAll('{value}', String(value)).replaceAll('{current}', before === undefined || before === null ? '' : String(before));
  const type = action.params[param]?.schema.type;
  const isStructured = type === 'object' || type === 'array' || (Array.isArray(type) && (type.includes('object') || type.includes('array')));
  return { [param]: isStructured ? JSON.parse(text) : text.trim() };
}

/**
 * Where a newest-first walk may stop: after a page holding a record changed before `since`, as long as
 * every record so far came in newest-first order (an answer out of order is read to its end).
 */
export class NewestFirstStop {
  private previous: number | undefined;
  private ordered = true;

  constructor(
    private readonly filter: ChangeFilter,
    private readonly since: Date,
  ) {}

  /** Takes a page in the order read; true when the pages after it hold only older records. */
  reachedOlder(items: unknown[]): boolean {
    let older = false;
    for (const item of items) {
      const time = changeTime(item, this.filter);
      if (time === undefined) continue;
      if (this.previous !== undefined && time > this.previous) this.ordered = false;
      this.previous = time;
      if (time < this.since.getTime()) older = true;
    }
    return this.ordered && older;
  }

  /** False once a record came after an older one: the vendor did not answer newest first. */
  get inOrder(): boolean {
    return this.ordered;
  }
}
