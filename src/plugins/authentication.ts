import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, OperatorUnauthorizedError, RequestValidationError, ResourceNotFoundError, UnauthorizedError } from '../errors.js';
import { bearerToken, sameSecret } from '../security/bearer.js';
import { TokenError, VerifiedTokenCache, type TokenClaims } from '../security/tokens.js';
import { findConnector } from '../services/connector-lookup.js';
import { UUID_PATTERN } from '../uuid.js';

export const ORGANIZATION_HEADER = 'x-organization-id';

/**
 * The organization X-Organization-Id names, lowercased (ids compare in any case), or none when the header is
 * absent or empty; a value that is not one UUID is a 422 naming the header, as the reference declares it.
 */
export function requestedOrganization(request: FastifyRequest): string | undefined {
  const value = request.headers[ORGANIZATION_HEADER];
  if (value === undefined || value === '') return undefined;
  const text = typeof value === 'string' ? value.trim() : undefined;
  if (text === undefined || !UUID_PATTERN.test(text)) {
    const message = 'X-Organization-Id must be one organization id (a UUID)';
    throw new RequestValidationError(`Invalid request headers: ${message}.`, [{ field: 'X-Organization-Id', rule: 'format', message, limit: 'uuid' }]);
  }
  return text.toLowerCase();
}

function bearer(request: FastifyRequest): string {
  const token = bearerToken(request);
  if (token === undefined)
    throw new UnauthorizedError('Send the application token as "Authorization: Bearer <token>" (POST /api/v1/account/applications/token issues one).');
  return token;
}

/** Every route but the public ones needs a valid application token; X-Organization-Id must match it. */
export function registerAuthentication(app: FastifyInstance): void {
  app.decorateRequest('principal', undefined as never);
  const tokens = new VerifiedTokenCache(app.ctx.keyring.derive('token-signing'));
  const scoped: string[] = [];
  app.decorate('scopedOperations', scoped);
  app.addHook('onRoute', (route) => {
    if (route.config?.scopedAccess === undefined) return;
    const path = route.url.replace(/:([A-Za-z_]+)/g, '{$1}');
    for (const method of [route.method].flat()) if (method !== 'HEAD') scoped.push(`${method} ${path}`);
  });
  /** The checks after the token is verified: the organization header, and what a scoped token may reach. */
  const admit = (request: FastifyRequest, claims: TokenClaims): void => {
    const requested = requestedOrganization(request);
    if (requested !== undefined && requested !== claims.organizationId.toLowerCase()) {
      throw new ForbiddenError(`X-Organization-Id ${requested} does not match the organization of the application token.`);
    }
    if (claims.workspaceId !== undefined && request.routeOptions.config.scopedAccess === undefined) {
      throw new ForbiddenError(
        `A scoped token reaches only the connectors of its workspace; ${request.method} ${request.routeOptions.url ?? request.url.split('?')[0]} needs an application token.`,
      );
    }
    request.principal = claims;
  };
  // A callback hook (a throw is the request's error): a token verified before is admitted without a promise.
  app.addHook('onRequest', (request, _reply, done) => {
    // Unknown paths reach the not-found handler (404 in the envelope), not a 401.
    if (request.routeOptions.url === undefined || request.routeOptions.config.public) return done();
    if (request.routeOptions.config.operator) {
      const expected = app.ctx.config.operatorToken;
      if (expected === undefined) throw new OperatorUnauthorizedError('The admin API is off: this service has no operator credential.');
      if (!sameSecret(bearerToken(request), expected)) {
        throw new OperatorUnauthorizedError(
          'Send the operator credential as "Authorization: Bearer <token>" (SWITCHYARD_OPERATOR_TOKEN, or DATA_DIR/operator.token).',
        );
      }
      return done();
    }
    const token = bearer(request);
    const known = tokens.cached(token);
    if (known !== undefined) {
      admit(request, known);
      return done();
    }
    tokens.verify(token).then(
      (claims) => {
        try {
          admit(request, claims);
        } catch (error) {
          done(error as Error);
          return;
        }
        done();
      },
      (error: unknown) => done(error instanceof TokenError ? new UnauthorizedError(error.message) : (error as Error)),
    );
  });
  // After validation, so :id is a well-formed id: a connector outside the token's workspace does not exist for it.
  app.addHook('preHandler', (request, _reply, done) => {
    const workspaceId = request.principal?.workspaceId;
    if (workspaceId === undefined || request.routeOptions.config.scopedAccess !== 'connector') return done();
    const { id } = request.params as { id: string };
    findConnector(app.ctx.store.db, request.principal.organizationId, id).then(
      (row) => done(row.workspace_id === workspaceId ? undefined : new ResourceNotFoundError(`No connector ${id}.`)),
      (error: unknown) => done(error as Error),
    );
  });
}
