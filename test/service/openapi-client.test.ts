/**
 * A client generated from the served description works as is: openapi-typescript turns
 * GET /api/v1/openapi.json (fetched without a token) into types, a small openapi-fetch program using
 * them type-checks under `tsc --strict`, and it runs against the service.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import openapiTS, { astToString } from 'openapi-typescript';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createOrganization } from '../../src/services/organizations.js';
import { startTestService, type TestService } from '../support/service.js';
import { REPO_ROOT } from '../support/spawn-service.js';

// Asynchronous: the service under test answers from this process's event loop.
const run = promisify(execFile);

const PROGRAM = `
import createClient from 'openapi-fetch';
import type { paths } from './api.js';

const api = createClient<paths>({ baseUrl: process.env.BASE_URL });
const token = await api.POST('/api/v1/account/applications/token', {
  body: { client_id: process.env.CLIENT_ID ?? '', client_secret: process.env.CLIENT_SECRET ?? '' },
});
if (token.data === undefined) throw new Error('no token');
const accessToken: string = token.data.access_token;
const headers = { authorization: \`Bearer \${accessToken}\` };
const workspaces = await api.GET('/api/v1/workspaces', { headers });
const sources = await api.GET('/api/v1/integrations/definitions/sources', { headers });
const missing = await api.GET('/api/v1/integrations/connectors/{id}', { headers, params: { path: { id: '00000000-0000-4000-8000-000000000000' } } });
const ready = await api.GET('/ready');
console.log(JSON.stringify({
  organization: token.data.organization_id,
  workspaces: workspaces.response.status,
  sources: sources.response.status,
  missing: missing.response.status,
  missingCode: missing.error?.errors[0]?.error_code,
  ready: ready.data?.status,
}));
`;

describe('a client generated from the OpenAPI description', () => {
  let service: TestService;
  let dir: string;

  beforeAll(async () => {
    service = await startTestService('pglite');
    // Inside the repository, so the program resolves openapi-fetch from its node_modules.
    dir = mkdtempSync(path.join(REPO_ROOT, 'test', '.generated-client-'));
  });
  afterAll(async () => {
    await service.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is generated from the served description, type-checks strictly and calls the running service', { timeout: 120_000 }, async () => {
    const served = await fetch(`${service.url}/api/v1/openapi.json`);
    expect(served.status).toBe(200);
    const document = (await served.json()) as { servers: Array<{ url: string }> };
    expect(document.servers[0]?.url).toBe(service.url);

    const types = astToString(await openapiTS(document as never));
    writeFileSync(path.join(dir, 'api.ts'), types);
    writeFileSync(path.join(dir, 'client.ts'), PROGRAM);
    writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: ['node'],
        },
        files: ['client.ts'],
      }),
    );
    await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', dir], { cwd: dir });

    const { organization_id } = await createOrganization(service.store.db, 'Generated');
    const client = await createClient(service.store.db, [organization_id]);
    const { stdout: output } = await run(process.execPath, ['--import', 'tsx', path.join(dir, 'client.ts')], {
      cwd: REPO_ROOT,
      env: { ...process.env, BASE_URL: document.servers[0]?.url, CLIENT_ID: client.client_id, CLIENT_SECRET: client.client_secret },
    });
    expect(JSON.parse(output)).toEqual({
      organization: organization_id,
      workspaces: 200,
      sources: 200,
      missing: 404,
      missingCode: 'not_found',
      ready: 'ready',
    });
  });
});
