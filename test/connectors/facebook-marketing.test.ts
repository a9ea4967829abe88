import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { createConnector } from '../../runtime/index.js';

// Facebook Marketing connector (Graph API v25.0). Records follow the field lists of Meta's Business
// SDK codegen specs (shared/vendor-specs/facebook) and the Marketing API reference pages cited in
// manifests/facebook-marketing.yaml; list responses use the Graph API envelope
// { data, paging: { cursors: { before, after }, next } }.

const GRAPH = 'https://graph.facebook.com';
const V = '/v25.0';
const TOKEN = 'EAAGm0PX4ZCpsBAtest';
const ACT = '1234567890';

type Rec = Record<string, any>;

const fb = () => createConnector('facebook-marketing', { credentials: { access_token: TOKEN }, http: { retries: 0 } });

/** Default `fields` each action sends when the caller gives none (exactly as in the manifest). */
const F = {
  user: 'id,name',
  ad_accounts:
    'id,account_id,name,account_status,currency,timezone_name,timezone_offset_hours_utc,amount_spent,balance,spend_cap,business_name,business_country_code,disable_reason,created_time',
  campaigns:
    'id,name,account_id,objective,status,configured_status,effective_status,buying_type,bid_strategy,daily_budget,lifetime_budget,budget_remaining,spend_cap,special_ad_categories,start_time,stop_time,created_time,updated_time',
  ad_sets:
    'id,name,account_id,campaign_id,status,configured_status,effective_status,billing_event,optimization_goal,bid_strategy,bid_amount,daily_budget,lifetime_budget,budget_remaining,targeting,promoted_object,start_time,end_time,created_time,updated_time',
  ads: 'id,name,account_id,campaign_id,adset_id,status,configured_status,effective_status,creative,tracking_specs,conversion_domain,created_time,updated_time',
  ad_creatives:
    'id,name,account_id,status,title,body,object_type,object_story_spec,object_story_id,effective_object_story_id,image_hash,image_url,thumbnail_url,video_id,link_url,call_to_action_type,url_tags',
  custom_conversions:
    'id,name,account_id,description,custom_event_type,rule,event_source_type,default_conversion_value,is_archived,is_unavailable,retention_days,creation_time,first_fired_time,last_fired_time',
  images: 'id,hash,name,account_id,status,url,url_128,permalink_url,width,height,original_width,original_height,created_time,updated_time',
  videos: 'id,title,description,length,source,picture,permalink_url,published,status,created_time,updated_time',
  pixels:
    'id,name,creation_time,last_fired_time,is_unavailable,data_use_setting,first_party_cookie_status,enable_automatic_matching,owner_ad_account,owner_business',
  ads_insights:
    'account_id,account_name,campaign_id,campaign_name,adset_id,adset_name,ad_id,ad_name,impressions,reach,frequency,clicks,spend,cpc,cpm,ctr,actions,date_start,date_stop',
  ad_library:
    'id,page_id,page_name,ad_creation_time,ad_delivery_start_time,ad_delivery_stop_time,ad_creative_bodies,ad_creative_link_captions,ad_creative_link_descriptions,ad_creative_link_titles,ad_snapshot_url,currency,languages,publisher_platforms',
} as const;

const graph = () => nock(GRAPH).matchHeader('accept', 'application/json');

/** A last page of the Graph API envelope (cursors present, no next link). */
const lastPage = (data: Rec[]) => ({ data, paging: { cursors: { before: 'QVFIUmJ1', after: 'QVFIUnZA' } } });

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

