import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { Connector, ValidationError, type ConnectorModule } from '../../runtime/index.js';
import type { ActionDefinition, ConnectorDefinition } from '../../runtime/definition.js';
import { issuesFromValidator, type CompiledValidator } from '../../runtime/validation.js';

/** A one-entity connector built in memory, to test runtime rules independent of any manifest. */
function moduleWith(action: Partial<ActionDefinition>, validator: CompiledValidator = Object.assign(() => true, { errors: null })): ConnectorModule {
  const definition: ConnectorDefinition = {
    connectorType: 'acme',
    displayName: 'Acme',
    definitionId: '00000000-0000-4000-8000-000000000000',
    iconUrl: 'https://acme.example/icon.png',
    supportLevel: 'community',
    category: 'testing',
    description: 'test',
    docs: [],
    baseUrl: 'https://api.acme.example',
    config: {},
    headers: {},
    auth: [
      {
        type: 'oauth2_refresh',
        optionTitle: 'OAuth',
        fields: {
          client_id: { description: '', required: true, secret: false },
          client_secret: { description: '', required: true, secret: true },
          refresh_token: { description: '', required: true, secret: true },
        },
        headers: {},
        tokenUrl: 'https://auth.acme.example/token',
        clientAuth: 'body',
        bodyFormat: 'form',
        scheme: 'Bearer',
        extraTokenParams: {},
        tokenHeaders: { 'Acme-Version': '2025-01-01' },
        keep: [],
      },
    ],
    check: { entity: 'things', action: 'list', params: {}, doc: 'https://acme.example/docs/things' },
    entities: {
      things: {
        name: 'things',
        description: '',
        record: { singleton: false, idField: 'id', fields: { id: { type: 'string' } } },
        search: { fields: [], semantic: [] },
        actions: {
          list: {
            name: 'list',
            method: 'GET',
            path: '/things',
            params: {},
            result: 'many',
            guards: [],
            idempotent: true,
            destructive: false,
            readOnly: true,
            ...action,
          },
        },
      },
    },
  };
  return { definition, validators: { things__list: validator } };
}

const credentials = { client_id: 'c', client_secret: 's', refresh_token: 'r' };

describe('runtime param rules', () => {
  beforeAll(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
  });

  it('value_template writes the wire form and reads it back from a next link', async () => {
    const filter = {
      in: 'query' as const,
      wire: 'filter',
      required: true,
      schema: { enum: ['email', 'sms'] },
      sendDefault: false,
      valueTemplate: "equals(messages.channel,'{value}')",
    };
    const cursor = { in: 'query' as const, wire: 'page[cursor]', required: false, schema: { type: 'string' }, sendDefault: false };
    const connector = new Connector(
      moduleWith({
        params: { filter, 'page[cursor]': cursor },
        recordsPath: 'data',
        pagination: { style: 'next_url', next_url: 'body.links.next', block: { next: 'body.links.next' } },
      }),
      { credentials },
    );
    const next = "https://api.acme.example/things?filter=equals(messages.channel,'sms')&page[cursor]=c2";
    nock('https://auth.acme.example').post('/token').matchHeader('acme-version', '2025-01-01').reply(200, { access_token: 'tok', expires_in: 3600 });
    nock('https://api.acme.example')
      .get('/things')
      .query({ filter: "equals(messages.channel,'sms')" })
      .reply(200, { data: [{ id: '1' }], links: { next } });
    const page = await connector.execute('things', 'list', { filter: 'sms' });
    expect(page.next_params).toEqual({ filter: 'sms', 'page[cursor]': 'c2' });
    expect(nock.pendingMocks()).toEqual([]);
  });

  it('at_most_one_of refuses two exclusive params before sending', async () => {
    const optional = { in: 'body' as const, required: false, schema: { type: 'string' }, sendDefault: false };
    const connector = new Connector(
      moduleWith({
        params: { parent: { ...optional, wire: 'parent' }, discussion_id: { ...optional, wire: 'discussion_id' } },
        atMostOneOf: ['parent', 'discussion_id'],
      }),
      { credentials },
    );
    const error = (await connector.execute('things', 'list', { parent: 'p', discussion_id: 'd' }).catch((e: unknown) => e)) as ValidationError;
    expect(error).toBeInstanceOf(ValidationError);
    expect(error.issues[0]).toMatchObject({ field: 'params', rule: 'at_most_one_of', limit: ['parent', 'discussion_id'] });
  });

  it('a oneOf matched by several shapes is reported, so the request is never sent', async () => {
    const issues = issuesFromValidator([
      { instancePath: '/parent', keyword: 'oneOf', params: { passingSchemas: [0, 1] }, message: 'must match exactly one schema in oneOf' },
    ]);
    expect(issues).toEqual([{ field: 'parent', rule: 'oneOf', message: 'parent matches more than one of the allowed shapes; give exactly one' }]);
    const failing = Object.assign(() => false, { errors: [{ instancePath: '', keyword: 'anyOf', params: {}, message: 'must match a schema in anyOf' }] });
    const connector = new Connector(moduleWith({}, failing), { credentials });
    await expect(connector.execute('things', 'list', {})).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('error_in_body', () => {
  beforeAll(() => nock.disableNetConnect());

  it('turns a 200 whose body reports failure into the matching error', async () => {
    const base = moduleWith({ recordsPath: 'data.list' });
    base.definition.errorInBody = { path: 'code', success: [0], message: 'message', auth_values: [40105], rate_limit_values: [40100] };
    const connector = new Connector(base, { credentials, http: { retries: 0 } });
    nock('https://auth.acme.example').post('/token').reply(200, { access_token: 'tok', expires_in: 3600 });
    const api = nock('https://api.acme.example');
    api.get('/things').reply(200, { code: 40105, message: 'Access token is incorrect', data: {} });
    api.get('/things').reply(200, { code: 40100, message: 'Too many requests', data: {} });
    api.get('/things').reply(200, { code: 40002, message: 'advertiser_id: Missing data for required field.', data: {} });
    api.get('/things').reply(200, { code: 0, message: 'OK', data: { list: [{ id: '1' }] } });
    await expect(connector.execute('things', 'list')).rejects.toThrow(/refused the credentials \(code 40105: Access token is incorrect\)/);
    await expect(connector.execute('things', 'list')).rejects.toThrow(/rate limit/);
    await expect(connector.execute('things', 'list')).rejects.toThrow(/rejected the request \(code 40002: advertiser_id/);
    expect((await connector.execute('things', 'list')).data).toEqual([{ id: '1' }]);
  });
});
