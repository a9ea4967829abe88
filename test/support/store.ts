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

let template: Blob | undefined;

/** The template archive, read once per test file. */
export function storeTemplate(): Blob {
  template ??= new Blob([readFileSync(inject('storeTemplateFile'))]);
  return template;
}

/** A new, empty, migrated embedded store in memory. */
export function openMemoryStore(): Promise<Store> {
  return openStore({ dataDir: 'memory://', template: storeTemplate() });
}

/**
 * Writes the template as the embedded store of DATA_DIR `dataDir` (`dataDir/pglite`, where openStore keeps
 * it), as openStore leaves a new folder: migrated and empty. The service's first start on it still seals
 * the key check and writes the key files, as on an empty folder.
 */
export function seedDataDir(dataDir: string): void {
  const location = path.join(dataDir, 'pglite');
  if (existsSync(location)) throw new Error(`${location} already exists: seed an empty data folder.`);
  mkdirSync(location, { recursive: true });
  // The archive is a tar of the database folder (PGlite's dumpDataDir), its entries named from its root.
  const untar = spawnSync('tar', ['-xf', inject('storeTemplateFile'), '-C', location], { encoding: 'utf8' });
  if (untar.status !== 0) throw new Error(`tar could not unpack the store template: ${untar.error?.message ?? untar.stderr}`);
}
