import type { AuthOption } from '../definition.js';
import { AuthenticationError, UpstreamError } from '../errors.js';
import { sendRequest, type HttpOptions } from '../http.js';
import { renderTemplate, type TemplateContext } from '../templates.js';
import { fieldAccepts } from './select-option.js';
import { vendorMessage, type Redactor } from '../upstream-errors.js';

type OAuthOption = Extract<AuthOption, { type: 'oauth2_refresh' }>;

/** What a refresh produced; handed to onTokenRefresh so a caller can persist a rotated refresh token. */
export interface TokenRefresh {
  access_token: string;
  refresh_token: string;
  /** Whether the vendor issued a new refresh token (the old one may no longer work). */
  rotated: boolean;
  expires_at?: string;
  kept: Record<string, string>;
  /**
   * The kept values the option also declares as credential fields (Salesforce's instance_url): whoever
   * stores the new access token must store these with it, since the next instance reads them from its
   * credentials instead of refreshing.
   */
  keptCredentials: Record<string, string>;
}

/** Called after an OAuth refresh; a promise it returns is awaited, any other result ignored (`rotated && save(...)` reads well). */
export type TokenRefreshHandler = (refresh: TokenRefresh) => unknown;

/** Tokens to use after a refresh coordinated by a TokenRefreshLock. */
export interface StoredTokens {
  access_token: string;
  refresh_token: string;
  expires_at?: string;
  /** Values kept from a token response ({{token.X}}); only the option's `keep` names are used. */
  kept?: Record<string, string>;
}

/**
 * Makes the refreshes of one connector single-flight across processes (the hosted service locks the
 * connector's stored row). `refresh` runs under the lock unless the store already holds an access
 * token other than `held.access_token`, which is then returned instead.
 */
export interface TokenRefreshLock {
  refresh(held: { refresh_token: string; access_token?: string }, refresh: (refreshToken: string) => Promise<TokenRefresh>): Promise<StoredTokens>;
}

/**
 * The URL with its scheme, host and port replaced by `origin` (path and query kept): how a vendor sandbox or
 * a test double stands in for a vendor's OAuth endpoints.
 */
export function withOrigin(url: string, origin: string | undefined): string {
  if (origin === undefined) return url;
  const target = new URL(url);
  const replacement = new URL(origin);
  target.protocol = replacement.protocol;
  target.host = replacement.host;
  return target.toString();
}

/** Refresh this long before the announced expiry (at most half the token's lifetime). */
const EXPIRY_SKEW_MS = 60_000;

/**
 * Keeps one access token per connector instance: cached until shortly before it expires, refreshed
 * by a single request however many calls wait for it.
 */
export class OAuth2TokenManager {
  private accessToken?: string;
  private expiresAt?: number;
  private skewMs = EXPIRY_SKEW_MS;
  private refreshToken: string;
  private inFlight?: Promise<string>;
  readonly kept: Record<string, string> = {};

  constructor(
    private readonly option: OAuthOption,
    private readonly context: TemplateContext,
    private readonly http: HttpOptions,
    private readonly redact: Redactor,
    private readonly onRefresh?: TokenRefreshHandler,
    private readonly lock?: TokenRefreshLock,
    private readonly serverOrigin?: string,
    private readonly publicTokenHost = false,
  ) {
    this.refreshToken = context.credentials.refresh_token ?? '';
    this.accessToken = context.credentials.access_token || undefined;
    for (const name of option.keep) {
      const stored = context.credentials[name];
      if (stored) this.kept[name] = stored;
    }
  }

  currentSecrets(): string[] {
    return [this.accessToken, this.refreshToken].filter((v): v is string => Boolean(v));
  }

  async accessTokenForRequest(): Promise<string> {
    if (this.accessToken && !this.lacksKeptField() && (this.expiresAt === undefined || Date.now() < this.expiresAt - this.skewMs)) {
      return this.accessToken;
    }
    return this.refresh();
  }

  /**
   * An access token given without a kept value its option declares as a field (Salesforce's instance_url,
   * the API host) cannot be used: a refresh brings both.
   */
  private lacksKeptField(): boolean {
    return this.option.keep.some((name) => this.option.fields[name] !== undefined && !this.kept[name]);
  }

  /** After an upstream 401 with `rejected`: refresh unless another call already replaced that token. */
  async replaceRejected(rejected: string): Promise<string> {
    if (this.inFlight === undefined && this.accessToken && this.accessToken !== rejected) return this.accessToken;
    return this.refresh();
  }

  private refresh(): Promise<string> {
    this.inFlight ??= this.renew().finally(() => {
      this.inFlight = undefined;
    });
    return this.inFlight;
  }

