import nock from 'nock';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { connectorSyncApi, useNockedVendors } from '../support/sync-api.js';

// Lists whose required params the connector's configuration gives (manifest search.config_params):
// TikTok's advertisers, whose ids an access token alone cannot list. Every request is asserted as TikTok
// receives it.

const CONNECTORS = '/api/v1/integrations/connectors';
const TIKTOK = 'https://business-api.tiktok.com';
const TOKEN = 'tiktok-secret-access-token';
const IDS = ['7012345678901234567', '7012345678901234568'];

const advertiser = (id: string, name: string) => ({ advertiser_id: id, name, status: 'STATUS_ENABLE', currency: 'USD', timezone: 'Etc/GMT' });
const campaign = (id: string, advertiserId: string, name: string) => ({
  campaign_id: id,
  advertiser_id: advertiserId,
  campaign_name: name,
  objective_type: 'TRAFFIC',
  operation_status: 'ENABLE',
  modify_time: '2026-11-20 10:00:00',
});

describe.each(storeKinds())('syncs of lists whose params the configuration gives (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;

  useNockedVendors();
  const { create, entityState, syncEntity } = connectorSyncApi(() => tenant);

  beforeAll(async () => {
    service = await startTestService(kind, { upstreamRetries: 0 }, { sync: { retry: { retries: 0, rateLimitRetries: 0, baseMs: 5, maxMs: 20 } } });
    tenant = await createTenant(service, 'TikTok Org');
  });
  afterAll(async () => {
    await service.close();
  });

  async function search(id: string, entity: string): Promise<Array<Record<string, unknown>>> {
    const res = await tenant.api.post<{ result: { data: Array<Record<string, unknown>> } }>(`${CONNECTORS}/${id}/execute`, {
      entity,
      action: 'context_store_search',
      params: { query: { sort: [{ name: 'asc' }] }, limit: 100 },
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.result.data;
  }

  /** A TikTok connector whose replication_config names the advertisers IDS. */
  const createConfigured = (name: string) =>
    create({ connector_type: 'tiktok-marketing', name, credentials: { access_token: TOKEN }, replication_config: { advertiser_ids: JSON.stringify(IDS) } });

  /** TikTok's advertiser info for IDS, answered `times` times: the ids and nothing else (a list without pagination gets no page size). */
  const advertiserInfo = (times: number) =>
    nock(TIKTOK)
      .matchHeader('access-token', TOKEN)
      .get('/open_api/v1.3/advertiser/info/')
      .query({ advertiser_ids: JSON.stringify(IDS) })
      .times(times)
      .reply(200, {
        code: 0,
        message: 'OK',
        request_id: 'r1',
        data: { list: [advertiser(IDS[0] as string, 'Acme US'), advertiser(IDS[1] as string, 'Acme EU')] },
      });

  it('TikTok: advertisers are read with the configured advertiser_ids, and their campaigns through them', async () => {
    const id = await createConfigured('TikTok');
    advertiserInfo(2);
    expect(await syncEntity(id, 'advertisers')).toMatchObject({ status: 'ready', entity_count: 2, reason: null });
    expect((await search(id, 'advertisers')).map((record) => record.advertiser_id)).toEqual([IDS[1], IDS[0]]);

    // Campaigns: once per advertiser (a child synced alone walks its parents live), the largest page TikTok allows.
    for (const [index, advertiserId] of IDS.entries()) {
      nock(TIKTOK)
        .matchHeader('access-token', TOKEN)
        .get('/open_api/v1.3/campaign/get/')
        .query({ advertiser_id: advertiserId, page_size: '1000' })
        .reply(200, {
          code: 0,
          message: 'OK',
          request_id: `c${index}`,
          data: {
            list: [campaign(`c-${index}`, advertiserId, `Spring sale ${index}`)],
            page_info: { page: 1, page_size: 1000, total_number: 1, total_page: 1 },
          },
        });
    }
    expect(await syncEntity(id, 'campaigns')).toMatchObject({ status: 'ready', entity_count: 2, reason: null });
  });

  it('TikTok: daily reports are read per advertiser over the last 90 days, in ranges of at most 29 days', async () => {
    const id = await createConfigured('TikTok reports');
    advertiserInfo(1);
    const asked: Array<Record<string, string>> = [];
    nock(TIKTOK)
      .matchHeader('access-token', TOKEN)
      .get('/open_api/v1.3/report/integrated/get/')
      .query(true)
      .times(8)
      .reply((uri) => {
        const query = Object.fromEntries(new URL(uri, TIKTOK).searchParams);
        asked.push(query);
        const row = {
          dimensions: { advertiser_id: query.advertiser_id, stat_time_day: `${query.end_date} 00:00:00` },
          metrics: { spend: '12.50', impressions: '1000' },
        };
        return [
          200,
          { code: 0, message: 'OK', request_id: 'r', data: { list: [row], page_info: { page: 1, page_size: 1000, total_number: 1, total_page: 1 } } },
        ];
      });
    const today = new Date().toISOString().slice(0, 10);
    expect(await syncEntity(id, 'advertisers_reports_daily')).toMatchObject({ status: 'ready', reason: null });

    const { start_date: _start, end_date: _end, advertiser_id: _advertiser, ...constant } = asked[0] as Record<string, string>;
    expect(constant).toEqual({
      report_type: 'BASIC',
      data_level: 'AUCTION_ADVERTISER',
      dimensions: '["advertiser_id","stat_time_day"]',
      page_size: '1000',
      metrics: expect.stringMatching(/^\["spend",/),
    });
    const DAY = 86_400_000;
    for (const advertiserId of IDS) {
      const ranges = asked.filter((q) => q.advertiser_id === advertiserId).map((q): [string, string] => [q.start_date as string, q.end_date as string]);
      expect(ranges[0]?.[0]).toBe(new Date(Date.parse(today) - 89 * DAY).toISOString().slice(0, 10));
      expect(ranges.at(-1)?.[1]).toBe(today);
      for (const [index, [from, to]] of ranges.entries()) {
        expect(Date.parse(to) - Date.parse(from)).toBeLessThanOrEqual(29 * DAY);
        // Consecutive: the next range begins on the day the previous one ended.
        if (index > 0) expect(from).toBe(ranges[index - 1]?.[1]);
      }
      expect(ranges).toHaveLength(4);
    }
  });

  it('TikTok without advertiser_ids: the sync asks TikTok nothing and says which replication_config field to set', async () => {
    const id = await create({ connector_type: 'tiktok-marketing', name: 'TikTok, not configured', credentials: { access_token: TOKEN } });
    const advertisers = await syncEntity(id, 'advertisers');
    expect(advertisers).toMatchObject({ status: 'failed', entity_count: 0 });
    expect(advertisers.reason).toMatch(
      /^Reading advertisers needs advertiser_ids from the connector's configuration, which it does not set: set replication_config\.advertiser_ids \(Advertiser \(ad account\) IDs the context store syncs/,
    );
    const campaigns = await syncEntity(id, 'campaigns');
    expect(campaigns).toMatchObject({ status: 'failed', entity_count: 0 });
    expect(campaigns.reason).toMatch(/replication_config\.advertiser_ids/);
    // nock allows no other host than 127.0.0.1 and no interceptor was set: a request to TikTok would have failed differently.
    expect(await entityState(id, 'advertisers')).toMatchObject({ status: 'failed' });
  });

  it('TikTok: advertiser_ids that are not a JSON array of ids are refused at creation, naming the field', async () => {
    const res = await tenant.api.post<{ message: string; errors?: Array<{ field: string; rule: string }> }>(`${CONNECTORS}?check=false`, {
      workspace_name: 'default',
      connector_type: 'tiktok-marketing',
      name: 'TikTok, bad ids',
      credentials: { access_token: TOKEN },
      replication_config: { advertiser_ids: '7012345678901234567' },
    });
    expect(res.status).toBe(400);
    expect(JSON.stringify(res.body)).toContain('advertiser_ids');
    expect(JSON.stringify(res.body)).not.toContain(TOKEN);
  });
});
