import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, createConnector, NotFoundError, ValidationError } from '../../runtime/index.js';

// Pinterest REST API v5 connector. Records follow the schemas and examples of the vendor spec
// (shared/vendor-specs/pinterest/openapi.json: AdAccount, Board, CampaignResponse, AdGroupResponse,
// AdResponse, BoardSection, Pin, Catalog, CatalogsFeed, CatalogsVerticalProductGroup, Audience,
// ConversionTag, CustomerList, Keyword); list bodies are { items, bookmark }.

const API = 'https://api.pinterest.com';
const ACCESS_TOKEN = 'pina_AMAxyzWXAAAAAGB7Yq4AAF9kQ2Nx2GQBQBS6ocGCLbM5rRmV9kGhVUZ0yHpGqRcL1Ugr1gqK';
const CLIENT_ID = '1484362';
const CLIENT_SECRET = '7a3c1e9b5d2f48a6b0c9e1d3f5a7b9c2e4d6f8a0';
const REFRESH_TOKEN = 'pinr_AQAAxyzKBAAAAAGB7Yq4AAF9kQ2Nx2GQBQBS6ocGCLbM5rRmV9kGhVUZ0yHpGqRc';
const BASIC = `Basic ${Buffer.from(`${CLIENT_ID}:${CLIENT_SECRET}`).toString('base64')}`;
const AD_ACCOUNT = '549755885175';
const BOARD = '549755885176';

type Rec = Record<string, any>;

const oauthCredentials = { client_id: CLIENT_ID, client_secret: CLIENT_SECRET, refresh_token: REFRESH_TOKEN };

/** Connector with a known access token: no refresh before the first call. */
const pinterest = () => createConnector('pinterest', { credentials: { ...oauthCredentials, access_token: ACCESS_TOKEN }, http: { retries: 0 } });

/** A scope that only matches requests with the bearer token and the JSON accept header. */
const api = (token = ACCESS_TOKEN) => nock(API).matchHeader('authorization', `Bearer ${token}`).matchHeader('accept', 'application/json');

