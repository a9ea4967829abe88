/**
 * The `switchyard` command: the library commands (`connectors`, `execute`, runtime/cli.ts) and
 * `switchyard admin ...`, which provisions the hosted service through the same settings as
 * `npm start` (DATA_DIR, DATABASE_URL, SWITCHYARD_MASTER_KEY; see README, "Provisioning").
 *
 * Nothing secret is ever printed, except the client secret of create-client, shown once.
 */
import { Command } from 'commander';
import { addLibraryCommands, runProgram } from '../runtime/cli.js';
import { AdminApiError, adminRequest, serviceUrl } from './admin-client.js';
import { addMcpCommand } from './mcp/cli.js';
import { ConfigError, loadConfig, type ServiceConfig } from './config.js';
import { addConnectCommand, ConnectCommandError } from './connect-cli.js';
import { entityOutcomeView } from './context/sync/outcome-view.js';
import type { Store } from './db/database.js';
import { StoreLockedError } from './db/store-lock.js';
import { ServiceRunningError, withNoServiceRunning } from './db/service-presence.js';
import { KeyringError } from './security/keyring.js';
import { KeyRotationError, rotateMasterKey } from './services/key-rotation.js';
import { createClient, createOrganization, findMissingOrganizations } from './services/organizations.js';
import { UUID_PATTERN } from './uuid.js';

/** An admin command that cannot do what was asked: its message is printed, exit code 1. */
class AdminError extends Error {}

/** Opens the store the service would use (the embedded one takes its lock), runs `work`, closes it. */
async function withStore<T>(work: (store: Store, config: ServiceConfig) => Promise<T>): Promise<T> {
  const config = loadConfig();
  // Loaded here, not at the top: the library commands do not need the database drivers.
  const { openStore, redactDatabaseUrl } = await import('./db/database.js');
  let store: Store;
  try {
    store = await openStore({ ...(config.databaseUrl !== undefined && { databaseUrl: config.databaseUrl }), dataDir: config.dataDir });
  } catch (error) {
    if (error instanceof StoreLockedError || config.databaseUrl === undefined) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new AdminError(`Cannot open the PostgreSQL store at ${redactDatabaseUrl(config.databaseUrl)}: ${reason}`);
  }
  try {
    return await work(store, config);
  } finally {
    await store.close();
  }
}

/**
 * Like withStore; when the embedded store is locked by the running service, does the same through
 * that service's admin API instead (provisioning without downtime).
 */
async function withStoreOrService<T>(local: (store: Store, config: ServiceConfig) => Promise<T>, remote: (config: ServiceConfig) => Promise<T>): Promise<T> {
  try {
    return await withStore(local);
  } catch (error) {
    if (!(error instanceof StoreLockedError)) throw error;
    const config = loadConfig();
    const result = await remote(config);
    console.error(`The embedded store is in use by the running service: done through its admin API at ${serviceUrl(config)}.`);
    return result;
  }
}

function print(json: boolean | undefined, value: Record<string, unknown>, lines: string[]): void {
  console.log(json ? JSON.stringify(value, null, 2) : lines.join('\n'));
}

function collect(value: string, previous: string[]): string[] {
  return [...previous, value];
}

const program = new Command()
  .name('switchyard')
  .description('Reach third-party APIs through Switchyard connectors (library mode), and provision the hosted service (admin).');
addLibraryCommands(program);
addConnectCommand(program);
addMcpCommand(program);

const admin = program
  .command('admin')
  .description(
    'Provision the hosted service: organizations, API clients, master key rotation. Uses the service settings DATA_DIR, DATABASE_URL and SWITCHYARD_MASTER_KEY.',
  );

admin
  .command('create-org')
  .description('Create an organization (with its "default" workspace) and print its id.')
  .requiredOption('--name <name>', 'organization name')
  .option('--json', 'print JSON: {organization_id, name}')
  .action(async (options: { name: string; json?: boolean }) => {
    const name = options.name.trim();
    if (name === '') throw new AdminError('--name must not be empty.');
    const organization = await withStoreOrService(
      (store) => createOrganization(store.db, name),
      (config) => adminRequest<{ organization_id: string; name: string }>(config, 'POST', '/organizations', { name }),
    );
    print(options.json, organization, [`Created organization "${organization.name}": ${organization.organization_id}`]);
  });

