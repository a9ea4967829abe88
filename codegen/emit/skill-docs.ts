import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import Handlebars from 'handlebars';
import { callerMustGive, type ActionDefinition, type ConnectorDefinition, type JsonObject } from '../../runtime/definition.js';
import { limitDescription, limitPlan, UNIVERSAL_LIMIT } from '../../runtime/params.js';
import { SECTION_SEPARATOR, sectionMarker, skillDocsHeader } from '../../runtime/skill-docs.js';
import { schemaToType } from './types.js';

const handlebars = Handlebars.create();
handlebars.registerHelper('cell', (value: unknown) =>
  String(value ?? '')
    .replace(/\|/g, '\\|')
    .replace(/\s*\n\s*/g, ' '),
);

function template(name: string): Handlebars.TemplateDelegate {
  return handlebars.compile(readFileSync(new URL(`../templates/${name}.hbs`, import.meta.url), 'utf8'), { noEscape: true, strict: false });
}

const LIMIT_KEYS = ['minimum', 'maximum', 'minLength', 'maxLength', 'minItems', 'maxItems', 'pattern', 'default'] as const;

function limitsOf(schema: JsonObject): string {
  const parts: string[] = LIMIT_KEYS.filter((k) => schema[k] !== undefined).map((k) => `${k} ${JSON.stringify(schema[k])}`);
  if (Array.isArray(schema.enum)) parts.push(`one of ${schema.enum.map((v) => JSON.stringify(v)).join(', ')}`);
  return parts.join('; ');
}

/** The JSON type as a reader expects it (integer stays integer), with enums spelled out by limitsOf. */
function typeLabel(schema: JsonObject): string {
  const type = schema.type;
  if (type === undefined) return Array.isArray(schema.enum) ? 'enum' : schemaToType(schema);
  const types = (Array.isArray(type) ? type : [type]).map(String);
  return types
    .map((t) => (t === 'array' && schema.items && typeof schema.items === 'object' && !Array.isArray(schema.items) ? `array of ${typeLabel(schema.items)}` : t))
    .join(' or ');
}

function exampleValue(name: string, schema: JsonObject): unknown {
  if (schema.examples && Array.isArray(schema.examples) && schema.examples.length > 0) return schema.examples[0];
  if (schema.default !== undefined) return schema.default;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = Array.isArray(schema.type) ? schema.type[0] : schema.type;
  if (type === 'integer' || type === 'number') return typeof schema.minimum === 'number' ? Math.max(1, schema.minimum) : 1;
  if (type === 'boolean') return true;
  if (type === 'array') return [];
  if (type === 'object') return {};
  return `<${name}>`;
}

function actionMarkdown(entity: string, name: string, action: ActionDefinition, definition: ConnectorDefinition): string {
  const params = Object.entries(action.params).map(([paramName, p]) => ({
    name: paramName,
    type: typeLabel(p.schema),
    required: callerMustGive(p) ? 'yes' : 'no',
    limits: limitsOf(p.schema),
    description: [p.description ?? p.schema.description ?? '', p.aliases ? `Also accepted as ${p.aliases.map((alias) => `\`${alias}\``).join(', ')}.` : '']
      .filter((part) => part !== '')
      .join(' '),
  }));
  const limit = limitPlan(action);
  if (limit !== undefined) params.push({ name: UNIVERSAL_LIMIT, type: 'integer', required: 'no', limits: 'minimum 1', description: limitDescription(limit) });
  const exampleParams: Record<string, unknown> = {};
  for (const [paramName, p] of Object.entries(action.params)) if (callerMustGive(p)) exampleParams[paramName] = exampleValue(paramName, p.schema);
  const fields = definition.entities[entity]?.record.fields ?? {};
  return template('action')({
    entity,
    action: name,
    description: action.description,
    method: action.method,
    path: [action.path, ...(action.alternativePaths ?? [])].join(` or ${action.method} `),
    many: action.result === 'many',
    destructive: action.destructive,
    idempotent: action.idempotent,
    params,
    atLeastOneOf: action.atLeastOneOf,
    atMostOneOf: action.atMostOneOf,
    pagination: action.pagination && { style: action.pagination.style, keys: Object.keys(action.pagination.block) },
    recordFields: action.result === 'many' || name === 'get' ? Object.entries(fields).map(([f, s]) => ({ name: f, type: typeLabel(s) })) : [],
    example: JSON.stringify({ entity, action: name, params: exampleParams }, null, 2),
  });
}

/** One section: its marker (the id the runtime reads back, runtime/skill-docs.ts), then its Markdown. */
function section(id: string, markdown: string): string {
  return `${sectionMarker(id)}\n${markdown.replace(/\n{3,}/g, '\n\n').trim()}\n`;
}

/**
 * docs/connectors/<type>.md, the one copy of a connector's skill docs: an overview, authentication and one
 * section per action, read by people here and by the skills API and the MCP server at run time.
 */
export function skillDocsMarkdown(definition: ConnectorDefinition): string {
  const entities = Object.values(definition.entities).map((e) => ({ name: e.name, description: e.description, actionList: Object.keys(e.actions).join(', ') }));
  const sections: string[] = [
    section('overview', template('overview')({ ...definition, entities })),
    section(
      'authentication',
      template('authentication')({
        auth: definition.auth.map((a) => ({
          ...a,
          fieldRows: Object.entries(a.fields).map(([name, f]) => ({
            name: f.aliases ? `${name} (or ${f.aliases.join(', ')})` : name,
            required: f.required ? 'yes' : 'no',
            secret: f.secret ? 'yes' : 'no',
            description: f.description,
          })),
        })),
        configRows: Object.entries(definition.config).map(([name, c]) => ({
          name,
          required: c.required ? 'yes' : 'no',
          allowed: c.enum ? c.enum.join(', ') : (c.pattern ?? ''),
          description: c.description,
        })),
      }),
    ),
  ];
  for (const [entityName, entity] of Object.entries(definition.entities)) {
    for (const [actionName, action] of Object.entries(entity.actions))
      sections.push(section(`${entityName}.${actionName}`, actionMarkdown(entityName, actionName, action, definition)));
  }
  const version = createHash('sha256').update(JSON.stringify(definition)).digest('hex').slice(0, 12);
  return `${skillDocsHeader(definition.connectorType, version)}\n\n${sections.join(SECTION_SEPARATOR)}`;
}
