/**
 * POST /api/v1/integrations/connectors/{id}/execute: runs one {entity, action, params} operation with the
 * connector's stored credentials. The connector, its warm runtime instance and its workspace's status
 * come from memory (src/services/connector-cache.ts), so an OAuth access token is reused between calls,
 * one refresh serves every call waiting for it, and a call needs no store round trip.
 */
import { performance } from 'node:perf_hooks';
import { AuthenticationError, UnknownOperationError, type Connector, type EntityDefinition } from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import { excludePaths, selectPaths } from '../field-paths.js';
import { contextStoreSearch } from '../context/search.js';
import type { ConnectorRow } from './connector-lookup.js';
import { assertWorkspaceActive } from './workspaces.js';
import { observeUpstream } from '../observability/observer.js';
import type { ExecuteRequest, ExecuteResponse } from '../api-shapes.js';

export const CONTEXT_STORE_SEARCH = 'context_store_search';

/** The warm connector instance of a stored connector (shared with execute; the context store sync reads through it). */
export function connectorInstance(ctx: ServiceContext, row: ConnectorRow): Connector {
  return ctx.connectors.instanceFor(row);
}

/** An entity without searchable fields has no context_store_search. */
function refuseContextStoreSearch(entityName: string, entity: EntityDefinition): never {
  const valid = Object.keys(entity.actions);
  const message = `Unknown action "${CONTEXT_STORE_SEARCH}" for ${entityName}: this entity has no context store search. Valid actions: ${valid.join(', ')}.`;
  throw new UnknownOperationError(message, { issues: [{ field: 'action', rule: 'unknown_operation', message, limit: valid }] });
}

/**
 * context_store_search (hosted mode only; the runtime answers HostedOnlyError in library mode): searches
 * the synchronized copy of the entity (src/context/search.ts). select_fields/exclude_fields apply to
 * each record (semantic mode: to each hit's entity).
 */
async function runContextStoreSearch(
  ctx: ServiceContext,
  organizationId: string,
  row: ConnectorRow,
  connector: Connector,
  request: ExecuteRequest,
  started: number,
): Promise<ExecuteResponse> {
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
  signal?: AbortSignal,
): Promise<ExecuteResponse> {
  const started = performance.now();
  const { row, workspace, connector } = await ctx.connectors.get(organizationId, connectorId);
  assertWorkspaceActive(workspace);
  if (request.action === CONTEXT_STORE_SEARCH) {
    return runContextStoreSearch(ctx, organizationId, row, connector, request, started);
  }
  let outcome;
  try {
    outcome = await observeUpstream(ctx, row.connector_type, () =>
      connector.execute(request.entity, request.action, request.params ?? {}, signal === undefined ? {} : { signal }),
    );
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
