/**
 * Runs the real entry points as child processes, the way an operator does: `npm start`
 * (src/main.ts) and the `switchyard` CLI (src/cli.ts), both through tsx.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** The environment of a child: ours without the service settings, plus `env` (undefined removes a variable). */
export function childEnv(env: Record<string, string | undefined>): NodeJS.ProcessEnv {
  const result: NodeJS.ProcessEnv = { ...process.env };
  for (const name of [
    'HOST',
    'PORT',
    'DATA_DIR',
    'DATABASE_URL',
    'SWITCHYARD_MASTER_KEY',
    'SWITCHYARD_NEW_MASTER_KEY',
    'UPSTREAM_BASE_URLS',
    'LOG_LEVEL',
    'TOKEN_TTL_SECONDS',
    'SCOPED_TOKEN_TTL_SECONDS',
    'BODY_LIMIT_BYTES',
    'UPSTREAM_TIMEOUT_MS',
    'UPSTREAM_RETRIES',
    'SWITCHYARD_OPERATOR_TOKEN',
    'SWITCHYARD_URL',
    'METRICS_TOKEN',
    'STORE_WAIT_SECONDS',
  ]) {
    delete result[name];
  }
  for (const [name, value] of Object.entries(env)) {
    if (value === undefined) delete result[name];
    else result[name] = value;
  }
  return result;
}

export interface CliResult {
  status: number | null;
  stdout: string;
  stderr: string;
}

/** `switchyard ...args` (src/cli.ts) with the given settings. */
export function runCli(args: string[], env: Record<string, string | undefined>): CliResult {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
    cwd: REPO_ROOT,
    env: childEnv(env),
    encoding: 'utf8',
    timeout: 120_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

export interface LogLine {
  msg?: string;
  store?: string;
  location?: string;
  masterKey?: string;
  [key: string]: unknown;
}

export interface SpawnedService {
  child: ChildProcess;
  url: string;
  /** The "Switchyard listening on ..." log line. */
  ready: LogLine;
  logs: LogLine[];
  stderr(): string;
  /** Milliseconds from spawn to the first answer of the token endpoint. */
  answeredInMs: number;
  stop(): Promise<number | null>;
}

/**
 * How the service is launched: `node` runs `node --import tsx src/main.ts` directly; `npm start` runs
 * the package script as an operator does, in its own process group (its pid is the group's id), so a
 * test can see whether npm and everything under it are gone.
 */
export type Launcher = 'node' | 'npm start';

/**
 * Starts the service (PORT=0 unless given), waits for its "Switchyard listening on URL" log line,
 * then for the token endpoint to answer (a 422 to an empty body).
 */
export async function spawnService(env: Record<string, string | undefined>, timeoutMs = 60_000, launcher: Launcher = 'node'): Promise<SpawnedService> {
  const started = performance.now();
  const [command, args] = launcher === 'node' ? [process.execPath, ['--import', 'tsx', 'src/main.ts']] : ['npm', ['start']];
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: launcher === 'npm start',
  });
  const logs: LogLine[] = [];
  let errText = '';
  child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
    errText += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const ready = await new Promise<LogLine>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no "Switchyard listening" line within ${timeoutMs} ms; stderr: ${errText}`)), timeoutMs);
    let buffer = '';
    child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      buffer += chunk;
      let newline: number;
      while ((newline = buffer.indexOf('\n')) >= 0) {
        const text = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 1);
        let line: LogLine;
        try {
          line = JSON.parse(text) as LogLine;
        } catch {
          line = { msg: text };
        }
        logs.push(line);
        if (line.msg?.startsWith('Switchyard listening on ')) {
          clearTimeout(timer);
          resolve(line);
        }
      }
    });
    void exited.then((code) => {
      clearTimeout(timer);
      reject(new Error(`the service exited with code ${code} before it was ready; stderr: ${errText}`));
    });
  });
  const url = /listening on (https?:\/\/\S+)/.exec(ready.msg ?? '')?.[1];
  if (url === undefined) throw new Error(`no URL in the log line: ${ready.msg}`);
  let answeredInMs = 0;
  for (;;) {
    try {
      const response = await fetch(`${url}/api/v1/account/applications/token`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await response.text();
      answeredInMs = performance.now() - started;
      break;
    } catch (error) {
      if (performance.now() - started > timeoutMs) throw error;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }
  return {
    child,
    url,
    ready,
    logs,
    stderr: () => errText,
    answeredInMs,
    async stop() {
      if (child.exitCode !== null) return child.exitCode;
      child.kill('SIGTERM');
      return exited;
    },
  };
}

/** Runs `node --import tsx src/main.ts` expecting it to refuse to start; returns its exit code and stderr. */
export function runServiceExpectingFailure(env: Record<string, string | undefined>): CliResult {
  const result = spawnSync(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
    cwd: REPO_ROOT,
    env: childEnv({ PORT: '0', HOST: '127.0.0.1', LOG_LEVEL: 'info', ...env }),
    encoding: 'utf8',
    timeout: 60_000,
  });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}
