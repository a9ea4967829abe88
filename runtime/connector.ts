import { own } from './own.js';
import { Authenticator } from './auth/authenticator.js';
import type { TokenRefreshHandler, TokenRefreshLock } from './auth/oauth2.js';
import { selectAuthOption } from './auth/select-option.js';
import type { ActionDefinition, ConfigField, ConnectorDefinition, EntityDefinition } from './definition.js';
import { GeneratedCodeMissingError, HostedOnlyError, UnknownOperationError, UpstreamError, ValidationError, type ErrorIssue } from './errors.js';
import { graphqlError, isGraphqlAuthFailure } from './graphql-errors.js';
import { guards } from './guards/index.js';
import { DEFAULT_HTTP_OPTIONS, configuredHostRefusal, sendRequest, type HttpOptions, type HttpResponse } from './http.js';
import { isInternalHost } from './internal-hosts.js';
import { buildBlock, computeNextParams } from './pagination/next-params.js';
import { prepareParams, UNIVERSAL_LIMIT } from './params.js';
import { getPath } from './paths.js';
import { buildFollowRequest, buildRequest, resolveBaseUrl, templatedValue, type Target } from './request.js';
import { renderTemplate, templateReferences, type TemplateContext } from './templates.js';
import { errorInBody, upstreamError } from './upstream-errors.js';
import { depthIssue, issuesFromValidator, type CompiledValidator } from './validation.js';

export interface ConnectorOptions {
  /** Credential fields of one auth option; `option_title` selects the option when several could match. */
  credentials: Record<string, unknown>;
  /** Connector configuration variables (e.g. a tenant subdomain). */
  config?: Record<string, unknown>;
  /** Replaces the manifest's base URL (a sandbox, a self-hosted instance or a test double). */
  baseUrl?: string;
  http?: Partial<HttpOptions>;
  /** Called after every OAuth refresh; `rotated` tells whether a new refresh token must be persisted. */
  onTokenRefresh?: TokenRefreshHandler;
  /** Makes OAuth refreshes single-flight across processes sharing stored credentials (replaces onTokenRefresh: the lock persists). */
  tokenRefreshLock?: TokenRefreshLock;
  /** Replaces the scheme, host and port of the OAuth token URL (a vendor sandbox or a test double). */
  oauthServerUrl?: string;
  /**
   * A vendor host the connector's configuration or credentials write (its base URL template reads config.*,
   * credentials.* or token.*: a self-hosted Sentry's host) that is localhost or is or resolves to a loopback,
   * private, shared or link-local address: 'allow' it (the default: whoever gives the configuration runs
   * this process) or 'refuse' it (a PrivateAddressError, nothing sent: a service calling vendors with
   * configurations its users give). The same holds for an OAuth token URL the configuration writes. The
   * baseUrl and oauthServerUrl options are never checked.
   */
  privateAddresses?: 'allow' | 'refuse';
}

/**
 * Whether requests to a URL written by `template` connect to public addresses only (ConnectorOptions.privateAddresses):
 * 'refuse' is set, the template writes the host from the configuration, credentials or token, and no override
 * (`overridden`: the baseUrl or oauthServerUrl option, an operator's) replaces it.
 */
export function guardsConfiguredHost(privateAddresses: 'allow' | 'refuse' | undefined, template: string, overridden: boolean): boolean {
  return privateAddresses === 'refuse' && !overridden && templateReferences(template).length > 0;
}

/** The host of the URL `template` writes, or undefined when a value it reads is missing or the result is not a URL. */
function renderedHost(template: string, context: TemplateContext): string | undefined {
  try {
    return new URL(renderTemplate(template, context)).hostname;
  } catch {
    return undefined;
  }
}

export interface ExecuteResult<TData = unknown, TPagination = Record<string, unknown>> {
  data: TData;
  /** The native pagination keys of this connector kind (absent for actions that do not paginate). */
  pagination?: TPagination;
  /** The params to merge into the next call for the next page; absent on the last page. */
  next_params?: Record<string, unknown>;
}

export interface ConnectorModule {
  definition: ConnectorDefinition;
  validators: Record<string, CompiledValidator>;
}

export function validatorName(entity: string, action: string): string {
  return `${entity}__${action}`;
}

/**
 * The connector configuration rules (names, required, enum, pattern, defaults); exported for the hosted service,
 * which names each setting under the field its caller sent the settings in (`at`: replication_config, settings).
 */