/** One record per entity, as Pinterest returns it. */
const R = {
  ad_accounts: {
    id: AD_ACCOUNT,
    name: 'ACME Tools',
    owner: { id: '383791336903426391', username: 'acmetools' },
    country: 'US',
    currency: 'USD',
    permissions: ['ADMIN'],
    created_time: 1451431341,
    updated_time: 1451431341,
  },
  boards: {
    id: BOARD,
    created_at: '2020-01-01T20:10:40-00:00',
    board_pins_modified_at: '2020-01-01T20:10:40-00:00',
    name: 'Summer recipes',
    description: 'My favorite summer recipes',
    collaborator_count: 17,
    pin_count: 5,
    follower_count: 13,
    media: {
      image_cover_url: 'https://i.pinimg.com/400x300/fd/cd/d5/fdcdd5a6d8a80824add0d054125cd957.jpg',
      pin_thumbnail_urls: ['https://i.pinimg.com/150x150/b4/57/10/b45710f1ede96af55230f4b43935c4af.jpg'],
    },
    owner: { username: 'acmetools' },
    privacy: 'PUBLIC',
    is_ads_only: false,
  },
  campaigns: {
    id: '626735565838',
    ad_account_id: AD_ACCOUNT,
    name: 'ACME Tools',
    status: 'ACTIVE',
    lifetime_spend_cap: 1432744744,
    daily_spend_cap: 1432744744,
    order_line_id: '549755885175',
    tracking_urls: { impression: ['URL1', 'URL2'], click: ['URL1', 'URL2'] },
    start_time: 1580865126,
    end_time: 1644023526,
    is_flexible_daily_budgets: true,
    is_automated_campaign: false,
    is_campaign_budget_optimization: true,
    is_performance_plus: false,
    bid_options: null,
    objective_type: 'AWARENESS',
    created_time: 1432744744,
    updated_time: 1432744744,
    type: 'campaign',
    summary_status: 'RUNNING',
  },
  ad_groups: {
    id: '2680060704746',
    ad_account_id: AD_ACCOUNT,
    campaign_id: '626735565838',
    name: 'Ad Group For Pin: 687195905986',
    status: 'ACTIVE',
    budget_in_micro_currency: 5000000,
    bid_in_micro_currency: 5000000,
    budget_type: 'DAILY',
    start_time: 5686848000,
    end_time: 5705424000,
    targeting_spec: { AGE_BUCKET: ['35-44', '50-54'], APPTYPE: ['ipad', 'iphone'], GENDER: ['female'], LOCALE: ['en-US'] },
    lifetime_frequency_cap: 100,
    tracking_urls: { impression: ['URL1', 'URL2'] },
    auto_targeting_enabled: true,
    placement_group: 'ALL',
    pacing_delivery_type: 'STANDARD',
    conversion_learning_mode_type: 'ACTIVE',
    summary_status: 'RUNNING',
    feed_profile_id: '626736533506',
    billable_event: 'CLICKTHROUGH',
    bid_strategy_type: 'MAX_BID',
    targeting_template_ids: ['643'],
    created_time: 1476477189,
    updated_time: 1476477189,
    type: 'adgroup',
  },
  ads: {
    id: '687195134316',
    ad_account_id: AD_ACCOUNT,
    campaign_id: '626735565838',
    ad_group_id: '2680059592705',
    pin_id: '394205773611545468',
    name: 'Summer grill promo',
    status: 'ACTIVE',
    creative_type: 'REGULAR',
    destination_url: 'https://acme.example/grills',
    android_deep_link: null,
    ios_deep_link: null,
    click_tracking_url: null,
    view_tracking_url: null,
    carousel_android_deep_links: null,
    carousel_destination_urls: null,
    carousel_ios_deep_links: null,
    is_pin_deleted: false,
    is_removable: false,
    lead_form_id: null,
    grid_click_type: 'CLOSEUP',
    customizable_cta_type: 'LEARN_MORE',
    rejected_reasons: [],
    rejection_labels: [],
    review_status: 'APPROVED',
    summary_status: 'APPROVED',
    type: 'pinpromotion',
    created_time: 1451431341,
    updated_time: 1451431341,
  },
  board_sections: { id: '549755885177', name: 'Salads' },
  board_pins: {
    id: '813744226420795884',
    created_at: '2020-01-01T20:10:40-00:00',
    link: 'https://www.pinterest.com/',
    title: 'Grilled peach salad',
    description: 'Five ingredients, ten minutes.',
    dominant_color: '#6E7874',
    alt_text: null,
    creative_type: 'REGULAR',
    board_id: BOARD,
    board_section_id: '549755885177',
    board_owner: { username: 'acmetools' },
    is_owner: true,
    is_standard: true,
    has_been_promoted: false,
    media: {
      media_type: 'image',
      images: { '150x150': { width: 150, height: 150, url: 'https://i.pinimg.com/150x150/0d/f6/f1/0df6f1f0bfe7aaca849c1bbc3607a34b.jpg' } },
    },
    parent_pin_id: null,
  },
  catalogs: { id: '864344156814050986', name: 'ACME retail', catalog_type: 'RETAIL', created_at: '2022-03-14T15:15:22Z', updated_at: '2022-03-14T15:16:34Z' },
  catalogs_feeds: {
    id: '2680059592705',
    name: 'ACME daily feed',
    catalog_id: '864344156814050986',
    catalog_type: 'RETAIL',
    created_at: '2022-03-14T15:15:22Z',
    updated_at: '2022-03-14T15:16:34Z',
    format: 'TSV',
    location: 'https://acme.example/feeds/products.tsv',
    status: 'ACTIVE',
    credentials: null,
    default_availability: 'IN_STOCK',
    default_country: 'US',
    default_currency: 'USD',
    default_locale: 'en-US',
    preferred_processing_schedule: { time: '02:59', timezone: 'Africa/Abidjan' },
  },
  catalogs_product_groups: {
    id: '443727193917',
    name: 'Most Popular',
    description: 'Top sellers of the season',
    catalog_id: '864344156814050986',
    catalog_type: 'RETAIL',
    feed_id: '2680059592705',
    type: 'TOP_SELLERS',
    status: 'ACTIVE',
    filters: { any_of: [{ MIN_PRICE: { values: 10, inclusion: true } }] },
    is_featured: false,
    country: 'US',
    locale: 'en-US',
    created_at: 1621350033000,
    updated_at: 1622742155000,
  },
  audiences: {
    id: '2542620905473',
    ad_account_id: AD_ACCOUNT,
    name: 'Quilt lovers',
    audience_type: 'ENGAGEMENT',
    description: 'People who love making quilts.',
    rule: { engager_type: 1, retention_days: 30 },
    size: 1000,
    status: 'READY',
    type: 'audience',
    created_by_company_name: 'Pinterest',
    created_timestamp: 1451431341,
    updated_timestamp: 1451431341,
  },
  conversion_tags: {
    ad_account_id: AD_ACCOUNT,
    code_snippet: '<script type=text/javascript> [...]',
    enhanced_match_status: 'VALIDATION_COMPLETE',
    id: '2617998078212',
    last_fired_time_ms: 1599030000000,
    name: 'ACME Checkout Test Tag',
    status: 'ACTIVE',
    version: '3',
    configs: { aem_enabled: true, md_frequency: 0.6 },
  },
  customer_lists: {
    id: '643',
    ad_account_id: AD_ACCOUNT,
    created_time: 1452208622,
    updated_time: 1461269616,
    name: 'The Glengarry Glen Ross leads',
    num_batches: 2,
    num_removed_user_records: 0,
    num_uploaded_user_records: 11,
    status: 'PROCESSING',
    type: 'customerlist',
    exceptions: {},
  },
  keywords: {
    id: '383791336903426391',
    archived: false,
    parent_id: AD_ACCOUNT,
    parent_type: 'advertiser',
    type: 'keyword',
    bid: null,
    match_type: 'BROAD_NEGATIVE',
    value: 'cheap tools',
  },
} satisfies Record<string, Rec>;
type Entity = keyof typeof R;

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// [entity, path under /v5, params (parent id + page_size), expected query]
const LISTS: Array<[Entity, string, Rec, Rec]> = [
  ['ad_accounts', '/ad_accounts', { page_size: 50, include_shared_accounts: false }, { page_size: '50', include_shared_accounts: 'false' }],
  ['boards', '/boards', { page_size: 50, privacy: 'SECRET' }, { page_size: '50', privacy: 'SECRET' }],
  ['campaigns', `/ad_accounts/${AD_ACCOUNT}/campaigns`, { ad_account_id: AD_ACCOUNT, page_size: 50 }, { page_size: '50' }],
  ['ad_groups', `/ad_accounts/${AD_ACCOUNT}/ad_groups`, { ad_account_id: AD_ACCOUNT, page_size: 50 }, { page_size: '50' }],
  ['ads', `/ad_accounts/${AD_ACCOUNT}/ads`, { ad_account_id: AD_ACCOUNT, page_size: 50 }, { page_size: '50' }],
  ['board_sections', `/boards/${BOARD}/sections`, { board_id: BOARD, page_size: 50 }, { page_size: '50' }],
  ['board_pins', `/boards/${BOARD}/pins`, { board_id: BOARD, page_size: 50 }, { page_size: '50' }],
  ['catalogs', '/catalogs', { page_size: 50 }, { page_size: '50' }],
  ['catalogs_feeds', '/catalogs/feeds', { page_size: 50 }, { page_size: '50' }],
  ['catalogs_product_groups', '/catalogs/product_groups', { page_size: 50 }, { page_size: '50' }],
  ['audiences', `/ad_accounts/${AD_ACCOUNT}/audiences`, { ad_account_id: AD_ACCOUNT, page_size: 50 }, { page_size: '50' }],
  ['customer_lists', `/ad_accounts/${AD_ACCOUNT}/customer_lists`, { ad_account_id: AD_ACCOUNT, page_size: 50 }, { page_size: '50' }],
  ['keywords', `/ad_accounts/${AD_ACCOUNT}/keywords`, { ad_account_id: AD_ACCOUNT, page_size: 50 }, { page_size: '50' }],
];

