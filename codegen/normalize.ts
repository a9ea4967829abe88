import { ROOT_RECORDS_PATH } from './manifest/authoring-rules.js';
import type { ActionDefinition, ConnectorDefinition, EntityDefinition, JsonObject, PaginationDefinition, ParamDefinition } from '../runtime/definition.js';
import type * as Shape from '../runtime/generated/definition-shape.js';
import type { Manifest } from './generated/manifest.js';
import { applySchema, manifestSchema, type SchemaNode } from './manifest/schema.js';

/**
 * Defaults that depend on other values, which a schema `default` cannot express. The schema names each
 * one (`x-derived-default`); this is the only place that computes them.
 */
export const derivedDefaults = {
  result: (actionName: string): 'many' | 'one' => (actionName === 'list' || actionName === 'api_search' ? 'many' : 'one'),
  idempotent: (method: Shape.Action['method']): boolean => method === 'GET' || method === 'PUT' || method === 'DELETE',
  destructive: (actionName: string): boolean => actionName === 'delete',
  /** GET, or a GraphQL document whose operation is a query (or the `{ ... }` shorthand). */
  readOnly: (method: Shape.Action['method'], graphqlDocument: string | undefined): boolean => {
    if (method === 'GET') return true;
    if (graphqlDocument === undefined) return false;
    const text = graphqlDocument.replace(/#[^\n]*/g, '').trimStart();
    return text.startsWith('{') || /^query\b/.test(text);
  },
  wire: (paramName: string): string => paramName,
};

function nullable(schema: JsonObject): JsonObject {
  const type = schema.type;
  if (type === undefined || type === 'null') return schema;
  const types = Array.isArray(type) ? type : [type];
  return types.includes('null') ? schema : { ...schema, type: [...types, 'null'] };
}

function fieldSchema(field: string | JsonObject): JsonObject {
  return typeof field === 'string' ? { type: field } : field;
}

function normalizeAction(name: string, action: Shape.Action, named: Record<string, PaginationDefinition>): ActionDefinition {
  const params: Record<string, ParamDefinition> = {};
  for (const [paramName, param] of Object.entries(action.params)) params[paramName] = { ...param, wire: param.wire ?? derivedDefaults.wire(paramName) };
  const { pagination, graphql, recordsPath, ...rest } = action;
  const resolved = typeof pagination === 'string' ? named[pagination] : pagination;
  return {
    name,
    ...rest,
    params,
    ...(recordsPath !== undefined && recordsPath !== ROOT_RECORDS_PATH && { recordsPath }),
    ...(graphql !== undefined && { graphql: { document: graphql.document.trim() } }),
    result: action.result ?? derivedDefaults.result(name),
    ...(resolved !== undefined && { pagination: resolved }),
    idempotent: action.idempotent ?? derivedDefaults.idempotent(action.method),
    destructive: action.destructive ?? derivedDefaults.destructive(name),
    readOnly: action.readOnly ?? derivedDefaults.readOnly(action.method, graphql?.document),
  };
}

function normalizeEntity(name: string, entity: Shape.Entity, named: Record<string, PaginationDefinition>): EntityDefinition {
  const idTopFields = [entity.record.idField].flat().map((f) => f.split('.')[0]);
  const fields: Record<string, JsonObject> = {};
  for (const [field, spec] of Object.entries(entity.record.fields)) {
    const schema = fieldSchema(spec);
    fields[field] = idTopFields.includes(field) || schema.nullable === false ? withoutNullableFlag(schema) : nullable(withoutNullableFlag(schema));
  }
  const actions: Record<string, ActionDefinition> = {};
  for (const [actionName, action] of Object.entries(entity.actions)) actions[actionName] = normalizeAction(actionName, action, named);
  return { name, ...entity, record: { ...entity.record, fields }, search: { ...entity.search, fields: searchFields(entity) }, actions };
}

/**
 * The searchable fields of an entity: none unless the manifest declares some (the entity has no context
 * store search); else those declared, then every other top-level record field and every derived field,
 * so that whatever a record holds at its top level can be filtered, sorted and selected.
 */
function searchFields(entity: Shape.Entity): string[] {
  const declared = entity.search.fields;
  if (declared.length === 0) return [];
  return [...new Set([...declared, ...Object.keys(entity.record.fields), ...Object.keys(entity.search.derived ?? {})])];
}

/**
 * A validated manifest with every default made explicit: what the runtime executes. The schema pass
 * (`applySchema`) applies every schema default and the runtime's key names; what follows here is only
 * what the schema cannot say.
 */
export function normalize(raw: Manifest, schema: SchemaNode = manifestSchema()): ConnectorDefinition {
  const shaped = applySchema(raw, schema, schema) as Shape.Manifest;
  const namedSchema = schema.properties?.pagination ?? {};
  const named = applySchema(raw.pagination ?? {}, namedSchema, schema) as Record<string, PaginationDefinition>;
  const entities: Record<string, EntityDefinition> = {};
  for (const [name, entity] of Object.entries(shaped.entities)) entities[name] = normalizeEntity(name, entity, named);
  return {
    ...shaped,
    description: shaped.description.trim(),
    ...(shaped.guidance !== undefined && { guidance: shaped.guidance.trim() }),
    entities,
  };
}

function withoutNullableFlag(schema: JsonObject): JsonObject {
  if (!('nullable' in schema)) return schema;
  const { nullable: _ignored, ...rest } = schema;
  return rest;
}
