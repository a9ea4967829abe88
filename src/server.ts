import type { FastifyInstance } from 'fastify';
import type { ServiceConfig } from './config.js';
import { openStore, redactDatabaseUrl, type Store } from './db/database.js';
import { isStoreUnavailable } from './db/store-errors.js';
import { verifyKeyCheck } from './security/key-check.js';
import { loadKeyring } from './security/keyring.js';
import { loadOperatorToken } from './security/operator-token.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/** The store could not be reached within STORE_WAIT_SECONDS: main.ts prints the message as one line. */
export class StoreUnreachableError extends Error {}

/**
 * Opens the store; a PostgreSQL that is still coming up (refusing connections, starting, recovering)
 * is retried every 2 s for up to STORE_WAIT_SECONDS, with one line saying so on stderr.
 */
async function openStoreWhenReachable(config: ServiceConfig): Promise<Store> {
  const deadline = Date.now() + (config.storeWaitSeconds ?? 30) * 1000;
  let told = false;
  for (;;) {
    try {
      return await openStore({ ...(config.databaseUrl !== undefined && { databaseUrl: config.databaseUrl }), dataDir: config.dataDir });
    } catch (error) {
      if (config.databaseUrl === undefined || !isStoreUnavailable(error)) throw error;
      const where = redactDatabaseUrl(config.databaseUrl);
      const reason = (error as NodeJS.ErrnoException).code ?? (error instanceof Error ? error.message : String(error));
      if (Date.now() >= deadline) {
        throw new StoreUnreachableError(`Cannot reach the PostgreSQL store at ${where} (${reason}) within ${config.storeWaitSeconds ?? 30} s (STORE_WAIT_SECONDS).`);
      }
      if (!told) {
        process.stderr.write(`Waiting for the PostgreSQL store at ${where} (${reason}); retrying every 2 s for up to ${config.storeWaitSeconds ?? 30} s.\n`);
        told = true;
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  }
}

/** Loads the keyring, opens the store, builds the app and listens: what `npm start` runs. */
export async function startService(settings: ServiceConfig, options: { quiet?: boolean } = {}): Promise<RunningService> {
  const { keyring, source } = loadKeyring({ ...(settings.masterKey !== undefined && { masterKey: settings.masterKey }), dataDir: settings.dataDir });
  const operator = loadOperatorToken({ ...(settings.operatorToken !== undefined && { operatorToken: settings.operatorToken }), dataDir: settings.dataDir });
  const config: ServiceConfig = { ...settings, operatorToken: operator.token };
  // The HTTP app (Fastify, the routes, the connector catalog) loads while the store opens: each takes about a second.
  const appModule = import('./app.js');
  appModule.catch(() => undefined); // a store that fails to open is the error to report
  const store = await openStoreWhenReachable(config);
  let app: FastifyInstance | undefined;
  let url: string;
  try {
    await verifyKeyCheck(store.db, keyring);
    const { buildApp, loggerOptions } = await appModule;
    app = buildApp({ store, keyring, config }, { logger: options.quiet ? false : loggerOptions(config.logLevel) });
    url = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await app?.close();
    await store.close();
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
  const running = app;
  // Context store syncs: at creation of a connector, then every sync interval (SYNC_INTERVAL_MINUTES).
  // Imported here: the app has already loaded what it needs (the runtime), so start-up does not wait for it.
  const { startSyncScheduler } = await import('./context/sync/scheduler.js');
  const scheduler = startSyncScheduler(running.ctx, running.log);
  // Semantic index: embeds what the syncs write, and catches up at start-up (new records, another provider).
  const { startSemanticIndexing } = await import('./context/semantic/indexer.js');
  const semantic = startSemanticIndexing(running.ctx, running.log);
  return {
    app: running,
    store,
    url,
    async close() {
      try {
        await scheduler.stop();
        await semantic.stop();
        await running.close();
      } finally {
        await store.close();
      }
    },
  };
}
