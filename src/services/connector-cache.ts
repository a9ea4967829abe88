/**
 * What execute needs of a connector, held in memory: its row, a warm runtime instance built from its
 * decrypted credentials (an OAuth access token is reused between calls) and its workspace's status.
 * A call finds them without a store round trip.
 *
 * Freshness: an entry is dropped at once when the store announces a change of its connector or
 * workspace (src/db/changes.ts: in this process when the writer is done; from other processes
 * sharing PostgreSQL through LISTEN/NOTIFY at their commit). As a fallback for a notification that
 * never came (a writer that crashed between commit and notify), an entry is re-read from the store
 * once it is older than `maxStalenessMs` (CONNECTOR_CACHE_MAX_STALENESS_MS, default 30 s), and
 * nothing is trusted while the PostgreSQL listener is reconnecting. A re-read that finds the same
 * stored version keeps the warm instance.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import { createConnector, type Connector, type TokenRefresh } from '../../runtime/index.js';
import type { ServiceConfig } from '../config.js';
import type { StoreChange } from '../db/changes.js';
import type { Store } from '../db/database.js';
import { ResourceNotFoundError } from '../errors.js';
import type { Keyring } from '../security/keyring.js';
import type { ConnectorRow } from './connector-lookup.js';
import { openCredentials, updateLockedCredentials } from './credentials.js';
import { StoreTokenCoordinator } from './token-coordinator.js';
import { upstreamOptions } from './upstream-options.js';
import type { WorkspaceStatus } from '../api-shapes.js';

export const DEFAULT_MAX_STALENESS_MS = 30_000;
const DEFAULT_MAX_ENTRIES = 1_000;

export interface CachedConnector {
  row: ConnectorRow;
  workspace: { id: string; name: string; status: WorkspaceStatus };
  connector: Connector;
}

interface Entry extends CachedConnector {
  version: string;
  checkedAt: number;
}

export interface ConnectorCacheDependencies {
  store: Store;
  keyring: Keyring;
  config: ServiceConfig;
  log: FastifyBaseLogger;
  maxEntries?: number;
  /** Told of each OAuth refresh this process made (metrics). */
  tokenRefreshed?: (connectorType: string, rotated: boolean) => void;
}

/**
 * A stored connector version: an update of the connector changes updated_at, and any re-sealing of its
 * credentials (an update, a key rotation, a stored OAuth refresh) changes the random IV.
 */
function versionOf(row: Pick<ConnectorRow, 'updated_at' | 'credentials_iv'>): string {
  return `${new Date(row.updated_at).getTime()}|${row.credentials_iv}`;
}

export class ConnectorCache {
  private readonly entries = new Map<string, Entry>();
  private readonly loading = new Map<string, Promise<Entry>>();
  /** Bumped by every change heard: a load that started before it must not be kept. */
  private epoch = 0;
  private readonly maxStalenessMs: number;
  private readonly maxEntries: number;
  private readonly unsubscribe: () => void;
  private readonly coordinator?: StoreTokenCoordinator;

  constructor(private readonly deps: ConnectorCacheDependencies) {
    this.maxStalenessMs = deps.config.connectorCacheMaxStalenessMs ?? DEFAULT_MAX_STALENESS_MS;
    this.maxEntries = deps.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.unsubscribe = deps.store.changes.subscribe((change) => this.forgetChange(change));
    // Several processes share a PostgreSQL store: OAuth refreshes are coordinated through it. The
    // embedded store has one process, whose instances already refresh one at a time.
    if (deps.store.kind === 'postgres') this.coordinator = new StoreTokenCoordinator(deps.store, deps.keyring);
  }

  /** The connector of this organization (live workspace), from memory when it is fresh. */
  async get(organizationId: string, connectorId: string): Promise<CachedConnector> {
    const entry = this.entries.get(connectorId);
    if (entry !== undefined && entry.row.organization_id === organizationId && this.fresh(entry)) {
      // Least recently used goes first: a hit moves the entry to the end of the map's order.
      this.entries.delete(connectorId);
      this.entries.set(connectorId, entry);
      return entry;
    }
    // A connector deleted meanwhile is not found by the re-read, which also drops it.
    const loaded = await this.load(connectorId);
    if (loaded.row.organization_id !== organizationId) throw new ResourceNotFoundError(`No connector ${connectorId}.`);
    return loaded;
  }

  /** The warm instance for a row read elsewhere (the context store sync); shared with execute. */
  instanceFor(row: ConnectorRow): Connector {
    const entry = this.entries.get(row.id);
    if (entry !== undefined && entry.version === versionOf(row)) return entry.connector;
    return this.build(row);
  }