const R: Record<string, Rec> = {
  ad_accounts: {
    id: `act_${ACT}`,
    account_id: ACT,
    name: 'Acme Ads',
    account_status: 1,
    currency: 'USD',
    timezone_name: 'America/Los_Angeles',
    timezone_offset_hours_utc: -7,
    amount_spent: '1834500',
    balance: '0',
    spend_cap: '0',
    business_name: 'Acme Inc.',
    business_country_code: 'US',
    disable_reason: 0,
    created_time: '2021-03-04T10:11:12-0800',
  },
  campaigns: {
    id: '120210000000001',
    name: 'Summer Sale 2026',
    account_id: ACT,
    objective: 'OUTCOME_TRAFFIC',
    status: 'PAUSED',
    configured_status: 'PAUSED',
    effective_status: 'PAUSED',
    buying_type: 'AUCTION',
    bid_strategy: 'LOWEST_COST_WITHOUT_CAP',
    daily_budget: '5000',
    budget_remaining: '5000',
    spend_cap: '0',
    special_ad_categories: [],
    start_time: '2026-06-01T00:00:00-0700',
    created_time: '2026-05-20T09:00:00-0700',
    updated_time: '2026-05-20T09:00:00-0700',
  },
  ad_sets: {
    id: '120210000000101',
    name: 'US 25-44 feed',
    account_id: ACT,
    campaign_id: '120210000000001',
    status: 'PAUSED',
    configured_status: 'PAUSED',
    effective_status: 'CAMPAIGN_PAUSED',
    billing_event: 'IMPRESSIONS',
    optimization_goal: 'LINK_CLICKS',
    bid_strategy: 'LOWEST_COST_WITHOUT_CAP',
    daily_budget: '2000',
    budget_remaining: '2000',
    targeting: { geo_locations: { countries: ['US'] }, age_min: 25, age_max: 44 },
    start_time: '2026-06-01T00:00:00-0700',
    created_time: '2026-05-20T09:05:00-0700',
    updated_time: '2026-05-20T09:05:00-0700',
  },
  ads: {
    id: '120210000000201',
    name: 'Sandals - carousel',
    account_id: ACT,
    campaign_id: '120210000000001',
    adset_id: '120210000000101',
    status: 'PAUSED',
    configured_status: 'PAUSED',
    effective_status: 'ADSET_PAUSED',
    creative: { id: '120210000000301' },
    created_time: '2026-05-20T09:10:00-0700',
    updated_time: '2026-05-20T09:10:00-0700',
  },
  ad_creatives: {
    id: '120210000000301',
    name: 'Sandals creative',
    account_id: ACT,
    status: 'ACTIVE',
    title: 'Summer sandals',
    body: 'Light, comfy sandals for every beach day. 20% off this week only.',
    object_type: 'SHARE',
    object_story_spec: { page_id: '100200300', link_data: { link: 'https://shop.example.com/sandals', message: 'Light, comfy sandals' } },
    effective_object_story_id: '100200300_555',
    image_hash: '0a1b2c3d4e5f',
    thumbnail_url: 'https://scontent.xx.fbcdn.net/t45.1600-4/thumb.jpg',
    call_to_action_type: 'SHOP_NOW',
    url_tags: 'utm_source=facebook',
  },
  custom_conversions: {
    id: '987654321012345',
    name: 'Purchase over $100',
    account_id: ACT,
    description: 'Purchases with value above 100',
    custom_event_type: 'PURCHASE',
    rule: '{"and":[{"event":{"eq":"Purchase"}},{"value":{"gt":100}}]}',
    event_source_type: 'pixel',
    default_conversion_value: 0,
    is_archived: false,
    is_unavailable: false,
    retention_days: 0,
    creation_time: '2025-11-02T12:00:00+0000',
    first_fired_time: '2025-11-03T08:00:00+0000',
    last_fired_time: '2026-05-19T21:00:00+0000',
  },
  images: {
    id: `${ACT}:0a1b2c3d4e5f`,
    hash: '0a1b2c3d4e5f',
    name: 'sandals.jpg',
    account_id: ACT,
    status: 'ACTIVE',
    url: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/sandals.jpg',
    url_128: 'https://scontent.xx.fbcdn.net/v/t45.1600-4/s128x128/sandals.jpg',
    permalink_url: 'https://www.facebook.com/ads/image/?d=AQI',
    width: 1080,
    height: 1080,
    original_width: 1080,
    original_height: 1080,
    created_time: '2026-05-18T10:00:00-0700',
    updated_time: '2026-05-18T10:00:00-0700',
  },
  videos: {
    id: '1122334455667788',
    title: 'Sandals 15s',
    description: 'Product video',
    length: 15.2,
    source: 'https://video.xx.fbcdn.net/v/sandals.mp4',
    picture: 'https://scontent.xx.fbcdn.net/v/sandals-thumb.jpg',
    permalink_url: '/1122334455667788/',
    published: true,
    status: { video_status: 'ready' },
    created_time: '2026-05-18T11:00:00+0000',
    updated_time: '2026-05-18T11:05:00+0000',
  },
  pixels: {
    id: '445566778899001',
    name: 'Acme Pixel',
    creation_time: '2022-01-10T10:00:00+0000',
    last_fired_time: '2026-05-20T15:59:00+0000',
    is_unavailable: false,
    data_use_setting: 'ADVERTISING_AND_ANALYTICS',
    first_party_cookie_status: 'FIRST_PARTY_COOKIE_ENABLED',
    enable_automatic_matching: true,
    owner_ad_account: { account_id: ACT, id: `act_${ACT}` },
    owner_business: { id: '556677889900', name: 'Acme Inc.' },
  },
};

