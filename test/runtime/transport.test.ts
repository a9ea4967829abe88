/**
 * The pooled transport under ky (runtime/transport.ts), against real servers on 127.0.0.1: compressed
 * bodies, the cap on decoded bytes, keep-alive reuse, a pooled connection the vendor closed, bodiless
 * statuses and the timeout.
 */
import { createServer as createNetServer, type AddressInfo, type Server as NetServer, type Socket } from 'node:net';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { sendRequest, DEFAULT_HTTP_OPTIONS, type HttpOptions } from '../../runtime/http.js';
import { UpstreamError, UpstreamTimeoutError } from '../../runtime/errors.js';
import { pooledFetch } from '../../runtime/transport.js';

const options: HttpOptions = { ...DEFAULT_HTTP_OPTIONS, retries: 0 };
const closers: Array<() => Promise<void>> = [];

// The transport's own connections are under test: no interception of node:http (another file of this
// worker may have loaded nock, whose pass-through opens a connection per request).
beforeAll(() => nock.restore());
afterAll(() => nock.activate());

afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close()));
});

interface Received {
  method: string;
  headers: IncomingMessage['headers'];
  remotePort: number | undefined;
}

async function serve(handle: (request: IncomingMessage, response: ServerResponse) => void): Promise<{ origin: string; received: Received[] }> {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    received.push({ method: request.method ?? '', headers: request.headers, remotePort: request.socket.remotePort });
    request.resume().on('end', () => handle(request, response));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  closers.push(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, received };
}

const get = (url: string, extra: Partial<HttpOptions> = {}) =>
  sendRequest({ method: 'GET', url, headers: { accept: 'application/json' } }, { ...options, ...extra }, true);

describe('compressed bodies', () => {
  const page = JSON.stringify({ users: Array.from({ length: 200 }, (_, id) => ({ id, name: `user ${id}` })) });
  const encoders: Record<string, (body: string) => Buffer> = {
    gzip: (body) => gzipSync(body),
    deflate: (body) => deflateSync(body),
    br: (body) => brotliCompressSync(body),
  };
  for (const [encoding, encode] of Object.entries(encoders)) {
    it(`asks for gzip, deflate and br, and decodes a ${encoding} body`, async () => {
      const { origin, received } = await serve((_request, response) => {
        response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': encoding }).end(encode(page));
      });
      const answer = await get(`${origin}/v2/users`);
      expect(answer.status).toBe(200);
      expect(answer.text).toBe(page);
      expect(received).toHaveLength(1);
      expect(received[0]?.headers['accept-encoding']).toBe('gzip, deflate, br');
    });
  }

  it('counts decoded bytes against the cap: a small gzip body that expands past it is refused', async () => {
    const bomb = gzipSync(Buffer.alloc(8 * 1024 * 1024, 0x20));
    expect(bomb.byteLength).toBeLessThan(64 * 1024);
    const { origin } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(bomb);
    });
    const error = await get(`${origin}/v2/users`, { maxResponseBytes: 1024 * 1024 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toContain('larger than 1 MB');
  });

  it('names Switchyard as the User-Agent unless the request names one (some APIs refuse requests without)', async () => {
    const { origin, received } = await serve((_request, response) => response.writeHead(200).end('{}'));
    await get(`${origin}/a`);
    await sendRequest({ method: 'GET', url: `${origin}/b`, headers: { 'user-agent': 'Acme/1.0' } }, options, true);
    expect(received.map((seen) => seen.headers['user-agent'])).toEqual(['switchyard', 'Acme/1.0']);
  });

  it('keeps an accept-encoding the request sets', async () => {
    const { origin, received } = await serve((_request, response) => response.writeHead(200).end('plain'));
    const answer = await sendRequest({ method: 'GET', url: `${origin}/x`, headers: { 'accept-encoding': 'identity' } }, options, true);
    expect(answer.text).toBe('plain');
    expect(received[0]?.headers['accept-encoding']).toBe('identity');
  });
});

