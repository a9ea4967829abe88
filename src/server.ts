import { rmSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { composeService } from './composition.js';
import type { ServiceConfig } from './config.js';
import { openStore, redactDatabaseUrl, type Store } from './db/database.js';
import type { MigrationProgress } from './db/migrate.js';
import { holdServicePresence, type ServicePresence } from './db/service-presence.js';
import { isStoreUnavailable } from './db/store-errors.js';
import { verifyKeyCheck } from './security/key-check.js';
import { KeyringError, loadKeyring } from './security/keyring.js';
import { loadOperatorToken } from './security/operator-token.js';
import { openStartingPort, type StartingPort } from './starting-port.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/** The store could not be reached within STORE_WAIT_SECONDS: main.ts prints the message as one line. */
export class StoreUnreachableError extends Error {}

/** One line per step of an upgrade's migrations at start (the port answers 503 starting until they are applied). */
export function migrationLine(step: MigrationProgress): string {
  if (step.event === 'waiting') return 'Waiting for another Switchyard process to finish migrating the store.';
  if (step.event === 'applying') return `Applying store migration ${step.version} (${step.name})…`;
  return `Applied store migration ${step.version} (${step.name}) in ${(step.ms / 1000).toFixed(1)} s.`;
}

/**
 * Opens the store; a PostgreSQL that is still coming up (refusing connections, starting, recovering)
 * is retried every 2 s for up to STORE_WAIT_SECONDS, with one line saying so on stderr.
 */
async function openStoreWhenReachable(config: ServiceConfig, starting: StartingPort): Promise<Store> {
  const deadline = Date.now() + (config.storeWaitSeconds ?? 30) * 1000;
  let told = false;
  for (;;) {
    try {
      return await openStore({
        ...(config.databaseUrl !== undefined && { databaseUrl: config.databaseUrl }),
        dataDir: config.dataDir,
        // A new store's schema is created quietly; an upgrade's migrations may take minutes and are told.
        onMigration: (step) => {
          if (step.event === 'waiting') starting.step('waiting for another process to finish migrating the store');
          if (step.event === 'applying') starting.step(`applying store migration ${step.version}`);
          if (step.event === 'waiting' || step.upgrade) process.stderr.write(`${migrationLine(step)}\n`);
        },
      });
    } catch (error) {
      if (config.databaseUrl === undefined || !isStoreUnavailable(error)) throw error;
      const where = redactDatabaseUrl(config.databaseUrl);
      const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      if (Date.now() >= deadline) {
        throw new StoreUnreachableError(
          `Cannot reach the PostgreSQL store at ${where} (${reason}) within ${config.storeWaitSeconds ?? 30} s (STORE_WAIT_SECONDS).`,
        );
      }
      starting.step('waiting for the store to accept connections');
      if (!told) {
        process.stderr.write(`Waiting for the PostgreSQL store at ${where} (${reason}); retrying every 2 s for up to ${config.storeWaitSeconds ?? 30} s.\n`);
        told = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

/**
 * What `npm start` runs, in order: keyring, store, the service's parts (src/composition.ts), the HTTP app,
 * then the background work (periodic syncs, semantic indexing). close() undoes them in reverse.
 */
export async function startService(settings: ServiceConfig, options: { quiet?: boolean } = {}): Promise<RunningService> {
  // The port answers from the first moment (src/starting-port.ts): a probe sees the process up while the store
  // opens and migrates, and the service takes the port over once it is ready.
  const starting = await openStartingPort(settings.host, settings.port, { corsOrigins: settings.corsOrigins });
  try {
    return await startBehind(starting, settings, options);
  } catch (error) {
    await starting.close();
    throw error;
  }
}

async function startBehind(starting: StartingPort, settings: ServiceConfig, options: { quiet?: boolean }): Promise<RunningService> {
  const { keyring, source } = loadKeyring({ ...(settings.masterKey !== undefined && { masterKey: settings.masterKey }), dataDir: settings.dataDir });
  const operator = loadOperatorToken({ ...(settings.operatorToken !== undefined && { operatorToken: settings.operatorToken }), dataDir: settings.dataDir });
  const config: ServiceConfig = { ...settings, operatorToken: operator.token };
  // The HTTP app (Fastify, the routes, the connector catalog) loads while the store opens: each takes about a second.
  const appModule = import('./app.js');
  appModule.catch(() => undefined); // a store that fails to open is the error to report
  starting.step('opening the store');
  const store = await openStoreWhenReachable(config, starting);
  starting.step('checking the master key');
  // On PostgreSQL, the lock that tells `switchyard admin rotate-key` a service runs on the database, taken before the
  // key check: a rotation under way holds it, so the start waits and then opens the rotated check.
  let presence: ServicePresence | undefined;
  // A plain line until the service's JSON log exists, then a line of that log (where a log shipper looks).
  let reportLostLock = (error: Error): void => {
    process.stderr.write(`Lost the connection that holds the service lock (${error.message}); taking it again.\n`);
  };
  try {
    if (config.databaseUrl !== undefined) {
      presence = await holdServicePresence(config.databaseUrl, (error) => reportLostLock(error));
    }
    await verifyKeyCheck(store.db, keyring);
  } catch (error) {
    await presence?.release();
    await store.close();
    // A key file made by this start for a store that has another key is no key of anything: it would only be
    // read again by the next start in place of the right one.
    if (error instanceof KeyringError && source.endsWith(' (created)')) rmSync(source.slice(0, -' (created)'.length), { force: true });
    throw error;
  }
  starting.step('loading the service');
  const { buildApp, loggerOptions } = await appModule.catch(async (error: unknown) => {
    await presence?.release();
    await store.close();
    throw error;
  });
  const service = composeService(
    { store, keyring, config },
    { ownStore: true, log: pino(options.quiet ? { level: 'silent' } : loggerOptions(config.logLevel)) },
  );
  if (presence !== undefined) {
    const held = presence;
    service.adopt(() => held.release());
    const { log } = service.ctx;
    reportLostLock = (error) => log.warn({ reason: error.message }, 'Lost the connection that holds the service lock; taking it again');
  }
  let app: FastifyInstance;
  let url: string;
  try {
    app = buildApp(service.ctx);
    const built = app;
    service.adopt(() => built.close());
    // Plugins and routes load before the port changes hands, so it answers throughout.
    await app.ready();
    await starting.close();
    url = await app.listen({ host: config.host, port: starting.port });
  } catch (error) {
    await service.close();
    throw error;
  }
  const storeText = store.kind === 'pglite' ? `the embedded PGlite store in ${store.location}` : `the PostgreSQL store at ${store.location}`;
  app.log.info(
    { store: store.kind, location: store.location, masterKey: source, startupMs: Math.round(performance.now()) },
    `Switchyard listening on ${url} with ${storeText}`,
  );
  if (operator.created) {
    // Printed once, outside the JSON log (credentials never reach a log line); the file keeps it.
    process.stderr.write(`Created the operator credential of the admin API (/api/v1/admin) in ${operator.source} (mode 0600): ${operator.token}\n`);
  }
  // The sync queue's workers and due checks (syncs at creation of a connector, then every SYNC_INTERVAL_MINUTES), then semantic indexing.
  await service.startBackground();
  return { app, store, url, close: () => service.close() };
}
