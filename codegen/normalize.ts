import type {
  ActionDefinition,
  AuthOption,
  ConnectorDefinition,
  EntityDefinition,
  JsonObject,
  PaginationDefinition,
} from '../runtime/definition.js';
import type { RawAction, RawAuthOption, RawManifest, RawPagination } from './manifest/types.js';

const PAGINATION_DEFAULTS: Record<string, Record<string, unknown>> = {
  link_header: { rel: 'next' },
  page_number: { first_page: 1 },
};

function nullable(schema: JsonObject): JsonObject {
  const type = schema.type;
  if (type === undefined || type === 'null') return schema;
  const types = Array.isArray(type) ? type : [type];
  return types.includes('null') ? schema : { ...schema, type: [...types, 'null'] };
}

function fieldSchema(field: string | JsonObject): JsonObject {
  return typeof field === 'string' ? { type: field } : field;
}

function normalizePagination(raw: RawPagination): PaginationDefinition {
  return { ...PAGINATION_DEFAULTS[raw.style], ...raw } as unknown as PaginationDefinition;
}

function normalizeAction(name: string, raw: RawAction, named: Record<string, RawPagination>): ActionDefinition {
  const params: ActionDefinition['params'] = {};
  for (const [paramName, p] of Object.entries(raw.params ?? {})) {
    params[paramName] = {
      in: p.in,
      wire: p.wire ?? paramName,
      required: p.required ?? false,
      schema: p.schema,
      ...(p.description !== undefined && { description: p.description }),
      sendDefault: p.send_default ?? false,
      ...(p.serialize !== undefined && { serialize: p.serialize }),
      ...(p.value_template !== undefined && { valueTemplate: p.value_template }),
    };
  }
  const pagination = raw.pagination === undefined ? undefined : typeof raw.pagination === 'string' ? named[raw.pagination] : raw.pagination;
  const readOnlyMethod = raw.method === 'GET' || raw.method === 'PUT' || raw.method === 'DELETE';
  return {
    name,
    ...(raw.description !== undefined && { description: raw.description }),
    method: raw.method,
    path: raw.path,
    params,
    ...(raw.at_least_one_of !== undefined && { atLeastOneOf: raw.at_least_one_of }),
    ...(raw.at_most_one_of !== undefined && { atMostOneOf: raw.at_most_one_of }),
    ...(raw.additional_params !== undefined && { additionalParams: raw.additional_params }),
    ...(raw.constant_body !== undefined && { constantBody: raw.constant_body }),
    ...(raw.constant_query !== undefined && { constantQuery: raw.constant_query }),
    ...(raw.graphql !== undefined && { graphql: { document: raw.graphql.document.trim() } }),
    result: raw.result ?? (name === 'list' || name === 'api_search' ? 'many' : 'one'),
    ...(raw.records_path !== undefined && { recordsPath: raw.records_path }),
    ...(raw.record_item_path !== undefined && { recordItemPath: raw.record_item_path }),
    ...(raw.record_path !== undefined && { recordPath: raw.record_path }),
    ...(raw.empty_response !== undefined && { emptyResponse: raw.empty_response }),
    ...(pagination !== undefined && { pagination: normalizePagination(pagination) }),
    guards: raw.guards ?? [],
    idempotent: raw.idempotent ?? readOnlyMethod,
    destructive: raw.destructive ?? name === 'delete',
    readOnly: raw.read_only ?? (raw.method === 'GET' || (raw.graphql !== undefined && isGraphqlQuery(raw.graphql.document))),
  };
}

