/**
 * Lists a sync must call more than once to read the whole entity, from the manifest's search keys: once per
 * value of an enum param (`each`), and once per time range (`window`) for lists that need one.
 */
import type { EntityDefinition, SearchDefinition } from '../../../runtime/index.js';
import { formatInstant } from '../../../runtime/instants.js';

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

/** `params` with `path` set to `value`; a dot path sets a field of an object param, keeping its other fields. */
function withParam(params: Record<string, unknown>, path: string, value: unknown): Record<string, unknown> {
  const [head, ...rest] = path.split('.') as [string, ...string[]];
  if (rest.length === 0) return { ...params, [head]: value };
  const current = params[head];
  const inner = current !== null && typeof current === 'object' && !Array.isArray(current) ? (current as Record<string, unknown>) : {};
  return { ...params, [head]: withParam(inner, rest.join('.'), value) };
}

/** The params that ask for one range, merged over the ones the walk would send otherwise. */
export function rangeParams(window: SyncWindow, range: TimeRange, current: Record<string, unknown>): Record<string, unknown> {
  const from = formatInstant(range.from, window.format, range.to);
  const to = formatInstant(range.to, window.format, range.to);
  return withParam(withParam(current, window.from, from), window.to, to);
}

/** The top-level params a window fills (a dot path fills its first segment's object). */
export function windowParamNames(window: SyncWindow): string[] {
  return [window.from, window.to].map((path) => path.split('.')[0] as string);
}

/** The values a sync lists the entity with, one walk each (the enum of its `each` param), or undefined without `each`. */
export function eachValues(entity: EntityDefinition): unknown[] | undefined {
  const name = entity.search.each;
  if (name === undefined) return undefined;
  const values = entity.actions.list?.params[name]?.schema.enum;
  return Array.isArray(values) ? values : [];
}
