import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, ResourceNotFoundError, UnauthorizedError } from '../errors.js';
import { TokenError, verifyToken } from '../security/tokens.js';
import { findConnector } from '../services/connector-lookup.js';

export const ORGANIZATION_HEADER = 'x-organization-id';

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new UnauthorizedError('Send the application token as "Authorization: Bearer <token>" (POST /api/v1/account/applications/token issues one).');
  return match[1] as string;
}

const scopedOperationsByService = new WeakMap<object, string[]>();

/** "METHOD /path" of every operation a scoped token may call (the routes declaring scopedAccess). */
export function scopedOperations(app: FastifyInstance): string[] {
  return scopedOperationsByService.get(app.ctx) ?? [];
}

/** Every route but the public ones needs a valid application token; X-Organization-Id must match it. */
export function registerAuthentication(app: FastifyInstance): void {
  app.decorateRequest('principal', undefined as never);
  const scoped: string[] = [];
  scopedOperationsByService.set(app.ctx, scoped);
  app.addHook('onRoute', (route) => {
    if (route.config?.scopedAccess === undefined) return;
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    for (const method of [route.method].flat()) if (method !== 'HEAD') scoped.push(`${method} ${path}`);
  });
  app.addHook('onRequest', async (request) => {
    if (request.routeOptions.config.public) return;
    let claims;
    try {
      claims = await verifyToken(bearer(request), app.ctx.keyring.derive('token-signing'));
    } catch (error) {
      if (error instanceof TokenError) throw new UnauthorizedError(error.message);
      throw error;
    }
    const requested = request.headers[ORGANIZATION_HEADER];
    if (typeof requested === 'string' && requested !== '' && requested !== claims.organizationId) {
      throw new ForbiddenError(`X-Organization-Id ${requested} does not match the organization of the application token.`);
    }
    if (claims.workspaceId !== undefined && request.routeOptions.config.scopedAccess === undefined) {
      throw new ForbiddenError(
        `A scoped token reaches only the connectors of its workspace; ${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]} needs an application token.`,
      );
    }
    request.principal = claims;
  });
  // After validation, so :id is a well-formed id: a connector outside the token's workspace does not exist for it.
  app.addHook('preHandler', async (request) => {
    const workspaceId = request.principal?.workspaceId;
    if (workspaceId === undefined || request.routeOptions.config.scopedAccess !== 'connector') return;
    const { id } = request.params as { id: string };
    const row = await findConnector(app.ctx.store.db, request.principal.organizationId, id);
    if (row.workspace_id !== workspaceId) throw new ResourceNotFoundError(`No connector ${id}.`);
  });
}
