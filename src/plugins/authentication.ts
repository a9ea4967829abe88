import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ForbiddenError, OperatorUnauthorizedError, UnauthorizedError } from '../errors.js';
import { bearerToken, sameSecret } from '../security/bearer.js';
import { TokenError, VerifiedTokenCache } from '../security/tokens.js';

export const ORGANIZATION_HEADER = 'x-organization-id';

function bearer(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header === undefined ? null : /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) throw new UnauthorizedError('Send the application token as "Authorization: Bearer <token>" (POST /api/v1/account/applications/token issues one).');
  return match[1] as string;
}

/** Every route but the public ones needs a valid application token; X-Organization-Id must match it. */
export function registerAuthentication(app: FastifyInstance): void {
  app.decorateRequest('principal', undefined as never);
  const tokens = new VerifiedTokenCache(app.ctx.keyring.derive('token-signing'));
  app.addHook('onRequest', async (request) => {
    // Unknown paths reach the not-found handler (404 in the envelope), not a 401.
    if (request.routeOptions.url === undefined || request.routeOptions.config.public) return;
    if (request.routeOptions.config.operator) {
      const expected = app.ctx.config.operatorToken;
      if (expected === undefined) throw new OperatorUnauthorizedError('The admin API is off: this service has no operator credential.');
      if (!sameSecret(bearerToken(request), expected)) {
        throw new OperatorUnauthorizedError('Send the operator credential as "Authorization: Bearer <token>" (SWITCHYARD_OPERATOR_TOKEN, or DATA_DIR/operator.token).');
      }
      return;
    }
    let claims;
    try {
      claims = await tokens.verify(bearer(request));
    } catch (error) {
      if (error instanceof TokenError) throw new UnauthorizedError(error.message);
      throw error;
    }
    const requested = request.headers[ORGANIZATION_HEADER];
    if (typeof requested === 'string' && requested !== '' && requested !== claims.organizationId) {
      throw new ForbiddenError(`X-Organization-Id ${requested} does not match the organization of the application token.`);
    }
    request.principal = claims;
  });
}
