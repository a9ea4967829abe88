/**
 * Typed TypeScript client of the Switchyard HTTP API (`switchyard/client`): application tokens
 * (fetched, cached, renewed before expiry; scoped tokens), connectors, workspaces, inspect, skill
 * docs, and per connector type a typed execute whose params and records are the types generated
 * from the manifests. Failures throw Switchyard's error hierarchy.
 *
 *   const client = new SwitchyardClient({ baseUrl, credentials: { clientId, clientSecret } });
 *   const linear = client.connector('linear', connectorId);
 *   for await (const issue of linear.records('issues', 'list', { first: 50 })) console.log(issue.title);
 */
import type { ConnectorOperations, ConnectorRecords } from '../runtime/generated/types.js';
import { BadRequestError, InternalError, UnauthorizedError, type SwitchyardError } from '../src/errors.js';
import { errorFromResponse } from './errors.js';
import { expiryOf, TokenCache, type IssuedToken } from './tokens.js';
import type {
  ConnectorListItem,
  ConnectorView,
  CreateConnectorInput,
  EntityOutcomeView,
  ExecuteRequest,
  ExecuteResponse,
  InspectResponse,
  SkillDocsResponse,
  SkillMetadata,
  UpdateConnectorInput,
  WorkspaceDetail,
  WorkspaceRecord,
  WorkspaceStatus,
} from '../src/api-shapes.js';

export { errorFromResponse } from './errors.js';
// Every class a failed call throws, so a caller catches them from the client's own entry point.
export {
  AuthenticationError,
  CredentialsError,
  HostedOnlyError,
  PrivateAddressError,
  RateLimitedError,
  SwitchyardError,
  UnknownOperationError,
  UpstreamError,
  UpstreamRejectedError,
  UpstreamTimeoutError,
  ValidationError,
} from '../runtime/errors.js';
export {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InternalError,
  PayloadTooLargeError,
  RequestValidationError,
  ResourceNotFoundError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
} from '../src/errors.js';
// ResourceNotFoundError is the runtime's NotFoundError (a missing resource of the service, or a vendor's 404 on
// execute, whose upstreamStatus is set): exported under both names.
export { NotFoundError } from '../runtime/errors.js';
export type {
  ConnectorListItem,
  ConnectorView,
  CreateConnectorInput,
  ExecuteRequest,
  ExecuteResponse,
  InspectResponse,
  SkillDocsResponse,
  SkillMetadata,
  UpdateConnectorInput,
  WorkspaceDetail,
  WorkspaceRecord,
};

export type ConnectorType = keyof ConnectorOperations;
export type EntityOf<T extends ConnectorType> = keyof ConnectorOperations[T] & string;
export type ActionOf<T extends ConnectorType, E extends EntityOf<T>> = keyof ConnectorOperations[T][E] & string;
type Operation<T extends ConnectorType, E extends EntityOf<T>, A extends ActionOf<T, E>> = ConnectorOperations[T][E][A] extends {
  params: infer P;
  data: infer D;
  pagination: infer G;
}
  ? { params: P; data: D; pagination: G }
  : never;
export type ParamsOf<T extends ConnectorType, E extends EntityOf<T>, A extends ActionOf<T, E>> = Operation<T, E, A>['params'];
export type DataOf<T extends ConnectorType, E extends EntityOf<T>, A extends ActionOf<T, E>> = Operation<T, E, A>['data'];
/** The actions of an entity that return many records (a list): the ones records() can walk. */
export type ListActionOf<T extends ConnectorType, E extends EntityOf<T>> = {
  [A in ActionOf<T, E>]: DataOf<T, E, A> extends unknown[] ? A : never;
}[ActionOf<T, E>];
export type RecordOf<T extends ConnectorType, E extends EntityOf<T>> = E extends keyof ConnectorRecords[T] ? ConnectorRecords[T][E] : Record<string, unknown>;

