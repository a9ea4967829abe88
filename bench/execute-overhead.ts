/**
 * Execute overhead: `POST .../connectors/{id}/execute` (Harvest `users list`, 50 records) against a
 * local upstream that answers at once, side by side with a minimal pass-through (Node http server +
 * undici Pool, same upstream, same response shape), driven with the same load (autocannon, 10
 * connections) in alternating rounds in one run, on PGlite and on PostgreSQL (a throwaway cluster,
 * when the server binaries exist). Every process (upstream, pass-throughs, service) is a child of its
 * own; the load generator runs here. Prints req/s, p50 and p99 of each side, the throughput ratio,
 * the added p50, the target (ratio >= 0.8, added p50 <= 1 ms) and the service's RSS after the run.
 * A third side, driven in the same rounds, is the same minimal server calling the upstream through
 * the runtime's HTTP layer (ky on the pooled transport) instead of undici: its ratio is the most
 * execute could reach with that layer on the path, whatever the service does around it.
 * Each side's CPU time per request (user + system of its process, from /proc) is printed too: on a
 * machine other work is loading, it moves less than the throughput does.
 * On a shared machine compare the ratios, not the absolute times.
 *
 *   npm run bench execute-overhead       (ROUNDS=3 SECONDS=5 CONNECTIONS=10 by default; PROFILE_DIR=dir
 *                                        writes the service's CPU profile there)
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import autocannon from 'autocannon';
import pg from 'pg';
import { postgresAvailable, startCluster, type Cluster } from '../test/support/postgres-cluster.js';

type Row = Record<string, string | number>;

const ROUNDS = Number(process.env.ROUNDS ?? 3);
const SECONDS = Number(process.env.SECONDS ?? 5);
const CONNECTIONS = Number(process.env.CONNECTIONS ?? 10);
/** Where the service writes a CPU profile (.cpuprofile, for Chrome DevTools) when it exits; off unless set. */
const PROFILE_DIR = process.env.PROFILE_DIR;
export const TARGET_RATIO = 0.8;
export const TARGET_ADDED_P50_MS = 1;

const HERE = path.dirname(fileURLToPath(import.meta.url));
const REPO_ROOT = path.resolve(HERE, '..');

interface Child {
  process: ChildProcess;
  info: Record<string, string>;
  stop(): Promise<void>;
}

/** Runs one of the benchmark's processes and waits for the JSON line it prints when it is ready. */
async function startChild(script: string, env: Record<string, string>, nodeArgs: string[] = []): Promise<Child> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', path.join(HERE, 'execute-overhead', script)], {
    cwd: REPO_ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let errText = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => (errText += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const info = await new Promise<Record<string, string>>((resolve, reject) => {
    let buffer = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      const newline = buffer.indexOf('\n');
      if (newline >= 0) resolve(JSON.parse(buffer.slice(0, newline)) as Record<string, string>);
    });
    void exited.then(() => reject(new Error(`${script} exited before it was ready: ${errText}`)));
  });
  return {
    process: child,
    info,
    async stop() {
      if (child.exitCode !== null) return;
      child.kill('SIGTERM');
      await exited;
    },
  };
}

/** CPU seconds (user + system, every thread) a process has used so far, from /proc. */
function cpuSeconds(pid: number | undefined): number {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ').at(-1)?.split(' ') ?? [];
  // utime and stime are fields 14 and 15 of stat, 12 and 13 after the command name; clock ticks are 100 per second on Linux.
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

function rssMb(pid: number | undefined): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
  return Math.round(kb / 1024);
}

async function json(url: string, init: { method: string; headers?: Record<string, string>; body?: unknown }): Promise<Record<string, unknown>> {
  const response = await fetch(url, {
    method: init.method,
    headers: { 'content-type': 'application/json', ...init.headers },
    body: init.body === undefined ? undefined : JSON.stringify(init.body),
  });
  const body = (await response.json()) as Record<string, unknown>;
  if (!response.ok) throw new Error(`${init.method} ${url}: ${response.status} ${JSON.stringify(body)}`);
  return body;
}

interface Target {
  /** The process that serves it. */
  pid: number | undefined;
  url: string;
  headers: Record<string, string>;
  body: string;
}

interface Load {
  /** CPU seconds the side's process used while it was driven. */
  cpuSeconds: number;
  requests: number;
  seconds: number;
  p50: number[];
  p99: number[];
  failures: number;
}

