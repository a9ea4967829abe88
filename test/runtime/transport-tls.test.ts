/**
 * The pooled transport over HTTPS (runtime/transport.ts), against a real TLS server on 127.0.0.1 with a
 * self-signed test certificate (test/fixtures/tls): certificates are verified, a CA added the platform's
 * way (NODE_EXTRA_CA_CERTS) is trusted, and pooled connections are reused over TLS too.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_HTTP_OPTIONS, sendRequest } from '../../runtime/http.js';
import { UpstreamError } from '../../runtime/errors.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const FIXTURES = path.join(HERE, '..', 'fixtures', 'tls');
const ROOT = path.join(HERE, '..', '..');

describe('HTTPS', () => {
  let server: Server;
  let origin: string;
  const connections: string[] = [];

  beforeAll(async () => {
    server = createServer({ key: readFileSync(path.join(FIXTURES, 'key.pem')), cert: readFileSync(path.join(FIXTURES, 'cert.pem')) }, (request, response) => {
      connections.push(`${request.socket.remotePort}`);
      response.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' }).end(gzipSync('{"users":[{"id":1}]}'));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    origin = `https://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  it('refuses a certificate no trusted authority signed, naming the TLS error', async () => {
    const error = await sendRequest({ method: 'GET', url: `${origin}/v2/users`, headers: {} }, { ...DEFAULT_HTTP_OPTIONS, retries: 0 }, true).catch(
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(UpstreamError);
    expect((error as UpstreamError).message).toMatch(/could not be reached .*: (DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN)\./);
  });

  it('trusts a CA added with NODE_EXTRA_CA_CERTS, decodes the body and reuses the TLS connection', async () => {
    connections.length = 0;
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        ['--import', 'tsx', path.join(HERE, '..', 'support', 'tls-probe.ts'), `${origin}/v2/users`],
        { cwd: ROOT, env: { ...process.env, NODE_EXTRA_CA_CERTS: path.join(FIXTURES, 'cert.pem') }, timeout: 60_000 },
        (error, out, err) => (error ? reject(new Error(`${error.message}\n${err}`)) : resolve(out)),
      );
    });
    expect(JSON.parse(stdout)).toEqual([
      { status: 200, text: '{"users":[{"id":1}]}' },
      { status: 200, text: '{"users":[{"id":1}]}' },
    ]);
    expect(connections).toHaveLength(2);
    expect(new Set(connections).size).toBe(1);
  });
});
