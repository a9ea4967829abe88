/**
 * One sync run of one connector: its entities in order (parents first), each walked page by page
 * through the runtime connector (`list`, following next_params), fanned out from parent records as
 * search.fanOut declares, each page upserted in its own short transaction and then reported to the
 * RecordObservers. An entity with a change filter (manifest search.incremental) is walked in full by its
 * first sync and every full_sweep_hours, and otherwise asked only for the records changed since its
 * high-water mark. A complete full walk marks what it did not see as deleted; a complete incremental one
 * moves the mark; a failed one changes nothing beyond the pages it wrote and records the reason.
 */
import type { FastifyBaseLogger } from 'fastify';
import {
  NotFoundError,
  RateLimitedError,
  SwitchyardError,
  UpstreamError,
  UpstreamRejectedError,
  UpstreamTimeoutError,
  type ActionDefinition,
  type Connector,
  type ConnectorDefinition,
  type EntityDefinition,
} from '../../../runtime/index.js';
import { getPath } from '../../../runtime/paths.js';
import type { ServiceContext } from '../../service-context.js';
import type { ConnectorRow } from '../../services/connector-lookup.js';
import type { SyncLock } from './lock.js';
import { listAction, pageSizeParams, requiredDefaults, searchParams, syncAction } from './plan.js';
import { backoffDelay } from '../../../runtime/http.js';
import {
  canonicalJson,
  forgetHashes,
  forgetSeen,
  hasLiveRecords,
  markDeleted,
  preparePage,
  withDerivedFields,
  writePage,
  type PageWrite,
  type PreparedRecord,
  type RecordScope,
} from './records.js';
import { notifyObservers } from './registry.js';
import { completeEntitySync, failEntitySync, incrementalState, noteSyncMode } from './state.js';
import {
  changeFilterOf,
  changeFilterParams,
  changeTime,
  decideMode,
  NewestFirstStop,
  unconfirmedWhy,
  type ChangeFilter,
  type ModeDecision,
} from './incremental.js';
import { observeUpstream } from '../../observability/observer.js';
import { eachParams, rangeParams, timeRanges } from './repeated-lists.js';
import { deletedFeedOf, deletedIds, deletionsSince, feedRangeParams, type DeletedFeed } from './deleted-feed.js';
import { confirmMissedDeletions } from './confirm-deletion.js';
import { RemovedRecords } from './removed.js';
import type { EntityOutcomeStatus, SyncMode } from '../../api-shapes.js';

/** Page-level retries around execute, for transient failures the runtime's own retries did not overcome. */
export interface RetryPolicy {
  /** Extra attempts of a page after the first. */
  retries: number;
  /**
   * Extra attempts of a page the vendor refused as rate limited: more than `retries`, so that the backoff
   * outlasts a per-minute budget (Pylon's 10 issue lists a minute) when the vendor sends no Retry-After.
   */
  rateLimitRetries: number;
  /** First delay; doubles each attempt, with jitter (the runtime's backoff, on a longer scale). */
  baseMs: number;
  maxMs: number;
  /** Longest Retry-After a sync waits for; a longer one fails the sync. */
  maxRetryAfterMs: number;
}

export const DEFAULT_RETRY_POLICY: RetryPolicy = { retries: 3, rateLimitRetries: 8, baseMs: 2_000, maxMs: 60_000, maxRetryAfterMs: 15 * 60_000 };

/** Pages one walk (one parent's list) may take; a vendor that never ends its pagination fails the sync here. */
const MAX_PAGES_PER_WALK = 200_000;

export type SyncPhase = 'queued' | 'running' | 'ready' | 'failed' | 'skipped';

export interface SyncProgress {
  connectorId: string;
  entity: string;
  phase: SyncPhase;
  /** Once the sync has decided: a full walk, or only the changes since the high-water mark. */
  mode?: SyncMode;
  /** Records read so far (with an id). */
  records: number;
  /** Records new, changed or reappeared so far. */
  changed: number;
  pages: number;
  /** Records marked deleted by the final sweep. */
  deleted: number;
  elapsedMs: number;
  reason?: string;
}

export interface EntityOutcome {
  entity: string;
  status: EntityOutcomeStatus;
  /** How the entity was read; absent when the sync stopped before deciding. */
  mode?: SyncMode;
  records: number;
  changed: number;
  /**
   * Records marked deleted: by the final sweep (missed by this full walk and the one before, or by this one
   * and answered 404, or read removed, when asked for by id), named by the entity's deleted feed, or read
   * removed (archived or trashed: search.removed) by this walk.
   */
  deleted: number;
  /** Live records the entity's last complete full walk (this one, if full) missed for the first time: the next full walk, at the next sync, deletes them if it misses them too. */
  unconfirmed: number;
  pages: number;
  /** Live records after the sync. */
  recordCount: number;
  elapsedMs: number;
  reason?: string;
}

