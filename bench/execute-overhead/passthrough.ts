/**
 * The reference point of the execute-overhead benchmark: the least a proxy can do. A Node http server
 * that, for every POST, reads the request body, calls the upstream through an undici Pool (keep-alive),
 * parses its JSON and answers in execute's response shape. Prints its URL.
 */
import { createServer } from 'node:http';
import { performance } from 'node:perf_hooks';
import { Pool } from 'undici';

const upstream = process.env.UPSTREAM_URL;
if (upstream === undefined) throw new Error('UPSTREAM_URL is required');
const pool = new Pool(upstream, { connections: 64 });

const server = createServer((request, response) => {
  const started = performance.now();
  const chunks: Buffer[] = [];
  request.on('data', (chunk: Buffer) => chunks.push(chunk));
  request.on('end', () => {
    JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
    pool
      .request({ method: 'GET', path: '/v2/users', headers: { accept: 'application/json', authorization: 'Bearer x' } })
      .then(async ({ body }) => {
        const page = (await body.json()) as { users: unknown[]; links: { next: string | null } };
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
