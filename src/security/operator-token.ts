/**
 * The operator credential of the admin API (/api/v1/admin/...): not an application token, and never
 * derived from the master key. From SWITCHYARD_OPERATOR_TOKEN when set; otherwise DATA_DIR/operator.token,
 * created (mode 0600) on the first start, when the service prints it once.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ConfigError } from '../config.js';

export function operatorTokenPath(dataDir: string): string {
  return path.join(dataDir, 'operator.token');
}

export function generateOperatorToken(): string {
  return `syop_${randomBytes(32).toString('base64url')}`;
}

export interface OperatorToken {
  token: string;
  /** Where it comes from, for the start-up log. */
  source: string;
  /** True when this start created the file (the service then prints the credential once). */
  created: boolean;
}

/** The operator credential for a start of the service (see the module comment). */
export function loadOperatorToken(options: { operatorToken?: string; dataDir: string }): OperatorToken {
  if (options.operatorToken !== undefined) return { token: options.operatorToken, source: 'SWITCHYARD_OPERATOR_TOKEN', created: false };
  const file = operatorTokenPath(options.dataDir);
  if (existsSync(file)) {
    const token = readFileSync(file, 'utf8').trim();
    // The rule SWITCHYARD_OPERATOR_TOKEN follows (src/config.ts): a short or empty file is a guessable or unusable admin API.
    if (token.length < 24 || /\s/.test(token)) {
      throw new ConfigError(
        `${file} must hold an operator token of at least 24 characters without spaces: write one (e.g. \`openssl rand -hex 24\`), or delete the file to have a new one made at start.`,
      );
    }
    return { token, source: file, created: false };
  }
  mkdirSync(path.dirname(file), { recursive: true });
  const token = generateOperatorToken();
  const temp = `${file}.tmp-${process.pid}`;
  writeFileSync(temp, `${token}\n`, { mode: 0o600 });
  chmodSync(temp, 0o600);
  renameSync(temp, file);
  return { token, source: file, created: true };
}

/** The credential the CLI uses to reach a running service: the setting, else the file, else undefined. */
export function readOperatorToken(options: { operatorToken?: string; dataDir: string }): string | undefined {
  if (options.operatorToken !== undefined) return options.operatorToken;
  const file = operatorTokenPath(options.dataDir);
  return existsSync(file) ? readFileSync(file, 'utf8').trim() : undefined;
}