async function drive(target: Target, load: Load): Promise<void> {
  const cpuBefore = cpuSeconds(target.pid);
  const result = await autocannon({
    url: target.url,
    method: 'POST',
    headers: { 'content-type': 'application/json', ...target.headers },
    body: target.body,
    connections: CONNECTIONS,
    duration: SECONDS,
  });
  load.cpuSeconds += cpuSeconds(target.pid) - cpuBefore;
  load.requests += result.requests.total;
  load.seconds += result.duration;
  load.p50.push(result.latency.p50);
  load.p99.push(result.latency.p99);
  load.failures += result.non2xx + result.errors + result.timeouts;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;

/** The two pass-throughs: over undici (the reference) and over the runtime's HTTP layer (its floor). */
interface Passthroughs {
  undici: Target;
  runtimeHttp: Target;
}

async function measure(label: string, serviceEnv: Record<string, string>, passthroughs: Passthroughs, upstreamUrl: string): Promise<Row[]> {
  const service = await startChild(
    'service.ts',
    {
      ...serviceEnv,
      UPSTREAM_URL: upstreamUrl,
      PORT: '0',
      HOST: '127.0.0.1',
      LOG_LEVEL: 'silent',
      SYNC_INTERVAL_MINUTES: '0',
    },
    PROFILE_DIR === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${PROFILE_DIR}`],
  );
  try {
    const base = service.info.url as string;
    const token = await json(`${base}/api/v1/account/applications/token`, {
      method: 'POST',
      body: { client_id: service.info.client_id, client_secret: service.info.client_secret },
    });
    const authorization = `Bearer ${String(token.access_token)}`;
    const connector = await json(`${base}/api/v1/integrations/connectors`, {
      method: 'POST',
      headers: { authorization },
      body: {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'bench',
        credentials: { api_token: 'bench-token', account_id: '42' },
        replication_config: { sync_interval_minutes: 0 },
      },
    });
    const executeTarget: Target = {
      pid: service.process.pid,
      url: `${base}/api/v1/integrations/connectors/${String(connector.id)}/execute`,
      headers: { authorization },
      body: JSON.stringify({ entity: 'users', action: 'list', params: {} }),
    };
    const check = await json(executeTarget.url, { method: 'POST', headers: executeTarget.headers, body: JSON.parse(executeTarget.body) });
    if (!Array.isArray(check.result) || check.result.length !== 50) throw new Error(`execute answered ${JSON.stringify(check).slice(0, 300)}`);

    // Warm-up of both sides (JIT, pools, caches), not counted.
    const discard = (): Load => ({ cpuSeconds: 0, requests: 0, seconds: 0, p50: [], p99: [], failures: 0 });
    await drive(passthroughs.undici, discard());
    await drive(passthroughs.runtimeHttp, discard());
    await drive(executeTarget, discard());
    const proxy = discard();
    const floor = discard();
    const execute = discard();
    for (let round = 0; round < ROUNDS; round++) {
      await drive(passthroughs.undici, proxy);
      await drive(passthroughs.runtimeHttp, floor);
      await drive(executeTarget, execute);
    }
    const rss = rssMb(service.process.pid);
    const proxyRate = proxy.requests / proxy.seconds;
    const floorRate = floor.requests / floor.seconds;
    const executeRate = execute.requests / execute.seconds;
    const ratio = executeRate / proxyRate;
    const cpuPerRequest = (load: Load) => load.cpuSeconds / load.requests;
    const addedP50 = median(execute.p50) - median(proxy.p50);
    const row = (side: string, load: Load, rate: number): Row => ({
      store: label,
      side,
      'req/s': Math.round(rate),
      'p50 ms': median(load.p50),
      'p99 ms': median(load.p99),
      'CPU µs/req': Math.round((load.cpuSeconds / load.requests) * 1e6),
      failures: load.failures,
    });
    return [
      row('pass-through', proxy, proxyRate),
      row('pass-through over the runtime HTTP layer (ky)', floor, floorRate),
      row('execute', execute, executeRate),
      {
        store: label,
        side: 'runtime HTTP layer / pass-through (the most execute can reach with it)',
        'req/s': `${(floorRate / proxyRate).toFixed(2)}x`,
        'p50 ms': `+${(median(floor.p50) - median(proxy.p50)).toFixed(2)}`,
        'p99 ms': '',
        'CPU µs/req': `${(cpuPerRequest(floor) / cpuPerRequest(proxy)).toFixed(2)}x the CPU`,
        failures: '',
      },
      {
        store: label,
        side: `execute / pass-through (target >= ${TARGET_RATIO}x, <= ${TARGET_ADDED_P50_MS} ms added p50)`,
        'req/s': `${ratio.toFixed(2)}x ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'}`,
        'p50 ms': `+${addedP50.toFixed(2)} ${addedP50 <= TARGET_ADDED_P50_MS ? 'met' : 'MISSED'}`,
        'p99 ms': '',
        'CPU µs/req': `${(cpuPerRequest(execute) / cpuPerRequest(proxy)).toFixed(2)}x the CPU`,
        failures: `service RSS ${rss} MB`,
      },
    ];
  } finally {
    await service.stop();
  }
}

export async function run(): Promise<Row[]> {
  const upstream = await startChild('upstream.ts', {});
  const upstreamUrl = upstream.info.url as string;
  const undiciChild = await startChild('passthrough.ts', { UPSTREAM_URL: upstreamUrl, UPSTREAM_CLIENT: 'undici' });
  const runtimeHttpChild = await startChild('passthrough.ts', { UPSTREAM_URL: upstreamUrl, UPSTREAM_CLIENT: 'runtime' });
  const passthroughTarget = (child: Child): Target => ({
    pid: child.process.pid,
    url: `${child.info.url}/execute`,
    headers: { authorization: 'Bearer x' },
    body: JSON.stringify({ entity: 'users', action: 'list', params: {} }),
  });
  const passthroughs: Passthroughs = { undici: passthroughTarget(undiciChild), runtimeHttp: passthroughTarget(runtimeHttpChild) };
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-'));
  let cluster: Cluster | undefined;
  try {
    const rows = await measure('PGlite', { DATA_DIR: dataDir }, passthroughs, upstreamUrl);
    if (postgresAvailable()) {
      cluster = await startCluster();
      const admin = new pg.Client({ connectionString: cluster.url });
      await admin.connect();
      await admin.query('CREATE DATABASE bench');
      await admin.end();
      const url = new URL(cluster.url);
      url.pathname = '/bench';
      rows.push(...(await measure('PostgreSQL', { DATA_DIR: dataDir, DATABASE_URL: url.toString() }, passthroughs, upstreamUrl)));
    }
    return rows;
  } finally {
    cluster?.stop();
    await runtimeHttpChild.stop();
    await undiciChild.stop();
    await upstream.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  console.table(await run());
}
