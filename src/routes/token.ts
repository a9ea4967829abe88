import type { FastifyInstance } from 'fastify';
import ipaddr from 'ipaddr.js';
import { DEFAULT_SCOPED_TOKEN_TTL_SECONDS } from '../config.js';
import { BadRequestError, TooManyAttemptsError, UnauthorizedError } from '../errors.js';
import { requestedOrganization } from '../plugins/authentication.js';
import { keepOutOfCaches } from './no-store.js';
import { AttemptLimiter } from '../security/attempt-limiter.js';
import { issueToken } from '../security/tokens.js';
import { authenticateClient, requireActiveClient } from '../services/organizations.js';
import { ensureWorkspace, findWorkspace } from '../services/workspaces.js';
import { ignoredProperties } from './request-acceptance.js';
import { errorResponses } from './shared-schemas.js';
import { workspaceNameSchema } from './workspaces.js';

/**
 * Wrong secrets one address may send for one client_id in a minute before that pair is refused without hashing
 * (429): another client behind the same address (a shared NAT) keeps its own budget.
 */
export const FAILED_TOKEN_REQUESTS_PER_MINUTE = 20;

/** Wrong secrets one address may send in a minute whatever the client_id (a flood that varies it). */
export const FAILED_TOKEN_REQUESTS_PER_ADDRESS_PER_MINUTE = 200;

/** An address as a source of attempts: IPv6 by its /64 (one host's share), IPv4 (IPv4-mapped too) whole. */
export function attemptSource(ip: string): string {
  if (!ipaddr.isValid(ip)) return ip;
  const address = ipaddr.process(ip);
  if (address.kind() === 'ipv4') return address.toString();
  return `${address.toNormalizedString().split(':').slice(0, 4).join(':')}::/64`;
}

export default async function tokenRoutes(app: FastifyInstance): Promise<void> {
  const perClient = new AttemptLimiter(FAILED_TOKEN_REQUESTS_PER_MINUTE, 60_000);
  const perAddress = new AttemptLimiter(FAILED_TOKEN_REQUESTS_PER_ADDRESS_PER_MINUTE, 60_000);
  app.post<{ Body: { client_id: string; client_secret: string } }>(
    '/api/v1/account/applications/token',
    {
      config: { public: true },
      schema: {
        summary: 'Exchange client credentials for a short-lived application token',
        tags: ['Account'],
        body: {
          type: 'object',
          required: ['client_id', 'client_secret'],
          additionalProperties: false,
          properties: {
            client_id: { type: 'string', minLength: 1, maxLength: 200 },
            client_secret: { type: 'string', minLength: 1, maxLength: 500 },
            ...ignoredProperties('grant_type'),
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['access_token', 'token_type', 'expires_in', 'organization_id'],
            properties: {
              access_token: { type: 'string' },
              token_type: { type: 'string', enum: ['bearer'] },
              expires_in: { type: 'integer' },
              organization_id: { type: 'string' },
            },
          },
          ...errorResponses(400, 401, 403, 422, 429),
        },
      },
    },
    async (request, reply) => {
      keepOutOfCaches(reply);
      const address = attemptSource(request.ip);
      const pair = `${address} ${request.body.client_id}`;
      const wait = perClient.refusal(pair) ?? perAddress.refusal(address);
      if (wait !== undefined) {
        throw new TooManyAttemptsError(`Too many failed token requests from this address within a minute: try again in ${wait} s.`, wait);
      }
      perClient.begin(pair);
      perAddress.begin(address);
      // Only a wrong client_id or secret counts as failed: an ambiguous organization comes after a right secret.
      let succeeded = true;
      let organizationId: string;
      try {
        organizationId = await authenticateClient(app.ctx.store.db, request.body.client_id, request.body.client_secret, requestedOrganization(request));
      } catch (error) {
        succeeded = !(error instanceof UnauthorizedError);
        throw error;
      } finally {
        perClient.settle(pair, succeeded);
        perAddress.settle(address, succeeded);
      }
      const ttl = app.ctx.config.tokenTtlSeconds;
      const accessToken = await issueToken({ clientId: request.body.client_id, organizationId }, app.ctx.keyring.derive('token-signing'), ttl);
      return { access_token: accessToken, token_type: 'bearer', expires_in: ttl, organization_id: organizationId };
    },
  );

  app.post<{ Body: { workspace_name: string } }>(
    '/api/v1/account/applications/scoped-token',
    {
      schema: {
        summary: 'Create a scoped token: short-lived, limited to the connectors of one workspace',
        description:
          'Needs an application token. The workspace named workspace_name is created when the organization has none of that name (as connector creation does). ' +
          "The scoped token reaches only that workspace's connectors (create, list, get, update, delete, check, execute, inspect, sync) plus the catalog and skill docs; " +
          'it cannot mint tokens or see other workspaces. It expires after SCOPED_TOKEN_TTL_SECONDS (default 900); GET .../scoped-token/info answers what it may do.',
        tags: ['Account'],
        body: {
          type: 'object',
          required: ['workspace_name'],
          additionalProperties: false,
          properties: { workspace_name: workspaceNameSchema, ...ignoredProperties('region_id') },
        },
        response: {
          200: {
            type: 'object',
            required: ['token'],
            properties: { token: { type: 'string' }, expires_in: { type: 'integer' }, workspace_id: { type: 'string', format: 'uuid' } },
          },
          ...errorResponses(400, 401, 403, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      keepOutOfCaches(reply);
      const { organizationId, clientId } = request.principal;
      await requireActiveClient(app.ctx.store.db, clientId, organizationId);
      const workspace = await ensureWorkspace(app.ctx.store.db, organizationId, request.body.workspace_name);
      const ttl = app.ctx.config.scopedTokenTtlSeconds ?? DEFAULT_SCOPED_TOKEN_TTL_SECONDS;
      const token = await issueToken({ clientId, organizationId, workspaceId: workspace.id }, app.ctx.keyring.derive('token-signing'), ttl);
      return { token, expires_in: ttl, workspace_id: workspace.id };
    },
  );

  app.get(
    '/api/v1/account/applications/scoped-token/info',
    {
      config: { scopedAccess: 'own' },
      schema: {
        summary: 'What the scoped token in the Authorization header may do',
        description:
          'Needs a scoped token (an application token gets 400). `allowed_operations` lists every operation it may call; `expires_at` when it stops working.',
        tags: ['Account'],
        response: {
          200: {
            type: 'object',
            required: ['organization_id', 'workspace_id', 'workspace_name'],
            properties: {
              organization_id: { type: 'string', format: 'uuid' },
              workspace_id: { type: 'string', format: 'uuid' },
              workspace_name: { type: 'string' },
              expires_at: { type: 'string', format: 'date-time' },
              allowed_operations: { type: 'array', items: { type: 'string' }, description: '"METHOD /path" of each operation the token may call.' },
            },
          },
          ...errorResponses(400, 401, 403, 404),
        },
      },
    },
    async (request, reply) => {
      keepOutOfCaches(reply);
      const { organizationId, workspaceId, expiresAt } = request.principal;
      if (workspaceId === undefined) {
        throw new BadRequestError(
          'This call needs a scoped token (POST /api/v1/account/applications/scoped-token issues one); the Authorization header holds an application token.',
          'scoped_token_required',
        );
      }
      const workspace = await findWorkspace(app.ctx.store.db, organizationId, workspaceId);
      return {
        organization_id: organizationId,
        workspace_id: workspace.id,
        workspace_name: workspace.name,
        ...(expiresAt !== undefined && { expires_at: expiresAt }),
        allowed_operations: app.scopedOperations,
      };
    },
  );
}