function normalizeAuth(raw: RawAuthOption): AuthOption {
  const fields: AuthOption['fields'] = {};
  for (const [name, f] of Object.entries(raw.fields)) {
    fields[name] = {
      description: f.description,
      required: f.required ?? true,
      secret: f.secret ?? true,
      ...(f.pattern !== undefined && { pattern: f.pattern }),
      ...(f.example !== undefined && { example: f.example }),
    };
  }
  const common = {
    optionTitle: raw.option_title,
    ...(raw.description !== undefined && { description: raw.description }),
    fields,
    headers: raw.headers ?? {},
    ...(raw.base_url !== undefined && { baseUrl: raw.base_url }),
  };
  switch (raw.type) {
    case 'bearer':
      return { ...common, type: 'bearer', token: raw.token as string, scheme: raw.scheme ?? 'Bearer' };
    case 'api_key':
      return { ...common, type: 'api_key', in: raw.in as 'header' | 'query', name: raw.name as string, value: raw.value as string };
    case 'basic':
      return { ...common, type: 'basic', username: raw.username as string, password: raw.password as string };
    case 'oauth2_refresh':
      return {
        ...common,
        type: 'oauth2_refresh',
        tokenUrl: raw.token_url as string,
        clientAuth: raw.client_auth ?? 'body',
        bodyFormat: raw.body_format ?? 'form',
        scheme: raw.scheme ?? 'Bearer',
        extraTokenParams: raw.extra_token_params ?? {},
        tokenHeaders: raw.token_headers ?? {},
        keep: raw.keep ?? [],
      };
  }
}

/** A validated manifest with every default made explicit: what the runtime executes. */
export function normalize(raw: RawManifest): ConnectorDefinition {
  const named = raw.pagination ?? {};
  const entities: Record<string, EntityDefinition> = {};
  for (const [name, entity] of Object.entries(raw.entities)) {
    const idField = entity.record.id_field ?? 'id';
    const idTopFields = [idField].flat().map((f) => f.split('.')[0]);
    const fields: Record<string, JsonObject> = {};
    for (const [field, spec] of Object.entries(entity.record.fields)) {
      const schema = fieldSchema(spec);
      fields[field] = idTopFields.includes(field) || schema.nullable === false ? withoutNullableFlag(schema) : nullable(withoutNullableFlag(schema));
    }
    const actions: Record<string, ActionDefinition> = {};
    for (const [actionName, action] of Object.entries(entity.actions)) actions[actionName] = normalizeAction(actionName, action, named);
    entities[name] = {
      name,
      description: entity.description,
      record: { singleton: entity.record.singleton ?? false, idField, fields },
      search: {
        fields: entity.search?.fields ?? [],
        ...(entity.search?.fan_out !== undefined && { fanOut: entity.search.fan_out }),
        ...(entity.search?.metadata !== undefined && { metadata: entity.search.metadata }),
        semantic: entity.search?.semantic ?? [],
      },
      actions,
    };
  }
  const config: ConnectorDefinition['config'] = {};
  for (const [name, c] of Object.entries(raw.config ?? {})) config[name] = { ...c, required: c.required ?? true };
  return {
    connectorType: raw.connector_type,
    displayName: raw.display_name,
    definitionId: raw.definition_id,
    iconUrl: raw.icon_url,
    supportLevel: raw.support_level,
    category: raw.category,
    description: raw.description.trim(),
    docs: raw.docs,
    ...(raw.guidance !== undefined && { guidance: raw.guidance.trim() }),
    baseUrl: raw.base_url,
    ...(raw.base_url_host_pattern !== undefined && { baseUrlHostPattern: raw.base_url_host_pattern }),
    config,
    headers: raw.headers ?? {},
    ...(raw.error_in_body !== undefined && { errorInBody: raw.error_in_body }),
    auth: raw.auth.map(normalizeAuth),
    entities,
  };
}

/** A GraphQL document whose operation is a query (or the query shorthand `{ ... }`): a read. */
function isGraphqlQuery(document: string): boolean {
  const text = document.replace(/#[^\n]*/g, '').trimStart();
  return text.startsWith('{') || /^query\b/.test(text);
}

function withoutNullableFlag(schema: JsonObject): JsonObject {
  if (!('nullable' in schema)) return schema;
  const { nullable: _ignored, ...rest } = schema;
  return rest;
}
