import { errors as joseErrors, jwtVerify, SignJWT } from 'jose';

const ISSUER = 'switchyard';
const AUDIENCE = 'switchyard-api';
const ALGORITHM = 'HS256';

export interface TokenClaims {
  clientId: string;
  organizationId: string;
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
  return new SignJWT({ org: claims.organizationId })
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
    return { clientId: payload.sub, organizationId: payload.org };
  } catch (error) {
    if (error instanceof TokenError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new TokenError('The application token has expired; request a new one.', true);
    throw new TokenError('The application token is invalid.', false);
  }
}
