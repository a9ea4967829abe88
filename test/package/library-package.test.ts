/**
 * The published library: `npm pack` of packages/switchyard, installed into a fresh project, runs the
 * README's library example with plain `node` (after `tsc --strict` compiles it, which must report 0
 * errors) against a Jira stand-in on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestService } from '../support/service.js';
import { REPO_ROOT } from '../support/spawn-service.js';

const run = promisify(execFile);
const PACKAGE_DIR = path.join(REPO_ROOT, 'packages', 'switchyard');

/** The ```ts blocks of a section of README.md (its heading's start), in order. */
function readmeExamples(heading: string): string[] {
  const readme = readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const start = readme.indexOf(heading);
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1));
  const blocks = [...section.matchAll(/```ts\n([\s\S]*?)```/g)].map((found) => found[1] as string);
  if (blocks.length === 0) throw new Error(`no ts block in the ${heading} section of README.md`);
  return blocks;
}

/** The typed client of a running service, from the same package (switchyard/client), with the library's error classes. */
const CLIENT_EXAMPLE = `import { ResourceNotFoundError, SwitchyardClient, ValidationError } from 'switchyard/client';

const client = new SwitchyardClient({
  baseUrl: process.env.SWITCHYARD_URL ?? '',
  credentials: { clientId: process.env.CLIENT_ID ?? '', clientSecret: process.env.CLIENT_SECRET ?? '' },
});
const created = await client.connectors.create(
  {
    workspace_name: 'default',
    connector_type: 'jira',
    name: 'Jira',
    credentials: { email: 'me@acme.com', api_token: 'jira-token-0001' },
    replication_config: { subdomain: 'acme' },
  },
  { check: false },
);
const jira = client.connector('jira', created.id);
const issue = await jira.execute('issues', 'get', { issueIdOrKey: 'ABC-1' });
const key: string | null = issue.data.key;
const invalid = await client.execute(created.id, { entity: 'issues', action: 'get', params: {} }).catch((error: unknown) => error);
const missing = await client.connectors.get('0190a5a4-0000-7000-8000-000000000000').catch((error: unknown) => error);
const unreachable = await new SwitchyardClient({ baseUrl: process.env.CLOSED_URL ?? '', token: 'x' }).connectors
  .list()
  .catch((error: unknown) => (error instanceof Error ? error.message : String(error)));
console.log(
  JSON.stringify({
    key,
    invalid: invalid instanceof ValidationError ? 'ValidationError' : String(invalid),
    missing: missing instanceof ResourceNotFoundError ? 'ResourceNotFoundError' : String(missing),
    unreachable,
  }),
);
`;

/** What the README's later examples take as given: the values an application has at hand. */
const EXAMPLE_GIVENS = `declare const process: { env: Record<string, string | undefined> };
declare const client_id: string, client_secret: string, refresh_token: string, account_id: string;
declare function saveRefreshToken(token: string): void;
`;

