/**
 * The fetch function ky sends vendor requests through: node:http(s) with keep-alive connection pools per
 * upstream origin, instead of the platform fetch. The platform fetch spends most of a call's CPU on
 * WHATWG streams, signals and body mixins (measured with `npm run bench execute-overhead`); this one
 * reads the body into one buffer, capped while it arrives, and hands ky a Response that answers text()
 * and json() from that buffer (no web stream unless a caller reads `body`).
 * Interceptors of node:http (nock, the tests' vendor mocks) see every request.
 *
 * What it keeps of fetch: redirects are returned, never followed (the caller applies its own rules);
 * `accept-encoding: gzip, deflate, br` and a User-Agent are sent unless the caller set them; gzip,
 * deflate and br bodies are decoded (the cap counts decoded bytes, so a compressed bomb stops at the
 * cap); the request's abort signal ends the request.
 *
 * The per-request timeout is enforced here (ky's own timeout is off): ky's costs a promise chain and a
 * timer around every call (about 15 µs of CPU per call, measured on ky with a stub fetch), this one a
 * timer on the request. It spans the whole exchange (headers and body) and a resend on a new connection.
 */
import dns, { type LookupAddress, type LookupOptions } from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import type { LookupFunction } from 'node:net';
import zlib from 'node:zlib';
import { isInternalHost } from './internal-hosts.js';

/** Idle pooled connections are closed after this long: vendors close idle keep-alive connections too, and a request sent on one they closed fails. */
const IDLE_SOCKET_MS = 4_000;
/** Sent when a request names no User-Agent (the platform fetch sent its own; some APIs refuse requests without one). */
const DEFAULT_USER_AGENT = 'switchyard';
/** Concurrent connections to one origin; further requests wait for a free one. */
const MAX_SOCKETS_PER_ORIGIN = 128;

/** Keep-alive pools per protocol (each pools per origin); with `lookup`, every connection's addresses come from it. */
function pools(lookup?: LookupFunction) {
  const options = { keepAlive: true, timeout: IDLE_SOCKET_MS, maxSockets: MAX_SOCKETS_PER_ORIGIN, scheduling: 'lifo' as const, ...(lookup && { lookup }) };
  return { 'http:': new http.Agent(options), 'https:': new https.Agent(options) };
}

const agents = pools();

/** The host name resolved to an address of this machine or its private network, on a connection limited to public addresses: nothing was sent. */
export class InternalAddressError extends Error {
  readonly code = 'EINTERNALADDRESS';
  constructor(
    readonly hostname: string,
    readonly address: string,
  ) {
    super(`${hostname} resolves to ${address}, an address of this machine or its private network.`);
    this.name = 'InternalAddressError';
  }
}

