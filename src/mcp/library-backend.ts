import type { Connector } from '../../runtime/index.js';
import type { ExecuteOutcome, McpBackend, McpConnector } from './backend.js';

/** Library mode: one connector of the runtime, with credentials the operator supplied. */
export class LibraryBackend implements McpBackend {
  readonly mode = 'library';

  constructor(private readonly connector: Connector) {}

  async connectors(): Promise<McpConnector[]> {
    const { connectorType, displayName } = this.connector.definition;
    return [{ id: connectorType, connector_type: connectorType, name: displayName }];
  }

  execute(_connector: McpConnector, entity: string, action: string, params: Record<string, unknown>): Promise<ExecuteOutcome> {
    return this.connector.execute(entity, action, params);
  }
}
