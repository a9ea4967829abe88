/**
 * What the sync suites that mock vendors with nock share: the nock lifecycle of a suite, and a tenant's
 * connector API as those suites drive it (create a connector, sync one entity and wait, read its inspect
 * state).
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, expect } from 'vitest';
import type { Tenant } from './service.js';

const CONNECTORS = '/api/v1/integrations/connectors';

/** One entity of inspect's context_store_readiness.configured_cache_entities. */
export interface CacheEntity {
  entity: string;
  status: string;
  entity_count: number;
  mode: 'incremental' | 'full';
  last_mode: 'incremental' | 'full' | null;
  high_water_mark: string | null;
  last_full_sweep_at: string | null;
  unconfirmed_deletions: number;
  next_full_sweep_at: string | null;
  lag_seconds: number | null;
  reason: string | null;
}

/** No network but loopback for the suite; after each test, every interceptor it set up was used. */
export function useNockedVendors(): void {
  beforeAll(() => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
  });
  afterEach(() => {
    const pending = nock.pendingMocks();
    nock.cleanAll();
    expect(pending, 'every expected upstream request was made').toEqual([]);
  });
  afterAll(() => {
    nock.enableNetConnect();
  });
}

/** The connector calls of the tenant `tenantOf` returns (read when called: suites create it in beforeAll). */
export function connectorSyncApi(tenantOf: () => Tenant) {
  async function create(body: Record<string, unknown>): Promise<string> {
    const res = await tenantOf().api.post<{ id: string }>(`${CONNECTORS}?check=false`, { workspace_name: 'default', ...body });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  }

  async function entityState(id: string, entity: string): Promise<CacheEntity> {
    const res = await tenantOf().api.get<{ context_store_readiness: { configured_cache_entities: CacheEntity[] } }>(`${CONNECTORS}/${id}/inspect`);
    expect(res.status).toBe(200);
    const found = res.body.context_store_readiness.configured_cache_entities.find((e) => e.entity === entity);
    if (!found) throw new Error(`inspect lists no ${entity}`);
    return found;
  }

  /** Syncs one entity through the API (the job runs on the queue; the request waits for it) and answers its inspect state. */
  async function syncEntity(id: string, entity: string): Promise<CacheEntity> {
    const res = await tenantOf().api.post(`${CONNECTORS}/${id}/sync`, { entity, wait: true, wait_seconds: 60 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return entityState(id, entity);
  }

  /** Syncs one entity through the API, as `full` asks, and answers its result (the one entry of `results`). */
  async function syncResult(id: string, entity: string, options: { full?: boolean } = {}): Promise<Record<string, unknown>> {
    const res = await tenantOf().api.post<{ results: Array<Record<string, unknown>> }>(`${CONNECTORS}/${id}/sync`, {
      entity,
      wait: true,
      wait_seconds: 60,
      ...options,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    expect(res.body.results).toHaveLength(1);
    return res.body.results[0] as Record<string, unknown>;
  }

  return { create, entityState, syncEntity, syncResult };
}
