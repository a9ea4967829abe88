import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AuthenticationError, createConnector, RateLimitedError, UpstreamRejectedError, ValidationError } from '../../runtime/index.js';

// TikTok API for Business (Marketing API v1.3) connector. Bodies follow TikTok's documented envelope
// {code, message, request_id, data: {list, page_info}} and the record fields of the endpoints cited in
// manifests/tiktok-marketing.yaml. The access token travels in TikTok's own Access-Token header.

const API = 'https://business-api.tiktok.com';
const BASE = '/open_api/v1.3';
const TOKEN = 'f3a9c1e7b5d2468ac0e9f7b3d1a5c8e2f4b6d8a0';
const REQUEST_ID = '2025110312000011223344556677889900';
const ADVERTISER_ID = '7012345678901234567';
const BC_ID = '7098765432109876543';

type Rec = Record<string, any>;

const tiktok = () => createConnector('tiktok-marketing', { credentials: { access_token: TOKEN }, http: { retries: 0 } });

/** A scope that only matches requests with the Access-Token header (and no Authorization header). */
const api = () =>
  nock(API, { badheaders: ['authorization'] })
    .matchHeader('access-token', TOKEN)
    .matchHeader('accept', 'application/json');

const pageInfo = (page: number, pageSize: number, totalNumber: number) => ({
  page,
  page_size: pageSize,
  total_number: totalNumber,
  total_page: Math.max(1, Math.ceil(totalNumber / pageSize)),
});
/** TikTok's success envelope. */
const ok = (data: Rec) => ({ code: 0, message: 'OK', request_id: REQUEST_ID, data });

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Fixtures
// ---------------------------------------------------------------------------------------------
const R = {
  advertisers: {
    advertiser_id: ADVERTISER_ID,
    name: 'Acme Shoes US',
    status: 'STATUS_ENABLE',
    role: 'ROLE_ADVERTISER',
    rejection_reason: '',
    company: 'Acme Shoes Inc.',
    industry: '290303',
    address: '1 Market St, San Francisco',
    country: 'US',
    advertiser_account_type: 'AUCTION',
    currency: 'USD',
    timezone: 'Etc/GMT+8',
    display_timezone: 'America/Los_Angeles',
    language: 'en',
    contacter: 'Ja*****oe',
    email: 'm***@acme.example',
    cellphone_number: '+1415*****23',
    telephone_number: '',
    license_no: '',
    license_url: '',
    description: 'Running shoes',
    balance: 5325.43,
    owner_bc_id: BC_ID,
    create_time: 1510740064,
  },
  campaigns: {
    campaign_id: '1780000000000000001',
    campaign_name: 'Spring sale - traffic',
    advertiser_id: ADVERTISER_ID,
    objective_type: 'TRAFFIC',
    objective: 'LANDING_PAGE',
    campaign_type: 'REGULAR_CAMPAIGN',
    budget: 500,
    budget_mode: 'BUDGET_MODE_DAY',
    operation_status: 'ENABLE',
    secondary_status: 'CAMPAIGN_STATUS_ENABLE',
    is_new_structure: true,
    is_smart_performance_campaign: false,
    is_search_campaign: false,
    create_time: '2025-03-01 10:00:00',
    modify_time: '2025-03-02 09:30:00',
  },
  ad_groups: {
    adgroup_id: '1780000000000000101',
    adgroup_name: 'US 18-34 runners',
    advertiser_id: ADVERTISER_ID,
    campaign_id: '1780000000000000001',
    campaign_name: 'Spring sale - traffic',
    operation_status: 'ENABLE',
    secondary_status: 'ADGROUP_STATUS_DELIVERY_OK',
    placement_type: 'PLACEMENT_TYPE_NORMAL',
    placements: ['PLACEMENT_TIKTOK'],
    optimization_goal: 'CLICK',
    billing_event: 'CPC',
    bid_type: 'BID_TYPE_NO_BID',
    budget: 100,
    budget_mode: 'BUDGET_MODE_DAY',
    schedule_type: 'SCHEDULE_FROM_NOW',
    schedule_start_time: '2025-03-01 10:00:00',
    location_ids: ['6252001'],
    age_groups: ['AGE_18_24', 'AGE_25_34'],
    gender: 'GENDER_UNLIMITED',
    create_time: '2025-03-01 10:05:00',
    modify_time: '2025-03-01 10:05:00',
  },
  ads: {
    ad_id: '1780000000000001001',
    ad_name: 'Spring sale - video 1',
    ad_text: 'Run further this spring: 30% off all trail shoes.',
    advertiser_id: ADVERTISER_ID,
    campaign_id: '1780000000000000001',
    campaign_name: 'Spring sale - traffic',
    adgroup_id: '1780000000000000101',
    adgroup_name: 'US 18-34 runners',
    ad_format: 'SINGLE_VIDEO',
    call_to_action: 'SHOP_NOW',
    landing_page_url: 'https://acme.example/spring',
    display_name: 'Acme Shoes',
    identity_type: 'CUSTOMIZED_USER',
    identity_id: '7123456789012345678',
    video_id: 'v10033g50000c9a1b2c3d4e5f6g7h8',
    image_ids: ['ad-site-i18n-sg/202503015d0d1e2f'],
    operation_status: 'ENABLE',
    secondary_status: 'AD_STATUS_DELIVERY_OK',
    is_aco: false,
    create_time: '2025-03-01 10:10:00',
    modify_time: '2025-03-01 10:10:00',
  },
  audiences: {
    audience_id: '170000001',
    name: 'Purchasers 90d',
    audience_type: 'Customer File Audience',
    audience_sub_type: 'NORMAL',
    calculate_type: 'SHA256',
    cover_num: 182000,
    shared: false,
    is_creator: true,
    is_valid: true,
    is_expiring: false,
    owner_id: ADVERTISER_ID,
    create_time: '2025-01-15 08:00:00',
    expired_time: '2026-01-15 08:00:00',
  },
  creative_assets_images: {
    image_id: 'ad-site-i18n-sg/202503015d0d1e2f',
    material_id: '7340000000000000001',
    file_name: 'spring-hero.jpg',
    format: 'jpeg',
    width: 1080,
    height: 1920,
    size: 482133,
    signature: '5d0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f',
    image_url: 'https://p16-sign-sg.tiktokcdn.com/tos-alisg-i-0000/spring-hero.jpg?x-expires=1741000000',
    displayable: true,
    is_carousel_usable: true,
    create_time: '2025-03-01T09:58:00Z',
    modify_time: '2025-03-01T09:58:00Z',
  },
  creative_assets_videos: {
    video_id: 'v10033g50000c9a1b2c3d4e5f6g7h8',
    material_id: '7340000000000000002',
    file_name: 'spring-15s.mp4',
    format: 'mp4',
    width: 720,
    height: 1280,
    size: 13861358,
    duration: 15.02,
    bit_rate: 8191081,
    signature: '9f8e7d6c5b4a39281706f5e4d3c2b1a0',
    preview_url: 'https://v16m-default.tiktokcdn.com/spring-15s.mp4',
    preview_url_expire_time: '2025-03-01 16:00:00',
    video_cover_url: 'https://p16-sign-sg.tiktokcdn.com/spring-15s-cover.jpg',
    displayable: true,
    allow_download: true,
    allowed_placements: ['PLACEMENT_TIKTOK', 'PLACEMENT_PANGLE'],
    create_time: '2025-03-01T09:50:00Z',
    modify_time: '2025-03-01T09:50:00Z',
  },
  spark_ads: {
    item_info: {
      item_id: '7340123456789012345',
      item_type: 'VIDEO',
      text: 'Morning trail run #acme',
      status: 'HESITATE_RECOMMEND',
      auth_code: '#a1B2c3D4e5F6g7H8i9J0',
      anchor_list: null,
    },
    auth_info: {
      ad_auth_status: 'AUTHORIZED',
      auth_start_time: '2025-02-20 00:00:00',
      auth_end_time: '2025-08-20 00:00:00',
      invite_start_time: '2025-02-19 12:00:00',
    },
    video_info: {
      duration: 13.538,
      width: 720,
      height: 1280,
      size: 13861358,
      bit_rate: 8191081,
      preview_url: 'https://v16m.tiktokcdn.com/preview.mp4',
      poster_url: 'https://p16.tiktokcdn.com/poster.jpg',
      signature: 'd41d8cd98f00b204e9800998ecf8427e',
    },
    user_info: { identity_id: '7234567890123456789', identity_type: 'AUTH_CODE', tiktok_name: 'trailrunner_ana' },
  },
  catalogs: {
    catalog_id: '7200000000000000001',
    catalog_name: 'Acme US products',
    catalog_type: 'ECOM',
    ad_creation_eligible: 'AVAILABLE',
    bc_info: { bc_id: BC_ID, bc_name: 'Acme Business Center', picture_url: '' },
    catalog_conf: { region_code: 'US', country: 'US', currency: 'USD', channel: 'CLIENT' },
    create_time: '2024-11-05 12:00:00',
    update_time: '2025-02-28 18:30:00',
  },
} satisfies Record<string, Rec>;
type Entity = keyof typeof R;