/** One page of a typed execute: the records, the connector kind's native pagination keys, and next_params while there is a next page. */
export interface TypedResult<TData, TPagination> {
  data: TData;
  pagination: Partial<TPagination>;
  next_params?: Record<string, unknown>;
  connector_id: string;
  execution_time_ms: number;
}

export interface SearchMeta {
  has_more: boolean;
  cursor: string | null;
  took_ms: number | null;
}

export interface SearchResult<TRecord> {
  data: TRecord[];
  meta: SearchMeta;
}

export interface SwitchyardClientOptions {
  /** The service's base URL, e.g. https://switchyard.example.com. */
  baseUrl: string;
  /** Client credentials, exchanged for application tokens (POST /api/v1/account/applications/token). */
  credentials?: { clientId: string; clientSecret: string; organizationId?: string };
  /** A token you already hold (e.g. a scoped token), or a function returning one; used instead of credentials. */
  token?: string | (() => string | Promise<string>);
  /** Renew a token this many seconds before it expires (default 60; never more than half its lifetime). */
  renewBeforeSeconds?: number;
  /** Milliseconds before a request is abandoned (default 60 000). */
  timeoutMs?: number;
  fetch?: typeof fetch;
}

export interface CreateConnectorOptions {
  /** false skips the vendor credential check the service runs at creation (the query parameter check=false). */
  check?: boolean;
}

/** The body of POST .../sync. */
export interface SyncOptions {
  entity?: string;
  /** Walk every page and sweep the records no longer listed, even where an incremental sync is due. */
  full?: boolean;
  /** Answer once the job has run (with `results`), for at most `wait_seconds` (1..3600, default 300). */
  wait?: boolean;
  wait_seconds?: number;
}

/** One entity's result in a waited sync's answer (the service's own view of it). */
export type SyncEntityResult = EntityOutcomeView;

export interface SyncAnswer {
  connector_id: string;
  job_id: string;
  entities: Array<{ entity: string; state: 'started' | 'queued' | 'already_running' }>;
  /** With `wait`, once the job's attempt ended in time: one entry per entity this request queued. */
  results?: SyncEntityResult[];
}

export interface ListWorkspacesQuery {
  name_contains?: string;
  status?: WorkspaceStatus;
  limit?: number;
  cursor?: string;
}

type Query = Record<string, string | number | boolean | undefined>;

/** Why a request did not reach the service: fetch says "fetch failed", the reason (ECONNREFUSED, a DNS failure) is its cause's. */
function unreachableReason(error: unknown): string {
  if (!(error instanceof Error)) return String(error);
  const cause = error.cause;
  if (cause instanceof Error && cause.message !== '') return `${error.message} (${cause.message})`;
  return error.message;
}

export class SwitchyardClient {
  readonly baseUrl: string;
  private readonly tokens: TokenCache | undefined;
  private readonly staticToken: SwitchyardClientOptions['token'];
  private readonly fetchImpl: typeof fetch;
  private readonly timeoutMs: number;

  constructor(private readonly options: SwitchyardClientOptions) {
    if (!/^https?:\/\/[^/]+/.test(options.baseUrl)) throw new TypeError('baseUrl must be an http(s) URL.');
    if (options.credentials === undefined && options.token === undefined) throw new TypeError('Give credentials ({clientId, clientSecret}) or a token.');
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
    this.fetchImpl = options.fetch ?? fetch;
    this.timeoutMs = options.timeoutMs ?? 60_000;
    this.staticToken = options.token;
    const renewBeforeMs = (options.renewBeforeSeconds ?? 60) * 1000;
    const { credentials } = options;
    if (options.token === undefined && credentials !== undefined) this.tokens = new TokenCache(() => this.issueApplicationToken(credentials), renewBeforeMs);
  }

  /* ----- tokens ----- */

