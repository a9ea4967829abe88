import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatDiagnostic, type Diagnostic } from '../../codegen/manifest/load.js';
import { loadDefinitions } from '../../codegen/pipeline.js';
import { VALID } from '../support/manifest-fixture.js';

function diagnose(yaml: string): Diagnostic[] {
  const dir = mkdtempSync(path.join(tmpdir(), 'manifests-'));
  try {
    writeFileSync(path.join(dir, 'acme.yaml'), yaml);
    return loadDefinitions(dir).diagnostics;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
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
    expect(d).toMatchObject({
      rule: 'missing-key',
      path: 'entities.widgets.actions.get',
      message: 'missing required key "method"',
      line: lineOf(yaml, 'path: /widgets/{id}'),
    });
  });

  it('bad pagination style', () => {
    const yaml = VALID.replace('style: cursor', 'style: pages_by_magic');
    const diagnostics = diagnose(yaml);
    expect(diagnostics).toHaveLength(1);
    expect(diagnostics[0]).toMatchObject({ rule: 'enum', path: 'pagination.pages.style', line: lineOf(yaml, 'pages_by_magic') });
    expect(diagnostics[0]?.message).toContain(
      'next_url, cursor, link_header, page_number, offset, graphql_page_info, next_page_token, next_records_url, bookmark',
    );
  });

  it('param declared twice (same YAML key)', () => {
    const yaml = VALID.replace(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string } }\n          cursor: { in: query, schema: { type: integer } }',
    );
    const [d] = diagnose(yaml);
    expect(d).toMatchObject({ rule: 'duplicate-key', line: lineOf(yaml, 'type: integer } }') });
  });

  it('param declared twice (two names sending the same wire name)', () => {
    const yaml = VALID.replace(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string } }\n          after: { in: query, wire: cursor, schema: { type: string } }',
    );
    const [d, ...rest] = diagnose(yaml);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({ rule: 'duplicate-param', path: 'entities.widgets.actions.list.params.after', line: lineOf(yaml, 'after:'), column: 11 });
  });

  it('a param or header that auth already sends on every request', () => {
    const header = VALID.replace(
      '          cursor: { in: query, schema: { type: string } }',
      '          cursor: { in: query, schema: { type: string } }\n          auth: { in: header, wire: authorization, schema: { type: string } }',
    );
    const [d, ...rest] = diagnose(header);
    expect(rest).toEqual([]);
    expect(d).toMatchObject({
      rule: 'auth-param-collision',
      path: 'entities.widgets.actions.list.params.auth',
      line: lineOf(header, 'auth: { in: header'),
      column: 11,
      message:
        'header param "auth" sends header "authorization", which auth option "Token" sends on every request: remove the param (or rename what it sends with wire)',
    });
    const apiKey = VALID.replace(
      '  - type: bearer\n    option_title: Token\n    token: "{{credentials.token}}"\n',
      '  - type: api_key\n    option_title: Token\n    in: query\n    name: cursor\n    value: "{{credentials.token}}"\n',
    ).replace('X-Account: "{{credentials.account}}"', 'Authorization: "{{credentials.account}}"');
    expect(diagnose(apiKey).map((diagnostic) => [diagnostic.rule, diagnostic.path, diagnostic.message])).toEqual([
      [
        'auth-param-collision',
        'entities.widgets.actions.list.params.cursor',
        'query param "cursor" sends query "cursor", which auth option "Token" sends on every request: remove the param (or rename what it sends with wire)',
      ],
    ]);
    const connectorHeader = VALID.replace('X-Account: "{{credentials.account}}"', 'authorization: "{{credentials.account}}"');
    expect(diagnose(connectorHeader).map((diagnostic) => [diagnostic.rule, diagnostic.path])).toEqual([['auth-param-collision', 'headers.authorization']]);
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
    expect(
      diagnose(yaml)
        .map((d) => d.rule)
        .sort(),
    ).toEqual(['unknown-config', 'unknown-pagination']);
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
    const yaml = VALID.replace('    option_title: Token\n', '    option_title: 42\n').replace(
      '      account: { description: Account id, secret: false }',
      '      account: { descr: Account id }',
    );
    const rules = diagnose(yaml).map((d) => `${d.path} ${d.rule}`);
    expect(rules).toEqual(expect.arrayContaining(['auth.0.option_title type', 'auth.0.fields.account.descr unknown-key', 'auth.0.fields.account missing-key']));
  });

  it('refuses a token value that no OAuth option keeps', () => {
    const yaml = VALID.replace('base_url: https://{{config.subdomain}}.acme.example/api', 'base_url: "{{token.instance_url}}/api"\nbase_url_host_pattern: ^x$');
    expect(diagnose(yaml)).toEqual([expect.objectContaining({ rule: 'unknown-token-value', path: 'base_url' })]);
  });

  describe('check: the one cheap read of the connector check', () => {
    const withCheck = (check: string) => VALID.replace(/^check: .*$/m, `check: ${check}`);

    it('is required', () => {
      const [d] = diagnose(VALID.replace(/^check: .*\n/m, ''));
      expect(d).toMatchObject({ rule: 'missing-key', message: 'missing required key "check"' });
    });

    it('names an entity and an action the manifest declares', () => {
      expect(diagnose(withCheck('{ entity: gadgets, action: list, doc: "https://acme.example/docs" }'))).toMatchObject([
        { rule: 'unknown-entity', path: 'check.entity' },
      ]);
      expect(diagnose(withCheck('{ entity: widgets, action: count, doc: "https://acme.example/docs" }'))).toMatchObject([
        { rule: 'unknown-action', path: 'check.action' },
      ]);
    });

    it('must be a read', () => {
      const yaml = withCheck('{ entity: widgets, action: get, params: { id: 1 }, doc: "https://acme.example/docs" }').replace(
        '        method: GET\n        path: /widgets/{id}',
        '        method: DELETE\n        path: /widgets/{id}',
      );
      expect(diagnose(yaml)).toMatchObject([{ rule: 'check-read-only', path: 'check.action' }]);
    });

    it('gives required params, declared params only, with values their schemas accept', () => {
      expect(diagnose(withCheck('{ entity: widgets, action: get, doc: "https://acme.example/docs" }'))).toMatchObject([
        { rule: 'check-params', message: expect.stringContaining('"id"') },
      ]);
      expect(diagnose(withCheck('{ entity: widgets, action: get, params: { id: "x" }, doc: "https://acme.example/docs" }'))).toMatchObject([
        { rule: 'check-params', path: 'check.params.id' },
      ]);
      expect(diagnose(withCheck('{ entity: widgets, action: list, params: { size: 1 }, doc: "https://acme.example/docs" }'))).toMatchObject([
        { rule: 'unknown-param', path: 'check.params.size' },
      ]);
    });
  });

  it('checks an authorization_code on an option that is not oauth2_refresh: its own token_url, the access_token field', () => {
    const bearer = `  - type: bearer
    option_title: OAuth token
    token: "{{credentials.token}}"
    authorization_code:
      authorization_url: https://acme.example/oauth/authorize
      docs: https://acme.example/docs/oauth
    fields:
      token: { description: Token }
      account: { description: Account id, secret: false }
`;
    const yaml = VALID.replace('pagination:\n', `${bearer}pagination:\n`);
    expect(diagnose(yaml).map((d) => `${d.path} ${d.rule}`)).toEqual(['auth.1.authorization_code authorization-fields', 'auth.1.fields authorization-fields']);
    const filled = `  - type: bearer
    option_title: OAuth token
    token: "{{credentials.access_token}}"
    authorization_code:
      authorization_url: https://acme.example/oauth/authorize
      token_url: "https://acme.example/oauth/token?u={{credentials.account}}"
      body_format: query
      docs: https://acme.example/docs/oauth
    fields:
      access_token: { description: Token }
      account: { description: Account id, secret: false }
`;
    const withCredentialUrl = VALID.replace('pagination:\n', `${filled}pagination:\n`);
    expect(diagnose(withCredentialUrl).map((d) => `${d.path} ${d.rule}`)).toEqual(['auth.1.authorization_code.token_url authorization-fields']);
    expect(diagnose(withCredentialUrl.replace('?u={{credentials.account}}', ''))).toEqual([]);

    const refresh = `  - type: oauth2_refresh
    option_title: OAuth
    token_url: https://acme.example/oauth/token
    authorization_code:
      authorization_url: https://acme.example/oauth/authorize
      token_url: https://acme.example/other/token
      body_format: query
      docs: https://acme.example/docs/oauth
    fields:
      client_id: { description: Client id, secret: false }
      client_secret: { description: Client secret }
      refresh_token: { description: Refresh token }
      account: { description: Account id, secret: false }
`;
    expect(diagnose(VALID.replace('pagination:\n', `${refresh}pagination:\n`)).map((d) => `${d.path} ${d.rule}`)).toEqual([
      'auth.1.authorization_code.token_url authorization-fields',
      'auth.1.authorization_code.body_format authorization-fields',
    ]);
  });

  it("checks an OAuth option's authorization_code: filled fields, templates and patterns", () => {
    const oauth = `  - type: oauth2_refresh
    option_title: OAuth
    token_url: https://acme.example/oauth/token
    authorization_code:
      authorization_url: "https://{{config.subdomain}}.acme.example/oauth/authorize?hint={{credentials.account}}"
      pkce: true
      from_callback: { account: { param: scope, pattern: '^acme:(' }, refresh_token: { param: code } }
      from_token: { region: region }
      lookup: { url: "https://acme.example/me?u={{credentials.account}}", match: { host: "{{credentials.account}}" }, fields: { client_id: id } }
      docs: https://acme.example/docs/oauth
    fields:
      client_id: { description: Client id, secret: false }
      client_secret: { description: Client secret }
      refresh_token: { description: Refresh token }
      account: { description: Account id, secret: false }
`;
    const yaml = VALID.replace('pagination:\n', `${oauth}pagination:\n`);
    const rules = diagnose(yaml).map((d) => `${d.path} ${d.rule}`);
    expect(rules).toEqual(
      expect.arrayContaining([
        'auth.1.authorization_code.authorization_url authorization-fields',
        'auth.1.authorization_code.from_callback.account.pattern authorization-fields',
        'auth.1.authorization_code.from_callback.refresh_token authorization-fields',
        'auth.1.authorization_code.from_token.region authorization-fields',
        'auth.1.authorization_code.lookup.fields.client_id authorization-fields',
        'auth.1.authorization_code.lookup.url authorization-fields',
        'auth.1.authorization_code.lookup.match.host authorization-fields',
      ]),
    );
    const fixed = yaml
      .replace('?hint={{credentials.account}}', '')
      .replace("pattern: '^acme:(' }, refresh_token: { param: code } }", () => "pattern: '^acme:([0-9]+)$' } }")
      .replace('      from_token: { region: region }\n', '')
      .replace(
        'u={{credentials.account}}", match: { host: "{{credentials.account}}" }, fields: { client_id: id }',
        'u=1", match: { host: "{{config.subdomain}}.acme.example" }, fields: { account: id }',
      );
    expect(diagnose(fixed)).toEqual([]);
  });

  it('checks the declarative exchange keys: renames, GET, the wrapped token, the follow-up exchange', () => {
    const tiktokLike = `  - type: api_key
    option_title: Access token
    in: header
    name: Access-Token
    value: "{{credentials.access_token}}"
    authorization_code:
      authorization_url: https://acme.example/portal/auth
      token_url: https://acme.example/oauth2/access_token/
      token_method: GET
      body_format: json
      param_names: { client_id: app_id, client_secret: secret, code: app_id }
      omit_params: [response_type, grant_type, redirect_uri]
      token_path: data.access_token
      error_in_body: { path: code, success: [0], message: message }
      follow_up_exchange:
        url: "https://acme.example/oauth/{{token.access_token}}"
        params: { grant_type: exchange, key: "{{credentials.client_secrett}}", other: "{{credentials.access_token}}" }
        docs: https://acme.example/docs/long-lived
      docs: https://acme.example/docs/oauth
    fields:
      access_token: { description: Token }
      account: { description: Account id, secret: false }
`;
    const yaml = VALID.replace('pagination:\n', `${tiktokLike}pagination:\n`);
    const found = diagnose(yaml);
    expect(found.map((d) => `${d.path} ${d.rule}`)).toEqual([
      'auth.1.authorization_code.token_method authorization-fields',
      'auth.1.authorization_code.param_names.code authorization-fields',
      'auth.1.authorization_code.follow_up_exchange.url authorization-fields',
      'auth.1.authorization_code.follow_up_exchange.params.key authorization-fields',
      'auth.1.authorization_code.follow_up_exchange.params.other authorization-fields',
      'auth.1.authorization_code.follow_up_exchange.params authorization-fields',
    ]);
    // Each names its line, and a misspelt client credential gets a suggestion.
    expect(found[0]).toMatchObject({ line: lineOf(yaml, 'token_method: GET') });
    expect(found[1]).toMatchObject({ line: lineOf(yaml, 'param_names:') });
    expect(found[3]?.message).toContain('not "client_secrett"; did you mean "client_secret"?');
    expect(found[5]?.message).toContain('{{token.access_token}}');
    const fixed = yaml
      .replace('      token_method: GET\n', '')
      .replace('code: app_id }', 'code: auth_code }')
      .replace('/oauth/{{token.access_token}}"', '/oauth/long"')
      .replace(
        'key: "{{credentials.client_secrett}}", other: "{{credentials.access_token}}"',
        'key: "{{credentials.client_secret}}", token: "{{token.access_token}}"',
      );
    expect(diagnose(fixed)).toEqual([]);

    // An unknown rename is a schema error with a suggestion; the keys are refused on an oauth2_refresh option.
    const misspelt = diagnose(fixed.replace('client_secret: secret,', 'client_secert: secret,'));
    expect(misspelt.map((d) => `${d.path} ${d.rule}`)).toEqual(['auth.1.authorization_code.param_names.client_secert unknown-key']);
    expect(misspelt[0]?.message).toContain('did you mean "client_secret"?');
    const refresh = `  - type: oauth2_refresh
    option_title: OAuth
    token_url: https://acme.example/oauth/token
    authorization_code:
      authorization_url: https://acme.example/oauth/authorize
      token_method: GET
      param_names: { client_id: app_id }
      token_path: data.access_token
      docs: https://acme.example/docs/oauth
    fields:
      client_id: { description: Client id, secret: false }
      client_secret: { description: Client secret }
      refresh_token: { description: Refresh token }
      account: { description: Account id, secret: false }
`;
    expect(diagnose(VALID.replace('pagination:\n', `${refresh}pagination:\n`)).map((d) => `${d.path} ${d.rule}`)).toEqual([
      'auth.1.authorization_code.token_method authorization-fields',
      'auth.1.authorization_code.param_names authorization-fields',
      'auth.1.authorization_code.token_path authorization-fields',
    ]);
  });
});
