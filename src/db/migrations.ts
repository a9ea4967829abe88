/**
 * Schema migrations, applied in order by migrate.ts. The same SQL runs on PGlite and PostgreSQL.
 * Never edit a released migration; add a new one.
 */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

/**
 * Migration 4: the top-level timestamp fields that get a btree over their first 10 characters (the
 * date), per connector and entity, for range filters (see src/context/filter). The most common
 * searchable timestamp names across the manifests. Part of a released migration: never edit; a later
 * migration may add more.
 */
const DATE_INDEXED_FIELDS = [
  'created_at',
  'updated_at',
  'created_time',
  'updated_time',
  'create_time',
  'modify_time',
  'start_time',
  'created',
  'updated',
  'createdAt',
  'updatedAt',
  'CreatedDate',
  'LastModifiedDate',
  'dateCreated',
  'date_created',
  'date_updated',
  'last_edited_time',
];

const DATE_INDEXES = DATE_INDEXED_FIELDS.map(
  (field) =>
    `      CREATE INDEX "context_records_day_${field}" ON context_records (connector_id, entity, left(data ->> '${field}', 10))` +
    ` WHERE deleted_at IS NULL AND data ? '${field}';`,
).join('\n');

/**
 * Migration 5: the catalog took Airbyte's definition ids (so that clients written for Airbyte's Agent API
 * find each connector kind); connectors stored before keep working under the new ids. Pairs of
 * [old id, new id]. Part of a released migration: never edit.
 */
export const DEFINITION_ID_CHANGES: ReadonlyArray<readonly [string, string]> = [
  ['c129736f-2748-4f8a-8eef-d54d6ce4b804', '311a7a27-3fb5-4f7e-8265-5e4afe258b66'], // clickup
  ['e43f4401-18f7-44ee-82e1-28f03069873a', '34f697bc-b989-4eda-b06f-d0f39b88825b'], // customer-io
  ['bf96eaf8-222b-4e5f-a862-6c66e0a96177', 'e7778cfc-e97c-4458-9ecb-b4f2bba8946c'], // facebook-marketing
  ['2e9d55ba-9637-4ada-9b79-05ada60fca83', '32382e40-3b49-4b99-9c5c-4076501914e7'], // gong
  ['7a3e9f52-1c4b-4d8e-9b6a-2f5c8d1e0a47', 'fe2b4084-3386-4d3b-9ad6-308f61a6f1e6'], // harvest
  ['05d9564f-e071-4ba0-b2cb-01121b66d5cf', 'd8313939-3782-41b0-be29-b3ca20d8dd3a'], // intercom
  ['b6d2e8f1-4a7c-4b3e-8f9d-1c5a7e3b9d20', '68e63de2-bb83-4c7e-93fa-a8a9051e3993'], // jira
  ['37dfc2b0-bf1b-4984-8403-0e729a8d286d', '95e8cffd-b8c4-4039-968e-d32fb4a69bde'], // klaviyo
  ['3f1b7c9e-8a2d-4e6f-b5c3-9d0a1e2f4b68', '1c5d8316-ed42-4473-8fbc-2626f03f070c'], // linear
  ['addee1d5-7c5d-4b72-8e1a-99c2d4d26cf4', '6e00b415-b02e-4160-bf02-58176a0ae687'], // notion
  ['e9b4b2e1-9d1a-4b65-87a8-81e08754808b', '7f0455fb-4518-4ec0-b7a3-d808bf8081cc'], // orb
  ['46bfcf63-1411-4363-8138-d241e232dace', '5cb7e5fe-38c2-11ec-8d3d-0242ac130003'], // pinterest
  ['c3510d9d-1991-4e48-8c6a-d7d4a05b4a9f', 'f2e53e88-3c6b-4e5a-b7c2-a1d9c5e8f4b6'], // pylon
  ['3ab5d40b-18b5-4c2c-934c-023be7eecdd3', 'b117307c-14b6-41aa-9422-947e34922962'], // salesforce
  ['9e311efd-a846-4cd4-b29d-da5c7d244b93', 'cdaf146a-9b75-49fd-9dd2-9d64a0bb4781'], // sentry
  ['30f0e653-458f-4b2c-9d36-093392a33a6c', '200330b2-ea62-4d11-ac6d-cfe3e3f8ab2b'], // snapchat-marketing
  ['60a49fe7-12df-48a2-b00d-02c628c464cc', '4bfac00d-ce15-44ff-95b9-9e3c3e8fbd35'], // tiktok-marketing
  ['18792fc5-34c8-4fb9-893c-9c3762cb5edb', 'e7eff203-90bf-43e5-a240-19ea3056c474'], // typeform
  ['b19e6b20-d9bd-4762-9a4d-f7850ed97fc3', '40d24d0f-b8f9-4fe0-9e6c-b06c0f3f45e4'], // zendesk-chat
  ['7efcc316-9c9c-4893-be96-4ced177b51eb', 'c8630570-086d-4a40-99ae-ea5b18673071'], // zendesk-talk
];

