/**
 * Starts and stops Prism mock servers (`@stoplight/prism-cli`) on loopback. Each instance runs in
 * its own process group so that stopping it also ends the workers Prism forks; every instance still
 * running when this process exits (a failure, Ctrl-C) is killed too.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import path from 'node:path';

export interface PrismInstance {
  readonly url: string;
  readonly pid: number;
  stop(): Promise<void>;
}

const running = new Set<ChildProcess>();
let exitHookInstalled = false;

function killGroup(child: ChildProcess, signal: NodeJS.Signals): void {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  try {
    process.kill(-child.pid, signal);
  } catch {
    // already gone
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const child of running) killGroup(child, 'SIGKILL');
  });
  for (const signal of ['SIGINT', 'SIGTERM'] as const) {
    process.once(signal, () => {
      for (const child of running) killGroup(child, 'SIGKILL');
      process.exit(130);
    });
  }
}

/** A port that was free a moment ago on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

function prismBin(): string {
  const require = createRequire(import.meta.url);
  return path.join(path.dirname(require.resolve('@stoplight/prism-cli/package.json')), 'dist', 'index.js');
}

const LISTENING = /Prism is listening on (http:\/\/\S+)/;

function startOnce(specFile: string, port: number, timeoutMs: number): Promise<PrismInstance> {
  installExitHook();
  const child = spawn(process.execPath, [prismBin(), 'mock', '--errors', '-h', '127.0.0.1', '-p', String(port), specFile], {
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = async (): Promise<void> => {
    killGroup(child, 'SIGTERM');
    const timer = setTimeout(() => killGroup(child, 'SIGKILL'), 2_000);
    await exited;
    clearTimeout(timer);
    running.delete(child);
  };
  return new Promise<PrismInstance>((resolve, reject) => {
    let tail = '';
    let settled = false;
    const fail = (why: string) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      void stop().then(() => reject(new Error(`Prism did not start on ${path.basename(specFile)}: ${why}\n${tail.slice(-2_000)}`)));
    };
    const timer = setTimeout(() => fail(`not listening after ${Math.round(timeoutMs / 1000)} s`), timeoutMs);
    const onData = (chunk: Buffer) => {
      if (settled) return; // Prism logs every request afterwards; nothing to keep.
      tail = (tail + chunk.toString('utf8')).slice(-8_000);
      const match = LISTENING.exec(tail);
      if (match) {
        settled = true;
        clearTimeout(timer);
        resolve({ url: match[1] as string, pid: child.pid as number, stop });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    child.once('error', (e) => fail(e.message));
    child.once('exit', (code, signal) => fail(`exited (${signal ?? `code ${String(code)}`})`));
  });
}

/** Starts Prism with --errors on a free loopback port (a port taken meanwhile is retried). */
export async function startPrism(specFile: string, timeoutMs = 180_000): Promise<PrismInstance> {
  let last: unknown;
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      return await startOnce(specFile, await freePort(), timeoutMs);
    } catch (e) {
      last = e;
      if (!(e instanceof Error) || !/EADDRINUSE/.test(e.message)) break;
    }
  }
  throw last instanceof Error ? last : new Error(String(last));
}