// [entity, Graph edge of the ad account]
const ACCOUNT_EDGES: Array<[string, string]> = [
  ['campaigns', 'campaigns'],
  ['ad_sets', 'adsets'],
  ['ads', 'ads'],
  ['ad_creatives', 'adcreatives'],
  ['custom_conversions', 'customconversions'],
  ['images', 'adimages'],
  ['videos', 'advideos'],
  ['pixels', 'adspixels'],
];

describe('facebook-marketing auth and current_user', () => {
  it('current_user get -> GET /v25.0/me with the access_token query param and default fields', async () => {
    const me = { id: '10160000000000001', name: 'Ana Lima' };
    const scope = graph().get(`${V}/me`).query({ fields: F.user, access_token: TOKEN }).reply(200, me);
    const res = await fb().execute('current_user', 'get', {});
    expect(res).toEqual({ data: me });
    expect(scope.isDone()).toBe(true);
  });

  it('current_user get with explicit fields', async () => {
    const me = { id: '10160000000000001', name: 'Ana Lima', email: 'ana@acme.com' };
    const scope = graph().get(`${V}/me`).query({ fields: 'id,name,email', access_token: TOKEN }).reply(200, me);
    const res = await fb().execute('current_user', 'get', { fields: 'id,name,email' });
    expect(res).toEqual({ data: me });
    expect(scope.isDone()).toBe(true);
  });
});

describe('facebook-marketing ad_accounts (cursor pagination, block { after })', () => {
  it('walks two pages of /me/adaccounts with next_params.after', async () => {
    const a2 = { ...R.ad_accounts, id: 'act_2233445566', account_id: '2233445566', name: 'Acme EU' };
    const next = `${GRAPH}${V}/me/adaccounts?fields=id&limit=1&access_token=${TOKEN}&after=MjAyNDAx`;
    const scope = graph()
      .get(`${V}/me/adaccounts`)
      .query({ fields: F.ad_accounts, limit: '1', access_token: TOKEN })
      .reply(200, { data: [R.ad_accounts], paging: { cursors: { before: 'MTAxNTI0', after: 'MjAyNDAx' }, next } })
      .get(`${V}/me/adaccounts`)
      .query({ fields: F.ad_accounts, limit: '1', after: 'MjAyNDAx', access_token: TOKEN })
      .reply(200, { data: [a2], paging: { cursors: { before: 'MjAyNDAx', after: 'MzAzNTAy' } } });

    const page1 = await fb().execute('ad_accounts', 'list', { limit: 1 });
    expect(page1.data).toEqual([R.ad_accounts]);
    expect(page1.pagination).toEqual({ after: 'MjAyNDAx' });
    expect(page1.next_params).toEqual({ after: 'MjAyNDAx' });

    const page2 = await fb().execute('ad_accounts', 'list', { limit: 1, ...page1.next_params });
    expect(page2.data).toEqual([a2]);
    // Graph still sends cursors on the last page, but no paging.next: the walk ends there.
    expect(page2.pagination).toEqual({ after: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('get -> GET /v25.0/act_{account_id} (account_id without the act_ prefix)', async () => {
    const scope = graph().get(`${V}/act_${ACT}`).query({ fields: F.ad_accounts, access_token: TOKEN }).reply(200, R.ad_accounts);
    const res = await fb().execute('ad_accounts', 'get', { account_id: ACT });
    expect(res).toEqual({ data: R.ad_accounts });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an account_id that carries the act_ prefix, before any request', async () => {
    await expect(fb().execute('campaigns', 'list', { account_id: `act_${ACT}` })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'account_id', rule: 'pattern' })],
    });
  });
});

