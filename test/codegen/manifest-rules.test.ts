import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { loadDefinitions } from '../../codegen/pipeline.js';
import { VALID } from '../support/manifest-fixture.js';

// Every rule docs/manifest-guide.md documents under "Error messages" has a failing example here, and a
// rule the guide adds without one fails the completeness check below.

const guide = readFileSync(fileURLToPath(new URL('../../docs/manifest-guide.md', import.meta.url)), 'utf8');
const section = guide.slice(guide.indexOf('## Error messages from `npm run generate`'), guide.indexOf('## Adding an entity by YAML alone'));
const documented = [...section.matchAll(/^- ((?:`[a-zA-Z-]+`(?:, )?)+) —/gm)].flatMap((match) =>
  [...(match[1] as string).matchAll(/`([a-zA-Z-]+)`/g)].map((m) => m[1] as string),
);

const swap = (from: string, to: string) => (yaml: string) => {
  if (!yaml.includes(from)) throw new Error(`fixture has no ${JSON.stringify(from)}`);
  return yaml.replace(from, to);
};
const LIST = '      list:\n        method: GET\n        path: /widgets\n';
const GET = '      get:\n        method: GET\n        path: /widgets/{id}\n';
const RECORD = '    record:\n      fields:\n';
const TOKEN_AUTH = '    fields:\n      token: { description: API token }\n';
const OAUTH = (fields: string) =>
  `  - type: oauth2_refresh\n    option_title: OAuth\n    token_url: https://acme.example/token\n    keep: [instance_url]\n    fields:\n${fields}      account: { description: Account id, secret: false }\n`;
const OAUTH_FIELDS = '      client_id: { description: id }\n      client_secret: { description: secret }\n      refresh_token: { description: refresh }\n';

