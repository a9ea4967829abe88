import type { FastifyInstance, FastifyRequest } from 'fastify';
import { deleteWorkspace, getWorkspaceDetail, listWorkspaces, updateWorkspace, workspaceStats, type WorkspaceChanges } from '../services/workspaces.js';
import { ignoredProperties } from './request-acceptance.js';
import { errorResponses, uuidSchema } from './shared-schemas.js';
import { publicBase } from './public-base.js';
import type { WorkspaceStatus } from '../api-shapes.js';

const TAGS = ['Workspaces'];
const STATUSES = ['active', 'inactive'] as const;
export const WORKSPACE_LIST_MAX = 100;
export const WORKSPACE_LIST_DEFAULT = 20;

/** A workspace name: 1 to 100 characters, on one line, without leading or trailing spaces. */
export const workspaceNameSchema = { type: 'string', minLength: 1, maxLength: 100, pattern: '^\\S(?:.*\\S)?$' } as const;

const workspaceProperties = {
  id: { type: 'string', format: 'uuid', description: 'Unique identifier for the workspace' },
  name: { type: 'string', description: 'Name of the workspace' },
  organization_id: { type: 'string', format: 'uuid', description: 'Organization that owns this workspace' },
  status: { type: 'string', enum: STATUSES, description: 'active, or inactive (its connectors cannot execute)' },
  cache_enabled: { type: ['boolean', 'null'], description: 'Always null: Switchyard has no Context Store cache' },
  tombstone: { type: 'boolean', description: 'Whether this workspace has been deleted (deleted workspaces are never listed)' },
  visibility: { type: 'string', enum: ['shared', 'private'], description: 'Always shared: every client of the organization sees it' },
  color: { type: ['string', 'null'], description: 'Always null' },
  created_at: { type: 'string', format: 'date-time' },
  updated_at: { type: 'string', format: 'date-time' },
} as const;
const workspaceRequired = Object.keys(workspaceProperties);

const workspaceItemSchema = { type: 'object', required: workspaceRequired, properties: workspaceProperties } as const;

const workspaceDetailSchema = {
  type: 'object',
  required: [...workspaceRequired, 'connector_count'],
  properties: {
    ...workspaceProperties,
    connector_count: { type: 'integer', description: 'Number of connectors in the workspace (Switchyard metadata)' },
  },
} as const;

const workspaceParamsSchema = {
  type: 'object',
  required: ['workspace_id'],
  additionalProperties: false,
  properties: { workspace_id: uuidSchema },
} as const;

interface ListQuery {
  name_contains?: string;
  status?: WorkspaceStatus;
  limit: number;
  cursor?: string;
}

interface WorkspaceParams {
  workspace_id: string;
}

interface UpdateBody {
  name?: string | null;
  status?: WorkspaceStatus | null;
}

/** The absolute URL of the next page: same filters and limit, the new cursor. */
function nextPageUrl(request: FastifyRequest, query: ListQuery, cursor: string): string {
  const params = new URLSearchParams();
  if (query.name_contains !== undefined) params.set('name_contains', query.name_contains);
  if (query.status !== undefined) params.set('status', query.status);
  params.set('limit', String(query.limit));
  params.set('cursor', cursor);
  return `${publicBase(request)}/api/v1/workspaces?${params.toString()}`;
}

