/**
 * The MCP server over Streamable HTTP at /mcp on the running service, driven by the official MCP
 * TypeScript client: tools and their hints, a skill-doc resource, execute and context store search
 * against an Intercom stand-in on 127.0.0.1, tool errors naming the field, allow-lists and scope.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIntercomStandIn, type IntercomStandIn } from '../support/intercom-stand-in.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function json(result: unknown): Record<string, unknown> {
  const r = result as CallToolResult;
  const first = r.content[0];
  if (first?.type !== 'text') throw new Error('no text content');
  return JSON.parse(first.text) as Record<string, unknown>;
}

function text(result: unknown): string {
  const first = (result as CallToolResult).content[0];
  return first?.type === 'text' ? first.text : '';
}

describe('MCP over Streamable HTTP (/mcp)', () => {
  let service: TestService;
  let upstream: IntercomStandIn;
  let tenant: Tenant;
  let other: Tenant;
  let connectorId: string;
  const clients: Client[] = [];

  async function connect(token: string | undefined, query = ''): Promise<Client> {
    const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
    const transport = new StreamableHTTPClientTransport(new URL(`${service.url}/mcp${query}`), {
      requestInit: { headers: token === undefined ? {} : { authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    clients.push(client);
    return client;
  }

  beforeAll(async () => {
    upstream = await startIntercomStandIn(5);
    service = await startTestService('pglite', { upstreamBaseUrls: { intercom: upstream.url } });
    tenant = await createTenant(service, 'Acme');
    other = await createTenant(service, 'Globex');
    const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
      workspace_name: 'default',
      connector_type: 'intercom',
      name: 'Support inbox',
      credentials: { access_token: 'intercom-secret-token' },
    });
    expect(created.status).toBe(200);
    connectorId = created.body.id;
  });

  afterAll(async () => {
    for (const client of clients) await client.close();
    await service?.close();
    await upstream?.close();
  });

  it('refuses a session without an application token (401 in the service envelope)', async () => {
    const response = await fetch(`${service.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(response.status).toBe(401);
    expect(((await response.json()) as { errors: Array<{ error_code: string }> }).errors[0]?.error_code).toBe('unauthorized');
    const get = await fetch(`${service.url}/mcp`, { headers: { authorization: `Bearer ${tenant.api.token}` } });
    expect(get.status).toBe(405);
    expect(get.headers.get('allow')).toBe('POST');
  });

  it('lists a small default surface and reads a skill doc resource', async () => {
    const client = await connect(tenant.api.token);
    const { tools } = await client.listTools();
    expect(tools.map((t) => t.name)).toEqual(['list_connectors', 'describe', 'search_actions', 'execute', 'context_store_search', 'read_docs']);
    expect(tools.find((t) => t.name === 'list_connectors')?.annotations).toMatchObject({ readOnlyHint: true, openWorldHint: false });

    const listed = json(await client.callTool({ name: 'list_connectors', arguments: {} }));
    expect(listed.mode).toBe('hosted');
    expect(listed.connectors).toEqual([
      expect.objectContaining({ id: connectorId, connector_type: 'intercom', name: 'Support inbox', workspace_name: 'default' }),
    ]);

    const { resources } = await client.listResources();
    expect(resources.map((r) => r.uri)).toEqual(['switchyard://skills/intercom']);
    const overview = await client.readResource({ uri: 'switchyard://skills/intercom' });
    expect(overview.contents[0]).toMatchObject({ mimeType: 'text/markdown' });
    expect(String((overview.contents[0] as { text: string }).text)).toContain('switchyard://skills/intercom/contacts.list');
    const section = await client.readResource({ uri: 'switchyard://skills/intercom/contacts.get' });
    expect(String((section.contents[0] as { text: string }).text)).toMatch(/^# contacts\.get/);
    // A URI naming no resource is the specification's resource-not-found error, with the URI.
    for (const uri of ['switchyard://skills/nope', 'switchyard://skills/intercom/contacts.explode', 'https://example.com/x']) {
      await expect(client.readResource({ uri }), uri).rejects.toMatchObject({ code: -32002, data: { uri } });
    }
  });

  it('executes a paged list, following next_params, against the vendor stand-in', async () => {
    const client = await connect(tenant.api.token);
    upstream.requests.length = 0;
    const first = json(
      await client.callTool({ name: 'execute', arguments: { connector: connectorId, entity: 'contacts', action: 'list', params: { per_page: 2 } } }),
    );
    expect((first.records as Array<{ id: string }>).map((r) => r.id)).toEqual(['c1', 'c2']);
    expect(first.next_params).toEqual({ starting_after: 'c2' });
    expect(first.pagination).toEqual({ next_page: 'c2' });
    const second = json(
      await client.callTool({
        name: 'execute',
        arguments: { connector: 'intercom', entity: 'contacts', action: 'list', params: { per_page: 2, ...(first.next_params as object) } },
      }),
    );
    expect((second.records as Array<{ id: string }>).map((r) => r.id)).toEqual(['c3', 'c4']);
    expect(upstream.requests.map((r) => [r.method, r.path, r.query])).toEqual([
      ['GET', '/contacts', { per_page: '2' }],
      ['GET', '/contacts', { per_page: '2', starting_after: 'c2' }],
    ]);
    expect(upstream.requests[0]?.headers.authorization).toBe('Bearer intercom-secret-token');
    expect(upstream.requests[0]?.headers['intercom-version']).toBe('2.14');
  });

  it('turns a wrong call into a tool error naming the field, without any secret', async () => {
    const client = await connect(tenant.api.token);
    const missing = (await client.callTool({
      name: 'execute',
      arguments: { connector: connectorId, entity: 'contacts', action: 'get', params: {} },
    })) as CallToolResult;
    expect(missing.isError).toBe(true);
    expect(text(missing)).toContain('id');
    expect(text(missing)).toMatch(/rule: required/);
    const wrongType = (await client.callTool({
      name: 'execute',
      arguments: { connector: connectorId, entity: 'contacts', action: 'list', params: { per_page: 500 } },
    })) as CallToolResult;
    expect(wrongType.isError).toBe(true);
    expect(text(wrongType)).toMatch(/- per_page: .*rule: maximum; limit: 150/);
    const badArgs = (await client.callTool({ name: 'execute', arguments: { connector: connectorId, action: 'list' } })) as CallToolResult;
    expect(badArgs.isError).toBe(true);
    expect(text(badArgs)).toMatch(/- entity: .*rule: required/);
    for (const result of [missing, wrongType, badArgs]) expect(JSON.stringify(result)).not.toContain('intercom-secret-token');
    // a message that says where it is already is not prefixed with its field again
    const tooMany = (await client.callTool({
      name: 'context_store_search',
      arguments: { connector: connectorId, entity: 'contacts', query: { filter: { eq: { nope: 1 } } }, limit: 100000 },
    })) as CallToolResult;
    expect(tooMany.isError).toBe(true);
    expect(text(tooMany)).toMatch(/^- limit: [^\n]*rule: maximum/m);
    expect(text(tooMany)).not.toMatch(/- (limit|query\.filter\.eq): \1:/);
  });

  it('answers an unknown tool with a JSON-RPC invalid-params error naming the tools, as the MCP spec has it', async () => {
    const client = await connect(tenant.api.token);
    const refused = await client.callTool({ name: 'zzz', arguments: {} }).catch((error: unknown) => error);
    expect(refused).toMatchObject({ code: -32602 });
    expect((refused as Error).message).toContain('Unknown tool: zzz. Tools: list_connectors, describe');
    // the session goes on
    expect((await client.listTools()).tools.length).toBeGreaterThan(0);
  });

  it('exposes per-action tools on request with hints from the manifest, and honours an allow-list', async () => {
    const all = await connect(tenant.api.token, '?action_tools=true');
    const { tools } = await all.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get('intercom__contacts__list')?.annotations).toMatchObject({
      readOnlyHint: true,
      destructiveHint: false,
      idempotentHint: true,
      openWorldHint: true,
    });
    expect(byName.get('intercom__contacts__create')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: false,
      idempotentHint: false,
      openWorldHint: true,
    });
    expect(byName.get('intercom__contacts__delete')?.annotations).toMatchObject({
      readOnlyHint: false,
      destructiveHint: true,
      idempotentHint: true,
      openWorldHint: true,
    });
    // A POST that only searches is read-only because its manifest says so.
    expect(byName.get('intercom__conversations__api_search')?.annotations).toMatchObject({ readOnlyHint: true });
    expect(byName.get('intercom__contacts__get')?.inputSchema).toMatchObject({
      type: 'object',
      required: ['id'],
      additionalProperties: false,
      properties: { id: { type: 'string', minLength: 1 } },
    });

    upstream.requests.length = 0;
    const got = json(await all.callTool({ name: 'intercom__contacts__get', arguments: { id: 'c3' } }));
    expect(got.record).toMatchObject({ id: 'c3', email: 'person3@example.com' });
    const deleted = json(await all.callTool({ name: 'intercom__contacts__delete', arguments: { id: 'c5' } }));
    expect(deleted.record).toMatchObject({ id: 'c5', deleted: true });
    expect(upstream.requests.map((r) => `${r.method} ${r.path}`)).toEqual(['GET /contacts/c3', 'DELETE /contacts/c5']);

    const limited = await connect(tenant.api.token, '?allow=intercom:contacts.list,intercom:contacts.get');
    const names = (await limited.listTools()).tools.map((t) => t.name);
    expect(names).toEqual([
      'list_connectors',
      'describe',
      'search_actions',
      'execute',
      'context_store_search',
      'read_docs',
      'intercom__contacts__list',
      'intercom__contacts__get',
    ]);
    const refused = (await limited.callTool({
      name: 'execute',
      arguments: { connector: connectorId, entity: 'contacts', action: 'delete', params: { id: 'c1' } },
    })) as CallToolResult;
    expect(refused.isError).toBe(true);
    expect(text(refused)).toContain("not in this session's allow-list");

    const badAllow = await fetch(`${service.url}/mcp?allow=intercom:contacts.explode`, {
      method: 'POST',
      headers: { authorization: `Bearer ${tenant.api.token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(badAllow.status).toBe(422);
    expect(((await badAllow.json()) as { errors: Array<{ field: string }> }).errors[0]?.field).toBe('query.allow');
  });

  it('searches the context store after a sync from the vendor stand-in', async () => {
    const sync = await tenant.api.post(`/api/v1/integrations/connectors/${connectorId}/sync`, { entity: 'contacts' });
    expect(sync.status).toBe(202);
    const client = await connect(tenant.api.token);
    const deadline = Date.now() + 30_000;
    let found: CallToolResult;
    for (;;) {
      found = (await client.callTool({
        name: 'context_store_search',
        arguments: { connector: connectorId, entity: 'contacts', query: { filter: { eq: { email: 'person2@example.com' } } } },
      })) as CallToolResult;
      if (!found.isError || Date.now() > deadline) break;
      await sleep(50);
    }
    expect(found.isError, text(found)).toBeFalsy();
    const body = json(found);
    expect((body.records as Array<{ id: string }>).map((r) => r.id)).toEqual(['c2']);
    expect(body.meta).toMatchObject({ has_more: false });
  });

  it('ranks entity/action pairs for a need with search_actions', async () => {
    const client = await connect(tenant.api.token);
    const result = json(await client.callTool({ name: 'search_actions', arguments: { need: 'remove a contact', limit: 3 } }));
    const first = (result.matches as Array<Record<string, unknown>>)[0];
    expect(first).toMatchObject({ connector_type: 'intercom', entity: 'contacts', action: 'delete', destructive: true, connectors: [connectorId] });
  });

  it("keeps a session inside its token's organization", async () => {
    const client = await connect(other.api.token);
    expect(json(await client.callTool({ name: 'list_connectors', arguments: {} })).connectors).toEqual([]);
    const result = (await client.callTool({ name: 'execute', arguments: { connector: connectorId, entity: 'contacts', action: 'list' } })) as CallToolResult;
    expect(result.isError).toBe(true);
    expect(text(result)).toContain(`No connector "${connectorId}" in this session`);
  });
});
