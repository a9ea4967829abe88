/** The manifest as written in YAML (manifests/schema/manifest.schema.yaml), before normalization. */
import type { ErrorInBody, JsonObject } from '../../runtime/definition.js';

export interface RawParam {
  in: 'path' | 'query' | 'body' | 'header' | 'variables';
  schema: JsonObject;
  required?: boolean;
  description?: string;
  wire?: string;
  send_default?: boolean;
  serialize?: 'csv' | 'json' | 'repeat';
  value_template?: string;
}

export type RawPagination = { style: string; block: Record<string, string> } & Record<string, unknown>;

export interface RawAction {
  description?: string;
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';
  path: string;
  params?: Record<string, RawParam>;
  at_least_one_of?: string[];
  at_most_one_of?: string[];
  additional_params?: 'body';
  constant_body?: JsonObject;
  constant_query?: JsonObject;
  graphql?: { document: string };
  records_path?: string | string[];
  record_item_path?: string;
  record_path?: string;
  result?: 'many' | 'one';
  empty_response?: JsonObject;
  pagination?: string | RawPagination;
  guards?: Array<{ name: 'bounded_jql'; param: string }>;
  idempotent?: boolean;
  destructive?: boolean;
  read_only?: boolean;
}

export interface RawEntity {
  description: string;
  record: { singleton?: boolean; id_field?: string | string[]; fields: Record<string, string | JsonObject> };
  search?: { fields?: string[]; metadata?: Record<string, string>; fan_out?: { entity: string; field: string; param: string }; semantic?: Array<{ field: string; context_window: number }> };
  actions: Record<string, RawAction>;
}

export interface RawCredentialField {
  description: string;
  required?: boolean;
  secret?: boolean;
  pattern?: string;
  example?: string;
}

export interface RawAuthOption {
  type: 'bearer' | 'api_key' | 'basic' | 'oauth2_refresh';
  option_title: string;
  description?: string;
  fields: Record<string, RawCredentialField>;
  headers?: Record<string, string>;
  base_url?: string;
  token?: string;
  scheme?: string;
  in?: 'header' | 'query';
  name?: string;
  value?: string;
  username?: string;
  password?: string;
  token_url?: string;
  client_auth?: 'body' | 'basic';
  body_format?: 'form' | 'json';
  extra_token_params?: Record<string, string>;
  token_headers?: Record<string, string>;
  keep?: string[];
}

export interface RawManifest {
  connector_type: string;
  display_name: string;
  definition_id: string;
  icon_url: string;
  support_level: 'certified' | 'community';
  category: string;
  description: string;
  docs: Array<{ title: string; url: string }>;
  vendor_spec?: { format: 'openapi' | 'graphql' | 'facebook_sdk_codegen' | 'postman_collection'; file: string; path_prefix?: string; waivers?: Array<{ action: string; param?: string; reason: string }> };
  config?: Record<string, { description: string; pattern?: string; enum?: string[]; default?: string; required?: boolean; example?: string }>;
  base_url: string;
  base_url_host_pattern?: string;
  headers?: Record<string, string>;
  auth: RawAuthOption[];
  error_in_body?: ErrorInBody;
  pagination?: Record<string, RawPagination>;
  guidance?: string;
  entities: Record<string, RawEntity>;
}
