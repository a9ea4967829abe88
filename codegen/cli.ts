import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Command } from 'commander';
import { formatDiagnostic } from './manifest/load.js';
import { emitAll, GENERATED_DIRS, loadDefinitions, REPO_ROOT } from './pipeline.js';

function listFiles(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? listFiles(full) : [full];
  });
}

const program = new Command()
  .name('generate')
  .description('Validate manifests/ and emit types, validators, the registry and skill docs.')
  .option('--check', 'write nothing; exit 1 when committed generated output differs from what manifests/ produce')
  .parse();

const { check } = program.opts<{ check?: boolean }>();
const { definitions, diagnostics } = loadDefinitions();
if (diagnostics.length > 0) {
  for (const d of diagnostics) console.error(formatDiagnostic(d));
  console.error(`\n${diagnostics.length} manifest problem(s); nothing was generated.`);
  process.exit(1);
}

const files = emitAll(definitions);
const existing = GENERATED_DIRS.flatMap((dir) => listFiles(path.join(REPO_ROOT, dir))).map((f) => path.relative(REPO_ROOT, f));
const stale = existing.filter((f) => !files.has(f));
const changed = [...files].filter(([file, content]) => {
  const full = path.join(REPO_ROOT, file);
  return !existsSync(full) || readFileSync(full, 'utf8') !== content;
});

if (check) {
  if (changed.length === 0 && stale.length === 0) {
    console.log(`Generated output is up to date (${definitions.length} connectors, ${files.size} files).`);
    process.exit(0);
  }
  for (const [file] of changed) console.error(`out of date: ${file}`);
  for (const file of stale) console.error(`not produced by any manifest: ${file}`);
  console.error('\nRun `npm run generate` and commit the result.');
  process.exit(1);
}

for (const file of stale) rmSync(path.join(REPO_ROOT, file));
for (const [file, content] of changed) {
  const full = path.join(REPO_ROOT, file);
  mkdirSync(path.dirname(full), { recursive: true });
  writeFileSync(full, content);
}
console.log(`Generated ${files.size} files for ${definitions.length} connectors (${changed.length} changed, ${stale.length} removed).`);
