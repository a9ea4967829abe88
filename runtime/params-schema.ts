import { callerMustGive, type ActionDefinition, type JsonObject } from './definition.js';

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