export function validateConfig(definition: ConnectorDefinition, input: Record<string, unknown>, at = 'config'): Record<string, string> {
  const config: Record<string, string> = {};
  const issues: ErrorIssue[] = [];
  for (const key of Object.keys(input)) {
    if (!Object.hasOwn(definition.config, key))
      issues.push({ field: `${at}.${key}`, rule: 'unknown', message: `${at}.${key} is not a setting of this connector` });
  }
  for (const [name, field] of Object.entries(definition.config)) {
    const given = input[name];
    // A number or boolean where text is expected (a client's `account_id: 123456`) counts as its string form.
    const raw = (typeof given === 'number' && Number.isFinite(given)) || typeof given === 'boolean' ? String(given) : (given ?? field.default);
    if (raw === undefined || raw === '') {
      if (field.required) issues.push({ field: `${at}.${name}`, rule: 'required', message: `${at}.${name} is required: ${field.description}` });
      continue;
    }
    const issue = configValueIssue(field, raw, `${at}.${name}`);
    if (issue) issues.push(issue);
    else config[name] = raw as string;
  }
  if (issues.length > 0) throw new ValidationError(`Invalid connector configuration: ${issues.map((i) => i.message).join('; ')}.`, issues);
  return config;
}

/** What is wrong with one given value of a configuration field (named `at`): its type, enum or pattern. */
export function configValueIssue(field: ConfigField, value: unknown, at: string): ErrorIssue | undefined {
  if (typeof value !== 'string') return { field: at, rule: 'type', message: `${at} must be a string`, limit: 'string' };
  if (field.enum && !field.enum.includes(value))
    return { field: at, rule: 'enum', message: `${at} must be one of ${field.enum.join(', ')}`, limit: field.enum };
  if (field.pattern !== undefined && !new RegExp(field.pattern).test(value))
    return { field: at, rule: 'pattern', message: `${at} must match ${field.pattern}`, limit: field.pattern };
  return undefined;
}

