/**
 * Runs the contract check over the repository's real manifests (manifests/*.yaml) against
 * the vendor descriptions (env VENDOR_SPECS_DIR or ../shared/vendor-specs). Fails with the
 * full report when any manifest disagrees with its vendor description.
 */
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { runContract } from '../../codegen/contract/check.js';
import { exitCodeFor, formatReport } from '../../codegen/contract/report.js';
import { requiredInput } from '../support/required-input.js';

const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const manifestsDir = path.join(repoRoot, 'manifests');
const specsDir = process.env['VENDOR_SPECS_DIR'] || path.resolve(repoRoot, '..', 'shared', 'vendor-specs');

function manifestsWithVendorSpec(): string[] {
  let names: string[];
  try {
    names = readdirSync(manifestsDir).filter((n) => n.endsWith('.yaml'));
  } catch {
    return [];
  }
  return names.filter((n) => {
    try {
      const doc: unknown = YAML.parse(readFileSync(path.join(manifestsDir, n), 'utf8'));
      return typeof doc === 'object' && doc !== null && 'vendor_spec' in doc;
    } catch {
      return /^vendor_spec:/m.test(readFileSync(path.join(manifestsDir, n), 'utf8'));
    }
  });
}

const withSpec = manifestsWithVendorSpec();
const specsPresent = requiredInput(specsDir, 'The vendor descriptions (VENDOR_SPECS_DIR or ../shared/vendor-specs)');

describe('contract over the real manifests', () => {
  it.skipIf(withSpec.length === 0 || !specsPresent)(
    withSpec.length === 0
      ? 'SKIPPED: manifests/ has no manifest with vendor_spec yet'
      : `every manifest agrees with its vendor description (${withSpec.join(', ')})`,
    async () => {
      const results = await runContract({ manifestsDir, specsDir });
      const report = formatReport(results);
      for (const r of results.filter((x) => x.spec !== undefined)) {
        expect(r.actionsChecked, `${r.connector} checked no actions\n${report}`).toBeGreaterThan(0);
      }
      expect(exitCodeFor(results), report).toBe(0);
    },
    60_000,
  );
});
