/**
 * Schema migrations, applied in order by migrate.ts. The same SQL runs on PGlite and PostgreSQL.
 * Never edit a released migration; add a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

export const migrations: Migration[] = [
  {
    version: 1,
    name: 'organizations, clients, workspaces, connectors',
    sql: `
      CREATE TABLE organizations (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE api_clients (
        id uuid PRIMARY KEY,
        name text NOT NULL,
        secret_hash text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE TABLE api_client_organizations (
        client_id uuid NOT NULL REFERENCES api_clients(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        PRIMARY KEY (client_id, organization_id)
      );
      CREATE TABLE workspaces (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        name text NOT NULL,
        status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'inactive')),
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      );
      CREATE UNIQUE INDEX workspaces_live_name ON workspaces (organization_id, name) WHERE deleted_at IS NULL;
      CREATE TABLE connectors (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        connector_type text NOT NULL,
        definition_id uuid NOT NULL,
        name text NOT NULL,
        auth_option text NOT NULL,
        config jsonb NOT NULL DEFAULT '{}',
        replication_config jsonb NOT NULL DEFAULT '{}',
        credentials_key_id text NOT NULL,
        credentials_iv text NOT NULL,
        credentials_ciphertext text NOT NULL,
        credentials_tag text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX connectors_by_workspace ON connectors (organization_id, workspace_id);
    `,
  },
  {
    version: 2,
    name: 'context store: synchronized records and sync state',
    sql: `
      CREATE TABLE context_records (
        connector_id uuid NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        entity text NOT NULL,
        record_id text NOT NULL,
        data jsonb NOT NULL,
        content_hash text NOT NULL,
        first_seen_at timestamptz NOT NULL DEFAULT now(),
        last_synced_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz,
        PRIMARY KEY (connector_id, entity, record_id)
      );
      CREATE INDEX context_records_live ON context_records (organization_id, connector_id, entity) WHERE deleted_at IS NULL;
      CREATE INDEX context_records_data ON context_records USING gin (data jsonb_path_ops);
      CREATE TABLE context_sync_state (
        connector_id uuid NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        entity text NOT NULL,
        status text NOT NULL CHECK (status IN ('initializing', 'ready', 'updating', 'failed')),
        record_count integer NOT NULL DEFAULT 0,
        pages integer NOT NULL DEFAULT 0,
        last_synced_at timestamptz,
        last_error text,
        started_at timestamptz,
        finished_at timestamptz,
        PRIMARY KEY (connector_id, entity)
      );
    `,
  },
];
