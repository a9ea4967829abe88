import { createServer } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runServiceExpectingFailure } from '../support/spawn-service.js';

async function closedPort(): Promise<number> {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

describe('npm start with an unreachable PostgreSQL', { timeout: 120_000 }, () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-unreachable-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('says it is waiting, retries for STORE_WAIT_SECONDS, then stops with one line and exit code 1', async () => {
    const port = await closedPort();
    const where = `postgres://switchyard:***@127.0.0.1:${port}/switchyard`;
    const result = runServiceExpectingFailure({
      DATA_DIR: dataDir,
      DATABASE_URL: `postgres://switchyard:secret-pw@127.0.0.1:${port}/switchyard`,
      STORE_WAIT_SECONDS: '3',
    });
    expect(result.status).toBe(1);
    expect(result.stderr.trim().split('\n')).toEqual([
      `Waiting for the PostgreSQL store at ${where} (ECONNREFUSED); retrying every 2 s for up to 3 s.`,
      `Cannot reach the PostgreSQL store at ${where} (ECONNREFUSED) within 3 s (STORE_WAIT_SECONDS).`,
    ]);
    expect(result.stderr).not.toContain('secret-pw');
  });
});
