import type { ActionDefinition, PaginationDefinition, ParamDefinition, ShortPage } from '../definition.js';
import { getPath } from '../paths.js';
import { UpstreamError } from '../errors.js';
import { parseLinkHeader } from './link-header.js';
import { readBoolean, readNumber, readSource, readString, readTruthy, type PageView } from './sources.js';

export interface PageContext {
  action: ActionDefinition;
  params: Record<string, unknown>;
  view: PageView;
  recordCount: number;
  /** The last record of the page, for styles that continue from it. */
  lastRecord?: unknown;
  /** Origin of the API, which next-page URLs must stay on. */
  baseOrigin: string;
}

type NextParams = Record<string, unknown> | undefined;

function paramByWire(action: ActionDefinition, wire: string): [string, ParamDefinition] | undefined {
  return Object.entries(action.params).find(([name, p]) => p.in === 'query' && (p.wire === wire || name === wire));
}

/** The plain value of a wire value written through the param's value_template. */
function unwrap(value: string, param: ParamDefinition, key: string): string {
  if (param.valueTemplate === undefined) return value;
  const [before, after] = param.valueTemplate.split('{value}') as [string, string];
  if (!value.startsWith(before) || !value.endsWith(after) || value.length < before.length + after.length) {
    throw new UpstreamError(`The vendor's next-page link carries "${key}" in a form this action does not write.`);
  }
  return value.slice(before.length, value.length - after.length);
}

function coerce(value: string, param: ParamDefinition, key: string): unknown {
  const type = param.schema.type;
  if (value === '') throw new UpstreamError(`The vendor's next-page link carries an empty "${key}"; it was not followed.`);
  if (type === 'integer' || type === 'number') {
    const number = Number(value);
    return Number.isFinite(number) ? number : value;
  }
  if (type === 'boolean') return value === 'true';
  return value;
}

/** The vendor's next-page link as a URL on the API's origin, or an UpstreamError when it is none. */
function linkUrl(raw: string, ctx: PageContext): URL {
  let url: URL;
  try {
    url = new URL(raw, ctx.baseOrigin);
  } catch {
    throw new UpstreamError("The vendor's next-page link is not a URL; it was not followed.");
  }
  sameOrigin(url, ctx);
  return url;
}

function sameOrigin(url: URL, ctx: PageContext): void {
  if (url.origin !== ctx.baseOrigin) {
    throw new UpstreamError(`The vendor's next-page link points to another host (${url.origin}); it was not followed.`);
  }
}

/** The query parameters of a next-page URL, as the action's declared params. */
function paramsFromUrl(rawUrl: string, ctx: PageContext, ignore: string[]): Record<string, unknown> {
  const url = linkUrl(rawUrl, ctx);
  const next: Record<string, unknown> = {};
  for (const [key, value] of url.searchParams) {
    if (ignore.includes(key)) continue;
    const declared = paramByWire(ctx.action, key);
    if (!declared) {
      throw new UpstreamError(`The vendor's next-page link carries the query parameter "${key}", which this action does not declare.`);
    }
    next[declared[0]] = coerce(unwrap(value, declared[1], key), declared[1], key);
  }
  return next;
}

