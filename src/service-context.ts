import type { FastifyBaseLogger } from 'fastify';
import type { ServiceConfig } from './config.js';
import type { RecordObserver } from './context/observers.js';
import type { EmbeddingProvider } from './context/semantic/providers.js';
import type { SyncService } from './context/sync/service.js';
import type { Store } from './db/database.js';
import type { TableStatistics } from './db/statistics.js';
import type { VectorIndexes } from './context/semantic/vector-store.js';
import type { ServiceObserver } from './observability/observer.js';
import type { Keyring } from './security/keyring.js';
import type { ConnectorCache } from './services/connector-cache.js';
import type { SkillLibrary } from './services/skill-library.js';

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
  /** What execute needs of each connector, from memory (src/services/connector-cache.ts). */
  connectors: ConnectorCache;
  /** Observers of the records each sync page commits (the semantic indexer), in registration order. */
  observers: RecordObserver[];
  /** The embedding model in use; replaceable while running (the index then re-embeds). */
  embeddings: { provider: EmbeddingProvider };
  /** Context store syncs as jobs on the PostgreSQL job queue (src/context/sync/service.ts). */
  syncs: SyncService;
  /** Planner statistics of the context store's tables (src/db/statistics.ts). */
  statistics: TableStatistics;
  /** pgvector support, HNSW indexes and semantic search tuning (src/context/semantic/vector-store.ts). */
  vectors: VectorIndexes;
  /** The connectors' skill docs, read once (src/services/skill-library.ts). */
  skills: SkillLibrary;
  /** Where vendor calls, OAuth refreshes and syncs are reported (metrics); absent when metrics are not wired. */
  observer?: ServiceObserver;
}

/** Who is calling: resolved from the application token on every authenticated request. */
export interface Principal {
  clientId: string;
  organizationId: string;
  /** Set when the caller holds a scoped token: the one workspace it may reach. */
  workspaceId?: string;
  /** When the token stops working (ISO 8601). */
  expiresAt?: string;
}

/**
 * What a scoped token may reach on a route (absent: nothing, 403). `connector`: the route's :id is a
 * connector, which must be in the token's workspace (404 otherwise); `own`: the handler narrows the
 * request to the token's workspace itself; `catalog`: the route holds no workspace data.
 */
export type ScopedAccess = 'connector' | 'own' | 'catalog';

declare module 'fastify' {
  interface FastifyInstance {
    ctx: ServiceContext;
    /** "METHOD /path" of every operation a scoped token may call (the routes declaring scopedAccess). */
    scopedOperations: string[];
  }
  interface FastifyRequest {
    principal: Principal;
    /** The error code the request was answered with (set by the error handler), for its log line. */
    errorCode?: string;
  }
  interface FastifyContextConfig {
    /** Routes reachable without an application token (only the token endpoint). */
    public?: boolean;
    /** How a scoped token may use this route; absent = not at all. */
    scopedAccess?: ScopedAccess;
  }
}
