import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

const ISSUER = 'switchyard';
const AUDIENCE = 'switchyard-api';
const ALGORITHM = 'HS256';

export interface TokenClaims {
  clientId: string;
  organizationId: string;
  /** Set on a scoped token: the one workspace it may reach (claim `wsp`). */
  workspaceId?: string;
  /** When the token stops working (ISO 8601); set by verifyToken. */
  expiresAt?: string;
}

export class TokenError extends Error {
  constructor(
    message: string,
    readonly expired: boolean,
  ) {
    super(message);
  }
}

export async function issueToken(claims: TokenClaims, key: Uint8Array, ttlSeconds: number): Promise<string> {
  return new SignJWT({ org: claims.organizationId, ...(claims.workspaceId !== undefined && { wsp: claims.workspaceId }) })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(claims.clientId)
    .setIssuer(ISSUER)
    .setAudience(AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key);
}

/** Checks signature, algorithm (HS256 only), issuer, audience and expiry. */
export async function verifyToken(token: string, key: Uint8Array): Promise<TokenClaims> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: [ALGORITHM], issuer: ISSUER, audience: AUDIENCE });
    if (typeof payload.sub !== 'string' || typeof payload.org !== 'string') throw new TokenError('The application token is missing its claims.', false);
    if (payload.wsp !== undefined && typeof payload.wsp !== 'string') throw new TokenError('The application token has an invalid workspace scope.', false);
    return {
      clientId: payload.sub,
      organizationId: payload.org,
      ...(payload.wsp !== undefined && { workspaceId: payload.wsp }),
      ...(payload.exp !== undefined && { expiresAt: new Date(payload.exp * 1000).toISOString() }),
    };
  } catch (error) {
    if (error instanceof TokenError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new TokenError('The application token has expired; request a new one.', true);
    throw new TokenError('The application token is invalid.', false);
  }
}