/** The outcome of an entity that was not synced at all, and why. */
export function skippedOutcome(entity: string, reason: string): EntityOutcome {
  return { entity, status: 'skipped', records: 0, changed: 0, deleted: 0, unconfirmed: 0, pages: 0, recordCount: 0, elapsedMs: 0, reason };
}

export interface RunEntity {
  name: string;
  lock: SyncLock;
  /** Database time the entity was marked as syncing (the sweep's threshold). */
  startedAt: Date;
  /** Asked to walk in full (every page, then the sweep) even where an incremental sync is due. */
  full?: boolean;
}

export interface RunInput {
  ctx: ServiceContext;
  log: FastifyBaseLogger;
  row: ConnectorRow;
  connector: Connector;
  entities: RunEntity[];
  retry: RetryPolicy;
  signal: AbortSignal;
  onProgress?: (progress: SyncProgress) => void;
}

interface WalkCounts {
  records: number;
  changed: number;
  pages: number;
  started: number;
  mode?: SyncMode;
}

/** Why the run stopped without it being the vendor's fault. */
class StopRun extends Error {}

/** Why a sync stopped whose job may now be another process's (lock.ts). */
export const CLAIM_LOST =
  'stopped: the job may now run in another process (it ran close to SYNC_JOB_TIMEOUT_MINUTES, or the connection that tells the other processes this one is alive dropped)';

/** A parent record as its children need it: the params its list was called with, and the fan-out fields. */
interface ParentRow {
  context: Record<string, unknown>;
  values: Record<string, unknown>;
}

/** How one walk reads an entity: the action, and the change filter for an incremental one. */
interface Walk {
  actionName: 'list' | 'get' | 'api_search';
  action: ActionDefinition;
  decision: ModeDecision;
  now: Date;
  /** For a child that follows its parent's changes: the parents this run read as changed, the only ones whose children are read. */
  changedParents?: ParentRow[];
  /** An incremental walk of an entity with a deleted feed: the feed and where it is read from. */
  deletions?: { feed: DeletedFeed; since: Date };
}

/** Stored parent records read per query when children of an incrementally synced parent are walked. */
const STORED_PARENTS_BATCH = 1000;

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(new StopRun('interrupted: the service is stopping'));
      return;
    }
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new StopRun('interrupted: the service is stopping'));
    };
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

function transient(error: unknown): boolean {
  return error instanceof UpstreamError || error instanceof UpstreamTimeoutError || error instanceof RateLimitedError;
}

function describeContext(context: Record<string, unknown>): string {
  const parts = Object.entries(context).map(([k, v]) => `${k}=${typeof v === 'string' ? v : canonicalJson(v)}`);
  return parts.length > 0 ? `${parts.join(', ')}, ` : '';
}

function message(error: unknown): string {
  if (error instanceof Error) return error.message;
  return String(error);
}

/** A failure while reading one page, with where it happened. */
class PageError extends Error {
  constructor(
    readonly entity: string,
    text: string,
    readonly origin: unknown,
  ) {
    super(text);
  }
}

/** A page whose write is under way (on PostgreSQL on a second connection while the page before it is accounted for). */
interface PageInWrite {
  records: PreparedRecord[];
  context: Record<string, unknown>;
  write: Promise<PageWrite>;
}

/** The latest change time among `records` and `latest`. */
function latestOf(latest: number | undefined, records: PreparedRecord[], filter: ChangeFilter | undefined): number | undefined {
  if (!filter) return latest;
  let result = latest;
  for (const record of records) {
    const changed = changeTime(record.data, filter);
    if (changed !== undefined && (result === undefined || changed > result)) result = changed;
  }
  return result;
}

function sharesRecord(earlier: PreparedRecord[], later: PreparedRecord[]): boolean {
  const ids = new Set(earlier.map((record) => record.recordId));
  return later.some((record) => ids.has(record.recordId));
}

/**
 * A page written while the sync failed on the page before it: its new and changed records reached no
 * observer, so their hashes are cleared and the next sync reports them again.
 */
async function abandonPage(db: ServiceContext['store']['db'], scope: RecordScope, page: PageInWrite): Promise<void> {
  const written = await page.write.catch(() => undefined);
  if (written) await forgetHashes(db, scope, written.changed).catch(() => undefined);
}