type LookupCallback = (error: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void;

/**
 * dns.lookup, refusing (InternalAddressError) a name any of whose addresses is loopback, private, shared or
 * link-local. The connection goes to the addresses checked here, so a name that answers differently the
 * next time (DNS rebinding) changes nothing.
 */
export const publicAddressLookup = ((hostname: string, options: LookupOptions, callback: LookupCallback) => {
  dns.lookup(hostname, { ...options, all: true }, (error, addresses) => {
    if (error !== null) return callback(error, []);
    const internal = addresses.find((entry) => isInternalHost(entry.address));
    if (internal !== undefined) return callback(new InternalAddressError(hostname, internal.address), []);
    const first = addresses[0];
    if (options.all === true || first === undefined) return callback(null, addresses);
    callback(null, first.address, first.family);
  });
}) as LookupFunction;

/** Pools for connections that may reach public addresses only (a redirect away from the vendor): a socket in them was opened through publicAddressLookup. */
const publicAgents = pools(publicAddressLookup);

/** Errors of requests that failed on a reused connection before any answer. */
const staleFailures = new WeakSet<Error>();

/** Statuses whose Response must have no body. */
const NULL_BODY_STATUSES = new Set([101, 103, 204, 205, 304]);

/** A body that grew past the cap while it arrived: the request was destroyed. */
export class ResponseTooLargeError extends Error {
  constructor(
    readonly status: number,
    readonly maxBytes: number,
  ) {
    super(`The response is larger than ${maxBytes} bytes.`);
    this.name = 'ResponseTooLargeError';
  }
}

/**
 * The vendor did not answer (headers and whole body) within the timeout once the request had a connection
 * (`response`), or no connection of the origin's pool came free within it (`connection`: the request was never
 * sent). Either way the request was destroyed.
 */
export class TransportTimeoutError extends Error {
  constructor(
    readonly timeoutMs: number,
    readonly waitingFor: 'response' | 'connection' = 'response',
  ) {
    super(waitingFor === 'response' ? `No complete response within ${timeoutMs} ms.` : `No connection came free within ${timeoutMs} ms.`);
    this.name = 'TransportTimeoutError';
  }
}

/** Longest timer Node keeps (a longer one would fire at once). */
const MAX_TIMEOUT_MS = 2_147_483_647;

export interface TransportLimits {
  /** Largest body (after decoding) read of one response. */
  maxResponseBytes: number;
  /**
   * Longest wait for the whole response once the request has a connection; a request queued for one of the
   * origin's connections (all busy) waits up to as long again for it, unsent, so a queue does not spend the
   * vendor's time on requests that would time out once sent.
   */
  timeoutMs: number;
  /** Connect only to public addresses of a host name (publicAddressLookup); an IP address in the URL is the caller's to check. */
  publicAddressesOnly?: boolean;
}

function decoder(encoding: string | undefined): zlib.Gunzip | zlib.Inflate | zlib.BrotliDecompress | undefined {
  switch (encoding?.trim().toLowerCase()) {
    case 'gzip':
    case 'x-gzip':
      // Vendors sometimes end gzip streams without the trailer; fetch accepts that too.
      return zlib.createGunzip({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'deflate':
      return zlib.createInflate({ flush: zlib.constants.Z_SYNC_FLUSH, finishFlush: zlib.constants.Z_SYNC_FLUSH });
    case 'br':
      return zlib.createBrotliDecompress({ flush: zlib.constants.BROTLI_OPERATION_FLUSH, finishFlush: zlib.constants.BROTLI_OPERATION_FLUSH });
    default:
      return undefined;
  }
}

/** Decodes bodies as Response.text() does: UTF-8, a leading BOM dropped, malformed bytes replaced. */
const utf8 = new TextDecoder();

/**
 * A Response over a body already read whole. Its body methods answer from the buffer: a Response built
 * over the bytes wraps them in a web stream and text() reads them back through it, which costs more
 * per call than the rest of the response. Reading `body` (a stream) switches to a Response over the same
 * bytes, so streaming readers and clones see the standard behaviour.
 */
class BufferedResponse extends Response {
  readonly #bytes: Buffer<ArrayBuffer> | null;
  readonly #init: ResponseInit;
  #used = false;
  #streamed: Response | undefined;

  constructor(bytes: Buffer<ArrayBuffer> | null, init: ResponseInit) {
    super(null, init);
    this.#bytes = bytes;
    this.#init = init;
  }

  /** The bytes, once; a second read fails as it does on any Response. */
  #take(): Buffer<ArrayBuffer> | null {
    if (this.#used) throw new TypeError('Body is unusable: Body has already been read');
    this.#used = true;
    return this.#bytes;
  }

  /** A Response over the same bytes (already disturbed if they were read), for the stream-based readers. */
  #stream(): Response {
    if (this.#streamed === undefined) {
      this.#streamed = new Response(this.#bytes, this.#init);
      if (this.#used) void this.#streamed.body?.cancel();
    }
    return this.#streamed;
  }

  override get body(): ReadableStream<Uint8Array<ArrayBuffer>> | null {
    return this.#bytes === null ? null : this.#stream().body;
  }

  override get bodyUsed(): boolean {
    return this.#streamed === undefined ? this.#used : this.#streamed.bodyUsed;
  }

  override async text(): Promise<string> {
    if (this.#streamed !== undefined) return this.#streamed.text();
    const bytes = this.#take();
    return bytes === null ? '' : utf8.decode(bytes);
  }

  override async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }

  override async bytes(): Promise<Uint8Array<ArrayBuffer>> {
    if (this.#streamed !== undefined) return this.#streamed.bytes();
    const bytes = this.#take();
    return bytes === null ? new Uint8Array(0) : new Uint8Array(bytes);
  }

  override async arrayBuffer(): Promise<ArrayBuffer> {
    return (await this.bytes()).buffer;
  }

  override async blob(): Promise<Blob> {
    return this.#stream().blob();
  }

  override async formData(): Promise<FormData> {
    return this.#stream().formData();
  }

  override clone(): Response {
    if (this.bodyUsed) throw new TypeError('Response.clone: Body has already been consumed.');
    if (this.#streamed !== undefined) return this.#streamed.clone();
    return new BufferedResponse(this.#bytes, { status: this.status, statusText: this.statusText, headers: new Headers(this.headers) });
  }
}

function responseHeaders(raw: string[]): Headers {
  const headers = new Headers();
  for (let index = 0; index + 1 < raw.length; index += 2) headers.append(raw[index] as string, raw[index + 1] as string);
  return headers;
}

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

/** Sends one request on the origin's pool and resolves with the whole (capped, decoded) response. */
function exchange(
  url: URL,
  method: string,
  headers: Record<string, string>,
  body: Buffer | undefined,
  signal: AbortSignal | null,
  limits: TransportLimits,
): Promise<Response> {
  const agent = (limits.publicAddressesOnly === true ? publicAgents : agents)[url.protocol as keyof typeof agents];
  if (agent === undefined) return Promise.reject(new TypeError(`Unsupported protocol ${url.protocol}`));
  const send = url.protocol === 'https:' ? https.request : http.request;
  return new Promise<Response>((resolve, reject) => {
    let settled = false;
    const fail = (error: unknown) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      signal?.removeEventListener('abort', onAbort);
      request.destroy();
      reject(error);
    };
    const onAbort = () => fail(abortReason(signal as AbortSignal));
    const request = send(url, { method, headers, agent }, (response) => {
      const status = response.statusCode ?? 0;
      // A declared length over the cap fails before a byte is read (decoding never makes a body smaller).
      if (Number(response.headers['content-length']) > limits.maxResponseBytes) {
        fail(new ResponseTooLargeError(status, limits.maxResponseBytes));
        return;
      }
      const decoded = NULL_BODY_STATUSES.has(status) || method === 'HEAD' ? undefined : decoder(response.headers['content-encoding']);
      const source: NodeJS.ReadableStream = decoded === undefined ? response : response.pipe(decoded);
      const chunks: Buffer[] = [];
      let total = 0;
      source.on('data', (chunk: Buffer) => {
        total += chunk.byteLength;
        if (total > limits.maxResponseBytes) {
          decoded?.destroy();
          fail(new ResponseTooLargeError(status, limits.maxResponseBytes));
          return;
        }
        chunks.push(chunk);
      });
      source.on('error', fail);
      response.on('error', fail);
      response.on('aborted', () => fail(Object.assign(new Error('The connection closed before the response ended.'), { code: 'ECONNRESET' })));
      source.on('end', () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
        const nullBody = NULL_BODY_STATUSES.has(status);
        resolve(
          new BufferedResponse(nullBody ? null : Buffer.concat(chunks, total), {
            status,
            statusText: response.statusMessage ?? '',
            headers: responseHeaders(response.rawHeaders),
          }),
        );
      });
    });
    request.on('error', (error: Error) => {
      // A pooled connection the vendor closed while it sat idle fails on its first write.
      if (request.reusedSocket && (error as { code?: unknown }).code === 'ECONNRESET') staleFailures.add(error);
      fail(error);
    });
    // The response's time starts when the request has a connection; until then it waits for one, up to as long.
    let connected = false;
    const timer = setTimeout(
      () => fail(connected ? new TransportTimeoutError(limits.timeoutMs) : new TransportTimeoutError(limits.timeoutMs, 'connection')),
      limits.timeoutMs,
    );
    request.once('socket', () => {
      connected = true;
      if (!settled) timer.refresh();
    });
    if (signal !== null) {
      if (signal.aborted) {
        onAbort();
        return;
      }
      signal.addEventListener('abort', onAbort, { once: true });
    }
    request.end(body);
  });
}

/** Whether a failed request may be sent again at once: it failed on a reused pooled connection the vendor had closed, and its method does not change data. */
function staleConnection(error: unknown, method: string): boolean {
  return (method === 'GET' || method === 'HEAD') && error instanceof Error && staleFailures.has(error);
}

/** A fetch for ky: sends `input` (a Request ky built) on the pooled transport. */
export async function pooledFetch(input: Request, limits: TransportLimits): Promise<Response> {
  // As ky did: a timeout Node cannot keep is refused; zero gives up at once.
  if (limits.timeoutMs > MAX_TIMEOUT_MS) throw new RangeError(`The timeout cannot be greater than ${MAX_TIMEOUT_MS} ms.`);
  const url = new URL(input.url);
  const headers: Record<string, string> = {};
  input.headers.forEach((value, name) => {
    headers[name] = value;
  });
  headers['accept-encoding'] ??= 'gzip, deflate, br';
  headers['user-agent'] ??= DEFAULT_USER_AGENT;
  const body = input.body === null ? undefined : Buffer.from(await input.arrayBuffer());
  if (body !== undefined) headers['content-length'] = String(body.byteLength);
  try {
    return await exchange(url, input.method, headers, body, input.signal, limits);
  } catch (error) {
    if (!staleConnection(error, input.method) || input.signal.aborted) throw error;
    return exchange(url, input.method, headers, body, input.signal, limits);
  }
}
