/**
 * The connector catalog: every connector definition generated from the manifests (runtime/generated),
 * presented in the reference's definition shapes, plus the JSON Schemas a client needs to build the
 * create-connector form (each auth option's credential fields, the replication_config fields).
 * It reads nothing from the store, so it answers even when no connector is configured.
 */
import { connectorModules, type AuthOption, type ConnectorDefinition, type JsonObject } from '../../runtime/index.js';
import { ResourceNotFoundError } from '../errors.js';
import type { ConnectorSpecification, DetailedSourceTemplate, SummarizedSourceTemplate } from '../api-shapes.js';

/** One entry of GET /api/v1/integrations/definitions/sources. */
export interface DefinitionSummary {
  sourceDefinitionId: string;
  name: string;
  iconUrl: string;
  supportLevel: string;
}

export interface AuthOptionDescription {
  option_title: string;
  description: string | null;
  /** JSON Schema of the option's credential fields (required list, descriptions, patterns, secret markers). */
  schema: JsonObject;
}

/** GET /api/v1/integrations/definitions/sources/{id}: the reference's SourceDefinitionResponse plus the form schemas. */
export interface DefinitionDetail {
  id: string;
  definition: DefinitionSummary & { custom: boolean; spec: ConnectorSpecification };
  connector_type: string;
  auth_options: AuthOptionDescription[];
  replication_config_schema: JsonObject;
}

function definitions(): ConnectorDefinition[] {
  return Object.values(connectorModules).map((module) => module.definition);
}

function byName(a: ConnectorDefinition, b: ConnectorDefinition): number {
  return a.displayName.localeCompare(b.displayName, 'en', { sensitivity: 'base' }) || a.connectorType.localeCompare(b.connectorType);
}

export function summarize(definition: ConnectorDefinition): DefinitionSummary {
  return {
    sourceDefinitionId: definition.definitionId,
    name: definition.displayName,
    iconUrl: definition.iconUrl,
    supportLevel: definition.supportLevel,
  };
}

/** The names a connector kind answers to: connector_type, its aliases (e.g. Airbyte's name) and the display name. */
function namesOf(definition: ConnectorDefinition): string[] {
  return [definition.connectorType, ...(definition.aliases ?? []), definition.displayName].map((n) => n.toLowerCase());
}

/** The catalog, sorted by display name; `name` keeps entries whose display name, connector_type or an alias of it contains it (any case). */
export function listDefinitions(name?: string): DefinitionSummary[] {
  const needle = name?.trim().toLowerCase() ?? '';
  return definitions()
    .filter((d) => needle === '' || namesOf(d).some((n) => n.includes(needle)))
    .sort(byName)
    .map(summarize);
}

/** The definition with this id (any letter case), or undefined. */
export function definitionById(id: string): ConnectorDefinition | undefined {
  const wanted = id.toLowerCase();
  return definitions().find((d) => d.definitionId.toLowerCase() === wanted);
}

/** The definition for a connector type given by name: case-insensitive exact match on connector_type, an alias of it or the display name. */
export function definitionByType(connectorType: string): ConnectorDefinition | undefined {
  const wanted = connectorType.trim().toLowerCase();
  return definitions().find((d) => namesOf(d).includes(wanted));
}

/** Every connector_type of the catalog, sorted, for error messages. */
export function knownConnectorTypes(): string[] {
  return definitions()
    .map((d) => d.connectorType)
    .sort();
}

/** JSON Schema of one auth option's credential fields; `withTitle` adds the option_title const that selects it. */
export function credentialsSchema(option: AuthOption, withTitle: boolean): JsonObject {
  const properties: JsonObject = {};
  if (withTitle) {
    properties.option_title = {
      type: 'string',
      const: option.optionTitle,
      description: 'Selects this credential option. Optional: without it the option is inferred from the fields given.',
    };
  }
  const required: string[] = [];
  for (const [name, field] of Object.entries(option.fields)) {
    const property: JsonObject = { type: 'string', title: name, description: field.description, minLength: 1 };
    if (field.pattern !== undefined) property.pattern = field.pattern;
    if (field.secret) {
      property.secret = true;
      property.airbyte_secret = true;
    } else if (field.example !== undefined) {
      property.examples = [field.example];
    }
    properties[name] = property;
    if (field.required) required.push(name);
  }
  const schema: JsonObject = { type: 'object', title: option.optionTitle };
  if (option.description !== undefined) schema.description = option.description;
  schema.required = required;
  schema.properties = properties;
  schema.additionalProperties = false;
  return schema;
}