  private async renew(): Promise<string> {
    if (this.lock === undefined) {
      const refresh = await this.requestToken(this.refreshToken);
      this.use(refresh);
      if (this.onRefresh) await this.onRefresh(refresh);
      return refresh.access_token;
    }
    const tokens = await this.lock.refresh(
      { refresh_token: this.refreshToken, ...(this.accessToken !== undefined && { access_token: this.accessToken }) },
      (refreshToken) => this.requestToken(refreshToken),
    );
    this.use(tokens);
    return tokens.access_token;
  }

  private use(tokens: StoredTokens): void {
    this.accessToken = tokens.access_token;
    this.refreshToken = tokens.refresh_token;
    const expiresAt = tokens.expires_at === undefined ? Number.NaN : Date.parse(tokens.expires_at);
    this.expiresAt = Number.isFinite(expiresAt) ? expiresAt : undefined;
    for (const name of this.option.keep) {
      const value = tokens.kept?.[name];
      if (typeof value === 'string' && value !== '') this.kept[name] = value;
    }
  }

  /** Calls the token endpoint with `refreshToken`; changes nothing held. */
  private async requestToken(refreshToken: string): Promise<TokenRefresh> {
    const { option, context } = this;
    const params: Record<string, string> = { grant_type: 'refresh_token', refresh_token: refreshToken };
    const headers: Record<string, string> = { accept: 'application/json' };
    for (const [name, template] of Object.entries(option.tokenHeaders)) headers[name.toLowerCase()] = renderTemplate(template, context);
    const clientId = context.credentials.client_id ?? '';
    const clientSecret = context.credentials.client_secret ?? '';
    if (option.clientAuth === 'basic') {
      headers.authorization = `Basic ${Buffer.from(`${clientId}:${clientSecret}`).toString('base64')}`;
    } else {
      params.client_id = clientId;
      params.client_secret = clientSecret;
    }
    Object.assign(params, option.extraTokenParams);
    let body: string;
    if (option.bodyFormat === 'json') {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(params);
    } else {
      headers['content-type'] = 'application/x-www-form-urlencoded';
      body = new URLSearchParams(params).toString();
    }
    const url = withOrigin(renderTemplate(option.tokenUrl, context), this.serverOrigin);
    const response = await sendRequest({ method: 'POST', url, headers, body, ...(this.publicTokenHost && { publicAddressesOnly: true }) }, this.http, false);
    if (response.status < 200 || response.status >= 300) {
      const detail = vendorMessage(response.text, this.redact);
      const message = `The OAuth token refresh was refused (HTTP ${response.status})${detail ? `: ${detail}` : ''}`;
      if (response.status >= 500) throw new UpstreamError(message, { upstreamStatus: response.status });
      throw new AuthenticationError(message, { upstreamStatus: response.status });
    }
    let token: Record<string, unknown>;
    try {
      token = JSON.parse(response.text) as Record<string, unknown>;
    } catch {
      throw new UpstreamError('The OAuth token endpoint answered with a body that is not JSON.', { upstreamStatus: response.status });
    }
    if (typeof token.access_token !== 'string' || token.access_token === '') {
      // RFC 6749 5.2's error object, which some vendors send with status 200: the refresh was refused.
      if (typeof token.error === 'string') {
        const detail = vendorMessage(response.text, this.redact);
        throw new AuthenticationError(`The OAuth token refresh was refused (HTTP ${response.status})${detail ? `: ${detail}` : ''}`, {
          upstreamStatus: response.status,
        });
      }
      throw new UpstreamError('The OAuth token endpoint answered without an access_token.', { upstreamStatus: response.status });
    }
    const expiresIn = Number(token.expires_in);
    const expiresAt = Number.isFinite(expiresIn) && expiresIn > 0 ? Date.now() + expiresIn * 1000 : undefined;
    // A token that lives a minute or less must still be usable right after it is issued.
    this.skewMs = Number.isFinite(expiresIn) && expiresIn > 0 ? Math.min(EXPIRY_SKEW_MS, (expiresIn * 1000) / 2) : EXPIRY_SKEW_MS;
    const kept: Record<string, string> = { ...this.kept };
    const keptCredentials: Record<string, string> = {};
    for (const name of option.keep) {
      const value = token[name];
      if (typeof value !== 'string') continue;
      kept[name] = value;
      const field = option.fields[name];
      // A value its field's pattern refuses would make the stored credentials invalid for every later instance.
      if (field !== undefined && value !== '' && fieldAccepts(field, value)) keptCredentials[name] = value;
    }
    const rotated = typeof token.refresh_token === 'string' && token.refresh_token !== '' && token.refresh_token !== refreshToken;
    return {
      access_token: token.access_token,
      refresh_token: rotated ? (token.refresh_token as string) : refreshToken,
      rotated,
      expires_at: expiresAt === undefined ? undefined : new Date(expiresAt).toISOString(),
      kept,
      keptCredentials,
    };
  }
}
