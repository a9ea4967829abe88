/**
 * The bodies of the HTTP API as its clients see them: what the services take and answer. The services
 * build them; the typed client (client/) reads them, and the library package carries them with the client,
 * so this module depends on nothing but the runtime's types.
 */
import type { ContentBlock, JsonObject, JsonValue, ParamDefinition } from '../runtime/index.js';

export type SyncStatus = 'initializing' | 'ready' | 'updating' | 'failed';

/** How a sync reads an entity: every record (and marks unseen ones deleted), or only those changed since the high-water mark. */
export type SyncMode = 'full' | 'incremental';

export type WorkspaceStatus = 'active' | 'inactive';

/** The reference's ConnectorSpecification: documentation link and the JSON Schema of the connector's settings. */
export interface ConnectorSpecification {
  documentationUrl: string | null;
  connectionSpecification: JsonObject;
}

/** The template part of a connector record (the reference's DetailedSourceTemplate), built from the definition. */
export interface DetailedSourceTemplate {
  id: string;
  name: string;
  icon: string;
  source_definition_id: string;
  user_config_spec: ConnectorSpecification;
  partial_default_config: Record<string, never>;
  tags: string[];
  mode: 'DIRECT';
  is_experimental: boolean;
  supports_context_store: boolean;
  created_at: null;
  updated_at: null;
}

/** The reference's SummarizedSourceTemplate, used in connector lists. */
export interface SummarizedSourceTemplate {
  id: string;
  name: string;
  icon: string;
  connector_name: string;
  actor_definition_id: string;
  organization_id: null;
  tags: string[];
  mode: 'DIRECT';
  supports_context_store: boolean;
  created_at: null;
  updated_at: null;
}

export interface CreateConnectorInput {
  workspace_name: string;
  definition_id?: string | null;
  connector_type?: string | null;
  /** Absent: the display name of the connector kind. */
  name?: string | null;
  credentials?: Record<string, unknown> | null;
  replication_config?: Record<string, unknown> | null;
}

export interface UpdateConnectorInput {
  name?: string | null;
  credentials?: Record<string, unknown> | null;
  replication_config?: Record<string, unknown> | null;
}

/** Fields Switchyard adds to the reference's connector shapes. */
export interface ConnectorIdentity {
  workspace_id: string;
  workspace_name: string;
  connector_type: string;
  definition_id: string;
  /** Title of the credential option in use (a name, never a value). */
  auth_option: string;
}

/** The reference's ConnectorSourceCreate/Get/UpdateResponse plus ConnectorIdentity. Holds no credential value. */
export interface ConnectorView extends ConnectorIdentity {
  id: string;
  name: string;
  source_template: DetailedSourceTemplate;
  replication_config: Record<string, unknown>;
  entities: null;
  created_at: string;
  updated_at: string;
}

/** The reference's ConnectorSourceListItem plus ConnectorIdentity. */
export interface ConnectorListItem extends ConnectorIdentity {
  id: string;
  name: string;
  summarized_source_template: SummarizedSourceTemplate;
  created_at: string;
  updated_at: string;
}

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

export interface ParamCatalog {
  name: string;
  location: ParamDefinition['in'];
  required: boolean;
  type: JsonValue | null;
  description: string | null;
  enum?: JsonValue[];
  default?: JsonValue;
  limits: Record<string, JsonValue>;
  /** The param's full JSON Schema (items, properties...). */
  schema: JsonObject;
  /** Other names the param is accepted under (e.g. the name Airbyte's clients send). */
  aliases?: string[];
}

export interface ActionCatalog {
  name: string;
  description: string | null;
  /** many: result is an array of records; one: result is an object. */
  result: 'many' | 'one';
  idempotent: boolean;
  destructive: boolean;
  params: ParamCatalog[];
  /** The caller must give at least one of these params. */
  at_least_one_of?: string[];
  /** The caller may give at most one of these params. */
  at_most_one_of?: string[];
  /** Fields beyond the declared params are sent in the request body. */
  accepts_additional_params: boolean;
  /** null for actions that do not paginate. */
  pagination: { style: string; block_keys: string[] } | null;
  /**
   * The universal `limit` param (the most records to return) of actions returning many records that do
   * not declare `limit` themselves: the page-size param it becomes (clamped to minimum..maximum), or
   * null when it cuts the returned page. Absent when the action has none.
   */
  limit?: { page_size_param: string | null; minimum: number | null; maximum: number | null; description: string };
}

