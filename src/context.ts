import type { ServiceConfig } from './config.js';
import type { Store } from './db/database.js';
import type { Keyring } from './security/keyring.js';

/** What every route and service needs: the store, the keyring and the settings. */
export interface ServiceContext {
  store: Store;
  keyring: Keyring;
  config: ServiceConfig;
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
  }
  interface FastifyRequest {
    principal: Principal;
  }
  interface FastifyContextConfig {
    /** Routes reachable without an application token (only the token endpoint). */
    public?: boolean;
    /** How a scoped token may use this route; absent = not at all. */
    scopedAccess?: ScopedAccess;
  }
}
