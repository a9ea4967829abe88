import type { FastifyInstance } from 'fastify';
import { pino } from 'pino';
import { composeService } from './composition.js';
import type { ServiceConfig } from './config.js';
import { openStore, type Store } from './db/database.js';
import { loadKeyring } from './security/keyring.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/**
 * What `npm start` runs, in order: keyring, store, the service's parts (src/composition.ts), the HTTP app,
 * then the background work (periodic syncs, semantic indexing). close() undoes them in reverse.
 */
export async function startService(config: ServiceConfig, options: { quiet?: boolean } = {}): Promise<RunningService> {
  const { keyring, source } = loadKeyring({ ...(config.masterKey !== undefined && { masterKey: config.masterKey }), dataDir: config.dataDir });
  // The HTTP app (Fastify, the routes, the connector catalog) loads while the store opens: each takes about a second.
  const appModule = import('./app.js');
  appModule.catch(() => undefined); // a store that fails to open is the error to report
  const store = await openStore({ ...(config.databaseUrl !== undefined && { databaseUrl: config.databaseUrl }), dataDir: config.dataDir });
  const { buildApp, loggerOptions } = await appModule.catch(async (error: unknown) => {
    await store.close();
    throw error;
  });
  const service = composeService({ store, keyring, config }, { ownStore: true, log: pino(options.quiet ? { level: 'silent' } : loggerOptions(config.logLevel)) });
  let app: FastifyInstance;
  let url: string;
  try {
    app = buildApp(service.ctx);
    const built = app;
    service.adopt(() => built.close());
    url = await app.listen({ host: config.host, port: config.port });
  } catch (error) {
    await service.close();
    throw error;
  }
  const storeText = store.kind === 'pglite' ? `the embedded PGlite store in ${store.location}` : `the PostgreSQL store at ${store.location}`;
  app.log.info(
    { store: store.kind, location: store.location, masterKey: source, startupMs: Math.round(performance.now()) },
    `Switchyard listening on ${url} with ${storeText}`,
  );
  // Context store syncs: at creation of a connector, then every sync interval (SYNC_INTERVAL_MINUTES).
  await service.startBackground();
  return { app, store, url, close: () => service.close() };
}
