/**
 * The Switchyard MCP server (official SDK, low-level Server so tools carry the manifests' exact JSON
 * Schemas). Tools and resources are derived from the connector definitions in scope; nothing here
 * knows a connector by name.
 */
import { createRequire } from 'node:module';
import { Ajv, type ValidateFunction } from 'ajv';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { HostedOnlyError, UnknownOperationError, ValidationError } from '../../runtime/errors.js';
import { connectorModules, loadSkillDocs, type ConnectorDefinition, type SkillDocs } from '../../runtime/index.js';
import { ActionIndex, actionHints, actionTools, checkSelection, selects, type ActionSelection, type ActionToolSpec } from '../../runtime/mcp/index.js';
import { callerParamsSchema } from '../../runtime/params-schema.js';
import { issuesFromValidator } from '../../runtime/validation.js';
import type { McpBackend, McpConnector } from './backend.js';
import { CONTEXT_STORE_SEARCH, DESCRIBE, EXECUTE, LIST_CONNECTORS, READ_DOCS, SEARCH_ACTIONS } from './default-tools.js';
import { DEFAULT_MAX_RESULT_CHARS, type McpToolOptions } from './options.js';
import { errorResult, executeResult, jsonResult, textResult } from './results.js';

/** JSON-RPC error code of a resource read for a URI that names no resource (MCP specification, Resources, Error Handling). */
const RESOURCE_NOT_FOUND = -32002;

const { version } = createRequire(import.meta.url)('../../package.json') as { version: string };

const SKILL_URI = 'switchyard://skills/';

const INSTRUCTIONS =
  'Switchyard reaches third-party APIs through connectors. list_connectors shows what this session can use; search_actions finds the entity/action for a need; ' +
  'describe gives the exact params schema; execute runs it (follow next_params for more pages). Actions marked destructive cannot be undone: confirm with the user first.';

function definitionOf(type: string): ConnectorDefinition {
  const module = connectorModules[type];
  if (!module) throw new UnknownOperationError(`Unknown connector type "${type}". Known types: ${Object.keys(connectorModules).join(', ')}.`);
  return module.definition;
}

/** A tool's arguments checked against its input schema: every violation, named by field. */
class ArgumentCheck {
  private readonly ajv = new Ajv({ allErrors: true, strict: false, useDefaults: true });
  private readonly compiled = new Map<string, ValidateFunction>();

  check(tool: Tool, args: Record<string, unknown>): void {
    let validate = this.compiled.get(tool.name);
    if (!validate) {
      validate = this.ajv.compile(tool.inputSchema);
      this.compiled.set(tool.name, validate);
    }
    if (validate(args)) return;
    const issues = issuesFromValidator(validate.errors ?? [], 'arguments');
    throw new ValidationError(`Invalid arguments for ${tool.name}: ${issues.map((i) => i.message).join('; ')}.`, issues);
  }
}

interface ActionToolBinding {
  spec: ActionToolSpec;
  /** The connectors of this type in scope; the tool takes connector_id when there are several. */
  connectors: McpConnector[];
  tool: Tool;
}

export class SwitchyardMcp {
  private readonly args = new ArgumentCheck();
  private readonly maxResultChars: number;
  private actionIndex?: Promise<ActionIndex>;

  constructor(
    private readonly backend: McpBackend,
    private readonly options: McpToolOptions = {},
  ) {
    this.maxResultChars = options.maxResultChars ?? DEFAULT_MAX_RESULT_CHARS;
  }

