import { AuthenticationError, NotFoundError, RateLimitedError, SwitchyardError, UpstreamError, UpstreamRejectedError } from './errors.js';
import type { ErrorInBody } from './definition.js';
import { parseRetryAfter, type HttpResponse } from './http.js';
import { getPath } from './paths.js';

export type Redactor = (text: string) => string;

const MAX_VENDOR_MESSAGE = 300;

/** A short human message from a vendor error body, if it has one. Secrets are scrubbed by the caller's redactor. */
export function vendorMessage(text: string, redact: Redactor): string | undefined {
  let found: string | undefined;
  try {
    const body: unknown = JSON.parse(text);
    found = pickMessage(body);
  } catch {
    found = text.trim().startsWith('<') ? undefined : text.trim();
  }
  if (!found) return undefined;
  const oneLine = redact(found).replace(/\s+/g, ' ').trim();
  return oneLine.length > MAX_VENDOR_MESSAGE ? `${oneLine.slice(0, MAX_VENDOR_MESSAGE)}…` : oneLine;
}

function pickMessage(body: unknown): string | undefined {
  if (typeof body === 'string') return body;
  if (body === null || typeof body !== 'object') return undefined;
  if (Array.isArray(body)) return body.map(pickMessage).filter(Boolean).join('; ') || undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['message', 'error_description', 'errorMessages', 'errors', 'error', 'detail', 'title']) {
    const value = record[key];
    if (value === undefined || value === null) continue;
    const picked = pickMessage(value);
    if (picked) return picked;
  }
  return undefined;
}

/** The error a 2xx body reports through the connector's error_in_body field, if it reports one. */
export function errorInBody(rule: ErrorInBody, body: unknown, status: number, redact: Redactor): SwitchyardError | undefined {
  const value = getPath(body, rule.path);
  if (value === undefined || rule.success.includes(value as string | number | boolean)) return undefined;
  const said = rule.message === undefined ? undefined : getPath(body, rule.message);
  const detail = `${rule.path} ${JSON.stringify(value)}${typeof said === 'string' && said !== '' ? `: ${redact(said)}` : ''}`;
  const code = value as string | number | boolean;
  if (rule.auth_values?.includes(code)) return new AuthenticationError(`The vendor refused the credentials (${detail})`, { upstreamStatus: status });
  if (rule.rate_limit_values?.includes(code)) return new RateLimitedError(`The vendor's rate limit was reached (${detail})`, { upstreamStatus: status });
  return new UpstreamRejectedError(`The vendor rejected the request (${detail})`, { upstreamStatus: status });
}

/** Maps a non-2xx vendor response to the error hierarchy. */
export function upstreamError(response: HttpResponse, redact: Redactor): SwitchyardError {
  const status = response.status;
  const detail = vendorMessage(response.text, redact);
  const suffix = detail ? `: ${detail}` : '';
  if (status === 401 || status === 403) {
    return new AuthenticationError(`The vendor refused the credentials (HTTP ${status})${suffix}`, { upstreamStatus: status });
  }
  if (status === 404) return new NotFoundError(`The vendor found no such resource (HTTP 404)${suffix}`, { upstreamStatus: status });
  if (status === 429) {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    return new RateLimitedError(`The vendor's rate limit was reached (HTTP 429)${suffix}`, {
      upstreamStatus: status,
      retryAfterSeconds: retryAfter === undefined ? undefined : Math.ceil(retryAfter),
    });
  }
  if (status >= 400 && status < 500) {
    return new UpstreamRejectedError(`The vendor rejected the request (HTTP ${status})${suffix}`, { upstreamStatus: status });
  }
  return new UpstreamError(`The vendor failed to answer (HTTP ${status})${suffix}`, { upstreamStatus: status });
}
