import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitAll, loadDefinitions, REPO_ROOT } from '../../codegen/pipeline.js';
import { markdownToBlocks } from '../../runtime/skill-docs.js';
import { schemaToType } from '../../codegen/emit/types.js';

describe('generator', () => {
  const { definitions, diagnostics } = loadDefinitions();

  it('validates every manifest in the repository without problems', () => {
    expect(diagnostics).toEqual([]);
    expect(definitions.map((d) => d.connectorType)).toEqual(expect.arrayContaining(['harvest', 'jira', 'linear']));
  });

  it('is deterministic: two runs produce identical output', () => {
    const first = emitAll(definitions);
    const second = emitAll(loadDefinitions().definitions);
    expect([...second.keys()]).toEqual([...first.keys()]);
    for (const [file, content] of first) expect(second.get(file), file).toBe(content);
  });

  it('matches the committed output (generate --check)', () => {
    for (const [file, content] of emitAll(definitions)) {
      expect(readFileSync(path.join(REPO_ROOT, file), 'utf8'), `${file} is stale: run npm run generate`).toBe(content);
    }
    const out = execFileSync(process.execPath, ['--import', 'tsx', 'codegen/cli.ts', '--check'], { cwd: REPO_ROOT, encoding: 'utf8' });
    expect(out).toMatch(/up to date/);
  });

  it('turns JSON Schemas into TypeScript types', () => {
    expect(schemaToType({ type: ['string', 'null'] })).toBe('string | null');
    expect(schemaToType({ enum: ['a', 'b'] })).toBe('"a" | "b"');
    expect(schemaToType({ type: 'array', items: { type: 'integer' } })).toBe('Array<number>');
    expect(schemaToType({ type: 'object', properties: { id: { type: 'string' } }, required: ['id'], additionalProperties: false })).toBe('{ id: string }');
    expect(schemaToType({ type: 'object' })).toBe('Record<string, unknown>');
    expect(schemaToType({ anyOf: [{ type: 'string' }, { type: 'integer' }] })).toBe('string | number');
    expect(schemaToType({ type: 'object', properties: { id: { type: 'string' } }, anyOf: [{ required: ['id'] }] })).toBe('{ id?: string; [key: string]: unknown }');
  });

  it('renders skill docs as content blocks with one section per action', () => {
    const jira = emitAll(definitions).get('docs/connectors/jira.md') ?? '';
    expect(jira).toContain('# issues.api_search');
    expect(jira).toMatch(/\| maxResults \| integer \| no \| [^|]*maximum 5000/);
    expect(markdownToBlocks('# T\n\nSome text\nmore.\n\n- a\n- b\n\n| A | B |\n| --- | --- |\n| 1 | x \\| y |\n\n```json\n{}\n```\n')).toEqual([
      { type: 'heading', text: 'T', level: 1 },
      { type: 'paragraph', text: 'Some text more.' },
      { type: 'list', items: ['a', 'b'] },
      { type: 'table', headers: ['A', 'B'], rows: [['1', 'x | y']] },
      { type: 'code', language: 'json', code: '{}' },
    ]);
  });
});
