/**
 * `node --import tsx test/support/build-store-template.ts FILE`: writes migratedStoreTemplate() to FILE
 * (through FILE.part, renamed when complete), or the reason it failed to FILE.failed. The global setup runs
 * it beside the suites, which wait for the file when they first need a store (test/support/store.ts).
 */
import { renameSync, writeFileSync } from 'node:fs';
import { migratedStoreTemplate } from '../../src/db/database.js';

const file = process.argv[2];
if (file === undefined) throw new Error('usage: build-store-template.ts FILE');
try {
  const template = await migratedStoreTemplate();
  writeFileSync(`${file}.part`, new Uint8Array(await template.arrayBuffer()));
  renameSync(`${file}.part`, file);
} catch (error) {
  writeFileSync(`${file}.failed`, error instanceof Error ? (error.stack ?? error.message) : String(error));
  process.exitCode = 1;
}
