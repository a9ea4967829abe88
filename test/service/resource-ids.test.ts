/**
 * Ids of stored resources are UUIDs version 7, increasing within the process: lists ordered by `created_at`
 * then `id` keep the creation order of resources created in the same millisecond (PGlite's clock resolution).
 */
import { randomBytes } from 'node:crypto';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Store } from '../../src/db/database.js';
import { Keyring } from '../../src/security/keyring.js';
import { newResourceId } from '../../src/services/ids.js';
import { createOrganization } from '../../src/services/organizations.js';
import { ensureWorkspace, listWorkspaces } from '../../src/services/workspaces.js';
import { openMemoryStore } from '../support/store.js';

describe('ids of stored resources', () => {
  let store: Store;

  beforeAll(async () => {
    store = await openMemoryStore();
  });

  afterAll(async () => {
    await store.close();
  });

  it('are UUIDs version 7, each greater than the one before', () => {
    const ids = Array.from({ length: 5000 }, () => newResourceId());
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    for (let i = 1; i < ids.length; i += 1) expect((ids[i] as string) > (ids[i - 1] as string)).toBe(true);
  });

  it('list workspaces created in the same millisecond in the order they were created', async () => {
    const { organization_id: organizationId } = await createOrganization(store.db, 'Acme');
    const names = Array.from({ length: 12 }, (_, i) => `team-${String.fromCharCode(108 - i)}`);
    for (const name of names) await ensureWorkspace(store.db, organizationId, name);
    await sql`UPDATE workspaces SET created_at = '2026-01-01T00:00:00Z' WHERE organization_id = ${organizationId}`.execute(store.db);
    const listed = await listWorkspaces(store.db, organizationId, { limit: 100, cursorKey: new Keyring(randomBytes(32)).derive('cursor') });
    expect(listed.data.map((workspace) => workspace.name)).toEqual(['default', ...names]);
  });
});
