import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { emitAll, loadDefinitions, REPO_ROOT } from '../../codegen/pipeline.js';
import { CONNECTOR_TYPES } from '../../runtime/generated/connector-types.js';
import { connectorTypes } from '../../runtime/index.js';
import { markdownToBlocks, parseSkillDocs } from '../../runtime/skill-docs.js';
import { schemaToType } from '../../codegen/emit/types.js';

// One generator run is some 12 s of CPU (types are formatted, validators compiled): this file does one
// shared run plus the second the determinism check needs and the --check process, with room for a busy machine.
const GENERATOR_TIMEOUT = 120_000;

describe('generator', () => {
  const { definitions, diagnostics } = loadDefinitions();
  let emitted: Map<string, string> | undefined;
  const output = () => (emitted ??= emitAll(definitions));

  it('validates every manifest in the repository without problems', () => {
    expect(diagnostics).toEqual([]);
    expect(definitions.map((d) => d.connectorType)).toEqual(expect.arrayContaining(['harvest', 'jira', 'linear']));
  });

  it('lists the connector types on their own (for the settings) as the registry has them', () => {
    expect(CONNECTOR_TYPES).toEqual(definitions.map((d) => d.connectorType));
    expect(CONNECTOR_TYPES).toEqual(connectorTypes());
  });

  it('is deterministic: two runs produce identical output', { timeout: GENERATOR_TIMEOUT }, () => {
    const first = output();
    const second = emitAll(loadDefinitions().definitions);
    expect([...second.keys()]).toEqual([...first.keys()]);
    for (const [file, content] of first) expect(second.get(file), file).toBe(content);
  });

  it('matches the committed output (generate --check)', { timeout: GENERATOR_TIMEOUT }, () => {
    for (const [file, content] of output()) {
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
    expect(schemaToType({ type: 'object', properties: { id: { type: 'string' } }, anyOf: [{ required: ['id'] }] })).toBe(
      '{ id?: string; [key: string]: unknown }',
    );
  });

  it('renders skill docs as content blocks with one section per action', { timeout: GENERATOR_TIMEOUT }, () => {
    const jira = output().get('docs/connectors/jira.md') ?? '';
    expect(jira).toContain('# issues.api_search');
    expect(jira).toMatch(/\| maxResults \| integer \| no \| [^|]*maximum 5000/);
    // The runtime reads this one copy back: a section per marker, named and summarized from the definition.
    const definition = definitions.find((d) => d.connectorType === 'jira');
    if (!definition) throw new Error('no jira definition');
    const docs = parseSkillDocs(definition, jira);
    const actionIds = Object.values(definition.entities).flatMap((e) => Object.keys(e.actions).map((a) => `${e.name}.${a}`));
    expect(docs.sections.map((s) => s.id)).toEqual(['overview', 'authentication', ...actionIds]);
    expect(docs.sections[0]).toMatchObject({ title: 'Jira connector', blocks: expect.arrayContaining([{ type: 'heading', text: 'Jira', level: 1 }]) });
    expect(docs.sections.find((s) => s.id === 'issues.api_search')?.markdown).toMatch(/^# issues\.api_search\n[\s\S]*```\n$/);
    expect(() => parseSkillDocs(definition, jira.replace('<!-- section: issues.get -->', '<!-- section: issues.gone -->'))).toThrow(
      /section "issues\.gone".*run npm run generate/,
    );
    expect(() => parseSkillDocs(definition, jira.replace(/^<!-- Generated[^\n]*\n/, ''))).toThrow(/no generator header/);
    expect(markdownToBlocks('# T\n\nSome text\nmore.\n\n- a\n- b\n\n| A | B |\n| --- | --- |\n| 1 | x \\| y |\n\n```json\n{}\n```\n')).toEqual([
      { type: 'heading', text: 'T', level: 1 },
      { type: 'paragraph', text: 'Some text more.' },
      { type: 'list', items: ['a', 'b'] },
      { type: 'table', headers: ['A', 'B'], rows: [['1', 'x | y']] },
      { type: 'code', language: 'json', code: '{}' },
    ]);
  });
});