function redactor(secrets: () => string[]): (text: string) => string {
  return (text) => {
    // Longest first: one form can hold another (a Basic pair's base64 holds the password's when the user part
    // is a multiple of 3 bytes), and redacting the inner one first would leave the rest of the outer in view.
    // In any letter case: vendors echo headers and bodies lowercased or uppercased too.
    const alternatives = secrets()
      .filter((secret) => secret.length >= 4)
      .sort((a, b) => b.length - a.length)
      .map((secret) => secret.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
    return alternatives.length === 0 ? text : text.replace(new RegExp(alternatives.join('|'), 'gi'), '[redacted]');
  };
}

function parseBody(response: HttpResponse): unknown {
  if (response.text.trim() === '') return null;
  try {
    return JSON.parse(response.text);
  } catch {
    throw new UpstreamError(`The vendor answered HTTP ${response.status} with a body that is not JSON.`, { upstreamStatus: response.status });
  }
}

/**
 * The records of a list nested in its parent's answer, each with the fields the action takes from the
 * answer around them (response_fields: Intercom's conversation parts get their conversation's id and
 * times); a record that has the field keeps its own value.
 */
function withResponseFields(records: unknown[], fields: Record<string, string>, body: unknown): unknown[] {
  const values = Object.entries(fields)
    .map(([name, path]) => [name, getPath(body, path)] as const)
    .filter(([, value]) => value !== undefined);
  if (values.length === 0) return records;
  return records.map((record) => {
    if (record === null || typeof record !== 'object' || Array.isArray(record)) return record;
    const out: Record<string, unknown> = { ...record };
    for (const [name, value] of values) if (!Object.hasOwn(out, name)) out[name] = value;
    return out;
  });
}

/** The record at `path` of the answer (the whole body without a path); a vendor answer without it is an upstream error. */
function recordAt(body: unknown, path: string | undefined, response: HttpResponse): unknown {
  const record = getPath(body, path);
  if (record === undefined) throw new UpstreamError(`The vendor's response has no record at "${path}".`, { upstreamStatus: response.status });
  return record;
}

/** Options of one execute call. */
export interface ExecuteOptions {
  /** Aborting it ends the call: the request in flight and the retries and waits to come. */
  signal?: AbortSignal;
}

/** A connector instance: one definition, one set of credentials and config. */
export class Connector {
  readonly definition: ConnectorDefinition;
  private readonly validators: Record<string, CompiledValidator>;
  private readonly authenticator: Authenticator;
  private readonly context: TemplateContext;
  private readonly http: HttpOptions;
  private readonly baseUrlOverride?: string;
  private readonly redact: (text: string) => string;
  /** Connector headers (lowercase names) whose templates read credentials or tokens. */
  private readonly credentialTemplateHeaders: string[];
  /** Whether requests connect to public addresses only (ConnectorOptions.privateAddresses 'refuse', for a host the configuration writes). */
  private readonly publicAddressesOnly: boolean;
  /** The same for the OAuth token URL, when the auth option refreshes tokens. */
  private readonly publicTokenHost: boolean;
  /** The last base URL resolved and its target: the URL is the same call after call, unless a template value changes. */
  private resolved?: { baseUrl: string; target: Target };

  constructor(module: ConnectorModule, options: ConnectorOptions) {
    this.definition = module.definition;
    this.validators = module.validators;
    this.http = { ...DEFAULT_HTTP_OPTIONS, ...options.http };
    this.baseUrlOverride = options.baseUrl;
    const { option, credentials } = selectAuthOption(this.definition.auth, options.credentials);
    this.publicAddressesOnly = guardsConfiguredHost(options.privateAddresses, option.baseUrl ?? this.definition.baseUrl, options.baseUrl !== undefined);
    this.context = { credentials, config: validateConfig(this.definition, options.config ?? {}), token: {} };
    this.credentialTemplateHeaders = Object.entries(this.definition.headers)
      .filter(([, template]) => /\{\{\s*(credentials|token)\./.test(template))
      .map(([name]) => name.toLowerCase());
    this.redact = redactor(() => this.authenticator.secrets());
    // The OAuth token URL is checked as the base URL is: a host the configuration writes (Sentry's) gets the client secret.
    this.publicTokenHost =
      option.type === 'oauth2_refresh' && guardsConfiguredHost(options.privateAddresses, option.tokenUrl, options.oauthServerUrl !== undefined);
    this.authenticator = new Authenticator(
      option,
      this.context,
      this.http,
      this.redact,
      options.onTokenRefresh,
      options.tokenRefreshLock,
      options.oauthServerUrl,
      this.publicTokenHost,
    );
  }

  get authOptionTitle(): string {
    return this.authenticator.option.optionTitle;
  }

  entity(name: string): EntityDefinition {
    const entity = own(this.definition.entities, name);
    if (!entity) {
      const valid = Object.keys(this.definition.entities);
      const message = `Unknown entity "${name}" for ${this.definition.connectorType}. Valid entities: ${valid.join(', ')}.`;
      throw new UnknownOperationError(message, { issues: [{ field: 'entity', rule: 'unknown_operation', message, limit: valid }] });
    }
    return entity;
  }

  action(entityName: string, actionName: string): ActionDefinition {
    const entity = this.entity(entityName);
    const action = own(entity.actions, actionName);
    if (!action) {
      if (actionName === 'context_store_search') {
        throw new HostedOnlyError(
          'context_store_search exists only in hosted mode: it searches data the Switchyard service has synchronized. Use list or api_search here.',
        );
      }
      const valid = Object.keys(entity.actions);
      const message = `Unknown action "${actionName}" for ${entityName}. Valid actions: ${valid.join(', ')}.`;
      throw new UnknownOperationError(message, { issues: [{ field: 'action', rule: 'unknown_operation', message, limit: valid }] });
    }
    return action;
  }

  /**
   * Validates params against the action's declared schema, reporting every violation at once. Scalars
   * given as text are read as the declared type and the universal limit becomes the page-size param
   * (runtime/params.ts) first.
   */
  validate(entityName: string, actionName: string, params: Record<string, unknown>): Record<string, unknown> {
    return this.checkParams(entityName, actionName, params).params;
  }

  private checkParams(entityName: string, actionName: string, input: Record<string, unknown>): { params: Record<string, unknown>; keepAtMost?: number } {
    const action = this.action(entityName, actionName);
    const validator = own(this.validators, validatorName(entityName, actionName));
    if (!validator) throw new GeneratedCodeMissingError(`No validator was generated for ${entityName}.${actionName}; run npm run generate.`);
    const tooDeep = depthIssue(input);
    if (tooDeep) throw new ValidationError(`Invalid params for ${entityName}.${actionName}: ${tooDeep.message}.`, [tooDeep]);
    const { params, keepAtMost, limitProblem, aliasConflicts } = prepareParams(action, this.withConfigParams(entityName, actionName, input));
    const issues: ErrorIssue[] = [];
    for (const { param, names } of aliasConflicts ?? []) {
      issues.push({
        field: names[1] as string,
        rule: 'alias_conflict',
        message: `${names.join(' and ')} name the same param (${param}) of ${entityName}.${actionName}; give it once`,
        limit: names,
      });
    }
    if (!validator(params)) issues.push(...issuesFromValidator(validator.errors ?? []));
    if (limitProblem !== undefined) issues.push({ field: UNIVERSAL_LIMIT, rule: 'type', message: limitProblem, limit: 'positive integer' });
    if (action.atLeastOneOf && action.atLeastOneOf.every((name) => params[name] === undefined)) {
      issues.push({
        field: 'params',
        rule: 'at_least_one_of',
        message: `${entityName}.${actionName} needs at least one of: ${action.atLeastOneOf.join(', ')}`,
        limit: action.atLeastOneOf,
      });
    }
    const given = (action.atMostOneOf ?? []).filter((name) => params[name] !== undefined);
    if (given.length > 1) {
      issues.push({
        field: 'params',
        rule: 'at_most_one_of',
        message: `${entityName}.${actionName} takes at most one of ${(action.atMostOneOf ?? []).join(', ')}; got ${given.join(' and ')}`,
        limit: action.atMostOneOf,
      });
    }
    for (const guard of action.guards) {
      if (issues.some((i) => i.field === guard.param)) continue;
      const issue = guards[guard.name](guard.param, params[guard.param]);
      if (issue) issues.push(issue);
    }
    for (const [name, param] of Object.entries(action.params)) {
      if (param.in !== 'path' || params[name] === undefined || issues.some((i) => i.field === name)) continue;
      const issue = pathSegmentIssue(name, String(templatedValue(param, params[name])));
      if (issue) issues.push(issue);
    }
    if (issues.length > 0) {
      throw new ValidationError(`Invalid params for ${entityName}.${actionName}: ${issues.map((i) => i.message).join('; ')}.`, issues);
    }
    const withDefaults = { ...params };
    for (const [name, param] of Object.entries(action.params)) {
      if (withDefaults[name] === undefined && param.sendDefault && param.schema.default !== undefined) withDefaults[name] = param.schema.default;
    }
    return { params: withDefaults, ...(keepAtMost !== undefined && { keepAtMost }) };
  }

  /**
   * The list params the connector's configuration gives (the entity's search.config_params: TikTok's
   * advertiser_ids), filled in where the call leaves them out and the configuration sets them.
   */
  private withConfigParams(entityName: string, actionName: string, input: Record<string, unknown>): Record<string, unknown> {
    const configParams = actionName === 'list' ? this.definition.entities[entityName]?.search?.configParams : undefined;
    if (!configParams) return input;
    const filled = { ...input };
    for (const [param, variable] of Object.entries(configParams)) {
      const value = this.context.config[variable];
      if ((filled[param] === undefined || filled[param] === null) && value !== undefined && value !== '') filled[param] = value;
    }
    return filled;
  }

  /**
   * Runs one action. `options.signal` ends it when aborted (a caller that went away): the request in flight,
   * and any retry or wait still to come; the call rejects with the signal's reason.
   */
  async execute<TData = unknown, TPagination = Record<string, unknown>>(
    entityName: string,
    actionName: string,
    params: Record<string, unknown> | null = {},
    options: ExecuteOptions = {},
  ): Promise<ExecuteResult<TData, TPagination>> {
    // null means no params, as clients that always send the key write it.
    const given = params ?? {};
    if (typeof given !== 'object' || Array.isArray(given)) {
      throw new ValidationError('params must be an object.', [{ field: 'params', rule: 'type', message: 'params must be an object', limit: 'object' }]);
    }
    const action = this.action(entityName, actionName);
    const { params: validParams, keepAtMost } = this.checkParams(entityName, actionName, given);
    options.signal?.throwIfAborted();
    return this.perform<TData, TPagination>(action, validParams, keepAtMost, options.signal);
  }

  /**
   * The records of a GET the manifest declares for the context store's sync outside the actions (an entity's
   * incremental.deleted_feed): `path` under the connector's base URL with `query`, authenticated and sent as
   * an action's request, the answer's list at `recordsPath`. Its params are the sync's own, not a caller's.
   */
  async readFeed(path: string, query: Record<string, string>, recordsPath: string): Promise<unknown[]> {
    const params: ActionDefinition['params'] = {};
    for (const name of Object.keys(query)) params[name] = { in: 'query', wire: name, required: true, sendDefault: false, schema: { type: 'string' } };
    const feed: ActionDefinition = {
      name: 'feed',
      method: 'GET',
      path,
      params,
      recordsPath,
      result: 'many',
      guards: [],
      idempotent: true,
      destructive: false,
      readOnly: true,
    };
    const { data } = await this.perform<unknown[]>(feed, query);
    return data;
  }

  /** Sends a validated action's request (refreshing a refused token once) and shapes the answer. */
  private async perform<TData, TPagination = Record<string, unknown>>(
    action: ActionDefinition,
    validParams: Record<string, unknown>,
    keepAtMost?: number,
    signal?: AbortSignal,
  ): Promise<ExecuteResult<TData, TPagination>> {
    await this.authenticator.prepare();
    const templateContext = { ...this.context, token: this.authenticator.tokenValues() };
    const target = this.target(this.baseUrlOverride ?? renderTemplate(this.authenticator.option.baseUrl ?? this.definition.baseUrl, templateContext));
    const followUrlParam = action.pagination?.style === 'next_records_url' ? action.pagination.url_param : undefined;
    const followUrl = followUrlParam === undefined ? undefined : validParams[followUrlParam];
    const request =
      typeof followUrl === 'string'
        ? buildFollowRequest(followUrl, target)
        : buildRequest(action, followUrlParam === undefined ? validParams : { ...validParams, [followUrlParam]: undefined }, target);
    for (const [name, template] of Object.entries(this.definition.headers)) {
      request.headers[name.toLowerCase()] = renderTemplate(template, templateContext);
    }

    const send = async (accessToken?: string) => {
      const applied = await this.authenticator.apply(accessToken);
      const query = new URLSearchParams(request.query);
      for (const [k, v] of Object.entries(applied.query)) query.append(k, v);
      const headers = { ...request.headers };
      for (const [k, v] of Object.entries(applied.headers)) headers[k.toLowerCase()] = v;
      const queryString = query.toString();
      const url = queryString ? `${request.url}?${queryString}` : request.url;
      const credentialHeaders = this.credentialHeaderNames(headers, Object.keys(applied.headers));
      return {
        applied,
        response: await sendRequest(
          {
            ...request,
            url,
            headers,
            credentialHeaders,
            ...(this.publicAddressesOnly && { publicAddressesOnly: true }),
            ...(signal !== undefined && { signal }),
          },
          this.http,
          action.idempotent,
        ),
      };
    };

    const refused = (r: HttpResponse) => r.status === 401 || (action.graphql !== undefined && isGraphqlAuthFailure(r));
    let { applied, response } = await send();
    if (refused(response)) {
      const fresh = await this.authenticator.refreshAfterRejection(applied);
      if (fresh !== undefined) ({ applied, response } = await send(fresh));
    }
    if (action.graphql) {
      const error = graphqlError(response, this.redact);
      if (error) throw error;
    }
    if (response.status < 200 || response.status >= 300) throw upstreamError(response, this.redact);

    const body = parseBody(response);
    if (this.definition.errorInBody) {
      const error = errorInBody(this.definition.errorInBody, body, response.status, this.redact);
      if (error) throw error;
    }
    return this.shape<TData, TPagination>(action, validParams, body, response, target.origin, keepAtMost);
  }

  /**
   * Throws the PrivateAddressError a request would, without sending one, when a host the configuration writes
   * (the base URL's, or the OAuth token URL's) is by itself an internal address (localhost, a private IP) and
   * the connector refuses those (ConnectorOptions.privateAddresses). A name that resolves to such an address
   * is seen only when a request looks it up. A URL whose template needs a value not known yet (a token's) is
   * judged when it is sent.
   */
  assertConfiguredHostsCallable(): void {
    const option = this.authenticator.option;
    const templates: string[] = [];
    if (this.publicAddressesOnly) templates.push(option.baseUrl ?? this.definition.baseUrl);
    if (this.publicTokenHost && option.type === 'oauth2_refresh') templates.push(option.tokenUrl);
    for (const template of templates) {
      const host = renderedHost(template, this.context);
      if (host !== undefined && isInternalHost(host)) throw configuredHostRefusal(host);
    }
  }

  /** The checked origin and base of a rendered base URL (the host pattern applies to manifest URLs, not to an override). */
  private target(baseUrl: string): Target {
    if (this.resolved?.baseUrl !== baseUrl) {
      const target = resolveBaseUrl(baseUrl, this.baseUrlOverride === undefined ? this.definition.baseUrlHostPattern : undefined);
      this.resolved = { baseUrl, target };
    }
    return this.resolved.target;
  }

  /**
   * Headers that carry a credential, dropped when a redirect leaves the vendor's origin: every header
   * auth adds, every connector header whose template reads credentials or tokens, and any header whose
   * value contains a secret.
   */
  private credentialHeaderNames(headers: Record<string, string>, authHeaders: string[]): string[] {
    const names = new Set(authHeaders.map((name) => name.toLowerCase()));
    for (const name of this.credentialTemplateHeaders) names.add(name);
    const secrets = this.authenticator.secrets().filter((secret) => secret.length >= 4);
    for (const [name, value] of Object.entries(headers)) {
      if (secrets.some((secret) => value.includes(secret))) names.add(name.toLowerCase());
    }
    return [...names];
  }

  private shape<TData, TPagination>(
    action: ActionDefinition,
    params: Record<string, unknown>,
    body: unknown,
    response: HttpResponse,
    origin: string,
    keepAtMost?: number,
  ): ExecuteResult<TData, TPagination> {
    let data: unknown;
    if (action.result === 'many' && action.recordsPath === undefined && action.recordPath !== undefined) {
      // A list of the answer's one record (Zendesk Talk's overviews).
      const record = recordAt(body, action.recordPath, response);
      data = record === null ? [] : [record];
    } else if (action.result === 'many') {
      const records: unknown[] = [];
      for (const path of action.recordsPath === undefined ? [undefined] : [action.recordsPath].flat()) {
        const found = getPath(body, path);
        if (found === undefined || found === null) continue;
        if (!Array.isArray(found))
          throw new UpstreamError(`The vendor's response has no list of records at "${path ?? '(root)'}".`, { upstreamStatus: response.status });
        // One at a time: spreading a page of hundreds of thousands of records overflows the call stack.
        for (const record of found as unknown[]) records.push(record);
      }
      data = action.recordItemPath === undefined ? records : records.map((item) => getPath(item, action.recordItemPath));
      if (action.responseFields !== undefined) data = withResponseFields(data as unknown[], action.responseFields, body);
    } else if (body === null) {
      data = action.emptyResponse ?? {};
    } else {
      data = recordAt(body, action.recordPath, response);
    }
    const result: ExecuteResult<TData, TPagination> = { data: data as TData };
    if (action.pagination) {
      const view = { body, headers: response.headers };
      const records = Array.isArray(data) ? data : [];
      const next = computeNextParams(action.pagination, { action, params, view, recordCount: records.length, lastRecord: records.at(-1), baseOrigin: origin });
      result.pagination = buildBlock(action.pagination, { ...view, next }) as TPagination;
      if (next !== undefined) result.next_params = next;
    }
    // The universal limit applied by cutting the page (no page-size param, or one whose minimum is larger).
    if (keepAtMost !== undefined && Array.isArray(result.data) && result.data.length > keepAtMost) result.data = result.data.slice(0, keepAtMost) as TData;
    return result;
  }
}

/**
 * A path param that is empty, "." or ".." would send the request elsewhere: URL parsing drops an empty
 * segment's meaning and resolves dot segments (encoded or not), so `{id}` = ".." on
 * /issue/{key}/comment/{id} reaches /issue/{key}/ (another action, past an allow-list).
 */
function pathSegmentIssue(name: string, value: string): ErrorIssue | undefined {
  if (value === '') return { field: name, rule: 'path_segment', message: `${name} must not be empty: it is a segment of the request path` };
  if (value === '.' || value === '..')
    return { field: name, rule: 'path_segment', message: `${name} must not be "${value}": as a segment of the request path it would name another URL` };
  return undefined;
}