// [entity, path under /open_api/v1.3, scope param (name and value)]
const LISTS: Array<[Exclude<Entity, 'advertisers'>, string, string, string]> = [
  ['campaigns', '/campaign/get/', 'advertiser_id', ADVERTISER_ID],
  ['ad_groups', '/adgroup/get/', 'advertiser_id', ADVERTISER_ID],
  ['ads', '/ad/get/', 'advertiser_id', ADVERTISER_ID],
  ['audiences', '/dmp/custom_audience/list/', 'advertiser_id', ADVERTISER_ID],
  ['creative_assets_images', '/file/image/ad/search/', 'advertiser_id', ADVERTISER_ID],
  ['creative_assets_videos', '/file/video/ad/search/', 'advertiser_id', ADVERTISER_ID],
  ['spark_ads', '/tt_video/list/', 'advertiser_id', ADVERTISER_ID],
  ['catalogs', '/catalog/get/', 'bc_id', BC_ID],
];

describe('tiktok-marketing advertisers', () => {
  it('advertisers list -> GET /advertiser/info/ with advertiser_ids as a JSON array string (no page_info, no next page)', async () => {
    const ids = `["${ADVERTISER_ID}","7012345678901234568"]`;
    const second = { ...R.advertisers, advertiser_id: '7012345678901234568', name: 'Acme Shoes CA', currency: 'CAD' };
    const scope = api()
      .get(`${BASE}/advertiser/info/`)
      .query({ advertiser_ids: ids, page: '1', page_size: '20' })
      .reply(200, ok({ list: [R.advertisers, second] }));

    const res = await tiktok().execute('advertisers', 'list', { advertiser_ids: ids, page: 1, page_size: 20 });

    expect(res.data).toEqual([R.advertisers, second]);
    expect(res.pagination).toBeUndefined();
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it("advertisers list without advertiser_ids sends the connector's configured advertiser_ids; ids given in the call win", async () => {
    const configured = `["${ADVERTISER_ID}"]`;
    const given = '["7012345678901234568"]';
    const connector = createConnector('tiktok-marketing', {
      credentials: { access_token: TOKEN },
      config: { advertiser_ids: configured },
      http: { retries: 0 },
    });
    const scope = api()
      .get(`${BASE}/advertiser/info/`)
      .query({ advertiser_ids: configured })
      .reply(200, ok({ list: [R.advertisers] }))
      .get(`${BASE}/advertiser/info/`)
      .query({ advertiser_ids: given })
      .reply(200, ok({ list: [] }));

    expect((await connector.execute('advertisers', 'list', {})).data).toEqual([R.advertisers]);
    expect((await connector.execute('advertisers', 'list', { advertiser_ids: given })).data).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('advertisers list without advertiser_ids on a connector that does not configure them is refused before any request', async () => {
    const scope = nock(API);

    const err = await tiktok()
      .execute('advertisers', 'list', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'advertiser_ids', rule: 'required' })]);
    expect(scope.isDone()).toBe(true);
  });

  it.each(['7012345678901234567', '[7012345678901234567]', "['7012345678901234567']", '[]', '["a",]'])(
    'rejects advertiser_ids %j that is not a JSON array of strings, before any request',
    async (advertiserIds) => {
      const scope = nock(API);

      const err = await tiktok()
        .execute('advertisers', 'list', { advertiser_ids: advertiserIds })
        .catch((e: unknown) => e);

      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'advertiser_ids', rule: 'pattern' })]);
      expect(scope.isDone()).toBe(true);
    },
  );
});

