import { describe, expect, it } from 'vitest';
import type { ActionDefinition, PaginationDefinition, ParamDefinition } from '../../runtime/definition.js';
import { UpstreamError } from '../../runtime/errors.js';
import { parseLinkHeader } from '../../runtime/pagination/link-header.js';
import { buildBlock, computeNextParams } from '../../runtime/pagination/next-params.js';

const ORIGIN = 'https://api.example.com';

function query(type: string, wire?: string): ParamDefinition {
  return { in: 'query', wire: wire ?? '', required: false, schema: { type }, sendDefault: false };
}

function action(params: Record<string, ParamDefinition>, pagination: PaginationDefinition): ActionDefinition {
  const named = Object.fromEntries(Object.entries(params).map(([name, p]) => [name, { ...p, wire: p.wire || name }]));
  return {
    name: 'list',
    method: 'GET',
    path: '/things',
    params: named,
    result: 'many',
    pagination,
    guards: [],
    idempotent: true,
    destructive: false,
    readOnly: true,
  };
}

function next(
  def: PaginationDefinition,
  params: Record<string, ParamDefinition>,
  page: { body?: unknown; headers?: Record<string, string>; sent?: Record<string, unknown>; count?: number },
) {
  const view = { body: page.body ?? {}, headers: new Headers(page.headers ?? {}) };
  const result = computeNextParams(def, { action: action(params, def), params: page.sent ?? {}, view, recordCount: page.count ?? 1, baseOrigin: ORIGIN });
  return { next: result, block: buildBlock(def, { ...view, next: result }) };
}