admin
  .command('create-client')
  .description('Create an API client in one or more organizations and print its client_id and client_secret (the secret is shown only now).')
  .option('--org <organization_id>', 'an organization the client belongs to (repeat for several)', collect, [])
  .option('--name <name>', 'a label for the client', 'api client')
  .option('--json', 'print JSON: {organization_id, organization_ids, client_id, client_secret}')
  .action(async (options: { org: string[]; name: string; json?: boolean }) => {
    const organizationIds = [...new Set(options.org.map((id) => id.trim().toLowerCase()))];
    if (organizationIds.length === 0) throw new AdminError('Give the organization with --org ORG_ID (repeat --org for a client in several organizations).');
    const name = options.name.trim();
    if (name === '') throw new AdminError('--name must not be empty.');
    const client = await withStoreOrService(
      async (store) => {
        const missing = await findMissingOrganizations(store.db, organizationIds);
        if (missing.length > 0) {
          throw new AdminError(`No organization ${missing.join(', ')} in this store. Create one with \`switchyard admin create-org --name NAME\`.`);
        }
        return createClient(store.db, organizationIds, name);
      },
      (config) =>
        adminRequest<{ client_id: string; client_secret: string; organization_ids: string[] }>(config, 'POST', '/clients', {
          organization_ids: organizationIds,
          name,
        }),
    );
    const result = {
      organization_id: client.organization_ids[0],
      organization_ids: client.organization_ids,
      client_id: client.client_id,
      client_secret: client.client_secret,
    };
    print(options.json, result, [
      `Created API client "${name}" in organization${organizationIds.length > 1 ? 's' : ''} ${organizationIds.join(', ')}.`,
      `client_id:     ${client.client_id}`,
      `client_secret: ${client.client_secret}`,
      'The secret is shown only now (Switchyard keeps a hash of it): store it safely.',
    ]);
  });

admin
  .command('rotate-key')
  .description(
    'Re-encrypt every stored credential under a new master key. With the key file, the new key is generated and replaces master.key; with SWITCHYARD_MASTER_KEY, give the new key in SWITCHYARD_NEW_MASTER_KEY. Stop the service first.',
  )
  .option('--json', 'print JSON: {rotated, key_id}')
  .action(async (options: { json?: boolean }) => {
    const newMasterKey = process.env.SWITCHYARD_NEW_MASTER_KEY || undefined;
    const result = await withStore(async (store, config) => {
      const rotate = () =>
        rotateMasterKey({
          db: store.db,
          dataDir: config.dataDir,
          ...(config.masterKey !== undefined && { masterKey: config.masterKey }),
          ...(newMasterKey !== undefined && { newMasterKey }),
        });
      if (store.kind !== 'postgres') return rotate();
      // A service running on the database would go on sealing new credentials with the old key, stranding them.
      try {
        return await withNoServiceRunning(store.db, rotate);
      } catch (error) {
        if (!(error instanceof ServiceRunningError)) throw error;
        throw new KeyRotationError(
          'A Switchyard service is running on this database (it holds the service lock): stop every service process first, then run rotate-key again. Nothing was changed.',
        );
      }
    });
    const lines = [
      ...(result.resumed ? ['An interrupted rotation was found (master.key.next): its pending key is the new key.'] : []),
      `Re-encrypted the credentials of ${result.rotated} connector${result.rotated === 1 ? '' : 's'} under master key ${result.key_id} (was ${result.previous_key_id}).`,
    ];
    print(options.json, { rotated: result.rotated, key_id: result.key_id }, lines);
    if (result.mode === 'env') {
      const instruction =
        'Set SWITCHYARD_MASTER_KEY to the value of SWITCHYARD_NEW_MASTER_KEY before the next start of the service (and unset SWITCHYARD_NEW_MASTER_KEY): the stored credentials now open only with the new key.';
      if (options.json) console.error(instruction);
      else console.log(instruction);
    }
  });

