/**
 * `npm run contract [-- connector...]`: checks every manifest with a vendor_spec against the
 * vendor's API description. Exit code 1 on any unwaived mismatch or missing spec file.
 * `--live` instead replays every action through the runtime against Prism mocks of the vendor
 * OpenAPI files (live/run.ts); exit code 1 on any finding.
 *
 * Options: --manifests <dir> (default <repo>/manifests), --specs <dir> (default env
 * VENDOR_SPECS_DIR, else <repo>/../shared/vendor-specs).
 */
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command } from 'commander';
import { didYouMean } from '../manifest/authoring-rules.js';
import { manifestFiles } from '../manifest/load.js';
import { runContract } from './check.js';
import { formatLiveReport, specLine } from './live/report.js';
import { runLive } from './live/run.js';
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
    .option('--live', 'replay every action against Prism mocks of the vendor OpenAPI files')
    .option('--concurrency <n>', 'Prism instances at once (with --live)', '2')
    .parse(argv);
  const opts = program.opts<{ manifests: string; specs: string; live?: boolean; concurrency: string }>();
  // A connector named on the command line that no manifest declares is a typo, not a check that passed.
  const known = new Set(manifestFiles(path.resolve(opts.manifests)).map((file) => path.basename(file).replace(/\.ya?ml$/, '')));
  const unknown = program.args.filter((name) => !known.has(name.replace(/\.ya?ml$/, '')));
  if (unknown.length > 0) {
    const first = unknown[0] as string;
    throw new Error(`no manifest for ${unknown.map((name) => `"${name}"`).join(', ')} in ${opts.manifests}${didYouMean(first, [...known])}`);
  }
  if (opts.live) {
    const started = performance.now();
    const out = await runLive({
      manifestsDir: path.resolve(opts.manifests),
      specsDir: path.resolve(opts.specs),
      only: program.args,
      concurrency: Number(opts.concurrency),
      onSpecDone: (r) => process.stderr.write(`live: ${specLine(r)}\n`),
    });
    process.stdout.write(formatLiveReport(out, performance.now() - started));
    return out.results.some((r) => r.findings.length > 0) ? 1 : 0;
  }
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
