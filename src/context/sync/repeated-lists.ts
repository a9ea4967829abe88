/**
 * Lists a sync must call more than once to read the whole entity, from the manifest's search keys: once per
 * value of an enum param (`each`), and once per time range (`window`) for lists that need one.
 */
import type { EntityDefinition, SearchDefinition } from '../../../runtime/index.js';
import { formatInstant } from '../../../runtime/instants.js';
import { setPath } from '../../../runtime/paths.js';

export type SyncWindow = NonNullable<SearchDefinition['window']>;

export interface TimeRange {
  from: Date;
  to: Date;
}

const DAY_MS = 86_400_000;
/** How much consecutive ranges overlap: the whole seconds vendors' range params are written in. */
const BOUNDARY_OVERLAP_MS = 1000;

/**
 * The ranges a sync asks for, oldest first: from the window's start (or lookback_days before `now`) to `now`,
 * cut into ranges of at most max_days. Each range after the first begins a second before the previous one
 * ended, so that a record created on the boundary is listed whether the vendor's ends include it or not
 * (Pylon does not say); listed twice, it is stored once. Days (`date`) overlap by their boundary day.
 */
export function timeRanges(window: SyncWindow, now: Date): TimeRange[] {
  const start = window.start !== undefined ? Date.parse(window.start) : now.getTime() - (window.lookbackDays ?? 0) * DAY_MS;
  const span = window.maxDays !== undefined ? window.maxDays * DAY_MS : Number.POSITIVE_INFINITY;
  const ranges: TimeRange[] = [];
  for (let from = start; from < now.getTime(); ) {
    const to = Math.min(from + span, now.getTime());
    ranges.push({ from: new Date(from), to: new Date(to) });
    if (to >= now.getTime()) break;
    from = to - BOUNDARY_OVERLAP_MS;
  }
  return ranges;
}

/** The params that ask for one range, over the ones the walk would send otherwise; a dot path sets a field of an object param, keeping its other fields. */
export function rangeParams(window: SyncWindow, range: TimeRange, current: Record<string, unknown>): Record<string, unknown> {
  // A copy: an object param of `current` is shared by every range.
  const params = structuredClone(current);
  setPath(params, window.from, formatInstant(range.from, window.format, range.to));
  setPath(params, window.to, formatInstant(range.to, window.format, range.to));
  return params;
}

/** The top-level params a window fills (a dot path fills its first segment's object). */
export function windowParamNames(window: SyncWindow): string[] {
  return [window.from, window.to].map((path) => path.split('.')[0] as string);
}

/** The params each walk of the entity adds: one set per value of its `each` param's enum, or the one empty set without `each`. */
export function eachParams(entity: EntityDefinition): Array<Record<string, unknown>> {
  const name = entity.search.each;
  if (name === undefined) return [{}];
  const values = entity.actions.list?.params[name]?.schema.enum;
  return Array.isArray(values) ? values.map((value) => ({ [name]: value })) : [];
}