describe('facebook-marketing lists under an ad account', () => {
  it.each(ACCOUNT_EDGES)('%s list -> GET /v25.0/act_{account_id}/%s', async (entity, edge) => {
    const record = R[entity] as Rec;
    const scope = graph()
      .get(`${V}/act_${ACT}/${edge}`)
      .query({ fields: F[entity as keyof typeof F], limit: '50', access_token: TOKEN })
      .reply(200, lastPage([record]));
    const res = await fb().execute(entity, 'list', { account_id: ACT, limit: 50 });
    expect(res).toEqual({ data: [record], pagination: { after: null } });
    expect(scope.isDone()).toBe(true);
  });

  it('campaigns list with caller fields replaces the default fields', async () => {
    const scope = graph()
      .get(`${V}/act_${ACT}/campaigns`)
      .query({ fields: 'id,name,status', access_token: TOKEN })
      .reply(200, lastPage([{ id: '120210000000001', name: 'Summer Sale 2026', status: 'PAUSED' }]));
    const res = await fb().execute('campaigns', 'list', { account_id: ACT, fields: 'id,name,status' });
    expect(res.data).toEqual([{ id: '120210000000001', name: 'Summer Sale 2026', status: 'PAUSED' }]);
    expect(scope.isDone()).toBe(true);
  });
});

// [entity, id param, id value]
const NODE_GETS: Array<[string, string, string]> = [
  ['campaigns', 'campaign_id', '120210000000001'],
  ['ad_sets', 'adset_id', '120210000000101'],
  ['ads', 'ad_id', '120210000000201'],
  ['ad_creatives', 'creative_id', '120210000000301'],
  ['custom_conversions', 'custom_conversion_id', '987654321012345'],
  ['images', 'image_id', `${ACT}:0a1b2c3d4e5f`],
  ['videos', 'video_id', '1122334455667788'],
  ['pixels', 'pixel_id', '445566778899001'],
];

describe('facebook-marketing get by node id', () => {
  it.each(NODE_GETS)('%s get -> GET /v25.0/{%s}', async (entity, param, id) => {
    const record = R[entity] as Rec;
    const scope = graph()
      .get(`${V}/${encodeURIComponent(id)}`)
      .query({ fields: F[entity as keyof typeof F], access_token: TOKEN })
      .reply(200, record);
    const res = await fb().execute(entity, 'get', { [param]: id });
    expect(res).toEqual({ data: record });
    expect(scope.isDone()).toBe(true);
  });
});

