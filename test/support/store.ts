/**
 * Embedded stores for the suites: a `memory://` PGlite store started from the migrated template the global
 * setup builds once (test/support/global-setup.ts), instead of PGlite's initdb and every migration per store.
 * openStore still runs the migrations on it (none is pending), as on any start.
 */
import { readFileSync } from 'node:fs';
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
