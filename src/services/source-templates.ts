/**
 * Source templates ("enabled connectors"): the connector types an organization's end users may connect
 * through the connect page, each with preset non-secret settings (partial_default_config). The
 * reference's /api/v1/integrations/templates/sources shapes. Presets are checked against the
 * connector's settings (names, enum, pattern) so the page never meets a value it cannot use, and they
 * can never hold a credential.
 */
import type { Selectable } from 'kysely';
import { configValueIssue } from '../../runtime/connector.js';
import type { ConnectorDefinition, JsonObject } from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import type { SourceTemplateMode, SourceTemplatesTable } from '../db/schema.js';
import { BadRequestError, RequestValidationError, ResourceNotFoundError } from '../errors.js';
import { connectorSpecification, definitionById } from './catalog.js';
import { newResourceId } from './ids.js';
import type { ConnectorSpecification } from '../api-shapes.js';

export type TemplateRow = Selectable<SourceTemplatesTable>;
export type TagsMode = 'all' | 'any';

export interface CreateTemplateInput {
  actor_definition_id?: string;
  original_source_template_id?: string;
  name?: string | null;
  partial_default_config?: Record<string, unknown>;
  customization?: Record<string, unknown> | null;
  mode?: SourceTemplateMode | null;
}

export interface UpdateTemplateInput {
  name?: string | null;
  propagate?: boolean | null;
  partial_default_config?: Record<string, unknown> | null;
  customization?: Record<string, unknown> | null;
  mode?: SourceTemplateMode | null;
}

/** The reference's SourceTemplateCreate/Get/UpdateResponse (Get adds auth_tooltip and connector_name). */
export interface TemplateView {
  id: string;
  name: string;
  icon: string;
  source_definition_id: string;
  user_config_spec: ConnectorSpecification;
  partial_default_config: Record<string, string>;
  customization: unknown;
  tags: string[];
  mode: SourceTemplateMode;
  is_experimental: boolean;
  supports_context_store: boolean;
  created_at: string | null;
  updated_at: string | null;
  auth_tooltip: null;
  connector_name: string;
}

/** The reference's SourceTemplateListItem. */
export interface TemplateListItem {
  id: string;
  name: string;
  icon: string;
  connector_name: string;
  organization_id: string | null;
  actor_definition_id: string;
  tags: string[];
  customization: unknown;
  mode: SourceTemplateMode;
  supports_context_store: boolean;
  created_at: string | null;
  updated_at: string | null;
}

function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function parsedJson<T>(value: unknown, fallback: T): T {
  if (value === null || value === undefined) return fallback;
  return (typeof value === 'string' ? JSON.parse(value) : value) as T;
}

export function templateDefinition(row: Pick<TemplateRow, 'id' | 'definition_id'>): ConnectorDefinition {
  const definition = definitionById(row.definition_id);
  if (!definition) throw new ResourceNotFoundError(`Template ${row.id} is for a connector this deployment no longer offers.`);
  return definition;
}

/** The connector's setup schema without the settings the template presets: what the end user still fills in. */
function userConfigSpec(definition: ConnectorDefinition, preset: Record<string, string>): ConnectorSpecification {
  const spec = connectorSpecification(definition);
  const schema = spec.connectionSpecification;
  const properties = { ...(schema.properties as JsonObject) };
  for (const name of Object.keys(preset)) delete properties[name];
  const required = (schema.required as string[]).filter((name) => !(name in preset));
  return { ...spec, connectionSpecification: { ...schema, properties, required } };
}

export function presetConfig(row: Pick<TemplateRow, 'partial_default_config'>): Record<string, string> {
  return parsedJson<Record<string, string>>(row.partial_default_config, {});
}

export function toTemplateView(row: TemplateRow): TemplateView {
  const definition = templateDefinition(row);
  const preset = presetConfig(row);
  return {
    id: row.id,
    name: row.name,
    icon: definition.iconUrl,
    source_definition_id: row.definition_id,
    user_config_spec: userConfigSpec(definition, preset),
    partial_default_config: preset,
    customization: parsedJson(row.customization, null),
    tags: parsedJson<string[]>(row.tags, []),
    mode: row.mode,
    is_experimental: false,
    supports_context_store: true,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    auth_tooltip: null,
    connector_name: definition.connectorType,
  };
}