function configProperties(definition: ConnectorDefinition): { properties: JsonObject; required: string[] } {
  const properties: JsonObject = {};
  const required: string[] = [];
  for (const [name, field] of Object.entries(definition.config)) {
    const property: JsonObject = { type: 'string', title: name, description: field.description };
    if (field.pattern !== undefined) property.pattern = field.pattern;
    if (field.enum !== undefined) property.enum = field.enum;
    if (field.default !== undefined) property.default = field.default;
    if (field.example !== undefined) property.examples = [field.example];
    properties[name] = property;
    if (field.required && field.default === undefined) required.push(name);
  }
  return { properties, required };
}

/** JSON Schema of replication_config: the connector's configuration variables (e.g. Jira's subdomain). */
export function replicationConfigSchema(definition: ConnectorDefinition): JsonObject {
  const { properties, required } = configProperties(definition);
  return {
    type: 'object',
    title: `${definition.displayName} settings`,
    description: 'Send these fields as replication_config when creating or updating a connector. Unknown fields are rejected.',
    required,
    properties,
    additionalProperties: false,
  };
}

/**
 * The reference's ConnectorSpecification: one JSON Schema for the whole connector setup, whose
 * `credentials` is a oneOf of the auth options (each with its option_title const), beside the
 * replication_config fields.
 */
export function connectorSpecification(definition: ConnectorDefinition): ConnectorSpecification {
  const { properties, required } = configProperties(definition);
  return {
    documentationUrl: definition.docs[0]?.url ?? null,
    connectionSpecification: {
      $schema: 'http://json-schema.org/draft-07/schema#',
      title: `${definition.displayName} Spec`,
      description: definition.description,
      type: 'object',
      required: ['credentials', ...required],
      properties: {
        credentials: {
          title: 'Authentication',
          description: "One of the credential options below, sent as the connector's credentials object.",
          type: 'object',
          oneOf: definition.auth.map((option) => credentialsSchema(option, true)),
        },
        ...properties,
      },
      additionalProperties: false,
    },
  };
}

export function describeDefinition(definition: ConnectorDefinition): DefinitionDetail {
  return {
    id: definition.definitionId,
    definition: { ...summarize(definition), custom: false, spec: connectorSpecification(definition) },
    connector_type: definition.connectorType,
    auth_options: definition.auth.map((option) => ({
      option_title: option.optionTitle,
      description: option.description ?? null,
      schema: credentialsSchema(option, false),
    })),
    replication_config_schema: replicationConfigSchema(definition),
  };
}

/** GET /api/v1/integrations/definitions/sources/{id}; an id not in the catalog is a 404. */
export function getDefinition(id: string): DefinitionDetail {
  const definition = definitionById(id);
  if (!definition) throw new ResourceNotFoundError(`No source definition ${id}.`);
  return describeDefinition(definition);
}

export function detailedSourceTemplate(definition: ConnectorDefinition): DetailedSourceTemplate {
  return {
    id: definition.definitionId,
    name: definition.displayName,
    icon: definition.iconUrl,
    source_definition_id: definition.definitionId,
    user_config_spec: connectorSpecification(definition),
    partial_default_config: {},
    tags: [],
    mode: 'DIRECT',
    is_experimental: false,
    supports_context_store: true,
    created_at: null,
    updated_at: null,
  };
}

export function summarizedSourceTemplate(definition: ConnectorDefinition): SummarizedSourceTemplate {
  return {
    id: definition.definitionId,
    name: definition.displayName,
    icon: definition.iconUrl,
    connector_name: definition.connectorType,
    actor_definition_id: definition.definitionId,
    organization_id: null,
    tags: [],
    mode: 'DIRECT',
    supports_context_store: true,
    created_at: null,
    updated_at: null,
  };
}
