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
