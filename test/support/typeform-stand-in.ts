/**
 * A stand-in for the Typeform API on 127.0.0.1 (point UPSTREAM_BASE_URLS / upstreamBaseUrls.typeform at
 * its url): GET /forms pages by page number with page_count, GET /forms/{id}/responses walks with
 * before=<last token> until an empty page, as Typeform does, narrowed by since. The data, page sizes,
 * failures and delays are set by the test; every request is logged.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Rec = Record<string, unknown>;

export interface Failure {
  /** Answers this status this many times (Infinity: always), then serves normally. */
  status: number;
  times: number;
  body?: Rec;
}

export interface StandIn {
  url: string;
  /** Forms in list order. */
  forms: Rec[];
  /** Responses per form id, newest first (the order the walk sees them). */
  responses: Map<string, Rec[]>;
  formsPerPage: number;
  responsesPerPage: number;
  /** Bearer token the stand-in accepts. */
  token: string;
  /** Request paths with their query (e.g. "/forms?page=2&page_size=200"). */
  requests: string[];
  /** Failures by request path+query prefix (the first matching prefix applies). */
  failures: Map<string, Failure>;
  /** Milliseconds to wait before answering a request whose path+query starts with the key. */
  delays: Map<string, number>;
  close(): Promise<void>;
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function matching<T>(map: Map<string, T>, target: string): [string, T] | undefined {
  for (const entry of map) if (target.startsWith(entry[0])) return entry;
  return undefined;
}

export async function startTypeformStandIn(options: { token?: string; formsPerPage?: number; responsesPerPage?: number } = {}): Promise<StandIn> {
  const state: Omit<StandIn, 'url' | 'close'> = {
    forms: [],
    responses: new Map(),
    formsPerPage: options.formsPerPage ?? 2,
    responsesPerPage: options.responsesPerPage ?? 2,
    token: options.token ?? 'tfp_stand_in_token_0001',
    requests: [],
    failures: new Map(),
    delays: new Map(),
  };

  const handle = async (req: IncomingMessage, res: ServerResponse) => {
    const url = new URL(req.url ?? '/', 'http://stand-in');
    const target = `${url.pathname}${url.search}`;
    state.requests.push(target);
    const delay = matching(state.delays, target);
    if (delay) await new Promise((resolve) => setTimeout(resolve, delay[1]));
    if (req.headers.authorization !== `Bearer ${state.token}`)
      return send(res, 401, { code: 'AUTHENTICATION_FAILED', description: 'Authentication credentials not found on the Request Headers' });
    const failure = matching(state.failures, target);
    if (failure && failure[1].times > 0) {
      failure[1].times -= 1;
      return send(res, failure[1].status, failure[1].body ?? { code: 'SERVER_ERROR', description: 'stand-in failure' });
    }
    if (url.pathname === '/forms') {
      const page = Number(url.searchParams.get('page') ?? '1');
      const per = state.formsPerPage;
      const pageCount = Math.max(1, Math.ceil(state.forms.length / per));
      return send(res, 200, { total_items: state.forms.length, page_count: pageCount, items: state.forms.slice((page - 1) * per, page * per) });
    }
    const match = /^\/forms\/([^/]+)\/responses$/.exec(url.pathname);
    if (match) {
      const formId = decodeURIComponent(match[1] as string);
      if (!state.forms.some((f) => f.id === formId)) return send(res, 404, { code: 'FORM_NOT_FOUND', description: 'Non existing form with uid ' + formId });
      // since: responses submitted at or after it (inclusive, to the second), as Typeform documents.
      const since = url.searchParams.get('since');
      const all = (state.responses.get(formId) ?? []).filter((r) => since === null || Date.parse(String(r.submitted_at)) >= Date.parse(since));
      const before = url.searchParams.get('before');
      const start = before === null ? 0 : all.findIndex((r) => r.token === before) + 1;
      const items = start <= 0 && before !== null ? [] : all.slice(start, start + state.responsesPerPage);
      return send(res, 200, { total_items: all.length, page_count: Math.ceil(all.length / state.responsesPerPage), items });
    }
    return send(res, 404, { code: 'NOT_FOUND', description: 'no such route' });
  };

  const server: Server = createServer((req, res) => {
    handle(req, res).catch((error: unknown) => send(res, 500, { description: String(error) }));
  });
  server.keepAliveTimeout = 1000;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return Object.assign(state, {
    url: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  });
}

/** A Typeform form summary as GET /forms lists it. */
export function form(id: string, title: string, extra: Rec = {}): Rec {
  return {
    id,
    type: 'form',
    title,
    last_updated_at: '2024-05-01T10:00:00Z',
    created_at: '2024-04-01T10:00:00Z',
    settings: { is_public: true },
    self: { href: `https://api.typeform.com/forms/${id}` },
    theme: { href: 'https://api.typeform.com/themes/qHWOQ7' },
    _links: { display: `https://acme.typeform.com/to/${id}` },
    ...extra,
  };
}

/** A Typeform response. */
export function response(token: string, text: string, extra: Rec = {}): Rec {
  return {
    token,
    landing_id: token,
    response_id: token,
    response_type: 'completed',
    landed_at: '2024-05-02T09:00:00Z',
    submitted_at: '2024-05-02T09:01:00Z',
    metadata: { platform: 'other', browser: 'default', referer: 'https://acme.typeform.com/to/x' },
    hidden: {},
    answers: [{ field: { id: 'f1', type: 'long_text', ref: 'feedback' }, type: 'text', text }],
    ...extra,
  };
}
