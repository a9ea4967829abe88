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

/**
 * Widget tokens: short-lived, for an end user's browser on the connect page (GET /connect). Bound to one
 * workspace of one organization; they carry the origin allowed to embed the page and receive its
 * messages, and the template tag filter. A separate audience, so a widget token never passes as an
 * application token (nor the other way round).
 */
const WIDGET_AUDIENCE = 'switchyard-connect';

export interface WidgetTokenClaims {
  organizationId: string;
  workspaceId: string;
  workspaceName: string;
  /** The origin (scheme://host[:port]) allowed to embed the page and receive postMessage. */
  allowedOrigin: string;
  /** Only templates with these tags are offered (empty: every template of the organization). */
  tags: string[];
  tagsMode: 'all' | 'any';
}

export async function issueWidgetToken(claims: WidgetTokenClaims, key: Uint8Array, ttlSeconds: number): Promise<string> {
  return new SignJWT({ org: claims.organizationId, ws: claims.workspaceId, wsn: claims.workspaceName, origin: claims.allowedOrigin, tags: claims.tags, tags_mode: claims.tagsMode })
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(claims.workspaceId)
    .setIssuer(ISSUER)
    .setAudience(WIDGET_AUDIENCE)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key);
}

export async function verifyWidgetToken(token: string, key: Uint8Array): Promise<WidgetTokenClaims> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: [ALGORITHM], issuer: ISSUER, audience: WIDGET_AUDIENCE });
    const { org, ws, wsn, origin, tags, tags_mode: tagsMode } = payload;
    if (
      typeof org !== 'string' ||
      typeof ws !== 'string' ||
      typeof wsn !== 'string' ||
      typeof origin !== 'string' ||
      !Array.isArray(tags) ||
      !tags.every((tag): tag is string => typeof tag === 'string') ||
      (tagsMode !== 'all' && tagsMode !== 'any')
    ) {
      throw new TokenError('The widget token is missing its claims.', false);
    }
    return { organizationId: org, workspaceId: ws, workspaceName: wsn, allowedOrigin: origin, tags, tagsMode };
  } catch (error) {
    if (error instanceof TokenError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new TokenError('This connect link has expired; ask the application for a new one.', true);
    throw new TokenError('This connect link is not valid.', false);
  }
}
