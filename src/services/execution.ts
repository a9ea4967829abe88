/**
 * POST /api/v1/integrations/connectors/{id}/execute: runs one {entity, action, params} operation with the
 * connector's stored credentials. Connector instances are kept in memory (a small LRU per service) so an
 * OAuth access token is reused between calls and one refresh serves every call waiting for it; a refresh
 * token the vendor rotates is sealed back into the connector's row at once.
 */
import { performance } from 'node:perf_hooks';
import type { FastifyBaseLogger } from 'fastify';
import {
  AuthenticationError,
  createConnector,
  UnknownOperationError,
  type Connector,
  type EntityDefinition,
  type TokenRefresh,
} from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import { excludePaths, selectPaths } from '../field-paths.js';
import { contextStoreSearch } from '../context/search.js';
import { findConnector, type ConnectorRow } from './connector-lookup.js';
import { openCredentials, sealCredentials } from './credentials.js';
import { assertWorkspaceActive, findWorkspace } from './workspaces.js';

/** The execute request body (the reference's ConnectorExecuteRequest). */
export interface ExecuteRequest {
  entity: string;
  action: string;
  /** null means no params. */
  params?: Record<string, unknown> | null;
  /** Dot paths to keep in each returned record; wins over exclude_fields. */
  select_fields?: string[] | null;
  /** Dot paths to remove from each returned record. */
  exclude_fields?: string[] | null;
  /** Accepted for compatibility: Switchyard never truncates fields. */
  skip_truncation?: boolean;
  /** Accepted for compatibility: a caller's note on why it runs the action; not stored. */
  intent?: string | null;
}

/** The reference's ConnectorExecuteResponse. */
export interface ExecuteResponse {
  status: 'success';
  /** The records: an array for actions returning many (list, api_search), an object otherwise. */
  result: unknown;
  /** The connector kind's native pagination keys, plus next_params when there is a next page; {} for actions that do not paginate. */
  connector_metadata: Record<string, unknown>;
  execution_metadata: { connector_instance_id: string; execution_time_ms: number };
}

export const CONTEXT_STORE_SEARCH = 'context_store_search';

/** How many connector instances one service keeps warm. */
const MAX_INSTANCES = 100;

interface CachedInstance {
  /** Which stored version of the connector the instance was built from (see versionOf). */
  version: string;
  connector: Connector;
}

/**
 * A stored connector version: an update of the connector changes updated_at, and any re-sealing of its
 * credentials (an update, a key rotation) changes the random IV. Either builds a new instance.
 */
function versionOf(row: Pick<ConnectorRow, 'updated_at' | 'credentials_iv'>): string {
  return `${new Date(row.updated_at).getTime()}|${row.credentials_iv}`;
}

export class ConnectorInstances {
  private readonly entries = new Map<string, CachedInstance>();

  constructor(
    private readonly ctx: ServiceContext,
    private readonly log: FastifyBaseLogger,
  ) {}

  /** The warm instance for this stored version of the connector, built when missing or stale. Synchronous, so concurrent calls share one. */
  get(row: ConnectorRow): Connector {
    const version = versionOf(row);
    const cached = this.entries.get(row.id);
    this.entries.delete(row.id);
    if (cached && cached.version === version) {
      this.entries.set(row.id, cached);
      return cached.connector;
    }
    const entry: CachedInstance = { version, connector: this.build(row, (iv) => (entry.version = versionOf({ updated_at: row.updated_at, credentials_iv: iv }))) };
    this.entries.set(row.id, entry);
    for (const id of this.entries.keys()) {
      if (this.entries.size <= MAX_INSTANCES) break;
      this.entries.delete(id);
    }
    return entry.connector;
  }

  clear(): void {
    this.entries.clear();
  }

  private build(row: ConnectorRow, resealed: (iv: string) => void): Connector {
    const { ctx } = this;
    const credentials = openCredentials(ctx.keyring, row.id, row);
    let refreshToken = credentials.refresh_token;
    const baseUrl = ctx.config.upstreamBaseUrls[row.connector_type];
    const http = {
      ...(ctx.config.upstreamTimeoutMs !== undefined && { timeoutMs: ctx.config.upstreamTimeoutMs }),
      ...(ctx.config.upstreamRetries !== undefined && { retries: ctx.config.upstreamRetries }),
    };
    return createConnector(row.connector_type, {
      credentials: { ...credentials, option_title: row.auth_option },
      config: row.config,
      ...(baseUrl !== undefined && { baseUrl }),
      http,
      onTokenRefresh: async (refresh) => {
        if (!refresh.rotated || refreshToken === undefined) return;
        const previous = refreshToken;
        refreshToken = refresh.refresh_token;
        try {
          const iv = await persistRotation(ctx, row.id, previous, refresh);
          if (iv !== undefined) resealed(iv);
        } catch (error) {
          // The vendor has already rotated the token: the call goes on with it; only a restart would lose it.
          this.log.error({ err: error, connector_id: row.id }, 'could not store the rotated OAuth refresh token');
        }
      },
    });
  }
}