const DEFINITION_ID_UPDATE = `
      UPDATE connectors SET definition_id = changes.new_id::uuid
      FROM (VALUES
${DEFINITION_ID_CHANGES.map(([from, to]) => `        ('${from}', '${to}')`).join(',\n')}
      ) AS changes (old_id, new_id)
      WHERE connectors.definition_id = changes.old_id::uuid;`;

/**
 * Migration 9: the top-level fields that get a sort index, so a search sorted by one of them reads its
 * records in order and stops after a page (src/context/filter/sort.ts plans sorted searches onto these).
 * The timestamp fields of migration 4 and the common name and priority fields. Part of a released
 * migration: never edit; a later migration may add more.
 */
export const SORT_INDEXED_FIELDS: readonly string[] = [...DATE_INDEXED_FIELDS, 'name', 'title', 'subject', 'priority'];

/** The two sort keys of a top-level field, as src/context/filter/sort.ts writes them (numbers by value, then text lowercased). */
function sortKeyExpressions(field: string): string {
  return `(CASE WHEN jsonb_typeof(data -> '${field}') = 'number' THEN (data -> '${field}')::numeric END), (lower(data ->> '${field}') COLLATE "C")`;
}

/**
 * Keeps the words of the live records already stored in context_words (migration 16), by the rule of
 * wordsToKeep (src/context/typos.ts) that a sync keeps them by: runs of letters and digits of every string
 * value, lowercased, without digits, of 3 to 64 letters. Also what a benchmark that loads records in SQL runs.
 */
export const KEEP_STORED_WORDS = `
  INSERT INTO context_words (connector_id, entity, word)
  SELECT DISTINCT r.connector_id, r.entity, w.word
  FROM context_records AS r
  CROSS JOIN LATERAL jsonb_path_query(r.data, 'strict $.**') AS v(value)
  CROSS JOIN LATERAL regexp_split_to_table(lower(v.value #>> '{}'), '[^[:alnum:]]+') AS w(word)
  WHERE r.deleted_at IS NULL AND jsonb_typeof(v.value) = 'string'
    AND length(w.word) BETWEEN 3 AND 64 AND w.word !~ '[[:digit:]]'
  ON CONFLICT DO NOTHING`;

/**
 * Migration 9: the top-level text fields that get their own trigram index: fuzzy, contains, like,
 * startswith, endswith and keyword on them are served by it exactly (candidates of that field only, a
 * cheap recheck), where other fields go through the trigram index of the whole record's text. Part of a
 * released migration: never edit; a later migration may add more.
 */
export const TRIGRAM_INDEXED_FIELDS: readonly string[] = ['title', 'name', 'subject', 'summary'];

const TRIGRAM_INDEXES = TRIGRAM_INDEXED_FIELDS.map(
  (field) => `      CREATE INDEX "context_records_trgm_${field}" ON context_records USING gin ((data ->> '${field}') gin_trgm_ops);`,
).join('\n');

/**
 * Migration 11: the top-level fields whose string, number or boolean value is left out of the record's
 * value text, because each has its own trigram index (TRIGRAM_INDEXED_FIELDS) that serves every text
 * operator on it. Part of a released migration: never edit (a test checks it against
 * TRIGRAM_INDEXED_FIELDS, which compile.ts reads).
 */
export const VALUE_TEXT_OMITTED_FIELDS: readonly string[] = ['title', 'name', 'subject', 'summary'];

