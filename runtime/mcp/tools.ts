/**
 * MCP tools derived from connector definitions, never written per connector: one tool per
 * entity/action with the action's exact params schema (the one the generated validators are compiled
 * from) and annotations read from the manifest facts read_only, destructive and idempotent.
 */
import { createHash } from 'node:crypto';
import type { ActionDefinition, ConnectorDefinition, JsonObject } from '../definition.js';
import { ValidationError } from '../errors.js';
import { callerParamsSchema } from '../params-schema.js';

/** The MCP tool annotations (hints) of one tool. */
export interface ToolHints {
  title: string;
  readOnlyHint: boolean;
  destructiveHint: boolean;
  idempotentHint: boolean;
  openWorldHint: boolean;
}

export interface ActionToolSpec {
  name: string;
  connectorType: string;
  entity: string;
  action: string;
  description: string;
  inputSchema: JsonObject;
  annotations: ToolHints;
}

/** Tool names clients accept: letters, digits, _ and -, at most 64 characters. */
const MAX_TOOL_NAME = 64;

export function actionToolName(connectorType: string, entity: string, action: string): string {
  const name = `${connectorType}__${entity}__${action}`.replace(/[^A-Za-z0-9_-]/g, '_');
  if (name.length <= MAX_TOOL_NAME) return name;
  const hash = createHash('sha256').update(name).digest('hex').slice(0, 8);
  return `${name.slice(0, MAX_TOOL_NAME - 9)}_${hash}`;
}

/** Every vendor call reaches a third-party service: openWorldHint is true for all of them. */
export function actionHints(definition: ConnectorDefinition, entity: string, action: ActionDefinition): ToolHints {
  return {
    title: `${definition.displayName}: ${entity}.${action.name}`,
    readOnlyHint: action.readOnly,
    destructiveHint: !action.readOnly && action.destructive,
    idempotentHint: action.readOnly || action.idempotent,
    openWorldHint: true,
  };
}

function describeAction(definition: ConnectorDefinition, entity: string, action: ActionDefinition): string {
  const effect = action.readOnly ? 'Reads only.' : action.destructive ? 'Destructive: confirm with the user first.' : 'Changes data at the vendor.';
  const paging = action.pagination ? ' Paginated: pass next_params of a result back as params for the next page.' : '';
  const text = action.description ?? `${action.name} ${entity}.`;
  return `${definition.displayName} ${entity}.${action.name}: ${text} ${effect}${paging}`;
}

/** A selection of entity/action pairs: "entity.action" or "entity.*". */
export type ActionSelection = string[];

/** Checks a selection against the definition; an unknown entity or action is a ValidationError naming it. */
export function checkSelection(definition: ConnectorDefinition, selection: ActionSelection, field: string): void {
  const issues = [];
  for (const item of selection) {
    const [entity = '', action = ''] = item.split('.', 2);
    const known = definition.entities[entity];
    if (!known) {
      issues.push({
        field,
        rule: 'unknown',
        message: `${field}: ${definition.connectorType} has no entity "${entity}" (from "${item}")`,
        limit: Object.keys(definition.entities),
      });
    } else if (action !== '*' && !known.actions[action]) {
      issues.push({
        field,
        rule: 'unknown',
        message: `${field}: ${definition.connectorType} ${entity} has no action "${action}" (from "${item}"; use entity.action or entity.*)`,
        limit: Object.keys(known.actions),
      });
    }
  }
  if (issues.length > 0) throw new ValidationError(`Invalid action allow-list: ${issues.map((i) => i.message).join('; ')}.`, issues);
}

export function selects(selection: ActionSelection | undefined, entity: string, action: string): boolean {
  return selection === undefined || selection.includes(`${entity}.${action}`) || selection.includes(`${entity}.*`);
}

/** One tool per entity/action of the definition (those of the selection when given). */
export function actionTools(definition: ConnectorDefinition, selection?: ActionSelection): ActionToolSpec[] {
  const tools: ActionToolSpec[] = [];
  for (const entity of Object.values(definition.entities)) {
    for (const action of Object.values(entity.actions)) {
      if (!selects(selection, entity.name, action.name)) continue;
      tools.push({
        name: actionToolName(definition.connectorType, entity.name, action.name),
        connectorType: definition.connectorType,
        entity: entity.name,
        action: action.name,
        description: describeAction(definition, entity.name, action),
        inputSchema: callerParamsSchema(action),
        annotations: actionHints(definition, entity.name, action),
      });
    }
  }
  return tools;
}