describe('pinterest list (bookmark pagination, last page)', () => {
  it.each(LISTS)('%s list -> GET /v5%s', async (entity, path, params, query) => {
    const scope = api()
      .get(`/v5${path}`)
      .query(query)
      .reply(200, { items: [R[entity]], bookmark: null });

    const res = await pinterest().execute(entity, 'list', params);

    expect(res.data).toEqual([R[entity]]);
    expect(res.pagination).toEqual({ cursor: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('conversion_tags list -> GET /v5/ad_accounts/{id}/conversion_tags (not paginated: no block)', async () => {
    const scope = api()
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/conversion_tags`)
      .query({})
      .reply(200, { items: [R.conversion_tags] });

    const res = await pinterest().execute('conversion_tags', 'list', { ad_account_id: AD_ACCOUNT });

    expect(res.data).toEqual([R.conversion_tags]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('campaigns list sends entity_statuses as repeated keys and order', async () => {
    const scope = api()
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/campaigns`)
      .query({ entity_statuses: ['ACTIVE', 'ARCHIVED'], order: 'DESCENDING' })
      .reply(200, { items: [R.campaigns], bookmark: null });

    const res = await pinterest().execute('campaigns', 'list', {
      ad_account_id: AD_ACCOUNT,
      entity_statuses: ['ACTIVE', 'ARCHIVED'],
      order: 'DESCENDING',
    });

    expect(res.data).toEqual([R.campaigns]);
    expect(res.pagination).toEqual({ cursor: null });
    expect(scope.isDone()).toBe(true);
  });

  it.each([
    ['ad_groups', 'ad_groups'],
    ['ads', 'ads'],
  ] as const)('%s list sends entity_statuses as repeated keys and order', async (entity, segment) => {
    const scope = api()
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/${segment}`)
      .query({ entity_statuses: ['PAUSED', 'ARCHIVED', 'DRAFT'], order: 'ASCENDING', page_size: '100' })
      .reply(200, { items: [R[entity]], bookmark: null });

    const res = await pinterest().execute(entity, 'list', {
      ad_account_id: AD_ACCOUNT,
      entity_statuses: ['PAUSED', 'ARCHIVED', 'DRAFT'],
      order: 'ASCENDING',
      page_size: 100,
    });

    expect(res.data).toEqual([R[entity]]);
    expect(res.pagination).toEqual({ cursor: null });
    expect(scope.isDone()).toBe(true);
  });

  it('keywords list sends ad_group_id and keeps it on the next page', async () => {
    const adGroupId = '2680060704746';
    const first = api()
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/keywords`)
      .query({ ad_group_id: adGroupId, page_size: '1' })
      .reply(200, { items: [{ ...R.keywords, parent_id: adGroupId, parent_type: 'ad_group' }], bookmark: 'a2V5d29yZHMy' });
    const second = api()
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/keywords`)
      .query({ ad_group_id: adGroupId, page_size: '1', bookmark: 'a2V5d29yZHMy' })
      .reply(200, { items: [], bookmark: null });

    const params = { ad_account_id: AD_ACCOUNT, ad_group_id: adGroupId, page_size: 1 };
    const page1 = await pinterest().execute('keywords', 'list', params);
    expect(page1.data).toEqual([{ ...R.keywords, parent_id: adGroupId, parent_type: 'ad_group' }]);
    expect(page1.next_params).toEqual({ bookmark: 'a2V5d29yZHMy' });
    const page2 = await pinterest().execute('keywords', 'list', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([]);
    expect([first.isDone(), second.isDone()]).toEqual([true, true]);
  });

  it('an empty page gives [] and a null cursor', async () => {
    const scope = api().get('/v5/boards').query({}).reply(200, { items: [], bookmark: null });

    const res = await pinterest().execute('boards', 'list', {});

    expect(res).toEqual({ data: [], pagination: { cursor: null } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('pinterest get', () => {
  it('ad_accounts get -> GET /v5/ad_accounts/{ad_account_id}', async () => {
    const scope = api().get(`/v5/ad_accounts/${AD_ACCOUNT}`).reply(200, R.ad_accounts);

    const res = await pinterest().execute('ad_accounts', 'get', { ad_account_id: AD_ACCOUNT });

    expect(res.data).toEqual(R.ad_accounts);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('boards get -> GET /v5/boards/{board_id}', async () => {
    const scope = api().get(`/v5/boards/${BOARD}`).reply(200, R.boards);

    const res = await pinterest().execute('boards', 'get', { board_id: BOARD });

    expect(res.data).toEqual(R.boards);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 404 to NotFoundError', async () => {
    const scope = api().get('/v5/boards/1').reply(404, { code: 3, message: 'Board not found.' });

    const err = await pinterest()
      .execute('boards', 'get', { board_id: '1' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).upstreamStatus).toBe(404);
    expect(scope.isDone()).toBe(true);
  });
});

describe('pinterest bookmark pagination walk', () => {
  it('walks two pages of campaigns with the bookmark from next_params', async () => {
    const second = { ...R.campaigns, id: '626735565839', name: 'ACME Tools - Fall' };
    const bookmark =
      'Y2JVSG81V2sxcmNHRlpWM1J5VFVaU1ZscEhkR3BOYkVwWVZqRlNTMVl5U2xWU2F6bFdVak5TZWxwRVNrOVRWa1owWWtkb1YxWkVRVFZsVjNoaFpHMUdWbFJzV21sU01WcDRWMFpXVTFGWFRsWk9WV2hxVWxkU1ZGbHJWa3RrYlVaV1ZXMTBWRTFYVW5wWmFrNWhWVmRLZEdWSFJsZFdNMEpNV2tSR1lWTkdXbk5XYlhoVFRVaENXRlpxU25kWFYwcFhXa2hPV0dKVlduSldiVEZQVFd4a2RHVkhPVkpOVjNoWVZtMTRjMVJ0U2xWaFJ6bGFWbFp3Y2xwV1dscGxSMDVJVW14b1UwMUVWVEE9fDc4MzY5ZWYxZTRlOTJkNmE4NTI5MWQ4NDg3NmRkMjFmOGI2YzM3YTZmYWY2M2RhMmQxNmY1NmRhYWY0MDYzNGE=';
    const scope = api()
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/campaigns`)
      .query({ page_size: '1' })
      .reply(200, { items: [R.campaigns], bookmark })
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/campaigns`)
      .query({ page_size: '1', bookmark })
      .reply(200, { items: [second], bookmark: null });
    const conn = pinterest();
    const params = { ad_account_id: AD_ACCOUNT, page_size: 1 };

    const p1 = await conn.execute('campaigns', 'list', params);
    expect(p1.data).toEqual([R.campaigns]);
    expect(p1.pagination).toEqual({ cursor: bookmark });
    expect(p1.next_params).toEqual({ bookmark });

    const p2 = await conn.execute('campaigns', 'list', { ...params, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ cursor: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of board pins', async () => {
    const second = { ...R.board_pins, id: '813744226420795885', title: 'Charred corn salsa' };
    const scope = api()
      .get(`/v5/boards/${BOARD}/pins`)
      .query({ page_size: '1' })
      .reply(200, { items: [R.board_pins], bookmark: 'LT4xMzc0NDIyNjQyMDc5NTg4NHwxfDA=' })
      .get(`/v5/boards/${BOARD}/pins`)
      .query({ page_size: '1', bookmark: 'LT4xMzc0NDIyNjQyMDc5NTg4NHwxfDA=' })
      .reply(200, { items: [second], bookmark: null });
    const conn = pinterest();

    const p1 = await conn.execute('board_pins', 'list', { board_id: BOARD, page_size: 1 });
    expect(p1.pagination).toEqual({ cursor: 'LT4xMzc0NDIyNjQyMDc5NTg4NHwxfDA=' });
    expect(p1.next_params).toEqual({ bookmark: 'LT4xMzc0NDIyNjQyMDc5NTg4NHwxfDA=' });

    const p2 = await conn.execute('board_pins', 'list', { board_id: BOARD, page_size: 1, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('pinterest OAuth2.0 refresh', () => {
  // Pinterest's token endpoint: form body, client id and secret as HTTP basic auth.
  const tokenEndpoint = (
    body = {
      access_token: 'pina_NEW',
      refresh_token: 'pinr_NEW',
      response_type: 'refresh_token',
      token_type: 'bearer',
      expires_in: 2592000,
      refresh_token_expires_in: 5184000,
      refresh_token_expires_at: 1767225600,
      scope: 'ads:read,boards:read,pins:read,catalogs:read',
    },
  ) =>
    nock(API)
      .matchHeader('authorization', BASIC)
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .matchHeader('accept', 'application/json')
      .post('/v5/oauth/token', `grant_type=refresh_token&refresh_token=${REFRESH_TOKEN}`)
      .reply(200, body);

  it('refreshes first when no access token is given, with basic client auth, and reports the rotated refresh token', async () => {
    const onTokenRefresh = vi.fn();
    const token = tokenEndpoint();
    const scope = api('pina_NEW')
      .get('/v5/ad_accounts')
      .query({})
      .reply(200, { items: [R.ad_accounts], bookmark: null });
    const conn = createConnector('pinterest', { credentials: oauthCredentials, onTokenRefresh, http: { retries: 0 } });

    const res = await conn.execute('ad_accounts', 'list', {});

    expect(res.data).toEqual([R.ad_accounts]);
    expect(onTokenRefresh).toHaveBeenCalledTimes(1);
    expect(onTokenRefresh.mock.calls[0]![0]).toMatchObject({ access_token: 'pina_NEW', refresh_token: 'pinr_NEW', rotated: true });
    expect(token.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('uses the given access token, refreshes once after a 401 and retries', async () => {
    const stale = api('pina_STALE').get(`/v5/boards/${BOARD}`).reply(401, { code: 2, message: 'Authentication failed.' });
    const token = tokenEndpoint();
    const retry = api('pina_NEW').get(`/v5/boards/${BOARD}`).reply(200, R.boards);
    const conn = createConnector('pinterest', { credentials: { ...oauthCredentials, access_token: 'pina_STALE' }, http: { retries: 0 } });

    const res = await conn.execute('boards', 'get', { board_id: BOARD });

    expect(res.data).toEqual(R.boards);
    expect(stale.isDone()).toBe(true);
    expect(token.isDone()).toBe(true);
    expect(retry.isDone()).toBe(true);
  });

  it('a rejected refresh is an AuthenticationError', async () => {
    const token = nock(API)
      .matchHeader('authorization', BASIC)
      .post('/v5/oauth/token', `grant_type=refresh_token&refresh_token=${REFRESH_TOKEN}`)
      .reply(400, { code: 1, message: 'Invalid refresh token.' });
    const conn = createConnector('pinterest', { credentials: oauthCredentials, http: { retries: 0 } });

    const err = await conn.execute('catalogs', 'list', {}).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect(token.isDone()).toBe(true);
  });
});

describe('pinterest validation', () => {
  it('rejects page_size 251 (maximum 250) before any request', async () => {
    const scope = nock(API);

    const err = await pinterest()
      .execute('ad_groups', 'list', { ad_account_id: AD_ACCOUNT, page_size: 251 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'page_size', rule: 'maximum', limit: 250 })]);
    expect(scope.isDone()).toBe(true);
  });

  it('keywords list takes page_size up to 250 (the maximum in its vendor description) and refuses 251 unsent', async () => {
    const scope = api()
      .get(`/v5/ad_accounts/${AD_ACCOUNT}/keywords`)
      .query({ page_size: '250' })
      .reply(200, { items: [R.keywords], bookmark: 'Y2JVMHh' });

    const res = await pinterest().execute('keywords', 'list', { ad_account_id: AD_ACCOUNT, page_size: 250 });

    expect(res.data).toEqual([R.keywords]);
    expect(res.next_params).toEqual({ bookmark: 'Y2JVMHh' });
    expect(scope.isDone()).toBe(true);

    const err = await pinterest()
      .execute('keywords', 'list', { ad_account_id: AD_ACCOUNT, page_size: 251 })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'page_size', rule: 'maximum', limit: 250 })]);
  });

  it('rejects campaigns list without ad_account_id and with an unknown status', async () => {
    const scope = nock(API);
    const err = await pinterest()
      .execute('campaigns', 'list', { entity_statuses: ['RUNNING'] })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    const issues = (err as ValidationError).issues.map((i) => [i.field, i.rule]);
    expect(issues).toContainEqual(['ad_account_id', 'required']);
    expect(issues.some(([field, rule]) => String(field).startsWith('entity_statuses') && rule === 'enum')).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects ad_groups and ads lists with an unknown status or order, and a non-numeric keywords ad_group_id', async () => {
    const scope = nock(API);
    for (const entity of ['ad_groups', 'ads'] as const) {
      const err = await pinterest()
        .execute(entity, 'list', { ad_account_id: AD_ACCOUNT, entity_statuses: ['ENABLED'], order: 'NEWEST' })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      const issues = (err as ValidationError).issues.map((i) => [i.field, i.rule]);
      expect(issues.some(([field, rule]) => String(field).startsWith('entity_statuses') && rule === 'enum')).toBe(true);
      expect(issues).toContainEqual(['order', 'enum']);
    }
    const err = await pinterest()
      .execute('keywords', 'list', { ad_account_id: AD_ACCOUNT, ad_group_id: 'ag-2680060704746' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'ad_group_id', rule: 'pattern' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('conversion_tags list does not page: page_size and bookmark are refused unsent', async () => {
    const scope = nock(API);
    const err = await pinterest()
      .execute('conversion_tags', 'list', { ad_account_id: AD_ACCOUNT, page_size: 25, bookmark: 'Y29udg' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.field)).toEqual(expect.arrayContaining(['page_size', 'bookmark']));
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a boards privacy outside PUBLIC, PROTECTED, SECRET', async () => {
    const scope = nock(API);
    const err = await pinterest()
      .execute('boards', 'list', { privacy: 'ALL' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'privacy', rule: 'enum' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a board_pins list without board_id', async () => {
    const scope = nock(API);
    const err = await pinterest()
      .execute('board_pins', 'list', { page_size: 10 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'board_id', rule: 'required' })]);
    expect(scope.isDone()).toBe(true);
  });
});
