import type { ColumnType, Generated } from 'kysely';
import type { SyncMode, SyncStatus, WorkspaceStatus } from '../api-shapes.js';

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
  /** When a sync last wrote the record (new, changed or reappeared); an unchanged record is not rewritten. */
  last_synced_at: Timestamp;
  /** Set when a complete sync no longer sees the record; such records leave search results. */
  deleted_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
}

/** The runner (src/context/sync/runner-lock.ts) of each sync job a process runs on PostgreSQL (migration 15). */
export interface SyncJobRunnersTable {
  job_id: string;
  /** The job's queue: pg-boss's job table is keyed by (name, id). */
  queue_name: string;
  runner_key: number;
  /** This attempt of the job: a later attempt (after a hand-back) notes another. */
  attempt: string;
  started_at: Generated<Date>;
}

/** A word of an entity's records (migration 16), for the typos of fuzzy (src/context/typos.ts). */
export interface ContextWordsTable {
  connector_id: string;
  entity: string;
  word: string;
}

/** Ids of the records the full sync under way of an entity has read (migration 10); its final sweep keeps only these. */
export interface ContextSyncSeenTable {
  connector_id: string;
  entity: string;
  record_id: string;
}

/**
 * Live records that the last complete full walk of an entity did not read (migration 13): the next complete
 * full walk marks them deleted if it misses them too.
 */
export interface ContextSyncMissedTable {
  connector_id: string;
  entity: string;
  record_id: string;
}

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
  /** Mode of the last sync started (migration 8); null before it. */
  last_mode: ColumnType<SyncMode | null, SyncMode | null | undefined, SyncMode | null>;
  /** Latest change time seen by the complete syncs (migration 8). */
  high_water_mark: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Start of the last complete full walk, which marked unseen records deleted (migration 8). */
  last_full_sweep_at: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Start of the last complete sync, full or incremental (migration 8). */
  synced_through: ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;
  /** Live records the last complete full walk did not read (context_sync_missed, migration 13). */
  unconfirmed_deletions: ColumnType<number, number | undefined, number>;
}

/** One passage of a semantically searchable field of a synced record, with its embedding (migration 3). */
export interface ContextPassagesTable {
  connector_id: string;
  entity: string;
  record_id: string;
  /** The semantic field (dot path) the passage comes from. */
  field: string;
  /** Position of the passage in the field's text, from 0. */
  ordinal: number;
  organization_id: string;
  /** Character offset of the passage in the field's normalized text. */
  start_offset: number;
  content: string;
  /** sha256 of content: an unchanged passage of a changed record keeps its embedding. */
  content_hash: string;
  /** Id of the embedding model (provider) that made the embedding; another model re-embeds. */
  model: string;
  dims: number;
  /** Unit vector. */
  embedding: number[];
  embedded_at: Timestamp;
}

/** Which content of a record the semantic index holds, and made with which model (migration 3). */
export interface ContextSemanticStateTable {
  connector_id: string;
  entity: string;
  record_id: string;
  model: string;
  /** context_records.content_hash of the record as it was indexed. */
  content_hash: string;
  passages: number;
  indexed_at: Timestamp;
}

type NullableTimestamp = ColumnType<Date | null, Date | string | null | undefined, Date | string | null>;

/** AES-256-GCM envelope columns, as in connectors (src/services/credentials.ts opens them). */
interface SealedColumns {
  credentials_key_id: string;
  credentials_iv: string;
  credentials_ciphertext: string;
  credentials_tag: string;
}

export type SourceTemplateMode = 'DIRECT' | 'REPLICATION' | 'MULTI';

/** A connector type an organization's end users may connect through the connect page (migration 5). */
export interface SourceTemplatesTable {
  id: string;
  organization_id: string;
  definition_id: string;
  connector_type: string;
  name: string;
  /** Non-secret connector settings preset by the organization (replication_config values). */
  partial_default_config: Json<Record<string, string>>;
  customization: ColumnType<unknown, string | null | undefined, string | null>;
  mode: ColumnType<SourceTemplateMode, SourceTemplateMode | undefined, SourceTemplateMode>;
  tags: ColumnType<string[], string | undefined, string>;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

/** An organization's own OAuth app for one connector type; client_id and client_secret are sealed (migration 5). */
export interface OAuthAppsTable extends SealedColumns {
  id: string;
  organization_id: string;
  connector_type: string;
  definition_id: string;
  created_at: Timestamp;
  updated_at: Timestamp;
  deleted_at: NullableTimestamp;
}

/** A consent in progress: what the callback needs (PKCE verifier, connector name and settings), sealed (migration 5). */
export interface OAuthSessionsTable extends SealedColumns {
  id: string;
  organization_id: string;
  workspace_id: string;
  template_id: string;
  option_title: string;
  expires_at: ColumnType<Date, Date | string, Date | string>;
  used_at: NullableTimestamp;
  created_at: Timestamp;
}

export interface ConnectSubmissionsTable {
  id: string;
  organization_id: string;
  connector_id: string | null;
  created_at: Timestamp;
}

export interface SchemaMigrationsTable {
  version: number;
  name: string;
  applied_at: Generated<Date>;
}

/** The master key check (src/security/key-check.ts): one row. */
export interface KeyCheckTable {
  id: number;
  key_id: string;
  iv: string;
  ciphertext: string;
  tag: string;
  created_at: Timestamp;
}

export interface DatabaseSchema {
  key_check: KeyCheckTable;
  organizations: OrganizationsTable;
  api_clients: ApiClientsTable;
  api_client_organizations: ApiClientOrganizationsTable;
  workspaces: WorkspacesTable;
  connectors: ConnectorsTable;
  context_records: ContextRecordsTable;
  context_sync_state: ContextSyncStateTable;
  context_sync_seen: ContextSyncSeenTable;
  context_words: ContextWordsTable;
  sync_job_runners: SyncJobRunnersTable;
  context_sync_missed: ContextSyncMissedTable;
  context_passages: ContextPassagesTable;
  context_semantic_state: ContextSemanticStateTable;
  source_templates: SourceTemplatesTable;
  oauth_apps: OAuthAppsTable;
  oauth_sessions: OAuthSessionsTable;
  connect_submissions: ConnectSubmissionsTable;
  schema_migrations: SchemaMigrationsTable;
}