export interface EntityCatalog {
  name: string;
  description: string;
  /** id_field: the id's dot path, or the fields that together identify a record without an id of its own. */
  record: { id_field: string | string[]; fields: Record<string, JsonObject> };
  search: { fields: string[]; semantic: Array<{ field: string; context_window: number }> };
  actions: ActionCatalog[];
}

export interface InspectResponse {
  connector_id: string;
  name: string;
  workspace_id: string;
  organization_id: string;
  source_definition_id: string;
  source_definition_name: string | null;
  source_config_template_id: string;
  docs_skill_id: string;
  /** Sync state per entity of the context store; null for a connector type this service no longer offers. */
  context_store_readiness: ContextStoreReadiness | null;
  warnings: string[];
  connector_type: string;
  entities: EntityCatalog[];
  usage_guidance: string;
}

export interface SkillMetadata {
  id: string;
  kind: 'connector_source';
  title: string;
  summary: string;
  tags: string[];
  provenance: string;
  version: string;
  freshness: { state: 'static'; checked_at: null };
  warnings: string[];
}

export interface SkillDocsResponse {
  metadata: SkillMetadata;
  outline: Array<{ id: string; title: string; summary: string; available: true }>;
  section_id: string | null;
  content: ContentBlock[];
}

/** Stored statuses, plus `not_synced` for an entity no sync has started for yet. */
export type ReadinessStatus = SyncStatus | 'not_synced';

/** The reference's ConnectorInspectConfiguredCacheEntity, plus Switchyard's sync details. */
export interface ConfiguredCacheEntity {
  entity: string;
  status: ReadinessStatus;
  ready_for_search: boolean;
  supported: boolean;
  entity_count: number;
  /** End of the last complete sync. */
  updated_at: string | null;
  semantic_search_status: Array<{ field: string; status: 'INDEXING' | 'READY' }>;
  reason: string | null;
  pages: number;
  started_at: string | null;
  finished_at: string | null;
  /** incremental when the manifest declares the entity's change filter (syncs between full sweeps ask only for changes), else full. */
  mode: SyncMode;
  /** Mode of the last sync started, or null before the first. */
  last_mode: SyncMode | null;
  /** Latest change time read by the complete syncs (incremental entities), or null. */
  high_water_mark: string | null;
  /** Start of the last complete full walk (which marks records no longer listed as deleted), or null. */
  last_full_sweep_at: string | null;
  /** Live records the last complete full walk did not read: the next full walk (the next sync) marks them deleted if it misses them too. */
  unconfirmed_deletions: number;
  /** When the next sync walks everything again (incremental entities; in the past when it is due, as with unconfirmed deletions), or null. */
  next_full_sweep_at: string | null;
  /** Seconds since the start of the last complete sync: a change made upstream before then is in the store. Null before the first. */
  lag_seconds: number | null;
}

/** The reference's ConnectorInspectContextStoreReadiness. */
export interface ContextStoreReadiness {
  connector_id: string;
  source_definition_id: string;
  supported_context_store_entities: Array<{ entity: string; suggested: boolean }>;
  configured_cache_entities: ConfiguredCacheEntity[];
}

/** A workspace as the API returns it (the reference's WorkspaceGetResponse, plus connector_count on get/update). */
export interface WorkspaceRecord {
  id: string;
  name: string;
  organization_id: string;
  status: WorkspaceStatus;
  /** Switchyard has no Context Store cache: always null ("inherit from organization"). */
  cache_enabled: null;
  tombstone: boolean;
  /** Every client of the organization sees every workspace. */
  visibility: 'shared';
  color: null;
  created_at: string;
  updated_at: string;
}

export type WorkspaceDetail = WorkspaceRecord & { connector_count: number };

/** How an entity's sync ended. */
export type EntityOutcomeStatus = 'ready' | 'failed' | 'skipped';

/** How an entity's sync outcome is shown to callers: the `results` of POST .../sync and `switchyard sync --json`. */
export interface EntityOutcomeView {
  entity: string;
  status: EntityOutcomeStatus;
  mode?: SyncMode;
  records: number;
  changed: number;
  deleted: number;
  unconfirmed_deletions: number;
  pages: number;
  record_count: number;
  seconds: number;
  reason?: string;
}
