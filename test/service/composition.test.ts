import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../../codegen/pipeline.js';
import { composeService } from '../../src/composition.js';
import type { ServiceConfig } from '../../src/config.js';
import { Keyring } from '../../src/security/keyring.js';
import { openMemoryStore } from '../support/store.js';
import { testConfig } from '../support/config.js';

const config: ServiceConfig = testConfig();

function sources(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? sources(full) : full.endsWith('.ts') ? [full] : [];
  });
}

describe('the composition root (src/composition.ts)', () => {
  it('builds every part, starts the background work and closes everything in reverse, the store last', { timeout: 180_000 }, async () => {
    const store = await openMemoryStore();
    const service = composeService({ store, keyring: new Keyring(randomBytes(32)), config }, { ownStore: true });
    const { ctx } = service;
    expect(ctx.connectors).toBeDefined();
    expect(ctx.syncs).toBeDefined();
    expect(ctx.embeddings.provider.id).toEqual(expect.any(String));
    expect(ctx.syncs.scheduling).toBe(false);

    const order: string[] = [];
    service.adopt(async () => void order.push('app'));
    await service.startBackground();
    expect(ctx.syncs.scheduling).toBe(true);
    expect(ctx.observers).toHaveLength(1); // the semantic indexer
    service.adopt(async () => void order.push('adopted last'));

    await service.close();
    expect(order).toEqual(['adopted last', 'app']);
    expect(ctx.observers).toEqual([]);
    await expect(ctx.syncs.start({ connectorId: '00000000-0000-4000-8000-000000000000', trigger: 'cli' })).rejects.toMatchObject({ code: 'conflict' });
    await expect(store.db.selectFrom('connectors').select('id').execute()).rejects.toThrow();
    await expect(service.close()).resolves.toBeUndefined();
  });

  it('is the only place parts are kept: no module-level registry keyed by a service, no test back door', () => {
    const offenders = sources(path.join(REPO_ROOT, 'src')).filter((file) =>
      /new WeakMap<ServiceContext|forgetConnectorInstances|configureSyncService/.test(readFileSync(file, 'utf8')),
    );
    expect(offenders.map((file) => path.relative(REPO_ROOT, file))).toEqual([]);
    const starters = sources(path.join(REPO_ROOT, 'src')).filter(
      (file) =>
        /\b(startScheduling|startSemanticIndexing)\(/.test(readFileSync(file, 'utf8')) &&
        !/export function startSemanticIndexing|async startScheduling\(/.test(readFileSync(file, 'utf8')),
    );
    expect(starters.map((file) => path.relative(REPO_ROOT, file))).toEqual(['src/composition.ts']);
    expect(readFileSync(path.join(REPO_ROOT, 'src/routes/sync.ts'), 'utf8')).not.toContain("addHook('onClose'");
  });
});
