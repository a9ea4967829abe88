/**
 * `npm run contract [-- connector...]`: checks every manifest with a vendor_spec against the
 * vendor's API description. Exit code 1 on any unwaived mismatch or missing spec file.
 *
 * Options: --manifests <dir> (default <repo>/manifests), --specs <dir> (default env
 * VENDOR_SPECS_DIR, else <repo>/../shared/vendor-specs).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { runContract } from './check.js';
import { exitCodeFor, formatReport } from './report.js';

export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');

export function defaultSpecsDir(env: NodeJS.ProcessEnv = process.env, root: string = repoRoot): string {
  const fromEnv = env['VENDOR_SPECS_DIR'];
  return fromEnv !== undefined && fromEnv !== '' ? path.resolve(fromEnv) : path.resolve(root, '..', 'shared', 'vendor-specs');
}

async function main(argv: string[]): Promise<number> {
  const program = new Command()
    .name('contract')
    .description('Check connector manifests against the vendor API descriptions (OpenAPI, GraphQL SDL).')
    .argument('[connectors...]', 'only these connectors (connector_type or manifest file name)')
    .option('--manifests <dir>', 'manifests folder (top-level *.yaml)', path.join(repoRoot, 'manifests'))
    .option('--specs <dir>', 'vendor-specs folder (env VENDOR_SPECS_DIR)', defaultSpecsDir())
    .parse(argv);
  const opts = program.opts<{ manifests: string; specs: string }>();
  const results = await runContract({
    manifestsDir: path.resolve(opts.manifests),
    specsDir: path.resolve(opts.specs),
    only: program.args,
  });
  process.stdout.write(formatReport(results));
  return exitCodeFor(results);
}

main(process.argv).then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    process.stderr.write(`contract: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 2;
  },
);