program
  .command('sync')
  .description(
    "Queue a sync of a connector's data into the context store now (every entity the sync reads, or --entity) and wait for it, showing records, pages and rate per entity on stderr. This process works the connector's queue too; with PostgreSQL a running service may take the job. Uses the service settings DATA_DIR, DATABASE_URL, SWITCHYARD_MASTER_KEY, UPSTREAM_BASE_URLS and SYNC_*; with the embedded store, stop the service first (or use POST /api/v1/integrations/connectors/{id}/sync).",
  )
  .argument('<connector_id>', 'the connector to sync')
  .option('--entity <entity>', 'sync only this entity')
  .option('--full', 'walk every page and sweep deleted records, even where an incremental sync (only the changes) is due')
  .option(
    '--json',
    'print JSON: {connector_id, entities: [{entity, status, mode?, records, changed, deleted, unconfirmed_deletions, pages, record_count, seconds, reason?}]}',
  )
  .action(async (connectorId: string, options: { entity?: string; full?: boolean; json?: boolean }) => {
    if (!UUID_PATTERN.test(connectorId)) throw new AdminError(`"${connectorId}" is not a connector id (a UUID).`);
    const { loadKeyring } = await import('./security/keyring.js');
    const { composeService } = await import('./composition.js');
    const { ProgressDisplay } = await import('./context/sync/progress.js');
    const { SwitchyardError } = await import('./errors.js');
    const outcomes = await withStore(async (store, config) => {
      const { keyring } = loadKeyring({ ...(config.masterKey !== undefined && { masterKey: config.masterKey }), dataDir: config.dataDir });
      const composed = composeService({ store, keyring, config });
      const display = new ProgressDisplay(process.stderr);
      const service = composed.ctx.syncs;
      const interrupt = () => void service.close();
      process.once('SIGINT', interrupt);
      process.once('SIGTERM', interrupt);
      try {
        // Queued like any sync: this process works the connector's queue too, and waits for the job (run here or by a service sharing the database).
        const started = await service.start({
          connectorId: connectorId.toLowerCase(),
          ...(options.entity !== undefined && { entity: options.entity }),
          full: options.full === true,
          trigger: 'cli',
        });
        const result = await started.wait((progress) => display.update(progress));
        display.finish();
        if (result === undefined) throw new AdminError(`Interrupted: the sync job ${started.job_id} stays on the queue and is retried by a running service.`);
        return result;
      } catch (error) {
        if (error instanceof SwitchyardError) throw new AdminError(error.message);
        throw error;
      } finally {
        process.removeListener('SIGINT', interrupt);
        process.removeListener('SIGTERM', interrupt);
        await composed.close();
      }
    });
    const entities = outcomes.map(entityOutcomeView);
    const lines = outcomes.map((o) =>
      o.status === 'ready'
        ? `${o.entity}: ready${o.mode === 'incremental' ? ' (incremental)' : ''}, ${o.recordCount} records in the store (${o.records} read in ${o.pages} pages, ${o.changed} new or changed, ${o.deleted} deleted${o.unconfirmed > 0 ? `, ${o.unconfirmed} not read: deleted if the next sync, a full walk, misses ${o.unconfirmed === 1 ? 'it' : 'them'} too` : ''})`
        : `${o.entity}: ${o.status}: ${o.reason ?? ''}`,
    );
    print(options.json, { connector_id: connectorId.toLowerCase(), entities }, lines);
    if (outcomes.some((o) => o.status !== 'ready')) process.exitCode = 1;
  });

await runProgram(program, {
  expected(error) {
    if (error instanceof ConfigError) return `Configuration error: ${error.message}`;
    if (
      error instanceof AdminError ||
      error instanceof AdminApiError ||
      error instanceof ConnectCommandError ||
      error instanceof StoreLockedError ||
      error instanceof KeyRotationError ||
      error instanceof KeyringError
    )
      return error.message;
    return undefined;
  },
});