/**
 * The items of `source`, asking it for the next one as soon as one is handed out: the next page is
 * fetched while the caller writes this one. When the caller stops early, the source is ended once the
 * read under way settles (its failure is not the caller's any more).
 */
export async function* readAhead<T>(source: AsyncGenerator<T>): AsyncGenerator<T> {
  let next = source.next();
  try {
    for (;;) {
      const result = await next;
      if (result.done) return;
      next = source.next();
      // Observed now: if the caller stops before awaiting it, its failure must not go unhandled.
      next.catch(() => undefined);
      yield result.value;
    }
  } finally {
    void next.then(
      () => source.return(undefined),
      () => undefined,
    );
  }
}

function pick(record: unknown, fields: string[]): Record<string, unknown> {
  const values: Record<string, unknown> = {};
  for (const field of fields) values[field] = getPath(record, field);
  return values;
}

export class ConnectorSync {
  private readonly definition: ConnectorDefinition;
  private readonly memo = new Map<string, ParentRow[]>();
  private readonly failedParents = new Map<string, string>();
  /** Entities this run read incrementally: their memo would hold only the changed records. */
  private readonly incrementallyRead = new Set<string>();
  /** The changed records of entities this run read incrementally, for children that follow their changes (incremental_with_parent). */
  private readonly changedParents = new Map<string, ParentRow[]>();

  constructor(private readonly input: RunInput) {
    this.definition = input.connector.definition;
  }

  private entity(name: string): EntityDefinition {
    const entity = this.definition.entities[name];
    if (!entity) throw new StopRun(`${this.definition.connectorType} has no entity "${name}"`);
    return entity;
  }

  /** The fan-out fields that entities later in this run read from `name`'s records. */
  private fieldsNeededFrom(name: string, later: string[]): string[] {
    const fields = new Set<string>();
    for (const child of later) {
      const fanOut = this.definition.entities[child]?.search.fanOut;
      if (fanOut?.entity === name) fields.add(fanOut.field);
    }
    return [...fields];
  }

  /** One list call with page-level retries for transient failures. */
  private list(
    entity: string,
    actionName: string,
    params: Record<string, unknown>,
    where: string,
  ): Promise<{ data: unknown; next_params?: Record<string, unknown> }> {
    return this.withRetries(entity, where, () => this.input.connector.execute(entity, actionName, params));
  }

  /** One call to the vendor for `entity` (`where` says what it reads), retried on transient failures. */
  private async withRetries<T>(entity: string, where: string, call: () => Promise<T>): Promise<T> {
    const { retry, signal } = this.input;
    for (let attempt = 0; ; attempt += 1) {
      if (signal.aborted) throw new StopRun('interrupted: the service is stopping');
      try {
        return await observeUpstream(this.input.ctx, this.input.row.connector_type, call);
      } catch (error) {
        const allowed = error instanceof RateLimitedError ? retry.rateLimitRetries : retry.retries;
        if (!transient(error) || attempt >= allowed) {
          const attempts = attempt + 1;
          throw new PageError(entity, `Reading ${entity} (${where}) failed${attempts > 1 ? ` after ${attempts} attempts` : ''}: ${message(error)}`, error);
        }
        const retryAfter = error instanceof RateLimitedError && error.retryAfterSeconds !== undefined ? error.retryAfterSeconds * 1000 : undefined;
        if (retryAfter !== undefined && retryAfter > retry.maxRetryAfterMs) {
          throw new PageError(entity, `Reading ${entity} (${where}) failed: ${message(error)}`, error);
        }
        const delay = retryAfter ?? backoffDelay(attempt, retry);
        this.input.log.warn(
          { connector_id: this.input.row.id, entity, attempt: attempt + 1, delay_ms: delay, err: message(error) },
          'sync page failed; retrying',
        );
        await sleep(delay, signal);
      }
    }
  }

  /** A full walk of the entity's list. */
  private fullWalk(name: string, why = 'full walk'): Walk {
    const read = syncAction(this.entity(name));
    return { actionName: read.name, action: read.action, decision: { mode: 'full', why }, now: new Date() };
  }