  /** A new SDK server bound to this backend (one per session or HTTP request). */
  server(): Server {
    const server = new Server({ name: 'switchyard', title: 'Switchyard', version }, { capabilities: { tools: {}, resources: {} }, instructions: INSTRUCTIONS });
    server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: await this.tools() }));
    server.setRequestHandler(CallToolRequestSchema, async (request) => this.call(request.params.name, request.params.arguments ?? {}));
    server.setRequestHandler(ListResourcesRequestSchema, async () => ({ resources: await this.resources() }));
    server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
      resourceTemplates: [
        {
          uriTemplate: `${SKILL_URI}{connector_type}/{section}`,
          name: 'connector-skill-section',
          title: 'One section of a connector skill doc',
          description: 'A section of a connector skill doc, e.g. switchyard://skills/linear/issues.list (params, limits, pagination, record fields).',
          mimeType: 'text/markdown',
        },
      ],
    }));
    server.setRequestHandler(ReadResourceRequestSchema, async (request) => {
      const { uri } = request.params;
      const text = await this.readDocs(uri).catch((error: unknown) => {
        // The MCP specification's code for a resource that does not exist, not an internal error.
        if (error instanceof ValidationError) throw new McpError(RESOURCE_NOT_FOUND, error.message, { uri });
        throw error;
      });
      return { contents: [{ uri, mimeType: 'text/markdown', text }] };
    });
    return server;
  }

  /* ----- scope ----- */

  private defaultTools(): Tool[] {
    return [LIST_CONNECTORS, DESCRIBE, SEARCH_ACTIONS, EXECUTE, ...(this.backend.contextStoreSearch ? [CONTEXT_STORE_SEARCH] : []), READ_DOCS];
  }

  private selectionFor(connector: McpConnector): ActionSelection | undefined {
    const allow = this.options.allow;
    if (allow === undefined) return undefined;
    return allow[connector.id] ?? allow[connector.connector_type];
  }

  /** The connector an argument names: its id, or its type when exactly one connector of that type is in scope. */
  private async resolve(name: string): Promise<McpConnector> {
    const connectors = await this.backend.connectors();
    const byId = connectors.find((c) => c.id === name || c.id === name.toLowerCase());
    if (byId) return byId;
    const ofType = connectors.filter((c) => c.connector_type === name);
    if (ofType.length === 1 && ofType[0]) return ofType[0];
    const known = connectors.map((c) => `${c.id} (${c.connector_type}, "${c.name}")`).join(', ') || 'none';
    const message =
      ofType.length > 1
        ? `Several ${name} connectors are in this session; give the connector id: ${ofType.map((c) => c.id).join(', ')}.`
        : `No connector "${name}" in this session. Connectors: ${known}.`;
    throw new ValidationError(message, [
      { field: 'connector', rule: ofType.length > 1 ? 'ambiguous' : 'unknown', message, limit: (ofType.length > 1 ? ofType : connectors).map((c) => c.id) },
    ]);
  }

  /** An action may run on a connector unless its allow-list leaves it out. */
  private assertAllowed(connector: McpConnector, entity: string, action: string): void {
    const selection = this.selectionFor(connector);
    if (selection === undefined || selects(selection, entity, action)) return;
    const message = `${entity}.${action} is not in this session's allow-list for connector ${connector.id}. Allowed: ${selection.join(', ')}.`;
    throw new ValidationError(message, [{ field: 'action', rule: 'not_allowed', message, limit: selection }]);
  }

  private async actionBindings(): Promise<ActionToolBinding[]> {
    if (!this.options.actionTools && this.options.allow === undefined) return [];
    const byType = new Map<string, McpConnector[]>();
    for (const connector of await this.backend.connectors()) {
      if (!connectorModules[connector.connector_type]) continue;
      byType.set(connector.connector_type, [...(byType.get(connector.connector_type) ?? []), connector]);
    }
    const bindings: ActionToolBinding[] = [];
    for (const [type, connectors] of byType) {
      const definition = definitionOf(type);
      // A tool per action in the union of the connectors' selections (all actions with actionTools).
      const selections = connectors.map((c) => this.selectionFor(c));
      if (!this.options.actionTools && selections.every((s) => s === undefined)) continue;
      for (const selection of selections) if (selection) checkSelection(definition, selection, 'allow');
      const union = this.options.actionTools || selections.some((s) => s === undefined) ? undefined : [...new Set(selections.flatMap((s) => s ?? []))];
      for (const spec of actionTools(definition, union)) {
        const withId = connectors.length > 1;
        const schema = withId ? withConnectorId(spec.inputSchema, connectors) : spec.inputSchema;
        bindings.push({
          spec,
          connectors,
          tool: {
            name: spec.name,
            title: spec.annotations.title,
            description: spec.description,
            inputSchema: schema as Tool['inputSchema'],
            annotations: spec.annotations,
          },
        });
      }
    }
    return bindings;
  }

  async tools(): Promise<Tool[]> {
    return [...this.defaultTools(), ...(await this.actionBindings()).map((b) => b.tool)];
  }

  /* ----- calls ----- */

  async call(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    try {
      const tool = this.defaultTools().find((t) => t.name === name);
      if (tool) {
        this.args.check(tool, args);
        return await this.callDefault(name, args);
      }
      const binding = (await this.actionBindings()).find((b) => b.tool.name === name);
      if (!binding) {
        const names = (await this.tools()).map((t) => t.name);
        // The MCP spec answers an unknown tool with a protocol error (invalid params), not a tool result.
        throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${name}. Tools: ${names.join(', ')}.`);
      }
      return await this.callAction(binding, args);
    } catch (error) {
      if (error instanceof McpError) throw error;
      return errorResult(error);
    }
  }

  private async callDefault(name: string, args: Record<string, unknown>): Promise<CallToolResult> {
    switch (name) {
      case LIST_CONNECTORS.name:
        return this.listConnectors();
      case DESCRIBE.name:
        return this.describe(args.connector as string, args.entity as string | undefined, args.action as string | undefined);
      case SEARCH_ACTIONS.name:
        return this.searchActions(args.need as string, args.connector as string | undefined, args.limit as number);
      case EXECUTE.name: {
        const connector = await this.resolve(args.connector as string);
        const entity = args.entity as string;
        const action = args.action as string;
        if (action === 'context_store_search' && this.backend.contextStoreSearch) {
          throw new ValidationError('Use the context_store_search tool to search synchronized data.', [
            { field: 'action', rule: 'use_tool', message: 'action context_store_search runs through the context_store_search tool' },
          ]);
        }
        this.assertAllowed(connector, entity, action);
        const outcome = await this.backend.execute(connector, entity, action, (args.params as Record<string, unknown> | undefined) ?? {});
        return executeResult(outcome, (args.record_offset as number | undefined) ?? 0, this.maxResultChars);
      }
      case CONTEXT_STORE_SEARCH.name: {
        if (!this.backend.contextStoreSearch) throw new HostedOnlyError('context_store_search exists only in hosted mode.');
        const { connector: name, entity, ...params } = args as { connector: string; entity: string } & Record<string, unknown>;
        const connector = await this.resolve(name);
        this.assertAllowed(connector, entity, 'context_store_search');
        const found = await this.backend.contextStoreSearch(connector, entity, params);
        return jsonResult({ records: found.data, record_count: found.data.length, meta: found.meta });
      }
      default:
        return textResult(await this.readDocs(await this.docsUri(args.connector as string, args.section as string | undefined)));
    }
  }

  private async callAction(binding: ActionToolBinding, args: Record<string, unknown>): Promise<CallToolResult> {
    const { connector_id: connectorId, ...params } = args;
    let connector = binding.connectors[0];
    if (binding.connectors.length > 1) {
      connector = binding.connectors.find((c) => c.id === connectorId);
      if (!connector) {
        const ids = binding.connectors.map((c) => c.id);
        const message = `connector_id must be one of ${ids.join(', ')} (the ${binding.spec.connectorType} connectors of this session).`;
        throw new ValidationError(message, [{ field: 'connector_id', rule: connectorId === undefined ? 'required' : 'enum', message, limit: ids }]);
      }
    }
    if (!connector) throw new UnknownOperationError(`No ${binding.spec.connectorType} connector is in this session any more.`);
    this.assertAllowed(connector, binding.spec.entity, binding.spec.action);
    const outcome = await this.backend.execute(connector, binding.spec.entity, binding.spec.action, binding.connectors.length > 1 ? params : args);
    return executeResult(outcome, 0, this.maxResultChars);
  }

  private async listConnectors(): Promise<CallToolResult> {
    const connectors = await this.backend.connectors();
    return jsonResult({
      mode: this.backend.mode,
      connectors: connectors.map((c) => {
        const definition = connectorModules[c.connector_type]?.definition;
        const entities = definition ? Object.values(definition.entities) : [];
        const selection = this.selectionFor(c);
        return {
          ...c,
          display_name: definition?.displayName ?? null,
          entities: entities.length,
          actions: entities.reduce((n, e) => n + Object.keys(e.actions).length, 0),
          ...(selection !== undefined && { allowed_actions: selection }),
          docs: `${SKILL_URI}${c.connector_type}`,
        };
      }),
    });
  }

  /** describe accepts a connector id or a bare connector type (the catalog needs no connector). */
  private async definitionFor(name: string): Promise<{ definition: ConnectorDefinition; connector?: McpConnector }> {
    const connectors = await this.backend.connectors();
    const connector = connectors.find((c) => c.id === name || c.id === name.toLowerCase());
    if (connector) return { definition: definitionOf(connector.connector_type), connector };
    if (connectorModules[name]) return { definition: definitionOf(name) };
    return { definition: definitionOf((await this.resolve(name)).connector_type) };
  }

  private async describe(name: string, entityName: string | undefined, actionName: string | undefined): Promise<CallToolResult> {
    const { definition, connector } = await this.definitionFor(name);
    const selection = connector ? this.selectionFor(connector) : undefined;
    const actionsOf = (entity: ConnectorDefinition['entities'][string]) =>
      Object.values(entity.actions)
        .filter((a) => selects(selection, entity.name, a.name))
        .map((a) => ({ name: a.name, description: a.description ?? null, read_only: a.readOnly, destructive: a.destructive, idempotent: a.idempotent }));
    if (entityName === undefined) {
      if (actionName !== undefined)
        throw new ValidationError('action needs entity.', [{ field: 'entity', rule: 'required', message: 'entity is required when action is given' }]);
      return jsonResult({
        connector_type: definition.connectorType,
        name: definition.displayName,
        description: definition.description,
        ...(definition.guidance !== undefined && { guidance: definition.guidance }),
        entities: Object.values(definition.entities).map((e) => ({
          name: e.name,
          description: e.description,
          context_store_search: e.search.fields.length > 0,
          actions: actionsOf(e),
        })),
      });
    }
    const entity = definition.entities[entityName];
    if (!entity) {
      const names = Object.keys(definition.entities);
      const message = `${definition.connectorType} has no entity "${entityName}". Entities: ${names.join(', ')}.`;
      throw new ValidationError(message, [{ field: 'entity', rule: 'unknown', message, limit: names }]);
    }
    if (actionName === undefined) {
      return jsonResult({
        connector_type: definition.connectorType,
        entity: entity.name,
        description: entity.description,
        id_field: entity.record.idField,
        record_schema: { type: 'object', properties: entity.record.fields },
        context_store_search: { fields: entity.search.fields, semantic: entity.search.semantic },
        actions: actionsOf(entity),
      });
    }
    const action = entity.actions[actionName];
    if (!action) {
      const names = Object.keys(entity.actions);
      const message = `${definition.connectorType} ${entity.name} has no action "${actionName}". Actions: ${names.join(', ')}.`;
      throw new ValidationError(message, [{ field: 'action', rule: 'unknown', message, limit: names }]);
    }
    const hints = actionHints(definition, entity.name, action);
    return jsonResult({
      connector_type: definition.connectorType,
      entity: entity.name,
      action: action.name,
      description: action.description ?? null,
      params_schema: callerParamsSchema(action),
      ...(action.atLeastOneOf && { at_least_one_of: action.atLeastOneOf }),
      ...(action.atMostOneOf && { at_most_one_of: action.atMostOneOf }),
      result: action.result === 'many' ? 'a list of records' : 'one record',
      pagination: action.pagination
        ? { style: action.pagination.style, keys: Object.keys(action.pagination.block), how: 'merge next_params of a result into params for the next page' }
        : null,
      hints: { read_only: hints.readOnlyHint, destructive: hints.destructiveHint, idempotent: hints.idempotentHint },
      docs: `${SKILL_URI}${definition.connectorType}/${entity.name}.${action.name}`,
    });
  }

  private async searchActions(need: string, connectorName: string | undefined, limit: number): Promise<CallToolResult> {
    const connectors = await this.backend.connectors();
    let types = [...new Set(connectors.map((c) => c.connector_type))];
    if (connectorName !== undefined) types = [(await this.definitionFor(connectorName)).definition.connectorType];
    this.actionIndex ??= buildActionIndex();
    const index = await this.actionIndex;
    const matches = index.search(need, { limit, ...(types.length > 0 && { connectorTypes: types }) }).map((m) => ({
      ...m,
      connectors: connectors.filter((c) => c.connector_type === m.connector_type).map((c) => c.id),
      docs: `${SKILL_URI}${m.connector_type}/${m.docs_section}`,
    }));
    return jsonResult({ need, matches, ...(matches.length === 0 && { note: 'Nothing matched; try other words, or list_connectors and describe.' }) });
  }

  /* ----- skill docs ----- */

  async resources(): Promise<Array<{ uri: string; name: string; title: string; description: string; mimeType: string }>> {
    const types = [...new Set((await this.backend.connectors()).map((c) => c.connector_type))].filter((t) => connectorModules[t]);
    return types.map((type) => {
      const definition = definitionOf(type);
      return {
        uri: `${SKILL_URI}${type}`,
        name: `${type}-skill`,
        title: `${definition.displayName} skill docs`,
        description: `How to use the ${definition.displayName} connector: execution rules, authentication and every entity/action (sections at ${SKILL_URI}${type}/<entity>.<action>).`,
        mimeType: 'text/markdown',
      };
    });
  }

  private async docsUri(name: string, section: string | undefined): Promise<string> {
    const { definition } = await this.definitionFor(name);
    return `${SKILL_URI}${definition.connectorType}${section === undefined ? '' : `/${section}`}`;
  }

  /** switchyard://skills/<type>: the overview and the list of sections; switchyard://skills/<type>/<section>: one section. */
  async readDocs(uri: string): Promise<string> {
    if (!uri.startsWith(SKILL_URI))
      throw new ValidationError(`No resource ${uri}; skill docs are at ${SKILL_URI}<connector_type>.`, [
        { field: 'uri', rule: 'unknown', message: `unknown resource ${uri}` },
      ]);
    const [type = '', ...rest] = uri.slice(SKILL_URI.length).split('/');
    const sectionId = rest.length > 0 ? decodeURIComponent(rest.join('/')) : undefined;
    const docs: SkillDocs | undefined = await loadSkillDocs(type);
    if (!docs)
      throw new ValidationError(`No skill docs for "${type}".`, [
        { field: 'uri', rule: 'unknown', message: `no connector type ${type}`, limit: Object.keys(connectorModules) },
      ]);
    if (sectionId === undefined) {
      const overview = docs.sections[0]?.markdown ?? '';
      const list = docs.sections.slice(1).map((s) => `- ${s.id}: ${s.summary} (${SKILL_URI}${type}/${s.id})`);
      return `${overview}\n\n## Sections\n\n${list.join('\n')}\n`;
    }
    const section = docs.sections.find((s) => s.id === sectionId);
    if (!section) {
      const ids = docs.sections.map((s) => s.id);
      const message = `The ${type} skill docs have no section "${sectionId}". Sections: ${ids.join(', ')}.`;
      throw new ValidationError(message, [{ field: 'section', rule: 'unknown', message, limit: ids }]);
    }
    return section.markdown;
  }
}

async function buildActionIndex(): Promise<ActionIndex> {
  const types = Object.keys(connectorModules);
  const docs = new Map<string, SkillDocs>();
  for (const type of types) {
    const loaded = await loadSkillDocs(type);
    if (loaded) docs.set(type, loaded);
  }
  return new ActionIndex(
    types.map((t) => definitionOf(t)),
    (type) => docs.get(type),
  );
}

/** A per-action tool's schema plus connector_id, for a session with several connectors of that type. */
function withConnectorId(schema: Record<string, unknown>, connectors: McpConnector[]): Record<string, unknown> {
  const properties = (schema.properties ?? {}) as Record<string, unknown>;
  const required = Array.isArray(schema.required) ? schema.required : [];
  return {
    ...schema,
    properties: {
      connector_id: {
        type: 'string',
        enum: connectors.map((c) => c.id),
        description: `Which connector: ${connectors.map((c) => `${c.id} ("${c.name}")`).join(', ')}.`,
      },
      ...properties,
    },
    required: ['connector_id', ...required],
  };
}
