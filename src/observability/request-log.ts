/**
 * How a request appears in the service log. Fastify's own serializer logs the whole URL, and some
 * URLs carry a secret in their query: the connect page's `?token=` (a bearer token for a workspace)
 * and the OAuth callback's `?code=` (exchanged for the end user's credentials).
 */

/** Query parameters whose values are credentials or lead to them; matched case-insensitively. */
const SECRET_QUERY_PARAMETERS = new Set(['token', 'code', 'state', 'access_token', 'refresh_token', 'client_secret', 'secret', 'password', 'api_key', 'key']);

/** The URL with the value of every secret query parameter replaced by `[redacted]`. */
export function redactUrl(url: string): string {
  const queryAt = url.indexOf('?');
  if (queryAt === -1) return url;
  const query = url
    .slice(queryAt + 1)
    .split('&')
    .map((pair) => {
      const equals = pair.indexOf('=');
      const name = equals === -1 ? pair : pair.slice(0, equals);
      if (equals === -1 || !SECRET_QUERY_PARAMETERS.has(decodedName(name).toLowerCase())) return pair;
      return `${name}=[redacted]`;
    });
  return `${url.slice(0, queryAt)}?${query.join('&')}`;
}

function decodedName(name: string): string {
  try {
    return decodeURIComponent(name.replace(/\+/g, ' '));
  } catch {
    return name;
  }
}

interface LoggedRequest {
  method?: string;
  url?: string;
  host?: string;
  ip?: string;
  socket?: { remotePort?: number };
}

/** The request fields a log line holds (Fastify's, with the URL redacted). */
export function requestLogValue(request: LoggedRequest): Record<string, unknown> {
  return {
    method: request.method,
    url: request.url === undefined ? undefined : redactUrl(request.url),
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
