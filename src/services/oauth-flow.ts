/**
 * The OAuth 2.0 authorization-code round trip of the connect page, for options whose manifest declares
 * authorization_code. startConsent records what the callback will need in a sealed, expiring,
 * single-use session and builds the vendor's consent URL; its `state` is the session id signed with a
 * key derived for this purpose. completeConsent spends the session (once), exchanges the code at the
 * option's token URL with the organization's own OAuth app, and creates the connector through the
 * same function as POST /api/v1/integrations/connectors, so the tokens are stored sealed like any
 * credentials and the runtime refreshes them as usual.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { sql } from 'kysely';
import { DEFAULT_HTTP_OPTIONS, sendRequest } from '../../runtime/http.js';
import { configValueIssue } from '../../runtime/connector.js';
import { getPath } from '../../runtime/paths.js';
import { renderTemplate } from '../../runtime/templates.js';
import { PrivateAddressError, withOrigin, type ConnectorDefinition, type ErrorInBody } from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import { BadRequestError } from '../errors.js';
import { openPayload, signPayload } from '../security/signed-payload.js';
import type { WidgetTokenClaims } from '../security/tokens.js';
import { checkReplicationConfig, createConnector } from './connectors.js';
import { openCredentials, sealCredentials } from './credentials.js';
import { consentOptions, findOAuthApp, type ConsentOption } from './oauth-apps.js';
import { getTemplateRow, presetConfig, templateDefinition, type TemplateRow } from './source-templates.js';
import { signInUrl } from './upstream-options.js';
import type { ConnectorView } from '../api-shapes.js';

/** How long an end user has to finish consenting at the vendor. */
export const CONSENT_TTL_SECONDS = 600;
const STATE_SCOPE = 'oauth-state';

/** A consent that cannot go on: shown to the end user on the connect page (never a secret in the message). */
export class ConsentError extends BadRequestError {}

export interface ConsentStart {
  widget: WidgetTokenClaims;
  templateId: string;
  optionTitle: string;
  connectorName: string;
  /** Settings the end user entered (the template's presets are added and win). */
  settings: Record<string, string>;
  /** Where the browser goes after connecting (already checked against CONNECT_REDIRECT_URIS). */
  returnTo?: string;
  /** This service's /connect/oauth/callback URL, registered with the vendor's OAuth app. */
  callbackUrl: string;
}

/** What the connect page needs after a consent: the new connector and where to report it. */
export interface ConsentResult {
  connector: ConnectorView;
  allowedOrigin: string;
  returnTo?: string;
  widgetToken: string;
}

function stateKey(ctx: ServiceContext): Uint8Array {
  return ctx.keyring.derive('oauth-state');
}

export function findConsentOption(definition: ConnectorDefinition, optionTitle: string): ConsentOption {
  const option = consentOptions(definition).find((candidate) => candidate.optionTitle === optionTitle);
  if (!option) throw new ConsentError(`${definition.displayName} has no OAuth consent option "${optionTitle}".`, 'unsupported_option');
  return option;
}

/** The template's presets over the end user's settings, checked with the connector's configuration rules. */
export function templateSettings(definition: ConnectorDefinition, template: TemplateRow, settings: Record<string, string>): Record<string, string> {
  const merged = { ...settings, ...presetConfig(template) };
  checkReplicationConfig(definition, merged, 'settings');
  return merged;
}

