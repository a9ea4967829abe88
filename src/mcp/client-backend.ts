import type { SwitchyardClient } from '../../client/index.js';
import { outcomeFromResponse, type ExecuteOutcome, type McpBackend, type McpConnector, type SearchOutcome } from './backend.js';

/** Hosted mode over stdio: a running service reached through the typed client. */
export class ClientBackend implements McpBackend {
  readonly mode = 'hosted';

  constructor(private readonly client: SwitchyardClient) {}

  async connectors(): Promise<McpConnector[]> {
    const list = await this.client.connectors.list();
    return list.map((c) => ({ id: c.id, connector_type: c.connector_type, name: c.name, workspace_id: c.workspace_id, workspace_name: c.workspace_name }));
  }

  async execute(connector: McpConnector, entity: string, action: string, params: Record<string, unknown>): Promise<ExecuteOutcome> {
    return outcomeFromResponse(await this.client.execute(connector.id, { entity, action, params }));
  }

  async contextStoreSearch(connector: McpConnector, entity: string, params: Record<string, unknown>): Promise<SearchOutcome> {
    const response = await this.client.execute(connector.id, { entity, action: 'context_store_search', params });
    return response.result as SearchOutcome;
  }
}
