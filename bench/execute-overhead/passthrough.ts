/**
 * The reference points of the execute-overhead benchmark: the least a proxy can do. A Node http server
 * that, for every POST, reads the request body, calls the upstream, parses its JSON and answers in
 * execute's response shape. Prints its URL. UPSTREAM_CLIENT chooses how it calls the upstream:
 * - `undici` (default): an undici Pool (keep-alive), the fastest client Node has;
 * - `runtime`: the runtime's HTTP layer and nothing else of the runtime or the service (runtime/http.ts
 *   sendRequest: ky on the pooled node:http transport, with the redirect, size and timeout rules). The
 *   gap between the two is what the HTTP layer alone costs, before any of execute's own work.
 */
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';
import { DEFAULT_HTTP_OPTIONS, sendRequest } from '../../runtime/http.js';

const upstream = process.env.UPSTREAM_URL;
if (upstream === undefined) throw new Error('UPSTREAM_URL is required');
const client = process.env.UPSTREAM_CLIENT ?? 'undici';
if (client !== 'undici' && client !== 'runtime') throw new Error(`UPSTREAM_CLIENT must be undici or runtime, not ${client}`);
const pool = new Pool(upstream, { connections: 64 });
const headers = { accept: 'application/json', authorization: 'Bearer x' };

interface UsersPage {
  users: unknown[];
  links: { next: string | null };
}

async function usersPage(): Promise<UsersPage> {
  if (client === 'runtime') {
    const request = { method: 'GET', url: `${upstream}/v2/users`, headers, credentialHeaders: ['authorization'] };
    return JSON.parse((await sendRequest(request, DEFAULT_HTTP_OPTIONS, true)).text) as UsersPage;
  }
  const { body } = await pool.request({ method: 'GET', path: '/v2/users', headers });
  return (await body.json()) as UsersPage;
}

const server = createServer((request, response) => {
  const started = performance.now();
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    usersPage()
      .then((page) => {
        const text = JSON.stringify({
          status: 'success',
          result: page.users,
          connector_metadata: { next_link: page.links.next },
          execution_metadata: { connector_instance_id: 'passthrough', execution_time_ms: Math.round(performance.now() - started) },
        });
        response.writeHead(200, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
        response.end(text);
      })
      .catch((error: unknown) => {
        response.writeHead(502).end(String(error));
      });
  });
});
server.keepAliveTimeout = 60_000;
server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no address');
  process.stdout.write(`${JSON.stringify({ url: `http://127.0.0.1:${address.port}` })}\n`);
});
