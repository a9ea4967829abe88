import type { Kysely, Selectable, Transaction } from 'kysely';
import type { ConnectorsTable, DatabaseSchema } from '../db/schema.js';
import { ResourceNotFoundError } from '../errors.js';

export type ConnectorRow = Selectable<ConnectorsTable>;
type Db = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

/**
 * A connector of the caller's organization in a live workspace. Another organization's connector is
 * "not found", never "forbidden", so ids cannot be probed across tenants.
 */
export async function findConnector(db: Db, organizationId: string, id: string): Promise<ConnectorRow> {
  const row = await db
    .selectFrom('connectors')
    .innerJoin('workspaces', 'workspaces.id', 'connectors.workspace_id')
    .selectAll('connectors')
    .where('connectors.organization_id', '=', organizationId)
    .where('connectors.id', '=', id)
    .where('workspaces.deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ResourceNotFoundError(`No connector ${id}.`);
  return row;
}
