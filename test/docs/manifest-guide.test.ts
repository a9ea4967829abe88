import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { loadDefinitions } from '../../codegen/pipeline.js';

// Keeps docs/manifest-guide.md in step with the manifest format: every key the schema defines and
// every rule name `npm run generate` can emit must be mentioned in the guide as inline code.

const read = (relative: string) => readFileSync(fileURLToPath(new URL(`../../${relative}`, import.meta.url)), 'utf8');

const guide = read('docs/manifest-guide.md');
const schema = parse(read('manifests/schema/manifest.schema.yaml')) as Record<string, unknown>;

type Node = Record<string, unknown>;
const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null && !Array.isArray(value);

/** Every property name declared anywhere in a schema node: properties, items, allOf/if/then, $defs... */
function collectPropertyNames(node: unknown, into: Set<string>): Set<string> {
  if (Array.isArray(node)) {
    for (const item of node) collectPropertyNames(item, into);
    return into;
  }
  if (!isNode(node)) return into;
  if (isNode(node.properties)) {
    for (const [name, sub] of Object.entries(node.properties)) {
      into.add(name);
      collectPropertyNames(sub, into);
    }
  }
  if (isNode(node.$defs)) {
    for (const sub of Object.values(node.$defs)) collectPropertyNames(sub, into);
  }
  for (const key of ['items', 'additionalProperties', 'propertyNames', 'if', 'then', 'else', 'not', 'allOf', 'anyOf', 'oneOf'] as const) {
    if (node[key] !== undefined) collectPropertyNames(node[key], into);
  }
  return into;
}

/** Rule names in the generator's sources: report(<segments>, 'rule', ...), rule: 'x' (ternaries too), problem('rule', ...). */
function collectRuleNames(source: string): Set<string> {
  const rules = new Set<string>();
  for (const match of source.matchAll(/\breport\(\s*(?:\[[^\]]*\]|[A-Za-z_$][\w$]*)\s*,\s*'([a-z][a-z0-9-]*)'/g)) rules.add(match[1] as string);
  for (const match of source.matchAll(/\brule:\s*([^,}\n]+)/g)) {
    for (const quoted of (match[1] as string).matchAll(/'([a-z][a-z0-9-]*)'/g)) rules.add(quoted[1] as string);
  }
  for (const match of source.matchAll(/\bproblem\(\s*'([a-z][a-z0-9-]*)'/g)) rules.add(match[1] as string);
  return rules;
}

const inlineCode = (name: string) => guide.includes(`\`${name}\``);

describe('docs/manifest-guide.md', () => {
  const properties = [...collectPropertyNames(schema, new Set())].sort();

  it('finds the schema keys (sanity check of the walk)', () => {
    for (const known of ['connector_type', 'option_title', 'token_url', 'send_default', 'require_attributes', 'context_window', 'reason', 'url_param']) {
      expect(properties).toContain(known);
    }
  });

  it.each(properties)('explains schema key `%s`', (name) => {
    expect(inlineCode(name), `\`${name}\` is defined in manifest.schema.yaml but not mentioned as inline code in the guide`).toBe(true);
  });

  const ruleSources = {
    'codegen/manifest/validate.ts': collectRuleNames(read('codegen/manifest/validate.ts')),
    'codegen/manifest/load.ts': collectRuleNames(read('codegen/manifest/load.ts')),
    'codegen/pipeline.ts': collectRuleNames(read('codegen/pipeline.ts')),
    'codegen/manifest/authoring-rules.ts': collectRuleNames(read('codegen/manifest/authoring-rules.ts')),
  };

  it('finds the rule names (sanity check of the extraction)', () => {
    expect([...ruleSources['codegen/manifest/validate.ts']]).toEqual(
      expect.arrayContaining(['unknown-key', 'missing-key', 'enum', 'key-name', 'unknown-config', 'duplicate-param', 'unknown-pagination']),
    );
    expect([...ruleSources['codegen/manifest/load.ts']].sort()).toEqual(['duplicate-key', 'yaml-syntax']);
    expect([...ruleSources['codegen/pipeline.ts']].sort()).toEqual(['duplicate-connector', 'duplicate-definition-id', 'file-name']);
    expect([...ruleSources['codegen/manifest/authoring-rules.ts']].sort()).toEqual(['body-on-read', 'missing-records-path']);
  });

  const rules = Object.entries(ruleSources).flatMap(([file, names]) => [...names].map((name) => [name, file] as const));

  it.each(rules)('documents rule `%s` (from %s)', (name, file) => {
    expect(inlineCode(name), `rule "${name}" emitted by ${file} is not mentioned as inline code in the guide`).toBe(true);
  });

  it('documents every pagination style and auth type of the closed sets', () => {
    const definitions = schema.$defs as Record<string, Node>;
    const styles = (((definitions.pagination as Node).properties as Node).style as Node).enum as string[];
    for (const style of styles) expect(guide, `pagination style ${style}`).toMatch(new RegExp(`^### ${style}$`, 'm'));
    const types = (((definitions.auth_option as Node).properties as Node).type as Node).enum as string[];
    for (const type of types) expect(guide, `auth type ${type}`).toMatch(new RegExp(`^### ${type}$`, 'm'));
  });
});

describe("the guide's Quick start manifest", () => {
  it('passes every generate check as written, with its one entity', () => {
    const quickStart = guide.slice(guide.indexOf('## Quick start'));
    const yaml = /```yaml\n([\s\S]*?)```/.exec(quickStart)?.[1];
    expect(yaml).toContain('connector_type: acme');
    const dir = mkdtempSync(path.join(tmpdir(), 'guide-quick-start-'));
    try {
      writeFileSync(path.join(dir, 'acme.yaml'), yaml as string);
      const { diagnostics, definitions } = loadDefinitions(dir);
      expect(diagnostics).toEqual([]);
      expect(Object.keys(definitions[0]?.entities ?? {})).toEqual(['tickets']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