const SORT_INDEXES = SORT_INDEXED_FIELDS.map(
  (field) =>
    `      CREATE INDEX "context_records_sort_${field}" ON context_records (connector_id, entity, ${sortKeyExpressions(field)})` +
    ` WHERE deleted_at IS NULL AND (data ->> '${field}') IS NOT NULL;`,
).join('\n');

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
  {
    version: 3,
    name: 'context store: semantic passages and their embeddings',
    // Embeddings are real[] (unit vectors) so the same table works on every PostgreSQL. Where the
    // pgvector extension exists (PGlite), src/context/semantic/vector-store.ts adds HNSW expression
    // indexes over embedding::vector(dims) at start-up; elsewhere search is an exact scan.
    sql: `
      CREATE TABLE context_passages (
        connector_id uuid NOT NULL,
        entity text NOT NULL,
        record_id text NOT NULL,
        field text NOT NULL,
        ordinal integer NOT NULL,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        start_offset integer NOT NULL,
        content text NOT NULL,
        content_hash text NOT NULL,
        model text NOT NULL,
        dims integer NOT NULL,
        embedding real[] NOT NULL,
        embedded_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (connector_id, entity, record_id, field, ordinal),
        FOREIGN KEY (connector_id, entity, record_id) REFERENCES context_records (connector_id, entity, record_id) ON DELETE CASCADE
      );
      CREATE INDEX context_passages_scope ON context_passages (connector_id, entity, field, model);
      CREATE TABLE context_semantic_state (
        connector_id uuid NOT NULL,
        entity text NOT NULL,
        record_id text NOT NULL,
        model text NOT NULL,
        content_hash text NOT NULL,
        passages integer NOT NULL,
        indexed_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (connector_id, entity, record_id),
        FOREIGN KEY (connector_id, entity, record_id) REFERENCES context_records (connector_id, entity, record_id) ON DELETE CASCADE
      );
    `,
  },
  {
    version: 4,
    name: 'context store: filter search (pg_trgm, comparison keys, date indexes)',
    // Filter search (src/context/filter): pg_trgm for `fuzzy`; switchyard_instant / switchyard_key turn
    // ISO 8601 strings, numeric strings and JSON numbers into one comparable numeric (epoch seconds for
    // instants). Both are plain SQL expressions the planner inlines, so they cost no function call.
    // Range filters on instants add a cheap necessary condition on the first 10 characters of the text
    // ("YYYY-MM-DD", widened by a day for UTC offsets); the btree indexes below serve that condition for
    // the timestamp fields most manifests declare searchable, so a range on them reads only its own days.
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE FUNCTION switchyard_instant(t text) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT CASE
          WHEN t ~ '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\\d|3[01])([Tt ]([01]\\d|2[0-3]):[0-5]\\d(:[0-5]\\d(\\.\\d{1,9})?)?([Zz]|[+-]([01]\\d|2[0-3])(:?[0-5]\\d)?)?)?$'
           AND substr(t, 9, 2)::int <= CASE
             WHEN substr(t, 6, 2) IN ('04', '06', '09', '11') THEN 30
             WHEN substr(t, 6, 2) <> '02' THEN 31
             WHEN substr(t, 1, 4)::int % 4 = 0 AND (substr(t, 1, 4)::int % 100 <> 0 OR substr(t, 1, 4)::int % 400 = 0) THEN 29
             ELSE 28 END
          THEN extract(epoch FROM make_timestamp(substr(t, 1, 4)::int, substr(t, 6, 2)::int, substr(t, 9, 2)::int,
                 coalesce(nullif(substr(t, 12, 2), '')::int, 0), coalesce(nullif(substr(t, 15, 2), '')::int, 0), 0))
               + CASE WHEN substr(t, 17, 1) = ':' THEN substring(t FROM '^.{17}(\\d\\d(?:\\.\\d+)?)')::numeric ELSE 0 END
               - CASE WHEN length(t) > 10 AND t ~ '[+-]\\d\\d(:?\\d\\d)?$'
                   THEN (CASE WHEN substring(t FROM '([+-])\\d\\d(?::?\\d\\d)?$') = '-' THEN -1 ELSE 1 END)
                        * (substring(t FROM '[+-](\\d\\d)(?::?\\d\\d)?$')::int * 3600 + coalesce(substring(t FROM '[+-]\\d\\d:?(\\d\\d)$')::int, 0) * 60)
                   ELSE 0 END
        END
      $fn$;
      CREATE FUNCTION switchyard_key(x jsonb) RETURNS numeric LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $fn$
        SELECT CASE jsonb_typeof(x)
          WHEN 'number' THEN x::numeric
          WHEN 'string' THEN CASE
            WHEN (x #>> '{}') LIKE '____-__-__%' THEN switchyard_instant(x #>> '{}')
            WHEN (x #>> '{}') ~ '^-?\\d{1,30}(\\.\\d{1,30})?$' THEN (x #>> '{}')::numeric
          END
        END
      $fn$;
${DATE_INDEXES}
    `,
  },
  {
    version: 5,
    name: "catalog: Airbyte's definition ids for stored connectors",
    sql: DEFINITION_ID_UPDATE,
  },
  {
    version: 6,
    name: 'master key check',
    // One value sealed with the master key at the first start: a process with another key is refused at start.
    sql: `
      CREATE TABLE key_check (
        id integer PRIMARY KEY CHECK (id = 1),
        key_id text NOT NULL,
        iv text NOT NULL,
        ciphertext text NOT NULL,
        tag text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 7,
    name: "connect flow: source templates, organizations' OAuth apps, pending OAuth consents",
    // Sealed values use the columns credentials_* of connectors (AES-256-GCM bound to the row id), so the
    // same helpers open them and key rotation re-seals them. Templates and OAuth apps are soft-deleted, as
    // the reference service does; a consent (oauth_sessions) is single-use: used_at is set when its
    // callback arrives, and rows expire at expires_at.
    sql: `
      CREATE TABLE source_templates (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        definition_id uuid NOT NULL,
        connector_type text NOT NULL,
        name text NOT NULL,
        partial_default_config jsonb NOT NULL DEFAULT '{}',
        customization jsonb,
        mode text NOT NULL DEFAULT 'REPLICATION' CHECK (mode IN ('DIRECT', 'REPLICATION', 'MULTI')),
        tags jsonb NOT NULL DEFAULT '[]',
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      );
      CREATE INDEX source_templates_live ON source_templates (organization_id, created_at) WHERE deleted_at IS NULL;
      CREATE TABLE oauth_apps (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        connector_type text NOT NULL,
        definition_id uuid NOT NULL,
        credentials_key_id text NOT NULL,
        credentials_iv text NOT NULL,
        credentials_ciphertext text NOT NULL,
        credentials_tag text NOT NULL,
        created_at timestamptz NOT NULL DEFAULT now(),
        updated_at timestamptz NOT NULL DEFAULT now(),
        deleted_at timestamptz
      );
      CREATE UNIQUE INDEX oauth_apps_live ON oauth_apps (organization_id, connector_type) WHERE deleted_at IS NULL;
      CREATE TABLE oauth_sessions (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        workspace_id uuid NOT NULL REFERENCES workspaces(id) ON DELETE CASCADE,
        template_id uuid NOT NULL,
        option_title text NOT NULL,
        credentials_key_id text NOT NULL,
        credentials_iv text NOT NULL,
        credentials_ciphertext text NOT NULL,
        credentials_tag text NOT NULL,
        expires_at timestamptz NOT NULL,
        used_at timestamptz,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX oauth_sessions_expiry ON oauth_sessions (expires_at);
    `,
  },
  {
    version: 8,
    name: 'context store: incremental sync state (high-water mark, full sweeps)',
    // high_water_mark: the latest change time (the manifest's search.incremental.field) seen by the
    // complete syncs of the entity; last_full_sweep_at: start of the last complete full walk (the one
    // that marks unseen records deleted); synced_through: start of the last complete sync, of either
    // mode (what the data is at least as fresh as); last_mode: the mode of the last sync started.
    sql: `
      ALTER TABLE context_sync_state
        ADD COLUMN last_mode text CHECK (last_mode IN ('full', 'incremental')),
        ADD COLUMN high_water_mark timestamptz,
        ADD COLUMN last_full_sweep_at timestamptz,
        ADD COLUMN synced_through timestamptz;
    `,
  },
  {
    version: 9,
    name: 'context store: trigram index for fuzzy, sort indexes',
    // Text filters (src/context/filter/compile.ts) add a condition on switchyard_search_text(data), served
    // by the GIN trigram index below: the text of the whole record (its JSON text with each escape sequence
    // turned into one space, so every string value appears with its words unchanged, between non-word
    // characters). fuzzy adds `value <% text`: word_similarity against the whole text is never lower than
    // against one of its fields, so with pg_trgm.word_similarity_threshold at the fuzzy threshold (set on
    // every connection by src/db/database.ts) it only narrows the candidates; the field's own similarity
    // decides. contains/like/startswith/endswith add `text ILIKE '%pattern%'`, keyword the same regular
    // expression. The function is plpgsql with a high COST so the planner knows re-reading the text is
    // expensive: it takes the index when the matches are rare and reads in order (stopping after a page)
    // when they are common. The index is not partial: the planner takes statistics only from the
    // expressions of whole-table indexes, and it needs them here. pg_trgm is a trusted extension
    // (PostgreSQL 13+): the owner of the database can create it; migrate.ts says so in one line where
    // it is not installed.
    //
    // Sort indexes: the two sort keys of src/context/filter/sort.ts for common fields, for live records
    // having the field; a sorted search reads one of them in order (see SortPlan.phases).
    sql: `
      CREATE EXTENSION IF NOT EXISTS pg_trgm;
      CREATE FUNCTION switchyard_search_text(data jsonb) RETURNS text LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE COST 5000 AS $fn$
        BEGIN
          RETURN regexp_replace(data::text, '\\\\(u[0-9a-fA-F]{4}|.)', ' ', 'g');
        END
      $fn$;
      CREATE INDEX context_records_text ON context_records USING gin (switchyard_search_text(data) gin_trgm_ops);
${TRIGRAM_INDEXES}
${SORT_INDEXES}
    `,
  },
  {
    version: 10,
    name: 'context store: records seen by the full sync under way',
    // A full sync notes the id of every record it reads here (src/context/sync/records.ts), and its final
    // sweep marks deleted the live records it did not note; the notes are cleared when the sync ends.
    // Before, an unchanged record was updated (last_synced_at) instead: a new row version, so every index
    // of context_records (the trigram ones re-reading the whole record) was written again for each record
    // of each re-sync. context_records.last_synced_at is now when a sync last wrote the record. The notes
    // only matter while their sync runs, so the table is unlogged (not written twice, emptied after a crash
    // of PostgreSQL, when the sync under way has stopped anyway).
    sql: `
      CREATE UNLOGGED TABLE context_sync_seen (
        connector_id uuid NOT NULL,
        entity text NOT NULL,
        record_id text NOT NULL,
        PRIMARY KEY (connector_id, entity, record_id)
      );
    `,
  },
  {
    version: 11,
    name: 'context store: the record text is its values only',
    // Text filters on a field without its own trigram index add a condition on switchyard_value_text(data),
    // served by the GIN trigram index below: every string, number and boolean value of the record, as
    // itself (no JSON escaping), between line breaks; not the keys nor the JSON punctuation, and not the
    // top-level values of VALUE_TEXT_OMITTED_FIELDS (their own indexes of migration 9 serve them; an object
    // or array under one of those names stays, its nested paths use this text). Each value is in the text
    // whole, so the conditions of migration 9 hold as they were: word similarity against the text is never
    // lower than against the value, whole words of the value are whole words of the text, and a pattern
    // found in the value is found in the text. It replaces switchyard_search_text (the JSON text of the
    // whole record), whose index was the largest single cost of writing a new record: ~190 trigrams a
    // Typeform form and ~280 a Linear issue there, ~80 and ~200 here (bench/sync-ingest.ts). An SQL
    // function, not inlined (it reads a set-returning function), with a high COST for the reason given in
    // migration 9. A call costs more than the regular expression it replaces (13 µs for a Linear issue on
    // PostgreSQL against 6), and a candidate of the index is rechecked by computing the text again.
    sql: `
      CREATE FUNCTION switchyard_value_text(data jsonb) RETURNS text LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE COST 5000 AS $fn$
        SELECT string_agg(value #>> '{}', E'\\n')
        FROM jsonb_path_query(
          data - ARRAY[${VALUE_TEXT_OMITTED_FIELDS.map((field) => `CASE WHEN jsonb_typeof(data -> '${field}') IN ('string', 'number', 'boolean') THEN '${field}' END`).join(', ')}],
          'strict $.**'
        ) AS value
        WHERE jsonb_typeof(value) IN ('string', 'number', 'boolean')
      $fn$;
      CREATE INDEX context_records_value_text ON context_records USING gin (switchyard_value_text(data) gin_trgm_ops);
      DROP INDEX context_records_text;
      DROP FUNCTION switchyard_search_text(jsonb);
    `,
  },
  {
    version: 12,
    name: 'context store: the scope columns depend on each other',
    // A connector belongs to one organization, and a passage's field and model come with its entity: the
    // planner multiplied the selectivities of organization_id and connector_id as if independent, so a
    // connector holding a tenth of the records was estimated at a hundredth of them. Measured on PGlite, a
    // semantic search of a connector's 10 169 passages in a table of 110 000: estimated 889 records, joined by
    // a nested loop in 52 ms; with these statistics estimated 10 275, hashed in 29 ms. ANALYZE fills them.
    sql: `
      CREATE STATISTICS context_records_scope_dependencies (dependencies) ON organization_id, connector_id, entity FROM context_records;
      CREATE STATISTICS context_passages_scope_dependencies (dependencies) ON organization_id, connector_id, entity, field, model FROM context_passages;
    `,
  },
  {
    version: 13,
    name: 'context store: a record is deleted when two full walks in a row miss it',
    // A list can leave a record out of one walk though it still exists: a list paged by position shifts when
    // the vendor deletes a record on a page already read (the first record of the next page is never read),
    // and a list ordered by change time moves a record edited during the walk past the pages still to read.
    // The sweep used to mark every record its walk missed deleted; now a record missed once is noted here
    // (and stays searchable), and the next complete full walk marks it deleted only if it misses it again.
    // unconfirmed_deletions counts the notes of the entity, and makes its next sync a full walk.
    sql: `
      CREATE TABLE context_sync_missed (
        connector_id uuid NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        entity text NOT NULL,
        record_id text NOT NULL,
        PRIMARY KEY (connector_id, entity, record_id)
      );
      ALTER TABLE context_sync_state ADD COLUMN unconfirmed_deletions integer NOT NULL DEFAULT 0;
    `,
  },
  {
    version: 14,
    name: 'connect page: a form creates at most one connector',
    // Each rendered credentials form carries a random submission id. Its first post claims the id here and
    // records the connector it created; a second post of the same form (a double click, a reload of the
    // answer, a form the back button restored) gets that connector instead of creating another. A post that
    // fails releases its claim, so the corrected form can be sent again; deleting the connector drops it.
    sql: `
      CREATE TABLE connect_submissions (
        id uuid PRIMARY KEY,
        organization_id uuid NOT NULL REFERENCES organizations(id) ON DELETE CASCADE,
        connector_id uuid REFERENCES connectors(id) ON DELETE CASCADE,
        created_at timestamptz NOT NULL DEFAULT now()
      );
      CREATE INDEX connect_submissions_age ON connect_submissions (created_at);
    `,
  },
  {
    version: 15,
    name: 'sync queue: which process runs each sync job',
    // On PostgreSQL each process that runs sync jobs holds an advisory lock under a key of its own while it
    // lives, and notes that key here for every job it runs (src/context/sync/runner-lock.ts): a job whose
    // runner's lock is free was left active by a process that died, and the others hand it back to the queue.
    // The embedded store does not use it (one process).
    sql: `
      CREATE TABLE sync_job_runners (
        job_id uuid PRIMARY KEY,
        queue_name text NOT NULL,
        runner_key integer NOT NULL,
        attempt uuid NOT NULL,
        started_at timestamptz NOT NULL DEFAULT now()
      );
    `,
  },
  {
    version: 16,
    name: 'context store: the words of each entity, for typos in fuzzy',
    // fuzzy tolerates a typo in each word of four letters or more (src/context/typos.ts): the words of
    // the entity one typo away are looked up here (by prefix through the primary key, by suffix through
    // context_words_suffix; the C collation makes a prefix an index range), then the field is asked
    // for any of them as a whole word. Before, fuzzy was pg_trgm's word similarity, whose index only bounds
    // the share of the value's trigrams found anywhere in the field: at 1M records "rport cacel" found
    // none of the 28 572 titles holding "report" and "cancel" (0.47 against "report cancel problem for
    // customer 5"), after rechecking every one of them. A word is a run of letters and digits, lowercased;
    // those holding a digit (matched exactly), shorter than 3 or longer than 64 letters are not kept. Words of every string value at any
    // depth, added by each page of a sync that writes a record (src/context/sync/records.ts), in the
    // statement that writes it; never removed but with their connector (a word left by a deleted record
    // only adds a variant the field then does not hold). The words of the records already stored are added
    // here.
    sql: `
      CREATE TABLE context_words (
        connector_id uuid NOT NULL REFERENCES connectors(id) ON DELETE CASCADE,
        entity text NOT NULL,
        word text COLLATE "C" NOT NULL,
        PRIMARY KEY (connector_id, entity, word)
      );
      CREATE INDEX context_words_suffix ON context_words (connector_id, entity, reverse(word));
      ${KEEP_STORED_WORDS};
    `,
  },
];
