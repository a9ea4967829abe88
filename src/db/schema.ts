import type { ColumnType, Generated } from 'kysely';

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>;
type Json<T> = ColumnType<T, string, string>;

export interface OrganizationsTable {
  id: string;
  name: string;
  created_at: Timestamp;
}

export interface ApiClientsTable {
  id: string;
  name: string;
  /** scrypt hash of the client secret (src/security/secrets.ts). */
  secret_hash: string;
  created_at: Timestamp;
}

export interface ApiClientOrganizationsTable {
  client_id: string;
  organization_id: string;
}

export type WorkspaceStatus = 'active' | 'inactive';

export interface WorkspacesTable {
  id: string;
  organization_id: string;
  name: string;
  status: WorkspaceStatus;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface ConnectorsTable {
  id: string;
  organization_id: string;
  workspace_id: string;
  connector_type: string;
  definition_id: string;
  name: string;
  auth_option: string;
  config: Json<Record<string, string>>;
  replication_config: Json<Record<string, unknown>>;
  /** AES-256-GCM envelope of the credentials (src/security/keyring.ts). */
  credentials_key_id: string;
  credentials_iv: string;
  credentials_ciphertext: string;
  credentials_tag: string;
  created_at: Timestamp;
  updated_at: Timestamp;
}

export interface ContextRecordsTable {
  connector_id: string;
  organization_id: string;
  entity: string;
  record_id: string;
  data: Json<Record<string, unknown>>;
  /** Hash of the record as synced, so an unchanged record is not rewritten or re-embedded. */
  content_hash: string;
  first_seen_at: Timestamp;
  last_synced_at: Timestamp;
  /** Set when a complete sync no longer sees the record; such records leave search results. */
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export type SyncStatus = 'initializing' | 'ready' | 'updating' | 'failed';

export interface ContextSyncStateTable {
  connector_id: string;
  entity: string;
  status: SyncStatus;
  record_count: ColumnType<number, number | undefined, number>;
  pages: ColumnType<number, number | undefined, number>;
  last_synced_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  last_error: string | null;
  started_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  finished_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: Generated<Date>;
}

export interface DatabaseSchema {
  organizations: OrganizationsTable;
  api_clients: ApiClientsTable;
  api_client_organizations: ApiClientOrganizationsTable;
  workspaces: WorkspacesTable;
  connectors: ConnectorsTable;
  context_records: ContextRecordsTable;
  context_sync_state: ContextSyncStateTable;
  schema_migrations: SchemaMigrationsTable;
}