/**
 * Seals a rotated refresh token (and the access token that came with it) into the connector's row,
 * unless the connector's credentials were replaced meanwhile. Returns the new IV when it wrote.
 */
async function persistRotation(ctx: ServiceContext, connectorId: string, previousRefreshToken: string, refresh: TokenRefresh): Promise<string | undefined> {
  return ctx.store.db.transaction().execute(async (trx) => {
    const row = await trx
      .selectFrom('connectors')
      .select(['credentials_key_id', 'credentials_iv', 'credentials_ciphertext', 'credentials_tag'])
      .where('id', '=', connectorId)
      .forUpdate()
      .executeTakeFirst();
    if (!row) return undefined;
    const stored = openCredentials(ctx.keyring, connectorId, row);
    if (stored.refresh_token !== previousRefreshToken) return undefined;
    const sealed = sealCredentials(ctx.keyring, connectorId, { ...stored, refresh_token: refresh.refresh_token, access_token: refresh.access_token });
    await trx.updateTable('connectors').set(sealed).where('id', '=', connectorId).execute();
    return sealed.credentials_iv;
  });
}

/** The warm connector instance of a stored connector (shared with execute; the context store sync reads through it). */
export function connectorInstance(ctx: ServiceContext, row: ConnectorRow): Connector {
  return ctx.connectors.get(row);
}

/** An entity without searchable fields has no context_store_search. */
function refuseContextStoreSearch(entityName: string, entity: EntityDefinition): never {
  const actions = Object.keys(entity.actions).join(', ');
  throw new UnknownOperationError(`Unknown action "${CONTEXT_STORE_SEARCH}" for ${entityName}: this entity has no context store search. Valid actions: ${actions}.`);
}

/**
 * context_store_search (hosted mode only; the runtime answers HostedOnlyError in library mode): searches
 * the synchronized copy of the entity (src/context/search.ts). select_fields/exclude_fields apply to
 * each record (semantic mode: to each hit's entity).
 */
async function runContextStoreSearch(ctx: ServiceContext, organizationId: string, row: ConnectorRow, connector: Connector, request: ExecuteRequest, started: number): Promise<ExecuteResponse> {
  const entity = connector.entity(request.entity);
  if (entity.search.fields.length === 0) refuseContextStoreSearch(request.entity, entity);
  const found = await contextStoreSearch(
    ctx,
    { organizationId, connectorId: row.id, connectorType: row.connector_type, displayName: connector.definition.displayName, entity },
    request.params ?? {},
  );
  const select = request.select_fields ?? undefined;
  const exclude = request.exclude_fields ?? undefined;
  const data =
    found.mode === 'semantic'
      ? found.data.map((hit) => ({ ...hit, entity: project(hit.entity, select, exclude) }))
      : found.data.map((record) => project(record, select, exclude));
  return {
    status: 'success',
    result: { data, meta: found.meta },
    connector_metadata: {},
    execution_metadata: { connector_instance_id: row.id, execution_time_ms: Math.round(performance.now() - started) },
  };
}

function withPeriod(text: string): string {
  return /[.!?]$/.test(text) ? text : `${text}.`;
}

export async function executeOperation(
  ctx: ServiceContext,
  organizationId: string,
  connectorId: string,
  request: ExecuteRequest,
  log: FastifyBaseLogger,
): Promise<ExecuteResponse> {
  const started = performance.now();
  const row = await findConnector(ctx.store.db, organizationId, connectorId);
  assertWorkspaceActive(await findWorkspace(ctx.store.db, organizationId, row.workspace_id));
  const connector = ctx.connectors.get(row);
  if (request.action === CONTEXT_STORE_SEARCH) {
    return runContextStoreSearch(ctx, organizationId, row, connector, request, started);
  }
  let outcome;
  try {
    outcome = await connector.execute(request.entity, request.action, request.params ?? {});
  } catch (error) {
    if (error instanceof AuthenticationError) {
      throw new AuthenticationError(
        `The credentials stored for connector ${row.id} were refused by ${connector.definition.displayName}. ${withPeriod(error.message)} ` +
          `Update them with PUT /api/v1/integrations/connectors/${row.id}.`,
        { upstreamStatus: error.upstreamStatus, cause: error },
      );
    }
    throw error;
  }
  const connectorMetadata: Record<string, unknown> = { ...outcome.pagination };
  if (outcome.next_params !== undefined) connectorMetadata.next_params = outcome.next_params;
  return {
    status: 'success',
    result: project(outcome.data, request.select_fields ?? undefined, request.exclude_fields ?? undefined),
    connector_metadata: connectorMetadata,
    execution_metadata: { connector_instance_id: row.id, execution_time_ms: Math.round(performance.now() - started) },
  };
}

/* ----- select_fields / exclude_fields ----- */

/** Applies select_fields (wins) or exclude_fields to each record of a result. */
export function project(result: unknown, select: string[] | undefined, exclude: string[] | undefined): unknown {
  if (select !== undefined && select.length > 0) return selectPaths(result, select);
  if (exclude !== undefined && exclude.length > 0) return excludePaths(result, exclude);
  return result;
}
