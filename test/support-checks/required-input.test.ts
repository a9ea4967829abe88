import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { isCi, requiredInput } from '../support/required-input.js';

// Suites whose inputs live outside the repository (../shared) skip locally when those are absent, but
// must fail under CI=true rather than pass without running.

describe('requiredInput', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'required-input-'));
  const missing = path.join(dir, 'shared', 'contract', 'service-contract.md');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('fails the suite under CI=true when the input is missing', () => {
    expect(() => requiredInput(missing, 'The service contract', { CI: 'true' })).toThrow(
      /The service contract is missing .*service-contract\.md.*CI runs every suite/,
    );
    expect(() => requiredInput(missing, 'The service contract', { CI: '1' })).toThrow();
  });

  it('skips with a notice outside CI', () => {
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
    expect(requiredInput(missing, 'The service contract', {})).toBe(false);
    expect(requiredInput(missing, 'The service contract', { CI: 'false' })).toBe(false);
    expect(warn).toHaveBeenCalledWith(expect.stringContaining('SKIPPED'));
    warn.mockRestore();
  });

  it('runs the suite when the input is present', () => {
    expect(requiredInput(dir, 'A folder', { CI: 'true' })).toBe(true);
  });

  it('reads CI the way CI services set it', () => {
    expect([isCi({ CI: 'true' }), isCi({ CI: '1' }), isCi({ CI: 'false' }), isCi({ CI: '' }), isCi({})]).toEqual([true, true, false, false, false]);
  });
});
