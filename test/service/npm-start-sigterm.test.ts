/**
 * `npm start` stopped the way a process manager stops it: SIGTERM to the npm process itself (not to
 * the node beneath it). npm must pass it on, the service must close, and nothing may be left behind:
 * no process of the tree, no listener on the port, no lock on the embedded store.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { groupAlive, waitUntil } from '../support/process-group.js';
import { spawnService, type SpawnedService } from '../support/spawn-service.js';
import { seedDataDir } from '../support/store.js';

/** Whether a TCP connection to the address is accepted. */
function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

describe('SIGTERM to `npm start`', { timeout: 120_000 }, () => {
  let dataDir: string;
  let service: SpawnedService | undefined;
  beforeAll(async () => {
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-npm-start-'));
    await seedDataDir(dataDir);
  });
  afterAll(() => {
    const pid = service?.child.pid;
    if (pid !== undefined && groupAlive(pid)) process.kill(-pid, 'SIGKILL');
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('stops npm and the service beneath it within 15 s, closes the port and releases the store lock', async () => {
    service = await spawnService({ DATA_DIR: dataDir }, 90_000, 'npm start');
    const npmPid = service.child.pid;
    if (npmPid === undefined) throw new Error('npm did not start');
    const ready = await fetch(`${service.url}/ready`);
    expect(ready.status).toBe(200);
    const port = Number(new URL(service.url).port);
    const lockFile = path.join(dataDir, 'pglite', 'switchyard.lock');
    expect(existsSync(lockFile)).toBe(true);
    expect(await accepts(port)).toBe(true);

    const exited = new Promise<number | null>((resolve) => service?.child.once('exit', (code) => resolve(code)));
    process.kill(npmPid, 'SIGTERM');
    const outcome = await Promise.race([exited, new Promise<'timeout'>((resolve) => setTimeout(() => resolve('timeout'), 15_000))]);
    expect(outcome, `npm did not exit within 15 s of SIGTERM; stderr: ${service.stderr()}`).not.toBe('timeout');
    // Nothing of the tree (npm, sh, node) outlives npm by more than a moment.
    expect(await waitUntil(() => !groupAlive(npmPid), 5_000)).toBe(true);
    expect(await accepts(port)).toBe(false);
    expect(existsSync(lockFile)).toBe(false);
    // A clean stop, not a crash: nothing on stderr but npm's own notice of the signal.
    expect(service.stderr()).not.toMatch(/Error|error:/);
    service = undefined;
  });
});
