/**
 * Application tokens for the client: fetched from client credentials (or a scoped token from a
 * provider), cached, and renewed before they expire. Concurrent callers share one request.
 */
import { decodeJwt } from 'jose';

export interface IssuedToken {
  token: string;
  /** Epoch milliseconds; undefined when the token says nothing about its expiry. */
  expiresAt?: number;
}

/** When a token expires: its JWT exp claim, else the lifetime the service gave. */
export function expiryOf(token: string, expiresInSeconds: number | undefined, now: number): number | undefined {
  try {
    const { exp } = decodeJwt(token);
    if (typeof exp === 'number') return exp * 1000;
  } catch {
    // not a JWT: rely on expires_in
  }
  return expiresInSeconds === undefined ? undefined : now + expiresInSeconds * 1000;
}

export class TokenCache {
  private current?: IssuedToken & { issuedAt: number };
  private pending?: Promise<IssuedToken>;

  constructor(
    private readonly issue: () => Promise<IssuedToken>,
    /** Renew this long before expiry (never more than half the token's lifetime). */
    private readonly renewBeforeMs: number,
    private readonly now: () => number = Date.now,
  ) {}

  private fresh(token: (IssuedToken & { issuedAt: number }) | undefined): token is IssuedToken & { issuedAt: number } {
    if (token === undefined) return false;
    if (token.expiresAt === undefined) return true;
    const margin = Math.min(this.renewBeforeMs, (token.expiresAt - token.issuedAt) / 2);
    return this.now() < token.expiresAt - margin;
  }

  async get(): Promise<string> {
    if (this.fresh(this.current)) return this.current.token;
    this.pending ??= this.issue().finally(() => {
      this.pending = undefined;
    });
    const issuedAt = this.now();
    const issued = await this.pending;
    this.current = { ...issued, issuedAt };
    return issued.token;
  }

  /** Forget the cached token (the service refused it): the next get() fetches a new one. */
  invalidate(token: string): void {
    if (this.current?.token === token) this.current = undefined;
  }
}
