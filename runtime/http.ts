import { setTimeout as wait } from 'node:timers/promises';
import ky from 'ky';
import { PrivateAddressError, RateLimitedError, SwitchyardError, UpstreamError, UpstreamTimeoutError } from './errors.js';
import { InternalAddressError, pooledFetch, ResponseTooLargeError, TransportTimeoutError } from './transport.js';
import { isInternalHost } from './internal-hosts.js';

export interface HttpOptions {
  /** Per-request timeout. */
  timeoutMs: number;
  /** Extra attempts after the first, for idempotent requests only. */
  retries: number;
  /** First backoff delay; doubles each attempt, with jitter. */
  retryBaseMs: number;
  /** Largest backoff delay. */
  retryMaxMs: number;
  /**
   * Longest time one call waits on Retry-After, all its retries together; a wait that would go past it is
   * returned to the caller at once as RateLimitedError (with the vendor's delay).
   */
  maxRetryAfterMs: number;
  /** Largest response body read; a larger one is abandoned while streaming (UpstreamError, 502). */
  maxResponseBytes: number;
  /** Redirects an idempotent request follows; requests that change data follow none. */
  maxRedirects: number;
}

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  timeoutMs: 30_000,
  retries: 3,
  retryBaseMs: 250,
  retryMaxMs: 8_000,
  maxRetryAfterMs: 60_000,
  maxResponseBytes: 50 * 1024 * 1024,
  maxRedirects: 3,
};

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** Names (lowercase) of the headers whose values come from credentials or tokens: never sent to another origin. */
  credentialHeaders?: readonly string[];
  /** The caller's: aborting it ends the request, and its retries and waits, at once (its reason is thrown). */
  signal?: AbortSignal;
  /** Refuse the request's host if it is localhost or is or resolves to an internal address (a host the connector's configuration writes). */
  publicAddressesOnly?: boolean;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

/** Waits `ms`, or rejects with the signal's reason as soon as it is aborted. */
async function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  try {
    await wait(ms, undefined, signal === undefined ? undefined : { signal });
  } catch (error) {
    throw signal?.aborted ? signal.reason : error;
  }
}

/** Seconds from a Retry-After header (delta-seconds or an HTTP date), if it has a usable value. */
export function parseRetryAfter(value: string | null, now = Date.now()): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  const trimmed = value.trim();
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Number(trimmed);
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return undefined;
  return Math.max(0, (date - now) / 1000);
}

/** Exponential backoff with jitter: between half and all of min(maxMs, baseMs * 2^attempt). */
export function backoffDelay(attempt: number, scale: { baseMs: number; maxMs: number }): number {
  const ceiling = Math.min(scale.maxMs, scale.baseMs * 2 ** attempt);
  return Math.round(ceiling / 2 + Math.random() * (ceiling / 2));
}

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Why a host the connector's configuration writes was not called (HttpRequest.publicAddressesOnly). */
const INTERNAL_REFUSED =
  "an address of this machine or its private network, which this service is set not to call (UPSTREAM_PRIVATE_ADDRESSES=refuse, or the privateAddresses: 'refuse' option): nothing was sent.";

/** The refusal of a host the connector's configuration writes that is, by itself, an internal address (isInternalHost). */
export function configuredHostRefusal(hostname: string): PrivateAddressError {
  return new PrivateAddressError(`The host ${hostname}, which the connector's configuration gives, is ${INTERNAL_REFUSED}`);
}

function megabytes(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MB`;
}

function tooLarge(request: HttpRequest, status: number, maxBytes: number): UpstreamError {
  return new UpstreamError(
    `The vendor's response to ${request.method} ${redactUrl(request.url)} is larger than ${megabytes(maxBytes)}, the most this service reads of one response; ` +
      'ask for smaller pages (a page size or limit param) or raise the cap (UPSTREAM_MAX_RESPONSE_BYTES, or the http.maxResponseBytes option).',
    { upstreamStatus: status },
  );
}

/**
 * One request through ky on the pooled transport, which reads the body whole but never more than the cap;
 * with `publicAddressesOnly`, a host name is connected to only if it resolves to public addresses.
 */
