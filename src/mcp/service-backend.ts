import { isStoreUnavailable } from '../db/store-errors.js';
import { StoreUnavailableError } from '../errors.js';
import type { ServiceContext } from '../service-context.js';
import { listConnectors } from '../services/connectors.js';
import { CONTEXT_STORE_SEARCH, executeOperation } from '../services/execution.js';
import { outcomeFromResponse, type ExecuteOutcome, type McpBackend, type McpConnector, type SearchOutcome } from './backend.js';

/** Who the MCP session acts for: an organization, and the workspaces a scoped principal is limited to. */
export interface McpScope {
  organizationId: string;
  /** undefined: every workspace of the organization. */
  workspaceIds?: string[];
}

/** The scope of an authenticated principal; honours a workspace restriction when the principal carries one. */
export function scopeOf(principal: { organizationId: string } & { workspaceId?: unknown; workspaceIds?: unknown }): McpScope {
  const ids = Array.isArray(principal.workspaceIds) ? principal.workspaceIds.filter((id): id is string => typeof id === 'string') : [];
  if (typeof principal.workspaceId === 'string') ids.push(principal.workspaceId);
  return { organizationId: principal.organizationId, ...(ids.length > 0 && { workspaceIds: ids.map((id) => id.toLowerCase()) }) };
}

/** A store outage as the HTTP API reports it (store_unavailable, retry shortly), not as an internal error. */
async function storeOutagesNamed<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (isStoreUnavailable(error)) throw new StoreUnavailableError('The store is unreachable right now; retry shortly.', { cause: error });
    throw error;
  }
}

/** Streamable HTTP on the service: the services themselves, limited to the caller's scope. */
export class ServiceBackend implements McpBackend {
  readonly mode = 'hosted';

  constructor(
    private readonly ctx: ServiceContext,
    private readonly scope: McpScope,
  ) {}

  private listed?: Promise<McpConnector[]>;

  /** Read once per backend: the HTTP transport builds one backend per request. */
  connectors(): Promise<McpConnector[]> {
    this.listed ??= storeOutagesNamed(this.load());
    this.listed.catch(() => (this.listed = undefined));
    return this.listed;
  }

  private async load(): Promise<McpConnector[]> {
    const all = await listConnectors(this.ctx, this.scope.organizationId, {});
    const { workspaceIds } = this.scope;
    return all
      .filter((c) => workspaceIds === undefined || workspaceIds.includes(c.workspace_id))
      .map((c) => ({ id: c.id, connector_type: c.connector_type, name: c.name, workspace_id: c.workspace_id, workspace_name: c.workspace_name }));
  }

  async execute(connector: McpConnector, entity: string, action: string, params: Record<string, unknown>): Promise<ExecuteOutcome> {
    const response = await storeOutagesNamed(executeOperation(this.ctx, this.scope.organizationId, connector.id, { entity, action, params }));
    return outcomeFromResponse(response);
  }

  async contextStoreSearch(connector: McpConnector, entity: string, params: Record<string, unknown>): Promise<SearchOutcome> {
    const response = await storeOutagesNamed(
      executeOperation(this.ctx, this.scope.organizationId, connector.id, { entity, action: CONTEXT_STORE_SEARCH, params }),
    );
    return response.result as SearchOutcome;
  }
}