  /**
   * Every page of `entity`'s list for one parent context (or the whole list for a root entity); an
   * incremental walk calls the change filter's action with the filter added. An entity with a `window` is
   * listed range by range, each to its last page.
   */
  private async *pages(name: string, context: Record<string, unknown>, walk: Walk = this.fullWalk(name)): AsyncGenerator<unknown[]> {
    const { action, decision } = walk;
    const entity = this.entity(name);
    const passed: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(context)) if (key in action.params) passed[key] = value;
    this.requireConfigParams(name, action);
    let base: Record<string, unknown> = { ...requiredDefaults(action), ...pageSizeParams(action), ...searchParams(entity, action), ...passed };
    const filter = changeFilterOf(entity);
    if (decision.mode === 'incremental' && filter && decision.since)
      base = { ...base, ...changeFilterParams(filter, action, decision.since, base, walk.now), ...entity.search.removed?.incrementalParams };
    // The window fills the list's range params; an incremental walk through api_search has its change filter instead.
    const window = walk.actionName === 'list' ? entity.search.window : undefined;
    const parentMayBeGone = entity.search.fanOut !== undefined;
    if (!window) {
      yield* this.pagesFrom(name, base, walk, describeContext(context), parentMayBeGone);
      return;
    }
    for (const [index, range] of timeRanges(window, walk.now).entries()) {
      const where = `${describeContext(context)}${range.from.toISOString()} to ${range.to.toISOString()}, `;
      yield* this.pagesFrom(name, rangeParams(window, range, base), walk, where, parentMayBeGone && index === 0);
    }
  }

  /**
   * The ids of the records the entity's deleted feed lists as deleted from `since` to `now`, or undefined
   * when the vendor refuses the range (an upstream 400, 409 or 422: see walkFullAfterRefusedFeed). Other
   * failures fail the sync, which keeps its mark: the next one asks for the same range again.
   */
  private async deletedFeedIds(name: string, feed: DeletedFeed, since: Date, now: Date): Promise<Set<string> | undefined> {
    try {
      const records = await this.withRetries(name, 'deleted feed', () =>
        this.input.connector.readFeed(feed.path, feedRangeParams(feed, since, now), feed.recordsPath),
      );
      return new Set(deletedIds(records, feed));
    } catch (error) {
      if (!(error instanceof PageError && error.origin instanceof UpstreamRejectedError)) throw error;
      this.input.log.warn({ connector_id: this.input.row.id, entity: name, err: error.message }, 'the deleted feed refused its range; walking in full');
      return undefined;
    }
  }

  /**
   * The params the connector's configuration gives `name`'s list (search.config_params) are sent by the
   * runtime connector; a connector that does not set one cannot list the entity, and is told before any
   * request which replication_config field to set.
   */
  private requireConfigParams(name: string, action: ActionDefinition): void {
    const config: Record<string, string> = this.input.row.config ?? {};
    for (const [param, variable] of Object.entries(this.entity(name).search.configParams ?? {})) {
      if (!(param in action.params)) continue;
      const value = Object.hasOwn(config, variable) ? config[variable] : undefined;
      if (value !== undefined && value !== '') continue;
      const description = this.definition.config[variable]?.description;
      throw new PageError(
        name,
        `Reading ${name} needs ${param} from the connector's configuration, which it does not set: set replication_config.${variable}${description ? ` (${description})` : ''} to sync ${name}.`,
        undefined,
      );
    }
  }

  /** The pages of one listing (one range of a window), from its first params, following next_params to the last. */
  private async *pagesFrom(name: string, first: Record<string, unknown>, walk: Walk, where: string, parentMayBeGone: boolean): AsyncGenerator<unknown[]> {
    const { actionName, decision } = walk;
    const filter = changeFilterOf(this.entity(name));
    // A newest-first list has no filter: the walk stops where the records get older than the mark.
    const stop = decision.mode === 'incremental' && filter?.newestFirst && decision.since ? new NewestFirstStop(filter, decision.since) : undefined;
    let params = first;
    for (let page = 1; ; page += 1) {
      let result;
      try {
        result = await this.list(name, actionName, params, `${where}page ${page}`);
      } catch (error) {
        // A parent removed between its listing and its children's: it has no children any more.
        if (parentMayBeGone && page === 1 && error instanceof PageError && error.origin instanceof NotFoundError) return;
        throw error;
      }
      // A single object's get answers the record itself: it is a list of one.
      const items = Array.isArray(result.data) ? result.data : result.data !== null && typeof result.data === 'object' ? [result.data] : [];
      yield withDerivedFields(items, this.entity(name).search.derived, params);
      if (stop?.reachedOlder(items)) return;
      if (result.next_params === undefined) {
        if (stop && !stop.inOrder)
          this.input.log.warn({ connector_id: this.input.row.id, entity: name }, 'the vendor did not list newest first: the incremental sync read every page');
        return;
      }
      const next = { ...params, ...result.next_params };
      if (canonicalJson(next) === canonicalJson(params)) {
        throw new PageError(name, `Reading ${name} (${where}page ${page}) failed: the vendor's pagination did not advance.`, undefined);
      }
      if (page >= MAX_PAGES_PER_WALK) {
        throw new PageError(name, `Reading ${name} (${where.replace(/, $/, '')}) stopped after ${MAX_PAGES_PER_WALK} pages.`, undefined);
      }
      params = next;
    }
  }

  /**
   * The params to call `name`'s list with: {} for a root entity, else one set per parent record (per
   * record of `only` when given: the changed parents of a child that follows them); with `each`, every
   * set once per value of that param.
   */
  private async *contexts(name: string, only?: ParentRow[]): AsyncGenerator<Record<string, unknown>> {
    const sets = eachParams(this.entity(name));
    for await (const params of this.parentContexts(name, only)) for (const set of sets) yield { ...params, ...set };
  }

  /** The params each parent record gives `name`'s list ({} once for a root entity). */
  private async *parentContexts(name: string, only?: ParentRow[]): AsyncGenerator<Record<string, unknown>> {
    const entity = this.entity(name);
    const fanOut = entity.search.fanOut;
    if (!fanOut) {
      yield {};
      return;
    }
    const declared = listAction(entity).params;
    const failed = this.failedParents.get(fanOut.entity);
    if (failed !== undefined) throw new PageError(name, `${name} is read through ${fanOut.entity}, whose sync failed: ${failed}`, undefined);
    const parents =
      only ??
      this.memo.get(fanOut.entity) ??
      (this.readFromStore(fanOut.entity, name) ? this.storedParents(fanOut.entity, fanOut.field) : this.liveParents(fanOut.entity, [fanOut.field]));
    const seen = new Set<string>();
    for await (const parent of parents) {
      const value = parent.values[fanOut.field];
      if (value === undefined || value === null || value === '') continue;
      const params: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(parent.context)) if (key in declared) params[key] = v;
      params[fanOut.param] = value;
      const key = canonicalJson(params);
      if (seen.has(key)) continue;
      seen.add(key);
      yield params;
    }
  }

  /** Walks a parent entity that this run does not store (or has not stored yet), for its children. */
  private async *liveParents(name: string, fields: string[]): AsyncGenerator<ParentRow> {
    for await (const context of this.contexts(name)) {
      for await (const items of this.pages(name, context)) {
        for (const item of items) yield { context, values: pick(item, fields) };
      }
    }
  }

  /** The params `name`'s list receives from its fan-out chain (what a child may be passed along). */
  private chainParams(name: string, seen: Set<string> = new Set()): Set<string> {
    const entity = this.definition.entities[name];
    const fanOut = entity?.search.fanOut;
    if (!entity || !fanOut || seen.has(name)) return new Set();
    seen.add(name);
    const declared = entity.actions.list?.params ?? {};
    const params = new Set([...this.chainParams(fanOut.entity, seen)].filter((param) => param in declared));
    params.add(fanOut.param);
    return params;
  }

  /**
   * Whether `child` reads `parent`'s records from the store: when this run read the parent incrementally
   * (the store then holds all of them, up to date) and the child's list needs none of the params the
   * parent was listed with (stored records do not keep them), only the fan-out field.
   */
  private readFromStore(parent: string, child: string): boolean {
    if (!this.incrementallyRead.has(parent)) return false;
    const declared = this.definition.entities[child]?.actions.list?.params ?? {};
    return [...this.chainParams(parent)].every((param) => !(param in declared));
  }

  /** The live stored records of a root entity, for its children: the fan-out field of each. */
  private async *storedParents(name: string, field: string): AsyncGenerator<ParentRow> {
    const scope = this.scope(name);
    let after: string | undefined;
    for (;;) {
      let query = this.input.ctx.store.db
        .selectFrom('context_records')
        .select(['record_id', 'data'])
        .where('organization_id', '=', scope.organizationId)
        .where('connector_id', '=', scope.connectorId)
        .where('entity', '=', scope.entity)
        .where('deleted_at', 'is', null)
        .orderBy('record_id')
        .limit(STORED_PARENTS_BATCH);
      if (after !== undefined) query = query.where('record_id', '>', after);
      const rows = await query.execute();
      for (const row of rows) {
        const data: unknown = typeof row.data === 'string' ? JSON.parse(row.data) : row.data;
        yield { context: {}, values: pick(data, [field]) };
      }
      if (rows.length < STORED_PARENTS_BATCH) return;
      after = rows[rows.length - 1]?.record_id;
    }
  }

  /**
   * Full or incremental, from the manifest's change filter and the entity's stored state; for a child that
   * follows its parent's changes, incremental when this run read the parent incrementally.
   */
  private async walkFor(name: string): Promise<Walk> {
    const entity = this.entity(name);
    const filter = changeFilterOf(entity);
    const now = new Date();
    const fanOut = entity.search.fanOut;
    const changedParents = fanOut?.incrementalWithParent ? this.changedParents.get(fanOut.entity) : undefined;
    const state = filter || changedParents ? await incrementalState(this.input.ctx.store.db, this.input.row.id, name) : undefined;
    // Until its own first full walk (a child made syncable after its parent's first sync), every parent's children
    // are read; so are they when its last full walk missed some (a full walk confirms their deletion).
    if (filter === undefined && fanOut && changedParents && state?.lastFullSweepAt) {
      if (state.unconfirmedDeletions > 0) return this.fullWalk(name, unconfirmedWhy(state.unconfirmedDeletions));
      const read = syncAction(entity);
      const why = `only the children of the ${changedParents.length} ${fanOut.entity} that changed`;
      return { actionName: read.name, action: read.action, decision: { mode: 'incremental', why }, now, changedParents };
    }
    const decision = decideMode(filter, state, now);
    if (decision.mode === 'incremental' && filter) {
      const action = entity.actions[filter.action];
      const feed = deletedFeedOf(entity);
      const since = feed && state ? deletionsSince(filter, state) : undefined;
      if (action) return { actionName: filter.action, action, decision, now, ...(feed && since && { deletions: { feed, since } }) };
    }
    const read = syncAction(entity);
    return { actionName: read.name, action: read.action, decision: decision.mode === 'full' ? decision : { mode: 'full', why: 'full walk' }, now };
  }

  /** Syncs every entity of the run in order; never throws (failures become outcomes). */
  async run(): Promise<EntityOutcome[]> {
    const outcomes: EntityOutcome[] = [];
    const { entities } = this.input;
    let stopped: string | undefined;
    for (const [index, item] of entities.entries()) {
      try {
        if (stopped !== undefined) {
          outcomes.push(skippedOutcome(item.name, stopped));
          continue;
        }
        const outcome = await this.syncEntity(
          item,
          entities.slice(index + 1).map((e) => e.name),
        );
        outcomes.push(outcome);
        if (outcome.status === 'skipped') stopped = outcome.reason;
      } catch (error) {
        // A store failure outside the walk (finishing the entity): recorded like any failure, when the store lets us.
        this.input.log.error({ err: error, connector_id: this.input.row.id, entity: item.name }, 'sync failed unexpectedly');
        outcomes.push(
          await this.fail(item, `The sync could not be completed: ${message(error)}`, { records: 0, changed: 0, pages: 0, started: performance.now() }),
        );
      } finally {
        await item.lock.release();
      }
    }
    return outcomes;
  }

  private emit(progress: SyncProgress): void {
    try {
      this.input.onProgress?.(progress);
    } catch {
      // A display failing must not stop the sync.
    }
  }

  private scope(name: string): RecordScope {
    return { organizationId: this.input.row.organization_id, connectorId: this.input.row.id, entity: name };
  }

  private async connectorExists(): Promise<boolean> {
    const row = await this.input.ctx.store.db.selectFrom('connectors').select('id').where('id', '=', this.input.row.id).executeTakeFirst();
    return row !== undefined;
  }

  /**
   * The vendor refused the deleted feed's range (Salesforce answers 400 when its delete log no longer
   * reaches the range's start, purged early for an org with many deletions, or when the range lists more
   * than 600 000 ids): the deletions since the last sync are unknown, and asking again would be refused
   * again until the next full sweep. The changes the incremental walk read are stored; a full walk now
   * finds the deletions (its sweep). The outcome counts both walks.
   */
  private async walkFullAfterRefusedFeed(item: RunEntity, later: string[], counts: WalkCounts): Promise<EntityOutcome> {
    const full = await this.syncEntity(item, later, 'the deleted feed refused its range: a full walk finds the deletions');
    return {
      ...full,
      records: full.records + counts.records,
      changed: full.changed + counts.changed,
      pages: full.pages + counts.pages,
      elapsedMs: performance.now() - counts.started,
    };
  }

  private async syncEntity(item: RunEntity, later: string[], fullWhy?: string): Promise<EntityOutcome> {
    const { ctx, row, signal } = this.input;
    const name = item.name;
    const entity = this.entity(name);
    const scope = this.scope(name);
    const memoFields = this.fieldsNeededFrom(name, later);
    const memo: ParentRow[] | undefined = memoFields.length > 0 ? [] : undefined;
    const walk = fullWhy !== undefined ? this.fullWalk(name, fullWhy) : item.full ? this.fullWalk(name, 'a full walk was asked for') : await this.walkFor(name);
    const mode = walk.decision.mode;
    await noteSyncMode(ctx.store.db, row.id, name, mode);
    const filter = changeFilterOf(entity);
    let latestChange: number | undefined;
    const counts: WalkCounts = { records: 0, changed: 0, pages: 0, started: performance.now(), mode };
    // With a deleted feed: the records this walk read live, which the feed may list as deleted before they came back.
    const readLive = walk.deletions ? new Set<string>() : undefined;
    // Archived or trashed records (search.removed), read by any walk: deleted, not stored.
    const removal = entity.search.removed ? new RemovedRecords(entity.search.removed) : undefined;
    let fedDeleted = 0;
    let removedDeleted = 0;
    let refusedFeed = false;
    const progress = (phase: SyncPhase, extra: Partial<SyncProgress> = {}) =>
      this.emit({
        connectorId: row.id,
        entity: name,
        phase,
        mode,
        records: counts.records,
        changed: counts.changed,
        pages: counts.pages,
        deleted: 0,
        elapsedMs: performance.now() - counts.started,
        ...extra,
      });
    // A full walk notes what it reads for its final sweep; notes left by a sync that stopped with the process
    // go first. With no live record to begin with there is nothing to sweep (every record written is one the
    // walk read), so a first sync writes no notes and runs no sweep.
    const track = mode === 'full' && (await hasLiveRecords(ctx.store.db, scope));
    if (track) await forgetSeen(ctx.store.db, scope);
    // An incremental walk may read records older than the mark minus the overlap (a newest-first list's last
    // page): they did not change, and neither did their children.
    const since = mode === 'incremental' ? walk.decision.since?.getTime() : undefined;
    progress('running');
    this.input.log.info({ connector_id: row.id, entity: name, mode, why: walk.decision.why, since: walk.decision.since?.toISOString() }, 'sync started');
    // A page is accounted for (counts, change times, parents, observers) while the next one is written.
    const account = async (page: PageInWrite) => {
      const written = await page.write;
      counts.pages += 1;
      counts.records += page.records.length;
      counts.changed += written.changed.length;
      if (readLive) for (const record of page.records) readLive.add(record.recordId);
      if (memo) {
        for (const record of page.records) {
          const changed = filter ? changeTime(record.data, filter) : undefined;
          if (changed === undefined || since === undefined || changed >= since) memo.push({ context: page.context, values: pick(record.data, memoFields) });
        }
      }
      try {
        await notifyObservers(ctx, { organizationId: row.organization_id, connectorId: row.id, entity: name, records: written.changed });
      } catch (error) {
        await forgetHashes(ctx.store.db, scope, written.changed);
        throw new PageError(name, `Indexing the records of ${name} failed: ${message(error)}`, error);
      }
      progress('running');
    };
    let writing: PageInWrite | undefined;
    // Accounts for the page under write, if there is one; none is under write afterwards.
    const settle = async () => {
      const page = writing;
      writing = undefined;
      if (page) await account(page);
    };
    try {
      for await (const context of this.contexts(name, walk.changedParents)) {
        // The next page is read while this one is written.
        for await (const items of readAhead(this.pages(name, context, walk))) {
          if (signal.aborted) throw new StopRun('interrupted: the service is stopping');
          if (item.lock.lost) throw new StopRun(CLAIM_LOST);
          const { records: read } = preparePage(items, entity.record);
          // Every record read counts toward the mark, those read removed too (a failed sync stores no mark).
          latestChange = latestOf(latestChange, read, filter);
          const records = removal ? removal.live(read) : read;
          counts.records += read.length - records.length;
          // The later version of a record is written after the earlier one.
          if (writing && sharesRecord(writing.records, records)) await settle();
          const previous = writing;
          writing = { records, context, write: writePage(ctx.store.db, scope, records, { track }) };
          // Awaited by account or abandonPage; a rejection before then is not unhandled.
          writing.write.catch(() => undefined);
          if (previous) {
            try {
              await account(previous);
            } catch (error) {
              // The page written meanwhile follows a failed one: its records reach no observer now.
              await abandonPage(ctx.store.db, scope, writing);
              writing = undefined;
              throw error;
            }
          }
        }
      }
      await settle();
      // Deletions, the feed and the final sweep write too: not once the job may be another process's.
      if (item.lock.lost) throw new StopRun(CLAIM_LOST);
      if (removal) removedDeleted = await markDeleted(ctx.store.db, scope, removal.recordIds);
      if (walk.deletions && readLive) {
        const { feed, since } = walk.deletions;
        const listed = await this.deletedFeedIds(name, feed, since, walk.now);
        if (listed === undefined) refusedFeed = true;
        else
          fedDeleted = await markDeleted(
            ctx.store.db,
            scope,
            [...listed].filter((id) => !readLive.has(id)),
          );
      }
    } catch (error) {
      // Reading the next page failed or the run stopped: the page written last is accounted for as it would have been.
      await settle().catch(() => undefined);
      if (!(await this.connectorExists())) {
        await forgetSeen(ctx.store.db, scope);
        const reason = 'the connector was deleted';
        progress('skipped', { reason });
        return {
          ...skippedOutcome(name, reason),
          mode,
          records: counts.records,
          changed: counts.changed,
          pages: counts.pages,
          elapsedMs: performance.now() - counts.started,
        };
      }
      if (!(error instanceof PageError) && !(error instanceof StopRun) && !(error instanceof SwitchyardError)) {
        this.input.log.error({ err: error, connector_id: row.id, entity: name }, 'sync failed unexpectedly');
      }
      return this.fail(item, message(error), counts);
    }
    if (refusedFeed) return this.walkFullAfterRefusedFeed(item, later, counts);
    if (item.lock.lost) return this.fail(item, CLAIM_LOST, counts);
    const {
      deleted: swept,
      unconfirmed,
      recordCount,
    } = await completeEntitySync(ctx.store.db, scope, {
      mode,
      sweep: track,
      startedAt: item.startedAt,
      pages: counts.pages,
      latestChange: latestChange === undefined ? null : new Date(latestChange),
    });
    const confirm = mode === 'full' && unconfirmed > 0 ? entity.search.confirmDeletion : undefined;
    const confirmed = confirm ? await confirmMissedDeletions(this.input, scope, entity, confirm) : undefined;
    const deleted = swept + fedDeleted + removedDeleted + (confirmed?.deleted ?? 0);
    // In the background: the outcome does not wait for ANALYZE (seconds on a large table); searches do.
    ctx.statistics.noteRowsWrittenLater('context_records', { connectorId: row.id, entity: name, count: counts.changed + deleted }, (error: unknown) =>
      this.input.log.warn({ err: message(error) }, 'could not refresh the statistics of context_records'),
    );
    // An incremental walk saw only the changed records: children read the parents from the store instead.
    if (mode === 'incremental') {
      this.incrementallyRead.add(name);
      if (memo) this.changedParents.set(name, memo);
    } else if (memo) this.memo.set(name, memo);
    const elapsedMs = performance.now() - counts.started;
    progress('ready', { deleted });
    const outcome: EntityOutcome = {
      entity: name,
      status: 'ready',
      mode,
      records: counts.records,
      changed: counts.changed,
      deleted,
      unconfirmed: confirmed?.unconfirmed ?? unconfirmed,
      pages: counts.pages,
      recordCount: confirmed?.recordCount ?? recordCount,
      elapsedMs,
    };
    const { elapsedMs: _elapsed, ...logged } = outcome;
    this.input.log.info({ connector_id: row.id, ...logged, ms: Math.round(elapsedMs) }, 'sync finished');
    return outcome;
  }

  private async fail(item: RunEntity, reason: string, counts: WalkCounts): Promise<EntityOutcome> {
    const { ctx, row } = this.input;
    this.failedParents.set(item.name, reason);
    let recordCount = 0;
    try {
      recordCount = (await failEntitySync(ctx.store.db, this.scope(item.name), reason, counts.pages, item.lock.lost ? item.startedAt : undefined)) ?? 0;
    } catch (error) {
      this.input.log.error({ err: error, connector_id: row.id, entity: item.name }, 'could not record the sync failure');
    }
    const elapsedMs = performance.now() - counts.started;
    this.emit({
      connectorId: row.id,
      entity: item.name,
      phase: 'failed',
      ...(counts.mode !== undefined && { mode: counts.mode }),
      records: counts.records,
      changed: counts.changed,
      pages: counts.pages,
      deleted: 0,
      elapsedMs,
      reason,
    });
    this.input.log.warn({ connector_id: row.id, entity: item.name, reason }, 'sync failed');
    return {
      entity: item.name,
      status: 'failed',
      ...(counts.mode !== undefined && { mode: counts.mode }),
      records: counts.records,
      changed: counts.changed,
      deleted: 0,
      unconfirmed: 0,
      pages: counts.pages,
      recordCount,
      elapsedMs,
      reason,
    };
  }
}
