/**
 * Embedded stores for the suites, started from the migrated template the global setup builds once
 * (test/support/global-setup.ts) instead of PGlite's initdb and every migration per store: in memory, or
 * written into a data folder before a service or CLI process opens it. openStore still runs the
 * migrations on it (none is pending), as on any start.
 *
 * A suite about creating the store itself (the first start of npm start) starts from an empty folder.
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { inject } from 'vitest';
import { openStore, type Store } from '../../src/db/database.js';

let template: Promise<Blob> | undefined;

/** The template file, once the global setup's builder has written it (it is built beside the first suites). */
async function templateFile(): Promise<string> {
  const file = inject('storeTemplateFile');
  const deadline = Date.now() + 180_000;
  while (!existsSync(file)) {
    if (existsSync(`${file}.failed`)) throw new Error(`The store template could not be built:\n${readFileSync(`${file}.failed`, 'utf8')}`);
    if (Date.now() > deadline) throw new Error(`The store template ${file} did not appear within 180 s.`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return file;
}

/** The template archive, read once per test file. */
export function storeTemplate(): Promise<Blob> {
  template ??= templateFile().then((file) => new Blob([readFileSync(file)]));
  return template;
}

/** A new, empty, migrated embedded store in memory. */
export async function openMemoryStore(): Promise<Store> {
  return openStore({ dataDir: 'memory://', template: await storeTemplate() });
}

/**
 * Writes the template as the embedded store of DATA_DIR `dataDir` (`dataDir/pglite`, where openStore keeps
 * it), as openStore leaves a new folder: migrated and empty. The service's first start on it still seals
 * the key check and writes the key files, as on an empty folder.
 */
export async function seedDataDir(dataDir: string): Promise<void> {
  const file = await templateFile();
  const location = path.join(dataDir, 'pglite');
  if (existsSync(location)) throw new Error(`${location} already exists: seed an empty data folder.`);
  mkdirSync(location, { recursive: true });
  // The archive is a tar of the database folder (PGlite's dumpDataDir), its entries named from its root.
  const untar = spawnSync('tar', ['-xf', file, '-C', location], { encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(`tar could not unpack the store template: ${untar.error?.message ?? untar.stderr}`);
}
