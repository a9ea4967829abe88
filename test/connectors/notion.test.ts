import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, createConnector, ValidationError } from '../../runtime/index.js';

// Notion public API, Notion-Version 2025-09-03. Bodies follow the object examples of
// developers.notion.com (page, data source, block, comment, user, list) and the examples of the
// vendor spec (shared/vendor-specs/notion/openapi-2025-09-03.json, comments).

const API = 'https://api.notion.com';
const VERSION = '2025-09-03';
const TOKEN = 'ntn_4Kq8vR2mT6wZ1xC5bN9pL3sD7fG0hJ2kM4nQ6rS8tV';

type Rec = Record<string, any>;

const notion = () => createConnector('notion', { credentials: { access_token: TOKEN }, http: { retries: 0 } });

/** A scope that only matches requests with the bearer token and the Notion-Version header. */
const api = (token = TOKEN) => nock(API).matchHeader('authorization', `Bearer ${token}`).matchHeader('notion-version', VERSION);
/** Same, for requests with a JSON body. */
const apiJson = (token = TOKEN) => api(token).matchHeader('content-type', 'application/json');

const list = (results: Rec[], next_cursor: string | null = null, type = 'page_or_data_source') => ({
  object: 'list',
  results,
  next_cursor,
  has_more: next_cursor !== null,
  type,
  [type]: {},
  request_id: 'f8e3d6c2-4b1a-4e9d-8c7f-2a5b9e1d3c60',
});

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------
const USER_PERSON = {
  object: 'user',
  id: 'd40e767c-d7af-4b18-a86d-55c61f1e39a4',
  type: 'person',
  name: 'Avocado Lovelace',
  avatar_url: 'https://secure.notion-static.com/e6a352a8-8381-44d0-a1dc-9ed80e62b53d.jpg',
  person: { email: 'avo@example.org' },
};
const USER_BOT = {
  object: 'user',
  id: '9a3b5ae0-c6e6-482d-b0e1-ed315ee6dc57',
  type: 'bot',
  name: 'Doug Engelbot',
  avatar_url: null,
  bot: { owner: { type: 'workspace', workspace: true }, workspace_name: "Ada's Notion Workspace" },
};
const PAGE = {
  object: 'page',
  id: 'be633bf1-dfa0-436d-b259-571129a590e5',
  created_time: '2022-10-24T22:54:00.000Z',
  last_edited_time: '2023-03-08T18:25:00.000Z',
  created_by: { object: 'user', id: 'c2f20311-9e54-4d11-8c79-7398424ae41e' },
  last_edited_by: { object: 'user', id: '9188c6a5-7381-452f-b3dc-d4865aa89bdf' },
  cover: null,
  icon: { type: 'emoji', emoji: '🥬' },
  parent: {
    type: 'data_source_id',
    data_source_id: 'a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b',
    database_id: 'd9824bdc-8445-4327-be8b-5b47500af6ce',
  },
  archived: false,
  in_trash: false,
  is_locked: false,
  properties: {
    'Store availability': { id: '%3AUPp', type: 'multi_select', multi_select: [{ id: 't|O@', name: "Gus's Community Market", color: 'yellow' }] },
    Name: {
      id: 'title',
      type: 'title',
      title: [
        {
          type: 'text',
          text: { content: 'Tuscan kale', link: null },
          annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' },
          plain_text: 'Tuscan kale',
          href: null,
        },
      ],
    },
  },
  url: 'https://www.notion.so/Tuscan-kale-be633bf1dfa0436db259571129a590e5',
  public_url: null,
};
const PAGE_2 = {
  ...PAGE,
  id: '59833787-2cf9-4fdf-8782-e53db20768a5',
  parent: { type: 'page_id', page_id: '7d50a184-5bbe-4d90-8f29-6bec57ed817b' },
  icon: null,
  properties: {
    title: { id: 'title', type: 'title', title: [{ type: 'text', text: { content: 'Meeting notes', link: null }, plain_text: 'Meeting notes', href: null }] },
  },
  url: 'https://www.notion.so/Meeting-notes-598337872cf94fdf8782e53db20768a5',
};
const DATA_SOURCE = {
  object: 'data_source',
  id: 'a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b',
  created_time: '2021-07-08T23:50:00.000Z',
  last_edited_time: '2021-07-08T23:50:00.000Z',
  created_by: { object: 'user', id: 'c2f20311-9e54-4d11-8c79-7398424ae41e' },
  last_edited_by: { object: 'user', id: 'c2f20311-9e54-4d11-8c79-7398424ae41e' },
  icon: { type: 'emoji', emoji: '🎉' },
  title: [{ type: 'text', text: { content: 'Grocery List', link: null }, plain_text: 'Grocery List', href: null }],
  description: [],
  parent: { type: 'database_id', database_id: 'd9824bdc-8445-4327-be8b-5b47500af6ce' },
  database_parent: { type: 'page_id', page_id: '98ad959b-2b6a-4774-80ee-00246fb0ea9b' },
  is_inline: false,
  archived: false,
  in_trash: false,
  properties: {
    Name: { id: 'title', name: 'Name', type: 'title', title: {} },
    Price: { id: 'evWq', name: 'Price', type: 'number', number: { format: 'dollar' } },
  },
  url: 'https://www.notion.so/d9824bdc84454327be8b5b47500af6ce',
  public_url: null,
};
const BLOCK = {
  object: 'block',
  id: 'c02fc1d3-db8b-45c5-a222-27595b15aea7',
  parent: { type: 'page_id', page_id: PAGE.id },
  created_time: '2022-03-01T19:05:00.000Z',
  last_edited_time: '2022-07-06T19:41:00.000Z',
  created_by: { object: 'user', id: 'cb38e95d-00cf-4e7e-adce-974f4a44a547' },
  last_edited_by: { object: 'user', id: 'e79a0b74-3aba-4149-9f74-0bb5791a6ee6' },
  has_children: false,
  archived: false,
  in_trash: false,
  type: 'paragraph',
  paragraph: {
    rich_text: [
      {
        type: 'text',
        text: { content: 'Lacinato kale is a variety of kale with a long tradition in Italian cuisine.', link: null },
        plain_text: 'Lacinato kale is a variety of kale with a long tradition in Italian cuisine.',
        href: null,
      },
    ],
    color: 'default',
  },
};
const BLOCK_2 = {
  ...BLOCK,
  id: 'acc7eb06-05cd-4603-a384-5e1e4f1f4e72',
  type: 'heading_2',
  paragraph: undefined,
  heading_2: {
    rich_text: [{ type: 'text', text: { content: 'Nutrition', link: null }, plain_text: 'Nutrition', href: null }],
    color: 'default',
    is_toggleable: false,
  },
};
delete (BLOCK_2 as Rec).paragraph;
const COMMENT = {
  object: 'comment',
  id: '94cc56ab-9f02-409d-9f99-1037e9fe502f',
  parent: { type: 'page_id', page_id: '5c6a2821-6bb1-4a7e-b6e1-c50111515c3d' },
  discussion_id: 'f1407351-36f5-4c49-a13c-49f8ba11776d',
  created_time: '2022-07-15T16:52:00.000Z',
  last_edited_time: '2022-07-15T19:16:00.000Z',
  created_by: { object: 'user', id: '9b15170a-9941-4297-8ee6-83fa7649a87a' },
  rich_text: [
    {
      type: 'text',
      text: { content: 'Single comment', link: null },
      annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' },
      plain_text: 'Single comment',
      href: null,
    },
  ],
};

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// get: one GET per entity
// ---------------------------------------------------------------------------------------------
const GETS: Array<[string, string, string, Rec]> = [
  ['users', 'user_id', '/v1/users', USER_PERSON],
  ['pages', 'page_id', '/v1/pages', PAGE],
  ['data_sources', 'data_source_id', '/v1/data_sources', DATA_SOURCE],
  ['blocks', 'block_id', '/v1/blocks', BLOCK],
];

