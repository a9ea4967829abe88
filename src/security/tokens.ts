import { decodeJwt, errors as joseErrors, jwtVerify, SignJWT, type JWTPayload } from 'jose';

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
    /** An expired token's claims: its signature was verified before its expiry was checked. */
    readonly expiredClaims?: JWTPayload,
  ) {
    super(message);
  }
}

/** What tells one kind of token from another: its audience, and how its failures read. */
interface TokenKind {
  audience: string;
  missingClaims: string;
  expired: string;
  invalid: string;
}

const APPLICATION_TOKEN: TokenKind = {
  audience: AUDIENCE,
  missingClaims: 'The application token is missing its claims.',
  expired: 'The application token has expired; request a new one.',
  invalid: 'The application token is invalid.',
};

function signToken(kind: TokenKind, subject: string, payload: JWTPayload, key: Uint8Array, ttlSeconds: number): Promise<string> {
  return new SignJWT(payload)
    .setProtectedHeader({ alg: ALGORITHM, typ: 'JWT' })
    .setSubject(subject)
    .setIssuer(ISSUER)
    .setAudience(kind.audience)
    .setIssuedAt()
    .setExpirationTime(`${ttlSeconds}s`)
    .sign(key);
}

/** Checks signature, algorithm (HS256 only), issuer, audience and expiry, then reads the claims (which throw TokenError when missing). */
async function verifySigned<T>(kind: TokenKind, token: string, key: Uint8Array, claims: (payload: JWTPayload) => T): Promise<T> {
  try {
    const { payload } = await jwtVerify(token, key, { algorithms: [ALGORITHM], issuer: ISSUER, audience: kind.audience });
    return claims(payload);
  } catch (error) {
    if (error instanceof TokenError) throw error;
    if (error instanceof joseErrors.JWTExpired) throw new TokenError(kind.expired, true, error.payload);
    throw new TokenError(kind.invalid, false);
  }
}

export async function issueToken(claims: TokenClaims, key: Uint8Array, ttlSeconds: number): Promise<string> {
  const payload = { org: claims.organizationId, ...(claims.workspaceId !== undefined && { wsp: claims.workspaceId }) };
  return signToken(APPLICATION_TOKEN, claims.clientId, payload, key, ttlSeconds);
}

/** Checks signature, algorithm (HS256 only), issuer, audience and expiry. */
export async function verifyToken(token: string, key: Uint8Array): Promise<TokenClaims> {
  return verifySigned(APPLICATION_TOKEN, token, key, (payload) => {
    if (typeof payload.sub !== 'string' || typeof payload.org !== 'string') throw new TokenError(APPLICATION_TOKEN.missingClaims, false);
    if (payload.wsp !== undefined && typeof payload.wsp !== 'string') throw new TokenError('The application token has an invalid workspace scope.', false);
    return {
      clientId: payload.sub,
      organizationId: payload.org,
      ...(payload.wsp !== undefined && { workspaceId: payload.wsp }),
      ...(payload.exp !== undefined && { expiresAt: new Date(payload.exp * 1000).toISOString() }),
    };
  });
}

/**
 * Verified claims of application tokens, kept until the token expires, so a repeat of a token costs
 * a map lookup instead of an HMAC check. Keyed by the whole token string: a token altered in any
 * byte is a different key and is verified in full. Bounded: the oldest entries leave first.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, { claims: TokenClaims; expiresAtMs: number }>();

  constructor(
    private readonly key: Uint8Array,
    private readonly maxEntries = 10_000,
  ) {}

  /** The claims of a token verified before and not expired yet, without waiting; undefined: call verify. */
  cached(token: string, now = Date.now()): TokenClaims | undefined {
    const cached = this.entries.get(token);
    if (cached === undefined) return undefined;
    if (now < cached.expiresAtMs) return cached.claims;
    this.entries.delete(token);
    return undefined;
  }

  async verify(token: string): Promise<TokenClaims> {
    const now = Date.now();
    const cached = this.cached(token, now);
    if (cached !== undefined) return cached;
    const claims = await verifyToken(token, this.key);
    const expiresAtMs = expiryOf(token);
    if (expiresAtMs !== undefined && now < expiresAtMs) {
      this.entries.set(token, { claims, expiresAtMs });
      for (const oldest of this.entries.keys()) {
        if (this.entries.size <= this.maxEntries) break;
        this.entries.delete(oldest);
      }
    }
    return claims;
  }
}

/** The exp claim (ms) of a token that has just been verified. */
function expiryOf(token: string): number | undefined {
  try {
    const exp = decodeJwt(token).exp;
    return typeof exp === 'number' ? exp * 1000 : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Widget tokens: short-lived, for an end user's browser on the connect page (GET /connect). Bound to one
 * workspace of one organization; they carry the origin allowed to embed the page and receive its
 * messages, and the template tag filter. A separate audience, so a widget token never passes as an
 * application token (nor the other way round).
 */
const WIDGET_TOKEN: TokenKind = {
  audience: 'switchyard-connect',
  missingClaims: 'The widget token is missing its claims.',
  expired: 'This connect link has expired; ask the application for a new one.',
  invalid: 'This connect link is not valid.',
};

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
  const payload = {
    org: claims.organizationId,
    ws: claims.workspaceId,
    wsn: claims.workspaceName,
    origin: claims.allowedOrigin,
    tags: claims.tags,
    tags_mode: claims.tagsMode,
  };
  return signToken(WIDGET_TOKEN, claims.workspaceId, payload, key, ttlSeconds);
}

export async function verifyWidgetToken(token: string, key: Uint8Array): Promise<WidgetTokenClaims> {
  return verifySigned(WIDGET_TOKEN, token, key, (payload) => {
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
      throw new TokenError(WIDGET_TOKEN.missingClaims, false);
    }
    return { organizationId: org, workspaceId: ws, workspaceName: wsn, allowedOrigin: origin, tags, tagsMode };
  });
}
