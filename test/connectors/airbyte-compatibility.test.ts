/**
 * What a client written for Airbyte's Agent API sends, per connector kind, from Airbyte's own facts
 * (shared/reference/airbyte-agent-api/connectors.json): its definition ids and names find our kinds,
 * and every one of its credential options is accepted with its title and field names. Then, with nock,
 * that the aliased credentials reach the vendor where they belong.
 */
import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterEach, describe, expect, it } from 'vitest';
import { selectAuthOption } from '../../runtime/auth/select-option.js';
import { connectorModules, createConnector, CredentialsError, findConnectorModule, type AuthOption } from '../../runtime/index.js';
import { syncProblem } from '../../src/context/sync/plan.js';

interface AirbyteOption {
  option_title: string | null;
  type: string;
  fields: Record<string, { required: boolean }>;
}
interface AirbyteKind {
  airbyte_definition_id: string;
  airbyte_slug: string;
  auth_options: AirbyteOption[];
  /** Entities its context store searches, with their fields. */
  searchable_fields?: Record<string, unknown>;
}

const AIRBYTE = JSON.parse(readFileSync(new URL('../../../shared/reference/airbyte-agent-api/connectors.json', import.meta.url), 'utf8')) as Record<
  string,
  AirbyteKind
>;
const kinds = Object.keys(AIRBYTE).sort();

/** A value our declaration of the field accepts: its documented example when it has one. */
function sampleValue(options: AuthOption[], key: string): string {
  for (const option of options) {
    for (const [name, field] of Object.entries(option.fields)) {
      if ((name === key || field.aliases?.includes(key)) && field.example !== undefined) return field.example;
    }
  }
  return `${key}-value-0001`;
}

function airbyteCredentials(options: AuthOption[], option: AirbyteOption): Record<string, unknown> {
  const credentials: Record<string, unknown> = {};
  if (option.option_title !== null) credentials.option_title = option.option_title;
  for (const key of Object.keys(option.fields)) credentials[key] = sampleValue(options, key);
  return credentials;
}

describe("Airbyte's catalog identity", () => {
  it('covers the same 20 connector kinds', () => {
    expect(kinds).toEqual(Object.keys(connectorModules).sort());
  });

  it.each(kinds)("%s: definition_id is Airbyte's, and Airbyte's name finds the kind", (kind) => {
    const facts = AIRBYTE[kind] as AirbyteKind;
    const module = connectorModules[kind];
    expect(module?.definition.definitionId).toBe(facts.airbyte_definition_id);
    expect(findConnectorModule(facts.airbyte_slug)).toBe(module);
  });

  it("library mode creates a connector by Airbyte's name", () => {
    expect(createConnector('clickup-api', { credentials: { api_key: 'pk_1_ABC' } }).definition.connectorType).toBe('clickup');
  });
});

describe("Airbyte's credential options", () => {
  const cases = kinds.flatMap((kind) =>
    (AIRBYTE[kind] as AirbyteKind).auth_options.map((option) => [kind, option.option_title ?? '(untitled)', option] as const),
  );

  it.each(cases)('%s accepts "%s" with Airbyte\'s field names', (kind, _title, option) => {
    const auth = connectorModules[kind]?.definition.auth as AuthOption[];
    const given = airbyteCredentials(auth, option);
    const { option: chosen, credentials } = selectAuthOption(auth, given);
    // Every field sent is kept, under our name for it.
    expect(Object.keys(credentials)).toHaveLength(Object.keys(option.fields).length);
    for (const key of Object.keys(option.fields)) {
      const name = Object.entries(chosen.fields).find(([n, f]) => n === key || f.aliases?.includes(key))?.[0];
      expect(name, `${key} is a field of ${chosen.optionTitle}`).toBeDefined();
      expect(credentials[name as string]).toBe(given[key]);
    }
    // The title also matches with other case, spacing and punctuation.
    if (option.option_title !== null) {
      const variant = option.option_title.toUpperCase().replace(/ /g, '_');
      expect(selectAuthOption(auth, { ...given, option_title: variant }).option).toBe(chosen);
    } else {
      expect(selectAuthOption(auth, { ...given, option_title: null }).option).toBe(chosen);
    }
  });

  it('numbers and booleans are accepted as their string form', () => {
    const auth = connectorModules.harvest?.definition.auth as AuthOption[];
    expect(selectAuthOption(auth, { option_title: 'Personal Access Token', token: 'pat-0001', account_id: 123456 }).credentials).toEqual({
      api_token: 'pat-0001',
      account_id: '123456',
    });
    const zendesk = connectorModules['zendesk-talk']?.definition;
    const connector = createConnector('zendesk-talk', { credentials: { api_token: 'zd-token-0001', email: 'ana@acme.com' }, config: { subdomain: 1234 } });
    expect(connector.definition).toBe(zendesk);
  });

  it('a field given under its name and an alias, an object value or an unknown key is refused without echoing values', () => {
    const auth = connectorModules.harvest?.definition.auth as AuthOption[];
    const refuse = (input: Record<string, unknown>) => {
      try {
        selectAuthOption(auth, input);
      } catch (error) {
        expect(error).toBeInstanceOf(CredentialsError);
        return (error as Error).message;
      }
      throw new Error('expected a refusal');
    };
    const both = refuse({ option_title: 'personal access token', token: 'secret-AAAA-1', api_token: 'secret-BBBB-2', account_id: '1' });
    expect(both).toBe('Invalid credentials: "token" and "api_token" both give "api_token"; send one.');
    const object = refuse({ option_title: 'Personal Access Token', token: { nested: 'secret-CCCC-3' }, account_id: '1' });
    expect(object).toBe('Invalid credentials: "token" must be a string.');
    const missing = refuse({ option_title: 'Personal Access Token', account_id: 7 });
    expect(missing).toBe('Invalid credentials: "api_token" (or "token") is required by option "Personal Access Token".');
    const unknownTitle = refuse({ option_title: 'Magic Link', token: 'secret-DDDD-4' });
    expect(unknownTitle).toMatch(/^credentials.option_title "Magic Link" is not offered by this connector/);
    for (const message of [both, object, unknownTitle]) expect(message).not.toMatch(/secret-/);
  });

  it("Notion's OAuth2.0 title picks the refreshing option with a refresh token, the access-token option without", () => {
    const auth = connectorModules.notion?.definition.auth as AuthOption[];
    const oauth = { option_title: 'OAuth2.0', client_id: 'cid', client_secret: 'cs-0001' };
    expect(selectAuthOption(auth, { ...oauth, access_token: 'ntn_access_0001' }).option.type).toBe('bearer');
    expect(selectAuthOption(auth, { ...oauth, refresh_token: 'rt-0001' }).option.type).toBe('oauth2_refresh');
    expect(selectAuthOption(auth, { ...oauth, access_token: 'ntn_access_0001', refresh_token: 'rt-0001' }).option.type).toBe('oauth2_refresh');
  });
});

