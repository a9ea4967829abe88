/**
 * The admin API: provisioning of organizations and API clients, and the key-rotation state, while
 * the service runs (on PGlite too, where a second process cannot open the store). Authenticated by
 * the operator credential, never by an application token (see src/security/operator-token.ts).
 */
import type { FastifyInstance } from 'fastify';
import { keyRotationState } from '../services/key-rotation.js';
import { createClient, createOrganization, findMissingOrganizations, listClients, listOrganizations, revokeClient } from '../services/organizations.js';
import { ResourceNotFoundError } from '../errors.js';
import { errorResponses, uuidSchema } from './shared-schemas.js';
import { keepOutOfCaches } from './no-store.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** Admin routes: the operator credential instead of an application token. */
    operator?: boolean;
  }
}

const ADMIN = '/api/v1/admin';
const operator = { operator: true } as const;

const organizationSchema = {
  type: 'object',
  required: ['organization_id', 'name', 'created_at'],
  properties: { organization_id: { type: 'string', format: 'uuid' }, name: { type: 'string' }, created_at: { type: 'string', format: 'date-time' } },
} as const;

const clientSchema = {
  type: 'object',
  required: ['client_id', 'name', 'organization_ids', 'created_at'],
  properties: {
    client_id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    organization_ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
    created_at: { type: 'string', format: 'date-time' },
  },
} as const;

const nameSchema = { type: 'string', minLength: 1, maxLength: 200, pattern: '\\S' } as const;

export default async function adminRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Body: { name: string } }>(
    `${ADMIN}/organizations`,
    {
      config: operator,
      schema: {
        summary: 'Create an organization (with its "default" workspace)',
        tags: ['Admin'],
        body: { type: 'object', required: ['name'], additionalProperties: false, properties: { name: nameSchema }, examples: [{ name: 'Acme' }] },
        response: { 201: organizationSchema, ...errorResponses(401, 422) },
      },
    },
    async (request, reply) => {
      const created = await createOrganization(app.ctx.store.db, request.body.name.trim());
      const [view] = (await listOrganizations(app.ctx.store.db)).filter((o) => o.organization_id === created.organization_id);
      return reply.status(201).send(view);
    },
  );

  app.get(
    `${ADMIN}/organizations`,
    {
      config: operator,
      schema: {
        summary: 'List organizations',
        tags: ['Admin'],
        response: { 200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: organizationSchema } } }, ...errorResponses(401) },
      },
    },
    async () => ({ data: await listOrganizations(app.ctx.store.db) }),
  );

  app.post<{ Body: { organization_ids: string[]; name?: string } }>(
    `${ADMIN}/clients`,
    {
      config: operator,
      schema: {
        summary: 'Create an API client in one or more organizations; the client_secret is in this answer only',
        tags: ['Admin'],
        body: {
          type: 'object',
          required: ['organization_ids'],
          additionalProperties: false,
          properties: { organization_ids: { type: 'array', minItems: 1, maxItems: 100, uniqueItems: true, items: uuidSchema }, name: nameSchema },
          examples: [{ organization_ids: ['79659cf6-1867-4ee2-b4b2-2fd6a0ce17c7'], name: 'ci' }],
        },
        response: {
          201: {
            type: 'object',
            required: ['client_id', 'client_secret', 'name', 'organization_id', 'organization_ids'],
            properties: {
              client_id: { type: 'string', format: 'uuid' },
              client_secret: { type: 'string', description: 'Shown only in this answer: Switchyard keeps a salted hash.' },
              name: { type: 'string' },
              organization_id: { type: 'string', format: 'uuid' },
              organization_ids: { type: 'array', items: { type: 'string', format: 'uuid' } },
            },
          },
          ...errorResponses(401, 404, 422),
        },
      },
    },
    async (request, reply) => {
      const ids = request.body.organization_ids.map((id) => id.toLowerCase());
      const missing = await findMissingOrganizations(app.ctx.store.db, ids);
      if (missing.length > 0) throw new ResourceNotFoundError(`No organization ${missing.join(', ')}.`);
      const name = request.body.name?.trim() ?? 'api client';
      const client = await createClient(app.ctx.store.db, ids, name);
      keepOutOfCaches(reply);
      return reply.status(201).send({ client_id: client.client_id, client_secret: client.client_secret, name, organization_id: ids[0], organization_ids: ids });
    },
  );

  app.get<{ Querystring: { organization_id?: string } }>(
    `${ADMIN}/clients`,
    {
      config: operator,
      schema: {
        summary: 'List API clients (never their secrets)',
        tags: ['Admin'],
        querystring: { type: 'object', additionalProperties: false, properties: { organization_id: uuidSchema } },
        response: { 200: { type: 'object', required: ['data'], properties: { data: { type: 'array', items: clientSchema } } }, ...errorResponses(401, 422) },
      },
    },
    async (request) => ({ data: await listClients(app.ctx.store.db, request.query.organization_id?.toLowerCase()) }),
  );

  app.delete<{ Params: { client_id: string } }>(
    `${ADMIN}/clients/:client_id`,
    {
      config: operator,
      schema: {
        summary: 'Revoke an API client: its secret stops working at once; tokens it already holds expire within TOKEN_TTL_SECONDS',
        tags: ['Admin'],
        params: { type: 'object', required: ['client_id'], additionalProperties: false, properties: { client_id: uuidSchema } },
        response: { 204: { type: 'null', description: 'Revoked' }, ...errorResponses(401, 404, 422) },
      },
    },
    async (request, reply) => {
      await revokeClient(app.ctx.store.db, request.params.client_id.toLowerCase());
      return reply.status(204).send();
    },
  );

  app.get(
    `${ADMIN}/key-rotation`,
    {
      config: operator,
      schema: {
        summary: 'Master key rotation state: the current key id, a pending key, stored credentials per key id',
        tags: ['Admin'],
        response: {
          200: {
            type: 'object',
            required: ['key_id', 'pending_key_id', 'connectors_by_key', 'rotated'],
            properties: {
              key_id: { type: 'string' },
              pending_key_id: { type: ['string', 'null'] },
              connectors_by_key: {
                type: 'array',
                items: { type: 'object', required: ['key_id', 'connectors'], properties: { key_id: { type: 'string' }, connectors: { type: 'integer' } } },
              },
              rotated: { type: 'boolean' },
            },
          },
          ...errorResponses(401),
        },
      },
    },
    async () => keyRotationState(app.ctx.store.db, app.ctx.keyring, app.ctx.config.dataDir),
  );
}
