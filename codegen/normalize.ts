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
  const { pagination, graphql, ...rest } = action;
  const resolved = typeof pagination === 'string' ? named[pagination] : pagination;
  return {
    name,
    ...rest,
    params,
    ...(graphql !== undefined && { graphql: { document: graphql.document.trim() } }),
    result: action.result ?? derivedDefaults.result(name),
    ...(resolved !== undefined && { pagination: resolved }),
    idempotent: action.idempotent ?? derivedDefaults.idempotent(action.method),
    destructive: action.destructive ?? derivedDefaults.destructive(name),
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
  return { name, ...entity, record: { ...entity.record, fields }, actions };
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

/** The JSON Schema a params object of this action must satisfy. */
export function paramsSchema(action: ActionDefinition): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [name, param] of Object.entries(action.params)) {
    properties[name] = param.description !== undefined && param.schema.description === undefined ? { ...param.schema, description: param.description } : param.schema;
    if (param.required) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: action.additionalParams === 'body',
  };
}