describe('aliased credentials reach the vendor', () => {
  afterEach(() => {
    nock.cleanAll();
  });

  it("Harvest: Airbyte's token is the bearer token, account_id (a number) the account header", async () => {
    const scope = nock('https://api.harvestapp.com')
      .matchHeader('authorization', 'Bearer harvest-pat-0001')
      .matchHeader('harvest-account-id', '123456')
      .get('/v2/company')
      .reply(200, { name: 'Acme' });
    const harvest = createConnector('harvest', { credentials: { option_title: 'Personal Access Token', token: 'harvest-pat-0001', account_id: 123456 } });
    expect((await harvest.execute('company', 'get')).data).toEqual({ name: 'Acme' });
    scope.done();
  });

  it("Jira: Airbyte's username and password make the basic credentials", async () => {
    const basic = `Basic ${Buffer.from('ana@acme.com:jira-token-0001').toString('base64')}`;
    const scope = nock('https://acme.atlassian.net')
      .matchHeader('authorization', basic)
      .get('/rest/api/3/users/search')
      .query({ maxResults: '1' })
      .reply(200, [{ accountId: 'a1', displayName: 'Ana' }]);
    const jira = createConnector('jira', {
      credentials: { option_title: 'Jira API Token Authentication', username: 'ana@acme.com', password: 'jira-token-0001' },
      config: { subdomain: 'acme' },
    });
    expect((await jira.execute('users', 'list', { limit: 1 })).data).toEqual([{ accountId: 'a1', displayName: 'Ana' }]);
    scope.done();
  });

  it("Notion: Airbyte's token, and its OAuth2.0 access token without a refresh token, are sent as bearer", async () => {
    for (const [credentials, token] of [
      [{ option_title: 'Access Token', token: 'ntn_internal_0001' }, 'ntn_internal_0001'],
      [{ option_title: 'OAuth 2.0', access_token: 'ntn_oauth_access_0001', client_id: 'cid', client_secret: 'cs-0001' }, 'ntn_oauth_access_0001'],
    ] as const) {
      const scope = nock('https://api.notion.com')
        .matchHeader('authorization', `Bearer ${token}`)
        .matchHeader('notion-version', '2025-09-03')
        .get('/v1/users')
        .reply(200, { object: 'list', results: [{ id: 'u1' }], has_more: false, next_cursor: null });
      const notion = createConnector('notion', { credentials });
      expect((await notion.execute('users', 'list', null)).data).toEqual([{ id: 'u1' }]);
      scope.done();
    }
  });

  it("ClickUp: Airbyte's api_key is the token sent alone in Authorization", async () => {
    const scope = nock('https://api.clickup.com')
      .matchHeader('authorization', 'pk_42_ABCDEF')
      .get('/api/v2/team')
      .reply(200, { teams: [{ id: '1' }, { id: '2' }] });
    const clickup = createConnector('clickup-api', { credentials: { option_title: 'API Key Authentication', api_key: 'pk_42_ABCDEF' } });
    // teams.list has no page-size param: limit cuts the page.
    expect((await clickup.execute('teams', 'list', { limit: 1 })).data).toEqual([{ id: '1' }]);
    scope.done();
  });
});

/**
 * Entities the reference service searches in its context store that the contract does not list for the
 * kind, offered here as list and get only: syncing Typeform's would need scopes the tokens made for forms
 * and responses do not have (every sync of such a connector would fail on them), and webhook records
 * carry their signing secret.
 */
const OUTSIDE_THE_CONTRACT: Record<string, string[]> = {
  typeform: ['images', 'themes', 'webhooks', 'workspaces'],
};

describe('context store entities of the reference service', () => {
  it.each(kinds)('%s: every entity the reference searches is one a sync can read here', (kind) => {
    const module = connectorModules[kind] ?? findConnectorModule(kind);
    if (!module) throw new Error(`no connector kind for ${kind}`);
    const expected = Object.keys(AIRBYTE[kind]?.searchable_fields ?? {}).filter((entity) => !(OUTSIDE_THE_CONTRACT[kind] ?? []).includes(entity));
    const problems = Object.fromEntries(expected.map((entity) => [entity, syncProblem(module.definition, entity) ?? 'syncable']));
    expect(problems).toEqual(Object.fromEntries(expected.map((entity) => [entity, 'syncable'])));
  });
});
