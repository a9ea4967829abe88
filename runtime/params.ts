/**
 * What execute accepts beyond an action's declared params, before they are validated:
 *
 * - The universal `limit` param of every action returning many records (list, api_search) that does not
 *   declare a `limit` of its own: it becomes the action's page-size param, clamped to that param's
 *   minimum and maximum. An action without a page-size param (or a limit below the vendor's minimum page
 *   size) gets `limit` applied by cutting the returned page to that many records.
 * - Scalar values as text, as clients that type every id as a string send them: a string of digits for
 *   an integer param, a decimal string for a number param, "true"/"false" for a boolean param; the same
 *   for the items of an array param.
 * - A param under one of its aliases (the manifest's `aliases`, e.g. the name Airbyte's clients send).
 */
import type { ActionDefinition, JsonObject, ParamDefinition } from './definition.js';

export const UNIVERSAL_LIMIT = 'limit';

/** Names a page-size param goes by, compared ignoring case and punctuation (page[size] = pagesize). */
const PAGE_SIZE_NAMES = new Set(['limit', 'perpage', 'pagesize', 'pagelimit', 'maxresults', 'first', 'batchsize']);

const squash = (name: string) => name.toLowerCase().replace(/[^a-z0-9]/g, '');

function typesOf(schema: JsonObject): string[] {
  const type = schema.type;
  if (typeof type === 'string') return [type];
  return Array.isArray(type) ? type.filter((t): t is string => typeof t === 'string') : [];
}

/**
 * The param that sets how many records a page of this action holds: the one its pagination names
 * (limit_param of offset pagination or of short_page_ends), else the first declared integer param
 * named like a page size (per_page, page_size, page[size], limit, first, maxResults, batchSize...).
 */
export function pageSizeParam(action: ActionDefinition): string | undefined {
  const pagination = action.pagination as { limit_param?: unknown; short_page_ends?: { limit_param?: unknown } } | undefined;
  const named = [pagination?.limit_param, pagination?.short_page_ends?.limit_param].find(
    (p): p is string => typeof p === 'string' && Object.hasOwn(action.params, p),
  );
  if (named !== undefined) return named;
  return Object.entries(action.params).find(([name, p]) => PAGE_SIZE_NAMES.has(squash(name)) && p.in !== 'path' && typesOf(p.schema).includes('integer'))?.[0];
}

/** How the universal limit reaches the vendor for one action. */
export interface LimitPlan {
  /** The page-size param it fills, or undefined when the returned page is cut instead. */
  param?: string;
  minimum?: number;
  maximum?: number;
}

/**
 * The universal limit of an action, or undefined when the action has none (it returns one record, or
 * declares `limit` itself). The page-size param is the one the pagination definition names
 * (limit_param), else the declared integer param named like a page size.
 */
export function limitPlan(action: ActionDefinition): LimitPlan | undefined {
  if (action.result !== 'many' || Object.hasOwn(action.params, UNIVERSAL_LIMIT)) return undefined;
  const param = pageSizeParam(action);
  if (param === undefined) return {};
  const schema = (action.params[param] as ParamDefinition).schema;
  return {
    param,
    ...(typeof schema.minimum === 'number' && { minimum: schema.minimum }),
    ...(typeof schema.maximum === 'number' && { maximum: schema.maximum }),
  };
}

/**
 * A scalar given as text, read as the type the param declares (each item of an array param alike:
 * `id: ["10000"]` for an array of integers); anything else is returned unchanged.
 */
function fromText(value: unknown, schema: JsonObject): unknown {
  if (Array.isArray(value)) {
    const items = schema.items;
    return typesOf(schema).includes('array') && items !== null && typeof items === 'object' && !Array.isArray(items)
      ? value.map((item) => fromText(item, items as JsonObject))
      : value;
  }
  if (typeof value !== 'string') return value;
  const types = typesOf(schema);
  if (types.length === 0 || types.includes('string')) return value;
  if (types.includes('integer') && /^-?\d{1,15}$/.test(value)) return Number(value);
  if (types.includes('number') && /^-?\d{1,15}(\.\d{1,15})?$/.test(value)) return Number(value);
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/**
 * The params as the validator should see them, and how many records to keep at most when the
 * universal limit is applied by cutting the page. A `limit` that is not a positive integer is left in
 * place for the validator to report as unknown only when the action has no universal limit; otherwise
 * it is reported here.
 */
export function prepareParams(
  action: ActionDefinition,
  params: Record<string, unknown>,
): { params: Record<string, unknown>; keepAtMost?: number; limitProblem?: string; aliasConflicts?: AliasConflict[] } {
  const { params: named, conflicts } = underParamNames(action, params);
  const prepared: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(named)) {
    const param = Object.hasOwn(action.params, name) ? action.params[name] : undefined;
    prepared[name] = param ? fromText(value, param.schema) : value;
  }
  return { ...withLimit(action, prepared), ...(conflicts.length > 0 && { aliasConflicts: conflicts }) };
}

