import type { FastifyBaseLogger } from 'fastify';
import type { ServiceConfig } from './config.js';
import type { RecordObserver } from './context/observers.js';
import type { EmbeddingProvider } from './context/semantic/providers.js';
import type { SyncScheduler } from './context/sync/scheduler.js';
import type { SyncService } from './context/sync/service.js';
import type { Store } from './db/database.js';
import type { Keyring } from './security/keyring.js';
import type { ConnectorInstances } from './services/execution.js';

/** What a service is built from: the store, the keyring and the settings. */
export interface ServiceBase {
  store: Store;
  keyring: Keyring;
  config: ServiceConfig;
}

/**
 * What every route and service needs: the base and the parts built from it by the composition root
 * (src/composition.ts), the only place that creates, starts and stops them.
 */
export interface ServiceContext extends ServiceBase {
  log: FastifyBaseLogger;
  /** Warm connector instances (with their OAuth tokens), per stored connector. */
  connectors: ConnectorInstances;
  /** Observers of the records each sync page commits (the semantic indexer), in registration order. */
  observers: RecordObserver[];
  /** The embedding model in use; replaceable while running (the index then re-embeds). */
  embeddings: { provider: EmbeddingProvider };
  syncs: SyncService;
  /** The periodic sync scheduler, once the composition root has started it. */
  scheduler?: SyncScheduler;
}

/** Who is calling: resolved from the application token on every authenticated request. */
export interface Principal {
  clientId: string;
  organizationId: string;
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ServiceContext;
  }
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Routes reachable without an application token (only the token endpoint). */
    public?: boolean;
  }
}
