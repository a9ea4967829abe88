import { existsSync } from 'node:fs';

/** CI=true (any value but "" or "false") means the run must be complete: nothing may skip for lack of input. */
export function isCi(env: NodeJS.ProcessEnv = process.env): boolean {
  const value = env.CI?.trim().toLowerCase();
  return value !== undefined && value !== '' && value !== 'false' && value !== '0';
}

/**
 * Whether a suite's input outside the repository (the shared contract, vendor specs) is present. Locally
 * a missing input skips the suite with a notice; under CI it throws, so the suite fails instead of passing
 * without having run.
 */
export function requiredInput(file: string, what: string, env: NodeJS.ProcessEnv = process.env): boolean {
  if (existsSync(file)) return true;
  const message = `${what} is missing (${file}).`;
  if (isCi(env)) throw new Error(`${message} CI runs every suite: provide it (this suite never skips under CI=true).`);
  console.warn(`\n[switchyard] ${message} The suite that needs it is SKIPPED (it fails under CI=true).\n`);
  return false;
}
