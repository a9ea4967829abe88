/**
 * Master key rotation (src/services/key-rotation.ts) on both stores: every connector's credentials
 * are re-encrypted under the new key in one transaction, the key file is replaced only after the
 * commit (the new key is on disk, 0600, before the first row changes), a row that does not open
 * aborts everything, an interrupted rotation is resumed, and SWITCHYARD_MASTER_KEY deployments get
 * the new key from SWITCHYARD_NEW_MASTER_KEY.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Kysely, KyselyPlugin, PluginTransformQueryArgs, PluginTransformResultArgs, QueryResult, RootOperationNode, UnknownRow } from 'kysely';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { holdServicePresence, ServiceRunningError, withNoServiceRunning } from '../../src/db/service-presence.js';
import { runCli } from '../support/spawn-service.js';
import { connectorModules } from '../../runtime/index.js';
import type { DatabaseSchema } from '../../src/db/schema.js';
import { decodeKey, Keyring, keyFilePath, keyIdOf, loadKeyring, pendingKeyFilePath, writeKeyFile } from '../../src/security/keyring.js';
import { openCredentials, sealCredentials } from '../../src/services/credentials.js';
import { KeyRotationError, reencryptCredentials, rotateMasterKey } from '../../src/services/key-rotation.js';
import { createOrganization } from '../../src/services/organizations.js';
import { startTestService, storeKinds, type TestService } from '../support/service.js';

const HARVEST_DEFINITION = connectorModules.harvest?.definition.definitionId as string;

async function insertConnector(db: Kysely<DatabaseSchema>, keyring: Keyring, organizationId: string, credentials: Record<string, string>): Promise<string> {
  const workspace = await db
    .selectFrom('workspaces')
    .select('id')
    .where('organization_id', '=', organizationId)
    .where('name', '=', 'default')
    .executeTakeFirstOrThrow();
  const id = randomUUID();
  await db
    .insertInto('connectors')
    .values({
      id,
      organization_id: organizationId,
      workspace_id: workspace.id,
      connector_type: 'harvest',
      definition_id: HARVEST_DEFINITION,
      name: `harvest ${id.slice(0, 8)}`,
      auth_option: 'Personal Access Token',
      config: '{}',
      replication_config: '{}',
      ...sealCredentials(keyring, id, credentials),
    })
    .execute();
  return id;
}

async function sealedRows(db: Kysely<DatabaseSchema>) {
  return db
    .selectFrom('connectors')
    .select(['id', 'credentials_key_id', 'credentials_iv', 'credentials_ciphertext', 'credentials_tag'])
    .orderBy('id')
    .execute();
}

function readKey(file: string): Buffer {
  return decodeKey(readFileSync(file, 'utf8'), file);
}

/** Calls `onFirstUpdate` when the first UPDATE statement is sent: the moment the database starts to change. */
function observeFirstUpdate(onFirstUpdate: () => void): KyselyPlugin {
  let seen = false;
  return {
    transformQuery(args: PluginTransformQueryArgs): RootOperationNode {
      if (!seen && args.node.kind === 'UpdateQueryNode') {
        seen = true;
        onFirstUpdate();
      }
      return args.node;
    },
    async transformResult(args: PluginTransformResultArgs): Promise<QueryResult<UnknownRow>> {
      return args.result;
    },
  };
}

