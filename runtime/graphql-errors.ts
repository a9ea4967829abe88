import { AuthenticationError, RateLimitedError, UpstreamRejectedError, type SwitchyardError } from './errors.js';
import { parseRetryAfter, type HttpResponse } from './http.js';
import type { Redactor } from './upstream-errors.js';

interface GraphQLErrorShape {
  message?: unknown;
  extensions?: { code?: unknown; type?: unknown };
}

type Kind = 'auth' | 'rate_limited' | 'other';

/** Error codes as vendors spell them (AUTHENTICATION_ERROR, "authentication error", UNAUTHENTICATED...). */
function kindOf(error: GraphQLErrorShape): Kind {
  const code = `${String(error.extensions?.code ?? '')} ${String(error.extensions?.type ?? '')}`.toUpperCase().replace(/[\s-]+/g, '_');
  if (/AUTHENTICATION|UNAUTHENTICATED|FORBIDDEN|UNAUTHORIZED/.test(code)) return 'auth';
  if (/RATE_?LIMIT/.test(code)) return 'rate_limited';
  return 'other';
}

function errorsOf(body: unknown): GraphQLErrorShape[] {
  const errors = (body as { errors?: unknown } | null)?.errors;
  return Array.isArray(errors) ? (errors as GraphQLErrorShape[]) : [];
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** Whether a GraphQL response says the credentials were refused, whatever its HTTP status. */
export function isGraphqlAuthFailure(response: HttpResponse): boolean {
  return errorsOf(parse(response.text)).some((e) => kindOf(e) === 'auth');
}

/**
 * The error a GraphQL response carries, if any. GraphQL APIs report failures in `errors`, often
 * with HTTP 200 or 400, so the error codes decide the class before the HTTP status does.
 */
export function graphqlError(response: HttpResponse, redact: Redactor): SwitchyardError | undefined {
  const errors = errorsOf(parse(response.text));
  if (errors.length === 0) return undefined;
  const message = redact(errors.map((e) => String(e.message ?? 'unknown error')).join('; '));
  const kinds = errors.map(kindOf);
  const upstreamStatus = response.status;
  if (kinds.includes('auth')) return new AuthenticationError(`The vendor refused the credentials: ${message}`, { upstreamStatus });
  if (kinds.includes('rate_limited')) {
    const retryAfter = parseRetryAfter(response.headers.get('retry-after'));
    return new RateLimitedError(`The vendor's rate limit was reached: ${message}`, {
      upstreamStatus,
      retryAfterSeconds: retryAfter === undefined ? undefined : Math.ceil(retryAfter),
    });
  }
  // Without a recognised code a failing HTTP status says more; a 2xx with errors is a rejection.
  if (response.status < 200 || response.status >= 300) return undefined;
  return new UpstreamRejectedError(`The vendor's GraphQL API returned errors: ${message}`, { upstreamStatus });
}
