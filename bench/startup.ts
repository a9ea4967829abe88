/**
 * `npm run bench`: how long `npm start` takes to answer on an existing data folder. Starts the
 * service once to create the store (PGlite initialisation, slower), then times RUNS further starts
 * from spawn to the first answer of the token endpoint, and prints each and the median; run alone it
 * exits 1 when the median is 3000 ms or more (the "ready in under 3 seconds").
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { spawnService } from '../test/support/spawn-service.js';

export const LIMIT_MS = 3000;

type Row = Record<string, string | number>;

/** Times `npm start` on an existing data folder: one start to create the store, then RUNS timed starts. */
export async function run(runs = Number(process.env.RUNS ?? 5)): Promise<Row[]> {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-bench-'));
  try {
    const first = await spawnService({ DATA_DIR: dataDir, SYNC_INTERVAL_MINUTES: '0' }, 120_000);
    await first.stop();
    const rows: Row[] = [{ start: 'first (creates the store)', ms: Math.round(first.answeredInMs) }];
    const times: number[] = [];
    for (let i = 0; i < runs; i += 1) {
      const service = await spawnService({ DATA_DIR: dataDir, SYNC_INTERVAL_MINUTES: '0' });
      times.push(service.answeredInMs);
      await service.stop();
      rows.push({ start: `existing data folder #${i + 1}`, ms: Math.round(service.answeredInMs) });
    }
    const sorted = [...times].sort((a, b) => a - b);
    rows.push({ start: `median (target < ${LIMIT_MS} ms)`, ms: Math.round(sorted[Math.floor(sorted.length / 2)] ?? 0) });
    return rows;
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const rows = await run();
  console.table(rows);
  process.exitCode = Number(rows.at(-1)?.ms) < LIMIT_MS ? 0 : 1;
}