describe.each(storeKinds())('master key rotation (%s)', (kind) => {
  let service: TestService;
  let db: Kysely<DatabaseSchema>;
  let organizationId: string;
  let dataDir: string;
  beforeAll(async () => {
    service = await startTestService(kind);
    db = service.store.db;
    organizationId = (await createOrganization(db, 'Rotation')).organization_id;
  });
  afterAll(async () => service.close());
  beforeEach(async () => {
    // Rotation covers every row of the table: each case starts from an empty one.
    await db.deleteFrom('connectors').execute();
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-rotate-'));
  });
  afterEach(() => rmSync(dataDir, { recursive: true, force: true }));

  it('key file mode: re-encrypts every row under a new key written before the database changes, then replaces master.key', async () => {
    const { keyring: before } = loadKeyring({ dataDir });
    const oldKey = readKey(keyFilePath(dataDir));
    const credentials = [
      { api_token: `pat-${randomUUID()}`, account_id: '111' },
      { api_token: `pat-${randomUUID()}`, account_id: '222' },
      { api_token: `pat-${randomUUID()}`, account_id: '333' },
    ];
    const ids = [];
    for (const c of credentials) ids.push(await insertConnector(db, before, organizationId, c));
    const rowsBefore = await sealedRows(db);

    let pendingAtFirstUpdate: { exists: boolean; mode?: number; masterKeyUnchanged?: boolean } | undefined;
    const observed = db.withPlugin(
      observeFirstUpdate(() => {
        const pending = pendingKeyFilePath(dataDir);
        pendingAtFirstUpdate = existsSync(pending)
          ? { exists: true, mode: statSync(pending).mode & 0o777, masterKeyUnchanged: readKey(keyFilePath(dataDir)).equals(oldKey) }
          : { exists: false };
      }),
    );
    const result = await rotateMasterKey({ db: observed, dataDir });

    expect(pendingAtFirstUpdate).toEqual({ exists: true, mode: 0o600, masterKeyUnchanged: true });
    const newKey = readKey(keyFilePath(dataDir));
    expect(newKey.equals(oldKey)).toBe(false);
    expect(statSync(keyFilePath(dataDir)).mode & 0o777).toBe(0o600);
    expect(existsSync(pendingKeyFilePath(dataDir))).toBe(false);
    expect(result).toEqual({ rotated: 3, key_id: keyIdOf(newKey), previous_key_id: keyIdOf(oldKey), mode: 'file', resumed: false });

    const rowsAfter = await sealedRows(db);
    const { keyring: after } = loadKeyring({ dataDir });
    expect(after.currentKeyId).toBe(keyIdOf(newKey));
    const onlyOld = new Keyring(oldKey);
    for (const row of rowsAfter) {
      const previous = rowsBefore.find((r) => r.id === row.id);
      expect(row.credentials_key_id).toBe(keyIdOf(newKey));
      expect(row.credentials_key_id).not.toBe(previous?.credentials_key_id);
      expect(row.credentials_ciphertext).not.toBe(previous?.credentials_ciphertext);
      expect(row.credentials_iv).not.toBe(previous?.credentials_iv);
      expect(openCredentials(after, row.id, row)).toEqual(credentials[ids.indexOf(row.id)]);
      // The old key alone opens nothing any more.
      expect(() => openCredentials(onlyOld, row.id, row)).toThrow(/No master key with id/);
    }
  });

  it('a row that does not open aborts the rotation: no row, key file or pending key changes', async () => {
    const { keyring } = loadKeyring({ dataDir });
    const oldKey = readKey(keyFilePath(dataDir));
    await insertConnector(db, keyring, organizationId, { api_token: 'pat-a', account_id: '1' });
    const foreign = await insertConnector(db, new Keyring(randomBytes(32)), organizationId, { api_token: 'pat-b', account_id: '2' });
    const rowsBefore = await sealedRows(db);

    const failure = rotateMasterKey({ db, dataDir });
    await expect(failure).rejects.toBeInstanceOf(KeyRotationError);
    await expect(failure).rejects.toThrow(new RegExp(`connector ${foreign} .*do not open.*Nothing was changed`));
    expect(await sealedRows(db)).toEqual(rowsBefore);
    expect(readKey(keyFilePath(dataDir)).equals(oldKey)).toBe(true);
    expect(existsSync(pendingKeyFilePath(dataDir))).toBe(false);
  });

  it('resumes an interrupted rotation with its pending key (rows sealed under either key)', async () => {
    const { keyring } = loadKeyring({ dataDir });
    const pendingKey = randomBytes(32);
    writeKeyFile(pendingKeyFilePath(dataDir), pendingKey);
    const a = await insertConnector(db, keyring, organizationId, { api_token: 'pat-old', account_id: '1' });
    const b = await insertConnector(db, keyring.withCurrent(pendingKey), organizationId, { api_token: 'pat-new', account_id: '2' });

    const result = await rotateMasterKey({ db, dataDir });
    expect(result).toMatchObject({ rotated: 2, key_id: keyIdOf(pendingKey), mode: 'file', resumed: true });
    expect(readKey(keyFilePath(dataDir)).equals(pendingKey)).toBe(true);
    expect(existsSync(pendingKeyFilePath(dataDir))).toBe(false);
    const only = new Keyring(pendingKey);
    const rows = await sealedRows(db);
    expect(rows.every((row) => row.credentials_key_id === keyIdOf(pendingKey))).toBe(true);
    expect(openCredentials(only, a, rows.find((r) => r.id === a) as (typeof rows)[number])).toEqual({ api_token: 'pat-old', account_id: '1' });
    expect(openCredentials(only, b, rows.find((r) => r.id === b) as (typeof rows)[number])).toEqual({ api_token: 'pat-new', account_id: '2' });
  });

  it('environment mode: takes the new key from SWITCHYARD_NEW_MASTER_KEY and writes no key file', async () => {
    const current = randomBytes(32);
    const next = randomBytes(32);
    const masterKey = current.toString('base64');
    const id = await insertConnector(db, new Keyring(current), organizationId, { api_token: 'pat-env', account_id: '9' });

    await expect(rotateMasterKey({ db, dataDir, masterKey })).rejects.toThrow(/put the new key .* in SWITCHYARD_NEW_MASTER_KEY/);
    await expect(rotateMasterKey({ db, dataDir, masterKey, newMasterKey: masterKey })).rejects.toThrow(
      'SWITCHYARD_NEW_MASTER_KEY holds the current master key',
    );
    await expect(rotateMasterKey({ db, dataDir, masterKey, newMasterKey: 'short' })).rejects.toThrow('SWITCHYARD_NEW_MASTER_KEY must hold a 32-byte key');
    expect((await sealedRows(db))[0]?.credentials_key_id).toBe(keyIdOf(current));

    const result = await rotateMasterKey({ db, dataDir, masterKey, newMasterKey: next.toString('hex') });
    expect(result).toEqual({ rotated: 1, key_id: keyIdOf(next), previous_key_id: keyIdOf(current), mode: 'env', resumed: false });
    const [row] = await sealedRows(db);
    expect(row?.credentials_key_id).toBe(keyIdOf(next));
    expect(openCredentials(new Keyring(next), id, row as NonNullable<typeof row>)).toEqual({ api_token: 'pat-env', account_id: '9' });
    expect(existsSync(keyFilePath(dataDir))).toBe(false);
    expect(existsSync(pendingKeyFilePath(dataDir))).toBe(false);
  });

  it('key file mode refuses SWITCHYARD_NEW_MASTER_KEY instead of ignoring it', async () => {
    await expect(rotateMasterKey({ db, dataDir, newMasterKey: randomBytes(32).toString('base64') })).rejects.toThrow(
      /SWITCHYARD_NEW_MASTER_KEY is only used when the master key comes from SWITCHYARD_MASTER_KEY/,
    );
    expect(existsSync(pendingKeyFilePath(dataDir))).toBe(false);
  });

  it.runIf(kind === 'postgres')('is refused by the CLI while a service holds the service lock of the database, and allowed once it stops', async () => {
    const env = { DATABASE_URL: service.databaseUrl as string, DATA_DIR: dataDir, SWITCHYARD_MASTER_KEY: randomBytes(32).toString('base64') };
    const presence = await holdServicePresence(service.databaseUrl as string, () => undefined);
    try {
      await expect(withNoServiceRunning(db, async () => 'rotated')).rejects.toBeInstanceOf(ServiceRunningError);
      const refused = runCli(['admin', 'rotate-key'], { ...env, SWITCHYARD_NEW_MASTER_KEY: randomBytes(32).toString('base64') });
      expect(refused.status).toBe(1);
      expect(refused.stderr.trim()).toBe(
        'A Switchyard service is running on this database (it holds the service lock): stop every service process first, then run rotate-key again. Nothing was changed.',
      );
    } finally {
      await presence.release();
    }
    // With no service, the work runs holding the lock, and a service that starts meanwhile waits for it to end.
    let started = false;
    const rotation = withNoServiceRunning(db, async () => {
      const starting = holdServicePresence(service.databaseUrl as string, () => undefined).then((held) => {
        started = true;
        return held;
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      expect(started).toBe(false);
      return { starting };
    });
    const held = await (await rotation).starting;
    expect(started).toBe(true);
    await held.release();
  });

  it('reencryptCredentials with no connectors rotates nothing and succeeds', async () => {
    const keyring = new Keyring(randomBytes(32));
    expect(await reencryptCredentials(db, keyring, keyring.withCurrent(randomBytes(32)))).toBe(0);
  });
});
