/**
 * The tool surface derived from the manifests, for every connector type at once: the default list
 * stays small whatever the number of connectors, per-action tools carry the validators' schema and
 * the manifest's hints, names are valid and unique, and search_actions ranks sensible pairs.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { validatorName } from '../../runtime/connector.js';
import { actionTools } from '../../runtime/mcp/index.js';
import { paramsSchema } from '../../runtime/params-schema.js';
import { limitPlan } from '../../runtime/params.js';
import type { McpBackend, McpConnector } from '../../src/mcp/backend.js';
import { SwitchyardMcp } from '../../src/mcp/server.js';

/** Two connectors of every type, as an organization with many connectors has: nothing is executed. */
class CatalogBackend implements McpBackend {
  readonly mode = 'hosted';
  readonly list: McpConnector[] = Object.keys(connectorModules).flatMap((type) =>
    [1, 2].map((n) => ({
      id: `00000000-0000-4000-8000-${String(Object.keys(connectorModules).indexOf(type) * 10 + n).padStart(12, '0')}`,
      connector_type: type,
      name: `${type} ${n}`,
    })),
  );
  async connectors() {
    return this.list;
  }
  async execute(): Promise<never> {
    throw new Error('not executed in this test');
  }
  async contextStoreSearch(): Promise<never> {
    throw new Error('not executed in this test');
  }
}

const json = (result: unknown) => JSON.parse(((result as CallToolResult).content[0] as { text: string }).text) as Record<string, unknown>;

describe('MCP tool surface from the manifests', () => {
  const backend = new CatalogBackend();
  let client: Client;

  beforeAll(async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await new SwitchyardMcp(backend).server().connect(serverSide);
    client = new Client({ name: 't', version: '1' });
    await client.connect(clientSide);
  });
  afterAll(async () => {
    await client.close();
  });

  it(`keeps the default list under 10 tools with ${backend.list.length} connectors of ${Object.keys(connectorModules).length} types`, async () => {
    const { tools } = await client.listTools();
    expect(tools.length).toBeLessThan(10);
    expect((await client.listResources()).resources).toHaveLength(Object.keys(connectorModules).length);
  });

  it('gives every action a valid, unique tool name, the validators schema and hints from the manifest facts', () => {
    const names = new Set<string>();
    for (const { definition, validators } of Object.values(connectorModules)) {
      for (const tool of actionTools(definition)) {
        expect(tool.name).toMatch(/^[A-Za-z0-9_-]{1,64}$/);
        expect(names.has(tool.name), tool.name).toBe(false);
        names.add(tool.name);
        const action = definition.entities[tool.entity]?.actions[tool.action];
        if (!action) throw new Error(tool.name);
        // the validators' schema, with the universal limit of a list that declares none
        const { limit, ...declared } = (tool.inputSchema as { properties: Record<string, unknown> }).properties;
        if (limitPlan(action) === undefined) expect(tool.inputSchema).toEqual(paramsSchema(action));
        else {
          expect(limit, tool.name).toMatchObject({ type: 'integer', minimum: 1 });
          expect({ ...tool.inputSchema, properties: declared }).toEqual(paramsSchema(action));
        }
        expect(validators[validatorName(tool.entity, tool.action)], tool.name).toBeTypeOf('function');
        expect(tool.annotations).toMatchObject({ readOnlyHint: action.readOnly, idempotentHint: action.readOnly || action.idempotent, openWorldHint: true });
        expect(tool.annotations.destructiveHint).toBe(!action.readOnly && action.destructive);
        if (action.method === 'GET') expect(tool.annotations.readOnlyHint).toBe(true);
        if (action.method === 'DELETE') expect(tool.annotations.destructiveHint).toBe(true);
      }
    }
    expect(names.size).toBeGreaterThan(300);
  });

  it('asks for connector_id on per-action tools when several connectors share a type', async () => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await new SwitchyardMcp(backend, { allow: { linear: ['issues.get'] } }).server().connect(serverSide);
    const limited = new Client({ name: 't', version: '1' });
    await limited.connect(clientSide);
    const tool = (await limited.listTools()).tools.find((t) => t.name === 'linear__issues__get');
    expect(tool?.inputSchema.required).toEqual(['connector_id', 'id']);
    const missing = (await limited.callTool({ name: 'linear__issues__get', arguments: { id: 'x' } })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(JSON.stringify(missing.content)).toContain('connector_id must be one of');
    await limited.close();
  });

  it.each([
    ['close a jira ticket transition', 'jira', 'issue_transitions'],
    ['list the time entries logged in harvest', 'harvest', 'time_entries'],
    ['delete an intercom contact', 'intercom', 'contacts'],
    ['find linear issues', 'linear', 'issues'],
  ])('search_actions: "%s" ranks %s %s first', async (need, type, entity) => {
    const result = json(await client.callTool({ name: 'search_actions', arguments: { need } }));
    expect((result.matches as Array<Record<string, unknown>>)[0]).toMatchObject({ connector_type: type, entity });
  });

  it("publishes a list's universal limit with its params, as execute takes it", async () => {
    const described = json(await client.callTool({ name: 'describe', arguments: { connector: 'harvest', entity: 'users', action: 'list' } }));
    const schema = described.params_schema as { properties: Record<string, Record<string, unknown>>; additionalProperties: boolean };
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties.limit).toEqual({
      type: 'integer',
      minimum: 1,
      description: expect.stringMatching(/^The most records to return: sent as per_page/),
    });
    const tool = actionTools(connectorModules.harvest!.definition).find((t) => t.name === 'harvest__users__list');
    expect(tool?.inputSchema).toEqual(described.params_schema);
    // a single record's action has none
    const one = json(await client.callTool({ name: 'describe', arguments: { connector: 'harvest', entity: 'users', action: 'get' } }));
    expect((one.params_schema as { properties: Record<string, unknown> }).properties.limit).toBeUndefined();
  });

  it('describes an action with its exact params schema and hints', async () => {
    const described = json(await client.callTool({ name: 'describe', arguments: { connector: 'jira', entity: 'issues', action: 'delete' } }));
    expect(described.hints).toEqual({ read_only: false, destructive: true, idempotent: true });
    expect(described.params_schema).toEqual(paramsSchema(connectorModules.jira!.definition.entities.issues!.actions.delete!));
    const wrong = (await client.callTool({ name: 'describe', arguments: { connector: 'jira', entity: 'issue' } })) as CallToolResult;
    expect(wrong.isError).toBe(true);
    expect(JSON.stringify(wrong.content)).toContain('- entity: jira has no entity');
  });
});
