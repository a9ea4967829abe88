/**
 * The connector definition the runtime executes: a manifest after validation and normalization
 * (every default made explicit). codegen/ produces one per manifest in runtime/generated/.
 */

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type ParamLocation = 'path' | 'query' | 'body' | 'header' | 'variables';

export interface ParamDefinition {
  in: ParamLocation;
  /** Name on the wire; for body and variables a dot path. */
  wire: string;
  required: boolean;
  schema: JsonObject;
  description?: string;
  sendDefault: boolean;
  serialize?: 'csv' | 'json' | 'repeat';
  /** The wire form, {value} standing for the value. */
  valueTemplate?: string;
}

export type Source = string;

/** A page with fewer records than the limit ends the walk. */
export interface ShortPage {
  limit_param: string;
  default_limit: number;
}

export type PaginationDefinition =
  | { style: 'next_url'; block: Record<string, Source>; next_url: Source; ignore_query?: string[]; short_page_ends?: ShortPage }
  | { style: 'last_record'; block: Record<string, Source>; cursor_param: string; field: string; increment?: number; short_page_ends?: ShortPage }
  | { style: 'cursor' | 'bookmark'; block: Record<string, Source>; cursor_param: string; next_cursor: Source; has_more?: Source }
  | { style: 'next_page_token'; block: Record<string, Source>; token_param: string; next_token: Source; is_last?: Source }
  | {
      style: 'link_header';
      block: Record<string, Source>;
      rel: string;
      cursor_param: string;
      require_attributes?: Record<string, string>;
    }
  | { style: 'page_number'; block: Record<string, Source>; page_param: string; first_page: number; page_count?: Source; has_more?: Source; is_last?: Source }
  | { style: 'offset'; block: Record<string, Source>; offset_param: string; limit_param: string; total?: Source }
  | { style: 'graphql_page_info'; block: Record<string, Source>; page_info: Source; cursor_param: string }
  | { style: 'next_records_url'; block: Record<string, Source>; next_url: Source; url_param: string; done?: Source };

export type PaginationStyle = PaginationDefinition['style'];

export type GuardName = 'bounded_jql';

export interface ActionDefinition {
  name: string;
  description?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  params: Record<string, ParamDefinition>;
  /** The caller must give at least one of these params. */
  atLeastOneOf?: string[];
  /** The caller may give at most one of these params. */
  atMostOneOf?: string[];
  additionalParams?: 'body';
  constantBody?: JsonObject;
  constantQuery?: JsonObject;
  graphql?: { document: string };
  result: 'many' | 'one';
  recordsPath?: string | string[];
  recordItemPath?: string;
  recordPath?: string;
  emptyResponse?: JsonObject;
  pagination?: PaginationDefinition;
  guards: Array<{ name: GuardName; param: string }>;
  idempotent: boolean;
  destructive: boolean;
  /** Changes nothing at the vendor (a read, a search). */
  readOnly: boolean;
}

export interface RecordDefinition {
  /** One object per account with no identifier (settings, an overview). */
  singleton: boolean;
  /** The id field (dot path), or the fields that together identify a record without an id of its own. */
  idField: string | string[];
  /** JSON Schema per field, nullability already applied. */
  fields: Record<string, JsonObject>;
}

export interface EntityDefinition {
  name: string;
  description: string;
  record: RecordDefinition;
  search: {
    fields: string[];
    /** How a sync reaches records whose list needs a parent id. */
    fanOut?: { entity: string; field: string; param: string };
    /** Read-only values (name -> record dot path) added to each semantic hit's metadata. */
    metadata?: Record<string, string>;
    semantic: Array<{ field: string; context_window: number }>;
  };
  actions: Record<string, ActionDefinition>;
}

export interface CredentialField {
  description: string;
  required: boolean;
  secret: boolean;
  pattern?: string;
  example?: string;
}

interface AuthCommon {
  optionTitle: string;
  description?: string;
  fields: Record<string, CredentialField>;
  headers: Record<string, string>;
  /** Replaces the connector's base URL while this option is used. */
  baseUrl?: string;
}

export type AuthOption =
  | (AuthCommon & { type: 'bearer'; token: string; scheme: string })
  | (AuthCommon & { type: 'api_key'; in: 'header' | 'query'; name: string; value: string })
  | (AuthCommon & { type: 'basic'; username: string; password: string })
  | (AuthCommon & {
      type: 'oauth2_refresh';
      tokenUrl: string;
      clientAuth: 'body' | 'basic';
      bodyFormat: 'form' | 'json';
      scheme: string;
      extraTokenParams: Record<string, string>;
      tokenHeaders: Record<string, string>;
      keep: string[];
    });

export interface ConfigField {
  description: string;
  pattern?: string;
  enum?: string[];
  default?: string;
  required: boolean;
  example?: string;
}

/** A 2xx response whose body reports a failure (see the manifest key error_in_body). */
export interface ErrorInBody {
  path: string;
  success: Array<string | number | boolean>;
  message?: string;
  auth_values?: Array<string | number | boolean>;
  rate_limit_values?: Array<string | number | boolean>;
}

export interface ConnectorDefinition {
  connectorType: string;
  displayName: string;
  definitionId: string;
  iconUrl: string;
  supportLevel: 'certified' | 'community';
  category: string;
  description: string;
  docs: Array<{ title: string; url: string }>;
  guidance?: string;
  baseUrl: string;
  baseUrlHostPattern?: string;
  config: Record<string, ConfigField>;
  headers: Record<string, string>;
  errorInBody?: ErrorInBody;
  auth: AuthOption[];
  entities: Record<string, EntityDefinition>;
}
