/**
 * What a sync of one connector reads, from its definition alone: which entities are searchable, which of
 * them a sync can list (a `list` action whose required params are all supplied by the fan-out chain, the
 * entity's `each` param, its `window` or the connector's configuration (`config_params`), or
 * the param-less `get` of a single object, read as one record), in which order (parents before
 * children), and the page size to ask for.
 */
import { pageSizeParam, type ActionDefinition, type ConnectorDefinition, type EntityDefinition } from '../../../runtime/index.js';
import { windowParamNames } from './repeated-lists.js';

/** Entities declared searchable in the context store (search.fields non-empty), in manifest order. */
export function searchableEntities(definition: ConnectorDefinition): string[] {
  return Object.values(definition.entities)
    .filter((entity) => entity.search.fields.length > 0)
    .map((entity) => entity.name);
}

/**
 * Why the sync cannot call this entity's `list` (searchable or not: parents need not be), or the params
 * it can give that list: the fan-out param, plus the params its parent's `list` was called with that
 * this `list` also declares (passed along).
 */
function listability(definition: ConnectorDefinition, name: string, visiting: Set<string> = new Set()): { problem: string } | { supplied: Set<string> } {
  const entity = definition.entities[name];
  if (!entity) return { problem: `${definition.connectorType} has no entity "${name}"` };
  if (singleObjectGet(entity) !== undefined) return { supplied: new Set() };
  const list = entity.actions.list;
  if (!list) return { problem: `${name} has no list action to read its records from` };
  if (list.result !== 'many') return { problem: `${name}.list does not return a list of records` };
  if (entity.record.singleton) return { problem: `${name} is a single object, not a list of records` };
  if (visiting.has(name)) return { problem: `${name} is reached through a cycle of parent entities` };
  const supplied = new Set<string>();
  const fanOut = entity.search.fanOut;
  if (fanOut) {
    visiting.add(name);
    const parent = listability(definition, fanOut.entity, visiting);
    visiting.delete(name);
    if ('problem' in parent) return { problem: `${name} is reached through ${fanOut.entity}, which the sync cannot list: ${parent.problem}` };
    for (const param of parent.supplied) if (param in list.params) supplied.add(param);
    supplied.add(fanOut.param);
  }
  if (entity.search.each !== undefined) supplied.add(entity.search.each);
  for (const param of Object.keys(entity.search.configParams ?? {})) supplied.add(param);
  if (entity.search.window) for (const param of windowParamNames(entity.search.window)) supplied.add(param);
  const missing = Object.entries(list.params)
    .filter(([param, def]) => def.required && !supplied.has(param) && def.schema.default === undefined)
    .map(([param]) => param);
  if (missing.length > 0) {
    return {
      problem: `${name}.list needs ${missing.join(', ')}, which neither a parent entity nor the entity's each, window or config_params supplies: a sync cannot list it (use the native actions)`,
    };
  }
  return { supplied };
}

/** Why the sync cannot read this entity into the context store, or undefined when it can. */
export function syncProblem(definition: ConnectorDefinition, name: string): string | undefined {
  const entity = definition.entities[name];
  if (entity && entity.search.fields.length === 0) return `${name} has no context store search (no search fields)`;
  const result = listability(definition, name);
  return 'problem' in result ? result.problem : undefined;
}

/** The searchable entities a sync can read, parents before children, otherwise in manifest order. */
export function syncableEntities(definition: ConnectorDefinition): string[] {
  return syncOrder(
    definition,
    searchableEntities(definition).filter((name) => syncProblem(definition, name) === undefined),
  );
}

function depth(definition: ConnectorDefinition, name: string): number {
  let count = 0;
  const seen = new Set<string>();
  let current = definition.entities[name];
  while (current?.search.fanOut && !seen.has(current.name)) {
    seen.add(current.name);
    count += 1;
    current = definition.entities[current.search.fanOut.entity];
  }
  return count;
}

/** `names` with every parent before its children (stable: manifest order within one depth). */
export function syncOrder(definition: ConnectorDefinition, names: string[]): string[] {
  const order = Object.keys(definition.entities);
  return [...names].sort((a, b) => depth(definition, a) - depth(definition, b) || order.indexOf(a) - order.indexOf(b));
}

/**
 * The largest page the action allows, as params: its page-size param (runtime pageSizeParam, the same
 * one the universal `limit` fills) when its schema declares an integer maximum. Fewer, larger pages
 * make a sync faster and gentler on the vendor's rate limits. A list without pagination answers in one
 * response and is sent none (TikTok's advertiser info accepts page_size only for callers' compatibility).
 */
export function pageSizeParams(action: ActionDefinition): Record<string, number> {
  if (action.pagination === undefined) return {};
  const name = pageSizeParam(action);
  const maximum = name === undefined ? undefined : action.params[name]?.schema.maximum;
  return name !== undefined && typeof maximum === 'number' && maximum >= 1 ? { [name]: Math.floor(maximum) } : {};
}

/**
 * The entity's search.params that `action` declares: what a sync asks every list call for beyond the
 * vendor's default (ClickUp's closed tasks, Sentry's issues of every status).
 */
export function searchParams(entity: EntityDefinition, action: ActionDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(entity.search.params ?? {})) if (name in action.params) out[name] = value;
  return out;
}

/** Defaults of required params that have one (validation requires them to be present). */
export function requiredDefaults(action: ActionDefinition): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, param] of Object.entries(action.params)) {
    if (param.required && param.schema.default !== undefined) out[name] = param.schema.default;
  }
  return out;
}

/**
 * The `get` of an entity that is one object per account (Harvest's company, ClickUp's authorized user, a
 * Zendesk Talk overview): no `list`, no parent, and a `get` returning one record that needs no params.
 * A sync reads it as a list of that one record.
 */
function singleObjectGet(entity: EntityDefinition): ActionDefinition | undefined {
  const get = entity.actions.get;
  // A singleton (record.singleton) has no identifier to store it under.
  if (entity.record.singleton || entity.actions.list !== undefined || entity.search.fanOut !== undefined || get === undefined || get.result !== 'one')
    return undefined;
  const needed = Object.values(get.params).some((param) => param.required && param.schema.default === undefined);
  return needed ? undefined : get;
}

/** The action a sync reads an entity the plan accepted with: its `list`, or the `get` of a single object. */
export function syncAction(entity: EntityDefinition): { name: 'list' | 'get'; action: ActionDefinition } {
  const get = singleObjectGet(entity);
  if (get !== undefined) return { name: 'get', action: get };
  const list = entity.actions.list;
  if (!list) throw new Error(`${entity.name} has no list action`);
  return { name: 'list', action: list };
}

/** The action a sync reads an entity the plan accepted with (see syncAction). */
export function listAction(entity: EntityDefinition): ActionDefinition {
  return syncAction(entity).action;
}

/** Whether inspect suggests the entity as a primary search target: a root entity, or one searchable by meaning. */
export function suggestedEntity(definition: ConnectorDefinition, name: string): boolean {
  const entity = definition.entities[name];
  if (!entity || syncProblem(definition, name) !== undefined) return false;
  return entity.search.semantic.length > 0 || entity.search.fanOut === undefined;
}