describe('the library package', { timeout: 900_000 }, () => {
  let dir: string;
  let jira: Server;
  let jiraUrl: string;
  const seen: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'switchyard-package-'));
    jira = createServer((req, res) => {
      seen.push(`${req.method} ${req.url} ${req.headers.authorization}`);
      const body = req.url?.startsWith('/rest/api/3/search/jql')
        ? { issues: [{ id: '10001', key: 'ABC-1', fields: { summary: 'First' } }], isLast: true }
        : { id: '10001', key: 'ABC-1', fields: { summary: 'First' } };
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    });
    await new Promise<void>((resolve) => jira.listen(0, '127.0.0.1', resolve));
    jiraUrl = `http://127.0.0.1:${(jira.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    await new Promise((resolve) => jira.close(resolve));
    rmSync(dir, { recursive: true, force: true });
  });

  it('packs compiled JavaScript with declarations and nothing else, installs without the service dependencies, and runs the README example in node and strict TypeScript', async () => {
    const packed = await run('npm', ['pack', '--json', '--pack-destination', dir], { cwd: PACKAGE_DIR, maxBuffer: 64 * 1024 * 1024 });
    const [info] = JSON.parse(packed.stdout.slice(packed.stdout.indexOf('['))) as Array<{ filename: string; files: Array<{ path: string }> }>;
    const files = info?.files.map((f) => f.path) ?? [];
    expect(files).toContain('dist/runtime/index.js');
    expect(files).toContain('dist/runtime/index.d.ts');
    expect(files).toContain('dist/runtime/generated/jira/validators.js');
    expect(files).toContain('dist/client/index.js');
    expect(files).toContain('dist/client/index.d.ts');
    // Skill docs ship once, as the generated Markdown the runtime reads.
    expect(files).toContain('dist/docs/connectors/jira.md');
    expect(files).toEqual(expect.arrayContaining(['README.md', 'LICENSE']));
    expect(
      files.filter(
        (f) => !/^(dist\/(runtime|client)\/|dist\/docs\/connectors\/[a-z0-9-]+\.md$|bin\/switchyard\.js$|package\.json$|README\.md$|LICENSE$)/.test(f),
      ),
    ).toEqual(['dist/src/api-shapes.d.ts', 'dist/src/api-shapes.js', 'dist/src/errors.d.ts', 'dist/src/errors.js']);
    expect(files.some((f) => /(^|\/)(test|bench|codegen)\//.test(f) || (f.endsWith('.ts') && !f.endsWith('.d.ts')))).toBe(false);

    const project = path.join(dir, 'consumer');
    await run('mkdir', ['-p', project]);
    writeFileSync(path.join(project, 'package.json'), JSON.stringify({ name: 'consumer', private: true, type: 'module' }));
    await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', path.join(dir, info?.filename ?? '')], { cwd: project });
    const installed = JSON.parse((await run('npm', ['ls', '--all', '--json'], { cwd: project })).stdout) as {
      dependencies: Record<string, { dependencies?: Record<string, unknown> }>;
    };
    const names = Object.keys(installed.dependencies.switchyard?.dependencies ?? {}).sort();
    expect(names).toEqual(['ajv', 'ajv-formats', 'commander', 'jose', 'ky']);

    // The first example runs; every one compiles under --strict.
    const examples = [
      ...readmeExamples('## Library mode').map((code, i) => ({ file: i === 0 ? 'example.ts' : `example-${i + 1}.ts`, code })),
      ...readmeExamples('## TypeScript client').map((code, i) => ({ file: `client-readme-${i + 1}.ts`, code })),
      { file: 'client-example.ts', code: CLIENT_EXAMPLE },
    ];
    for (const { file, code } of examples) writeFileSync(path.join(project, file), code.includes('import ') ? code : `export {};\n${code}`);
    expect(examples.length).toBeGreaterThanOrEqual(4);
    writeFileSync(
      path.join(project, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: { target: 'ES2022', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, outDir: 'out', types: [], lib: ['ES2022', 'DOM'] },
        files: [...examples.map((e) => e.file), 'env.d.ts'],
      }),
    );
    // The consumer has no @types/node: declare the one Node global the examples read, and their givens.
    writeFileSync(path.join(project, 'env.d.ts'), EXAMPLE_GIVENS);
    const tsc = await run(process.execPath, [path.join(REPO_ROOT, 'node_modules/typescript/bin/tsc'), '-p', project], { cwd: project }).catch(
      (error: { stdout: string }) => error,
    );
    expect(tsc.stdout).toBe('');

    const output = await run(process.execPath, [path.join(project, 'out', 'example.js')], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', JIRA_TOKEN: 'jira-token-0001', JIRA_BASE_URL: jiraUrl },
    });
    expect(output.stderr).toBe('');
    expect(output.stdout).toContain('ABC-1');
    const basic = `Basic ${Buffer.from('me@acme.com:jira-token-0001').toString('base64')}`;
    expect(seen).toContainEqual(expect.stringMatching(new RegExp(`^(GET|POST) /rest/api/3/search/jql.* ${basic}$`)));
    expect(seen).toContainEqual(`GET /rest/api/3/issue/ABC-1 ${basic}`);

    const cli = await run(path.join(project, 'node_modules', '.bin', 'switchyard'), ['connectors'], { cwd: project });
    expect(cli.stdout).toContain('jira');
    // Credential mistakes are one clear line each, never a stack trace or the secret.
    const bin = path.join(project, 'node_modules', '.bin', 'switchyard');
    const failed = (args: string[], credentials?: string) =>
      run(bin, ['execute', 'harvest', 'users', 'list', ...args], {
        cwd: project,
        env: { PATH: process.env.PATH ?? '', ...(credentials !== undefined && { SWITCHYARD_CREDENTIALS: credentials }) },
      }).then(
        () => expect.fail('the command succeeded'),
        (error: { code: number; stderr: string }) => error,
      );
    const missingFile = await failed(['--credentials-file', path.join(dir, 'nowhere.json')]);
    expect([missingFile.code, missingFile.stderr.trim()]).toEqual([1, `The credentials file ${path.join(dir, 'nowhere.json')} does not exist.`]);
    const notJson = await failed([], '{"api_token":"pat-S3CRET-9f1e"');
    expect([notJson.code, notJson.stderr.trim()]).toEqual([1, 'SWITCHYARD_CREDENTIALS must be a JSON object: it is not valid JSON.']);
    const empty = await failed([], '');
    expect(empty.stderr).toContain('Give credentials with --credentials-file FILE or the SWITCHYARD_CREDENTIALS environment variable');
    const pasted = await failed([], '{"api_token":"pat-S3CRET-9f1e\\n","account_id":"1"}');
    expect(JSON.parse(pasted.stderr)).toMatchObject({ error_code: 'invalid_credentials', errors: [{ field: 'credentials.api_token', rule: 'line_break' }] });
    expect(pasted.stderr).not.toContain('pat-S3CRET');

    // The client, run with plain node against a service on 127.0.0.1 whose Jira is the stand-in.
    const service = await startTestService('pglite', { upstreamBaseUrls: { jira: jiraUrl } });
    try {
      const tenant = await createTenant(service);
      // a port nothing listens on any more
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
      await new Promise((resolve) => closed.close(resolve));
      const client = await run(process.execPath, [path.join(project, 'out', 'client-example.js')], {
        cwd: project,
        env: {
          PATH: process.env.PATH ?? '',
          SWITCHYARD_URL: service.url,
          CLIENT_ID: tenant.clientId,
          CLIENT_SECRET: tenant.clientSecret,
          CLOSED_URL: closedUrl,
        },
      });
      expect(client.stderr).toBe('');
      expect(JSON.parse(client.stdout)).toEqual({
        key: 'ABC-1',
        invalid: 'ValidationError',
        missing: 'ResourceNotFoundError',
        // the reason fetch keeps in its cause is in the message
        unreachable: expect.stringMatching(/^Cannot reach Switchyard at http:\/\/127\.0\.0\.1:\d+: fetch failed \(.*ECONNREFUSED.*\)\.$/),
      });
      expect(seen).toContain(`GET /rest/api/3/issue/ABC-1 Basic ${Buffer.from('me@acme.com:jira-token-0001').toString('base64')}`);
    } finally {
      await service.close();
    }

    const docsScript =
      "const d = await (await import('switchyard')).loadSkillDocs('jira'); console.log(JSON.stringify([d.version, d.sections.map((s) => s.id).slice(0, 3), d.sections[2].blocks[0]]));";
    const docs = await run(process.execPath, ['--input-type=module', '-e', docsScript], { cwd: project });
    const [docsVersion, sectionIds, firstBlock] = JSON.parse(docs.stdout) as [string, string[], unknown];
    expect(docsVersion).toMatch(/^[0-9a-f]{12}$/);
    expect(sectionIds).toEqual(['overview', 'authentication', expect.stringMatching(/^[a-z_]+\.[a-z_]+$/)]);
    expect(firstBlock).toEqual({ type: 'heading', text: sectionIds[2], level: 1 });
  });
});
