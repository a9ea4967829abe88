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
];
