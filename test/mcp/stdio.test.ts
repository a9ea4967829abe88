/**
 * `switchyard mcp` over stdio, spawned as an MCP client launches it, driven by the official MCP
 * TypeScript client: library mode (vendor credentials from SWITCHYARD_CREDENTIALS, an Intercom
 * stand-in on 127.0.0.1 as base URL) and hosted mode (client credentials, talking to a running service).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startIntercomStandIn, type IntercomStandIn } from '../support/intercom-stand-in.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';
import { childEnv, REPO_ROOT } from '../support/spawn-service.js';

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function text(result: unknown): string {
  const first = (result as CallToolResult).content[0];
  return first?.type === 'text' ? first.text : '';
}

const json = (result: unknown) => JSON.parse(text(result)) as Record<string, unknown>;

async function launch(args: string[], env: Record<string, string>): Promise<{ client: Client; stderr: () => string }> {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: ['--import', 'tsx', 'src/cli.ts', 'mcp', ...args],
    cwd: REPO_ROOT,
    env: childEnv(env) as Record<string, string>,
    stderr: 'pipe',
  });
  let stderr = '';
  transport.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const client = new Client({ name: 'switchyard-test', version: '1.0.0' });
  await client.connect(transport);
  return { client, stderr: () => stderr };
}

describe('switchyard mcp over stdio', () => {
  let upstream: IntercomStandIn;

  beforeAll(async () => {
    upstream = await startIntercomStandIn(5);
  });
  afterAll(async () => {
    await upstream?.close();
  });

  describe('library mode (--connector, credentials from SWITCHYARD_CREDENTIALS)', () => {
    let client: Client;

    beforeAll(async () => {
      ({ client } = await launch(['--connector', 'intercom', '--base-url', upstream.url, '--action-tools'], {
        SWITCHYARD_CREDENTIALS: JSON.stringify({ access_token: 'intercom-secret-token' }),
      }));
    }, 120_000);
    afterAll(async () => {
      await client?.close();
    });

    it('lists the default tools (no context store in library mode) and one tool per action with manifest hints', async () => {
      const { tools } = await client.listTools();
      const names = tools.map((t) => t.name);
      expect(names.slice(0, 5)).toEqual(['list_connectors', 'describe', 'search_actions', 'execute', 'read_docs']);
      expect(names).not.toContain('context_store_search');
      const hints = (name: string) => tools.find((t) => t.name === name)?.annotations;
      expect(hints('intercom__contacts__list')).toMatchObject({ readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: true });
      expect(hints('intercom__contacts__create')).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: false });
      expect(hints('intercom__tags__delete')).toMatchObject({ readOnlyHint: false, destructiveHint: true });
      expect(json(await client.callTool({ name: 'list_connectors', arguments: {} }))).toMatchObject({
        mode: 'library',
        connectors: [{ id: 'intercom', connector_type: 'intercom' }],
      });
    });

    it('reads a skill doc resource', async () => {
      const { resources } = await client.listResources();
      expect(resources.map((r) => r.uri)).toEqual(['switchyard://skills/intercom']);
      const read = await client.readResource({ uri: 'switchyard://skills/intercom/contacts.create' });
      expect((read.contents[0] as { text: string }).text).toContain('role');
    });

    it('executes reads and a write against the stand-in, sending exactly the declared request', async () => {
      upstream.requests.length = 0;
      const listed = json(
        await client.callTool({ name: 'execute', arguments: { connector: 'intercom', entity: 'contacts', action: 'list', params: { per_page: 3 } } }),
      );
      expect((listed.records as Array<{ id: string }>).map((r) => r.id)).toEqual(['c1', 'c2', 'c3']);
      expect(listed.next_params).toEqual({ starting_after: 'c3' });
      const created = json(await client.callTool({ name: 'intercom__contacts__create', arguments: { role: 'lead', email: 'new@example.com' } }));
      expect(created.record).toMatchObject({ id: 'c6', role: 'lead', email: 'new@example.com' });
      expect(upstream.requests.map((r) => ({ method: r.method, path: r.path, query: r.query, body: r.body }))).toEqual([
        { method: 'GET', path: '/contacts', query: { per_page: '3' }, body: undefined },
        { method: 'POST', path: '/contacts', query: {}, body: { role: 'lead', email: 'new@example.com' } },
      ]);
      expect(upstream.requests[1]?.headers).toMatchObject({ authorization: 'Bearer intercom-secret-token', 'content-type': 'application/json' });
    });

    it('answers a wrong call with a tool error naming the field and the allowed values', async () => {
      const result = (await client.callTool({ name: 'intercom__contacts__create', arguments: { role: 'visitor' } })) as CallToolResult;
      expect(result.isError).toBe(true);
      expect(text(result)).toMatch(/- role: .*rule: enum; allowed: "user", "lead"/);
      const unknown = (await client.callTool({ name: 'execute', arguments: { connector: 'intercom', entity: 'contact', action: 'list' } })) as CallToolResult;
      expect(unknown.isError).toBe(true);
      expect(text(unknown)).toContain('Unknown entity "contact"');
      expect(JSON.stringify([result, unknown])).not.toContain('intercom-secret-token');
    });

    it('splits a page too large for one result instead of cutting it', async () => {
      const { client: small } = await launch(['--connector', 'intercom', '--base-url', upstream.url, '--max-result-chars', '1000'], {
        SWITCHYARD_CREDENTIALS: JSON.stringify({ access_token: 'intercom-secret-token' }),
      });
      // Records of about 600 characters: one fits in a 1000-character result.
      for (const record of upstream.contacts) record.custom_attributes = { notes: 'n'.repeat(500) };
      try {
        const ids: string[] = [];
        let offset = 0;
        for (let call = 0; call < 10; call += 1) {
          const result = json(
            await small.callTool({
              name: 'execute',
              arguments: { connector: 'intercom', entity: 'contacts', action: 'list', params: { per_page: 50 }, record_offset: offset },
            }),
          );
          const records = result.records as Array<{ id: string; custom_attributes: { notes: string } }>;
          expect(records).toHaveLength(1);
          expect(records[0]?.custom_attributes.notes).toHaveLength(500);
          ids.push(...records.map((r) => r.id));
          const rest = result.rest_of_page as { record_offset: number; remaining: number } | undefined;
          if (rest === undefined) break;
          expect(rest).toMatchObject({ record_offset: ids.length, remaining: upstream.contacts.length - ids.length });
          offset = rest.record_offset;
        }
        expect(ids).toEqual(upstream.contacts.map((c) => c.id));
        const past = (await small.callTool({
          name: 'execute',
          arguments: { connector: 'intercom', entity: 'contacts', action: 'list', params: { per_page: 50 }, record_offset: 999 },
        })) as CallToolResult;
        expect(past.isError).toBe(true);
        expect(past.structuredContent).toMatchObject({
          error: { code: 'validation_failed', issues: [{ field: 'record_offset', rule: 'maximum', limit: upstream.contacts.length - 1 }] },
        });
      } finally {
        for (const record of upstream.contacts) delete record.custom_attributes;
        await small.close();
      }
    }, 120_000);
  });

  describe('hosted mode (--url, client credentials from SWITCHYARD_CREDENTIALS)', () => {
    let service: TestService;
    let tenant: Tenant;
    let client: Client;
    let connectorId: string;

    beforeAll(async () => {
      service = await startTestService('pglite', { upstreamBaseUrls: { intercom: upstream.url } });
      tenant = await createTenant(service);
      const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
        workspace_name: 'default',
        connector_type: 'intercom',
        name: 'Support',
        credentials: { access_token: 'intercom-secret-token' },
      });
      connectorId = created.body.id;
      ({ client } = await launch(['--url', service.url], {
        SWITCHYARD_CREDENTIALS: JSON.stringify({ client_id: tenant.clientId, client_secret: tenant.clientSecret }),
      }));
    }, 120_000);
    afterAll(async () => {
      await client?.close();
      await service?.close();
    });

    it('lists the service connectors, executes through the service and searches its context store', async () => {
      const { tools } = await client.listTools();
      expect(tools.length).toBeLessThan(10);
      expect(tools.map((t) => t.name)).toContain('context_store_search');
      expect(json(await client.callTool({ name: 'list_connectors', arguments: {} })).connectors).toEqual([
        expect.objectContaining({ id: connectorId, connector_type: 'intercom' }),
      ]);

      const got = json(
        await client.callTool({ name: 'execute', arguments: { connector: connectorId, entity: 'contacts', action: 'get', params: { id: 'c2' } } }),
      );
      expect(got.record).toMatchObject({ id: 'c2', email: 'person2@example.com' });

      expect((await tenant.api.post(`/api/v1/integrations/connectors/${connectorId}/sync`, { entity: 'contacts' })).status).toBe(202);
      const deadline = Date.now() + 30_000;
      let found: CallToolResult;
      for (;;) {
        found = (await client.callTool({
          name: 'context_store_search',
          arguments: { connector: connectorId, entity: 'contacts', query: { filter: { startswith: { email: 'person' } }, sort: [{ id: 'desc' }] }, limit: 2 },
        })) as CallToolResult;
        if (!found.isError || Date.now() > deadline) break;
        await sleep(50);
      }
      expect(found.isError, text(found)).toBeFalsy();
      const body = json(found);
      expect((body.records as Array<{ id: string }>).map((r) => r.id)).toHaveLength(2);
      expect(body.meta).toMatchObject({ has_more: true });

      const wrong = (await client.callTool({
        name: 'execute',
        arguments: { connector: connectorId, entity: 'contacts', action: 'get', params: { id: '' } },
      })) as CallToolResult;
      expect(wrong.isError).toBe(true);
      expect(text(wrong)).toMatch(/- id: .*rule: minLength/);
    });

    it('refuses to start without usable credentials, naming what to give', async () => {
      const { spawnSync } = await import('node:child_process');
      const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'mcp', '--url', service.url], {
        cwd: REPO_ROOT,
        env: childEnv({ SWITCHYARD_CREDENTIALS: JSON.stringify({ client_id: 'nobody' }) }),
        encoding: 'utf8',
        timeout: 120_000,
      });
      expect(result.status).toBe(1);
      expect(result.stderr).toContain('Hosted mode needs credentials {"client_id", "client_secret"}');
    }, 120_000);
  });
});
