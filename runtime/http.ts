import ky, { TimeoutError } from 'ky';
import { RateLimitedError, UpstreamError, UpstreamTimeoutError } from './errors.js';

export interface HttpOptions {
  /** Per-request timeout. */
  timeoutMs: number;
  /** Extra attempts after the first, for idempotent requests only. */
  retries: number;
  /** First backoff delay; doubles each attempt, with jitter. */
  retryBaseMs: number;
  /** Largest backoff delay. */
  retryMaxMs: number;
  /** Longest Retry-After the runtime waits for; a longer one is returned to the caller as RateLimitedError. */
  maxRetryAfterMs: number;
}

export const DEFAULT_HTTP_OPTIONS: HttpOptions = {
  timeoutMs: 30_000,
  retries: 3,
  retryBaseMs: 250,
  retryMaxMs: 8_000,
  maxRetryAfterMs: 60_000,
};

export interface HttpRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body?: string;
}

export interface HttpResponse {
  status: number;
  headers: Headers;
  text: string;
}

const RETRYABLE_STATUSES = new Set([429, 502, 503, 504]);

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

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

async function sendOnce(request: HttpRequest, options: HttpOptions): Promise<HttpResponse> {
  const response = await ky(request.url, {
    method: request.method,
    headers: request.headers,
    body: request.body,
    timeout: options.timeoutMs,
    retry: 0,
    throwHttpErrors: false,
    redirect: 'follow',
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/**
 * Sends a request. Idempotent requests are retried on 429, 502, 503, 504 and network errors with
 * exponential backoff and jitter, honouring Retry-After up to options.maxRetryAfterMs.
 * Non-idempotent requests are sent exactly once. HTTP error statuses are returned, not thrown.
 */
export async function sendRequest(request: HttpRequest, options: HttpOptions, idempotent: boolean): Promise<HttpResponse> {
  const attempts = idempotent ? options.retries + 1 : 1;
  for (let attempt = 0; ; attempt++) {
    const last = attempt === attempts - 1;
    let response: HttpResponse;
    try {
      response = await sendOnce(request, options);
    } catch (error) {
      if (error instanceof TimeoutError) {
        throw new UpstreamTimeoutError(`The vendor did not answer within ${options.timeoutMs} ms (${request.method} ${redactUrl(request.url)}).`);
      }
      if (last) {
        throw new UpstreamError(`The vendor could not be reached (${request.method} ${redactUrl(request.url)}): ${networkErrorCode(error)}.`, { cause: error });
      }
      await sleep(backoffDelay(attempt, { baseMs: options.retryBaseMs, maxMs: options.retryMaxMs }));
      continue;
    }
    if (!RETRYABLE_STATUSES.has(response.status) || last) return response;
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    if (retryAfter !== undefined) {
      if (retryAfter * 1000 > options.maxRetryAfterMs) {
        throw new RateLimitedError(`The vendor asked to wait ${Math.ceil(retryAfter)} s before retrying, longer than the ${options.maxRetryAfterMs / 1000} s this client waits.`, {
          upstreamStatus: response.status,
          retryAfterSeconds: Math.ceil(retryAfter),
        });
      }
      await sleep(retryAfter * 1000);
    } else {
      await sleep(backoffDelay(attempt, { baseMs: options.retryBaseMs, maxMs: options.retryMaxMs }));
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
