import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ResourceNotFoundError } from '../errors.js';
import { listSkills, readSkillDocs } from '../services/inspection.js';
import { searchSkills } from '../services/skill-search.js';
import { findWorkspace } from '../services/workspaces.js';
import { errorResponses, uuidSchema } from './shared-schemas.js';

interface ScopeQuery {
  organization_id?: string;
  workspace_id?: string;
}

const scopeProperties = {
  organization_id: { ...uuidSchema, description: "Accepted for compatibility; must be the token's organization." },
  workspace_id: { ...uuidSchema, description: 'Accepted for compatibility; must be a workspace of the organization.' },
} as const;

const metadataSchema = {
  type: 'object',
  required: ['id', 'kind', 'title', 'summary', 'tags', 'provenance', 'version', 'freshness', 'warnings'],
  properties: {
    id: { type: 'string', description: 'connector:<connector_type>; pass it to GET /api/v1/skills/docs.' },
    kind: { type: 'string', enum: ['static', 'connector_source'] },
    title: { type: 'string' },
    summary: { type: ['string', 'null'] },
    tags: { type: 'array', items: { type: 'string' } },
    provenance: { type: 'string' },
    version: { type: 'string', description: 'Fingerprint of the connector definition the docs were generated from.' },
    freshness: {
      type: 'object',
      required: ['state'],
      properties: { state: { type: 'string', enum: ['static', 'live', 'degraded', 'unknown'] }, checked_at: { type: ['string', 'null'] } },
    },
    warnings: { type: 'array', items: { type: 'string' } },
  },
} as const;

const blockSchema = {
  type: 'object',
  required: ['type'],
  properties: {
    type: { type: 'string', enum: ['heading', 'paragraph', 'list', 'code', 'table'] },
    text: { type: 'string' },
    level: { type: 'integer' },
    items: { type: 'array', items: { type: 'string' } },
    language: { type: 'string' },
    code: { type: 'string' },
    headers: { type: 'array', items: { type: 'string' } },
    rows: { type: 'array', items: { type: 'array', items: { type: 'string' } } },
  },
} as const;

const docsSchema = {
  summary: 'Read the docs of a skill (a connector kind): the default document with execution guidance and the outline, or one section',
  tags: ['Skills'],
  querystring: {
    type: 'object',
    required: ['id'],
    additionalProperties: false,
    properties: {
      id: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'Skill id: connector:<connector_type> (inspect returns it as docs_skill_id) or the bare connector_type.',
      },
      section: {
        type: 'string',
        minLength: 1,
        maxLength: 200,
        description: 'Omit for the default document; an outline id (e.g. users.list) for that section.',
      },
      ...scopeProperties,
    },
  },
  response: {
    200: {
      type: 'object',
      required: ['metadata', 'outline', 'section_id', 'content'],
      properties: {
        metadata: metadataSchema,
        outline: {
          type: 'array',
          items: {
            type: 'object',
            required: ['id', 'title', 'summary', 'available'],
            properties: { id: { type: 'string' }, title: { type: 'string' }, summary: { type: ['string', 'null'] }, available: { type: 'boolean' } },
          },
        },
        section_id: { type: ['string', 'null'] },
        content: { type: 'array', items: blockSchema },
      },
    },
    ...errorResponses(401, 403, 404, 422),
  },
} as const;

/** organization_id and workspace_id, which the reference accepts, must name the caller's own scope. */
async function checkScope(app: FastifyInstance, request: FastifyRequest, query: ScopeQuery): Promise<void> {
  const { organizationId } = request.principal;
  if (query.organization_id !== undefined && query.organization_id.toLowerCase() !== organizationId) {
    throw new ResourceNotFoundError(`No organization ${query.organization_id}.`);
  }
  if (query.workspace_id !== undefined) await findWorkspace(app.ctx.store.db, organizationId, query.workspace_id);
}

export default async function skillsRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ScopeQuery & { limit: number; cursor?: string } }>(
    '/api/v1/skills',
    {
      config: { scopedAccess: 'catalog' },
      schema: {
        summary: 'List skills: the docs of every connector kind',
        tags: ['Skills'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            cursor: { type: 'string', minLength: 1, maxLength: 500, description: 'next_cursor of the previous page.' },
            ...scopeProperties,
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['data', 'next_cursor'],
            properties: { data: { type: 'array', items: metadataSchema }, next_cursor: { type: ['string', 'null'] } },
          },
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      await checkScope(app, request, request.query);
      return listSkills(app.ctx.skills, request.query.limit, request.query.cursor);
    },
  );

  app.get<{ Querystring: ScopeQuery & { query: string; limit: number; cursor?: string } }>(
    '/api/v1/skills/search',
    {
      config: { scopedAccess: 'catalog' },
      schema: {
        summary: 'Full-text search over every skill doc (overview, authentication, each action)',
        description:
          "A skill matches when every word of query appears in its docs (prefix match, case-insensitive); skills come best first. Each item is the skill's metadata plus " +
          '`score` and `matched_sections` (the best sections: pass a section_id to GET /api/v1/skills/docs as section).',
        tags: ['Skills'],
        querystring: {
          type: 'object',
          required: ['query'],
          additionalProperties: false,
          properties: {
            query: { type: 'string', minLength: 1, maxLength: 500, description: 'Words to find, e.g. "harvest time entries".' },
            limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
            cursor: { type: 'string', minLength: 1, maxLength: 1000, description: 'next_cursor of the previous page (same query).' },
            ...scopeProperties,
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['data', 'next_cursor'],
            properties: {
              data: {
                type: 'array',
                items: {
                  ...metadataSchema,
                  required: [...metadataSchema.required, 'score', 'matched_sections'],
                  properties: {
                    ...metadataSchema.properties,
                    score: { type: 'number' },
                    matched_sections: {
                      type: 'array',
                      items: {
                        type: 'object',
                        required: ['section_id', 'title', 'summary'],
                        properties: { section_id: { type: 'string' }, title: { type: 'string' }, summary: { type: 'string' } },
                      },
                    },
                  },
                },
              },
              next_cursor: { type: ['string', 'null'] },
            },
          },
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      await checkScope(app, request, request.query);
      return searchSkills(app.ctx.skills, request.query.query, request.query.limit, request.query.cursor);
    },
  );

  for (const url of ['/api/v1/skills/docs', '/skills/docs']) {
    app.get<{ Querystring: ScopeQuery & { id: string; section?: string } }>(
      url,
      { config: { scopedAccess: 'catalog' }, schema: docsSchema },
      async (request) => {
        await checkScope(app, request, request.query);
        return readSkillDocs(app.ctx.skills, request.query.id, request.query.section);
      },
    );
  }
}
