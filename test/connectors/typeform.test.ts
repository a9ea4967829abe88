import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConnector, ValidationError } from '../../runtime/index.js';

// Typeform Create API (GET /forms, GET /forms/{form_id}, workspaces, themes, images), Responses API
// (GET /forms/{form_id}/responses) and Webhooks API (GET /forms/{form_id}/webhooks[/{tag}]) with a
// personal access token as bearer. Bodies follow the examples and schemas of typeform.com/developers
// (Retrieve forms, Retrieve form, Retrieve responses, Retrieve account workspaces, Create workspace,
// Retrieve image, Retrieve webhooks) and the types of Typeform's own JS client (Typeform/js-api-client,
// src/typeform-types.ts).

const API = 'https://api.typeform.com';
const EU_API = 'https://api.eu.typeform.com';
const TOKEN = 'tfp_943af478d3ff3d4d760020c11af102b79c440513';

type Rec = Record<string, unknown>;

const typeform = (config?: Record<string, string>) =>
  createConnector('typeform', { credentials: { access_token: TOKEN }, ...(config && { config }), http: { retries: 0 } });

/** A scope that only matches requests with the bearer token and the JSON accept header. */
const api = (host = API) => nock(host).matchHeader('authorization', `Bearer ${TOKEN}`).matchHeader('accept', 'application/json');

// ---------------------------------------------------------------------------------------------
// Records
// ---------------------------------------------------------------------------------------------
const formSummary = (id: string, title: string): Rec => ({
  id,
  type: 'form',
  title,
  last_updated_at: '2024-02-01T09:15:30+00:00',
  created_at: '2024-01-10T12:34:56+00:00',
  settings: { is_public: true, is_trial: false },
  self: { href: `${API}/forms/${id}` },
  theme: { href: `${API}/themes/qHWOQ7` },
  _links: { display: `https://acme.typeform.com/to/${id}`, responses: `${API}/forms/${id}/responses` },
});
const FORM_1 = formSummary('u6nXL7', 'Customer feedback');
const FORM_2 = formSummary('lT4Z3j', 'Event registration');

const FORM_DETAIL: Rec = {
  id: 'u6nXL7',
  type: 'form',
  title: 'Customer feedback',
  workspace: { href: `${API}/workspaces/Aw33bz` },
  theme: { href: `${API}/themes/qHWOQ7` },
  settings: {
    language: 'en',
    progress_bar: 'proportion',
    meta: { allow_indexing: false },
    hide_navigation: false,
    is_public: true,
    is_trial: false,
    show_progress_bar: true,
    show_typeform_branding: true,
  },
  welcome_screens: [{ id: 'KUfkBs6gWq', ref: 'welcome', title: 'Tell us how we did', properties: { show_button: true, button_text: 'Start' } }],
  thankyou_screens: [
    {
      id: 'DefaultTyScreen',
      ref: 'default_tys',
      title: 'Thanks for completing this typeform',
      properties: { show_button: true, share_icons: true, button_mode: 'reload', button_text: 'again' },
    },
  ],
  fields: [
    {
      id: 'Ym2uy33LhPhk',
      title: 'How likely are you to recommend us to a friend?',
      ref: 'nps',
      properties: { steps: 11, start_at_one: false, labels: { left: 'Not likely', right: 'Very likely' } },
      validations: { required: true },
      type: 'opinion_scale',
    },
    {
      id: 'pMx8bhDnnBYX',
      title: 'What could we do better?',
      ref: 'improvements',
      properties: {},
      validations: { required: false },
      type: 'long_text',
    },
  ],
  hidden: ['user_id', 'source'],
  logic: [],
  created_at: '2024-01-10T12:34:56+00:00',
  last_updated_at: '2024-02-01T09:15:30+00:00',
  published_at: '2024-01-10T13:00:00+00:00',
  _links: { display: 'https://acme.typeform.com/to/u6nXL7', responses: `${API}/forms/u6nXL7/responses` },
};