/** The universal `limit` of prepared params turned into the action's page size and/or a cut of the page. */
function withLimit(
  action: ActionDefinition,
  prepared: Record<string, unknown>,
): { params: Record<string, unknown>; keepAtMost?: number; limitProblem?: string } {
  const plan = limitPlan(action);
  if (plan === undefined || prepared[UNIVERSAL_LIMIT] === undefined || prepared[UNIVERSAL_LIMIT] === null) {
    if (plan !== undefined && prepared[UNIVERSAL_LIMIT] === null) delete prepared[UNIVERSAL_LIMIT];
    return { params: prepared };
  }
  const limit = fromText(prepared[UNIVERSAL_LIMIT], { type: 'integer' });
  delete prepared[UNIVERSAL_LIMIT];
  if (typeof limit !== 'number' || !Number.isInteger(limit) || limit < 1) {
    return { params: prepared, limitProblem: `limit must be a positive integer (the most records to return), not ${JSON.stringify(limit)}` };
  }
  if (plan.param === undefined) return { params: prepared, keepAtMost: limit };
  // The action's own page-size param, when given too, wins.
  if (prepared[plan.param] !== undefined) return { params: prepared };
  const size = Math.max(plan.minimum ?? 1, Math.min(plan.maximum ?? limit, limit));
  prepared[plan.param] = size;
  return { params: prepared, ...(size > limit && { keepAtMost: limit }) };
}

/** A param given under two of its names (its own and an alias, or two aliases). */
export interface AliasConflict {
  param: string;
  names: string[];
}

const ALIASES = new WeakMap<ActionDefinition, Map<string, string>>();

/** Each alias of the action's params, mapped to its param's name. */
function aliasesOf(action: ActionDefinition): Map<string, string> {
  let aliases = ALIASES.get(action);
  if (aliases === undefined) {
    aliases = new Map();
    for (const [name, param] of Object.entries(action.params)) for (const alias of param.aliases ?? []) aliases.set(alias, name);
    ALIASES.set(action, aliases);
  }
  return aliases;
}

/** The params with those given under an alias moved to their param's name (null counts as not given). */
function underParamNames(action: ActionDefinition, params: Record<string, unknown>): { params: Record<string, unknown>; conflicts: AliasConflict[] } {
  const aliases = aliasesOf(action);
  if (aliases.size === 0) return { params, conflicts: [] };
  const named: Record<string, unknown> = {};
  const givenAs = new Map<string, string[]>();
  for (const [name, value] of Object.entries(params)) {
    const param = Object.hasOwn(action.params, name) ? name : (aliases.get(name) ?? name);
    if (value === null || value === undefined) {
      if (!Object.hasOwn(named, param)) named[param] = value;
      continue;
    }
    givenAs.set(param, [...(givenAs.get(param) ?? []), name]);
    named[param] = value;
  }
  const conflicts = [...givenAs].filter(([, names]) => names.length > 1).map(([param, names]) => ({ param, names }));
  return { params: named, conflicts };
}

/** One sentence for docs and inspect: what the universal limit does for an action. */
export function limitDescription(plan: LimitPlan): string {
  if (plan.param === undefined) {
    return 'The most records to return. This list has no page-size param, so the returned page is cut to this many records; the records cut off are not reached through next_params.';
  }
  const range =
    plan.maximum !== undefined ? ` (clamped to ${plan.minimum ?? 1}..${plan.maximum})` : plan.minimum !== undefined ? ` (at least ${plan.minimum})` : '';
  const cut = plan.minimum !== undefined && plan.minimum > 1 ? `; below ${plan.minimum} the returned page is cut to this many records` : '';
  return `The most records to return: sent as ${plan.param}${range}${cut}. Same as giving ${plan.param}, which wins when both are given.`;
}
