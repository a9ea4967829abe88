/**
 * The four rooms of ARCHITECTURE.md and what may import what, checked on every import of the source
 * (static, re-exports and dynamic import()).
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { REPO_ROOT } from '../support/spawn-service.js';

type Room = 'codegen' | 'runtime' | 'src';

/** Rooms each room may import from (besides itself). Manifests are data: no room imports them as code. */
const MAY_IMPORT: Record<Room, Room[]> = {
  codegen: ['runtime'], // it emits runtime/generated against the runtime's definition types
  runtime: [],
  src: ['runtime'],
};

/**
 * Known exceptions, each with its reason. The stdio MCP server's hosted mode is a client of a running
 * service, so it talks through the HTTP client (client/), which itself builds on src's types: moving
 * that backend out of src/ into the client's side removes this loop.
 */
const KNOWN_EXCEPTIONS = new Set(['src/mcp/cli.ts imports ../../client/index.js', 'src/mcp/client-backend.ts imports ../../client/index.js']);

/** npm packages the library room may use: what packages/switchyard declares, plus Node's own modules. */
const RUNTIME_PACKAGES = new Set(['ky', 'ajv', 'ajv-formats', 'commander']);

/** What the library package carries besides the runtime: the typed client, and the two service modules it reads. */
const CLIENT_PACKAGES = new Set(['jose']);
const SHIPPED_SERVICE_MODULES = new Set(['src/api-shapes.ts', 'src/errors.ts']);

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(REPO_ROOT, dir), { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && /\.(ts|js)$/.test(entry.name) && !entry.name.endsWith('.d.ts'))
    .map((entry) => path.relative(REPO_ROOT, path.join(entry.parentPath, entry.name)));
}

function importsOf(file: string): string[] {
  // Template literals hold code the generator emits, not imports of this file.
  const text = readFileSync(path.join(REPO_ROOT, file), 'utf8').replace(/`(?:\\.|[^`\\])*`/g, '``');
  const found = [
    ...text.matchAll(/(?:^|\n)\s*(?:import|export)\s[^;]*?\bfrom\s+['"]([^'"]+)['"]/g),
    ...text.matchAll(/\bimport\(\s*['"]([^'"]+)['"]\s*\)/g),
    ...text.matchAll(/\brequire\(\s*['"]([^'"]+)['"]\s*\)/g),
  ];
  return found.map((m) => m[1] as string);
}

function roomOf(file: string): Room | undefined {
  const top = file.split(path.sep)[0];
  return top === 'codegen' || top === 'runtime' || top === 'src' ? top : undefined;
}

describe('the import graph', () => {
  const files = (['codegen', 'runtime', 'src'] as const).flatMap((room) => sourceFiles(room));

  it('finds the rooms and their imports', () => {
    expect(files.filter((f) => roomOf(f) === 'runtime').length).toBeGreaterThan(20);
    expect(importsOf('src/app.ts')).toContain('fastify');
  });

  it('lets each room import only itself and the rooms before it', () => {
    const violations: string[] = [];
    for (const file of files) {
      const room = roomOf(file) as Room;
      for (const specifier of importsOf(file)) {
        if (!specifier.startsWith('.')) continue;
        const target = roomOf(path.relative(REPO_ROOT, path.resolve(REPO_ROOT, path.dirname(file), specifier)));
        if (target === undefined) {
          if (KNOWN_EXCEPTIONS.has(`${file} imports ${specifier}`)) continue;
          violations.push(`${file} imports ${specifier}, outside the rooms`);
        } else if (target !== room && !MAY_IMPORT[room].includes(target)) {
          violations.push(`${file} (${room}) imports ${specifier} (${target})`);
        }
      }
    }
    expect(violations).toEqual([]);
  });

  it('keeps the runtime (the library package) free of the service and generator dependencies', () => {
    const violations: string[] = [];
    for (const file of files.filter((f) => roomOf(f) === 'runtime')) {
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith('.') || specifier.startsWith('node:')) continue;
        const name = specifier.startsWith('@') ? specifier.split('/').slice(0, 2).join('/') : (specifier.split('/')[0] as string);
        if (!RUNTIME_PACKAGES.has(name)) violations.push(`${file} imports ${specifier}`);
      }
    }
    expect(violations).toEqual([]);
    const declared = JSON.parse(readFileSync(path.join(REPO_ROOT, 'packages/switchyard/package.json'), 'utf8')) as { dependencies: Record<string, string> };
    expect(Object.keys(declared.dependencies).sort()).toEqual([...RUNTIME_PACKAGES, ...CLIENT_PACKAGES].sort());
  });

  it('keeps the client and the service modules it ships with in the library package free of the rest of the service', () => {
    const shipped = [...sourceFiles('client'), ...SHIPPED_SERVICE_MODULES];
    const violations: string[] = [];
    for (const file of shipped) {
      for (const specifier of importsOf(file)) {
        if (specifier.startsWith('node:')) continue;
        if (!specifier.startsWith('.')) {
          if (!CLIENT_PACKAGES.has(specifier.split('/')[0] as string)) violations.push(`${file} imports ${specifier}`);
          continue;
        }
        const target = path.relative(REPO_ROOT, path.resolve(REPO_ROOT, path.dirname(file), specifier)).replace(/\.js$/, '.ts');
        const top = target.split(path.sep)[0];
        if (top === 'client' || top === 'runtime' || SHIPPED_SERVICE_MODULES.has(target)) continue;
        violations.push(`${file} imports ${specifier}`);
      }
    }
    expect(shipped.length).toBeGreaterThan(3);
    expect(violations).toEqual([]);
  });
});