async function sendOnce(request: HttpRequest, options: HttpOptions, publicAddressesOnly: boolean): Promise<HttpResponse> {
  const limits = { maxResponseBytes: options.maxResponseBytes, timeoutMs: options.timeoutMs, publicAddressesOnly };
  let response: Response;
  try {
    response = await ky(request.url, {
      method: request.method,
      headers: request.headers,
      body: request.body,
      // The transport enforces options.timeoutMs (TransportTimeoutError): ky's timeout would wrap each call in a timer and promises of its own.
      timeout: false,
      retry: 0,
      throwHttpErrors: false,
      redirect: 'manual',
      ...(request.signal !== undefined && { signal: request.signal }),
      fetch: (input) => pooledFetch(input as Request, limits),
    });
  } catch (error) {
    if (error instanceof ResponseTooLargeError) throw tooLarge(request, error.status, error.maxBytes);
    throw error;
  }
  if (REDIRECT_STATUSES.has(response.status)) return { status: response.status, headers: response.headers, text: '' };
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Sends a request and handles redirects by rule, not as fetch would:
 * - a request that changes data (not idempotent) is never re-sent: a 3xx is an UpstreamError naming
 *   the host it pointed to (a 307 would otherwise send a create twice);
 * - an idempotent request follows at most options.maxRedirects redirects (http and https only);
 *   once a redirect leaves the request's origin, every header whose value comes from credentials or
 *   tokens (request.credentialHeaders) is dropped from that hop and every later one;
 * - a redirect to localhost or a loopback, private or link-local address is refused, written in the URL
 *   or resolved from a host name (the connection goes to the addresses checked), unless the vendor
 *   itself is at such an address; with request.publicAddressesOnly, so is the vendor's own host;
 * - 303, and 301/302 after a POST, continue as a GET without a body; 307/308 repeat the method and body.
 */
async function sendFollowingRedirects(request: HttpRequest, options: HttpOptions, idempotent: boolean): Promise<HttpResponse> {
  const { origin, hostname: vendorHost } = new URL(request.url);
  const publicOnly = request.publicAddressesOnly === true;
  if (publicOnly && isInternalHost(vendorHost)) throw configuredHostRefusal(vendorHost);
  // Asked only when a redirect leaves the vendor's origin.
  let vendorInternal: boolean | undefined;
  const vendorIsInternal = (): boolean => (vendorInternal ??= !publicOnly && isInternalHost(vendorHost));
  const credentialHeaders = new Set((request.credentialHeaders ?? []).map((name) => name.toLowerCase()));
  let current = request;
  let leftOrigin = false;
  /** The redirect off the vendor's origin that sent the current request, if one did (named if the target resolves to an internal address). */
  let redirectedBy: { said: string; status: number } | undefined;
  for (let hop = 0; ; hop++) {
    let response: HttpResponse;
    try {
      response = await sendOnce(current, options, publicOnly || redirectedBy !== undefined);
    } catch (error) {
      if (!(error instanceof InternalAddressError)) throw error;
      if (redirectedBy === undefined)
        throw new PrivateAddressError(
          `The host ${error.hostname}, which the connector's configuration gives, resolves to ${error.address}, ${INTERNAL_REFUSED}`,
        );
      throw new UpstreamError(`${redirectedBy.said}, which resolves to an address of this machine or its private network (${error.address}): not followed.`, {
        upstreamStatus: redirectedBy.status,
      });
    }
    if (!REDIRECT_STATUSES.has(response.status)) return response;
    const location = response.headers.get('location');
    if (location === null || location.trim() === '') return response;
    let target: URL;
    try {
      target = new URL(location, current.url);
    } catch {
      throw new UpstreamError(`The vendor answered HTTP ${response.status} with a Location that is not a URL.`, { upstreamStatus: response.status });
    }
    const said = `The vendor answered ${current.method} ${redactUrl(current.url)} with HTTP ${response.status}, redirecting to ${target.host}`;
    if (!idempotent) {
      throw new UpstreamError(`${said}. Requests that change data are never re-sent to a redirect target: the request was sent once, and not repeated.`, {
        upstreamStatus: response.status,
      });
    }
    if (target.protocol !== 'https:' && target.protocol !== 'http:') {
      throw new UpstreamError(`${said} over ${target.protocol.replace(/:$/, '')}, which this service does not follow.`, { upstreamStatus: response.status });
    }
    // A vendor's redirect (or an open redirect on its site) must not turn the service into a reader of its
    // own network: an internal address is followed only from a vendor that is itself at one (a test double).
    if (target.origin !== origin && isInternalHost(target.hostname) && !vendorIsInternal()) {
      throw new UpstreamError(`${said}, an address of this machine or its private network, which this service does not follow.`, {
        upstreamStatus: response.status,
      });
    }
    if (hop >= options.maxRedirects) {
      throw new UpstreamError(`${said}, after ${options.maxRedirects} redirects already: the most a request follows.`, { upstreamStatus: response.status });
    }
    leftOrigin ||= target.origin !== origin;
    const headers = { ...current.headers };
    if (leftOrigin) {
      for (const name of Object.keys(headers)) if (credentialHeaders.has(name.toLowerCase())) delete headers[name];
    }
    const asGet = response.status === 303 || ((response.status === 301 || response.status === 302) && current.method === 'POST');
    if (asGet) {
      for (const name of Object.keys(headers)) if (name.toLowerCase() === 'content-type') delete headers[name];
    }
    redirectedBy = target.origin !== origin && !vendorIsInternal() ? { said, status: response.status } : undefined;
    current = {
      method: asGet ? 'GET' : current.method,
      url: target.toString(),
      headers,
      ...(!asGet && current.body !== undefined && { body: current.body }),
      credentialHeaders: request.credentialHeaders,
      ...(request.signal !== undefined && { signal: request.signal }),
    };
  }
}

/**
 * Sends a request. Idempotent requests are retried on 429, 502, 503, 504 and network errors with
 * exponential backoff and jitter, honouring Retry-After up to options.maxRetryAfterMs in all.
 * Non-idempotent requests are sent exactly once. HTTP error statuses are returned, not thrown.
 */
export async function sendRequest(request: HttpRequest, options: HttpOptions, idempotent: boolean): Promise<HttpResponse> {
  const attempts = idempotent ? options.retries + 1 : 1;
  let waitedMs = 0;
  for (let attempt = 0; ; attempt++) {
    const last = attempt === attempts - 1;
    let response: HttpResponse;
    try {
      response = await sendFollowingRedirects(request, options, idempotent);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (error instanceof SwitchyardError) throw error;
      if (error instanceof TransportTimeoutError) {
        if (error.waitingFor === 'connection') {
          throw new UpstreamTimeoutError(
            `No connection to the vendor came free within ${options.timeoutMs} ms: too many calls to ${new URL(request.url).host} are under way at once; the request was not sent (${request.method} ${redactUrl(request.url)}).`,
          );
        }
        throw new UpstreamTimeoutError(`The vendor did not answer within ${options.timeoutMs} ms (${request.method} ${redactUrl(request.url)}).`);
      }
      if (last) {
        throw new UpstreamError(`The vendor could not be reached (${request.method} ${redactUrl(request.url)}): ${networkErrorCode(error)}.`, { cause: error });
      }
      await sleep(backoffDelay(attempt, { baseMs: options.retryBaseMs, maxMs: options.retryMaxMs }), request.signal);
      continue;
    }
    if (!RETRYABLE_STATUSES.has(response.status) || last) return response;
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    if (retryAfter !== undefined) {
      if (waitedMs + retryAfter * 1000 > options.maxRetryAfterMs) {
        const said = `The vendor asked to wait ${Math.ceil(retryAfter)} s before retrying`;
        throw new RateLimitedError(
          waitedMs === 0
            ? `${said}, longer than the ${options.maxRetryAfterMs / 1000} s this client waits.`
            : `${said}, after ${Math.round(waitedMs / 1000)} s of waiting already: more than the ${options.maxRetryAfterMs / 1000} s this client waits in all.`,
          {
            upstreamStatus: response.status,
            retryAfterSeconds: Math.ceil(retryAfter),
          },
        );
      }
      waitedMs += retryAfter * 1000;
      await sleep(retryAfter * 1000, request.signal);
    } else {
      await sleep(backoffDelay(attempt, { baseMs: options.retryBaseMs, maxMs: options.retryMaxMs }), request.signal);
    }
  }
}

/**
 * A network failure named by its code (ECONNREFUSED, ENOTFOUND...). The error's own message is not
 * used: some layers put the request (and so a secret in its body) into it.
 */
export function networkErrorCode(error: unknown): string {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && current !== null && typeof current === 'object'; depth++) {
    const code = (current as { code?: unknown }).code;
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return code;
    current = (current as { cause?: unknown }).cause;
  }
  return 'network error';
}

/** The URL without its query string, which may carry an API key. */
export function redactUrl(url: string): string {
  const index = url.indexOf('?');
  return index === -1 ? url : `${url.slice(0, index)}?…`;
}