  /** Drops everything held, as a restart would. */
  clear(): void {
    this.epoch++;
    this.entries.clear();
  }

  close(): void {
    this.unsubscribe();
    this.clear();
  }

  private fresh(entry: Entry): boolean {
    return this.deps.store.changes.listening && performance.now() - entry.checkedAt < this.maxStalenessMs;
  }

  /** Marks what a change touches for a re-read: a row found unchanged keeps its warm instance. */
  private forgetChange(change: StoreChange): void {
    this.epoch++;
    for (const [id, entry] of this.entries) {
      if (change.kind === 'all' || (change.kind === 'connector' && id === change.id) || (change.kind === 'workspace' && entry.workspace.id === change.id)) {
        entry.checkedAt = Number.NEGATIVE_INFINITY;
      }
    }
  }

  /** One store read per connector however many calls wait for it. */
  private load(connectorId: string): Promise<Entry> {
    let pending = this.loading.get(connectorId);
    if (pending === undefined) {
      pending = this.read(connectorId).finally(() => this.loading.delete(connectorId));
      this.loading.set(connectorId, pending);
    }
    return pending;
  }

  private async read(connectorId: string): Promise<Entry> {
    const epoch = this.epoch;
    const found = await this.deps.store.db
      .selectFrom('connectors')
      .innerJoin('workspaces', 'workspaces.id', 'connectors.workspace_id')
      .selectAll('connectors')
      .select(['workspaces.name as workspace_name', 'workspaces.status as workspace_status'])
      .where('connectors.id', '=', connectorId)
      .where('workspaces.deleted_at', 'is', null)
      .executeTakeFirst();
    if (!found) {
      this.entries.delete(connectorId);
      throw new ResourceNotFoundError(`No connector ${connectorId}.`);
    }
    const { workspace_name: name, workspace_status: status, ...row } = found;
    const version = versionOf(row);
    const previous = this.entries.get(connectorId);
    const connector = previous !== undefined && previous.version === version ? previous.connector : this.build(row);
    // A change heard while reading may be newer than what was read: keep the instance, re-read next time.
    const checkedAt = epoch === this.epoch ? performance.now() : Number.NEGATIVE_INFINITY;
    const entry: Entry = { row, workspace: { id: row.workspace_id, name, status }, connector, version, checkedAt };
    this.entries.delete(connectorId);
    this.entries.set(connectorId, entry);
    for (const id of this.entries.keys()) {
      if (this.entries.size <= this.maxEntries) break;
      this.entries.delete(id);
    }
    return entry;
  }

  private build(row: ConnectorRow): Connector {
    const { config, keyring, log } = this.deps;
    const credentials = openCredentials(keyring, row.id, row);
    const coordinator = this.coordinator;
    let refreshToken = credentials.refresh_token;
    const instance: Connector = createConnector(row.connector_type, {
      credentials: { ...credentials, option_title: row.auth_option },
      config: row.config,
      ...upstreamOptions({ config }, row.connector_type),
      ...(coordinator !== undefined
        ? {
            tokenRefreshLock: coordinator.forConnector(row.id, (iv) => {
              this.deps.tokenRefreshed?.(row.connector_type, true);
              this.resealed(row, instance, iv);
            }),
          }
        : {
            onTokenRefresh: async (refresh) => {
              this.deps.tokenRefreshed?.(row.connector_type, refresh.rotated);
              if (!refresh.rotated) return;
              const previous = refreshToken;
              refreshToken = refresh.refresh_token;
              try {
                const iv = await this.persistRotation(row.id, previous, refresh);
                if (iv !== undefined) this.resealed(row, instance, iv);
              } catch (error) {
                // The vendor has already rotated the token: the call goes on with it; only a restart would lose it.
                log.error({ err: error, connector_id: row.id }, 'could not store the rotated OAuth refresh token');
              }
            },
          }),
    });
    return instance;
  }

  /** The instance that refreshed holds the new tokens already: it stays the warm one for the re-sealed row. */
  private resealed(row: ConnectorRow, instance: Connector, iv: string): void {
    const entry = this.entries.get(row.id);
    if (entry?.connector === instance) entry.version = versionOf({ updated_at: row.updated_at, credentials_iv: iv });
  }

  /**
   * Seals a rotated refresh token (with the access token and the credential fields that came with it) into the connector's row,
   * unless the connector's credentials were replaced meanwhile (embedded store: one process).
   */
  private async persistRotation(connectorId: string, previous: string | undefined, refresh: TokenRefresh): Promise<string | undefined> {
    const { store, keyring } = this.deps;
    return updateLockedCredentials(store.db, keyring, connectorId, async (stored, seal) => (stored.refresh_token === previous ? seal(refresh) : undefined));
  }
}
