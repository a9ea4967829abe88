import nock from 'nock';
import { afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { AuthenticationError, createConnector, ValidationError } from '../../runtime/index.js';

// Snapchat Marketing API v1 (https://adsapi.snapchat.com/v1), OAuth2 refresh-token auth. Response
// bodies follow the examples of developers.snap.com/api/marketing-api/Ads-API: every record is wrapped
// as {sub_request_status, <entity>: {...}} inside a plural array (list and get both return the inner records),
// with paging.next_link on paged lists.

const API = 'https://adsapi.snapchat.com';
const ACCOUNTS = 'https://accounts.snapchat.com';
const ACCESS_TOKEN = 'eyJpc3MiOiJodHRwczpcL1wvYXV0aC5zbmFwY2hhdC5jb21cL2xvZ2luIiwidHlwIjoiSldUIiwiZW5jIjoiQTEyOENCQy1IUzI1NiJ9';
const CREDENTIALS = {
  client_id: '9f2d3a1c-5b7e-4c8d-a6f0-1e2b3c4d5e6f',
  client_secret: '7c1e4a9b2d8f3e6a0b5c',
  refresh_token: 'hCgwKCjE2ODk3MzYwMTIiAQgYASAB',
};

type Rec = Record<string, unknown>;

const snap = () => createConnector('snapchat-marketing', { credentials: { ...CREDENTIALS, access_token: ACCESS_TOKEN }, http: { retries: 0 } });

/** A scope that only matches requests with the bearer access token. */
const api = (token = ACCESS_TOKEN) => nock(API).matchHeader('authorization', `Bearer ${token}`).matchHeader('accept', 'application/json');

const REQUEST_ID = '5b3f92d000ff0943024587937a0001737e616473617069736300016275696c642d33346664346130642d312d3138322d320001010d';

/** Snapchat's envelope: records wrapped under their singular key inside the plural array. */
const envelope = (plural: string, singular: string, records: Rec[], nextLink?: string) => ({
  request_status: 'SUCCESS',
  request_id: REQUEST_ID,
  ...(nextLink !== undefined && { paging: { next_link: nextLink } }),
  [plural]: records.map((r) => ({ sub_request_status: 'SUCCESS', [singular]: r })),
});

beforeAll(() => nock.disableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// ---------------------------------------------------------------------------------------------
// Fixtures (from the Snap Marketing API examples)
// ---------------------------------------------------------------------------------------------
const ORG_ID = '40d6719b-da09-410b-9185-0cc9c0dfed1d';
const AD_ACCOUNT_ID = '8adc3db7-8148-4fbf-999c-8d2266369d74';
const CAMPAIGN_ID = '6cf25572-048b-4447-95d1-eb47d4a7e47e';
const AD_SQUAD_ID = '4c8e53c2-1747-4b50-a8a8-8200fe75aac5';

const R = {
  organizations: {
    id: ORG_ID,
    updated_at: '2017-05-26T15:14:44.877Z',
    created_at: '2017-05-26T15:14:44.877Z',
    name: 'My Organization',
    address_line_1: '101 Stewart St',
    locality: 'Seattle',
    administrative_district_level_1: 'WA',
    country: 'US',
    postal_code: '98134',
    type: 'ENTERPRISE',
  },
  adaccounts: {
    id: AD_ACCOUNT_ID,
    updated_at: '2017-05-26T15:14:44.877Z',
    created_at: '2017-05-26T15:14:44.877Z',
    name: 'Hooli Test Ad Account',
    type: 'PARTNER',
    status: 'ACTIVE',
    organization_id: ORG_ID,
    funding_source_ids: ['e703eb9f-8eac-4eda-a9c7-deec3935222d'],
    currency: 'USD',
    timezone: 'America/Los_Angeles',
    advertiser: 'Hooli',
    billing_type: 'REVOLVING',
    billing_center_id: '0f2dd7c7-a2a1-4b0c-a2d1-b4f1d1a7b0e1',
  },
  campaigns: {
    id: CAMPAIGN_ID,
    updated_at: '2016-08-11T22:03:58.896Z',
    created_at: '2016-08-11T22:03:58.869Z',
    name: 'Cool Campaign',
    ad_account_id: AD_ACCOUNT_ID,
    daily_budget_micro: 1000000000,
    status: 'PAUSED',
    objective: 'BRAND_AWARENESS',
    start_time: '2016-08-11T22:03:58.869Z',
    end_time: '2016-08-13T22:03:58.869Z',
    buy_model: 'AUCTION',
    delivery_status: ['INVALID_NOT_ACTIVE'],
  },
  adsquads: {
    id: AD_SQUAD_ID,
    updated_at: '2016-08-14T05:59:36.264Z',
    created_at: '2016-08-14T05:59:36.264Z',
    name: 'Ad Squad Uno',
    status: 'ACTIVE',
    campaign_id: CAMPAIGN_ID,
    type: 'SNAP_ADS',
    targeting: { regulated_content: false, geos: [{ country_code: 'us' }] },
    targeting_reach_status: 'VALID',
    placement: 'SNAP_ADS',
    billing_event: 'IMPRESSION',
    auto_bid: true,
    bid_strategy: 'AUTO_BID',
    daily_budget_micro: 1000000000,
    start_time: '2016-08-11T22:03:58.869Z',
    optimization_goal: 'IMPRESSIONS',
    delivery_constraint: 'DAILY_BUDGET',
    pacing_type: 'STANDARD',
    delivery_status: ['INVALID_NOT_ACTIVE'],
  },
  ads: {
    id: '8ade8ef7-0cde-4eaa-bde6-990133575229',
    updated_at: '2018-04-04T00:59:02.774Z',
    created_at: '2018-04-04T00:56:35.051Z',
    name: 'Test',
    ad_squad_id: AD_SQUAD_ID,
    creative_id: '6ad4e432-f679-4a9b-af1d-c5781212dd75',
    status: 'ACTIVE',
    type: 'SNAP_AD',
    render_type: 'STATIC',
    review_status: 'APPROVED',
    review_status_reasons: [],
    delivery_status: ['VALID'],
  },
  creatives: {
    id: 'c1e6e929-acec-466f-b023-852b8cacc18f',
    updated_at: '2016-08-14T07:05:10.390Z',
    created_at: '2016-08-14T07:05:10.390Z',
    name: 'Creative Creative',
    ad_account_id: AD_ACCOUNT_ID,
    type: 'SNAP_AD',
    packaging_status: 'SUCCESS',
    review_status: 'PENDING_REVIEW',
    shareable: true,
    headline: 'Dancing Cats',
    brand_name: 'Hooli',
    call_to_action: 'INSTALL_NOW',
    render_type: 'STATIC',
    top_snap_media_id: '7f3ec5f0-8c9b-4fb5-86f3-3b1b1f0e8f6a',
    top_snap_crop_position: 'MIDDLE',
  },
  media: {
    id: 'a7bee653-1865-41cf-8cee-8ab85a205837',
    updated_at: '2016-08-14T06:18:01.855Z',
    created_at: '2016-08-14T06:18:01.855Z',
    name: 'Media A - Video',
    ad_account_id: AD_ACCOUNT_ID,
    type: 'VIDEO',
    media_status: 'READY',
    file_name: 'MOV_1808.mov',
    download_link: 'https://storage.googleapis.com/ad-manager-creatives-production-us/a7bee653-1865-41cf-8cee-8ab85a205837.mp4',
    duration_in_seconds: 6.02,
    file_size_in_bytes: 2318841,
    media_usages: ['TOP_SNAP'],
  },
  segments: {
    id: '5677923948298240',
    updated_at: '2016-08-12T22:59:42.452Z',
    created_at: '2016-08-12T22:59:42.405Z',
    name: 'all the sams in the world',
    ad_account_id: AD_ACCOUNT_ID,
    description: 'all the sams in the world',
    status: 'ACTIVE',
    source_type: 'FIRST_PARTY',
    retention_in_days: 180,
    approximate_number_users: 1840,
    upload_status: 'COMPLETE',
    targetable_status: 'READY',
  },
} satisfies Record<string, Rec>;
type Entity = keyof typeof R;

const SINGULAR: Record<Entity, string> = {
  organizations: 'organization',
  adaccounts: 'adaccount',
  campaigns: 'campaign',
  adsquads: 'adsquad',
  ads: 'ad',
  creatives: 'creative',
  media: 'media',
  segments: 'segment',
};

// [entity, parent params, list path under /v1]
const LISTS: Array<[Entity, Rec, string]> = [
  ['organizations', {}, '/me/organizations'],
  ['adaccounts', { organization_id: ORG_ID }, `/organizations/${ORG_ID}/adaccounts`],
  ['campaigns', { ad_account_id: AD_ACCOUNT_ID }, `/adaccounts/${AD_ACCOUNT_ID}/campaigns`],
  ['adsquads', { campaign_id: CAMPAIGN_ID }, `/campaigns/${CAMPAIGN_ID}/adsquads`],
  ['ads', { ad_squad_id: AD_SQUAD_ID }, `/adsquads/${AD_SQUAD_ID}/ads`],
  // The same lists for a whole ad account (alternative_paths), as Airbyte's clients ask for them.
  ['adsquads', { ad_account_id: AD_ACCOUNT_ID }, `/adaccounts/${AD_ACCOUNT_ID}/adsquads`],
  ['ads', { ad_account_id: AD_ACCOUNT_ID }, `/adaccounts/${AD_ACCOUNT_ID}/ads`],
  ['creatives', { ad_account_id: AD_ACCOUNT_ID }, `/adaccounts/${AD_ACCOUNT_ID}/creatives`],
  ['media', { ad_account_id: AD_ACCOUNT_ID }, `/adaccounts/${AD_ACCOUNT_ID}/media`],
  ['segments', { ad_account_id: AD_ACCOUNT_ID }, `/adaccounts/${AD_ACCOUNT_ID}/segments`],
];

// [entity, get path prefix under /v1]
const GETS: Array<[Entity, string]> = [
  ['organizations', '/organizations'],
  ['adaccounts', '/adaccounts'],
  ['campaigns', '/campaigns'],
  ['adsquads', '/adsquads'],
  ['ads', '/ads'],
  ['creatives', '/creatives'],
  ['media', '/media'],
  ['segments', '/segments'],
];

describe('snapchat-marketing list', () => {
  it.each(LISTS)('%s list -> GET /v1%s returns the records unwrapped, like get', async (entity, params, path) => {
    const paged = entity !== 'organizations';
    const scope = api()
      .get(`/v1${path}`)
      .query(paged ? { limit: '50' } : {})
      .reply(200, envelope(entity, SINGULAR[entity], [R[entity]]));

    const res = await snap().execute(entity, 'list', paged ? { ...params, limit: 50 } : params);

    expect(res.data).toEqual([R[entity]]);
    if (paged) {
      expect(res.pagination).toEqual({ next_link: null });
    } else {
      expect(res.pagination).toBeUndefined();
    }
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('snapchat-marketing get', () => {
  it.each(GETS)('%s get -> GET /v1%s/{id} (the record itself)', async (entity, prefix) => {
    const record: Rec = R[entity];
    const scope = api()
      .get(`/v1${prefix}/${record.id}`)
      .reply(200, envelope(entity, SINGULAR[entity], [record]));

    const res = await snap().execute(entity, 'get', { id: record.id });

    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('snapchat-marketing pagination (paging.next_link)', () => {
  it('walks two pages of campaigns with the cursor and limit of next_link', async () => {
    const cursor =
      'CnEKFgoJY3JlYXRlZEF0EgkIoLnp8JLP0QISU2oKc35hZHNhcGlzY3ItCxIDQWRzIiQzMmFkZmYzMC1iNDk0LTQ4NWQtODMwYi04MjZlNDAzZTVkNjgMogEVYWQtbWFuYWdlci1wcm9kdWN0aW9uGAAgAQ';
    const next = `${API}/v1/adaccounts/${AD_ACCOUNT_ID}/campaigns?cursor=${cursor}&limit=50`;
    const second = { ...R.campaigns, id: '2a1b9c3d-7e5f-4a6b-8c9d-0e1f2a3b4c5d', name: 'Second Campaign', status: 'ACTIVE' };
    const scope = api()
      .get(`/v1/adaccounts/${AD_ACCOUNT_ID}/campaigns`)
      .query({ limit: '50' })
      .reply(200, envelope('campaigns', 'campaign', [R.campaigns], next))
      .get(`/v1/adaccounts/${AD_ACCOUNT_ID}/campaigns`)
      .query({ limit: '50', cursor })
      .reply(200, envelope('campaigns', 'campaign', [second]));
    const conn = snap();
    const params = { ad_account_id: AD_ACCOUNT_ID, limit: 50 };

    const p1 = await conn.execute('campaigns', 'list', params);
    expect(p1.data).toEqual([R.campaigns]);
    expect(p1.pagination).toEqual({ next_link: next });
    expect(p1.next_params).toEqual({ cursor, limit: 50 });

    const p2 = await conn.execute('campaigns', 'list', { ...params, ...p1.next_params });
    expect(p2.data).toEqual([second]);
    expect(p2.pagination).toEqual({ next_link: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });
});

describe('snapchat-marketing OAuth2.0', () => {
  const tokenEndpoint = (refreshToken = CREDENTIALS.refresh_token) =>
    nock(ACCOUNTS)
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .matchHeader('accept', 'application/json')
      .post(
        '/login/oauth2/access_token',
        `grant_type=refresh_token&refresh_token=${refreshToken}&client_id=${CREDENTIALS.client_id}&client_secret=${CREDENTIALS.client_secret}`,
      )
      .reply(200, {
        access_token: 'fresh-access-token',
        token_type: 'Bearer',
        expires_in: 1800,
        refresh_token: 'hCgwKCjE2ODk3MzYwMTIiAQgYASAC',
        scope: 'snapchat-marketing-api',
      });

  it('refreshes the token before the first call (form body with client credentials) and sends it as Bearer', async () => {
    const onTokenRefresh = vi.fn();
    const token = tokenEndpoint();
    const scope = api('fresh-access-token')
      .get('/v1/me/organizations')
      .reply(200, envelope('organizations', 'organization', [R.organizations]));
    const conn = createConnector('snapchat-marketing', { credentials: CREDENTIALS, onTokenRefresh, http: { retries: 0 } });

    const res = await conn.execute('organizations', 'list', {});

    expect(res.data).toEqual([R.organizations]);
    expect(onTokenRefresh).toHaveBeenCalledTimes(1);
    expect(onTokenRefresh.mock.calls[0]![0]).toMatchObject({
      access_token: 'fresh-access-token',
      refresh_token: 'hCgwKCjE2ODk3MzYwMTIiAQgYASAC',
      rotated: true,
    });
    expect(token.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('refreshes once after a 401 on the given access token and retries', async () => {
    const stale = api()
      .get(`/v1/adaccounts/${AD_ACCOUNT_ID}`)
      .reply(401, { request_status: 'ERROR', request_id: REQUEST_ID, debug_message: 'Unauthorized', display_message: 'Unauthorized', error_code: 'E3003' });
    const token = tokenEndpoint();
    const retry = api('fresh-access-token')
      .get(`/v1/adaccounts/${AD_ACCOUNT_ID}`)
      .reply(200, envelope('adaccounts', 'adaccount', [R.adaccounts]));

    const res = await snap().execute('adaccounts', 'get', { id: AD_ACCOUNT_ID });

    expect(res.data).toEqual(R.adaccounts);
    expect(stale.isDone()).toBe(true);
    expect(token.isDone()).toBe(true);
    expect(retry.isDone()).toBe(true);
  });

  it('reports a refused refresh as AuthenticationError', async () => {
    const token = nock(ACCOUNTS).post('/login/oauth2/access_token').reply(400, { error: 'invalid_grant', error_description: 'Invalid refresh token' });
    const conn = createConnector('snapchat-marketing', { credentials: CREDENTIALS, http: { retries: 0 } });

    const err = await conn.execute('organizations', 'list', {}).catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect(token.isDone()).toBe(true);
  });
});

describe('snapchat-marketing validation', () => {
  it('rejects a limit below 50 or above 1000 before any request', async () => {
    const scope = nock(API);
    for (const limit of [49, 1001]) {
      const err = await snap()
        .execute('ads', 'list', { ad_squad_id: AD_SQUAD_ID, limit })
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'limit', rule: limit < 50 ? 'minimum' : 'maximum' })]);
    }
    expect(scope.isDone()).toBe(true);
  });

  it('rejects a child list without a parent id, or with both of its parents, before any request', async () => {
    const scope = nock(API);
    const none = await snap()
      .execute('adsquads', 'list', {})
      .catch((e: unknown) => e);
    const both = await snap()
      .execute('ads', 'list', { ad_squad_id: AD_SQUAD_ID, ad_account_id: AD_ACCOUNT_ID })
      .catch((e: unknown) => e);

    expect(none).toBeInstanceOf(ValidationError);
    expect((none as ValidationError).issues).toEqual([
      expect.objectContaining({ field: 'params', rule: 'at_least_one_of', limit: ['campaign_id', 'ad_account_id'] }),
    ]);
    expect(both).toBeInstanceOf(ValidationError);
    expect((both as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_most_one_of' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('organizations list takes no params', async () => {
    const err = await snap()
      .execute('organizations', 'list', { per_page: 50 })
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(ValidationError);
  });
});
