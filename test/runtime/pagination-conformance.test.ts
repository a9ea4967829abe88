import { describe, expect, it } from 'vitest';
import type { ActionDefinition, PaginationDefinition, ParamDefinition } from '../../runtime/definition.js';
import { connectorModules } from '../../runtime/index.js';
import { computeNextParams } from '../../runtime/pagination/next-params.js';
import type { PageView } from '../../runtime/pagination/sources.js';

// One conformance suite for pagination, run for every paginated action of every connector: a first page
// that has a next page, the last page, and a vendor repeating the cursor it was sent (which the context
// store sync detects as "did not advance": the merged params come out unchanged).

const ORIGIN = 'https://api.example.test';

const cases = Object.values(connectorModules).flatMap(({ definition }) =>
  Object.values(definition.entities).flatMap((entity) =>
    Object.values(entity.actions)
      .filter((action): action is ActionDefinition & { pagination: PaginationDefinition } => action.pagination !== undefined)
      .map((action) => ({ name: `${definition.connectorType} ${entity.name}.${action.name} (${action.pagination.style})`, action })),
  ),
);

function setPath(target: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let node = target;
  for (const key of keys.slice(0, -1)) {
    node[key] ??= {};
    node = node[key] as Record<string, unknown>;
  }
  node[keys.at(-1) as string] = value;
}

function put(view: PageView, source: string | undefined, value: unknown): void {
  if (source === undefined || value === undefined) return;
  const [root, ...rest] = source.split('.');
  if (root === 'body') setPath(view.body as Record<string, unknown>, rest.join('.'), value);
  else if (root === 'headers') view.headers.set(rest.join('.'), String(value));
}

/** The declared query param a next URL would carry: a paging-looking one when there is one. */
function pagingParam(action: ActionDefinition): [string, ParamDefinition] {
  const query = Object.entries(action.params).filter(([, p]) => p.in === 'query');
  const found = query.find(([name]) => /cursor|page|offset|after|since|start|token/i.test(name)) ?? query[0];
  if (!found) throw new Error(`${action.name} paginates by next URL but declares no query param`);
  return found;
}

function wireValue(param: ParamDefinition, value: string): string {
  return param.valueTemplate === undefined ? value : param.valueTemplate.replace('{value}', value);
}

interface Page {
  view: PageView;
  recordCount: number;
  lastRecord?: unknown;
}

/** A page of this action's response: with a next page whose marker is `marker`, or the last one. */
function page(action: ActionDefinition & { pagination: PaginationDefinition }, sent: Record<string, unknown>, next: string | undefined): Page {
  const def = action.pagination;
  const view: PageView = { body: {}, headers: new Headers() };
  const shortPage = 'short_page_ends' in def ? def.short_page_ends : undefined;
  const full = shortPage === undefined ? 1 : Number((shortPage.limit_param === undefined ? undefined : sent[shortPage.limit_param]) ?? shortPage.default_limit);
  const more = next !== undefined;
  switch (def.style) {
    case 'next_url': {
      const [, param] = pagingParam(action);
      put(view, def.next_url, more ? `${ORIGIN}${action.path}?${param.wire}=${encodeURIComponent(wireValue(param, next))}` : null);
      return { view, recordCount: more ? full : 0 };
    }
    case 'last_record': {
      const lastRecord = {};
      setPath(lastRecord, def.field, more ? next : null);
      return { view, recordCount: more ? full : 0, lastRecord };
    }
    case 'cursor':
    case 'bookmark':
      put(view, def.next_cursor, more ? next : null);
      put(view, def.has_more, more);
      return { view, recordCount: 1 };
    case 'next_page_token':
      put(view, def.next_token, more ? next : null);
      put(view, def.is_last, !more);
      return { view, recordCount: 1 };
    case 'link_header': {
      const attributes = Object.entries(def.require_attributes ?? {})
        .map(([k, v]) => `; ${k}="${v}"`)
        .join('');
      const wire = action.params[def.cursor_param]?.wire ?? def.cursor_param;
      if (more) view.headers.set('link', `<${ORIGIN}${action.path}?${wire}=${encodeURIComponent(next)}>; rel="${def.rel}"${attributes}`);
      return { view, recordCount: 1 };
    }
    case 'page_number': {
      const current = Number(sent[def.page_param] ?? def.first_page);
      put(view, def.page_count, more ? current + 1 : current - def.first_page + 1);
      put(view, def.has_more, more);
      put(view, def.is_last, !more);
      return { view, recordCount: more || def.page_count !== undefined || def.has_more !== undefined || def.is_last !== undefined ? 1 : 0 };
    }
    case 'offset': {
      const limit = Number(sent[def.limit_param] ?? 2);
      const offset = Number(sent[def.offset_param] ?? 0);
      put(view, def.total, more ? offset + limit * 3 : offset + (def.total === undefined ? 0 : limit));
      return { view, recordCount: more || def.total !== undefined ? limit : 0 };
    }
    case 'graphql_page_info':
      put(view, def.page_info, more ? { hasNextPage: true, endCursor: next } : { hasNextPage: false, endCursor: null });
      return { view, recordCount: 1 };
    case 'next_records_url':
      put(view, def.next_url, more ? `${action.path}?from=${next}` : null);
      put(view, def.done, !more);
      return { view, recordCount: 1 };
  }
}

function nextParams(action: ActionDefinition & { pagination: PaginationDefinition }, sent: Record<string, unknown>, p: Page) {
  return computeNextParams(action.pagination, { action, params: sent, view: p.view, recordCount: p.recordCount, lastRecord: p.lastRecord, baseOrigin: ORIGIN });
}

/** Params of a first call: the limit where a style needs one. */
function firstParams(action: ActionDefinition & { pagination: PaginationDefinition }): Record<string, unknown> {
  const def = action.pagination;
  return def.style === 'offset' ? { [def.limit_param]: 2 } : {};
}

const numericMarker = (action: ActionDefinition & { pagination: PaginationDefinition }) => {
  const def = action.pagination;
  if (def.style === 'last_record') return true;
  if (def.style !== 'next_url') return false;
  const type = pagingParam(action)[1].schema.type;
  return type === 'integer' || type === 'number';
};

describe.each(cases)('pagination conformance: $name', ({ action }) => {
  const marker = numericMarker(action) ? '42' : 'c2';
  const sent = firstParams(action);

  it('two pages: the first hands back params that fetch the second, which is the last', () => {
    const next = nextParams(action, sent, page(action, sent, marker));
    expect(next, 'a page with a next page must produce next params').toBeDefined();
    for (const key of Object.keys(next ?? {})) expect(Object.keys(action.params), `next param ${key} is declared`).toContain(key);
    const second = { ...sent, ...next };
    expect(second).not.toEqual(sent);
    expect(nextParams(action, second, page(action, second, undefined))).toBeUndefined();
  });

  it('last page: no next params', () => {
    expect(nextParams(action, sent, page(action, sent, undefined))).toBeUndefined();
  });

  it('a repeated cursor leaves the params unchanged (the sync stops: "did not advance"), other styles always advance', () => {
    const first = { ...sent, ...nextParams(action, sent, page(action, sent, marker)) };
    const style = action.pagination.style;
    const again = nextParams(action, first, page(action, first, marker));
    if (style === 'page_number' || style === 'offset') expect({ ...first, ...again }).not.toEqual(first);
    else expect({ ...first, ...again }).toEqual(first);
  });
});

it('covers every pagination style some connector uses', () => {
  expect(cases.length).toBeGreaterThan(50);
  expect(new Set(cases.map((c) => c.action.pagination.style)).size).toBeGreaterThanOrEqual(8);
});
