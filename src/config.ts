import { isIP } from 'node:net';
import path from 'node:path';
// The names only: loading every connector here would slow each `switchyard admin` command.
import { CONNECTOR_TYPES } from '../runtime/generated/connector-types.js';
import { webOrigin } from './web-origin.js';

/** Operator settings, all from the environment (see README, "Operator settings"). */
export interface ServiceConfig {
  host: string;
  port: number;
  /** Folder of the embedded store and the master key file. */
  dataDir: string;
  /** A PostgreSQL URL; when absent the embedded PGlite store in dataDir is used. */
  databaseUrl?: string;
  /** Base64 (32 bytes) master key; when absent a key file in dataDir is used (created on first start). */
  masterKey?: string;
  /** connector_type -> base URL replacing the manifest's (a sandbox, a self-hosted vendor or a test double). */
  upstreamBaseUrls: Record<string, string>;
  logLevel: string;
  /** Lifetime of application tokens. */
  tokenTtlSeconds: number;
  /** Lifetime of scoped tokens (SCOPED_TOKEN_TTL_SECONDS, default 900); tests set it directly. */
  scopedTokenTtlSeconds?: number;
  /** Largest request body accepted. */
  bodyLimitBytes: number;
  /** Per-request timeout of vendor calls (UPSTREAM_TIMEOUT_MS); the runtime's default (30 s) when absent. */
  upstreamTimeoutMs?: number;
  /** Largest vendor response body read (UPSTREAM_MAX_RESPONSE_BYTES); the runtime's default (50 MB) when absent. */
  upstreamMaxResponseBytes?: number;
  /**
   * Longest time execute trusts a connector held in memory without re-reading it (CONNECTOR_CACHE_MAX_STALENESS_MS,
   * default 30 s): the fallback for a change notification that never arrived (src/services/connector-cache.ts).
   */
  connectorCacheMaxStalenessMs?: number;
  /** Connectors held in memory, least recently used dropped first (CONNECTOR_CACHE_MAX_ENTRIES, default 1000). */
  connectorCacheMaxEntries?: number;
  /** Extra attempts of idempotent vendor calls on 429/502/503/504 (UPSTREAM_RETRIES); the runtime's default (3) when absent. */
  upstreamRetries?: number;
  /**
   * Whether a vendor host a connector's configuration writes (Sentry's `host`) may be localhost or an address
   * of this machine or its private network (UPSTREAM_PRIVATE_ADDRESSES): refused when absent, so a user of the
   * API cannot make the service call into the network it runs in.
   */
  upstreamPrivateAddresses?: 'allow' | 'refuse';
  /**
   * OpenAI-compatible embeddings endpoint of semantic search (EMBEDDINGS_URL, EMBEDDINGS_MODEL, EMBEDDINGS_API_KEY);
   * absent: the offline word-vector model. The key is never logged.
   */
  embeddings?: { url: string; model: string; apiKey?: string };
  /**
   * Connect flow (docs/api-reference.md, "Connect page"). publicUrl (PUBLIC_URL): the service's URL as
   * browsers reach it, used for the OAuth redirect URI and connect links (absent: the request's own host).
   */
  publicUrl?: string;
  /** URLs the connect page may send the browser back to after connecting (CONNECT_REDIRECT_URIS, comma-separated). */
  connectRedirectUris?: string[];
  /**
   * Web origins whose pages may call the API from a browser (CORS_ORIGINS, comma-separated origins, or `*`);
   * absent: no cross-origin access (a browser application holding a scoped token needs its origin here).
   */
  corsOrigins?: string[] | '*';
  /** Lifetime of widget tokens (CONNECT_TOKEN_TTL_SECONDS, default 900). */
  connectTokenTtlSeconds?: number;
  /**
   * The reverse proxies whose X-Forwarded-For names the client (TRUST_PROXY): how many hops, or their
   * addresses and subnets; absent: the peer's address is the client's.
   */
  trustProxy?: number | string[];
  /** connector_type -> origin replacing the host of its OAuth authorization and token URLs (OAUTH_SERVER_URLS; a vendor sandbox or a test double). */
  oauthServerUrls?: Record<string, string>;
  /** Minutes between automatic context store syncs of a connector that sets none (SYNC_INTERVAL_MINUTES, default 60; 0 = no automatic syncs). */
  syncIntervalMinutes?: number;
  /** The sync job queue (src/context/sync/queue.ts); defaults in SYNC_QUEUE_DEFAULTS there. */
  syncQueue?: SyncQueueSettings;
  /**
   * The most memory (MB of maintenance_work_mem) one build of a semantic search index takes
   * (SEMANTIC_INDEX_BUILD_MEMORY_MB, default 1024); each build asks for what its passages need, up to this.
   */
  semanticIndexBuildMemoryMb?: number;
  /** Seconds a start waits for an unreachable PostgreSQL before giving up (STORE_WAIT_SECONDS, default 30). */
  storeWaitSeconds?: number;
  /** When set, GET /metrics needs "Authorization: Bearer <METRICS_TOKEN>"; unset, it is open like /health. */
  metricsToken?: string;
  /** The operator credential of /api/v1/admin (SWITCHYARD_OPERATOR_TOKEN); absent: DATA_DIR/operator.token, created on first start. */
  operatorToken?: string;
}

