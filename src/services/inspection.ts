/**
 * GET /api/v1/integrations/connectors/{id}/inspect: the reference's inspect fields plus the full catalog
 * of the connector (entities, actions, params with their limits, pagination, search fields, record
 * fields) and usage guidance for an agent, all read from the connector's definition. Also the skill
 * docs generated from the manifests (read through the service's SkillLibrary), which inspect points to by docs_skill_id.
 */
import {
  callerMustGive,
  connectorModules,
  limitDescription,
  limitPlan,
  type ActionDefinition,
  type ContentBlock,
  type ConnectorDefinition,
  type EntityDefinition,
  type JsonValue,
  type ParamDefinition,
  type SkillDocs,
} from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import { semanticIndexStatus } from '../context/semantic/indexer.js';
import { connectorReadiness } from '../context/sync/state.js';
import { BadRequestError, ResourceNotFoundError } from '../errors.js';
import { findConnector, type ConnectorRow } from './connector-lookup.js';
import type { SkillLibrary } from './skill-library.js';
import { findWorkspace } from './workspaces.js';
import type { ActionCatalog, EntityCatalog, InspectResponse, ParamCatalog, SkillDocsResponse, SkillMetadata } from '../api-shapes.js';

/** The skill id of a connector kind's docs (GET /api/v1/skills/docs?id=...). */
export function docsSkillId(connectorType: string): string {
  return `connector:${connectorType}`;
}

/** JSON Schema keywords reported as a param's limits. */
const LIMIT_KEYWORDS = [
  'minimum',
  'maximum',
  'exclusiveMinimum',
  'exclusiveMaximum',
  'multipleOf',
  'minLength',
  'maxLength',
  'pattern',
  'format',
  'minItems',
  'maxItems',
  'uniqueItems',
  'minProperties',
  'maxProperties',
] as const;

function universalLimit(action: ActionDefinition): ActionCatalog['limit'] {
  const plan = limitPlan(action);
  if (plan === undefined) return undefined;
  return { page_size_param: plan.param ?? null, minimum: plan.minimum ?? null, maximum: plan.maximum ?? null, description: limitDescription(plan) };
}

function paramCatalog(name: string, param: ParamDefinition): ParamCatalog {
  const { schema } = param;
  const limits: Record<string, JsonValue> = {};
  for (const keyword of LIMIT_KEYWORDS) {
    const value = schema[keyword];
    if (value !== undefined) limits[keyword] = value;
  }
  const description = param.description ?? (typeof schema.description === 'string' ? schema.description : null);
  return {
    name,
    location: param.in,
    // Required of the caller: a param the runtime fills with its default (send_default) is not.
    required: callerMustGive(param),
    type: schema.type ?? null,
    description,
    ...(Array.isArray(schema.enum) && { enum: schema.enum }),
    ...(schema.default !== undefined && { default: schema.default }),
    ...(param.aliases !== undefined && { aliases: param.aliases }),
    limits,
    schema,
  };
}

function actionCatalog(action: ActionDefinition): ActionCatalog {
  return {
    name: action.name,
    description: action.description ?? null,
    result: action.result,
    idempotent: action.idempotent,
    destructive: action.destructive,
    params: Object.entries(action.params).map(([name, param]) => paramCatalog(name, param)),
    ...(action.atLeastOneOf && { at_least_one_of: action.atLeastOneOf }),
    ...(action.atMostOneOf && { at_most_one_of: action.atMostOneOf }),
    accepts_additional_params: action.additionalParams === 'body',
    pagination: action.pagination ? { style: action.pagination.style, block_keys: Object.keys(action.pagination.block) } : null,
    ...(universalLimit(action) && { limit: universalLimit(action) }),
  };
}

function entityCatalog(entity: EntityDefinition): EntityCatalog {
  return {
    name: entity.name,
    description: entity.description,
    record: { id_field: entity.record.idField, fields: entity.record.fields },
    search: { fields: entity.search.fields, semantic: entity.search.semantic },
    actions: Object.values(entity.actions).map(actionCatalog),
  };
}

