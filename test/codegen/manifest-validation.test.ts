import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, type Diagnostic } from '../../codegen/manifest/load.js';
import { loadDefinitions } from '../../codegen/pipeline.js';
import { VALID } from '../support/manifest-fixture.js';

function diagnose(yaml: string): Diagnostic[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'manifests-'));
  writeFileSync(path.join(dir, 'acme.yaml'), yaml);
  return loadDefinitions(dir).diagnostics;
}

function lineOf(yaml: string, needle: string): number {
  return yaml.split('\n').findIndex((line) => line.includes(needle)) + 1;
}

describe('manifest validation: precise errors for author mistakes', () => {
  it('accepts the valid manifest', () => {
    expect(diagnose(VALID)).toEqual([]);
  });

  it('unknown key: names the key, its line and column', () => {
    const yaml = VALID.replace('        records_path: widgets', '        records_path: widgets\n        recordz: oops');
    const [d, ...rest] = diagnose(yaml);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ rule: 'unknown-key', path: 'entities.widgets.actions.list.recordz', line: lineOf(yaml, 'recordz'), column: 9 });
    expect(formatDiagnostic(d as Diagnostic)).toMatch(/acme\.yaml:\d+:9: entities\.widgets\.actions\.list\.recordz: unknown key "recordz" \[unknown-key\]/);
  });

  it('missing required key', () => {
    const yaml = VALID.replace('        method: GET\n        path: /widgets/{id}', '        path: /widgets/{id}');
    const [d, ...rest] = diagnose(yaml);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ rule: 'missing-key', path: 'entities.widgets.actions.get', message: 'missing required key "method"', line: lineOf(yaml, 'path: /widgets/{id}') });
  });

  it('bad pagination style', () => {
    const yaml = VALID.replace('style: cursor', 'style: pages_by_magic');
    const diagnostics = diagnose(yaml);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ rule: 'enum', path: 'pagination.pages.style', line: lineOf(yaml, 'pages_by_magic') });
    expect(diagnostics[0]?.message).toContain('next_url, cursor, link_header, page_number, offset, graphql_page_info, next_page_token, next_records_url, bookmark');
  });

  it('param declared twice (same YAML key)', () => {
    const yaml = VALID.replace(
      "          cursor: { in: query, schema: { type: string } }",
      "          cursor: { in: query, schema: { type: string } }\n          cursor: { in: query, schema: { type: integer } }",
    );
    const [d] = diagnose(yaml);
    expect(d).toMatchObject({ rule: 'duplicate-key', line: lineOf(yaml, 'type: integer } }') });
  });

  it('param declared twice (two names sending the same wire name)', () => {
    const yaml = VALID.replace(
      "          cursor: { in: query, schema: { type: string } }",
      "          cursor: { in: query, schema: { type: string } }\n          after: { in: query, wire: cursor, schema: { type: string } }",
    );
    const [d, ...rest] = diagnose(yaml);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ rule: 'duplicate-param', path: 'entities.widgets.actions.list.params.after', line: lineOf(yaml, 'after:'), column: 11 });
  });

  it('path template naming an undeclared param', () => {
    const yaml = VALID.replace('path: /widgets/{id}', 'path: /widgets/{widget_id}');
    const diagnostics = diagnose(yaml);
    expect(diagnostics.map((d) => d.rule).sort()).toEqual(['undeclared-path-param', 'unused-path-param']);
    expect(diagnostics.find((d) => d.rule === 'undeclared-path-param')).toMatchObject({
      path: 'entities.widgets.actions.get.path',
      message: 'path template names {widget_id}, which no param with in: path declares',
      line: lineOf(yaml, '{widget_id}'),
    });
  });

  it('unknown auth field referenced by a template', () => {
    const yaml = VALID.replace('X-Account: "{{credentials.account}}"', 'X-Account: "{{credentials.acount}}"');
    const [d, ...rest] = diagnose(yaml);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ rule: 'unknown-auth-field', path: 'headers.X-Account', line: lineOf(yaml, 'acount') });
    expect(d?.message).toContain('auth option "Token" does not declare');
  });

  it('unknown pagination definition and undeclared config are reported', () => {
    const yaml = VALID.replace('pagination: pages', 'pagination: pagez').replace('{{config.subdomain}}', '{{config.tenant}}');
    expect(diagnose(yaml).map((d) => d.rule).sort()).toEqual(['unknown-config', 'unknown-pagination']);
  });

  it('a config variable without a pattern or enum is refused', () => {
    const yaml = VALID.replace("subdomain: { description: Tenant, pattern: '^[a-z]+$' }", 'subdomain: { description: Tenant }');
    const [d] = diagnose(yaml);
    expect(d).toMatchObject({ path: 'config.subdomain', rule: 'missing-key' });
  });

  it('YAML syntax errors carry a position', () => {
    const [d] = diagnose(VALID.replace('display_name: Acme', 'display_name: [Acme'));
    expect(d?.rule).toBe('yaml-syntax');
    expect(d?.line).toBeGreaterThan(0);
  });
});

describe('manifest validation: auth options', () => {
  it('checks the keys every auth option shares', () => {
    const yaml = VALID.replace('    option_title: Token\n', '    option_title: 42\n').replace('      account: { description: Account id, secret: false }', '      account: { descr: Account id }');
    const rules = diagnose(yaml).map((d) => `${d.path} ${d.rule}`);
    expect(rules).toEqual(expect.arrayContaining(['auth.0.option_title type', 'auth.0.fields.account.descr unknown-key', 'auth.0.fields.account missing-key']));
  });

  it('refuses a token value that no OAuth option keeps', () => {
    const yaml = VALID.replace('base_url: https://{{config.subdomain}}.acme.example/api', 'base_url: "{{token.instance_url}}/api"\nbase_url_host_pattern: ^x$');
    expect(diagnose(yaml)).toEqual([expect.objectContaining({ rule: 'unknown-token-value', path: 'base_url' })]);
  });
});
