/**
 * `npm run contract -- <connector>`: a connector name no manifest declares is refused (exit 2) with a
 * suggestion, instead of "no manifests found" and "contract: OK".
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));

describe('npm run contract with a connector name', () => {
  it('refuses a name no manifest declares, suggesting the near one', () => {
    const result = spawnSync(process.execPath, ['--import', 'tsx', 'codegen/contract/cli.ts', 'harvst'], { cwd: root, encoding: 'utf8' });
    expect(result.status).toBe(2);
    expect(result.stderr.trim()).toBe(`contract: no manifest for "harvst" in ${root}manifests; did you mean "harvest"?`);
    expect(result.stdout).toBe('');
  });
});
