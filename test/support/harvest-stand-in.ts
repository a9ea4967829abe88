/**
 * A stand-in for the Harvest API v2 on 127.0.0.1 (point UPSTREAM_BASE_URLS' "harvest" at its url), for
 * tests that drive a spawned service where nock cannot reach. The override replaces Harvest's whole
 * base URL (https://api.harvestapp.com/v2), so paths arrive with or without /v2: GET /company (the
 * connector check), GET /users and GET /clients paged by page/per_page as Harvest pages (the next link is the
 * request's own URL with the next page and Harvest's ref marker), clients filtered by updated_since (updated at
 * or after it), and an empty page for any other list the background sync reads; GET /users/{id} and
 * GET /clients/{id} answer the record, or 404 as Harvest does for one that does not exist (503 while `readsFail`). Requests without a bearer
 * token or a Harvest-Account-Id, or with a token of `refusedTokens`, answer 401 as Harvest does; every request is logged with its two credentials
 * headers. `beforeList` runs before a list is answered, to change the upstream in the middle of a walk.
 */
import { createServer, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface HarvestRequest {
  method: string;
  target: string;
  authorization: string | undefined;
  accountId: string | undefined;
}

export interface HarvestClient {
  id: number;
  name: string;
  is_active: boolean;
  currency: string;
  created_at: string;
  updated_at: string;
}

export interface HarvestStandIn {
  url: string;
  users: Record<string, unknown>[];
  /** The clients listed, in their order; replace or edit them between requests. */
  clients: HarvestClient[];
  requests: HarvestRequest[];
  /** Called with the list (`clients`, `users`, …) and its request's URL before the answer is made from the records. */
  beforeList: ((list: string, url: URL) => void) | undefined;
  /** While set, a read of one record answers 503 (Harvest unavailable for it). */
  readsFail: boolean;
  /** Bearer tokens answered 401, as Harvest answers a revoked or mistyped one. */
  refusedTokens: Set<string>;
  close(): Promise<void>;
}

/** ISO 8601 at whole seconds, as Harvest writes it. */
export const harvestTime = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

export const STAND_IN_USERS = [
  { id: 3230547, first_name: 'Jim', last_name: 'Allen', email: 'jimallen@example.com', is_active: true },
  { id: 1782959, first_name: 'Kim', last_name: 'Allen', email: 'kimallen@example.com', is_active: true },
  { id: 1782960, first_name: 'Ann', last_name: 'Lee', email: 'annlee@example.com', is_active: false },
];

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

/** `pageSize`: the most records a page holds whatever per_page asks (Harvest's own cap is 2000). */
export async function startHarvestStandIn(options: { pageSize?: number } = {}): Promise<HarvestStandIn> {
  const requests: HarvestRequest[] = [];
  const users = STAND_IN_USERS.map((user) => ({ ...user }));
  let base = '';
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const authorization = req.headers.authorization;
    const accountId = req.headers['harvest-account-id'] as string | undefined;
    requests.push({ method: req.method ?? '', target: `${url.pathname}${url.search}`, authorization, accountId });
    if (!authorization?.startsWith('Bearer ') || accountId === undefined || standIn.refusedTokens.has(authorization.slice('Bearer '.length))) {
      return send(res, 401, {
        error: 'invalid_token',
        error_description: 'The access token provided is expired, revoked, malformed or invalid for other reasons.',
      });
    }
    if (req.method !== 'GET') return send(res, 404, { error: 'not_found' });
    if (/^(?:\/v2)?\/company$/.test(url.pathname)) {
      return send(res, 200, {
        base_uri: 'https://acme.harvestapp.com',
        full_domain: 'acme.harvestapp.com',
        name: 'Acme',
        is_active: true,
        week_start_day: 'Monday',
      });
    }
    const list = /^(\/v2)?\/([a-z_]+)$/.exec(url.pathname);
    if (list) {
      const key = list[2] as string;
      const prefix = list[1] ?? '';
      standIn.beforeList?.(key, url);
      const since = url.searchParams.get('updated_since');
      const listed: readonly object[] = key === 'users' ? users : key === 'clients' ? standIn.clients : [];
      const updatedAt = (record: object) => Date.parse(String((record as { updated_at?: unknown }).updated_at));
      const records = since === null ? listed : listed.filter((record) => updatedAt(record) >= Date.parse(since));
      const perPage = Math.min(options.pageSize ?? Number.POSITIVE_INFINITY, Number(url.searchParams.get('per_page') ?? '2000'));
      const page = Number(url.searchParams.get('page') ?? '1');
      const totalPages = Math.max(1, Math.ceil(records.length / perPage));
      const nextPage = page < totalPages ? page + 1 : null;
      const link = (p: number) => {
        const target = new URL(`${base}${prefix}/${key}${url.search}`);
        target.searchParams.set('page', String(p));
        if (p > page) target.searchParams.set('ref', 'next');
        return target.toString();
      };
      return send(res, 200, {
        [key]: records.slice((page - 1) * perPage, page * perPage),
        per_page: perPage,
        total_pages: totalPages,
        total_entries: records.length,
        next_page: nextPage,
        previous_page: page > 1 ? page - 1 : null,
        page,
        links: { first: link(1), next: nextPage === null ? null : link(nextPage), previous: page > 1 ? link(page - 1) : null, last: link(totalPages) },
      });
    }
    const one = /^(?:\/v2)?\/(users|clients)\/(\d+)$/.exec(url.pathname);
    if (one) {
      if (standIn.readsFail) return send(res, 503, { error: 'service_unavailable' });
      const listed: readonly { id: unknown }[] = one[1] === 'users' ? users : standIn.clients;
      const record = listed.find((item) => String(item.id) === one[2]);
      return record ? send(res, 200, record) : send(res, 404, { error: 'not_found' });
    }
    return send(res, 404, { error: 'not_found' });
  });
  const standIn: HarvestStandIn = {
    url: '',
    users,
    clients: [],
    requests,
    beforeList: undefined,
    readsFail: false,
    refusedTokens: new Set(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  standIn.url = base;
  return standIn;
}
