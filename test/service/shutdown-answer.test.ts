/**
 * A request that reaches the service once it is stopping (here pipelined on a kept-alive connection behind a
 * slow call) is answered 503 shutting_down in the error envelope, with Retry-After and Connection: close.
 */
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

describe('a request that arrives while the service stops', () => {
  let vendor: Server;
  let service: TestService;
  let tenant: Tenant;
  let connectorId: string;

  beforeAll(async () => {
    vendor = createServer((request, response) => {
      request.resume();
      setTimeout(() => response.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ users: [], links: { next: null } })), 800);
    });
    await new Promise<void>((resolve) => vendor.listen(0, '127.0.0.1', resolve));
    service = await startTestService('pglite', { upstreamBaseUrls: { harvest: `http://127.0.0.1:${(vendor.address() as AddressInfo).port}` } });
    tenant = await createTenant(service);
    const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/connectors?check=false', {
      workspace_name: 'default',
      connector_type: 'harvest',
      name: 'Slow Harvest',
      credentials: { api_token: 'pat', account_id: '1' },
      replication_config: { sync_interval_minutes: 0 },
    });
    connectorId = created.body.id;
  });
  afterAll(async () => {
    await new Promise((resolve) => vendor.close(resolve));
  });

  it('is answered 503 shutting_down in the envelope, while the call in flight completes', async () => {
    const { port } = new URL(service.url);
    const body = JSON.stringify({ entity: 'users', action: 'list', params: {} });
    const slow = `POST /api/v1/integrations/connectors/${connectorId}/execute HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.api.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const next = `GET /api/v1/workspaces HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${tenant.api.token}\r\n\r\n`;
    const received = await new Promise<string>((resolve, reject) => {
      let text = '';
      // The slow call is in flight when the service begins to stop; the next request comes on the same connection.
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(slow);
        setTimeout(() => void service.close(), 200);
        setTimeout(() => socket.write(next), 400);
      });
      socket.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
      socket.on('error', reject);
      socket.on('close', () => resolve(text));
    });
    const responses = received.split(/(?=HTTP\/1\.1 \d{3})/);
    expect(responses[0]).toMatch(/^HTTP\/1\.1 200/);
    const stopping = responses[1] ?? '';
    expect(stopping).toMatch(/^HTTP\/1\.1 503/);
    expect(stopping).toMatch(/\r\nretry-after: 1\r\n/i);
    expect(stopping).toMatch(/\r\nconnection: close\r\n/i);
    const envelope = JSON.parse(stopping.slice(stopping.indexOf('\r\n\r\n') + 4)) as { message: string; errors: Array<{ error_code: string }> };
    expect(envelope.errors[0]?.error_code).toBe('shutting_down');
    expect(envelope.message).toBe('The service is stopping; send the request again (to another process) in a moment.');
  });
});
