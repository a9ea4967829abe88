/**
 * What a probe sees while the service starts (src/starting-port.ts), driven as an operator would: `npm start`'s
 * entry point as a child process, its PostgreSQL not accepting connections yet (a closed port), probed over HTTP.
 * The port answers from the first moment: /health 200, /ready 503 not_ready, anything else 503 starting, each
 * naming the step under way, until the service gives up on the store (STORE_WAIT_SECONDS) and exits.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { childEnv, REPO_ROOT } from '../support/spawn-service.js';

/** A port nothing listens on (taken from the system, then freed). */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('the port while the service starts', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-starting-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('answers /health 200, /ready 503 not_ready and the API 503 starting with Retry-After, naming the step, until the start ends', {
    timeout: 60_000,
  }, async () => {
    const [port, storePort] = [await freePort(), await freePort()];
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/main.ts'], {
      cwd: REPO_ROOT,
      env: childEnv({
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        DATABASE_URL: `postgres://switchyard@127.0.0.1:${storePort}/switchyard`,
        STORE_WAIT_SECONDS: '8',
        LOG_LEVEL: 'info',
      }),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const base = `http://127.0.0.1:${port}`;
      let health: Response | undefined;
      for (let i = 0; i < 200 && health === undefined; i += 1) {
        health = await fetch(`${base}/health`).catch(() => undefined);
        if (health === undefined) await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(health?.status).toBe(200);
      expect(await health?.json()).toEqual({ status: 'ok' });

      // Once it has tried the store and is waiting for it.
      let ready: Response | undefined;
      let readyBody: { message: string; errors: Array<{ field: string | null; message: string; error_code: string }> } | undefined;
      for (let i = 0; i < 100; i += 1) {
        ready = await fetch(`${base}/ready`);
        readyBody = (await ready.json()) as typeof readyBody;
        if (readyBody?.message.includes('waiting for the store')) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(ready?.status).toBe(503);
      expect(ready?.headers.get('retry-after')).toBe('5');
      expect(readyBody).toEqual({
        message: 'Not ready: the service is starting (waiting for the store to accept connections).',
        errors: [{ field: null, message: 'Not ready: the service is starting (waiting for the store to accept connections).', error_code: 'not_ready' }],
      });

      const token = await fetch(`${base}/api/v1/account/applications/token`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ client_id: 'x', client_secret: 'y' }),
      });
      expect(token.status).toBe(503);
      expect(token.headers.get('retry-after')).toBe('5');
      const body = (await token.json()) as { message: string; errors: Array<{ error_code: string }> };
      expect(body.errors[0]?.error_code).toBe('starting');
      expect(body.message).toBe('The service is starting (waiting for the store to accept connections); send the request again in a moment.');
      // The store's address is the operator's to read on stderr, not an anonymous prober's.
      expect(JSON.stringify(body)).not.toContain(String(storePort));

      expect(await exited).toBe(1);
      expect(stderr).toContain('Cannot reach the PostgreSQL store');
      // The port is free again.
      await expect(fetch(`${base}/health`)).rejects.toThrow();
    } finally {
      child.kill('SIGKILL');
    }
  });
});
