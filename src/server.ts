import type { FastifyInstance } from 'fastify';
import { buildApp, loggerOptions } from './app.js';
import type { ServiceConfig } from './config.js';
import { openStore, type Store } from './db/database.js';
import { loadKeyring } from './security/keyring.js';

export interface RunningService {
  app: FastifyInstance;
  store: Store;
  url: string;
  close(): Promise<void>;
}

/** Opens the store and the keyring, builds the app and listens: what `npm start` runs. */
export async function startService(config: ServiceConfig, options: { quiet?: boolean } = {}): Promise<RunningService> {
  const store = await openStore({ ...(config.databaseUrl !== undefined && { databaseUrl: config.databaseUrl }), dataDir: config.dataDir });
  const { keyring, source } = loadKeyring({ ...(config.masterKey !== undefined && { masterKey: config.masterKey }), dataDir: config.dataDir });
  const app = buildApp({ store, keyring, config }, { logger: options.quiet ? false : loggerOptions(config.logLevel) });
  const url = await app.listen({ host: config.host, port: config.port });
  app.log.info({ store: store.kind, location: store.location, masterKey: source }, `Switchyard listening on ${url} with the ${store.kind === 'pglite' ? 'embedded PGlite' : 'PostgreSQL'} store`);
  return {
    app,
    store,
    url,
    async close() {
      await app.close();
      await store.close();
    },
  };
}