const strategies: { [S in PaginationDefinition['style']]: (def: Extract<PaginationDefinition, { style: S }>, ctx: PageContext) => NextParams } = {
  next_url(def, ctx) {
    const url = readString(def.next_url, ctx.view);
    if (url === undefined || shortPage(def.short_page_ends, ctx)) return undefined;
    const next = paramsFromUrl(url, ctx, def.ignore_query ?? []);
    // A link without paging params would ask for the page just read: followed, it would loop.
    if (Object.keys(next).length === 0) throw new UpstreamError("The vendor's next-page link carries no paging parameter; it was not followed.");
    return next;
  },
  last_record(def, ctx) {
    if (ctx.recordCount === 0 || shortPage(def.short_page_ends, ctx)) return undefined;
    const value = getPath(ctx.lastRecord, def.field);
    if (value === undefined || value === null || value === '') return undefined;
    return { [def.cursor_param]: def.increment !== undefined && typeof value === 'number' ? value + def.increment : value };
  },
  cursor: cursorStrategy,
  bookmark: cursorStrategy,
  next_page_token(def, ctx) {
    const token = readString(def.next_token, ctx.view);
    if (token === undefined || readBoolean(def.is_last, ctx.view) === true) return undefined;
    return { [def.token_param]: token };
  },
  link_header(def, ctx) {
    const link = parseLinkHeader(ctx.view.headers.get('link')).find(
      (l) => l.attributes.rel === def.rel && Object.entries(def.require_attributes ?? {}).every(([k, v]) => l.attributes[k] === v),
    );
    if (!link) return undefined;
    const url = linkUrl(link.url, ctx);
    const declared = ctx.action.params[def.cursor_param];
    const cursor = url.searchParams.get(declared?.wire ?? def.cursor_param);
    return cursor === null ? undefined : { [def.cursor_param]: cursor };
  },
  page_number(def, ctx) {
    const current = Number(ctx.params[def.page_param] ?? def.first_page);
    const pageCount = readNumber(def.page_count, ctx.view);
    const hasMore = readBoolean(def.has_more, ctx.view);
    if (readBoolean(def.is_last, ctx.view) === true) return undefined;
    const more = pageCount !== undefined ? current < pageCount + def.first_page - 1 : hasMore !== undefined ? hasMore : ctx.recordCount > 0;
    return more ? { [def.page_param]: current + 1 } : undefined;
  },
  offset(def, ctx) {
    const offset = Number(ctx.params[def.offset_param] ?? 0);
    const next = offset + ctx.recordCount;
    const total = readNumber(def.total, ctx.view);
    const limit = ctx.params[def.limit_param];
    const more = total !== undefined ? next < total : ctx.recordCount > 0 && (limit === undefined || ctx.recordCount >= Number(limit));
    return more ? { [def.offset_param]: next } : undefined;
  },
  graphql_page_info(def, ctx) {
    const info = readSource(def.page_info, ctx.view) as { hasNextPage?: unknown; endCursor?: unknown } | undefined;
    if (!info || info.hasNextPage !== true || typeof info.endCursor !== 'string') return undefined;
    return { [def.cursor_param]: info.endCursor };
  },
  next_records_url(def, ctx) {
    const url = readString(def.next_url, ctx.view);
    if (url === undefined || readBoolean(def.done, ctx.view) === true) return undefined;
    linkUrl(url, ctx);
    return { [def.url_param]: url };
  },
};

/** Whether the page was shorter than the limit, which ends walks that would otherwise go on. */
function shortPage(rule: ShortPage | undefined, ctx: PageContext): boolean {
  if (rule === undefined) return false;
  const sent = rule.limit_param === undefined ? undefined : ctx.params[rule.limit_param];
  const limit = Number(sent ?? rule.default_limit);
  return ctx.recordCount < limit;
}

function cursorStrategy(def: Extract<PaginationDefinition, { style: 'cursor' | 'bookmark' }>, ctx: PageContext): NextParams {
  const cursor = readString(def.next_cursor, ctx.view);
  if (cursor === undefined) return undefined;
  if (def.has_more !== undefined && !readTruthy(def.has_more, ctx.view)) return undefined;
  return { [def.cursor_param]: cursor };
}

/** The params to merge into the next call, or undefined on the last page. */
export function computeNextParams(def: PaginationDefinition, ctx: PageContext): NextParams {
  const strategy = strategies[def.style] as (d: PaginationDefinition, c: PageContext) => NextParams;
  return strategy(def, ctx);
}

/** The native pagination block: each declared key read from its source, null when absent. */
export function buildBlock(def: PaginationDefinition, view: PageView): Record<string, unknown> {
  const block: Record<string, unknown> = {};
  for (const [key, source] of Object.entries(def.block)) {
    const value = readSource(source, view);
    block[key] = value === undefined ? null : value;
  }
  return block;
}