describe('keep-alive pooling', () => {
  it('sends consecutive requests to one origin on one connection', async () => {
    const { origin, received } = await serve((_request, response) => response.writeHead(200, { 'content-type': 'application/json' }).end('{}'));
    for (let index = 0; index < 5; index++) await get(`${origin}/v2/users`);
    expect(received).toHaveLength(5);
    expect(new Set(received.map((seen) => seen.remotePort)).size).toBe(1);
  });

  /**
   * A raw server that answers the first request of each connection and resets the connection on the
   * second, as a vendor does that closed an idle keep-alive connection while the request was on its way.
   */
  async function resetsReusedConnections(): Promise<{ origin: string; requests: string[] }> {
    const requests: string[] = [];
    const sockets = new Set<Socket>();
    const server: NetServer = createNetServer((socket) => {
      sockets.add(socket);
      let served = 0;
      let buffered = '';
      socket.on('data', (chunk) => {
        buffered += chunk.toString('latin1');
        for (let end = buffered.indexOf('\r\n\r\n'); end >= 0; end = buffered.indexOf('\r\n\r\n')) {
          const head = buffered.slice(0, end);
          const length = Number(/content-length: (\d+)/i.exec(head)?.[1] ?? 0);
          if (buffered.length < end + 4 + length) return;
          buffered = buffered.slice(end + 4 + length);
          requests.push(head.split(' ', 1)[0] ?? '');
          served += 1;
          if (served === 1) {
            socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\nconnection: keep-alive\r\n\r\n{}');
          } else {
            socket.resetAndDestroy();
            return;
          }
        }
      });
      socket.on('close', () => sockets.delete(socket));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    closers.push(
      () =>
        new Promise<void>((resolve) => {
          for (const socket of sockets) socket.destroy();
          server.close(() => resolve());
        }),
    );
    return { origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests };
  }

  it('sends a read again at once on a new connection when a pooled connection was closed by the vendor', async () => {
    const { origin, requests } = await resetsReusedConnections();
    expect((await get(`${origin}/a`)).status).toBe(200);
    expect((await get(`${origin}/a`)).status).toBe(200);
    expect(requests).toEqual(['GET', 'GET', 'GET']);
  });

  it('never sends a write twice when a pooled connection was closed by the vendor', async () => {
    const { origin, requests } = await resetsReusedConnections();
    const post = () =>
      sendRequest({ method: 'POST', url: `${origin}/a`, headers: { 'content-type': 'application/json' }, body: '{"name":"x"}' }, options, false);
    expect((await post()).status).toBe(200);
    const error = await post().catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toContain('ECONNRESET');
    expect(requests).toEqual(['POST', 'POST']);
  });
});

describe('statuses and time', () => {
  it('answers 204 and 304 without a body', async () => {
    const { origin } = await serve((request, response) => response.writeHead(request.url === '/gone' ? 204 : 304).end());
    expect(await get(`${origin}/gone`)).toMatchObject({ status: 204, text: '' });
    expect(await get(`${origin}/same`)).toMatchObject({ status: 304, text: '' });
  });

  it('sends a request body with its length in bytes', async () => {
    const lengths: string[] = [];
    const { origin } = await serve((request, response) => {
      lengths.push(String(request.headers['content-length']));
      response.writeHead(201, { 'content-type': 'application/json' }).end('{"id":1}');
    });
    const body = JSON.stringify({ name: 'é'.repeat(10) });
    const answer = await sendRequest({ method: 'POST', url: `${origin}/items`, headers: { 'content-type': 'application/json' }, body }, options, false);
    expect(answer).toMatchObject({ status: 201, text: '{"id":1}' });
    expect(lengths).toEqual([String(Buffer.byteLength(body))]);
  });

  it('gives up on a vendor that does not answer within the timeout, and closes the request', async () => {
    let closed = false;
    const { origin } = await serve((request) => {
      request.socket.on('close', () => {
        closed = true;
      });
    });
    const error = await get(`${origin}/slow`, { timeoutMs: 150 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    await expect.poll(() => closed).toBe(true);
  });

  it('counts the timeout from the connection: a request queued behind 128 busy ones waits for one unsent, then gives up', async () => {
    const held: ServerResponse[] = [];
    const { origin, received } = await serve((_request, response) => {
      held.push(response);
    });
    // The origin's 128 connections are all busy with calls the vendor holds.
    const busy = Array.from({ length: 128 }, (_, i) => get(`${origin}/busy/${i}`, { timeoutMs: 10_000 }).catch((caught: unknown) => caught));
    await expect.poll(() => received.length).toBe(128);
    const error = (await get(`${origin}/queued`, { timeoutMs: 200 }).catch((caught: unknown) => caught)) as UpstreamTimeoutError;
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect(error.message).toBe(
      `No connection to the vendor came free within 200 ms: too many calls to ${new URL(origin).host} are under way at once; the request was not sent (GET ${origin}/queued).`,
    );
    expect(received).toHaveLength(128);
    for (const response of held) response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    await Promise.all(busy);
  });

  it('counts the body against the timeout: a vendor that sends its headers and then stalls is given up on', async () => {
    let closed = false;
    const { origin } = await serve((request, response) => {
      request.socket.on('close', () => {
        closed = true;
      });
      response.writeHead(200, { 'content-type': 'application/json' });
      response.write('{"users":[');
    });
    const started = performance.now();
    const error = await get(`${origin}/stalled`, { timeoutMs: 200 }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(UpstreamTimeoutError);
    expect((error as UpstreamTimeoutError).message).toContain('within 200 ms');
    expect(performance.now() - started).toBeGreaterThanOrEqual(190);
    await expect.poll(() => closed).toBe(true);
  });
});

describe('the Response handed to ky', () => {
  const limits = { maxResponseBytes: 1024 * 1024, timeoutMs: 5_000 };
  const fetchFrom = async (origin: string) => pooledFetch(new Request(`${origin}/v2/users`), limits);

  it('reads its body once, as text, JSON or bytes, UTF-8 decoded without a leading BOM', async () => {
    const { origin } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"name":"Zoë"}')]));
    });
    const text = await fetchFrom(origin);
    expect(text.bodyUsed).toBe(false);
    expect(await text.text()).toBe('{"name":"Zoë"}');
    expect(text.bodyUsed).toBe(true);
    await expect(text.text()).rejects.toThrow(TypeError);
    expect(() => text.clone()).toThrow(TypeError);
    expect(await (await fetchFrom(origin)).json()).toEqual({ name: 'Zoë' });
    const bytes = new Uint8Array(await (await fetchFrom(origin)).arrayBuffer());
    expect(Buffer.from(bytes).subarray(3).toString('utf8')).toBe('{"name":"Zoë"}');
  });

  it('streams its body and clones as any Response does', async () => {
    const { origin } = await serve((_request, response) => {
      response.writeHead(200, { 'content-type': 'application/json' }).end('{"id":1}');
    });
    const response = await fetchFrom(origin);
    const copy = response.clone();
    expect(copy.status).toBe(200);
    expect(copy.headers.get('content-type')).toBe('application/json');
    const reader = response.body?.getReader();
    const chunks: Uint8Array[] = [];
    for (let read = await reader?.read(); read !== undefined && !read.done; read = await reader?.read()) chunks.push(read.value);
    expect(Buffer.concat(chunks).toString('utf8')).toBe('{"id":1}');
    expect(response.bodyUsed).toBe(true);
    await expect(response.text()).rejects.toThrow(TypeError);
    expect(await copy.text()).toBe('{"id":1}');
    expect(await (await fetchFrom(origin)).blob().then((blob) => blob.text())).toBe('{"id":1}');
  });

  it('has no body for 204', async () => {
    const { origin } = await serve((_request, response) => response.writeHead(204).end());
    const response = await fetchFrom(origin);
    expect(response.body).toBeNull();
    expect(await response.text()).toBe('');
  });
});
