import { callerMustGive, type ActionDefinition, type JsonObject } from './definition.js';
import { limitDescription, limitPlan, UNIVERSAL_LIMIT } from './params.js';

/**
 * The JSON Schema a params object of this action must satisfy. The generated validators are compiled
 * from it (codegen/emit/validators.ts), and the MCP tools publish it as their input schema, so both
 * always agree.
 */
export function paramsSchema(action: ActionDefinition): JsonObject {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [name, param] of Object.entries(action.params)) {
    properties[name] =
      param.description !== undefined && param.schema.description === undefined ? { ...param.schema, description: param.description } : param.schema;
    if (callerMustGive(param)) required.push(name);
  }
  return {
    type: 'object',
    properties,
    ...(required.length > 0 && { required }),
    additionalProperties: action.additionalParams === 'body',
  };
}

/**
 * The params a caller may give: paramsSchema, plus the universal `limit` of a list that does not declare one
 * (the runtime turns it into the page-size param, or cuts the page, before the validators run). What the MCP
 * tools publish, so a client checking its arguments against them does not refuse what execute takes.
 */
export function callerParamsSchema(action: ActionDefinition): JsonObject {
  const schema = paramsSchema(action);
  const plan = limitPlan(action);
  if (plan === undefined) return schema;
  return {
    ...schema,
    properties: { ...(schema.properties as JsonObject), [UNIVERSAL_LIMIT]: { type: 'integer', minimum: 1, description: limitDescription(plan) } },
  };
}
