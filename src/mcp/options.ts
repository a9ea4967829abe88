/**
 * Which tools a session exposes beyond the default surface: every entity/action as its own tool, or
 * an allow-list per connector (type or id) of entity/action pairs. An allow-list also limits what
 * execute may run on that connector.
 */
import { ValidationError, type ErrorIssue } from '../../runtime/errors.js';
import { connectorModules } from '../../runtime/index.js';
import { checkSelection, type ActionSelection } from '../../runtime/mcp/index.js';

export interface McpToolOptions {
  /** true: one tool per entity/action of every connector in scope. */
  actionTools?: boolean;
  /** connector type or connector id -> "entity.action" / "entity.*" items, each exposed as its own tool. */
  allow?: Record<string, ActionSelection>;
  /** Largest serialized record list one tool result carries; beyond it the page is split with record_offset. */
  maxResultChars?: number;
}

export const DEFAULT_MAX_RESULT_CHARS = 100_000;

/**
 * Parses allow-list items "<connector>:<entity>.<action>" (connector type or id; entity.* for every
 * action of an entity), comma-separated. Items naming a connector type are checked against its manifest.
 */
export function parseAllowList(items: string[], field = 'allow'): Record<string, ActionSelection> {
  const allow: Record<string, ActionSelection> = {};
  const issues: ErrorIssue[] = [];
  for (const item of items
    .flatMap((i) => i.split(','))
    .map((i) => i.trim())
    .filter(Boolean)) {
    const match = /^([^:\s]+):([a-z0-9_]+)\.([a-z0-9_]+|\*)$/i.exec(item);
    if (!match) {
      issues.push({
        field,
        rule: 'format',
        message: `${field} item "${item}" must look like connector:entity.action (or connector:entity.*), e.g. linear:issues.list`,
      });
      continue;
    }
    const [, connector = '', entity = '', action = ''] = match;
    (allow[connector] ??= []).push(`${entity}.${action}`);
  }
  if (issues.length > 0) throw new ValidationError(`Invalid ${field}: ${issues.map((i) => i.message).join('; ')}.`, issues);
  for (const [connector, selection] of Object.entries(allow)) {
    const module = connectorModules[connector];
    if (module) checkSelection(module.definition, selection, field);
  }
  return allow;
}