describe('pagination styles', () => {
  it('next_url: query of the next link becomes typed params; markers ignored; unknown keys and other hosts refused', () => {
    const def: PaginationDefinition = { style: 'next_url', next_url: 'body.links.next', ignore_query: ['ref'], block: { next_link: 'body.links.next' } };
    const params = { page: query('integer'), per_page: query('integer') };
    expect(next(def, params, { body: { links: { next: `${ORIGIN}/things?page=3&per_page=50&ref=next` } } }).next).toEqual({ page: 3, per_page: 50 });
    expect(next(def, params, { body: { links: { next: null } } })).toEqual({ next: undefined, block: { next_link: null } });
    expect(() => next(def, params, { body: { links: { next: `${ORIGIN}/things?since=5` } } })).toThrow(/"since", which this action does not declare/);
    expect(() => next(def, params, { body: { links: { next: 'https://evil.example/things?page=2' } } })).toThrow(UpstreamError);
    // A link that would read the same page again (no paging params, or only ignored ones) is refused, not looped on.
    for (const link of ['string', `${ORIGIN}/things`, `${ORIGIN}/things?ref=next`]) {
      expect(() => next(def, params, { body: { links: { next: link } } }), link).toThrow(/carries no paging parameter/);
    }
    // Neither a link that is no URL nor an empty paging value is followed: each is the vendor's error, named.
    for (const link of ['http://127.0.0.1:1:80/things?page=2', 'http://[::1/things?page=2']) {
      expect(() => next(def, params, { body: { links: { next: link } } }), link).toThrow(/next-page link is not a URL/);
    }
    expect(() => next(def, params, { body: { links: { next: `${ORIGIN}/things?page=&per_page=50` } } })).toThrow(/carries an empty "page"/);
  });

  it('cursor: stops when has_more is false even with a cursor', () => {
    const def: PaginationDefinition = {
      style: 'cursor',
      cursor_param: 'start_cursor',
      next_cursor: 'body.next_cursor',
      has_more: 'body.has_more',
      block: { next_cursor: 'body.next_cursor', has_more: 'body.has_more' },
    };
    const params = { start_cursor: query('string') };
    expect(next(def, params, { body: { next_cursor: 'c2', has_more: true } })).toEqual({
      next: { start_cursor: 'c2' },
      block: { next_cursor: 'c2', has_more: true },
    });
    expect(next(def, params, { body: { next_cursor: 'c2', has_more: false } }).next).toBeUndefined();
  });

  it('cursor: has_more may be the presence of a next URL (Graph API paging)', () => {
    const def: PaginationDefinition = {
      style: 'cursor',
      cursor_param: 'after',
      next_cursor: 'body.paging.cursors.after',
      has_more: 'body.paging.next',
      block: { after: 'next.after' },
    };
    const params = { after: query('string') };
    const page = (next?: string) => ({ data: [], paging: { cursors: { before: 'b', after: 'a2' }, ...(next && { next }) } });
    expect(next(def, params, { body: page('https://graph.facebook.com/v21.0/act_1/campaigns?after=a2') })).toEqual({
      next: { after: 'a2' },
      block: { after: 'a2' },
    });
    expect(next(def, params, { body: page() })).toEqual({ next: undefined, block: { after: null } });
  });

  it('bookmark: Pinterest-style bookmark, block key renamed', () => {
    const def: PaginationDefinition = { style: 'bookmark', cursor_param: 'bookmark', next_cursor: 'body.bookmark', block: { cursor: 'body.bookmark' } };
    expect(next(def, { bookmark: query('string') }, { body: { items: [], bookmark: 'b2' } })).toEqual({ next: { bookmark: 'b2' }, block: { cursor: 'b2' } });
    expect(next(def, { bookmark: query('string') }, { body: { bookmark: null } })).toEqual({ next: undefined, block: { cursor: null } });
  });

  it('next_page_token: stops on isLast', () => {
    const def: PaginationDefinition = {
      style: 'next_page_token',
      token_param: 'nextPageToken',
      next_token: 'body.nextPageToken',
      is_last: 'body.isLast',
      block: { nextPageToken: 'body.nextPageToken', isLast: 'body.isLast', total: 'body.total' },
    };
    const params = { nextPageToken: query('string') };
    expect(next(def, params, { body: { nextPageToken: 't2', isLast: false } })).toEqual({
      next: { nextPageToken: 't2' },
      block: { nextPageToken: 't2', isLast: false, total: null },
    });
    expect(next(def, params, { body: { nextPageToken: 't2', isLast: true } }).next).toBeUndefined();
  });

  it('link_header: reads the cursor of rel="next" and honours results="false"', () => {
    const def: PaginationDefinition = {
      style: 'link_header',
      rel: 'next',
      cursor_param: 'cursor',
      require_attributes: { results: 'true' },
      block: { next: 'next.cursor' },
    };
    const params = { cursor: query('string') };
    const more = `<${ORIGIN}/things?cursor=0:0:1>; rel="previous"; results="false"; cursor="0:0:1", <${ORIGIN}/things?cursor=0:100:0>; rel="next"; results="true"; cursor="0:100:0"`;
    expect(next(def, params, { headers: { link: more } })).toEqual({ next: { cursor: '0:100:0' }, block: { next: '0:100:0' } });
    const last = more.replace('results="true"', 'results="false"');
    expect(next(def, params, { headers: { link: last } })).toEqual({ next: undefined, block: { next: null } });
  });

  it('parses Link headers with several attributes', () => {
    expect(parseLinkHeader('<https://a/x?p=2>; rel="next"; results="true", <https://a/x?p=1>; rel=prev')).toEqual([
      { url: 'https://a/x?p=2', attributes: { rel: 'next', results: 'true' } },
      { url: 'https://a/x?p=1', attributes: { rel: 'prev' } },
    ]);
  });

  it('page_number: advances until page_count', () => {
    const def: PaginationDefinition = {
      style: 'page_number',
      page_param: 'page',
      first_page: 1,
      page_count: 'body.page_count',
      block: { total_items: 'body.total_items', page_count: 'body.page_count' },
    };
    const params = { page: query('integer') };
    expect(next(def, params, { body: { total_items: 5, page_count: 3 } })).toEqual({ next: { page: 2 }, block: { total_items: 5, page_count: 3 } });
    expect(next(def, params, { body: { page_count: 3 }, sent: { page: 3 } }).next).toBeUndefined();
  });

  it('page_number: stops on is_last (ClickUp last_page)', () => {
    const def: PaginationDefinition = {
      style: 'page_number',
      page_param: 'page',
      first_page: 0,
      is_last: 'body.last_page',
      block: { page: 'next.page', last_page: 'body.last_page' },
    };
    const params = { page: query('integer') };
    expect(next(def, params, { body: { tasks: [{}], last_page: false }, sent: { page: 0 } })).toEqual({
      next: { page: 1 },
      block: { page: 1, last_page: false },
    });
    expect(next(def, params, { body: { tasks: [{}], last_page: true }, sent: { page: 1 } })).toEqual({
      next: undefined,
      block: { page: null, last_page: true },
    });
  });

  it('offset: advances by the records received until total', () => {
    const def: PaginationDefinition = {
      style: 'offset',
      offset_param: 'startAt',
      limit_param: 'maxResults',
      total: 'body.total',
      block: { total: 'body.total' },
    };
    const params = { startAt: query('integer'), maxResults: query('integer') };
    expect(next(def, params, { body: { total: 5 }, sent: { startAt: 0, maxResults: 2 }, count: 2 }).next).toEqual({ startAt: 2 });
    expect(next(def, params, { body: { total: 5 }, sent: { startAt: 4, maxResults: 2 }, count: 1 }).next).toBeUndefined();
  });

  it('graphql_page_info: endCursor while hasNextPage', () => {
    const def: PaginationDefinition = {
      style: 'graphql_page_info',
      page_info: 'body.data.issues.pageInfo',
      cursor_param: 'after',
      block: { hasNextPage: 'body.data.issues.pageInfo.hasNextPage', endCursor: 'body.data.issues.pageInfo.endCursor' },
    };
    const body = (hasNextPage: boolean) => ({ data: { issues: { pageInfo: { hasNextPage, endCursor: 'e1' } } } });
    expect(next(def, { after: query('string') }, { body: body(true) })).toEqual({ next: { after: 'e1' }, block: { hasNextPage: true, endCursor: 'e1' } });
    expect(next(def, { after: query('string') }, { body: body(false) }).next).toBeUndefined();
  });

  it('next_records_url: hands back the relative URL until done', () => {
    const def: PaginationDefinition = {
      style: 'next_records_url',
      next_url: 'body.nextRecordsUrl',
      url_param: 'next_records_url',
      done: 'body.done',
      block: { done: 'body.done', nextRecordsUrl: 'body.nextRecordsUrl' },
    };
    const params = { next_records_url: query('string') };
    const url = '/services/data/v60.0/query/01gD0000002HU6KIAW-2000';
    expect(next(def, params, { body: { done: false, nextRecordsUrl: url } }).next).toEqual({ next_records_url: url });
    expect(next(def, params, { body: { done: true } })).toEqual({ next: undefined, block: { done: true, nextRecordsUrl: null } });
  });
});

