import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { nearest } from '../../codegen/manifest/authoring-rules.js';
import { formatDiagnostic } from '../../codegen/manifest/load.js';
import { loadDefinitions } from '../../codegen/pipeline.js';

// Each fixture folder holds one manifest (acme.yaml) with one typical authoring mistake that used to
// pass `npm run generate` and fail only at run time, or fail without a hint.
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/authoring/${name}/`, import.meta.url));
const lineOf = (name: string, needle: string) =>
  readFileSync(`${fixture(name)}acme.yaml`, 'utf8')
    .split('\n')
    .findIndex((l) => l.includes(needle)) + 1;
const lines = (name: string) => loadDefinitions(fixture(name)).diagnostics.map(formatDiagnostic);

describe('generator refuses authoring mistakes at generate time, with file:line and a suggestion', () => {
  it('a body param on a GET', () => {
    const [line, ...rest] = lines('body-on-get');
    expect(rest).toEqual([]);
    expect(line).toBe(
      `test/codegen/fixtures/authoring/body-on-get/acme.yaml:${lineOf('body-on-get', 'filter:')}:25: entities.widgets.actions.list.params.filter.in: param "filter" is in: body, but a GET request sends no body; use in: query (or change the method) [body-on-read]`,
    );
  });

  it('a body param on a DELETE', () => {
    expect(lines('body-on-delete')).toEqual([
      expect.stringMatching(
        new RegExp(
          `acme\\.yaml:${lineOf('body-on-delete', 'reason:')}:\\d+: entities\\.widgets\\.actions\\.delete\\.params\\.reason\\.in: param "reason" is in: body, but a DELETE request sends no body.*\\[body-on-read\\]$`,
        ),
      ),
    ]);
  });

  it('a list without records_path, and the record_path typo for it', () => {
    expect(lines('list-without-records-path')).toEqual([
      expect.stringMatching(
        /acme\.yaml:\d+:\d+: entities\.widgets\.actions\.list: a list action needs records_path \(the dot path of the record array, or "\$" when the body itself is the array\) \[missing-records-path\]$/,
      ),
    ]);
    expect(lines('list-with-record-path')).toEqual([
      expect.stringContaining('"record_path" is for one record: did you mean "records_path"? [missing-records-path]'),
    ]);
  });

  it('accepts the explicit root marker records_path: $ and reads the body itself as the records', () => {
    const { definitions, diagnostics } = loadDefinitions(fixture('list-with-root-marker'));
    expect(diagnostics).toEqual([]);
    expect(definitions[0]?.entities['widgets']?.actions['list']?.recordsPath).toBeUndefined();
  });

  it('suggests the nearest key, pagination name and param name', () => {
    expect(lines('misspelt-key')).toEqual([
      expect.stringMatching(
        new RegExp(`acme\\.yaml:${lineOf('misspelt-key', 'records_pth')}:9: .*unknown key "records_pth"; did you mean "records_path"\\? \\[unknown-key\\]$`),
      ),
    ]);
    expect(lines('misspelt-pagination')).toEqual([
      expect.stringContaining('pagination "page" is not defined under the top-level pagination key; did you mean "pages"? [unknown-pagination]'),
    ]);
    expect(lines('misspelt-param')).toEqual([
      expect.stringContaining('pagination cursor_param "cursr" is not a param of this action; did you mean "cursor"? [unknown-param]'),
    ]);
  });

  it('suggests only close names', () => {
    expect(nearest('recordz', ['records_path', 'record_path', 'method'])).toBeUndefined();
    expect(nearest('paginaton', ['pagination', 'params'])).toBe('pagination');
  });
});