/** The connector's entities and actions, from its definition. */
export function catalog(definition: ConnectorDefinition): EntityCatalog[] {
  return Object.values(definition.entities).map(entityCatalog);
}

/** The pagination keys this connector kind answers with (all list actions of a kind share them). */
function paginationKeys(definition: ConnectorDefinition): string[] {
  const keys = new Set<string>();
  for (const entity of Object.values(definition.entities)) {
    for (const action of Object.values(entity.actions)) {
      for (const key of Object.keys(action.pagination?.block ?? {})) keys.add(key);
    }
  }
  return [...keys];
}

/** Text for an agent: how to call execute on this connector, page through results and read errors. */
export function usageGuidance(definition: ConnectorDefinition, connectorId: string): string {
  const keys = paginationKeys(definition);
  const lines = [
    `${definition.displayName} connector (connector_type ${definition.connectorType}). ${definition.description}`,
    '',
    'Execution rules:',
    `- Run every operation with POST /api/v1/integrations/connectors/${connectorId}/execute and a body {"entity": ..., "action": ..., "params": {...}}. Only the entities and actions listed in this catalog exist; anything else is a 400 that names the valid ones.`,
    '- Params are validated before anything is sent to the vendor: unknown params, wrong types, missing required params and values beyond a limit are a 400 whose errors[] lists every violation (field, rule, limit).',
    '- result holds the records: an array for actions whose result is "many" (list, api_search), an object otherwise. select_fields (or exclude_fields) trims each record to (or of) the dot paths given.',
    keys.length > 0
      ? `- Pagination: connector_metadata carries this connector's native pagination keys (${keys.join(', ')}) and, when there is a next page, next_params. To read the next page, call the same action again with next_params merged into the same params; next_params is absent on the last page.`
      : '- No action of this connector paginates.',
    '- Actions with idempotent=false (create, most updates) are sent exactly once and never retried; idempotent ones are retried on 429, 502, 503 and 504.',
    '- Errors: 424 credentials_rejected means the vendor refused the stored credentials (update the connector); 404 the vendor has no such record; 429 wait for Retry-After seconds; 502 the vendor failed or answered something unreadable; 504 the vendor did not answer in time.',
    `- context_store_search is not ready for this connector: its data has not been synchronized into the context store. Use the native actions.`,
    `- Detailed docs per action: GET /api/v1/skills/docs?id=${docsSkillId(definition.connectorType)} (outline) and &section=<entity>.<action>.`,
  ];
  if (definition.guidance) lines.push('', `${definition.displayName} specifics: ${definition.guidance}`);
  return lines.join('\n');
}

function warningsFor(row: ConnectorRow, workspace: { name: string; status: string }, definition: ConnectorDefinition | undefined): string[] {
  const warnings: string[] = [];
  if (workspace.status !== 'active') {
    warnings.push(`Workspace "${workspace.name}" is ${workspace.status}: execute calls on this connector are refused with 403 until it is active again.`);
  }
  if (!definition)
    warnings.push(`The connector type "${row.connector_type}" is no longer offered by this service: its catalog is empty and it cannot execute.`);
  return warnings;
}

export async function inspectConnector(ctx: ServiceContext, organizationId: string, connectorId: string): Promise<InspectResponse> {
  const row = await findConnector(ctx.store.db, organizationId, connectorId);
  const workspace = await findWorkspace(ctx.store.db, organizationId, row.workspace_id);
  const definition = connectorModules[row.connector_type]?.definition;
  return {
    connector_id: row.id,
    name: row.name,
    workspace_id: row.workspace_id,
    organization_id: row.organization_id,
    source_definition_id: row.definition_id,
    source_definition_name: definition?.displayName ?? null,
    source_config_template_id: row.definition_id,
    docs_skill_id: docsSkillId(row.connector_type),
    context_store_readiness: definition
      ? await connectorReadiness(ctx.store.db, row.id, definition, { semanticStatus: (entity) => semanticIndexStatus(ctx, row.id, entity) })
      : null,
    warnings: warningsFor(row, workspace, definition),
    connector_type: row.connector_type,
    entities: definition ? catalog(definition) : [],
    usage_guidance: definition ? usageGuidance(definition, row.id) : '',
  };
}

