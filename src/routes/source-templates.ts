import type { FastifyInstance } from 'fastify';
import { connectorModules } from '../../runtime/index.js';
import { summarizedSourceTemplate } from '../services/catalog.js';
import {
  createTemplate,
  deleteTemplate,
  getTemplate,
  listTemplates,
  updateTemplate,
  type CreateTemplateInput,
  type TagsMode,
  type UpdateTemplateInput,
} from '../services/source-templates.js';
import { RequestValidationError } from '../errors.js';
import { connectorSpecificationSchema } from './definitions.js';
import { errorResponses, idParamsSchema, uuidSchema } from './shared-schemas.js';

const mode = { type: 'string', enum: ['DIRECT', 'REPLICATION', 'MULTI'] } as const;
const nullableMode = { type: ['string', 'null'], enum: ['DIRECT', 'REPLICATION', 'MULTI', null] } as const;
const nullableTimestamp = { type: ['string', 'null'], format: 'date-time' } as const;
const freeObject = { type: 'object', additionalProperties: true } as const;
const nullableObject = { type: ['object', 'null'], additionalProperties: true } as const;
const templateName = { type: ['string', 'null'], minLength: 1, maxLength: 200 } as const;

/** The reference's SourceTemplateCreate/Get/UpdateResponse. */
const templateSchema = {
  type: 'object',
  required: ['id', 'name', 'source_definition_id', 'user_config_spec', 'partial_default_config'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    icon: { type: ['string', 'null'] },
    source_definition_id: { type: 'string', format: 'uuid' },
    user_config_spec: connectorSpecificationSchema,
    partial_default_config: freeObject,
    customization: nullableObject,
    tags: { type: 'array', items: { type: 'string' } },
    mode,
    is_experimental: { type: 'boolean' },
    supports_context_store: { type: 'boolean' },
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
    auth_tooltip: { type: 'null' },
    connector_name: { type: ['string', 'null'] },
  },
} as const;

const listItemSchema = {
  type: 'object',
  required: ['id', 'name', 'icon', 'actor_definition_id'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    icon: { type: ['string', 'null'] },
    connector_name: { type: ['string', 'null'] },
    organization_id: { type: ['string', 'null'] },
    actor_definition_id: { type: 'string', format: 'uuid' },
    tags: { type: 'array', items: { type: 'string' } },
    customization: nullableObject,
    mode,
    supports_context_store: { type: 'boolean' },
    created_at: nullableTimestamp,
    updated_at: nullableTimestamp,
  },
} as const;

export default async function sourceTemplatesRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: CreateTemplateInput }>(
    '/api/v1/integrations/templates/sources',
    {
      schema: {
        summary: 'Enable a connector for end users (create a source template)',
        description:
          "Either {actor_definition_id, partial_default_config} or {original_source_template_id} (a clone). partial_default_config presets non-secret settings of the connector (its replication_config fields); credentials are never preset. The connect page (GET /connect) offers the organization's templates. customization is stored and returned; this service does not sync streams, so it has no other effect.",
        tags: ['Connect'],
        body: {
          type: 'object',
          properties: {
            actor_definition_id: uuidSchema,
            original_source_template_id: uuidSchema,
            name: templateName,
            partial_default_config: freeObject,
            customization: nullableObject,
            mode: nullableMode,
          },
          anyOf: [{ required: ['actor_definition_id', 'partial_default_config'] }, { required: ['original_source_template_id'] }],
        },
        response: { 200: templateSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => createTemplate(app.ctx, request.principal.organizationId, request.body),
  );

  app.get<{ Querystring: { use_global?: boolean; tags?: string[]; tags_mode?: TagsMode } }>(
    '/api/v1/integrations/templates/sources',
    {
      schema: {
        summary: "List the organization's enabled connectors (source templates)",
        description: 'Oldest first. tags filters (tags_mode all: every tag; any: at least one). use_global=true lists the catalog as global templates instead.',
        tags: ['Connect'],
        querystring: {
          type: 'object',
          properties: {
            use_global: { type: 'boolean', default: false },
            tags: { type: 'array', items: { type: 'string' }, default: [] },
            tags_mode: { type: 'string', enum: ['all', 'any'], default: 'all' },
          },
        },
        response: {
          200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: listItemSchema } } },
          ...errorResponses(401, 403, 422),
        },
      },
    },
    async (request) => {
      const { use_global: useGlobal, tags = [], tags_mode: tagsMode = 'all' } = request.query;
      if (useGlobal) {
        const data = Object.values(connectorModules)
          .map(({ definition }) => ({ ...summarizedSourceTemplate(definition), customization: null }))
          .filter(
            (template) =>
              tags.length === 0 || (tagsMode === 'all' ? tags.every((tag) => template.tags.includes(tag)) : tags.some((tag) => template.tags.includes(tag))),
          );
        return { data };
      }
      return { data: await listTemplates(app.ctx, request.principal.organizationId, tags, tagsMode) };
    },
  );

  app.get<{ Params: { id: string } }>(
    '/api/v1/integrations/templates/sources/:id',
    {
      schema: {
        summary: 'Get a source template',
        tags: ['Connect'],
        params: idParamsSchema,
        response: { 200: templateSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => getTemplate(app.ctx, request.principal.organizationId, request.params.id),
  );

  app.patch<{ Params: { id: string }; Body: UpdateTemplateInput }>(
    '/api/v1/integrations/templates/sources/:id',
    {
      schema: {
        summary: 'Update a source template',
        description: 'null or absent leaves a field unchanged. propagate is accepted; connectors already created keep the settings they were created with.',
        tags: ['Connect'],
        params: idParamsSchema,
        body: {
          type: 'object',
          properties: {
            name: templateName,
            propagate: { type: ['boolean', 'null'] },
            partial_default_config: nullableObject,
            customization: nullableObject,
            mode: nullableMode,
          },
        },
        response: { 200: templateSchema, ...errorResponses(400, 401, 403, 404, 422) },
      },
    },
    async (request) => {
      const body = request.body ?? {};
      if (body.name == null && body.partial_default_config == null && body.customization == null && body.mode == null && body.propagate == null) {
        throw new RequestValidationError('Send at least one of name, partial_default_config, customization or mode to update.', [
          { field: 'body', rule: 'at_least_one_of', message: 'body needs at least one of name, partial_default_config, customization, mode' },
        ]);
      }
      return updateTemplate(app.ctx, request.principal.organizationId, request.params.id, body);
    },
  );

  app.delete<{ Params: { id: string } }>(
    '/api/v1/integrations/templates/sources/:id',
    {
      schema: {
        summary: 'Delete a source template (connectors created from it stay)',
        tags: ['Connect'],
        params: idParamsSchema,
        response: {
          200: {
            type: 'object',
            required: ['id', 'deleted_at'],
            properties: { id: { type: 'string', format: 'uuid' }, deleted_at: { type: 'string', format: 'date-time' } },
          },
          ...errorResponses(401, 403, 404, 422),
        },
      },
    },
    async (request) => deleteTemplate(app.ctx, request.principal.organizationId, request.params.id),
  );
}
