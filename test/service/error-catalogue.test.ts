import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import * as runtimeErrors from '../../runtime/errors.js';
import { API_ERRORS, SwitchyardError } from '../../src/errors.js';
import * as serviceErrors from '../../src/errors.js';

// Every code the API can answer is declared once (runtime/errors.ts, src/errors.ts); the table in
// docs/api-reference.md#error-codes must list exactly those codes, statuses and meanings.

const docs = readFileSync(fileURLToPath(new URL('../../docs/api-reference.md', import.meta.url)), 'utf8');

function expectedTable(): string {
  const rows = Object.entries(API_ERRORS)
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([code, spec]) => `| \`${code}\` | ${spec.status} | ${spec.meaning.replace(/\|/g, '\\|')} |`);
  return ['| `error_code` | Status | Meaning |', '|---|---|---|', ...rows].join('\n');
}

function documentedTable(): string {
  const match = /<!-- error-codes:start -->\n([\s\S]*?)\n<!-- error-codes:end -->/.exec(docs);
  return match?.[1] ?? '';
}

type ErrorClass = (new (message: string, issues: never[]) => SwitchyardError) & { name: string };
const errorClasses = [...new Set<unknown>([...Object.values(runtimeErrors), ...Object.values(serviceErrors)])].filter(
  (value): value is ErrorClass => typeof value === 'function' && value.prototype instanceof SwitchyardError,
);

describe('error catalogue', () => {
  it('docs/api-reference.md lists exactly the catalogue (regenerate the table from this message when it fails)', () => {
    expect(documentedTable(), `replace the table between the error-codes markers with:\n${expectedTable()}`).toBe(expectedTable());
  });

  it('gives each error class one catalogue code and its status, and no two classes the same code', () => {
    const byCode = new Map<string, string>();
    for (const ErrorClass of errorClasses) {
      if (ErrorClass.name === 'BadRequestError' || ErrorClass.name === 'CodedError') continue;
      const error = Reflect.construct(ErrorClass, ['message', []]) as SwitchyardError;
      const spec = API_ERRORS[error.code as keyof typeof API_ERRORS];
      expect(spec, `${ErrorClass.name} answers ${error.code}, which the catalogue does not declare`).toBeDefined();
      expect(error.status, ErrorClass.name).toBe(spec.status);
      expect(byCode.get(error.code), `${ErrorClass.name} and ${byCode.get(error.code)} share ${error.code}`).toBeUndefined();
      byCode.set(error.code, ErrorClass.name);
    }
    expect(byCode.size).toBeGreaterThan(15);
  });

  it('BadRequestError answers only catalogue codes of status 400', () => {
    const error = new serviceErrors.BadRequestError('The request body is not valid JSON.', 'malformed_json');
    expect(error.status).toBe(API_ERRORS[error.code].status);
    // @ts-expect-error an ad-hoc code is a compile error
    expect(new serviceErrors.BadRequestError('x', 'made_up').code).toBe('made_up');
  });

  it('a missing generated validator is a deployment fault (500), not a vendor failure', () => {
    const error = new runtimeErrors.GeneratedCodeMissingError('No validator was generated for users.list; run npm run generate.');
    expect(error).toMatchObject({ code: 'generated_code_missing', status: 500 });
  });
});
