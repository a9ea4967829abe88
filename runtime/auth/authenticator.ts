import type { AuthOption } from '../definition.js';
import type { HttpOptions } from '../http.js';
import { renderTemplate, type TemplateContext } from '../templates.js';
import type { Redactor } from '../upstream-errors.js';
import { OAuth2TokenManager, type TokenRefreshHandler, type TokenRefreshLock } from './oauth2.js';

/** What auth adds to one outgoing request. */
export interface AppliedAuth {
  headers: Record<string, string>;
  query: Record<string, string>;
  /** The OAuth access token used, so a 401 can replace exactly that one. */
  accessToken?: string;
}

export class Authenticator {
  private readonly oauth?: OAuth2TokenManager;

  constructor(
    readonly option: AuthOption,
    private readonly context: TemplateContext,
    http: HttpOptions,
    redact: Redactor,
    onTokenRefresh?: TokenRefreshHandler,
    tokenRefreshLock?: TokenRefreshLock,
    oauthServerUrl?: string,
    /** Token requests connect to public addresses only (ConnectorOptions.privateAddresses, for a token URL the configuration writes). */
    publicTokenHost = false,
  ) {
    if (option.type === 'oauth2_refresh') {
      this.oauth = new OAuth2TokenManager(option, context, http, redact, onTokenRefresh, tokenRefreshLock, oauthServerUrl, publicTokenHost);
    }
  }

  /** Values kept from the token response ({{token.X}}). */
  tokenValues(): Record<string, string> {
    return this.oauth ? this.oauth.kept : {};
  }

  /**
   * Secret values that must never appear in an error message: the secret fields and the OAuth tokens, in
   * every form a vendor may echo them back (echoForms), and the Basic header's `user:password` pair encoded.
   */
  secrets(): string[] {
    const fromFields = Object.entries(this.option.fields)
      .filter(([, field]) => field.secret)
      .map(([name]) => this.context.credentials[name])
      .filter((v): v is string => Boolean(v));
    const raw = [...fromFields, ...(this.oauth?.currentSecrets() ?? [])];
    return [...new Set([...raw.flatMap(echoForms), ...this.basicPairs(fromFields).flatMap(base64Forms)])];
  }

  /** The `user:password` pairs of Basic headers built from credentials (the option's own, an OAuth client's). */
  private basicPairs(fromFields: string[]): string[] {
    if (fromFields.length === 0) return [];
    const { credentials } = this.context;
    const pairs: string[] = [];
    if (this.option.type === 'basic') {
      pairs.push(`${renderTemplate(this.option.username, this.context)}:${renderTemplate(this.option.password, this.context)}`);
    }
    if (this.option.type === 'oauth2_refresh' && this.option.clientAuth === 'basic') {
      pairs.push(`${credentials.client_id ?? ''}:${credentials.client_secret ?? ''}`);
    }
    return pairs;
  }

  /** Ensures an OAuth token (and its kept values) exists before the base URL is resolved. */
  async prepare(): Promise<string | undefined> {
    return this.oauth?.accessTokenForRequest();
  }

  async apply(accessTokenOverride?: string): Promise<AppliedAuth> {
    const option = this.option;
    const context = { ...this.context, token: this.tokenValues() };
    const headers: Record<string, string> = {};
    for (const [name, template] of Object.entries(option.headers)) headers[name] = renderTemplate(template, context);
    switch (option.type) {
      case 'bearer': {
        const token = renderTemplate(option.token, context);
        headers.authorization = option.scheme ? `${option.scheme} ${token}` : token;
        return { headers, query: {} };
      }
      case 'api_key': {
        const value = renderTemplate(option.value, context);
        return option.in === 'header' ? { headers: { ...headers, [option.name]: value }, query: {} } : { headers, query: { [option.name]: value } };
      }
      case 'basic': {
        const pair = `${renderTemplate(option.username, context)}:${renderTemplate(option.password, context)}`;
        headers.authorization = `Basic ${Buffer.from(pair).toString('base64')}`;
        return { headers, query: {} };
      }
      case 'oauth2_refresh': {
        const token = accessTokenOverride ?? (await (this.oauth as OAuth2TokenManager).accessTokenForRequest());
        headers.authorization = option.scheme ? `${option.scheme} ${token}` : token;
        return { headers, query: {}, accessToken: token };
      }
    }
  }

  /** After an upstream 401: a fresh access token to retry once with, or undefined when the option cannot refresh. */
  async refreshAfterRejection(applied: AppliedAuth): Promise<string | undefined> {
    if (!this.oauth || applied.accessToken === undefined) return undefined;
    return this.oauth.replaceRejected(applied.accessToken);
  }
}

/** A value as base64 (padded, and without the padding a vendor may drop) and base64url. */
function base64Forms(value: string): string[] {
  const bytes = Buffer.from(value);
  const base64 = bytes.toString('base64');
  return [base64, base64.replace(/=+$/, ''), bytes.toString('base64url')];
}

/**
 * The forms a secret takes when a vendor echoes it: as sent in a URL (percent-encoded, in either letter case),
 * in a form body (space as +), inside a JSON string or HTML, and base64-encoded.
 */
function echoForms(secret: string): string[] {
  const lowerPercent = (text: string) => text.replace(/%[0-9A-F]{2}/g, (percent) => percent.toLowerCase());
  const url = encodeURIComponent(secret);
  const form = new URLSearchParams({ v: secret }).toString().slice(2);
  const json = JSON.stringify(secret).slice(1, -1);
  const html = secret.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c] as string);
  return [secret, url, lowerPercent(url), form, lowerPercent(form), json, html, ...base64Forms(secret)];
}