describe('facebook-marketing create and update', () => {
  const post = (path: string, body: Rec) => graph().matchHeader('content-type', 'application/json').post(`${V}${path}`, body).query({ access_token: TOKEN });

  it('campaigns create -> POST /act_{account_id}/campaigns, returns { id }', async () => {
    const body = { name: 'Summer Sale 2026', objective: 'OUTCOME_TRAFFIC', special_ad_categories: [], status: 'PAUSED', daily_budget: 5000 };
    const scope = post(`/act_${ACT}/campaigns`, body).reply(200, { id: '120210000000001' });
    const res = await fb().execute('campaigns', 'create', { account_id: ACT, ...body });
    expect(res).toEqual({ data: { id: '120210000000001' } });
    expect(scope.isDone()).toBe(true);
  });

  it('campaigns update -> POST /{campaign_id}, returns { success }', async () => {
    const scope = post('/120210000000001', { status: 'ACTIVE', daily_budget: 7500 }).reply(200, { success: true });
    const res = await fb().execute('campaigns', 'update', { campaign_id: '120210000000001', status: 'ACTIVE', daily_budget: 7500 });
    expect(res).toEqual({ data: { success: true } });
    expect(scope.isDone()).toBe(true);
  });

  it('campaigns update without any field is refused before sending', async () => {
    await expect(fb().execute('campaigns', 'update', { campaign_id: '120210000000001' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })],
    });
  });

  it('campaigns create without special_ad_categories is refused before sending', async () => {
    await expect(fb().execute('campaigns', 'create', { account_id: ACT, name: 'X', objective: 'OUTCOME_SALES' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'special_ad_categories', rule: 'required' })],
    });
  });

  it('ad_sets create -> POST /act_{account_id}/adsets with the targeting object, returns { id }', async () => {
    const body = {
      name: 'US 25-44 feed',
      campaign_id: '120210000000001',
      billing_event: 'IMPRESSIONS',
      optimization_goal: 'LINK_CLICKS',
      targeting: { geo_locations: { countries: ['US'] }, age_min: 25, age_max: 44 },
      daily_budget: 2000,
      status: 'PAUSED',
    };
    const scope = post(`/act_${ACT}/adsets`, body).reply(200, { id: '120210000000101' });
    const res = await fb().execute('ad_sets', 'create', { account_id: ACT, ...body });
    expect(res).toEqual({ data: { id: '120210000000101' } });
    expect(scope.isDone()).toBe(true);
  });

  it('ad_sets update -> POST /{adset_id}, returns { success }', async () => {
    const scope = post('/120210000000101', { name: 'Holiday Promo', daily_budget: 10000 }).reply(200, { success: true });
    const res = await fb().execute('ad_sets', 'update', { adset_id: '120210000000101', name: 'Holiday Promo', daily_budget: 10000 });
    expect(res).toEqual({ data: { success: true } });
    expect(scope.isDone()).toBe(true);
  });

  it('ads create -> POST /act_{account_id}/ads with the creative reference, returns { id }', async () => {
    const body = { name: 'Sandals - carousel', adset_id: '120210000000101', creative: { creative_id: '120210000000301' }, status: 'PAUSED' };
    const scope = post(`/act_${ACT}/ads`, body).reply(200, { id: '120210000000201' });
    const res = await fb().execute('ads', 'create', { account_id: ACT, ...body });
    expect(res).toEqual({ data: { id: '120210000000201' } });
    expect(scope.isDone()).toBe(true);
  });

  it('ads update -> POST /{ad_id}, returns { success }', async () => {
    const scope = post('/120210000000201', { status: 'PAUSED' }).reply(200, { success: true });
    const res = await fb().execute('ads', 'update', { ad_id: '120210000000201', status: 'PAUSED' });
    expect(res).toEqual({ data: { success: true } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('facebook-marketing ads_insights', () => {
  it('walks two pages of campaign-level insights with a JSON time_range and csv breakdowns', async () => {
    const row = (campaign: string, spend: string) => ({
      account_id: ACT,
      account_name: 'Acme Ads',
      campaign_id: campaign,
      campaign_name: 'Summer Sale 2026',
      impressions: '18234',
      reach: '15120',
      frequency: '1.205952',
      clicks: '412',
      spend,
      cpc: '0.302184',
      cpm: '6.828',
      ctr: '2.259515',
      age: '25-34',
      date_start: '2026-05-01',
      date_stop: '2026-05-07',
    });
    const r1 = row('120210000000001', '124.50');
    const r2 = row('120210000000002', '88.10');
    const query = {
      fields: F.ads_insights,
      level: 'campaign',
      time_range: '{"since":"2026-05-01","until":"2026-05-07"}',
      breakdowns: 'age',
      limit: '1',
      access_token: TOKEN,
    };
    const scope = graph()
      .get(`${V}/act_${ACT}/insights`)
      .query(query)
      .reply(200, { data: [r1], paging: { cursors: { before: 'MAZDZD', after: 'MQZDZD' }, next: `${GRAPH}${V}/act_${ACT}/insights?after=MQZDZD` } })
      .get(`${V}/act_${ACT}/insights`)
      .query({ ...query, after: 'MQZDZD' })
      .reply(200, { data: [r2], paging: { cursors: { before: 'MQZDZD', after: 'MgZDZD' } } });

    const params = { account_id: ACT, level: 'campaign', time_range: { since: '2026-05-01', until: '2026-05-07' }, breakdowns: ['age'], limit: 1 };
    const page1 = await fb().execute('ads_insights', 'list', params);
    expect(page1.data).toEqual([r1]);
    expect(page1.pagination).toEqual({ after: 'MQZDZD' });
    expect(page1.next_params).toEqual({ after: 'MQZDZD' });

    const page2 = await fb().execute('ads_insights', 'list', { ...params, ...page1.next_params });
    expect(page2.data).toEqual([r2]);
    expect(page2.pagination).toEqual({ after: null });
    expect(page2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('sends a date_preset', async () => {
    const scope = graph()
      .get(`${V}/act_${ACT}/insights`)
      .query({ fields: 'impressions,spend,date_start,date_stop', date_preset: 'last_7d', access_token: TOKEN })
      .reply(200, {
        data: [{ impressions: '1000', spend: '10.00', date_start: '2026-05-13', date_stop: '2026-05-19' }],
        paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } },
      });
    const res = await fb().execute('ads_insights', 'list', { account_id: ACT, fields: 'impressions,spend,date_start,date_stop', date_preset: 'last_7d' });
    expect(res).toEqual({ data: [{ impressions: '1000', spend: '10.00', date_start: '2026-05-13', date_stop: '2026-05-19' }], pagination: { after: null } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('facebook-marketing pixel_stats', () => {
  it('list -> GET /v25.0/{pixel_id}/stats with aggregation and a time window', async () => {
    const hour = {
      aggregation: 'event',
      data: [
        { value: 'PageView', count: 1204 },
        { value: 'Purchase', count: 37 },
      ],
      start_time: '2026-05-20T14:00:00+0000',
    };
    const scope = graph()
      .get(`${V}/445566778899001/stats`)
      .query({ aggregation: 'event', start_time: '1779285600', end_time: '1779289200', access_token: TOKEN })
      .reply(200, { data: [hour], paging: { cursors: { before: 'MAZDZD', after: 'MAZDZD' } } });
    const res = await fb().execute('pixel_stats', 'list', {
      pixel_id: '445566778899001',
      aggregation: 'event',
      start_time: '1779285600',
      end_time: '1779289200',
    });
    expect(res).toEqual({ data: [hour], pagination: { after: null } });
    expect(scope.isDone()).toBe(true);
  });
});

describe('facebook-marketing ad_library', () => {
  it('list -> GET /v25.0/ads_archive with JSON-array countries and page ids', async () => {
    const ad = {
      id: '1029384756102938',
      page_id: '100200300',
      page_name: 'Acme',
      ad_creation_time: '2026-05-01T10:00:00+0000',
      ad_delivery_start_time: '2026-05-02T00:00:00+0000',
      ad_creative_bodies: ['Vote yes on Measure A'],
      ad_creative_link_titles: ['Measure A'],
      ad_snapshot_url: 'https://www.facebook.com/ads/archive/render_ad/?id=1029384756102938&access_token=x',
      currency: 'USD',
      languages: ['en'],
      publisher_platforms: ['facebook', 'instagram'],
    };
    const scope = graph()
      .get(`${V}/ads_archive`)
      .query({
        ad_reached_countries: '["US"]',
        search_terms: 'california',
        ad_type: 'POLITICAL_AND_ISSUE_ADS',
        search_page_ids: '["100200300"]',
        ad_active_status: 'ALL',
        fields: F.ad_library,
        access_token: TOKEN,
      })
      .reply(200, { data: [ad], paging: { cursors: { after: 'c2Vjb25k' }, next: `${GRAPH}${V}/ads_archive?after=c2Vjb25k` } });
    const res = await fb().execute('ad_library', 'list', {
      ad_reached_countries: ['US'],
      search_terms: 'california',
      ad_type: 'POLITICAL_AND_ISSUE_ADS',
      search_page_ids: ['100200300'],
      ad_active_status: 'ALL',
    });
    expect(res.data).toEqual([ad]);
    expect(res.pagination).toEqual({ after: 'c2Vjb25k' });
    expect(res.next_params).toEqual({ after: 'c2Vjb25k' });
    expect(scope.isDone()).toBe(true);
  });

  it('requires ad_reached_countries', async () => {
    await expect(fb().execute('ad_library', 'list', { search_terms: 'x' })).rejects.toMatchObject({
      name: 'ValidationError',
      issues: [expect.objectContaining({ field: 'ad_reached_countries', rule: 'required' })],
    });
  });
});