/** Each documented rule: files to write (name -> YAML) that break exactly that rule. */
const examples: Record<string, Record<string, string>> = {
  'yaml-syntax': { 'acme.yaml': swap('display_name: Acme', 'display_name: [Acme')(VALID) },
  'duplicate-key': { 'acme.yaml': swap('display_name: Acme\n', 'display_name: Acme\ndisplay_name: Acme again\n')(VALID) },
  'unknown-key': { 'acme.yaml': swap('        records_path: widgets', '        records_path: widgets\n        recordz: oops')(VALID) },
  'missing-key': { 'acme.yaml': swap(GET, '      get:\n        path: /widgets/{id}\n')(VALID) },
  enum: { 'acme.yaml': swap('style: cursor', 'style: pages_by_magic')(VALID) },
  'key-name': { 'acme.yaml': swap('  widgets:\n', '  Widgets:\n')(VALID) },
  type: { 'acme.yaml': swap('    option_title: Token\n', '    option_title: 42\n')(VALID) },
  pattern: { 'acme.yaml': swap('icon_url: https://acme.example/icon.png', 'icon_url: http://acme.example/icon.png')(VALID) },
  minLength: { 'acme.yaml': swap('display_name: Acme', 'display_name: ""')(VALID) },
  minItems: { 'acme.yaml': swap('docs:\n  - { title: Acme API, url: "https://acme.example/docs" }', 'docs: []')(VALID) },
  minProperties: { 'acme.yaml': swap('block: { next: body.next }', 'block: {}')(VALID) },
  minimum: { 'acme.yaml': swap(RECORD, '    search: { semantic: [{ field: name, context_window: 10 }] }\n' + RECORD)(VALID) },
  maximum: { 'acme.yaml': swap(RECORD, '    search: { semantic: [{ field: name, context_window: 9000 }] }\n' + RECORD)(VALID) },
  'unknown-config': { 'acme.yaml': swap('{{config.subdomain}}', '{{config.tenant}}')(VALID) },
  'unknown-token-value': {
    'acme.yaml': swap('base_url: https://{{config.subdomain}}.acme.example/api', 'base_url: "{{token.instance_url}}/api"\nbase_url_host_pattern: ^x$')(VALID),
  },
  'unknown-auth-field': { 'acme.yaml': swap('{{credentials.account}}', '{{credentials.acount}}')(VALID) },
  'template-syntax': { 'acme.yaml': swap('X-Account: "{{credentials.account}}"', 'X-Account: "{{credentials.account}"')(VALID) },
  'duplicate-option': {
    'acme.yaml': swap(
      TOKEN_AUTH,
      TOKEN_AUTH +
        '      account: { description: Account id, secret: false }\n  - type: bearer\n    option_title: Token\n    token: "{{credentials.token}}"\n' +
        TOKEN_AUTH,
    )(VALID),
  },
  'duplicate-field-name': {
    'acme.yaml': swap(
      '      account: { description: Account id, secret: false }\n',
      '      account: { description: Account id, secret: false, aliases: [token] }\n',
    )(VALID),
  },
  'authorization-fields': {
    'acme.yaml': swap(
      'auth:\n',
      'auth:\n  - type: oauth2_refresh\n    option_title: OAuth\n    token_url: https://acme.example/oauth/token\n    authorization_code:\n      authorization_url: https://acme.example/oauth/authorize\n      from_token: { region: region }\n      docs: https://acme.example/docs/oauth\n    fields:\n' +
        OAUTH_FIELDS +
        '      account: { description: Account id, secret: false }\n',
    )(VALID),
  },
  'oauth-fields': {
    'acme.yaml': swap('auth:\n', 'auth:\n' + OAUTH('      client_id: { description: id }\n      refresh_token: { description: refresh }\n'))(VALID),
  },
  'host-pattern': {
    'acme.yaml': swap(
      'auth:\n',
      'auth:\n' + OAUTH(OAUTH_FIELDS),
    )(swap('base_url: https://{{config.subdomain}}.acme.example/api', 'base_url: "{{token.instance_url}}/api"')(VALID)),
  },
  'anchored-pattern': { 'acme.yaml': swap("pattern: '^[a-z]+$'", "pattern: '[a-z]+'")(VALID) },
  'id-field': { 'acme.yaml': swap(RECORD + '        id: integer\n', RECORD + '        uid: integer\n')(VALID) },
  'unknown-field': { 'acme.yaml': swap(RECORD, '    search: { fields: [nope] }\n' + RECORD)(VALID) },
  'derived-field': { 'acme.yaml': swap(RECORD, '    search: { derived: { name: record.name } }\n' + RECORD)(VALID) },
  'undeclared-path-param': { 'acme.yaml': swap('path: /widgets/{id}', 'path: /widgets/{widget_id}')(VALID) },
  'unused-path-param': { 'acme.yaml': swap('path: /widgets/{id}', 'path: /widgets/{widget_id}')(VALID) },
  'path-param-required': {
    'acme.yaml': swap('id: { in: path, required: true, schema: { type: integer } }', 'id: { in: path, schema: { type: integer } }')(VALID),
  },
  'duplicate-param': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string } }\n          after: { in: query, wire: cursor, schema: { type: string } }',
    )(VALID),
  },
  'auth-param-collision': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string } }\n          Authorization: { in: header, schema: { type: string } }',
    )(VALID),
  },
  'variables-without-graphql': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string } }\n          q: { in: variables, schema: { type: string } }',
    )(VALID),
  },
  'body-with-graphql': {
    'acme.yaml': swap(
      GET,
      '      create:\n        method: POST\n        path: /graphql\n        graphql: { document: "mutation { a }" }\n        params:\n          name: { in: body, schema: { type: string } }\n' +
        GET,
    )(VALID),
  },
  'send-default': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, send_default: true, schema: { type: string } }',
    )(VALID),
  },
  // Replacement text must not hold $' (String.replace reads it as "the text after the match").
  'regex-syntax': {
    'acme.yaml': swap("subdomain: { description: Tenant, pattern: '^[a-z]+$' }", 'subdomain: { description: Tenant, pattern: "^[a-z$" }')(VALID),
  },
  'config-default': { 'acme.yaml': swap('config:\n', 'config:\n  region: { description: Region, enum: [us, eu], default: uk }\n')(VALID) },
  'param-schema': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string, minLenght: 1 } }',
    )(VALID),
  },
  'param-default': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string, default: 5 } }',
    )(VALID),
  },
  'param-aliases': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, aliases: [after], schema: { type: string } }\n          after: { in: query, schema: { type: string } }',
    )(VALID),
  },
  'graphql-method': {
    'acme.yaml': swap(GET, '      api_search:\n        method: GET\n        path: /graphql\n        graphql: { document: "query { a }" }\n' + GET)(VALID),
  },
  'result-shape': { 'acme.yaml': swap(GET, GET + '        records_path: items\n')(VALID) },
  'unknown-entity': { 'acme.yaml': swap(RECORD, '    search: { fan_out: { entity: nope, field: id, param: cursor } }\n' + RECORD)(VALID) },
  'fan-out-parent': {
    'acme.yaml':
      swap(RECORD, '    search: { fan_out: { entity: gadgets, field: id, param: cursor } }\n' + RECORD)(VALID) +
      '  gadgets:\n    description: Gadgets.\n    record: { fields: { id: integer } }\n    actions:\n      get: { method: GET, path: "/gadgets/{id}", params: { id: { in: path, required: true, schema: { type: integer } } } }\n',
  },
  'incremental-parent': {
    'acme.yaml':
      swap(RECORD, '    search: { fan_out: { entity: gadgets, field: id, param: cursor, incremental_with_parent: true } }\n' + RECORD)(VALID) +
      '  gadgets:\n    description: Gadgets.\n    record: { fields: { id: integer } }\n    actions:\n      list: { method: GET, path: /gadgets, records_path: gadgets }\n',
  },
  'incremental-action': {
    'acme.yaml': swap(
      RECORD,
      `    search: { incremental: { action: api_search, param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs" } }\n` + RECORD,
    )(VALID),
  },
  'deleted-feed': {
    'acme.yaml': swap(
      RECORD,
      `    search: { incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs", deleted_feed: { path: "/widgets/{id}/deleted", from: since, to: until, format: iso8601, records_path: deleted, id_field: id, docs: "https://acme.example/docs" } } }\n` +
        RECORD,
    )(VALID),
  },
  removed: {
    'acme.yaml': swap(
      RECORD,
      `    search: { incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs" }, removed: { field: name, incremental_params: { cursor: archived }, docs: "https://acme.example/docs" } }\n` +
        RECORD,
    )(VALID),
  },
  'confirm-deletion': {
    'acme.yaml': swap(RECORD, `    search: { confirm_deletion: { action: fetch, param: id, docs: "https://acme.example/docs" } }\n${RECORD}`)(VALID),
  },
  each: { 'acme.yaml': swap(RECORD, `    search: { each: cursor }\n${RECORD}`)(VALID) },
  'search-params': { 'acme.yaml': swap(RECORD, `    search: { params: { cursor: 7 } }\n${RECORD}`)(VALID) },
  'config-params': { 'acme.yaml': swap(RECORD, `    search: { config_params: { cursor: tenant } }\n${RECORD}`)(VALID) },
  window: {
    'acme.yaml': swap(RECORD, `    search: { window: { from: cursor, to: until, format: iso8601, docs: "https://acme.example/docs" } }\n${RECORD}`)(VALID),
  },
  'singleton-action': { 'acme.yaml': swap(RECORD, '    record:\n      singleton: true\n      fields:\n')(VALID) },
  'unknown-param': { 'acme.yaml': swap(LIST, LIST + '        at_least_one_of: [alpha, beta]\n')(VALID) },
  'unknown-action': { 'acme.yaml': swap('check: { entity: widgets, action: list,', 'check: { entity: widgets, action: count,')(VALID) },
  'check-read-only': {
    'acme.yaml': swap(
      '        method: GET\n        path: /widgets/{id}',
      '        method: DELETE\n        path: /widgets/{id}',
    )(swap('check: { entity: widgets, action: list, params: { cursor: start },', 'check: { entity: widgets, action: get, params: { id: 1 },')(VALID)),
  },
  'check-params': { 'acme.yaml': swap('check: { entity: widgets, action: list, params: { cursor: start },', 'check: { entity: widgets, action: get,')(VALID) },
  'unknown-pagination': { 'acme.yaml': swap('pagination: pages', 'pagination: pagez')(VALID) },
  'body-on-read': {
    'acme.yaml': swap(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string } }\n          filter: { in: body, schema: { type: string } }',
    )(VALID),
  },
  'missing-records-path': { 'acme.yaml': swap('        records_path: widgets\n', '')(VALID) },
  'file-name': { 'other.yaml': VALID },
  'duplicate-connector': {
    'acme.yaml': VALID,
    'beta.yaml': swap('definition_id: 0b7e2c44-5d7a-4e55-9b1a-6c3f0e9d2a11', 'definition_id: 1b7e2c44-5d7a-4e55-9b1a-6c3f0e9d2a11')(VALID),
  },
  'duplicate-definition-id': { 'acme.yaml': VALID, 'beta.yaml': swap('connector_type: acme', 'connector_type: beta')(VALID) },
};