  private async issueApplicationToken(credentials: NonNullable<SwitchyardClientOptions['credentials']>): Promise<IssuedToken> {
    const body = await this.send<{ access_token: string; expires_in: number }>('POST', '/api/v1/account/applications/token', {
      body: { client_id: credentials.clientId, client_secret: credentials.clientSecret },
      headers: credentials.organizationId === undefined ? {} : { 'x-organization-id': credentials.organizationId },
      token: null,
    });
    return { token: body.access_token, expiresAt: expiryOf(body.access_token, body.expires_in, Date.now()) };
  }

  /** The bearer token for the next call: cached, renewed before expiry. */
  async token(): Promise<string> {
    if (this.tokens) return this.tokens.get();
    const given = this.staticToken;
    return typeof given === 'function' ? given() : (given as string);
  }

  /** A scoped token limited to one workspace (created when missing), safe to hand to an end user. */
  async createScopedToken(workspaceName: string): Promise<string> {
    const body = await this.request<{ token: string }>('POST', '/api/v1/account/applications/scoped-token', { body: { workspace_name: workspaceName } });
    return body.token;
  }

  /** The organization and workspace of the scoped token this client uses. */
  scopedTokenInfo(): Promise<{ organization_id: string; workspace_id: string; workspace_name: string }> {
    return this.request('GET', '/api/v1/account/applications/scoped-token/info');
  }

  /** A client acting with scoped tokens of one workspace, fetched through this client and renewed before they expire. */
  forWorkspace(workspaceName: string): SwitchyardClient {
    const cache = new TokenCache(
      async () => {
        const token = await this.createScopedToken(workspaceName);
        return { token, expiresAt: expiryOf(token, undefined, Date.now()) };
      },
      (this.options.renewBeforeSeconds ?? 60) * 1000,
    );
    return new SwitchyardClient({ ...this.options, credentials: undefined, token: () => cache.get() });
  }

  /* ----- HTTP ----- */

