/**
 * The README's "Walkthrough with curl" runs as written: its shell block, taken from README.md, run by
 * bash from the repository against a fresh data folder and port, with Harvest pointed at a stand-in on
 * 127.0.0.1 through UPSTREAM_BASE_URLS (as the block's comment suggests). It starts the service,
 * provisions through it, takes a token, creates the connector (the check reaches the stand-in),
 * inspects it and executes users.list. The service it left running is stopped afterwards.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarvestStandIn, type HarvestStandIn } from '../support/harvest-stand-in.js';
import { stopGroup, groupAlive } from '../support/process-group.js';
import { isCi } from '../support/required-input.js';
import { childEnv, REPO_ROOT } from '../support/spawn-service.js';

function walkthroughBlock(): string {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Walkthrough with curl'));
  const block = /```sh\n([\s\S]*?)```/.exec(section)?.[1];
  if (block === undefined) throw new Error('README.md has no sh block under "## Walkthrough with curl"');
  return block;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => (typeof address === 'object' && address !== null ? resolve(address.port) : reject(new Error('no port'))));
    });
  });
}

const missingTools = ['jq', 'curl'].filter((tool) => spawnSync('sh', ['-c', `command -v ${tool}`]).status !== 0);

describe('README walkthrough', { timeout: 240_000 }, () => {
  let root: string;
  let harvest: HarvestStandIn;
  let pgid: number | undefined;
  beforeAll(async () => {
    root = mkdtempSync(path.join(tmpdir(), 'switchyard-walkthrough-'));
    harvest = await startHarvestStandIn();
  });
  afterAll(async () => {
    if (pgid !== undefined) await stopGroup(pgid);
    await harvest.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('runs from an empty data folder to an executed operation', async (context) => {
    if (missingTools.length > 0) {
      if (isCi())
        throw new Error(
          `The README walkthrough needs ${missingTools.join(' and ')} on PATH (apt-get install -y ${missingTools.join(' ')}); .ci/run installs them.`,
        );
      context.skip();
    }
    const dataDir = path.join(root, 'data');
    const port = await freePort();
    const child = spawn('bash', ['-c', walkthroughBlock()], {
      cwd: REPO_ROOT,
      env: childEnv({ DATA_DIR: dataDir, PORT: String(port), UPSTREAM_BASE_URLS: JSON.stringify({ harvest: harvest.url }) }),
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    pgid = child.pid;
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const code = await new Promise<number | string | null>((resolve) => {
      const timer = setTimeout(() => resolve('timeout'), 180_000);
      child.once('exit', (exitCode) => {
        clearTimeout(timer);
        resolve(exitCode);
      });
    });
    const serviceLog = existsSync(`${dataDir}.log`) ? readFileSync(`${dataDir}.log`, 'utf8') : '';
    expect(code, `stdout: ${stdout}\nstderr: ${stderr}\nservice log: ${serviceLog}`).toBe(0);

    // Step 2 kept the client's secret in the data folder, readable only by its owner.
    expect(statSync(path.join(dataDir, 'client.json')).mode & 0o777).toBe(0o600);
    // Step 4's check and step 6's call reached "Harvest" with the credentials from the block.
    const credentials = { authorization: 'Bearer YOUR_HARVEST_PAT', accountId: '1234567' };
    expect(harvest.requests).toContainEqual({ method: 'GET', target: '/company', ...credentials });
    expect(harvest.requests).toContainEqual({ method: 'GET', target: '/users?per_page=2', ...credentials });
    // Step 5 printed the entities with their actions, step 6 the answer shown in the README.
    expect(stdout).toContain('"users"');
    const answer = JSON.parse(stdout.trim().split('\n').at(-1) ?? '') as {
      status: string;
      result: { id: number }[];
      connector_metadata: { next_params?: unknown };
    };
    expect(answer.status).toBe('success');
    expect(answer.result.map((user) => user.id)).toEqual([3230547, 1782959]);
    expect(answer.connector_metadata.next_params).toEqual({ page: 2, per_page: 2 });

    // The walkthrough leaves the service running; stop it like an operator and see it release the store.
    if (pgid !== undefined) await stopGroup(pgid);
    expect(pgid !== undefined && groupAlive(pgid)).toBe(false);
    pgid = undefined;
    expect(existsSync(path.join(dataDir, 'pglite', 'switchyard.lock'))).toBe(false);
  });
});