describe('pagination styles added for exports', () => {
  it('next_url with short_page_ends: a page shorter than the limit ends an export that always sends a next URL', () => {
    const def: PaginationDefinition = {
      style: 'next_url',
      next_url: 'body.next_page',
      short_page_ends: { limit_param: 'limit', default_limit: 1000 },
      block: { next_page: 'body.next_page', count: 'body.count' },
    };
    const params = { limit: query('integer'), start_time: query('integer') };
    const body = { next_page: `${ORIGIN}/things?start_time=1700000000`, count: 2 };
    expect(next(def, params, { body, sent: { limit: 2 }, count: 2 }).next).toEqual({ start_time: 1700000000 });
    expect(next(def, params, { body, sent: { limit: 2 }, count: 1 })).toEqual({ next: undefined, block: { next_page: body.next_page, count: 2 } });
    expect(next(def, params, { body, count: 999 }).next).toBeUndefined();
  });

  it('last_record: continues from the last record (Zendesk since_id = last id + 1)', () => {
    const def: PaginationDefinition = {
      style: 'last_record',
      cursor_param: 'since_id',
      field: 'id',
      increment: 1,
      short_page_ends: { limit_param: 'limit', default_limit: 100 },
      block: { since_id: 'next.since_id' },
    };
    const params = { since_id: query('integer'), limit: query('integer') };
    const view = (records: unknown[]) => ({ body: records, headers: new Headers() });
    const run = (records: Array<{ id: number }>, sent: Record<string, unknown>) =>
      computeNextParams(def, {
        action: action(params, def),
        params: sent,
        view: view(records),
        recordCount: records.length,
        lastRecord: records.at(-1),
        baseOrigin: ORIGIN,
      });
    expect(run([{ id: 10 }, { id: 11 }], { limit: 2 })).toEqual({ since_id: 12 });
    expect(run([{ id: 12 }], { limit: 2 })).toBeUndefined();
    expect(run([], {})).toBeUndefined();
  });
});