describe('every documented manifest error rule has a failing example', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  /** The diagnostics of a connector folder holding this one manifest. */
  const diagnosticsOf = (yaml: string) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'acme.yaml'), yaml);
    return loadDefinitions(dir).diagnostics;
  };

  it('finds the documented rules (sanity check of the extraction)', () => {
    expect(documented).toEqual(expect.arrayContaining(['yaml-syntax', 'minLength', 'maximum', 'unknown-pagination', 'duplicate-definition-id']));
    expect(documented.length).toBeGreaterThan(35);
  });

  it.each(documented)('rule `%s` has an example', (rule) => {
    expect(examples[rule], `add a manifest that breaks "${rule}" to this table`).toBeDefined();
  });

  it.each(Object.entries(examples))('`%s` is reported for its example', (rule, files) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    for (const [name, yaml] of Object.entries(files)) writeFileSync(path.join(dir, name), yaml);
    const { diagnostics } = loadDefinitions(dir);
    expect(
      diagnostics.map((d) => d.rule),
      JSON.stringify(diagnostics, null, 1),
    ).toContain(rule);
    for (const d of diagnostics.filter((x) => x.rule === rule)) expect(d.line).toBeGreaterThan(0);
  });

  it.each([
    [
      'unknown-param',
      'incremental: { param: cursr, format: iso8601, field: name, docs: "https://acme.example/docs" }',
      'incremental param "cursr" is not a param of widgets.list; did you mean "cursor"?',
    ],
    [
      'unknown-field',
      'incremental: { param: cursor, format: iso8601, field: nmae, docs: "https://acme.example/docs" }',
      'incremental field "nmae" is not a record field of widgets; did you mean "name"?',
    ],
    [
      'template-syntax',
      'incremental: { param: cursor, format: iso8601, template: "{value} {since}", field: name, docs: "https://acme.example/docs" }',
      'an incremental template knows only {value} and {current}',
    ],
    [
      'incremental-action',
      'incremental: { field: name, docs: "https://acme.example/docs" }',
      "incremental needs param and format (the vendor's change filter), or newest_first (the params of a newest-first order)",
    ],
    [
      'incremental-action',
      'incremental: { newest_first: { cursor: last }, param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs" }',
      'incremental has newest_first (an order) and a change filter (param, format, template): give one of them',
    ],
    [
      'unknown-param',
      'incremental: { newest_first: { sort: desc }, field: name, docs: "https://acme.example/docs" }',
      'newest_first param "sort" is not a param of widgets.list',
    ],
    [
      'incremental-action',
      'incremental: { newest_first: { cursor: 7 }, field: name, docs: "https://acme.example/docs" }',
      'newest_first param "cursor" value must be string',
    ],
    [
      'deleted-feed',
      'incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs", deleted_feed: { path: "/widgets/{id}/deleted", from: since, to: until, format: iso8601, records_path: deleted, id_field: id, docs: "https://acme.example/docs" } }',
      'deleted_feed path "/widgets/{id}/deleted" has a template: the sync sends only since and until',
    ],
    [
      'deleted-feed',
      'incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs", deleted_feed: { path: /widgets/deleted, from: until, to: until, format: iso8601_offset, records_path: deleted, id_field: id, docs: "https://acme.example/docs" } }',
      'deleted_feed from and to are the same param "until"',
    ],
    [
      'enum',
      'incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs", deleted_feed: { path: /widgets/deleted, from: since, to: until, format: minutes_ago, records_path: deleted, id_field: id, docs: "https://acme.example/docs" } }',
      'must be one of: iso8601, iso8601_offset, iso8601_millis, unix_seconds, unix_millis',
    ],
    [
      'enum',
      'incremental: { param: cursor, format: iso8061, field: name, docs: "https://acme.example/docs" }',
      'must be one of: iso8601, iso8601_millis, date, unix_seconds, unix_millis, unix_micros, minutes_ago; did you mean "iso8601"?',
    ],
  ])('search.incremental: `%s` names the line and suggests the fix', (rule, incremental, message) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'acme.yaml'), swap(RECORD, `    search:\n      fields: [name]\n      ${incremental}\n` + RECORD)(VALID));
    const { diagnostics } = loadDefinitions(dir);
    const found = diagnostics.find((d) => d.rule === rule);
    expect(found, JSON.stringify(diagnostics, null, 1)).toMatchObject({ line: 30, message });
    expect(path.resolve(found?.file ?? '')).toBe(path.join(dir, 'acme.yaml'));
  });

  it.each([
    [
      'confirm_deletion: { action: gets, param: id, docs: "https://acme.example/docs" }',
      30,
      'confirm_deletion action "gets" is not an action of widgets; did you mean "get"?',
      '',
    ],
    [
      'confirm_deletion: { action: get, param: ids, docs: "https://acme.example/docs" }',
      30,
      'confirm_deletion param "ids" is not a param of widgets.get; did you mean "id"?',
      '',
    ],
    [
      'confirm_deletion: { action: get, param: id, docs: "https://acme.example/docs" }',
      30,
      'widgets.get also requires expand: the sweep knows only the record id (in "id")',
      '          expand: { in: query, required: true, schema: { type: string } }\n',
    ],
    [
      'confirm_deletion: { action: get, param: id, docs: "https://acme.example/docs" }',
      30,
      'widgets records are stored under a composite id (id, name): confirm_deletion reads a record by one id',
      'composite',
    ],
  ])('confirm_deletion: `%s` is refused at its line (%i): %s', (confirm, line, message, change) => {
    const record = change === 'composite' ? '    record:\n      id_field: [id, name]\n      fields:\n' : RECORD;
    let yaml = swap(RECORD, `    search:\n      fields: [name]\n      ${confirm}\n${record}`)(VALID);
    if (change !== '' && change !== 'composite')
      yaml = swap(
        '          id: { in: path, required: true, schema: { type: integer } }\n',
        `          id: { in: path, required: true, schema: { type: integer } }\n${change}`,
      )(yaml);
    const diagnostics = diagnosticsOf(yaml);
    expect(diagnostics, JSON.stringify(diagnostics, null, 1)).toEqual([expect.objectContaining({ rule: 'confirm-deletion', line, message })]);
  });

  const INCREMENTAL = 'incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs" }';
  const withArchivedParam = swap(
    '          cursor: { in: query, schema: { type: string } }\n',
    '          cursor: { in: query, schema: { type: string } }\n          archived: { in: query, schema: { type: boolean } }\n',
  );

  it.each([
    [INCREMENTAL, '{ archivd: true }', 'archivedAt', 'unknown-param', 'removed param "archivd" is not a param of widgets.list; did you mean "archived"?'],
    [INCREMENTAL, '{ archived: "yes" }', 'archivedAt', 'removed', 'removed param "archived" value must be boolean'],
    [INCREMENTAL, '{ cursor: "x" }', 'archivedAt', 'removed', `removed param "cursor" is the change filter's param, which the sync fills itself`],
    [INCREMENTAL, '{ archived: true }', 'archived_at', 'removed', 'removed field "archived_at" is not a record field of widgets; did you mean "archivedAt"?'],
    [
      '# no change filter',
      '{ archived: true }',
      'archivedAt',
      'removed',
      'removed incremental_params are sent by incremental walks: declare search.incremental, or drop them',
    ],
  ])('search.removed: with %s, incremental_params %s and field %s are refused (%s): %s', (before, params, field, rule, message) => {
    const removed = `removed: { field: ${field}, incremental_params: ${params}, docs: "https://acme.example/docs" }`;
    const yaml = withArchivedParam(
      swap(RECORD, `    search:\n      fields: [name]\n      ${before}\n      ${removed}\n${RECORD}        archivedAt: string\n`)(VALID),
    );
    const diagnostics = diagnosticsOf(yaml);
    expect(diagnostics, JSON.stringify(diagnostics, null, 1)).toEqual([expect.objectContaining({ rule, line: 31, message })]);
  });

  it.each([
    [
      'with incremental_params',
      `${INCREMENTAL}\n      removed: { field: archivedAt, incremental_params: { archived: true }, docs: "https://acme.example/docs" }`,
    ],
    ['without a change filter', 'removed: { field: archivedAt, docs: "https://acme.example/docs" }'],
  ])('search.removed %s: a param of the action that accepts the value and a record field pass', (_label, search) => {
    const yaml = withArchivedParam(swap(RECORD, `    search:\n      fields: [name]\n      ${search}\n${RECORD}        archivedAt: string\n`)(VALID));
    expect(diagnosticsOf(yaml)).toEqual([]);
  });

  it.each([
    ['{ include_closd: true }', 'unknown-param', 'search param "include_closd" is not a param of widgets.list; did you mean "include_closed"?'],
    ['{ include_closed: "yes" }', 'search-params', 'search param "include_closed" value must be boolean'],
    ['{ cursor: start }', 'search-params', 'search param "cursor" is the each param, which the sync fills itself'],
  ])('search.params %s are refused (%s): %s', (params, rule, message) => {
    const yaml = swap(
      '          cursor: { in: query, schema: { type: string } }\n',
      '          cursor: { in: query, schema: { type: string, enum: [start, end] } }\n          include_closed: { in: query, schema: { type: boolean } }\n',
    )(swap(RECORD, `    search:\n      fields: [name]\n      each: cursor\n      params: ${params}\n${RECORD}`)(VALID));
    const diagnostics = diagnosticsOf(yaml);
    expect(diagnostics, JSON.stringify(diagnostics, null, 1)).toEqual([expect.objectContaining({ rule, line: 31, message })]);
  });

  it('search.params: a param of list that accepts the value passes', () => {
    const yaml = swap(
      '          cursor: { in: query, schema: { type: string } }\n',
      '          cursor: { in: query, schema: { type: string } }\n          include_closed: { in: query, schema: { type: boolean } }\n',
    )(swap(RECORD, `    search:\n      fields: [name]\n      params: { include_closed: true }\n${RECORD}`)(VALID));
    expect(diagnosticsOf(yaml)).toEqual([]);
  });

  it('confirm_deletion: a GET of the entity by its one id passes', () => {
    const confirm = 'confirm_deletion: { action: get, param: id, docs: "https://acme.example/docs" }';
    expect(diagnosticsOf(swap(RECORD, `    search:\n      fields: [name]\n      ${confirm}\n${RECORD}`)(VALID))).toEqual([]);
  });

  it('deleted_feed: refused on a composite id and on an entity read per parent (fan_out), at the feed', () => {
    const feed =
      'incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs", deleted_feed: { path: /widgets/deleted, from: since, to: until, format: iso8601, records_path: deleted, id_field: id, docs: "https://acme.example/docs" } }';
    const composite = swap(RECORD, `    search:\n      fields: [name]\n      ${feed}\n    record:\n      id_field: [id, name]\n      fields:\n`)(VALID);
    expect(diagnosticsOf(composite)).toEqual([
      expect.objectContaining({
        rule: 'deleted-feed',
        line: 30,
        message: 'widgets records are stored under a composite id (id, name): a deleted feed names records by one id',
      }),
    ]);
    const perParent =
      swap(RECORD, `    search:\n      fields: [name]\n      fan_out: { entity: gadgets, field: id, param: cursor }\n      ${feed}\n${RECORD}`)(VALID) +
      '  gadgets:\n    description: Gadgets.\n    record: { fields: { id: integer } }\n    actions:\n      list: { method: GET, path: /gadgets, records_path: gadgets }\n';
    expect(diagnosticsOf(perParent)).toEqual([
      expect.objectContaining({
        rule: 'deleted-feed',
        message: 'widgets is read once per gadgets (fan_out): a deleted feed is read once per sync, for root entities',
      }),
    ]);
  });

  it('incremental_with_parent: a parent with a change filter passes; a child with its own filter is refused', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    const gadgets = (search: string) =>
      `  gadgets:\n    description: Gadgets.\n    record: { fields: { id: integer, updated: string } }\n${search}    actions:\n      list: { method: GET, path: /gadgets, records_path: gadgets, params: { since: { in: query, schema: { type: string } } } }\n`;
    const parentFilter = '    search: { incremental: { param: since, format: iso8601, field: updated, docs: "https://acme.example/docs" } }\n';
    writeFileSync(
      path.join(dir, 'acme.yaml'),
      swap(RECORD, '    search: { fan_out: { entity: gadgets, field: id, param: cursor, incremental_with_parent: true } }\n' + RECORD)(VALID) +
        gadgets(parentFilter),
    );
    expect(loadDefinitions(dir).diagnostics).toEqual([]);
    writeFileSync(
      path.join(dir, 'acme.yaml'),
      swap(
        RECORD,
        '    search:\n      fan_out: { entity: gadgets, field: id, param: cursor, incremental_with_parent: true }\n      incremental: { param: cursor, format: iso8601, field: name, docs: "https://acme.example/docs" }\n' +
          RECORD,
      )(VALID) + gadgets(parentFilter),
    );
    expect(loadDefinitions(dir).diagnostics).toEqual([
      expect.objectContaining({ rule: 'incremental-parent', message: expect.stringMatching(/^widgets declares its own change filter/) }),
    ]);
  });

  /** The fixture with list params for ranges: an integer, a date-time, a date and an object with a date-time field. */
  const withRangeParams = (search: string) =>
    swap(
      '          cursor: { in: query, schema: { type: string } }',
      [
        '          cursor: { in: query, schema: { type: string } }',
        '          since: { in: query, schema: { type: integer } }',
        '          until: { in: query, schema: { type: string, format: date-time } }',
        '          day: { in: query, schema: { type: string, pattern: "^[0-9]{4}-[0-9]{2}-[0-9]{2}$" } }',
        '          kind: { in: query, schema: { type: string, enum: [a, b] } }',
        '          range: { in: query, schema: { type: object, properties: { from: { type: string, format: date-time } } } }',
      ].join('\n'),
    )(swap(RECORD, `    search:\n      fields: [name]\n      ${search}\n${RECORD}`)(VALID));
  const DOCS = 'docs: "https://acme.example/docs"';

  it.each([
    ['each', 'each: cursor', 'each param "cursor" has no enum in its schema: the sync lists once per enum value'],
    ['unknown-param', 'each: kinds', 'each param "kinds" is not a param of widgets.list; did you mean "kind"?'],
    [
      'unknown-param',
      `window: { from: snce, to: until, format: iso8601, start: "2022-01-01T00:00:00Z", ${DOCS} }`,
      'window from "snce" is not a param of widgets.list; did you mean "since"?',
    ],
    [
      'window',
      `window: { from: since, to: until, format: iso8601, start: "2022-01-01T00:00:00Z", ${DOCS} }`,
      'window from "since" does not accept the iso8601 value "2024-05-01T09:30:00Z": value must be integer',
    ],
    [
      'window',
      `window: { from: day, to: until, format: date, start: "2022-01-01T00:00:00Z", ${DOCS} }`,
      'window to "until" does not accept the date value "2024-05-01": value must match format "date-time"',
    ],
    ['window', `window: { from: until, to: until, format: iso8601, start: "2022-01-01T00:00:00Z", ${DOCS} }`, 'window from and to are the same param "until"'],
    [
      'window',
      `window: { from: cursor.from, to: until, format: iso8601, start: "2022-01-01T00:00:00Z", ${DOCS} }`,
      'window from "cursor.from" is a dot path, but param "cursor" is not an object',
    ],
    [
      'window',
      `window: { from: range.from, to: until, format: iso8601, start: "2999-01-01T00:00:00Z", ${DOCS} }`,
      'window start 2999-01-01T00:00:00Z is not in the past: a sync would ask for nothing and sweep every record',
    ],
    [
      'window',
      `window: { from: range.from, to: until, format: iso8601, start: "2022-01-01T00:00:00Z", lookback_days: 30, ${DOCS} }`,
      'window needs exactly one of start (the earliest instant asked for) and lookback_days (a rolling range)',
    ],
    [
      'window',
      `window: { from: range.from, to: until, format: iso8601, lookback_days: 30, ${DOCS} }\n      incremental: { param: cursor, format: iso8601, field: name, ${DOCS} }`,
      'a window is walked in full by every sync: give search.window, or search.incremental through an action without the window (action: api_search), not both on list',
    ],
  ])('search.each and search.window: `%s` names the line and the fix', (rule, search, message) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'acme.yaml'), withRangeParams(search));
    const { diagnostics } = loadDefinitions(dir);
    const found = diagnostics.find((d) => d.rule === rule);
    expect(found, JSON.stringify(diagnostics, null, 1)).toMatchObject({ message });
    expect(found?.line).toBeGreaterThanOrEqual(30);
    expect(path.resolve(found?.file ?? '')).toBe(path.join(dir, 'acme.yaml'));
  });

  it.each([
    ['unknown-param', 'config_params: { cursr: subdomain }', 'config param "cursr" is not a param of widgets.list; did you mean "cursor"?'],
    [
      'config-params',
      'config_params: { cursor: subdomian }',
      'config param "cursor" names config variable "subdomian", which the manifest\'s config does not declare; did you mean "subdomain"?',
    ],
    ['config-params', 'each: kind\n      config_params: { kind: subdomain }', 'config param "kind" is also the each param'],
  ])('search.config_params: `%s` names the line and the fix', (rule, search, message) => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'acme.yaml'), withRangeParams(search));
    const { diagnostics } = loadDefinitions(dir);
    expect(diagnostics, JSON.stringify(diagnostics, null, 1)).toEqual([expect.objectContaining({ rule, message, line: expect.any(Number) })]);
    expect(diagnostics[0]?.line).toBeGreaterThanOrEqual(30);
    expect(path.resolve(diagnostics[0]?.file ?? '')).toBe(path.join(dir, 'acme.yaml'));
  });

  it('record_path on a list: the one record of the answer with result: many written out, else a typo of records_path', () => {
    const diagnosticsOf = (list: string) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
      dirs.push(dir);
      writeFileSync(path.join(dir, 'acme.yaml'), VALID.replace('        records_path: widgets\n', list));
      return loadDefinitions(dir).diagnostics.map((d) => d.rule);
    };
    expect(diagnosticsOf('        result: many\n        record_path: widget\n')).toEqual([]);
    expect(diagnosticsOf('        record_path: widget\n')).toEqual(['missing-records-path']);
    expect(diagnosticsOf('        result: many\n        record_path: widget\n        records_path: widgets\n')).toEqual(['result-shape']);
  });

  it('alternative_paths: each path names only declared params, and a param missing from one of them is not required', () => {
    const withPaths = (params: string) =>
      VALID.replace(
        '        path: /widgets/{id}\n        params:\n          id: { in: path, required: true, schema: { type: integer } }',
        `        path: /widgets/{id}\n        alternative_paths: ['/shelves/{shelf}/widgets/{id}', '/bins/{bin}']\n        params:\n${params}`,
      );
    const diagnosticsOf = (params: string) => {
      const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
      dirs.push(dir);
      writeFileSync(path.join(dir, 'acme.yaml'), withPaths(params));
      return loadDefinitions(dir).diagnostics.map((d) => [d.rule, d.message]);
    };
    expect(
      diagnosticsOf('          id: { in: path, schema: { type: integer } }\n          shelf: { in: path, required: true, schema: { type: string } }'),
    ).toEqual([
      ['undeclared-path-param', 'path template names {bin}, which no param with in: path declares'],
      ['path-param-required', 'path param "shelf" is missing from some of the action\'s paths, so it cannot be required: name it in at_least_one_of instead'],
    ]);
    expect(
      diagnosticsOf(
        '          id: { in: path, schema: { type: integer } }\n          shelf: { in: path, schema: { type: string } }\n          bin: { in: path, schema: { type: string } }',
      ),
    ).toEqual([]);
  });

  it('authorization_code.settings_from_token names a config variable, or the line and a suggestion', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    const withFlow = (settings: string) =>
      swap(
        'auth:\n',
        `auth:\n  - type: oauth2_refresh\n    option_title: OAuth\n    token_url: https://acme.example/oauth/token\n    authorization_code:\n      authorization_url: https://acme.example/oauth/authorize\n      settings_from_token: { ${settings}: data.site }\n      docs: https://acme.example/docs/oauth\n    fields:\n${OAUTH_FIELDS}      account: { description: Account id, secret: false }\n`,
      )(VALID);
    writeFileSync(path.join(dir, 'acme.yaml'), withFlow('subdomain'));
    expect(loadDefinitions(dir).diagnostics).toEqual([]);
    const broken = withFlow('subdomian');
    writeFileSync(path.join(dir, 'acme.yaml'), broken);
    const { diagnostics } = loadDefinitions(dir);
    expect(diagnostics).toEqual([
      expect.objectContaining({
        rule: 'authorization-fields',
        line: broken.split('\n').findIndex((line) => line.includes('settings_from_token')) + 1,
        message: `settings_from_token fills config variable "subdomian", which the manifest's config does not declare; did you mean "subdomain"?`,
      }),
    ]);
  });

  it('response_fields on an action returning one record is refused at its line (result-shape)', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    const broken = swap(GET, `${GET}        response_fields: { owner_id: owner.id }\n`)(VALID);
    writeFileSync(path.join(dir, 'acme.yaml'), broken);
    expect(loadDefinitions(dir).diagnostics).toEqual([
      expect.objectContaining({
        rule: 'result-shape',
        line: broken.split('\n').findIndex((line) => line.includes('response_fields')) + 1,
        message: 'response_fields adds fields to each record of a list; a single record is the answer itself',
      }),
    ]);
  });

  it('a config param the manifest declares passes, and makes the entity syncable', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'acme.yaml'), withRangeParams('config_params: { cursor: subdomain }'));
    const { diagnostics, definitions } = loadDefinitions(dir);
    expect(diagnostics).toEqual([]);
    expect(definitions[0]?.entities.widgets?.search.configParams).toEqual({ cursor: 'subdomain' });
  });

  it('ranges and kinds the params accept pass', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    for (const search of [
      'each: kind',
      `window: { from: until, to: range.from, format: iso8601, start: "2022-01-01T00:00:00Z", max_days: 30, ${DOCS} }`,
      `window: { from: day, to: cursor, format: date, lookback_days: 364, ${DOCS} }`,
    ]) {
      writeFileSync(path.join(dir, 'acme.yaml'), withRangeParams(search));
      expect(loadDefinitions(dir).diagnostics, search).toEqual([]);
    }
  });

  it('a change filter whose param refuses the mark written as its format is refused, naming the value', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    const withSince = (format: string) =>
      swap(
        '          cursor: { in: query, schema: { type: string } }',
        '          cursor: { in: query, schema: { type: string } }\n          since: { in: query, schema: { type: integer } }',
      )(
        swap(
          RECORD,
          `    search:\n      fields: [name]\n      incremental: { param: since, format: ${format}, field: name, docs: "https://acme.example/docs" }\n${RECORD}`,
        )(VALID),
      );
    writeFileSync(path.join(dir, 'acme.yaml'), withSince('iso8601'));
    expect(loadDefinitions(dir).diagnostics).toEqual([
      expect.objectContaining({
        rule: 'incremental-action',
        line: 30,
        message: 'incremental param "since" does not accept the iso8601 value "2024-05-01T09:30:00Z": value must be integer',
      }),
    ]);
    writeFileSync(path.join(dir, 'acme.yaml'), withSince('unix_seconds'));
    expect(loadDefinitions(dir).diagnostics).toEqual([]);
  });

  it('a declared change filter with a valid param and field passes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(
      path.join(dir, 'acme.yaml'),
      swap(
        RECORD,
        '    search:\n      fields: [name]\n      incremental: { param: cursor, format: iso8601, field: name, field_format: unix_seconds, docs: "https://acme.example/docs" }\n' +
          RECORD,
      )(VALID),
    );
    expect(loadDefinitions(dir).diagnostics).toEqual([]);
  });

  it('a newest-first order with valid params passes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(
      path.join(dir, 'acme.yaml'),
      swap(
        RECORD,
        '    search:\n      fields: [name]\n      incremental: { newest_first: { cursor: newest }, field: name, docs: "https://acme.example/docs" }\n' + RECORD,
      )(VALID),
    );
    expect(loadDefinitions(dir).diagnostics).toEqual([]);
  });

  it('the valid fixture itself passes', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'acme.yaml'), VALID);
    expect(loadDefinitions(dir).diagnostics).toEqual([]);
  });
});

describe('a YAML alias without its anchor', () => {
  it('is a yaml-syntax diagnostic at the alias, not a stack trace', () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'manifest-rule-'));
    try {
      const yaml = swap('          cursor: { in: query, schema: { type: string } }', '          cursor: *cursor_param')(VALID);
      writeFileSync(path.join(dir, 'acme.yaml'), yaml);
      const line = yaml.split('\n').findIndex((text) => text.includes('*cursor_param')) + 1;
      expect(loadDefinitions(dir).diagnostics).toEqual([
        expect.objectContaining({
          rule: 'yaml-syntax',
          line,
          column: 19,
          message: 'alias *cursor_param has no anchor &cursor_param before it (anchors are set by &name on an earlier node of the same file)',
        }),
      ]);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
