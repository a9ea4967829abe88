/**
 * The service's port while it starts: opened before the store (whose migrations may take minutes on an
 * upgrade), so a liveness probe sees the process up instead of a refused connection (and does not restart it
 * in the middle of a migration). GET /health answers 200 as it always does; GET /ready answers 503 not_ready and
 * every other request 503 starting, in the error envelope with Retry-After, naming the step under way; a page of
 * an origin CORS_ORIGINS lists gets the service's CORS headers, so it can read that answer. Closed just before the
 * service listens on the same port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceConfig } from './config.js';
import { allowedOrigin, CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_METHODS } from './cors-policy.js';
import { NotReadyError, StartingError, toEnvelope } from './errors.js';

export interface StartingPort {
  /** The port it listens on (the one asked for, or the one the system chose for port 0). */
  readonly port: number;
  /** What the service is doing now, told to every request: "opening the store", "applying store migration 11"… */
  step(text: string): void;
  close(): Promise<void>;
}

function answer(response: http.ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': String(Buffer.byteLength(text)),
    'cache-control': 'no-store',
    // The connection ends with this answer: the service that follows listens on a new server.
    connection: 'close',
    ...headers,
  });
  response.end(text);
}

/** The CORS headers the service would send a request from `origin` (none for an origin CORS_ORIGINS does not list). */
function corsHeaders(origins: ServiceConfig['corsOrigins'], request: http.IncomingMessage): Record<string, string> {
  const allowed = allowedOrigin(origins, request.headers.origin);
  if (allowed === undefined) return {};
  return { 'access-control-allow-origin': allowed, ...(allowed !== '*' && { vary: 'Origin' }) };
}

export async function openStartingPort(host: string, port: number, options: { corsOrigins?: ServiceConfig['corsOrigins'] } = {}): Promise<StartingPort> {
  let step = 'starting';
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    const read = request.method === 'GET' || request.method === 'HEAD';
    const cors = corsHeaders(options.corsOrigins, request);
    // A browser's preflight gets the service's answer, so the page's call itself comes and reads the 503 below.
    if (request.method === 'OPTIONS' && cors['access-control-allow-origin'] !== undefined && request.headers['access-control-request-method'] !== undefined) {
      response.writeHead(204, {
        ...cors,
        'access-control-allow-methods': CORS_METHODS.join(', '),
        'access-control-allow-headers': CORS_ALLOWED_HEADERS.join(', '),
        'access-control-max-age': String(CORS_MAX_AGE_SECONDS),
        'content-length': '0',
        connection: 'close',
      });
      response.end();
      return;
    }
    if (cors['access-control-allow-origin'] !== undefined) cors['access-control-expose-headers'] = CORS_EXPOSED_HEADERS.join(', ');
    if (read && path === '/health') return answer(response, 200, { status: 'ok' }, cors);
    const error =
      read && path === '/ready'
        ? new NotReadyError(`Not ready: the service is starting (${step}).`)
        : new StartingError(`The service is starting (${step}); send the request again in a moment.`);
    answer(response, error.status, toEnvelope(error), { ...cors, 'retry-after': String(error.retryAfterSeconds) });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  return {
    port: (server.address() as AddressInfo).port,
    step(text) {
      step = text;
    },
    close() {
      if (!server.listening) return Promise.resolve();
      return new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