export class ConfigError extends Error {}

/**
 * The most memory (MB of maintenance_work_mem) one build of a semantic search index takes unless the operator
 * sets SEMANTIC_INDEX_BUILD_MEMORY_MB: a build asks for what its passages need, at most this.
 */
export const DEFAULT_INDEX_BUILD_MEMORY_MB = 1024;

/** Settings of the sync job queue (pg-boss). Each is optional: absent ones take the queue's defaults. */
export interface SyncQueueSettings {
  /** Syncs of one vendor (connector type) that one process runs at once (SYNC_CONCURRENCY, default 2). */
  concurrency?: number;
  /** Per-vendor overrides of `concurrency` (SYNC_VENDOR_CONCURRENCY, e.g. "harvest=1,jira=4"). */
  vendorConcurrency?: Record<string, number>;
  /** Further attempts of a sync job that failed (SYNC_RETRY_LIMIT, default 3). */
  retryLimit?: number;
  /** First delay before a retry, doubled each attempt with jitter (SYNC_RETRY_DELAY_SECONDS, default 60). */
  retryDelaySeconds?: number;
  /** Longest run of one sync job before the queue fails it and retries it elsewhere (SYNC_JOB_TIMEOUT_MINUTES, default 240). */
  jobTimeoutMinutes?: number;
  /** How often idle workers ask the queue for a job (seconds; default 2). */
  pollSeconds?: number;
  /** How often due connectors are looked for (seconds; default 30). */
  checkSeconds?: number;
}

/** "vendor=n,vendor=n": connector types and their concurrency (1..64). */
export function parseVendorConcurrency(raw: string | undefined, name = 'SYNC_VENDOR_CONCURRENCY'): Record<string, number> {
  const result: Record<string, number> = {};
  if (raw === undefined || raw.trim() === '') return result;
  for (const part of raw.split(',')) {
    const match = /^\s*([a-z0-9][a-z0-9_-]*)\s*=\s*(\d+)\s*$/.exec(part);
    const value = match ? Number(match[2]) : Number.NaN;
    if (!match || !Number.isInteger(value) || value < 1 || value > 64) {
      throw new ConfigError(
        `${name} must be a comma-separated list of connector_type=N with N from 1 to 64 (e.g. "harvest=1,jira=4"); "${part.trim()}" is not.`,
      );
    }
    result[match[1] as string] = value;
  }
  return result;
}

export const DEFAULT_SCOPED_TOKEN_TTL_SECONDS = 900;

function integer(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  // Decimal digits only: Number() would also take '0x4A68', '1.9e4' and ' 80'.
  const value = /^-?\d+$/.test(raw) ? Number(raw) : Number.NaN;
  if (!Number.isSafeInteger(value) || value < min || value > max) throw new ConfigError(`${name} must be an integer from ${min} to ${max}.`);
  return value;
}