/* ----- skill docs (GET /api/v1/skills, GET /api/v1/skills/docs) ----- */

const SKILL_PREFIX = 'connector:';

function skillIds(): string[] {
  return Object.keys(connectorModules).sort().map(docsSkillId);
}

/** The generated docs of a skill id: `connector:<type>`, or the bare connector type. */
async function findSkill(skills: SkillLibrary, id: string): Promise<{ connectorType: string; docs: SkillDocs }> {
  const connectorType = id.startsWith(SKILL_PREFIX) ? id.slice(SKILL_PREFIX.length) : id;
  const docs = await skills.docs(connectorType);
  if (!docs) {
    const message = `No skill "${id}". Skills: ${skillIds().join(', ')} (the bare connector type is accepted too).`;
    throw new ResourceNotFoundError(message, { issues: [{ field: 'id', rule: 'not_found', message, limit: skillIds() }] });
  }
  return { connectorType, docs };
}

export function skillMetadata(connectorType: string, docs: SkillDocs): SkillMetadata {
  const definition = connectorModules[connectorType]?.definition;
  return {
    id: docsSkillId(connectorType),
    kind: 'connector_source',
    title: docs.title,
    summary: docs.summary,
    tags: docs.tags,
    provenance: `Generated from the connector manifest manifests/${connectorType}.yaml${definition ? ` (source definition ${definition.definitionId})` : ''}.`,
    version: docs.version,
    freshness: { state: 'static', checked_at: null },
    warnings: [],
  };
}

/** The default document (the overview: execution guidance) or one section, with the outline of every section. */
export async function readSkillDocs(skills: SkillLibrary, id: string, sectionId: string | undefined): Promise<SkillDocsResponse> {
  const { connectorType, docs } = await findSkill(skills, id);
  const outline = docs.sections.map((s) => ({ id: s.id, title: s.title, summary: s.summary, available: true as const }));
  let content: ContentBlock[] = docs.sections[0]?.blocks ?? [];
  if (sectionId !== undefined) {
    const section = docs.sections.find((s) => s.id === sectionId);
    if (!section) {
      const ids = docs.sections.map((s) => s.id);
      const message = `Skill ${docsSkillId(connectorType)} has no section "${sectionId}". Sections: ${ids.join(', ')}.`;
      throw new ResourceNotFoundError(message, { issues: [{ field: 'section', rule: 'not_found', message, limit: ids }] });
    }
    content = section.blocks;
  }
  return { metadata: skillMetadata(connectorType, docs), outline, section_id: sectionId ?? null, content };
}

function decodeCursor(cursor: string): string {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (parsed !== null && typeof parsed === 'object' && 'after' in parsed && typeof parsed.after === 'string') return parsed.after;
  } catch {
    // reported below
  }
  throw invalidSkillCursor();
}

function invalidSkillCursor(): BadRequestError {
  return new BadRequestError('The cursor is not one this service issued; pass next_cursor from the previous page unchanged.', 'invalid_cursor', [
    { field: 'cursor', rule: 'invalid_cursor', message: 'cursor is not a cursor this service issued' },
  ]);
}

/** Every connector kind's docs, by skill id, one page at a time. */
export async function listSkills(
  skills: SkillLibrary,
  limit: number,
  cursor: string | undefined,
): Promise<{ data: SkillMetadata[]; next_cursor: string | null }> {
  const after = cursor === undefined ? undefined : decodeCursor(cursor);
  const kinds = Object.keys(connectorModules).sort();
  // A next_cursor names the last skill of its page: any other value was not issued here.
  if (after !== undefined && !kinds.some((type) => docsSkillId(type) === after)) throw invalidSkillCursor();
  const all = kinds.filter((type) => after === undefined || docsSkillId(type) > after);
  const page = await Promise.all(all.slice(0, limit).map(async (type) => skillMetadata(type, (await skills.docs(type)) as SkillDocs)));
  const last = page.at(-1);
  const nextCursor = all.length > limit && last ? Buffer.from(JSON.stringify({ after: last.id })).toString('base64url') : null;
  return { data: page, next_cursor: nextCursor };
}