const response = (token: string, submitted: string, text: string): Rec => ({
  landing_id: token,
  token,
  response_id: token,
  response_type: 'completed',
  landed_at: '2024-03-12T10:01:02Z',
  submitted_at: submitted,
  metadata: {
    user_agent: 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.3 Safari/605.1.15',
    platform: 'other',
    referer: 'https://acme.typeform.com/to/u6nXL7',
    network_id: '3b7a1e4c2f',
    browser: 'default',
  },
  hidden: { user_id: 'abc123456', source: 'newsletter' },
  calculated: { score: 0 },
  variables: [{ key: 'score', type: 'number', number: 0 }],
  answers: [
    { field: { id: 'Ym2uy33LhPhk', type: 'opinion_scale', ref: 'nps' }, type: 'number', number: 9 },
    { field: { id: 'pMx8bhDnnBYX', type: 'long_text', ref: 'improvements' }, type: 'text', text },
  ],
});
const RESPONSE_1 = response('a3a12ec67a1365927098a606107fac15', '2024-03-12T10:05:40Z', 'Faster replies on chat.');
const RESPONSE_2 = response('21085286190ffad1248d17c4135ee56f', '2024-03-11T16:20:11Z', 'Nothing, all good.');
const RESPONSE_3 = response('0c73d104418c428d958240e12734f72c', '2024-03-10T08:00:00Z', 'More payment options.');

const workspace = (id: string, name: string, extra: Rec = {}): Rec => ({
  account_id: '01HZY0Q9J9Z7WZ7J0ZQ0V8NQ1A',
  default: false,
  forms: { count: 3, href: `${API}/workspaces/${id}/forms` },
  id,
  name,
  self: { href: `${API}/workspaces/${id}` },
  shared: false,
  ...extra,
});
const WORKSPACE_1 = workspace('Aw33bz', 'My workspace', { default: true });
const WORKSPACE_2 = workspace('Bx44cy', 'Marketing', { shared: true });
const WORKSPACE_DETAIL: Rec = {
  ...WORKSPACE_2,
  members: [
    { email: 'ana@acme.example', name: 'Ana', role: 'owner' },
    { email: 'ben@acme.example', name: 'Ben', role: 'member' },
  ],
};

const theme = (id: string, name: string, visibility: string): Rec => ({
  background: { brightness: -0.59, href: 'https://images.typeform.com/images/4bcd3', layout: 'fullscreen' },
  colors: { answer: '#800000', background: '#FFFFFF', button: '#808080', question: '#000000' },
  created_at: '2024-01-05T10:00:00Z',
  fields: { alignment: 'left', font_size: 'medium' },
  font: 'Arial',
  has_transparent_button: false,
  id,
  name,
  rounded_corners: 'small',
  screens: { alignment: 'center', font_size: 'small' },
  updated_at: '2024-02-01T09:15:30Z',
  visibility,
});
const THEME_1 = theme('qHWOQ7', 'Plain', 'public');
const THEME_2 = theme('rT8mPz', 'Acme brand', 'private');

const image = (id: string, fileName: string, mediaType: string): Rec => ({
  id,
  src: `${API}/images/${id}`,
  file_name: fileName,
  width: 100,
  height: 100,
  media_type: mediaType,
  has_alpha: true,
  avg_color: 'ff00ff',
});
const IMAGE_1 = image('XcXx', 'newimage.gif', 'image/gif');
const IMAGE_2 = image('YdYy', 'logo.png', 'image/png');