  private async send<T>(
    method: string,
    path: string,
    options: { body?: unknown; query?: Query; headers?: Record<string, string>; token: string | null },
  ): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [key, value] of Object.entries(options.query ?? {})) if (value !== undefined) url.searchParams.set(key, String(value));
    const headers: Record<string, string> = { accept: 'application/json', ...options.headers };
    if (options.token !== null) headers.authorization = `Bearer ${options.token}`;
    if (options.body !== undefined) headers['content-type'] = 'application/json';
    let response: Response;
    try {
      response = await this.fetchImpl(url, {
        method,
        headers,
        ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
    } catch (error) {
      throw new InternalError(`Cannot reach Switchyard at ${this.baseUrl}: ${unreachableReason(error)}.`, { cause: error });
    }
    const text = await response.text();
    let body: unknown = null;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        throw new InternalError(`Switchyard answered ${method} ${path} with HTTP ${response.status} and a body that is not JSON.`);
      }
    }
    if (!response.ok) throw errorFromResponse(response.status, body, response.headers);
    return body as T;
  }

  /** An authenticated call; a token the service refuses (expired early, keys rotated) is renewed once. */
  async request<T>(method: string, path: string, options: { body?: unknown; query?: Query } = {}): Promise<T> {
    const token = await this.token();
    try {
      return await this.send<T>(method, path, { ...options, token });
    } catch (error) {
      if (!(error instanceof UnauthorizedError) || !this.tokens) throw error;
      this.tokens.invalidate(token);
      return this.send<T>(method, path, { ...options, token: await this.tokens.get() });
    }
  }

  /* ----- resources ----- */

  readonly connectors = {
    create: (input: CreateConnectorInput, options: CreateConnectorOptions = {}): Promise<ConnectorView> =>
      this.request('POST', '/api/v1/integrations/connectors', { body: input, query: { ...(options.check === false && { check: false }) } }),
    list: async (filter: { workspace_name?: string; workspace_id?: string; definition_id?: string } = {}): Promise<ConnectorListItem[]> =>
      (await this.request<{ data: ConnectorListItem[] }>('GET', '/api/v1/integrations/connectors', { query: filter })).data,
    get: (id: string): Promise<ConnectorView> => this.request('GET', `/api/v1/integrations/connectors/${encodeURIComponent(id)}`),
    update: (id: string, input: UpdateConnectorInput): Promise<ConnectorView> =>
      this.request('PUT', `/api/v1/integrations/connectors/${encodeURIComponent(id)}`, { body: input }),
    delete: (id: string): Promise<{ job_id: string }> => this.request('DELETE', `/api/v1/integrations/connectors/${encodeURIComponent(id)}`),
    inspect: (id: string): Promise<InspectResponse> => this.request('GET', `/api/v1/integrations/connectors/${encodeURIComponent(id)}/inspect`),
    /**
     * Queues a context store sync (all entities, or one: a string is `{entity}`); with `wait` it answers once the
     * job has run, with `results` per entity (docs/api-reference.md, "POST .../sync").
     */
    sync: (id: string, options: string | SyncOptions = {}): Promise<SyncAnswer> =>
      this.request('POST', `/api/v1/integrations/connectors/${encodeURIComponent(id)}/sync`, {
        body: typeof options === 'string' ? { entity: options } : options,
      }),
    /**
     * Resolves once `entity` is searchable (a complete sync of it has ended: a new connector's first sync
     * starts at creation), reading inspect every `intervalMs` for at most `timeoutMs`. A failed sync is waited
     * on too (the queue retries it, and a stopping service hands it back). Throws a BadRequestError
     * `context_store_not_ready` when the time runs out (with the last failure's reason), and
     * `entity_not_syncable` for an entity the connector does not sync.
     */
    searchable: async (id: string, entity: string, options: { timeoutMs?: number; intervalMs?: number } = {}): Promise<void> => {
      const deadline = Date.now() + (options.timeoutMs ?? 300_000);
      for (;;) {
        const readiness = (await this.connectors.inspect(id)).context_store_readiness;
        const state = readiness?.configured_cache_entities.find((e) => e.entity === entity);
        if (state === undefined) throw new BadRequestError(`The connector does not sync ${entity} into the context store.`, 'entity_not_syncable');
        if (state.ready_for_search) return;
        if (Date.now() >= deadline) {
          const why = state.status === 'failed' ? `its last sync failed (${state.reason ?? 'no reason given'})` : (state.reason ?? state.status);
          throw new BadRequestError(`${entity} is not searchable yet: ${why}.`, 'context_store_not_ready');
        }
        await new Promise((resolve) => setTimeout(resolve, options.intervalMs ?? 1000));
      }
    },
  };

  readonly workspaces = {
    list: (query: ListWorkspacesQuery = {}): Promise<{ data: WorkspaceRecord[]; next: string | null }> =>
      this.request('GET', '/api/v1/workspaces', { query: { ...query } }),
    /** Every workspace, page after page. */
    all: async function* (this: SwitchyardClient, query: Omit<ListWorkspacesQuery, 'cursor'> = {}): AsyncGenerator<WorkspaceRecord> {
      let cursor: string | undefined;
      do {
        const page = await this.workspaces.list({ ...query, ...(cursor !== undefined && { cursor }) });
        yield* page.data;
        cursor = page.next === null ? undefined : (new URL(page.next).searchParams.get('cursor') ?? undefined);
      } while (cursor !== undefined);
    }.bind(this),
    get: (id: string): Promise<WorkspaceDetail> => this.request('GET', `/api/v1/workspaces/${encodeURIComponent(id)}`),
    update: (id: string, changes: { name?: string; status?: WorkspaceStatus }): Promise<WorkspaceDetail> =>
      this.request('PUT', `/api/v1/workspaces/${encodeURIComponent(id)}`, { body: changes }),
    delete: (id: string): Promise<{ id: string; deleted_at: string; connectors_deleted: number }> =>
      this.request('DELETE', `/api/v1/workspaces/${encodeURIComponent(id)}`),
  };

  readonly skills = {
    list: (query: { limit?: number; cursor?: string } = {}): Promise<{ data: SkillMetadata[]; next_cursor: string | null }> =>
      this.request('GET', '/api/v1/skills', { query }),
    /** The default document of a skill (connector:<type> or the bare type), or one section (e.g. issues.list). */
    docs: (id: string, section?: string): Promise<SkillDocsResponse> => this.request('GET', '/api/v1/skills/docs', { query: { id, section } }),
  };

  /** Untyped execute: any connector, entity and action. */
  execute(connectorId: string, request: ExecuteRequest): Promise<ExecuteResponse> {
    return this.request('POST', `/api/v1/integrations/connectors/${encodeURIComponent(connectorId)}/execute`, { body: request });
  }

  /** Typed access to one connector: params, records and pagination are the generated types of its connector type. */
  connector<T extends ConnectorType>(connectorType: T, connectorId: string): TypedConnector<T> {
    return new TypedConnector(this, connectorType, connectorId);
  }
}

