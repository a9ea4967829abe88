/**
 * What the MCP server needs from where it runs: the connectors in scope and a way to execute on them.
 * Three implementations: the runtime with local credentials (library mode, stdio), a running service
 * through the typed client (hosted mode, stdio), and the service itself (Streamable HTTP at /mcp).
 */

export interface McpConnector {
  /** The connector id (hosted) or the connector type (library mode). */
  id: string;
  connector_type: string;
  name: string;
  workspace_id?: string;
  workspace_name?: string;
}

export interface ExecuteOutcome {
  data: unknown;
  /** The connector kind's native pagination keys, when the action paginates. */
  pagination?: Record<string, unknown>;
  next_params?: Record<string, unknown>;
}

export interface SearchOutcome {
  data: unknown[];
  meta: Record<string, unknown>;
}

export interface McpBackend {
  readonly mode: 'library' | 'hosted';
  connectors(): Promise<McpConnector[]>;
  execute(connector: McpConnector, entity: string, action: string, params: Record<string, unknown>): Promise<ExecuteOutcome>;
  /** context_store_search; absent in library mode, which has no context store. */
  contextStoreSearch?(connector: McpConnector, entity: string, params: Record<string, unknown>): Promise<SearchOutcome>;
}

/** An execute response of the HTTP API (result + connector_metadata) as an outcome. */
export function outcomeFromResponse(response: { result: unknown; connector_metadata: Record<string, unknown> }): ExecuteOutcome {
  const { next_params, ...pagination } = response.connector_metadata as { next_params?: Record<string, unknown> } & Record<string, unknown>;
  return { data: response.result, ...(Object.keys(pagination).length > 0 && { pagination }), ...(next_params !== undefined && { next_params }) };
}
