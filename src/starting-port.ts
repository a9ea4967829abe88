/**
 * The service's port while it starts: opened before the store (whose migrations may take minutes on an
 * upgrade), so a liveness probe sees the process up instead of a refused connection (and does not restart it
 * in the middle of a migration). GET /health answers 200 as it always does; GET /ready answers 503 not_ready and
 * every other request 503 starting, in the error envelope with Retry-After, naming the step under way. Closed
 * just before the service listens on the same port.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
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

export async function openStartingPort(host: string, port: number): Promise<StartingPort> {
  let step = 'starting';
  const server = http.createServer((request, response) => {
    const path = (request.url ?? '/').split('?', 1)[0];
    const read = request.method === 'GET' || request.method === 'HEAD';
    if (read && path === '/health') return answer(response, 200, { status: 'ok' });
    const error =
      read && path === '/ready'
        ? new NotReadyError(`Not ready: the service is starting (${step}).`)
        : new StartingError(`The service is starting (${step}); send the request again in a moment.`);
    answer(response, error.status, toEnvelope(error), { 'retry-after': String(error.retryAfterSeconds) });
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