export class TypedConnector<T extends ConnectorType> {
  constructor(
    private readonly client: SwitchyardClient,
    readonly connectorType: T,
    readonly connectorId: string,
  ) {}

  async execute<E extends EntityOf<T>, A extends ActionOf<T, E>>(
    entity: E,
    action: A,
    params?: ParamsOf<T, E, A>,
    options: { select_fields?: string[]; exclude_fields?: string[] } = {},
  ): Promise<TypedResult<DataOf<T, E, A>, Operation<T, E, A>['pagination']>> {
    const response = await this.client.execute(this.connectorId, {
      entity,
      action,
      ...(params !== undefined && { params: params as Record<string, unknown> }),
      ...options,
    });
    const { next_params, ...pagination } = response.connector_metadata as { next_params?: Record<string, unknown> } & Record<string, unknown>;
    return {
      data: response.result as DataOf<T, E, A>,
      pagination: pagination as Partial<Operation<T, E, A>['pagination']>,
      ...(next_params !== undefined && { next_params }),
      connector_id: response.execution_metadata.connector_instance_id,
      execution_time_ms: response.execution_metadata.execution_time_ms,
    };
  }

  /** Every page of a paginated action, following next_params until the last page. */
  async *pages<E extends EntityOf<T>, A extends ActionOf<T, E>>(
    entity: E,
    action: A,
    params?: ParamsOf<T, E, A>,
  ): AsyncGenerator<TypedResult<DataOf<T, E, A>, Operation<T, E, A>['pagination']>> {
    let current = params;
    for (;;) {
      const page = await this.execute(entity, action, current);
      yield page;
      if (page.next_params === undefined) return;
      current = { ...(current as object), ...page.next_params } as ParamsOf<T, E, A>;
    }
  }

  /** Every record of a list-like action across all pages. */
  async *records<E extends EntityOf<T>, A extends ListActionOf<T, E>>(
    entity: E,
    action: A,
    params?: ParamsOf<T, E, A>,
  ): AsyncGenerator<DataOf<T, E, A> extends Array<infer R> ? R : never> {
    for await (const page of this.pages(entity, action, params)) {
      if (!Array.isArray(page.data)) throw new InternalError(`${String(entity)}.${String(action)} did not return a list of records.`);
      yield* page.data as Array<DataOf<T, E, A> extends Array<infer R> ? R : never>;
    }
  }

  /** context_store_search (filter or semantic mode) over the records the service has synchronized. */
  async search<E extends EntityOf<T>>(entity: E, params: Record<string, unknown>): Promise<SearchResult<Partial<RecordOf<T, E>>>> {
    const response = await this.client.execute(this.connectorId, { entity, action: 'context_store_search', params });
    return response.result as SearchResult<Partial<RecordOf<T, E>>>;
  }
}
