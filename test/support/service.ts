/**
 * Starts the real service on 127.0.0.1 (port 0) over PGlite in memory or a fresh database of the
 * throwaway PostgreSQL cluster, with a fresh master key, and offers a small JSON client for it.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import pg from 'pg';
import { inject } from 'vitest';
import type { ServiceConfig } from '../../src/config.js';
import { buildApp } from '../../src/app.js';
import { composeService, type ComposeOptions } from '../../src/composition.js';
import { openStore, type Store } from '../../src/db/database.js';
import { Keyring } from '../../src/security/keyring.js';
import { openMemoryStore } from './store.js';
import { createClient, createOrganization } from '../../src/services/organizations.js';
import type { FastifyInstance } from 'fastify';
import { testConfig } from './config.js';

export type StoreKind = 'pglite' | 'postgres';

/** The store kinds to run a suite on: PGlite always, PostgreSQL when the cluster is up. */
export function storeKinds(): StoreKind[] {
  return inject('postgresUrl') ? ['pglite', 'postgres'] : ['pglite'];
}

/** A new database on the throwaway cluster; `ctype` creates it from template0 with that character type (LC_CTYPE). */
export async function freshPostgresDatabase(options: { ctype?: string } = {}): Promise<string> {
  const admin = new pg.Client({ connectionString: inject('postgresUrl') });
  const name = `switchyard_${randomUUID().replace(/-/g, '')}`;
  await admin.connect();
  const locale = options.ctype === undefined ? '' : ` TEMPLATE template0 ENCODING 'UTF8' LC_CTYPE '${options.ctype.replace(/'/g, "''")}'`;
  await admin.query(`CREATE DATABASE ${name}${locale}`);
  await admin.end();
  const url = new URL(inject('postgresUrl'));
  url.pathname = `/${name}`;
  return url.toString();
}

export interface TestService {
  url: string;
  app: FastifyInstance;
  store: Store;
  keyring: Keyring;
  config: ServiceConfig;
  databaseUrl?: string;
  close(): Promise<void>;
}

export async function startTestService(
  kind: StoreKind,
  overrides: Partial<ServiceConfig> = {},
  options: ComposeOptions & {
    /** How the service reaches a PostgreSQL database (e.g. through a TCP proxy that plays an outage). */ storeUrl?: (databaseUrl: string) => string;
    /** The master key (a random one by default), for a suite that runs other processes on the same store. */
    masterKey?: Buffer;
  } = {},
): Promise<TestService> {
  const databaseUrl = kind === 'postgres' ? await freshPostgresDatabase() : undefined;
  const store = databaseUrl ? await openStore({ databaseUrl: options.storeUrl?.(databaseUrl) ?? databaseUrl }) : await openMemoryStore();
  const keyring = new Keyring(options.masterKey ?? randomBytes(32));
  const dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-data-'));
  const config: ServiceConfig = testConfig({ dataDir, ...(databaseUrl !== undefined && { databaseUrl }), ...overrides });
  // Composed like the real service, without its background work (suites start what they test).
  const service = composeService({ store, keyring, config }, { ...options, ownStore: true });
  const app = buildApp(service.ctx);
  service.adopt(() => app.close());
  const url = await app.listen({ host: '127.0.0.1', port: 0 });
  nock.enableNetConnect('127.0.0.1');
  return {
    url,
    app,
    store,
    keyring,
    config,
    ...(databaseUrl !== undefined && { databaseUrl }),
    close: async () => {
      await service.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export interface ApiResponse<T = Record<string, unknown>> {
  status: number;
  headers: Headers;
  body: T;
}

/** A JSON client for the service under test. */
export class ApiClient {
  token?: string;
  constructor(readonly baseUrl: string) {}

  async request<T = Record<string, unknown>>(
    method: string,
    pathname: string,
    options: { body?: unknown; rawBody?: string; headers?: Record<string, string>; token?: string | null } = {},
  ): Promise<ApiResponse<T>> {
    const headers: Record<string, string> = { ...options.headers };
    const token = options.token === undefined ? this.token : options.token;
    if (token) headers.authorization = `Bearer ${token}`;
    let body: string | undefined = options.rawBody;
    if (options.body !== undefined) {
      body = JSON.stringify(options.body);
      headers['content-type'] ??= 'application/json';
    }
    const response = await fetch(this.baseUrl + pathname, { method, headers, body });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : null) as T };
  }

  get<T = Record<string, unknown>>(pathname: string, options?: { headers?: Record<string, string>; token?: string | null }) {
    return this.request<T>('GET', pathname, options);
  }
  post<T = Record<string, unknown>>(pathname: string, body?: unknown, options?: { headers?: Record<string, string>; token?: string | null }) {
    return this.request<T>('POST', pathname, { ...options, body });
  }
  put<T = Record<string, unknown>>(pathname: string, body?: unknown, options?: { headers?: Record<string, string>; token?: string | null }) {
    return this.request<T>('PUT', pathname, { ...options, body });
  }
  delete<T = Record<string, unknown>>(pathname: string, options?: { headers?: Record<string, string>; token?: string | null }) {
    return this.request<T>('DELETE', pathname, options);
  }
}

export interface Tenant {
  organizationId: string;
  clientId: string;
  clientSecret: string;
  api: ApiClient;
}

/** A new organization with one client, and an ApiClient already holding its application token. */
export async function createTenant(service: TestService, name = 'Acme'): Promise<Tenant> {
  const { organization_id } = await createOrganization(service.store.db, name);
  const { client_id, client_secret } = await createClient(service.store.db, [organization_id]);
  const api = new ApiClient(service.url);
  const token = await api.post<{ access_token: string }>('/api/v1/account/applications/token', { client_id, client_secret });
  if (token.status !== 200) throw new Error(`token request failed: ${token.status} ${JSON.stringify(token.body)}`);
  api.token = token.body.access_token;
  return { organizationId: organization_id, clientId: client_id, clientSecret: client_secret, api };
}