function toListItem(row: TemplateRow): TemplateListItem {
  const definition = templateDefinition(row);
  return {
    id: row.id,
    name: row.name,
    icon: definition.iconUrl,
    connector_name: definition.connectorType,
    organization_id: row.organization_id,
    actor_definition_id: row.definition_id,
    tags: parsedJson<string[]>(row.tags, []),
    customization: parsedJson(row.customization, null),
    mode: row.mode,
    supports_context_store: true,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/**
 * Preset settings checked against the connector's configuration fields: known names, then each value by
 * the runtime's rules (a string, enum, pattern). Credentials never belong here (the reference: "secrets
 * should not be provided").
 */
export function checkPresetConfig(definition: ConnectorDefinition, input: Record<string, unknown>): Record<string, string> {
  const issues = [];
  const preset: Record<string, string> = {};
  for (const [name, value] of Object.entries(input)) {
    const field = definition.config[name];
    const at = `partial_default_config.${name}`;
    if (name === 'credentials') {
      issues.push({
        field: at,
        rule: 'no_secrets',
        message: `${at} is not allowed: credentials are entered by the end user on the connect page, never preset`,
      });
    } else if (!field) {
      const known = Object.keys(definition.config);
      issues.push({
        field: at,
        rule: 'unknown',
        message: `${at} is not a setting of ${definition.connectorType} (settings: ${known.length > 0 ? known.join(', ') : 'none'})`,
      });
    } else {
      const issue = configValueIssue(field, value, at);
      if (issue) issues.push(issue);
      else preset[name] = value as string;
    }
  }
  if (issues.length > 0) throw new RequestValidationError(`Invalid partial_default_config: ${issues.map((i) => i.message).join('; ')}.`, issues);
  return preset;
}

async function findTemplate(ctx: ServiceContext, organizationId: string, id: string): Promise<TemplateRow> {
  const row = await ctx.store.db
    .selectFrom('source_templates')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id.toLowerCase())
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ResourceNotFoundError(`No source template ${id}.`);
  return row;
}

export async function createTemplate(ctx: ServiceContext, organizationId: string, input: CreateTemplateInput): Promise<TemplateView> {
  let definition: ConnectorDefinition;
  let preset: Record<string, string>;
  let customization: unknown = input.customization ?? null;
  let mode: SourceTemplateMode = input.mode ?? 'REPLICATION';
  let name = input.name ?? undefined;
  let tags: string[] = [];
  if (input.original_source_template_id !== undefined) {
    const original = await findTemplate(ctx, organizationId, input.original_source_template_id);
    definition = templateDefinition(original);
    preset = presetConfig(original);
    customization = parsedJson(original.customization, null);
    mode = input.mode ?? original.mode;
    name ??= original.name;
    tags = parsedJson<string[]>(original.tags, []);
  } else {
    const found = definitionById(input.actor_definition_id ?? '');
    if (!found) {
      const message = `actor_definition_id ${input.actor_definition_id} is not a source definition of this service (GET /api/v1/integrations/definitions/sources lists them).`;
      throw new BadRequestError(message, 'unknown_definition', [{ field: 'actor_definition_id', rule: 'unknown_definition', message }]);
    }
    definition = found;
    preset = checkPresetConfig(definition, input.partial_default_config ?? {});
  }
  const id = newResourceId();
  const row = await ctx.store.db
    .insertInto('source_templates')
    .values({
      id,
      organization_id: organizationId,
      definition_id: definition.definitionId,
      connector_type: definition.connectorType,
      name: name ?? definition.displayName,
      partial_default_config: JSON.stringify(preset),
      customization: customization === null ? null : JSON.stringify(customization),
      mode,
      tags: JSON.stringify(tags),
    })
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTemplateView(row);
}

function matchesTags(row: TemplateRow, tags: string[], mode: TagsMode): boolean {
  if (tags.length === 0) return true;
  const own = new Set(parsedJson<string[]>(row.tags, []));
  return mode === 'all' ? tags.every((tag) => own.has(tag)) : tags.some((tag) => own.has(tag));
}

/** The organization's live templates, oldest first, filtered by tags. */
export async function listTemplateRows(ctx: ServiceContext, organizationId: string, tags: string[] = [], mode: TagsMode = 'all'): Promise<TemplateRow[]> {
  const rows = await ctx.store.db
    .selectFrom('source_templates')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null)
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .execute();
  return rows.filter((row) => definitionById(row.definition_id) !== undefined && matchesTags(row, tags, mode));
}

export async function listTemplates(ctx: ServiceContext, organizationId: string, tags: string[], mode: TagsMode): Promise<TemplateListItem[]> {
  return (await listTemplateRows(ctx, organizationId, tags, mode)).map(toListItem);
}

export async function getTemplateRow(ctx: ServiceContext, organizationId: string, id: string): Promise<TemplateRow> {
  return findTemplate(ctx, organizationId, id);
}

export async function getTemplate(ctx: ServiceContext, organizationId: string, id: string): Promise<TemplateView> {
  return toTemplateView(await findTemplate(ctx, organizationId, id));
}

/** null or absent leaves a field unchanged; propagate is accepted (connectors keep the settings they were created with). */
export async function updateTemplate(ctx: ServiceContext, organizationId: string, id: string, input: UpdateTemplateInput): Promise<TemplateView> {
  const current = await findTemplate(ctx, organizationId, id);
  const changes: { name?: string; partial_default_config?: string; customization?: string; mode?: SourceTemplateMode; updated_at: Date } = {
    updated_at: new Date(),
  };
  if (input.name != null) changes.name = input.name;
  if (input.partial_default_config != null)
    changes.partial_default_config = JSON.stringify(checkPresetConfig(templateDefinition(current), input.partial_default_config));
  if (input.customization != null) changes.customization = JSON.stringify(input.customization);
  if (input.mode != null) changes.mode = input.mode;
  const row = await ctx.store.db
    .updateTable('source_templates')
    .set(changes)
    .where('id', '=', current.id)
    .where('organization_id', '=', organizationId)
    .returningAll()
    .executeTakeFirstOrThrow();
  return toTemplateView(row);
}

export async function deleteTemplate(ctx: ServiceContext, organizationId: string, id: string): Promise<{ id: string; deleted_at: string }> {
  const current = await findTemplate(ctx, organizationId, id);
  const deletedAt = new Date();
  await ctx.store.db.updateTable('source_templates').set({ deleted_at: deletedAt }).where('id', '=', current.id).execute();
  return { id: current.id, deleted_at: deletedAt.toISOString() };
}
