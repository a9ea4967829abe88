/**
 * How a request appears in the service log. Fastify's own serializer logs the whole URL, and some
 * URLs carry a secret in their query: the connect page's `?token=` (a bearer token for a workspace)
 * and the OAuth callback's `?code=` (exchanged for the end user's credentials).
 */

/** Query parameters whose values are credentials or lead to them; matched case-insensitively. */
const SECRET_QUERY_PARAMETERS = new Set(['token', 'code', 'state', 'access_token', 'refresh_token', 'client_secret', 'secret', 'password', 'api_key', 'key']);

/**
 * The URL with the value of every secret query parameter replaced by `[redacted]`. The query is taken to start
 * at a `?` written percent-encoded too (`/connect%3Ftoken=…` is no query, but carries the token all the same),
 * and a parameter counts under its name without brackets (`token[]`).
 */
export function redactUrl(url: string): string {
  const found = /\?|%3f/i.exec(url);
  if (found === null) return url;
  const queryAt = found.index + found[0].length;
  // Split keeping the separators, so the line shows the URL as it was asked.
  const parts = url
    .slice(queryAt)
    .split(/(&|%26)/i)
    .map((part, index) => {
      if (index % 2 === 1) return part;
      const equals = /=|%3d/i.exec(part);
      if (equals === null) return part;
      const name = part.slice(0, equals.index);
      if (!SECRET_QUERY_PARAMETERS.has(decodedName(name).toLowerCase().replace(/\[.*$/, ''))) return part;
      return `${name}${equals[0]}[redacted]`;
    });
  return `${url.slice(0, queryAt)}${parts.join('')}`;
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

/** Longest URL a log line holds; a longer one is cut (a 12 kB query string made a 12 kB line). */
const MAX_LOGGED_URL = 2_048;

/** The request fields a log line holds (Fastify's, with the URL redacted and cut). */
export function requestLogValue(request: LoggedRequest): Record<string, unknown> {
  const url = request.url === undefined ? undefined : redactUrl(request.url);
  return {
    method: request.method,
    url: url !== undefined && url.length > MAX_LOGGED_URL ? `${url.slice(0, MAX_LOGGED_URL)}…` : url,
    host: request.host,
    remoteAddress: request.ip,
    remotePort: request.socket?.remotePort,
  };
}