export default async function workspacesRoutes(app: FastifyInstance): Promise<void> {
  app.get<{ Querystring: ListQuery }>(
    '/api/v1/workspaces',
    {
      schema: {
        summary: 'List the workspaces of the organization',
        description:
          'Live workspaces of the caller organization, oldest first (created_at, then id). `next` is the URL of the next page (null on the last page); ' +
          'its `cursor` value (or the whole URL) can be passed back as `cursor`.',
        tags: TAGS,
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name_contains: { type: 'string', maxLength: 200, description: 'Case-insensitive substring of the name' },
            status: { type: 'string', enum: STATUSES },
            limit: { type: 'integer', minimum: 1, maximum: WORKSPACE_LIST_MAX, default: WORKSPACE_LIST_DEFAULT },
            cursor: { type: 'string', minLength: 1, maxLength: 4096, description: 'Opaque cursor from the previous page' },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['next', 'data'],
            properties: {
              next: { type: ['string', 'null'], description: 'URL of the next page; null when there are no more pages' },
              data: { type: 'array', items: workspaceItemSchema },
            },
          },
          ...errorResponses(400, 401, 403, 422),
        },
      },
    },
    async (request) => {
      const query = request.query;
      const page = await listWorkspaces(app.ctx.store.db, request.principal.organizationId, {
        limit: query.limit,
        cursorKey: app.ctx.keyring.derive('cursor'),
        ...(query.name_contains !== undefined && { nameContains: query.name_contains }),
        ...(query.status !== undefined && { status: query.status }),
        ...(query.cursor !== undefined && { cursor: query.cursor }),
      });
      return { next: page.nextCursor === null ? null : nextPageUrl(request, query, page.nextCursor), data: page.data };
    },
  );

  app.get(
    '/api/v1/workspaces/stats',
    {
      schema: {
        summary: 'Count the workspaces of the organization by status',
        tags: TAGS,
        response: {
          200: {
            type: 'object',
            required: ['active_count', 'inactive_count', 'total_count'],
            properties: { active_count: { type: 'integer' }, inactive_count: { type: 'integer' }, total_count: { type: 'integer' } },
          },
          ...errorResponses(401, 403),
        },
      },
    },
    async (request) => workspaceStats(app.ctx.store.db, request.principal.organizationId),
  );

  app.get<{ Params: WorkspaceParams }>(
    '/api/v1/workspaces/:workspace_id',
    {
      schema: {
        summary: 'Get a workspace and its connector count',
        tags: TAGS,
        params: workspaceParamsSchema,
        response: { 200: workspaceDetailSchema, ...errorResponses(401, 403, 404, 422) },
      },
    },
    async (request) => getWorkspaceDetail(app.ctx.store.db, request.principal.organizationId, request.params.workspace_id),
  );

  app.put<{ Params: WorkspaceParams; Body: UpdateBody }>(
    '/api/v1/workspaces/:workspace_id',
    {
      schema: {
        summary: 'Rename a workspace or change its status',
        description:
          'Null or absent leaves a field unchanged; an empty body changes nothing and answers the current record. An inactive workspace keeps its connectors, but they cannot execute (403). ' +
          '`default` cannot be renamed. `cache_enabled` is accepted and ignored: Switchyard has no Context Store cache.',
        tags: TAGS,
        params: workspaceParamsSchema,
        body: {
          type: 'object',
          additionalProperties: false,
          properties: {
            name: { ...workspaceNameSchema, type: ['string', 'null'] },
            status: { type: ['string', 'null'], enum: [...STATUSES, null] },
            ...ignoredProperties('cache_enabled'),
          },
        },
        response: { 200: workspaceDetailSchema, ...errorResponses(400, 401, 403, 404, 409, 413, 415, 422) },
      },
    },
    async (request) => {
      const body = request.body;
      const changes: WorkspaceChanges = {
        ...(body.name !== undefined && body.name !== null && { name: body.name }),
        ...(body.status !== undefined && body.status !== null && { status: body.status }),
      };
      return updateWorkspace(app.ctx.store, request.principal.organizationId, request.params.workspace_id, changes);
    },
  );

  app.delete<{ Params: WorkspaceParams }>(
    '/api/v1/workspaces/:workspace_id',
    {
      schema: {
        summary: 'Delete a workspace and all of its connectors',
        description:
          'In one transaction: the connectors of the workspace and their stored credentials are deleted, and the workspace is tombstoned. ' +
          'Its name becomes free. `default` cannot be deleted (400).',
        tags: TAGS,
        params: workspaceParamsSchema,
        response: {
          200: {
            type: 'object',
            required: ['id', 'deleted_at', 'connectors_deleted'],
            properties: {
              id: { type: 'string', format: 'uuid' },
              deleted_at: { type: 'string', format: 'date-time' },
              connectors_deleted: { type: 'integer', description: 'Number of connectors deleted with the workspace (Switchyard metadata)' },
            },
          },
          ...errorResponses(400, 401, 403, 404, 422),
        },
      },
    },
    async (request) => {
      return deleteWorkspace(app.ctx, request.principal.organizationId, request.params.workspace_id);
    },
  );
}