function pkcePair(): { verifier: string; challenge: string } {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** The vendor's consent URL for this option, with this organization's app: the browser is sent there. */
export async function startConsent(ctx: ServiceContext, start: ConsentStart, widgetToken: string): Promise<string> {
  const { widget } = start;
  const template = await getTemplateRow(ctx, widget.organizationId, start.templateId);
  const definition = templateDefinition(template);
  const option = findConsentOption(definition, start.optionTitle);
  const app = await findOAuthApp(ctx, widget.organizationId, definition.connectorType);
  if (!app) {
    throw new ConsentError(
      `${definition.displayName} cannot be connected with OAuth yet: the application has not configured its OAuth app (PUT /api/v1/oauth/credentials).`,
      'oauth_app_missing',
    );
  }
  const settings = templateSettings(definition, template, start.settings);
  const flow = option.authorizationCode;
  const pkce = flow.pkce ? pkcePair() : undefined;
  const id = randomUUID();
  const details: Record<string, string> = {
    name: start.connectorName,
    settings: JSON.stringify(settings),
    callback_url: start.callbackUrl,
    allowed_origin: widget.allowedOrigin,
    widget_token: widgetToken,
    ...(start.returnTo !== undefined && { return_to: start.returnTo }),
    ...(pkce && { code_verifier: pkce.verifier }),
  };
  await ctx.store.db
    .insertInto('oauth_sessions')
    .values({
      id,
      organization_id: widget.organizationId,
      workspace_id: widget.workspaceId,
      template_id: template.id,
      option_title: option.optionTitle,
      expires_at: new Date(Date.now() + CONSENT_TTL_SECONDS * 1000),
      ...sealCredentials(ctx.keyring, id, details),
    })
    .execute();
  // Expired consents are of no use to anyone: swept whenever a new one starts.
  await ctx.store.db.deleteFrom('oauth_sessions').where('expires_at', '<', sql<Date>`now() - interval '1 day'`).execute();
  const state = signPayload(stateKey(ctx), STATE_SCOPE, { sid: id });
  // URL templates see the connector configuration with its defaults (Intercom's region_host: api).
  const base = renderTemplate(flow.authorizationUrl, { credentials: {}, config: checkReplicationConfig(definition, settings, 'settings'), token: {} });
  const url = new URL(withOrigin(base, ctx.config.oauthServerUrls?.[definition.connectorType]));
  const names = paramNames(option);
  if (!flow.omitParams?.includes('response_type')) url.searchParams.set('response_type', 'code');
  url.searchParams.set(names.client_id, app.client_id);
  url.searchParams.set(names.redirect_uri, start.callbackUrl);
  url.searchParams.set('state', state);
  if (flow.scopes.length > 0) url.searchParams.set('scope', flow.scopes.join(flow.scopeSeparator));
  if (pkce) {
    url.searchParams.set('code_challenge', pkce.challenge);
    url.searchParams.set('code_challenge_method', 'S256');
  }
  for (const [name, value] of Object.entries(flow.extraParams)) url.searchParams.set(name, value);
  return url.toString();
}

/** Marks the session named by `state` used, exactly once and before it expires; its row and opened details. */
async function spendSession(ctx: ServiceContext, state: string) {
  const sid = sessionIdOf(ctx, state);
  if (sid === undefined) {
    throw new ConsentError(
      'This sign-in answer is not valid (its state was altered or does not come from this service). Start again from the connect page.',
      'invalid_state',
    );
  }
  const row = await ctx.store.db
    .updateTable('oauth_sessions')
    .set({ used_at: new Date() })
    .where('id', '=', sid)
    .where('used_at', 'is', null)
    .where('expires_at', '>', new Date())
    .returningAll()
    .executeTakeFirst();
  if (!row) throw new ConsentError('This sign-in was already used or has expired. Start again from the connect page.', 'expired_state');
  return { row, details: openCredentials(ctx.keyring, row.id, row) };
}

/** The consent id a callback's state names, when this service signed it. */
function sessionIdOf(ctx: ServiceContext, state: string): string | undefined {
  const opened = openPayload(stateKey(ctx), STATE_SCOPE, state);
  const sid = 'payload' in opened ? opened.payload.sid : undefined;
  return typeof sid === 'string' && /^[0-9a-f-]{36}$/.test(sid) ? sid : undefined;
}

/** The allowed_origin of the consent a callback's state names, read after the callback failed; none for a state this service did not sign. */
export async function consentFrameOrigin(ctx: ServiceContext, state: string | undefined): Promise<string | undefined> {
  const sid = state ? sessionIdOf(ctx, state) : undefined;
  if (sid === undefined) return undefined;
  const row = await ctx.store.db.selectFrom('oauth_sessions').selectAll().where('id', '=', sid).executeTakeFirst();
  if (!row) return undefined;
  const details = openCredentials(ctx.keyring, row.id, row);
  return details.allowed_origin || undefined;
}

/** The names the vendor gives the standard OAuth 2.0 parameters (manifest key param_names; TikTok's app_id, secret, auth_code). */
function paramNames(option: ConsentOption): Record<'client_id' | 'client_secret' | 'code' | 'redirect_uri', string> {
  const renamed = option.authorizationCode.paramNames ?? {};
  return {
    client_id: renamed.client_id ?? 'client_id',
    client_secret: renamed.client_secret ?? 'client_secret',
    code: renamed.code ?? 'code',
    redirect_uri: renamed.redirect_uri ?? 'redirect_uri',
  };
}

function callbackValue(query: Record<string, string>, source: { param: string; pattern?: string }): string | undefined {
  const raw = query[source.param];
  if (raw === undefined || raw === '') return undefined;
  if (source.pattern === undefined) return raw;
  const match = new RegExp(source.pattern).exec(raw);
  return match ? (match[1] ?? match[0]) : undefined;
}

/**
 * How the code is exchanged: an oauth2_refresh option's own token request settings (its refresh requests
 * go the same way), or, for an option whose token is sent as is, those its authorization_code block names.
 */
function exchangeSettings(option: ConsentOption): {
  tokenUrl: string;
  method: 'POST' | 'GET';
  clientAuth: 'body' | 'basic';
  bodyFormat: 'form' | 'json' | 'query';
  tokenHeaders: Record<string, string>;
} {
  if (option.type === 'oauth2_refresh') {
    return { tokenUrl: option.tokenUrl, method: 'POST', clientAuth: option.clientAuth, bodyFormat: option.bodyFormat, tokenHeaders: option.tokenHeaders };
  }
  const flow = option.authorizationCode;
  // The generator refuses a flow on such an option without token_url (rule authorization-fields), and
  // token_method GET without body_format query.
  return {
    tokenUrl: flow.tokenUrl ?? '',
    method: flow.tokenMethod ?? 'POST',
    clientAuth: flow.clientAuth ?? 'body',
    bodyFormat: flow.bodyFormat ?? 'form',
    tokenHeaders: {},
  };
}

/** The values a vendor's message must never carry back to the end user (the app's secret, the code, tokens). */
function scrub(text: string, secrets: string[]): string {
  let clean = text;
  for (const secret of secrets) if (secret.length >= 4) clean = clean.split(secret).join('[redacted]');
  return clean.replace(/\s+/g, ' ').trim().slice(0, 200);
}

/**
 * A 2xx answer that reports a failure in its body (the flow's error_in_body: TikTok's code != 0) fails the
 * sign-in with the vendor's code and message, secrets removed.
 */
function refuseErrorInBody(definition: ConnectorDefinition, rule: ErrorInBody | undefined, answer: unknown, secrets: string[]): void {
  if (rule === undefined) return;
  // As the connector's own rule: an answer without the status field is read as it is (a missing token fails later).
  const value = getPath(answer, rule.path);
  if (value === undefined || rule.success.includes(value as string | number | boolean)) return;
  const said = rule.message === undefined ? undefined : getPath(answer, rule.message);
  const detail = `${rule.path} ${scrub(JSON.stringify(value), secrets)}${typeof said === 'string' && said !== '' ? `: ${scrub(said, secrets)}` : ''}`;
  throw new ConsentError(`${definition.displayName} refused to finish the sign-in (${detail}). Start again from the connect page.`, 'token_exchange_failed');
}

/**
 * The token answer as the rest of the flow reads it: the vendor's JSON object, with access_token taken
 * from tokenPath when the vendor wraps it (TikTok's data.access_token).
 */
function readTokenAnswer(answer: Record<string, unknown>, tokenPath: string | undefined): Record<string, unknown> {
  if (tokenPath === undefined || tokenPath === 'access_token') return answer;
  const value = getPath(answer, tokenPath);
  const { access_token: _ignored, ...rest } = answer;
  return typeof value === 'string' ? { ...rest, access_token: value } : rest;
}

function refused(definition: ConnectorDefinition, status: number, answer: unknown): ConsentError {
  const vendorCode =
    answer !== null && typeof answer === 'object' && typeof (answer as Record<string, unknown>).error === 'string'
      ? ` (${String((answer as Record<string, unknown>).error).slice(0, 100)})`
      : '';
  return new ConsentError(
    `${definition.displayName} refused to finish the sign-in: HTTP ${status}${vendorCode}. Start again from the connect page.`,
    'token_exchange_failed',
  );
}

/**
 * Sends one request of the sign-in to the vendor and reads its JSON answer (`json` is undefined when the
 * body is not JSON). A network failure is the one consent error both steps share.
 */
async function vendorJson(
  ctx: ServiceContext,
  definition: ConnectorDefinition,
  request: Parameters<typeof sendRequest>[0],
  idempotent: boolean,
): Promise<{ status: number; json: unknown }> {
  const http = { ...DEFAULT_HTTP_OPTIONS, ...(ctx.config.upstreamTimeoutMs !== undefined && { timeoutMs: ctx.config.upstreamTimeoutMs }) };
  let response;
  try {
    response = await sendRequest(request, http, idempotent);
  } catch (error) {
    if (error instanceof PrivateAddressError)
      throw new ConsentError(`${definition.displayName} cannot finish the sign-in here. ${error.message}`, 'token_exchange_failed');
    throw new ConsentError(`${definition.displayName} could not be reached to finish the sign-in. Try again in a moment.`, 'token_exchange_failed');
  }
  try {
    return { status: response.status, json: JSON.parse(response.text) };
  } catch {
    return { status: response.status, json: undefined };
  }
}

/**
 * One token request: params encoded as the vendor takes them (form body, JSON body or query string), sent,
 * and the answer read as a token: a non-2xx or non-object answer is refused, the error_in_body rule applied
 * (vendor messages with `secrets` scrubbed), and access_token taken from tokenPath.
 */
async function tokenRequest(
  ctx: ServiceContext,
  definition: ConnectorDefinition,
  request: {
    method: 'POST' | 'GET';
    target: URL;
    headers: Record<string, string>;
    params: Record<string, string>;
    bodyFormat: 'form' | 'json' | 'query';
    /** Whether it may be sent again on a failure: never for a code exchange (a code is spent once). */
    idempotent: boolean;
    /** Whether the host must be a public address (signInUrl). */
    publicAddressesOnly: boolean;
    errorInBody: ErrorInBody | undefined;
    tokenPath: string | undefined;
    secrets: string[];
  },
): Promise<Record<string, unknown>> {
  const { target, params } = request;
  const headers = { ...request.headers };
  let body: string | undefined;
  if (request.bodyFormat === 'json') {
    headers['content-type'] = 'application/json';
    body = JSON.stringify(params);
  } else if (request.bodyFormat === 'query') {
    for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  } else {
    headers['content-type'] = 'application/x-www-form-urlencoded';
    body = new URLSearchParams(params).toString();
  }
  const { status, json: answer } = await vendorJson(
    ctx,
    definition,
    {
      method: request.method,
      url: target.toString(),
      headers,
      ...(body !== undefined && { body }),
      ...(request.publicAddressesOnly && { publicAddressesOnly: true }),
    },
    request.idempotent,
  );
  if (status < 200 || status >= 300 || answer === null || typeof answer !== 'object' || Array.isArray(answer)) throw refused(definition, status, answer);
  refuseErrorInBody(definition, request.errorInBody, answer, request.secrets);
  const token = readTokenAnswer(answer as Record<string, unknown>, request.tokenPath);
  // RFC 6749 5.2's error object, which some vendors send with status 200: a refusal, not a grant lacking a token.
  if (token.access_token === undefined && typeof token.error === 'string') throw refused(definition, status, answer);
  return token;
}

/** POST the token URL with grant_type=authorization_code, as the option's refresh requests are sent. */
async function exchangeCode(
  ctx: ServiceContext,
  definition: ConnectorDefinition,
  option: ConsentOption,
  app: { client_id: string; client_secret: string },
  input: { code: string; callbackUrl: string; verifier?: string; settings: Record<string, string> },
): Promise<Record<string, unknown>> {
  const settings = exchangeSettings(option);
  const flow = option.authorizationCode;
  const names = paramNames(option);
  const omitted = new Set<string>(flow.omitParams ?? []);
  const context = { credentials: { ...app }, config: checkReplicationConfig(definition, input.settings, 'settings'), token: {} };
  const params: Record<string, string> = {};
  if (!omitted.has('grant_type')) params.grant_type = 'authorization_code';
  params[names.code] = input.code;
  if (!omitted.has('redirect_uri')) params[names.redirect_uri] = input.callbackUrl;
  if (input.verifier !== undefined) params.code_verifier = input.verifier;
  const headers: Record<string, string> = { accept: 'application/json' };
  for (const [name, template] of Object.entries(settings.tokenHeaders)) headers[name.toLowerCase()] = renderTemplate(template, context);
  if (settings.clientAuth === 'basic') {
    headers.authorization = `Basic ${Buffer.from(`${app.client_id}:${app.client_secret}`).toString('base64')}`;
  } else {
    params[names.client_id] = app.client_id;
    params[names.client_secret] = app.client_secret;
  }
  const tokenUrl = signInUrl(ctx, definition.connectorType, settings.tokenUrl, context);
  const token = await tokenRequest(ctx, definition, {
    method: settings.method,
    target: new URL(tokenUrl.url),
    publicAddressesOnly: tokenUrl.publicAddressesOnly,
    headers,
    params,
    bodyFormat: settings.bodyFormat,
    idempotent: false,
    errorInBody: flow.errorInBody,
    tokenPath: flow.tokenPath,
    secrets: [app.client_secret, input.code],
  });
  return flow.followUpExchange === undefined ? token : followUpExchange(ctx, definition, flow.followUpExchange, app, token, context.config);
}

type FollowUp = NonNullable<ConsentOption['authorizationCode']['followUpExchange']>;

/**
 * The manifest's follow_up_exchange: trades the first answer's token for the one the connection keeps
 * (Facebook's short-lived user token for a long-lived one), whose answer replaces the first.
 */
async function followUpExchange(
  ctx: ServiceContext,
  definition: ConnectorDefinition,
  follow: FollowUp,
  app: { client_id: string; client_secret: string },
  first: Record<string, unknown>,
  config: Record<string, string>,
): Promise<Record<string, unknown>> {
  const token: Record<string, string> = {};
  for (const [name, value] of Object.entries(first)) if (typeof value === 'string') token[name] = value;
  const context = { credentials: { ...app }, config, token };
  const followUrl = signInUrl(ctx, definition.connectorType, follow.url, context);
  const params: Record<string, string> = {};
  for (const [name, template] of Object.entries(follow.params)) params[name] = renderTemplate(template, context);
  return tokenRequest(ctx, definition, {
    method: follow.method,
    target: new URL(followUrl.url),
    publicAddressesOnly: followUrl.publicAddressesOnly,
    headers: { accept: 'application/json' },
    params,
    bodyFormat: follow.method === 'GET' ? 'query' : 'form',
    idempotent: follow.method === 'GET',
    errorInBody: follow.errorInBody,
    tokenPath: follow.tokenPath,
    secrets: [app.client_secret, token.access_token ?? ''],
  });
}

/**
 * The credentials a consent yields, as the option declares them: the organization's client (where the
 * option keeps it, as oauth2_refresh options do to refresh) and the tokens of the exchange. An
 * oauth2_refresh option cannot work without a refresh token, any other option without the access token.
 */
function consentCredentials(
  definition: ConnectorDefinition,
  option: ConsentOption,
  app: { client_id: string; client_secret: string },
  token: Record<string, unknown>,
): Record<string, string> {
  const credentials: Record<string, string> = { option_title: option.optionTitle };
  for (const name of ['client_id', 'client_secret'] as const) if (option.fields[name] !== undefined) credentials[name] = app[name];
  for (const name of ['refresh_token', 'access_token'] as const) {
    const value = token[name];
    if (option.fields[name] !== undefined && typeof value === 'string' && value !== '') credentials[name] = value;
  }
  const needed = option.type === 'oauth2_refresh' ? 'refresh_token' : 'access_token';
  if (credentials[needed] === undefined) {
    throw new ConsentError(
      needed === 'refresh_token'
        ? `${definition.displayName} granted access without a refresh token, so the connection could not be kept; check the OAuth app's scopes and settings.`
        : `${definition.displayName} granted access without an access token, so the connection could not be made; check the OAuth app's settings.`,
      needed === 'refresh_token' ? 'no_refresh_token' : 'no_access_token',
    );
  }
  return credentials;
}

type Lookup = NonNullable<ConsentOption['authorizationCode']['lookup']>;

/**
 * The manifest's lookup: one GET with the new access token (Jira's accessible-resources) whose answer
 * names values the credentials need (the cloud id of the site the settings point at).
 */
async function lookupCredentials(
  ctx: ServiceContext,
  definition: ConnectorDefinition,
  lookup: Lookup,
  token: Record<string, unknown>,
  settings: Record<string, string>,
): Promise<Record<string, string>> {
  const context = { credentials: {}, config: checkReplicationConfig(definition, settings), token: {} };
  const { url, publicAddressesOnly } = signInUrl(ctx, definition.connectorType, lookup.url, context);
  const { status, json: items } = await vendorJson(
    ctx,
    definition,
    {
      method: 'GET',
      url,
      headers: { accept: 'application/json', authorization: `Bearer ${String(token.access_token ?? '')}` },
      ...(publicAddressesOnly && { publicAddressesOnly: true }),
    },
    true,
  );
  if (status < 200 || status >= 300 || !Array.isArray(items)) {
    throw new ConsentError(
      `${definition.displayName} refused to finish the sign-in: HTTP ${status}. Start again from the connect page.`,
      'token_exchange_failed',
    );
  }
  const expected = Object.entries(lookup.match).map(([field, template]) => [field, renderTemplate(template, context)] as const);
  const item = items.find(
    (candidate): candidate is Record<string, unknown> =>
      candidate !== null && typeof candidate === 'object' && expected.every(([field, value]) => (candidate as Record<string, unknown>)[field] === value),
  );
  const values: Record<string, string> = {};
  for (const [credential, field] of Object.entries(lookup.fields)) {
    const value = item?.[field];
    if (typeof value === 'string' && value !== '') values[credential] = value;
  }
  if (Object.keys(values).length !== Object.keys(lookup.fields).length) {
    const wanted = expected.map(([, value]) => value).join(', ');
    throw new ConsentError(
      `${definition.displayName} granted access, but not to ${wanted || 'the account the settings name'}: sign in with an account that can reach it, or correct the settings.`,
      'resource_not_granted',
    );
  }
  return values;
}

/**
 * The settings with those the token response gives (the option's settings_from_token, e.g. TikTok's
 * authorized advertiser ids) where the end user left them empty: a string as it is, an array or object as
 * JSON text. A value the setting's rules refuse is left out (the connection still succeeds; the setting
 * can be given later).
 */
function settingsFromToken(
  definition: ConnectorDefinition,
  option: ConsentOption,
  token: Record<string, unknown>,
  settings: Record<string, string>,
): Record<string, string> {
  const filled = { ...settings };
  for (const [variable, path] of Object.entries(option.authorizationCode.settingsFromToken)) {
    if (filled[variable] !== undefined && filled[variable] !== '') continue;
    const value = getPath(token, path);
    const text = typeof value === 'string' ? value : value !== null && typeof value === 'object' ? JSON.stringify(value) : undefined;
    if (text === undefined || text === '') continue;
    const field = definition.config[variable];
    if (field && configValueIssue(field, text, `settings.${variable}`) === undefined) filled[variable] = text;
  }
  return filled;
}

/** Handles the redirect back from the vendor: spends the state, exchanges the code, creates the connector. */
export async function completeConsent(ctx: ServiceContext, query: Record<string, string>): Promise<ConsentResult> {
  if (!query.state) throw new ConsentError('The sign-in answer has no state. Start again from the connect page.', 'invalid_state');
  const { row, details } = await spendSession(ctx, query.state);
  const template = await getTemplateRow(ctx, row.organization_id, row.template_id);
  const definition = templateDefinition(template);
  if (query.error) {
    const reason = (query.error_description || query.error).slice(0, 300);
    throw new ConsentError(`${definition.displayName} did not grant access: ${reason}.`, 'consent_refused');
  }
  const option = findConsentOption(definition, row.option_title);
  // A vendor that renames the code (TikTok's auth_code) is read under its name, else the standard one.
  const code = query[paramNames(option).code] || query.code;
  if (!code) throw new ConsentError(`${definition.displayName} answered without an authorization code. Start again from the connect page.`, 'consent_refused');
  const app = await findOAuthApp(ctx, row.organization_id, definition.connectorType);
  if (!app) throw new ConsentError(`The application removed its ${definition.displayName} OAuth app during the sign-in.`, 'oauth_app_missing');
  const settings = JSON.parse(details.settings ?? '{}') as Record<string, string>;
  const token = await exchangeCode(ctx, definition, option, app, {
    code,
    callbackUrl: details.callback_url ?? '',
    ...(details.code_verifier !== undefined && { verifier: details.code_verifier }),
    settings,
  });
  const credentials = consentCredentials(definition, option, app, token);
  for (const [field, path] of Object.entries(option.authorizationCode.fromToken)) {
    const value = getPath(token, path);
    if (typeof value === 'string' && value !== '') credentials[field] = value;
  }
  for (const [field, source] of Object.entries(option.authorizationCode.fromCallback)) {
    const value = callbackValue(query, source);
    if (value !== undefined) credentials[field] = value;
  }
  if (option.authorizationCode.lookup !== undefined) {
    Object.assign(credentials, await lookupCredentials(ctx, definition, option.authorizationCode.lookup, token, settings));
  }
  const replicationConfig = settingsFromToken(definition, option, token, settings);
  const workspace = await ctx.store.db
    .selectFrom('workspaces')
    .select('name')
    .where('id', '=', row.workspace_id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!workspace) throw new ConsentError('The workspace this link was made for no longer exists.', 'workspace_gone');
  const connector = await createConnector(
    ctx,
    row.organization_id,
    {
      workspace_name: workspace.name,
      connector_type: definition.connectorType,
      name: details.name ?? definition.displayName,
      credentials,
      replication_config: replicationConfig,
    },
    { check: true },
  );
  return {
    connector,
    allowedOrigin: details.allowed_origin ?? '',
    widgetToken: details.widget_token ?? '',
    ...(details.return_to !== undefined && { returnTo: details.return_to }),
  };
}
