/**
 * A stand-in for Intercom's contacts API on 127.0.0.1 (a real HTTP server): cursor-paged list,
 * get, create and delete, recording every request so tests assert exactly what was sent.
 */
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  query: Record<string, string>;
  headers: IncomingMessage['headers'];
  body: unknown;
}

export interface IntercomStandIn {
  url: string;
  requests: RecordedRequest[];
  contacts: Array<Record<string, unknown>>;
  close(): Promise<void>;
}

export function contact(n: number): Record<string, unknown> {
  return {
    type: 'contact',
    id: `c${n}`,
    role: 'user',
    email: `person${n}@example.com`,
    name: `Person ${n}`,
    created_at: 1_700_000_000 + n,
    updated_at: 1_700_000_000 + n,
  };
}

async function readBody(request: IncomingMessage): Promise<unknown> {
  let text = '';
  for await (const chunk of request) text += String(chunk);
  return text === '' ? undefined : JSON.parse(text);
}

export async function startIntercomStandIn(count = 5): Promise<IntercomStandIn> {
  const contacts = Array.from({ length: count }, (_, i) => contact(i + 1));
  const requests: RecordedRequest[] = [];
  const server: Server = createServer((request, response) => {
    void (async () => {
      const url = new URL(request.url ?? '/', 'http://127.0.0.1');
      const body = await readBody(request);
      requests.push({ method: request.method ?? '', path: url.pathname, query: Object.fromEntries(url.searchParams), headers: request.headers, body });
      const send = (status: number, value: unknown) => {
        response.writeHead(status, { 'content-type': 'application/json' });
        response.end(JSON.stringify(value));
      };
      if (request.headers.authorization !== 'Bearer intercom-secret-token')
        return send(401, { type: 'error.list', errors: [{ code: 'unauthorized', message: 'Access Token Invalid' }] });
      const one = /^\/contacts\/([^/]+)$/.exec(url.pathname);
      if (request.method === 'GET' && url.pathname === '/contacts') {
        const perPage = Number(url.searchParams.get('per_page') ?? '50');
        const after = url.searchParams.get('starting_after');
        const start = after === null ? 0 : contacts.findIndex((c) => c.id === after) + 1;
        const page = contacts.slice(start, start + perPage);
        const last = page.at(-1);
        const more = start + perPage < contacts.length && last !== undefined;
        return send(200, {
          type: 'list',
          data: page,
          total_count: contacts.length,
          pages: { type: 'pages', per_page: perPage, ...(more && { next: { per_page: perPage, starting_after: last.id } }) },
        });
      }
      if (request.method === 'GET' && one) {
        const found = contacts.find((c) => c.id === one[1]);
        return found ? send(200, found) : send(404, { type: 'error.list', errors: [{ code: 'not_found', message: 'User Not Found' }] });
      }
      if (request.method === 'POST' && url.pathname === '/contacts') {
        const created = { type: 'contact', id: `c${contacts.length + 1}`, ...(body as Record<string, unknown>) };
        contacts.push(created);
        return send(200, created);
      }
      if (request.method === 'DELETE' && one) {
        const index = contacts.findIndex((c) => c.id === one[1]);
        if (index < 0) return send(404, { type: 'error.list', errors: [{ code: 'not_found', message: 'User Not Found' }] });
        contacts.splice(index, 1);
        return send(200, { type: 'contact', id: one[1], deleted: true });
      }
      return send(404, { type: 'error.list', errors: [{ code: 'not_found', message: `no route ${request.method} ${url.pathname}` }] });
    })();
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    contacts,
    close: () => new Promise<void>((resolve, reject) => server.close((error) => (error ? reject(error) : resolve()))),
  };
}