const webhook = (id: string, tag: string, url: string): Rec => ({
  created_at: '2016-11-21T12:23:28.000Z',
  enabled: true,
  form_id: 'u6nXL7',
  id,
  tag,
  updated_at: '2016-11-21T12:23:28.000Z',
  url,
  verify_ssl: true,
});
const WEBHOOK_1 = webhook('yRtagDm8AT', 'phoenix', 'https://hooks.acme.example/typeform');
const WEBHOOK_2 = webhook('zStbhEn9BU', 'crm sync/v2', 'https://crm.acme.example/in');

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// forms
// ---------------------------------------------------------------------------------------------
describe('typeform forms.list', () => {
  it('sends page and page_size and walks two pages with next_params (page_number)', async () => {
    const scope = api()
      .get('/forms')
      .query({ page: '1', page_size: '1' })
      .reply(200, { total_items: 2, page_count: 2, items: [FORM_1] })
      .get('/forms')
      .query({ page: '2', page_size: '1' })
      .reply(200, { total_items: 2, page_count: 2, items: [FORM_2] });

    const page1 = await typeform().execute('forms', 'list', { page: 1, page_size: 1 });
    expect(page1.data).toEqual([FORM_1]);
    expect(page1.pagination).toEqual({ total_items: 2, page_count: 2 });
    expect(page1.next_params).toEqual({ page: 2 });

    const page2 = await typeform().execute('forms', 'list', { page: 1, page_size: 1, ...page1.next_params });
    expect(page2.data).toEqual([FORM_2]);
    expect(page2.pagination).toEqual({ total_items: 2, page_count: 2 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('without params sends no query and starts from page 1', async () => {
    const scope = api()
      .get('/forms')
      .query({})
      .reply(200, { total_items: 1, page_count: 1, items: [FORM_1] });

    const res = await typeform().execute('forms', 'list', {});
    expect(res.data).toEqual([FORM_1]);
    expect(res.pagination).toEqual({ total_items: 1, page_count: 1 });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('rejects page_size above 200 before any request', async () => {
    await expect(typeform().execute('forms', 'list', { page_size: 201 })).rejects.toBeInstanceOf(ValidationError);
    await expect(typeform().execute('forms', 'list', { page_size: 201 })).rejects.toMatchObject({
      issues: [{ field: 'page_size', rule: 'maximum', limit: 200 }],
    });
  });
});

describe('typeform forms.get', () => {
  it('GET /forms/{form_id} returns the whole form definition', async () => {
    const scope = api().get('/forms/u6nXL7').reply(200, FORM_DETAIL);

    const res = await typeform().execute('forms', 'get', { form_id: 'u6nXL7' });
    expect(res.data).toEqual(FORM_DETAIL);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('uses the EU host when config api_host is api.eu.typeform.com', async () => {
    const scope = api(EU_API).get('/forms/u6nXL7').reply(200, FORM_DETAIL);

    const res = await typeform({ api_host: 'api.eu.typeform.com' }).execute('forms', 'get', { form_id: 'u6nXL7' });
    expect(res.data).toEqual(FORM_DETAIL);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an api_host outside the two Typeform hosts', () => {
    expect(() => createConnector('typeform', { credentials: { access_token: TOKEN }, config: { api_host: 'evil.example' } })).toThrow(ValidationError);
  });
});

// ---------------------------------------------------------------------------------------------
// responses
// ---------------------------------------------------------------------------------------------
describe('typeform responses.list', () => {
  it('sends every filter of the contract as Typeform query parameters', async () => {
    const scope = api()
      .get('/forms/u6nXL7/responses')
      .query({
        page_size: '2',
        since: '2024-03-01T00:00:00',
        until: '2024-03-31T23:59:59',
        sort: 'submitted_at,asc',
        completed: 'true',
        query: 'payment',
      })
      .reply(200, { total_items: 1, page_count: 1, items: [RESPONSE_3] });

    const res = await typeform().execute('responses', 'list', {
      form_id: 'u6nXL7',
      page_size: 2,
      since: '2024-03-01T00:00:00',
      until: '2024-03-31T23:59:59',
      sort: 'submitted_at,asc',
      completed: true,
      query: 'payment',
    });
    expect(res.data).toEqual([RESPONSE_3]);
    expect(res.pagination).toEqual({ total_items: 1, page_count: 1 });
    expect(res.next_params).toEqual({ before: RESPONSE_3.token });
    expect(scope.isDone()).toBe(true);
  });

  it('sends the after token (and completed=false)', async () => {
    const scope = api()
      .get('/forms/u6nXL7/responses')
      .query({ after: RESPONSE_3.token as string, completed: 'false' })
      .reply(200, { total_items: 2, page_count: 1, items: [RESPONSE_1, RESPONSE_2] });

    const res = await typeform().execute('responses', 'list', { form_id: 'u6nXL7', after: RESPONSE_3.token, completed: false });
    expect(res.data).toEqual([RESPONSE_1, RESPONSE_2]);
    expect(res.pagination).toEqual({ total_items: 2, page_count: 1 });
    expect(res.next_params).toEqual({ before: RESPONSE_2.token });
    expect(scope.isDone()).toBe(true);
  });

  // Typeform pages responses by token (newest submitted first): the next page is before=<token of the
  // last response>; the walk ends on an empty page.
  it('walks pages with next_params before = the last token (last_record) until an empty page', async () => {
    const scope = api()
      .get('/forms/u6nXL7/responses')
      .query({ page_size: '2', completed: 'true' })
      .reply(200, { total_items: 3, page_count: 2, items: [RESPONSE_1, RESPONSE_2] })
      .get('/forms/u6nXL7/responses')
      .query({ page_size: '2', completed: 'true', before: RESPONSE_2.token as string })
      .reply(200, { total_items: 1, page_count: 1, items: [RESPONSE_3] })
      .get('/forms/u6nXL7/responses')
      .query({ page_size: '2', completed: 'true', before: RESPONSE_3.token as string })
      .reply(200, { total_items: 0, page_count: 0, items: [] });

    const params = { form_id: 'u6nXL7', page_size: 2, completed: true };
    const page1 = await typeform().execute('responses', 'list', params);
    expect(page1.data).toEqual([RESPONSE_1, RESPONSE_2]);
    expect(page1.pagination).toEqual({ total_items: 3, page_count: 2 });
    expect(page1.next_params).toEqual({ before: RESPONSE_2.token });

    const page2 = await typeform().execute('responses', 'list', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([RESPONSE_3]);
    expect(page2.pagination).toEqual({ total_items: 1, page_count: 1 });
    expect(page2.next_params).toEqual({ before: RESPONSE_3.token });

    const page3 = await typeform().execute('responses', 'list', { ...params, ...page2.next_params });
    expect(page3.data).toEqual([]);
    expect(page3.pagination).toEqual({ total_items: 0, page_count: 0 });
    expect(page3.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('reads responses of an EU account from api.eu.typeform.com', async () => {
    const scope = api(EU_API)
      .get('/forms/u6nXL7/responses')
      .query({ page_size: '1' })
      .reply(200, { total_items: 1, page_count: 1, items: [RESPONSE_1] });

    const res = await typeform({ api_host: 'api.eu.typeform.com' }).execute('responses', 'list', { form_id: 'u6nXL7', page_size: 1 });
    expect(res.data).toEqual([RESPONSE_1]);
    expect(res.pagination).toEqual({ total_items: 1, page_count: 1 });
    expect(res.next_params).toEqual({ before: RESPONSE_1.token });
    expect(scope.isDone()).toBe(true);
  });

  it('requires form_id and keeps page_size within 1..1000', async () => {
    await expect(typeform().execute('responses', 'list', { page_size: 1001 })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'form_id', rule: 'required' }),
        expect.objectContaining({ field: 'page_size', rule: 'maximum', limit: 1000 }),
      ]),
    });
  });
});

// ---------------------------------------------------------------------------------------------
// workspaces (workspaces:read)
// ---------------------------------------------------------------------------------------------
describe('typeform workspaces.list', () => {
  it('sends page, page_size and search and walks two pages with next_params (page_number)', async () => {
    const scope = api()
      .get('/workspaces')
      .query({ page: '1', page_size: '1', search: 'a' })
      .reply(200, { total_items: 2, page_count: 2, items: [WORKSPACE_1] })
      .get('/workspaces')
      .query({ page: '2', page_size: '1', search: 'a' })
      .reply(200, { total_items: 2, page_count: 2, items: [WORKSPACE_2] });

    const params = { page: 1, page_size: 1, search: 'a' };
    const page1 = await typeform().execute('workspaces', 'list', params);
    expect(page1.data).toEqual([WORKSPACE_1]);
    expect(page1.pagination).toEqual({ total_items: 2, page_count: 2 });
    expect(page1.next_params).toEqual({ page: 2 });

    const page2 = await typeform().execute('workspaces', 'list', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([WORKSPACE_2]);
    expect(page2.pagination).toEqual({ total_items: 2, page_count: 2 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('rejects page_size above 200 and an empty search before any request', async () => {
    await expect(typeform().execute('workspaces', 'list', { page_size: 201, search: '' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'page_size', rule: 'maximum', limit: 200 }),
        expect.objectContaining({ field: 'search', rule: 'minLength' }),
      ]),
    });
  });
});

describe('typeform workspaces.get', () => {
  it('GET /workspaces/{workspace_id} returns the workspace with its members', async () => {
    const scope = api().get('/workspaces/Bx44cy').reply(200, WORKSPACE_DETAIL);

    const res = await typeform().execute('workspaces', 'get', { workspace_id: 'Bx44cy' });
    expect(res.data).toEqual(WORKSPACE_DETAIL);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// themes (themes:read)
// ---------------------------------------------------------------------------------------------
describe('typeform themes.list', () => {
  it('starts from page 1 without sending it and walks two pages with next_params (page_number)', async () => {
    const scope = api()
      .get('/themes')
      .query({ page_size: '1' })
      .reply(200, { total_items: 2, page_count: 2, items: [THEME_1] })
      .get('/themes')
      .query({ page: '2', page_size: '1' })
      .reply(200, { total_items: 2, page_count: 2, items: [THEME_2] });

    const page1 = await typeform().execute('themes', 'list', { page_size: 1 });
    expect(page1.data).toEqual([THEME_1]);
    expect(page1.pagination).toEqual({ total_items: 2, page_count: 2 });
    expect(page1.next_params).toEqual({ page: 2 });

    const page2 = await typeform().execute('themes', 'list', { page_size: 1, ...page1.next_params });
    expect(page2.data).toEqual([THEME_2]);
    expect(page2.pagination).toEqual({ total_items: 2, page_count: 2 });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('rejects page 0 and page_size above 200 before any request', async () => {
    await expect(typeform().execute('themes', 'list', { page: 0, page_size: 201 })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: expect.arrayContaining([
        expect.objectContaining({ field: 'page', rule: 'minimum', limit: 1 }),
        expect.objectContaining({ field: 'page_size', rule: 'maximum', limit: 200 }),
      ]),
    });
  });
});

describe('typeform themes.get', () => {
  it('GET /themes/{theme_id} returns the theme', async () => {
    const scope = api().get('/themes/rT8mPz').reply(200, THEME_2);

    const res = await typeform().execute('themes', 'get', { theme_id: 'rT8mPz' });
    expect(res.data).toEqual(THEME_2);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// images (images:read)
// ---------------------------------------------------------------------------------------------
describe('typeform images.list', () => {
  it('GET /images returns the bare array as the records, with no pagination', async () => {
    const scope = api().get('/images').query({}).reply(200, [IMAGE_1, IMAGE_2]);

    const res = await typeform().execute('images', 'list', {});
    expect(res.data).toEqual([IMAGE_1, IMAGE_2]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a param Typeform does not document, before any request', async () => {
    await expect(typeform().execute('images', 'list', { page_size: 10 })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('typeform images.get', () => {
  it('GET /images/{image_id} with accept application/json returns the JSON description', async () => {
    // api() only matches requests that send accept: application/json, which makes Typeform answer JSON
    // instead of the image file.
    const scope = api().get('/images/XcXx').reply(200, IMAGE_1);

    const res = await typeform().execute('images', 'get', { image_id: 'XcXx' });
    expect(res.data).toEqual(IMAGE_1);
    expect(scope.isDone()).toBe(true);
  });
});

// ---------------------------------------------------------------------------------------------
// webhooks (webhooks:read)
// ---------------------------------------------------------------------------------------------
describe('typeform webhooks.list', () => {
  it('GET /forms/{form_id}/webhooks returns the items, with no pagination', async () => {
    const scope = api()
      .get('/forms/u6nXL7/webhooks')
      .query({})
      .reply(200, { items: [WEBHOOK_1, WEBHOOK_2] });

    const res = await typeform().execute('webhooks', 'list', { form_id: 'u6nXL7' });
    expect(res.data).toEqual([WEBHOOK_1, WEBHOOK_2]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('requires form_id before any request', async () => {
    await expect(typeform().execute('webhooks', 'list', {})).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'form_id', rule: 'required' })],
    });
  });
});

describe('typeform webhooks.get', () => {
  it('URL-encodes the tag in GET /forms/{form_id}/webhooks/{tag}', async () => {
    const scope = api().get('/forms/u6nXL7/webhooks/crm%20sync%2Fv2').reply(200, WEBHOOK_2);

    const res = await typeform().execute('webhooks', 'get', { form_id: 'u6nXL7', tag: 'crm sync/v2' });
    expect(res.data).toEqual(WEBHOOK_2);
    expect(scope.isDone()).toBe(true);
  });

  it('requires the tag before any request', async () => {
    await expect(typeform().execute('webhooks', 'get', { form_id: 'u6nXL7' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'tag', rule: 'required' })],
    });
  });
});