export function parseUpstreamBaseUrls(raw: string | undefined, name = 'UPSTREAM_BASE_URLS'): Record<string, string> {
  if (raw === undefined || raw.trim() === '') return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw new ConfigError(`${name} must be a JSON object of connector_type to base URL.`);
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw new ConfigError(`${name} must be a JSON object.`);
  const known = CONNECTOR_TYPES;
  const result: Record<string, string> = {};
  for (const [type, url] of Object.entries(parsed)) {
    if (!known.includes(type)) throw new ConfigError(`${name} names "${type}", which is not a connector type (${known.join(', ')}).`);
    if (typeof url !== 'string' || !/^https?:\/\/[^/]+/.test(url)) throw new ConfigError(`${name}["${type}"] must be an http(s) URL.`);
    result[type] = url.replace(/\/+$/, '');
  }
  return result;
}

/** An absolute http(s) URL without query or fragment, e.g. PUBLIC_URL or an entry of CONNECT_REDIRECT_URIS. */
function absoluteUrl(raw: string, name: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError(`${name} must hold absolute http(s) URLs; "${raw}" is not one.`);
  }
  if (!['http:', 'https:'].includes(url.protocol) || url.search !== '' || url.hash !== '' || url.username !== '' || url.password !== '') {
    throw new ConfigError(`${name} must hold http(s) URLs without query, fragment or user info; "${raw}" is not one.`);
  }
  return url.toString();
}

export function parseRedirectUris(raw: string | undefined): string[] {
  if (raw === undefined || raw.trim() === '') return [];
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => absoluteUrl(entry, 'CONNECT_REDIRECT_URIS'));
}

/**
 * DATABASE_URL: a postgres:// URL whose user name and password have their reserved characters percent-encoded.
 * An @, # or / left as it is moves the host or cuts the password short, and a URL read wrongly could end up in
 * a log line with part of the password; the message never repeats the URL.
 */