describe('notion get', () => {
  it.each(GETS)('%s get sends GET with %s in the path', async (entity, param, path, record) => {
    const scope = api().get(`${path}/${record.id}`).reply(200, record);

    const res = await notion().execute(entity, 'get', { [param]: record.id });

    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// list: GET lists (query cursor) and search lists (body cursor)
// ---------------------------------------------------------------------------------------------
describe('notion list (GET, cursor in the query)', () => {
  it('users list walks two pages with start_cursor', async () => {
    const scope = api()
      .get('/v1/users')
      .query({ page_size: '1' })
      .reply(200, list([USER_PERSON], 'fe2cc560-036c-44cd-90e8-294d5a74cebc', 'user'))
      .get('/v1/users')
      .query({ page_size: '1', start_cursor: 'fe2cc560-036c-44cd-90e8-294d5a74cebc' })
      .reply(200, list([USER_BOT], null, 'user'));
    const conn = notion();

    const p1 = await conn.execute('users', 'list', { page_size: 1 });
    expect(p1.data).toEqual([USER_PERSON]);
    expect(p1.pagination).toEqual({ next_cursor: 'fe2cc560-036c-44cd-90e8-294d5a74cebc', has_more: true });
    expect(p1.next_params).toEqual({ start_cursor: 'fe2cc560-036c-44cd-90e8-294d5a74cebc' });

    const p2 = await conn.execute('users', 'list', { page_size: 1, ...p1.next_params });
    expect(p2.data).toEqual([USER_BOT]);
    expect(p2.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('blocks list sends GET /v1/blocks/{block_id}/children and walks two pages', async () => {
    const scope = api()
      .get(`/v1/blocks/${PAGE.id}/children`)
      .query({ page_size: '1' })
      .reply(200, list([BLOCK], BLOCK_2.id, 'block'))
      .get(`/v1/blocks/${PAGE.id}/children`)
      .query({ page_size: '1', start_cursor: BLOCK_2.id })
      .reply(200, list([BLOCK_2], null, 'block'));
    const conn = notion();

    const p1 = await conn.execute('blocks', 'list', { block_id: PAGE.id, page_size: 1 });
    expect(p1.data).toEqual([BLOCK]);
    expect(p1.pagination).toEqual({ next_cursor: BLOCK_2.id, has_more: true });
    expect(p1.next_params).toEqual({ start_cursor: BLOCK_2.id });

    const p2 = await conn.execute('blocks', 'list', { block_id: PAGE.id, page_size: 1, ...p1.next_params });
    expect(p2.data).toEqual([BLOCK_2]);
    expect(p2.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('comments list sends block_id in the query', async () => {
    const scope = api()
      .get('/v1/comments')
      .query({ block_id: '5c6a2821-6bb1-4a7e-b6e1-c50111515c3d', page_size: '50' })
      .reply(200, list([COMMENT], null, 'comment'));

    const res = await notion().execute('comments', 'list', { block_id: '5c6a2821-6bb1-4a7e-b6e1-c50111515c3d', page_size: 50 });

    expect(res.data).toEqual([COMMENT]);
    expect(res.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('rejects page_size 101 and a comments list without block_id before any request', async () => {
    const scope = nock(API);
    const conn = notion();

    const e1 = await conn.execute('users', 'list', { page_size: 101 }).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ValidationError);
    expect((e1 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'page_size', rule: 'maximum', limit: 100 })]);

    const e2 = await conn.execute('comments', 'list', {}).catch((e: unknown) => e);
    expect((e2 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'block_id', rule: 'required' })]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('notion list (POST /v1/search, cursor in the body)', () => {
  it('pages list always filters to pages and walks two pages with start_cursor in the body', async () => {
    const sort = { direction: 'descending', timestamp: 'last_edited_time' };
    const filter = { property: 'object', value: 'page' };
    const scope = apiJson()
      .post('/v1/search', { filter, sort, page_size: 1 })
      .reply(200, list([PAGE], PAGE_2.id))
      .post('/v1/search', { filter, sort, page_size: 1, start_cursor: PAGE_2.id })
      .reply(200, list([PAGE_2]));
    const conn = notion();

    const p1 = await conn.execute('pages', 'list', { sort, page_size: 1 });
    expect(p1.data).toEqual([PAGE]);
    expect(p1.pagination).toEqual({ next_cursor: PAGE_2.id, has_more: true });
    expect(p1.next_params).toEqual({ start_cursor: PAGE_2.id });

    const p2 = await conn.execute('pages', 'list', { sort, page_size: 1, ...p1.next_params });
    expect(p2.data).toEqual([PAGE_2]);
    expect(p2.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('pages list without params still sends the page filter; filter can only name pages', async () => {
    const scope = apiJson()
      .post('/v1/search', { filter: { property: 'object', value: 'page' } })
      .reply(200, list([PAGE]));
    const conn = notion();

    const res = await conn.execute('pages', 'list', {});
    expect(res.data).toEqual([PAGE]);
    expect(res.pagination).toEqual({ next_cursor: null, has_more: false });

    const err = await conn.execute('pages', 'list', { filter: { property: 'object', value: 'data_source' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'filter.value', rule: 'enum', limit: ['page'] })]);
    expect(scope.isDone()).toBe(true);
  });

  it('data_sources list sends the data_source filter', async () => {
    const scope = apiJson()
      .post('/v1/search', { filter: { property: 'object', value: 'data_source' }, page_size: 100 })
      .reply(200, list([DATA_SOURCE]));

    const res = await notion().execute('data_sources', 'list', { page_size: 100 });

    expect(res.data).toEqual([DATA_SOURCE]);
    expect(res.pagination).toEqual({ next_cursor: null, has_more: false });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('data_sources list takes the filter Airbyte sends, only for data sources, with sort and the cursor', async () => {
    const filter = { property: 'object', value: 'data_source' };
    const sort = { direction: 'ascending', timestamp: 'last_edited_time' };
    const scope = apiJson()
      .post('/v1/search', { filter, sort, page_size: 10, start_cursor: DATA_SOURCE.id })
      .reply(200, list([DATA_SOURCE]));
    const conn = notion();

    const res = await conn.execute('data_sources', 'list', { filter, sort, page_size: 10, start_cursor: DATA_SOURCE.id });
    expect(res.data).toEqual([DATA_SOURCE]);
    expect(scope.isDone()).toBe(true);

    const err = await conn.execute('data_sources', 'list', { filter: { property: 'object', value: 'page' } }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'filter.value', rule: 'enum', limit: ['data_source'] })]);
    const err2 = await conn.execute('data_sources', 'list', { filter: { property: 'title', value: 'data_source' } }).catch((e: unknown) => e);
    expect((err2 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'filter.property', rule: 'enum', limit: ['object'] })]);
  });
});

// ---------------------------------------------------------------------------------------------
// pages create / update
// ---------------------------------------------------------------------------------------------
describe('notion pages create', () => {
  const properties = { Name: { title: [{ text: { content: 'Tuscan kale' } }] }, Price: { number: 2.5 } };
  const children = [
    { object: 'block', type: 'paragraph', paragraph: { rich_text: [{ type: 'text', text: { content: 'Lacinato kale is a variety of kale.' } }] } },
  ];

  it.each([
    ['a data source', { data_source_id: 'a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b' }],
    ['a data source (with type)', { type: 'data_source_id', data_source_id: 'a1d8501e-1ac1-43e9-a6bd-ea9fe6c8822b' }],
    ['a database', { database_id: 'd9824bdc-8445-4327-be8b-5b47500af6ce' }],
    ['a page', { page_id: '7d50a184-5bbe-4d90-8f29-6bec57ed817b' }],
    ['the workspace', { type: 'workspace', workspace: true }],
  ])('creates a page under %s', async (_label, parent) => {
    const body = {
      parent,
      properties,
      children,
      icon: { type: 'emoji', emoji: '🥬' },
      cover: { type: 'external', external: { url: 'https://upload.wikimedia.org/wikipedia/commons/6/62/Tuscankale.jpg' } },
    };
    const scope = apiJson().post('/v1/pages', body).reply(200, PAGE);

    const res = await notion().execute('pages', 'create', body);

    expect(res.data).toEqual(PAGE);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    [
      'none of the keys',
      {},
      [
        ['parent.page_id', 'required'],
        ['parent.database_id', 'required'],
        ['parent.data_source_id', 'required'],
        ['parent.workspace', 'required'],
      ],
    ],
    [
      'two keys',
      { page_id: 'p', database_id: 'd' },
      [
        ['parent', 'maxProperties'],
        ['parent', 'oneOf'],
      ],
    ],
    ['two keys and a type', { type: 'page_id', page_id: 'p', data_source_id: 'd' }, [['parent', 'maxProperties']]],
    ['workspace false', { workspace: false }, [['parent.workspace', 'enum']]],
    [
      'an unknown key',
      { block_id: 'b' },
      [
        ['parent.block_id', 'unknown'],
        ['parent.page_id', 'required'],
        ['parent.database_id', 'required'],
        ['parent.data_source_id', 'required'],
        ['parent.workspace', 'required'],
      ],
    ],
  ])('rejects a parent with %s before any request', async (_label, parent, expected) => {
    const scope = nock(API);

    const err = await notion()
      .execute('pages', 'create', { parent, properties: { title: { title: [{ text: { content: 'Q3 plan' } }] } } })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([...expected].sort());
    expect(scope.isDone()).toBe(true);
  });

  it('rejects more than 100 children and a missing parent', async () => {
    const scope = nock(API);

    const err = await notion()
      .execute('pages', 'create', { children: Array.from({ length: 101 }, () => children[0]) })
      .catch((e: unknown) => e);

    expect((err as ValidationError).issues.map((i) => [i.field, i.rule, i.limit])).toEqual([
      ['parent', 'required', undefined],
      ['properties', 'required', undefined],
      ['children', 'maxItems', 100],
    ]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('notion pages update', () => {
  it('sends only the given fields; null removes the icon and the cover', async () => {
    const updated = { ...PAGE, icon: null, cover: null, in_trash: true };
    const scope = apiJson().patch(`/v1/pages/${PAGE.id}`, { icon: null, cover: null, in_trash: true }).reply(200, updated);

    const res = await notion().execute('pages', 'update', { page_id: PAGE.id, icon: null, cover: null, in_trash: true });

    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('updates properties and archives', async () => {
    const scope = apiJson()
      .patch(`/v1/pages/${PAGE.id}`, { properties: { Price: { number: 3 } }, archived: true })
      .reply(200, { ...PAGE, archived: true, in_trash: true });

    const res = await notion().execute('pages', 'update', { page_id: PAGE.id, properties: { Price: { number: 3 } }, archived: true });

    expect(res.data).toEqual({ ...PAGE, archived: true, in_trash: true });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an update that changes nothing', async () => {
    const scope = nock(API);

    const err = await notion()
      .execute('pages', 'update', { page_id: PAGE.id })
      .catch((e: unknown) => e);

    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// data_sources update, blocks create / update, comments create
// ---------------------------------------------------------------------------------------------
describe('notion data_sources update', () => {
  it('sends title, properties and in_trash', async () => {
    const body = {
      title: [{ type: 'text', text: { content: 'Groceries' } }],
      properties: { Price: { name: 'Unit price' }, Obsolete: null },
      in_trash: false,
    };
    const updated = { ...DATA_SOURCE, title: [{ type: 'text', text: { content: 'Groceries', link: null }, plain_text: 'Groceries', href: null }] };
    const scope = apiJson().patch(`/v1/data_sources/${DATA_SOURCE.id}`, body).reply(200, updated);

    const res = await notion().execute('data_sources', 'update', { data_source_id: DATA_SOURCE.id, ...body });

    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });
});

describe('notion data_sources update: icon and archived (an alias of in_trash)', () => {
  it('sends icon as given and archived as in_trash', async () => {
    const icon = { type: 'emoji', emoji: '🥬' };
    const updated = { ...DATA_SOURCE, icon, in_trash: true, archived: true };
    const scope = apiJson().patch(`/v1/data_sources/${DATA_SOURCE.id}`, { icon, in_trash: true }).reply(200, updated);

    const res = await notion().execute('data_sources', 'update', { data_source_id: DATA_SOURCE.id, icon, archived: true });

    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('null removes the icon; archived alone is enough for an update', async () => {
    const scope = apiJson()
      .patch(`/v1/data_sources/${DATA_SOURCE.id}`, { icon: null })
      .reply(200, { ...DATA_SOURCE, icon: null })
      .patch(`/v1/data_sources/${DATA_SOURCE.id}`, { in_trash: false })
      .reply(200, DATA_SOURCE);
    const conn = notion();

    expect((await conn.execute('data_sources', 'update', { data_source_id: DATA_SOURCE.id, icon: null })).data).toEqual({ ...DATA_SOURCE, icon: null });
    expect((await conn.execute('data_sources', 'update', { data_source_id: DATA_SOURCE.id, archived: false })).data).toEqual(DATA_SOURCE);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses archived with in_trash, a non-boolean archived, a string icon and cover (not taken by Notion) before any request', async () => {
    const scope = nock(API);
    const conn = notion();

    const both = await conn.execute('data_sources', 'update', { data_source_id: DATA_SOURCE.id, archived: true, in_trash: true }).catch((e: unknown) => e);
    expect(both).toBeInstanceOf(ValidationError);
    expect((both as ValidationError).issues).toEqual([expect.objectContaining({ rule: 'alias_conflict' })]);

    const bad = await conn.execute('data_sources', 'update', { data_source_id: DATA_SOURCE.id, archived: 'yes', icon: '🥬' }).catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    const issues = (bad as ValidationError).issues.map((i) => [i.field, i.rule]);
    expect(issues).toContainEqual(['in_trash', 'type']);
    expect(issues).toContainEqual(['icon', 'type']);

    const cover = await conn
      .execute('data_sources', 'update', { data_source_id: DATA_SOURCE.id, cover: { type: 'external', external: { url: 'https://example.com/c.png' } } })
      .catch((e: unknown) => e);
    expect(cover).toBeInstanceOf(ValidationError);
    expect((cover as ValidationError).issues.map((i) => i.field)).toContain('cover');
    expect(scope.isDone()).toBe(true);
  });
});

describe('notion blocks create and update', () => {
  it('create appends children after a block and returns the new blocks', async () => {
    const children = [{ object: 'block', type: 'heading_2', heading_2: { rich_text: [{ type: 'text', text: { content: 'Nutrition' } }] } }];
    const scope = apiJson()
      .patch(`/v1/blocks/${PAGE.id}/children`, { children, after: BLOCK.id })
      .reply(200, list([BLOCK_2], null, 'block'));

    const res = await notion().execute('blocks', 'create', { block_id: PAGE.id, children, after: BLOCK.id });

    expect(res.data).toEqual([BLOCK_2]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('create rejects more than 100 children', async () => {
    const scope = nock(API);

    const err = await notion()
      .execute('blocks', 'create', { block_id: PAGE.id, children: Array.from({ length: 101 }, () => ({ type: 'divider', divider: {} })) })
      .catch((e: unknown) => e);

    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'children', rule: 'maxItems', limit: 100 })]);
    expect(scope.isDone()).toBe(true);
  });

  it('update sends the block type key as given', async () => {
    const paragraph = { rich_text: [{ type: 'text', text: { content: 'Kale is a leafy green.' } }] };
    const updated = {
      ...BLOCK,
      paragraph: {
        ...BLOCK.paragraph,
        rich_text: [{ type: 'text', text: { content: 'Kale is a leafy green.', link: null }, plain_text: 'Kale is a leafy green.', href: null }],
      },
    };
    const scope = apiJson().patch(`/v1/blocks/${BLOCK.id}`, { paragraph }).reply(200, updated);

    const res = await notion().execute('blocks', 'update', { block_id: BLOCK.id, paragraph });

    expect(res.data).toEqual(updated);
    expect(scope.isDone()).toBe(true);
  });

  it('update with in_trash moves the block to the trash', async () => {
    const scope = apiJson()
      .patch(`/v1/blocks/${BLOCK.id}`, { in_trash: true })
      .reply(200, { ...BLOCK, archived: true, in_trash: true });

    const res = await notion().execute('blocks', 'update', { block_id: BLOCK.id, in_trash: true });

    expect(res.data).toEqual({ ...BLOCK, archived: true, in_trash: true });
    expect(scope.isDone()).toBe(true);
  });
});

describe('notion comments create', () => {
  const rich_text = [{ text: { content: 'Hello world' } }];
  const created = {
    object: 'comment',
    id: 'b52b8ed6-e029-4707-a671-832549c09de3',
    parent: { type: 'page_id', page_id: '5c6a2821-6bb1-4a7e-b6e1-c50111515c3d' },
    discussion_id: 'f1407351-36f5-4c49-a13c-49f8ba11776d',
    created_time: '2022-07-15T20:53:00.000Z',
    last_edited_time: '2022-07-15T20:53:00.000Z',
    created_by: { object: 'user', id: '067dee40-6ebd-496f-b446-093c715fb5ec' },
    rich_text: [
      {
        type: 'text',
        text: { content: 'Hello world', link: null },
        annotations: { bold: false, italic: false, strikethrough: false, underline: false, code: false, color: 'default' },
        plain_text: 'Hello world',
        href: null,
      },
    ],
  };

  it('comments on a page (parent)', async () => {
    const scope = apiJson()
      .post('/v1/comments', { parent: { page_id: '5c6a2821-6bb1-4a7e-b6e1-c50111515c3d' }, rich_text })
      .reply(200, created);

    const res = await notion().execute('comments', 'create', { parent: { page_id: '5c6a2821-6bb1-4a7e-b6e1-c50111515c3d' }, rich_text });

    expect(res.data).toEqual(created);
    expect(scope.isDone()).toBe(true);
  });

  it('replies to a discussion (discussion_id)', async () => {
    const scope = apiJson().post('/v1/comments', { discussion_id: 'f1407351-36f5-4c49-a13c-49f8ba11776d', rich_text }).reply(200, created);

    const res = await notion().execute('comments', 'create', { discussion_id: 'f1407351-36f5-4c49-a13c-49f8ba11776d', rich_text });

    expect(res.data).toEqual(created);
    expect(scope.isDone()).toBe(true);
  });

  it('needs parent or discussion_id, and a parent with one of page_id or block_id', async () => {
    const scope = nock(API);
    const conn = notion();

    const e1 = await conn.execute('comments', 'create', { rich_text }).catch((e: unknown) => e);
    expect((e1 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of', limit: ['parent', 'discussion_id'] })]);

    const e2 = await conn.execute('comments', 'create', { parent: { page_id: 'p', block_id: 'b' }, rich_text }).catch((e: unknown) => e);
    expect((e2 as ValidationError).issues).toEqual([
      expect.objectContaining({ field: 'parent', rule: 'oneOf' }),
      expect.objectContaining({ field: 'parent', rule: 'maxProperties', limit: 1 }),
    ]);

    const e3 = await conn.execute('comments', 'create', { parent: { page_id: 'p' }, discussion_id: 'd1', rich_text }).catch((e: unknown) => e);
    expect((e3 as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_most_one_of', limit: ['parent', 'discussion_id'] })]);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// OAuth2.0 option: refresh with basic client auth and a JSON body
// ---------------------------------------------------------------------------------------------
describe('notion OAuth2.0 option', () => {
  const credentials = {
    option_title: 'OAuth2.0',
    client_id: '2a1d872b-594c-80e4-9f3f-0037e3c9a1b2',
    client_secret: 'secret_Zq7Xw3Ke9Rt5Yu1Io8Pa4Sd6Fg2Hj0Kl',
    refresh_token: 'nrt_rtok_1',
  };
  const basic = `Basic ${Buffer.from(`${credentials.client_id}:${credentials.client_secret}`).toString('base64')}`;
  const tokenResponse = {
    access_token: 'ntn_oauth_access_2',
    token_type: 'bearer',
    refresh_token: 'nrt_rtok_2',
    bot_id: 'b3414d65-9224-4a6e-8f11-cc9d8773d601',
    workspace_name: "Ada's Notion Workspace",
    workspace_icon: null,
    workspace_id: 'c36b7f35-3882-41b5-9f2d-5a4b9d1c2e87',
    owner: { type: 'user', user: { object: 'user', id: USER_PERSON.id } },
    duplicated_template_id: null,
    request_id: '6a0e7b1d-3f4c-4b2a-9e8d-1c5f7a9b3d20',
  };
  const tokenEndpoint = () =>
    nock(API)
      .matchHeader('authorization', basic)
      .matchHeader('content-type', 'application/json')
      .post('/v1/oauth/token', { grant_type: 'refresh_token', refresh_token: 'nrt_rtok_1' })
      .reply(200, tokenResponse);

  it('refreshes first (basic auth, JSON body), sends the new token and reports the rotated refresh token', async () => {
    const onTokenRefresh = vi.fn();
    const token = tokenEndpoint();
    const scope = api('ntn_oauth_access_2').get(`/v1/users/${USER_PERSON.id}`).reply(200, USER_PERSON);
    const conn = createConnector('notion', { credentials, onTokenRefresh, http: { retries: 0 } });

    const res = await conn.execute('users', 'get', { user_id: USER_PERSON.id });

    expect(res.data).toEqual(USER_PERSON);
    expect(onTokenRefresh).toHaveBeenCalledTimes(1);
    expect(onTokenRefresh.mock.calls[0]![0]).toMatchObject({ access_token: 'ntn_oauth_access_2', refresh_token: 'nrt_rtok_2', rotated: true });
    expect(token.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('uses a given access_token and refreshes once after a 401', async () => {
    const token = tokenEndpoint();
    const stale = api('ntn_oauth_stale')
      .get(`/v1/blocks/${BLOCK.id}`)
      .reply(401, { object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.' });
    const retry = api('ntn_oauth_access_2').get(`/v1/blocks/${BLOCK.id}`).reply(200, BLOCK);
    const conn = createConnector('notion', { credentials: { ...credentials, access_token: 'ntn_oauth_stale' }, http: { retries: 0 } });

    const res = await conn.execute('blocks', 'get', { block_id: BLOCK.id });

    expect(res.data).toEqual(BLOCK);
    expect(stale.isDone()).toBe(true);
    expect(token.isDone()).toBe(true);
    expect(retry.isDone()).toBe(true);
  });
});

describe('notion access token option', () => {
  it('maps a 401 to AuthenticationError without retrying', async () => {
    const scope = api().get(`/v1/pages/${PAGE.id}`).reply(401, { object: 'error', status: 401, code: 'unauthorized', message: 'API token is invalid.' });

    const err = await notion()
      .execute('pages', 'get', { page_id: PAGE.id })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect((err as AuthenticationError).upstreamStatus).toBe(401);
    expect(scope.isDone()).toBe(true);
  });
});
