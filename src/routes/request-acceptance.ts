/**
 * Requests as Airbyte's Agent API (app_public.json) allows them: `null` for an optional field means
 * absent, and fields that API documents but Switchyard has no use for are accepted (checked against the
 * reference's type) and then dropped before any handler sees them. Unknown fields stay refused (422),
 * so typos are caught. docs/api-reference.md ("Coming from Airbyte") lists every field declared here.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

/** Marks a property schema as accepted-and-ignored; the preHandler below drops such fields. */
export const IGNORED_MARK = 'x-switchyard-ignored';

const nullableUuid = { type: ['string', 'null'], format: 'uuid' } as const;
const nullableObject = { type: ['object', 'null'], additionalProperties: true } as const;
const requestedEntities = {
  type: ['array', 'null'],
  items: {
    type: 'object',
    required: ['entity'],
    properties: { entity: { type: 'string' }, modes: { type: ['array', 'null'], items: { type: 'string' } } },
  },
} as const;

/** Every documented-but-unused field, with the reference's type and why Switchyard ignores it. */
export const IGNORED_FIELDS = {
  source_template_id: { schema: nullableUuid, why: 'Switchyard has one template per connector kind, found from definition_id or connector_type.' },
  environment: { schema: nullableObject, why: 'settings go in replication_config; Switchyard has no separate environment.' },
  entities: { schema: requestedEntities, why: 'Switchyard does not select streams; every entity of the connector is available.' },
  server_side_oauth_secret_id: {
    schema: { type: ['string', 'null'] },
    why: 'Airbyte-hosted OAuth secrets do not exist here; send the OAuth fields in credentials.',
  },
  selected_connection_template_tags: {
    schema: { type: 'array', items: { type: 'string' } },
    why: 'connection templates belong to Airbyte data pipelines (501 here).',
  },
  selected_connection_template_tags_mode: {
    schema: { type: 'string', enum: ['all', 'any'] },
    why: 'connection templates belong to Airbyte data pipelines (501 here).',
  },
  region_id: { schema: nullableUuid, why: 'a Switchyard deployment has one region: where it runs.' },
  cache_enabled: {
    schema: { type: ['boolean', 'null'] },
    why: 'Switchyard has no Context Store cache to switch; workspaces always answer cache_enabled null.',
  },
  grant_type: { schema: { type: 'string', enum: ['client_credentials'] }, why: 'OAuth 2 clients send it; the client-credentials exchange is the only grant.' },
  organization_id: { schema: nullableUuid, why: 'the organization is the one of the token (X-Organization-Id must match it).' },
  workspace_id: { schema: nullableUuid, why: 'skill docs are the same for every workspace.' },
} as const;

export type IgnoredField = keyof typeof IGNORED_FIELDS;

/** One accepted-and-ignored property: the reference's schema, a description saying why, and the mark. */
export function ignored(schema: object, why: string): Record<string, unknown> {
  return { ...schema, description: `Accepted for compatibility with Airbyte's Agent API and ignored: ${why}`, [IGNORED_MARK]: true };
}

/** Property schemas for the given ignored fields, to spread into a body or querystring schema's properties. */
export function ignoredProperties<const N extends IgnoredField>(...names: N[]): Record<N, Record<string, unknown>> {
  return Object.fromEntries(names.map((name) => [name, ignored(IGNORED_FIELDS[name].schema, IGNORED_FIELDS[name].why)])) as Record<N, Record<string, unknown>>;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function ignoredNames(schema: unknown): string[] {
  if (!isObject(schema) || !isObject(schema.properties)) return [];
  return Object.entries(schema.properties)
    .filter(([, property]) => isObject(property) && property[IGNORED_MARK] === true)
    .map(([name]) => name);
}

function requiredNames(schema: unknown): Set<string> {
  return new Set(isObject(schema) && Array.isArray(schema.required) ? (schema.required as string[]) : []);
}

/** What the hooks need of a route's schema, read once per route rather than on every request. */
interface AcceptancePlan {
  requiredInBody: Set<string>;
  ignoredInBody: string[];
  ignoredInQuery: string[];
}

const plans = new WeakMap<object, AcceptancePlan>();
const NO_SCHEMA: AcceptancePlan = { requiredInBody: new Set(), ignoredInBody: [], ignoredInQuery: [] };

function planOf(request: FastifyRequest): AcceptancePlan {
  const schema = request.routeOptions.schema as { body?: unknown; querystring?: unknown } | undefined;
  if (schema === undefined) return NO_SCHEMA;
  let plan = plans.get(schema);
  if (plan === undefined) {
    plan = { requiredInBody: requiredNames(schema.body), ignoredInBody: ignoredNames(schema.body), ignoredInQuery: ignoredNames(schema.querystring) };
    plans.set(schema, plan);
  }
  return plan;
}

/** The two hooks: nulls dropped before validation, ignored fields dropped after it. */
export function registerRequestAcceptance(app: FastifyInstance): void {
  app.addHook('preValidation', (request, _reply, done) => {
    const body = request.body;
    if (isObject(body)) {
      const required = planOf(request).requiredInBody;
      for (const name of Object.keys(body)) if (body[name] === null && !required.has(name)) delete body[name];
    }
    done();
  });
  app.addHook('preHandler', (request, _reply, done) => {
    const plan = planOf(request);
    if (isObject(request.body)) for (const name of plan.ignoredInBody) delete request.body[name];
    if (isObject(request.query)) for (const name of plan.ignoredInQuery) delete request.query[name];
    done();
  });
}