function checkDatabaseUrl(url: string): void {
  if (!/^postgres(ql)?:\/\//.test(url)) throw new ConfigError('DATABASE_URL must be a postgres:// URL.');
  const encode = 'percent-encode the reserved characters of the user name and password (@ as %40, # as %23, / as %2F, : as %3A, ? as %3F)';
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`DATABASE_URL is not a valid URL: ${encode}.`);
  }
  const afterScheme = url.slice(url.indexOf('//') + 2);
  const authority = afterScheme.split(/[/?#]/, 1)[0] ?? '';
  // An @ past the authority means a / or ? of the password ended it early: "svc:/s3cret@host" is read as host "svc".
  if (parsed.hash !== '' || authority.split('@').length > 2 || afterScheme.slice(authority.length).includes('@')) {
    throw new ConfigError(`DATABASE_URL cannot be read as user, password, host and database: ${encode}.`);
  }
}

/** UPSTREAM_PRIVATE_ADDRESSES: allow or refuse. */
function privateAddresses(raw: string): 'allow' | 'refuse' {
  const value = raw.trim().toLowerCase();
  if (value === 'allow' || value === 'refuse') return value;
  throw new ConfigError(`UPSTREAM_PRIVATE_ADDRESSES must be allow or refuse; got ${JSON.stringify(raw.trim())}.`);
}

/** TRUST_PROXY: a hop count (1..10), or comma-separated proxy addresses and subnets (10.0.0.0/8, ::1). */
export function parseTrustProxy(raw: string | undefined): ServiceConfig['trustProxy'] {
  if (raw === undefined || raw.trim() === '') return undefined;
  const text = raw.trim();
  if (/^\d+$/.test(text)) {
    const hops = Number(text);
    if (hops < 1 || hops > 10) throw new ConfigError(`TRUST_PROXY as a hop count must be from 1 to 10; got ${text}.`);
    return hops;
  }
  return text.split(',').map((entry) => {
    const [address = '', bits, extra] = entry.trim().split('/');
    const version = isIP(address);
    const maxBits = version === 4 ? 32 : 128;
    if (version === 0 || extra !== undefined || (bits !== undefined && !(/^\d+$/.test(bits) && Number(bits) <= maxBits))) {
      throw new ConfigError(
        `TRUST_PROXY must be a hop count or comma-separated proxy addresses and subnets (e.g. "10.0.0.0/8,127.0.0.1"); "${entry.trim()}" is not one.`,
      );
    }
    return entry.trim();
  });
}

/** CORS_ORIGINS: `*`, or origins such as https://app.example.com (scheme, host, optional port; no path). */
export function parseCorsOrigins(raw: string | undefined): ServiceConfig['corsOrigins'] {
  if (raw === undefined || raw.trim() === '') return undefined;
  if (raw.trim() === '*') return '*';
  return raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
    .map((entry) => {
      const origin = webOrigin(entry);
      if (origin === undefined) {
        throw new ConfigError(
          `CORS_ORIGINS must list origins such as https://app.example.com (scheme, host and optional port; no path), or be *; "${entry}" is not one.`,
        );
      }
      return origin;
    });
}

export function parseEmbeddings(env: NodeJS.ProcessEnv): ServiceConfig['embeddings'] {
  const url = env.EMBEDDINGS_URL?.trim();
  const model = env.EMBEDDINGS_MODEL?.trim();
  const apiKey = env.EMBEDDINGS_API_KEY?.trim();
  if (!url) {
    if (model || apiKey)
      throw new ConfigError('EMBEDDINGS_MODEL and EMBEDDINGS_API_KEY need EMBEDDINGS_URL (the OpenAI-compatible base URL, e.g. https://api.openai.com/v1).');
    return undefined;
  }
  if (!/^https?:\/\/[^/]+/.test(url)) throw new ConfigError('EMBEDDINGS_URL must be an http(s) URL (the base URL; /embeddings is appended).');
  if (!model) throw new ConfigError('EMBEDDINGS_URL needs EMBEDDINGS_MODEL (e.g. text-embedding-3-small).');
  return { url: url.replace(/\/+$/, ''), model, ...(apiKey ? { apiKey } : {}) };
}

/** A bearer secret given in the environment: long enough not to be guessed. */
function secretSetting(env: NodeJS.ProcessEnv, name: string): string {
  const value = (env[name] ?? '').trim();
  if (value.length < 24 || /\s/.test(value)) throw new ConfigError(`${name} must be at least 24 characters without spaces (e.g. \`openssl rand -hex 24\`).`);
  return value;
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServiceConfig {
  const level = env.LOG_LEVEL ?? 'info';
  if (!['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'].includes(level)) {
    throw new ConfigError('LOG_LEVEL must be one of fatal, error, warn, info, debug, trace, silent.');
  }
  const databaseUrl = env.DATABASE_URL?.trim() || undefined;
  const corsOrigins = parseCorsOrigins(env.CORS_ORIGINS);
  const trustProxy = parseTrustProxy(env.TRUST_PROXY);
  if (databaseUrl !== undefined) checkDatabaseUrl(databaseUrl);
  return {
    host: env.HOST ?? '127.0.0.1',
    port: integer(env, 'PORT', 8080, 0, 65535),
    dataDir: path.resolve(env.DATA_DIR ?? './data'),
    ...(databaseUrl !== undefined && { databaseUrl }),
    ...(env.SWITCHYARD_MASTER_KEY ? { masterKey: env.SWITCHYARD_MASTER_KEY } : {}),
    upstreamBaseUrls: parseUpstreamBaseUrls(env.UPSTREAM_BASE_URLS),
    logLevel: level,
    tokenTtlSeconds: integer(env, 'TOKEN_TTL_SECONDS', 900, 30, 86_400),
    scopedTokenTtlSeconds: integer(env, 'SCOPED_TOKEN_TTL_SECONDS', DEFAULT_SCOPED_TOKEN_TTL_SECONDS, 30, 86_400),
    bodyLimitBytes: integer(env, 'BODY_LIMIT_BYTES', 1_048_576, 1024, 64 * 1_048_576),
    ...(env.UPSTREAM_TIMEOUT_MS ? { upstreamTimeoutMs: integer(env, 'UPSTREAM_TIMEOUT_MS', 30_000, 100, 600_000) } : {}),
    ...(env.UPSTREAM_MAX_RESPONSE_BYTES ? { upstreamMaxResponseBytes: integer(env, 'UPSTREAM_MAX_RESPONSE_BYTES', 52_428_800, 1024, 1_073_741_824) } : {}),
    ...(env.CONNECTOR_CACHE_MAX_ENTRIES ? { connectorCacheMaxEntries: integer(env, 'CONNECTOR_CACHE_MAX_ENTRIES', 1_000, 10, 1_000_000) } : {}),
    ...(env.CONNECTOR_CACHE_MAX_STALENESS_MS ? { connectorCacheMaxStalenessMs: integer(env, 'CONNECTOR_CACHE_MAX_STALENESS_MS', 30_000, 0, 3_600_000) } : {}),
    ...(env.UPSTREAM_RETRIES ? { upstreamRetries: integer(env, 'UPSTREAM_RETRIES', 3, 0, 10) } : {}),
    ...(env.UPSTREAM_PRIVATE_ADDRESSES?.trim() ? { upstreamPrivateAddresses: privateAddresses(env.UPSTREAM_PRIVATE_ADDRESSES) } : {}),
    ...(env.EMBEDDINGS_URL?.trim() || env.EMBEDDINGS_MODEL?.trim() || env.EMBEDDINGS_API_KEY?.trim() ? { embeddings: parseEmbeddings(env) } : {}),
    syncIntervalMinutes: integer(env, 'SYNC_INTERVAL_MINUTES', 60, 0, 525_600),
    syncQueue: {
      concurrency: integer(env, 'SYNC_CONCURRENCY', 2, 1, 64),
      vendorConcurrency: parseVendorConcurrency(env.SYNC_VENDOR_CONCURRENCY),
      retryLimit: integer(env, 'SYNC_RETRY_LIMIT', 3, 0, 20),
      retryDelaySeconds: integer(env, 'SYNC_RETRY_DELAY_SECONDS', 60, 1, 86_400),
      jobTimeoutMinutes: integer(env, 'SYNC_JOB_TIMEOUT_MINUTES', 240, 1, 1439),
    },
    storeWaitSeconds: integer(env, 'STORE_WAIT_SECONDS', 30, 0, 3600),
    semanticIndexBuildMemoryMb: integer(env, 'SEMANTIC_INDEX_BUILD_MEMORY_MB', DEFAULT_INDEX_BUILD_MEMORY_MB, 64, 65_536),
    ...(env.METRICS_TOKEN?.trim() ? { metricsToken: secretSetting(env, 'METRICS_TOKEN') } : {}),
    ...(env.SWITCHYARD_OPERATOR_TOKEN?.trim() ? { operatorToken: secretSetting(env, 'SWITCHYARD_OPERATOR_TOKEN') } : {}),
    ...(env.PUBLIC_URL?.trim() ? { publicUrl: absoluteUrl(env.PUBLIC_URL.trim(), 'PUBLIC_URL').replace(/\/+$/, '') } : {}),
    connectRedirectUris: parseRedirectUris(env.CONNECT_REDIRECT_URIS),
    ...(corsOrigins !== undefined && { corsOrigins }),
    ...(trustProxy !== undefined && { trustProxy }),
    connectTokenTtlSeconds: integer(env, 'CONNECT_TOKEN_TTL_SECONDS', 900, 60, 86_400),
    oauthServerUrls: parseUpstreamBaseUrls(env.OAUTH_SERVER_URLS, 'OAUTH_SERVER_URLS'),
  };
}
