/**
 * A store written before the catalog took Airbyte's definition ids: connectors stored under the old ids
 * come back under the new ones after the upgrade's migration, and keep executing.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import { vector } from '@electric-sql/pglite-pgvector';
import { Kysely, PostgresDialect } from 'kysely';
import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import { buildApp } from '../../src/app.js';
import { composeService } from '../../src/composition.js';
import type { ServiceConfig } from '../../src/config.js';
import { StoreChanges } from '../../src/db/changes.js';
import type { Store } from '../../src/db/database.js';
import { migrate } from '../../src/db/migrate.js';
import { migrationLine } from '../../src/server.js';
import { DEFINITION_ID_CHANGES, migrations } from '../../src/db/migrations.js';
import { PGlitePool } from '../../src/db/pglite-pool.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { Keyring } from '../../src/security/keyring.js';
import { sealCredentials } from '../../src/services/credentials.js';
import { createClient, createOrganization } from '../../src/services/organizations.js';
import { ensureWorkspace } from '../../src/services/workspaces.js';
import { ApiClient } from '../support/service.js';
import { testConfig } from '../support/config.js';

const PAT = 'harvest-pat-before-upgrade-0001';
const CONNECTORS = '/api/v1/integrations/connectors';

interface ListBody {
  data: Array<{ id: string; connector_type: string; definition_id: string; summarized_source_template: { actor_definition_id: string } }>;
}

describe('stored connectors across the change to Airbyte definition ids', { timeout: 60_000 }, () => {
  let store: Store;
  let close: () => Promise<void>;
  let api: ApiClient;
  const stored = new Map<string, string>(); // connector_type -> connector id
  const oldIdOf = new Map<string, string>(); // connector_type -> old definition id
  let appliedOnUpgrade: number[] = [];
  const progress: string[] = [];
  let dataDir: string;

  beforeAll(async () => {
    const pglite = await PGlite.create('memory://', { extensions: { vector, pg_trgm } });
    const db = new Kysely<DatabaseSchema>({ dialect: new PostgresDialect({ pool: new PGlitePool(pglite) }) });
    store = {
      db,
      kind: 'pglite',
      location: 'memory://',
      changes: StoreChanges.local(),
      poolState: () => ({ total: 1, idle: 1, waiting: 0 }),
      close: () => db.destroy(),
    };
    const keyring = new Keyring(randomBytes(32));

    // The store as the previous release left it: migrations 1 to 4, connectors under the old ids.
    await migrate(
      db,
      migrations.filter((m) => m.version <= 4),
    );
    const { organization_id } = await createOrganization(db, 'Before the upgrade');
    const workspace = await ensureWorkspace(db, organization_id, 'default');
    const newIds = new Map(DEFINITION_ID_CHANGES.map(([from, to]) => [to, from]));
    for (const module of Object.values(connectorModules)) {
      const { connectorType, definitionId } = module.definition;
      const oldId = newIds.get(definitionId);
      if (oldId === undefined) throw new Error(`no old id recorded for ${connectorType}`);
      oldIdOf.set(connectorType, oldId);
      const id = randomUUID();
      stored.set(connectorType, id);
      const harvest = connectorType === 'harvest';
      await db
        .insertInto('connectors')
        .values({
          id,
          organization_id,
          workspace_id: workspace.id,
          connector_type: connectorType,
          definition_id: oldId,
          name: `${connectorType} from before`,
          auth_option: harvest ? 'Personal Access Token' : (module.definition.auth[0]?.optionTitle ?? ''),
          config: '{}',
          replication_config: '{}',
          ...sealCredentials(keyring, id, harvest ? { api_token: PAT, account_id: '123456' } : { placeholder: 'x' }),
        })
        .execute();
    }

    // The upgrade: opening the store runs the pending migrations.
    appliedOnUpgrade = await migrate(db, migrations, (step) => progress.push(migrationLine(step)));
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-migration-'));
    const config: ServiceConfig = testConfig({ dataDir });
    const service = composeService({ store, keyring, config }, { ownStore: true });
    const app = buildApp(service.ctx);
    service.adopt(() => app.close());
    const url = await app.listen({ host: '127.0.0.1', port: 0 });
    nock.enableNetConnect('127.0.0.1');
    close = () => service.close();
    // A client of the organization that owned the connectors before the upgrade.
    const { client_id, client_secret } = await createClient(db, [organization_id]);
    api = new ApiClient(url);
    const token = await api.post<{ access_token: string }>('/api/v1/account/applications/token', { client_id, client_secret });
    api.token = token.body.access_token;
  });

  afterAll(async () => {
    nock.cleanAll();
    await close?.();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('the upgrade applies the id migration once, with the migrations after it', async () => {
    expect(appliedOnUpgrade).toEqual(migrations.filter((m) => m.version >= 5).map((m) => m.version));
    expect(await migrate(store.db)).toEqual([]);
    // What `npm start` prints meanwhile: each migration as it begins and ends.
    expect(progress.map((line) => line.replace(/ in \d+\.\d s\.$/, ' in N s.'))).toEqual(
      migrations
        .filter((m) => m.version >= 5)
        .flatMap((m) => [`Applying store migration ${m.version} (${m.name})…`, `Applied store migration ${m.version} (${m.name}) in N s.`]),
    );
  });

  it('every kind had an old id that differs from its new one, and no new id equals an old one', () => {
    expect(DEFINITION_ID_CHANGES).toHaveLength(Object.keys(connectorModules).length);
    const oldIds = new Set(DEFINITION_ID_CHANGES.map(([from]) => from));
    for (const [, to] of DEFINITION_ID_CHANGES) expect(oldIds.has(to)).toBe(false);
  });

  it('lists every stored connector under the new definition id of its kind', async () => {
    const list = await api.get<ListBody>(CONNECTORS);
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(stored.size);
    for (const item of list.body.data) {
      const definitionId = connectorModules[item.connector_type]?.definition.definitionId;
      expect(item.id).toBe(stored.get(item.connector_type));
      expect(item.definition_id).toBe(definitionId);
      expect(item.summarized_source_template.actor_definition_id).toBe(definitionId);
    }
  });

  it('filters by the new id, and the old id names nothing any more', async () => {
    const jira = connectorModules.jira?.definition.definitionId as string;
    const byNew = await api.get<ListBody>(`${CONNECTORS}?definition_id=${jira}`);
    expect(byNew.body.data.map((c) => c.id)).toEqual([stored.get('jira')]);
    const byOld = await api.get<ListBody>(`${CONNECTORS}?definition_id=${oldIdOf.get('jira')}`);
    expect(byOld.body.data).toEqual([]);
  });

  it('a connector stored before the upgrade still executes with its stored credentials', async () => {
    const scope = nock('https://api.harvestapp.com')
      .matchHeader('authorization', `Bearer ${PAT}`)
      .matchHeader('harvest-account-id', '123456')
      .get('/v2/users')
      .reply(200, { users: [{ id: 1, first_name: 'Ana' }], links: { next: null } });
    const response = await api.post<{ result: unknown }>(`${CONNECTORS}/${stored.get('harvest')}/execute`, { entity: 'users', action: 'list' });
    expect(response.status).toBe(200);
    expect(response.body.result).toEqual([{ id: 1, first_name: 'Ana' }]);
    scope.done();
  });
});