describe('tiktok-marketing lists', () => {
  it.each(LISTS)('%s list -> GET %s', async (entity, path, scopeParam, scopeValue) => {
    const scope = api()
      .get(`${BASE}${path}`)
      .query({ [scopeParam]: scopeValue, page_size: '50' })
      .reply(200, ok({ list: [R[entity]], page_info: pageInfo(1, 50, 1) }));

    const res = await tiktok().execute(entity, 'list', { [scopeParam]: scopeValue, page_size: 50 });

    expect(res.data).toEqual([R[entity]]);
    expect(res.pagination).toEqual({ page_info: { page: 1, page_size: 50, total_number: 1, total_page: 1 } });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('walks two pages of campaigns with page, while page < page_info.total_page', async () => {
    const second = { ...R.campaigns, campaign_id: '1780000000000000002', campaign_name: 'Spring sale - conversions', objective_type: 'WEB_CONVERSIONS' };
    const scope = api()
      .get(`${BASE}/campaign/get/`)
      .query({ advertiser_id: ADVERTISER_ID, page_size: '1' })
      .reply(200, ok({ list: [R.campaigns], page_info: pageInfo(1, 1, 2) }))
      .get(`${BASE}/campaign/get/`)
      .query({ advertiser_id: ADVERTISER_ID, page_size: '1', page: '2' })
      .reply(200, ok({ list: [second], page_info: pageInfo(2, 1, 2) }));
    const conn = tiktok();
    const params = { advertiser_id: ADVERTISER_ID, page_size: 1 };

    const p1 = await conn.execute('campaigns', 'list', params);
    expect(p1.data).toEqual([R.campaigns]);
    expect(p1.pagination).toEqual({ page_info: { page: 1, page_size: 1, total_number: 2, total_page: 2 } });
    expect(p1.next_params).toEqual({ page: 2 });

    const p2 = await conn.execute('campaigns', 'list', { ...params, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ page_info: { page: 2, page_size: 1, total_number: 2, total_page: 2 } });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('returns an empty page (total_page 0) without a next page', async () => {
    const scope = api()
      .get(`${BASE}/ad/get/`)
      .query({ advertiser_id: ADVERTISER_ID })
      .reply(200, ok({ list: [], page_info: { page: 1, page_size: 10, total_number: 0, total_page: 0 } }));

    const res = await tiktok().execute('ads', 'list', { advertiser_id: ADVERTISER_ID });

    expect(res.data).toEqual([]);
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('enforces each endpoint page_size limit (Spark Ads 50, audiences 100, campaigns 1000)', async () => {
    const scope = nock(API);
    const cases: Array<[Entity, number, number]> = [
      ['spark_ads', 51, 50],
      ['audiences', 101, 100],
      ['campaigns', 1001, 1000],
    ];
    for (const [entity, pageSize, limit] of cases) {
      const err = await tiktok()
        .execute(entity, 'list', { advertiser_id: ADVERTISER_ID, page_size: pageSize })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'page_size', rule: 'maximum', limit })]);
    }
    expect(scope.isDone()).toBe(true);
  });

  it('maps a 401 to AuthenticationError', async () => {
    const scope = api()
      .get(`${BASE}/campaign/get/`)
      .query({ advertiser_id: ADVERTISER_ID })
      .reply(401, { code: 40105, message: 'Access token is incorrect or has been revoked.', request_id: REQUEST_ID, data: {} });

    const err = await tiktok()
      .execute('campaigns', 'list', { advertiser_id: ADVERTISER_ID })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect(scope.isDone()).toBe(true);
  });

  // TikTok reports most errors as HTTP 200 with a non-zero `code` (the manifest's error_in_body).
  it.each([
    [40002, 'advertiser_id: Missing data for required field.', UpstreamRejectedError],
    [40105, 'Access token is incorrect or has been revoked.', AuthenticationError],
    [40100, 'Too many requests.', RateLimitedError],
  ])('maps an HTTP 200 body with code %s to the matching error', async (code, message, errorClass) => {
    const scope = api().get(`${BASE}/campaign/get/`).query({ advertiser_id: ADVERTISER_ID }).reply(200, { code, message, request_id: REQUEST_ID, data: {} });
    const err = (await tiktok()
      .execute('campaigns', 'list', { advertiser_id: ADVERTISER_ID })
      .catch((e: unknown) => e)) as Error;
    expect(err).toBeInstanceOf(errorClass);
    expect(err.message).toContain(`code ${code}: ${message}`);
    expect(scope.isDone()).toBe(true);
  });
});

const ADS_METRICS =
  '["campaign_name","campaign_id","adgroup_name","adgroup_id","ad_name","ad_text","spend","impressions","clicks","ctr","cpc","cpm","conversion","cost_per_conversion","video_play_actions","video_watched_2s","video_watched_6s","likes","comments","shares","follows","profile_visits"]';
const DATES = { start_date: '2025-03-01', end_date: '2025-03-07' };

// [entity, data_level, dimensions, default metrics, dates (null for lifetime), extra constant query, row]
const REPORTS: Array<[string, string, string, string, Rec | null, Record<string, string>, Rec]> = [
  [
    'advertisers_reports_daily',
    'AUCTION_ADVERTISER',
    '["advertiser_id","stat_time_day"]',
    '["spend","cash_spend","voucher_spend","impressions","clicks","ctr","cpc","cpm","reach","frequency","conversion","cost_per_conversion","video_play_actions","video_watched_2s","video_watched_6s","likes","comments","shares","follows","profile_visits"]',
    DATES,
    {},
    {
      dimensions: { advertiser_id: ADVERTISER_ID, stat_time_day: '2025-03-01 00:00:00' },
      metrics: { spend: '412.37', cash_spend: '412.37', voucher_spend: '0.00', impressions: '183201', clicks: '2210', ctr: '1.21', reach: '120433' },
    },
  ],
  [
    'campaigns_reports_daily',
    'AUCTION_CAMPAIGN',
    '["campaign_id","stat_time_day"]',
    '["campaign_name","spend","impressions","clicks","ctr","cpc","cpm","reach","frequency","conversion","cost_per_conversion","video_play_actions","video_watched_2s","video_watched_6s","likes","comments","shares","follows","profile_visits"]',
    DATES,
    {},
    {
      dimensions: { campaign_id: '1780000000000000001', stat_time_day: '2025-03-01 00:00:00' },
      metrics: { campaign_name: 'Spring sale - traffic', spend: '210.00', impressions: '90122', clicks: '1104' },
    },
  ],
  [
    'ad_groups_reports_daily',
    'AUCTION_ADGROUP',
    '["adgroup_id","stat_time_day"]',
    '["campaign_name","campaign_id","adgroup_name","spend","impressions","clicks","ctr","cpc","cpm","reach","frequency","conversion","cost_per_conversion","video_play_actions","video_watched_2s","video_watched_6s","likes","comments","shares","follows","profile_visits"]',
    DATES,
    {},
    {
      dimensions: { adgroup_id: '1780000000000000101', stat_time_day: '2025-03-01 00:00:00' },
      metrics: { adgroup_name: 'US 18-34 runners', campaign_id: '1780000000000000001', spend: '98.40', impressions: '40210' },
    },
  ],
  [
    'ads_reports_daily',
    'AUCTION_AD',
    '["ad_id","stat_time_day"]',
    ADS_METRICS,
    DATES,
    {},
    {
      dimensions: { ad_id: '1780000000000001001', stat_time_day: '2025-03-01 00:00:00' },
      metrics: { ad_name: 'Spring sale - video 1', ad_text: 'Run further this spring: 30% off all trail shoes.', spend: '55.10', impressions: '21009' },
    },
  ],
  [
    'ads_reports_hourly',
    'AUCTION_AD',
    '["ad_id","stat_time_hour"]',
    ADS_METRICS,
    { start_date: '2025-03-01', end_date: '2025-03-01' },
    {},
    {
      dimensions: { ad_id: '1780000000000001001', stat_time_hour: '2025-03-01 14:00:00' },
      metrics: { ad_name: 'Spring sale - video 1', spend: '4.12', impressions: '1530' },
    },
  ],
  [
    'ads_reports_lifetime',
    'AUCTION_AD',
    '["ad_id"]',
    ADS_METRICS,
    null,
    { query_lifetime: 'true' },
    { dimensions: { ad_id: '1780000000000001001' }, metrics: { ad_name: 'Spring sale - video 1', spend: '1290.55', impressions: '502133', clicks: '6021' } },
  ],
];

describe('tiktok-marketing reports (GET /report/integrated/get/)', () => {
  it.each(REPORTS)('%s sends report_type BASIC, data_level %s and dimensions %s', async (entity, dataLevel, dimensions, metrics, dates, extra, row) => {
    const scope = api()
      .get(`${BASE}/report/integrated/get/`)
      .query({ advertiser_id: ADVERTISER_ID, ...(dates ?? {}), page_size: '1000', metrics, report_type: 'BASIC', data_level: dataLevel, dimensions, ...extra })
      .reply(200, ok({ list: [row], page_info: pageInfo(1, 1000, 1) }));

    const res = await tiktok().execute(entity, 'list', { advertiser_id: ADVERTISER_ID, ...(dates ?? {}), page_size: 1000 });

    expect(res.data).toEqual([row]);
    expect(res.pagination).toEqual({ page_info: { page: 1, page_size: 1000, total_number: 1, total_page: 1 } });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('sends the caller metrics instead of the default and walks two report pages', async () => {
    const metrics = '["spend","impressions"]';
    const query = {
      advertiser_id: ADVERTISER_ID,
      ...DATES,
      page_size: '1',
      metrics,
      report_type: 'BASIC',
      data_level: 'AUCTION_CAMPAIGN',
      dimensions: '["campaign_id","stat_time_day"]',
    };
    const day1 = { dimensions: { campaign_id: '1780000000000000001', stat_time_day: '2025-03-01 00:00:00' }, metrics: { spend: '30.00', impressions: '1200' } };
    const day2 = { dimensions: { campaign_id: '1780000000000000001', stat_time_day: '2025-03-02 00:00:00' }, metrics: { spend: '31.50', impressions: '1302' } };
    const scope = api()
      .get(`${BASE}/report/integrated/get/`)
      .query(query)
      .reply(200, ok({ list: [day1], page_info: pageInfo(1, 1, 2) }))
      .get(`${BASE}/report/integrated/get/`)
      .query({ ...query, page: '2' })
      .reply(200, ok({ list: [day2], page_info: pageInfo(2, 1, 2) }));
    const conn = tiktok();
    const params = { advertiser_id: ADVERTISER_ID, ...DATES, page_size: 1, metrics };

    const p1 = await conn.execute('campaigns_reports_daily', 'list', params);
    expect(p1.data).toEqual([day1]);
    expect(p1.next_params).toEqual({ page: 2 });
    const p2 = await conn.execute('campaigns_reports_daily', 'list', { ...params, ...p1.next_params });
    expect(p2.data).toEqual([day2]);
    expect(p2.pagination).toEqual({ page_info: { page: 2, page_size: 1, total_number: 2, total_page: 2 } });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('requires advertiser_id, start_date and end_date (YYYY-MM-DD) for daily reports', async () => {
    const missing = await tiktok()
      .execute('ads_reports_daily', 'list', {})
      .catch((e: unknown) => e);
    const malformed = await tiktok()
      .execute('ads_reports_daily', 'list', { advertiser_id: ADVERTISER_ID, start_date: '03/01/2025', end_date: '2025-03-07T00:00:00Z' })
      .catch((e: unknown) => e);

    expect((missing as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['advertiser_id', 'required'],
      ['end_date', 'required'],
      ['start_date', 'required'],
    ]);
    expect((malformed as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['end_date', 'format'],
      ['start_date', 'format'],
    ]);
  });

  it("accepts report_type, service_type, data_level and dimensions as Airbyte's clients send them, only with the entity's own values", async () => {
    const query = {
      advertiser_id: ADVERTISER_ID,
      ...DATES,
      metrics: ADS_METRICS,
      report_type: 'BASIC',
      service_type: 'AUCTION',
      data_level: 'AUCTION_AD',
      dimensions: '["ad_id", "stat_time_day"]',
    };
    const scope = api()
      .get(`${BASE}/report/integrated/get/`)
      .query(query)
      .reply(200, ok({ list: [], page_info: pageInfo(1, 10, 0) }));

    const res = await tiktok().execute('ads_reports_daily', 'list', {
      advertiser_id: ADVERTISER_ID,
      ...DATES,
      report_type: 'BASIC',
      service_type: 'AUCTION',
      data_level: 'AUCTION_AD',
      dimensions: '["ad_id", "stat_time_day"]',
    });
    expect(res.data).toEqual([]);
    expect(scope.isDone()).toBe(true);

    const none = nock(API);
    const err = await tiktok()
      .execute('ads_reports_daily', 'list', {
        advertiser_id: ADVERTISER_ID,
        ...DATES,
        report_type: 'AUDIENCE',
        service_type: 'RESERVATION',
        data_level: 'AUCTION_CAMPAIGN',
        dimensions: '["campaign_id"]',
      })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['data_level', 'enum'],
      ['dimensions', 'pattern'],
      ['report_type', 'enum'],
      ['service_type', 'enum'],
    ]);
    expect(none.isDone()).toBe(true);
  });

  it('lifetime reports take an optional date range, sent as given (TikTok ignores it for lifetime metrics)', async () => {
    const scope = api()
      .get(`${BASE}/report/integrated/get/`)
      .query({
        advertiser_id: ADVERTISER_ID,
        ...DATES,
        page_size: '1000',
        metrics: ADS_METRICS,
        report_type: 'BASIC',
        service_type: 'AUCTION',
        data_level: 'AUCTION_AD',
        dimensions: '["ad_id"]',
        query_lifetime: 'true',
      })
      .reply(200, ok({ list: [], page_info: pageInfo(1, 1000, 0) }));

    const res = await tiktok().execute('ads_reports_lifetime', 'list', {
      advertiser_id: ADVERTISER_ID,
      ...DATES,
      page_size: 1000,
      report_type: 'BASIC',
      service_type: 'AUCTION',
      data_level: 'AUCTION_AD',
      dimensions: '["ad_id"]',
    });

    expect(res.data).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a lifetime date that is not a date', async () => {
    const err = await tiktok()
      .execute('ads_reports_lifetime', 'list', { advertiser_id: ADVERTISER_ID, start_date: 'last month' })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => i.field)).toEqual(['start_date']);
  });
});

describe('user (the connector check)', () => {
  it('gets the user who authorized the app: GET /user/info/ with the Access-Token header, the record under data', async () => {
    const user = {
      core_user_id: '7011111111111111111',
      display_name: 'Acme Ads',
      email: 'ads@acme.example',
      avatar_url: 'https://p16.tiktokcdn.com/a.png',
      create_time: 1700000000,
    };
    const scope = api().get(`${BASE}/user/info/`).reply(200, ok(user));
    await expect(tiktok().execute('user', 'get', {})).resolves.toMatchObject({ data: user });
    expect(scope.isDone()).toBe(true);
  });

  it('reports a refused access token (code 40105) as an authentication error', async () => {
    api().get(`${BASE}/user/info/`).reply(200, { code: 40105, message: 'Access token is incorrect or has been revoked.', request_id: REQUEST_ID, data: {} });
    await expect(tiktok().execute('user', 'get', {})).rejects.toBeInstanceOf(AuthenticationError);
  });
});
