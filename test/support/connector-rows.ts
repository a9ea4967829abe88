/**
 * Stores a connector straight through the database (sealed credentials, workspace ensured), for suites
 * that test routes reading connectors without going through POST /api/v1/integrations/connectors, and for
 * the benchmarks that load records for one.
 */
import { randomUUID } from 'node:crypto';
import { connectorModules } from '../../runtime/index.js';
import { openCredentials, sealCredentials } from '../../src/services/credentials.js';
import { ensureWorkspace } from '../../src/services/workspaces.js';
import type { TestService } from './service.js';

export interface ConnectorRowInput {
  connectorType: string;
  authOption: string;
  credentials: Record<string, string>;
  config?: Record<string, string>;
  workspace?: string;
  name?: string;
}

export async function insertConnector(service: Pick<TestService, 'store' | 'keyring'>, organizationId: string, input: ConnectorRowInput): Promise<string> {
  const module = connectorModules[input.connectorType];
  if (!module) throw new Error(`no connector type ${input.connectorType}`);
  const workspace = await ensureWorkspace(service.store.db, organizationId, input.workspace ?? 'default');
  const id = randomUUID();
  await service.store.db
    .insertInto('connectors')
    .values({
      id,
      organization_id: organizationId,
      workspace_id: workspace.id,
      connector_type: input.connectorType,
      definition_id: module.definition.definitionId,
      name: input.name ?? `${module.definition.displayName} connector`,
      auth_option: input.authOption,
      config: JSON.stringify(input.config ?? {}),
      replication_config: '{}',
      ...sealCredentials(service.keyring, id, input.credentials),
    })
    .execute();
  return id;
}

/** The connector's row and its credentials as stored (decrypted). */
export async function storedCredentials(service: TestService, connectorId: string): Promise<{ ciphertext: string; credentials: Record<string, string> }> {
  const row = await service.store.db.selectFrom('connectors').selectAll().where('id', '=', connectorId).executeTakeFirstOrThrow();
  return { ciphertext: row.credentials_ciphertext, credentials: openCredentials(service.keyring, connectorId, row) };
}
