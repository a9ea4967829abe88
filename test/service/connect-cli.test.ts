/**
 * `switchyard connect`: prints the connect page URL, waits, and reports the connector once the page has
 * created it; no secret on the command line.
 */
import { spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { childEnv, REPO_ROOT } from '../support/spawn-service.js';
import { startFakeVendorApi, type FakeVendorApi } from '../support/fake-oauth.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

const TOKEN = 'harvest-cli-pat-S3CRET-1212';

/** Runs the CLI without blocking this process, whose event loop serves the in-process service it calls. */
function runCli(args: string[], env: Record<string, string>): Promise<{ status: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], { cwd: REPO_ROOT, env: childEnv(env) });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('exit', (status) => resolve({ status, stdout, stderr }));
  });
}

function attribute(html: string, name: string): string | undefined {
  return new RegExp(`name="${name}" value="([^"]*)"`).exec(html)?.[1];
}

describe('switchyard connect', () => {
  let service: TestService;
  let tenant: Tenant;
  let env: Record<string, string>;
  let vendor: FakeVendorApi;

  beforeAll(async () => {
    // The page creates the connector with the connector check on: a fake Harvest answers its read (GET /v2/company).
    vendor = await startFakeVendorApi();
    vendor.accepted.harvest.add(TOKEN);
    service = await startTestService('pglite', { upstreamBaseUrls: { harvest: `${vendor.url}/harvest` } });
    tenant = await createTenant(service);
    env = { SWITCHYARD_URL: service.url, SWITCHYARD_CLIENT_ID: tenant.clientId, SWITCHYARD_CLIENT_SECRET: tenant.clientSecret };
  });
  afterAll(async () => {
    await service?.close();
    await vendor?.close();
  });

  it('explains what is missing: client credentials, an unknown type, a type not enabled', async () => {
    const noClient = await runCli(['connect', 'harvest', '--workspace', 'w'], { SWITCHYARD_URL: service.url });
    expect(noClient.status).toBe(1);
    expect(noClient.stderr).toContain('Set SWITCHYARD_CLIENT_ID and SWITCHYARD_CLIENT_SECRET');
    const unknown = await runCli(['connect', 'nope', '--workspace', 'w'], env);
    expect(unknown.status).toBe(1);
    expect(unknown.stderr).toContain('"nope" is not a connector type');
    const notEnabled = await runCli(['connect', 'harvest', '--workspace', 'w'], env);
    expect(notEnabled.status).toBe(1);
    expect(notEnabled.stderr).toContain('harvest is not enabled');
  }, 120_000);

  it('prints the page URL and waits until the connector made on the page exists', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli.ts', 'connect', 'harvest', '--workspace', 'cli-ws', '--enable', '--timeout', '90', '--json'],
      {
        cwd: REPO_ROOT,
        env: childEnv(env),
      },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      const deadline = Date.now() + 60_000;
      while (!stdout.includes('\n') && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 200));
      const url = new URL(stdout.split('\n')[0] ?? '');
      expect(`${url.origin}${url.pathname}`).toBe(`${service.url}/connect`);
      expect(url.searchParams.get('connector_type')).toBe('harvest');
      expect(stderr).toContain('Open this page in a browser to connect harvest to workspace "cli-ws"');

      // What a person does in the browser: open the page and submit the token form.
      const page = await (await fetch(url)).text();
      const fields = {
        token: attribute(page, 'token') ?? '',
        template: attribute(page, 'template') ?? '',
        option_title: 'Personal Access Token',
        name: 'My Harvest',
        'credentials.api_token': TOKEN,
        'credentials.account_id': '123456',
      };
      const submitted = await fetch(`${service.url}/connect/connectors`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams(fields).toString(),
      });
      expect(submitted.status).toBe(200);

      expect(await exited).toBe(0);
      const result = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as { connector_id: string; connector_type: string; workspace_name: string };
      expect(result).toMatchObject({ connector_type: 'harvest', workspace_name: 'cli-ws' });
      const connector = await tenant.api.get<{ name: string; workspace_name: string }>(`/api/v1/integrations/connectors/${result.connector_id}`);
      expect(connector.body).toMatchObject({ name: 'My Harvest', workspace_name: 'cli-ws' });
      expect(stdout + stderr).not.toContain(TOKEN);
      expect(stdout + stderr).not.toContain(tenant.clientSecret);
    } finally {
      child.kill();
    }
  }, 120_000);
});
