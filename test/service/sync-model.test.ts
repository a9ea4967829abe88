/**
 * Incremental syncs against an upstream that keeps changing, as seeded random steps: Harvest's clients list is
 * played by an in-memory model (updated_since, pages linked by links.next) that creates, renames and deletes
 * clients, some with change times a few minutes behind the newest (a vendor's clocks are not one clock), while
 * the service syncs through its API, sometimes with the full sweep due. After every sync the context store must
 * hold every client the model holds, as the model holds it; a client it holds beyond those must be one deleted
 * upstream since the last full sweep (a change filter never reports a deletion); after a full sweep, exactly the
 * model's clients. A sync with nothing changed since the one before costs one request.
 */
import nock from 'nock';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { connectorSyncApi } from '../support/sync-api.js';

const HARVEST = 'https://api.harvestapp.com';
const MINUTE = 60_000;
/** Clients per page of the model's answers (Harvest's are up to per_page; small here, so syncs read several pages). */
const PAGE_SIZE = 7;
const STEPS = 60;

interface Client {
  id: number;
  name: string;
  is_active: boolean;
  currency: string;
  created_at: string;
  updated_at: string;
}

/** mulberry32: a small seeded generator, so a failing run can be replayed. */
function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** ISO 8601 at whole seconds, as Harvest writes it. */
const isoSeconds = (ms: number) => new Date(Math.floor(ms / 1000) * 1000).toISOString().replace('.000Z', 'Z');

describe.each(storeKinds())('incremental syncs against a changing upstream, seeded random steps (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  const { create, entityState, syncEntity } = connectorSyncApi(() => tenant);

  beforeAll(async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    service = await startTestService(kind, { upstreamRetries: 0 }, { sync: { retry: { retries: 0, baseMs: 5, maxMs: 20 } } });
    tenant = await createTenant(service, 'Model Org');
  });
  afterAll(async () => {
    nock.cleanAll();
    nock.enableNetConnect();
    await service.close();
  });

  it('keeps the store equal to the upstream, but for deletions until the next full sweep', { timeout: 120_000 }, async () => {
    const random = generator(kind === 'pglite' ? 11 : 12);
    const upstream = new Map<number, Client>();
    let clock = Date.now() - 30 * 24 * 60 * MINUTE;
    let nextId = 1;
    const requests: string[] = [];

    /** GET /v2/clients as Harvest answers it, from the model: updated_since inclusive, pages linked by links.next. */
    nock(HARVEST)
      .persist()
      .get('/v2/clients')
      .query(true)
      .reply(function reply(uri) {
        requests.push(uri);
        const query = new URL(uri, HARVEST).searchParams;
        const since = query.get('updated_since');
        const page = Number(query.get('page') ?? '1');
        const matching = [...upstream.values()]
          .filter((client) => since === null || Date.parse(client.updated_at) >= Date.parse(since))
          .sort((a, b) => b.id - a.id);
        const pages = Math.max(1, Math.ceil(matching.length / PAGE_SIZE));
        const next = new URL('/v2/clients', HARVEST);
        next.searchParams.set('page', String(page + 1));
        next.searchParams.set('per_page', query.get('per_page') ?? '2000');
        if (since !== null) next.searchParams.set('updated_since', since);
        next.searchParams.set('ref', 'next');
        return [
          200,
          {
            clients: matching.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE),
            per_page: PAGE_SIZE,
            total_pages: pages,
            total_entries: matching.length,
            next_page: page < pages ? page + 1 : null,
            previous_page: page > 1 ? page - 1 : null,
            page,
            links: { first: '', next: page < pages ? next.toString() : null, previous: null, last: '' },
          },
        ];
      });

    const id = await create({ connector_type: 'harvest', name: 'Harvest model', credentials: { api_token: 'harvest-model-token', account_id: '123456' } });
    // Clients deleted upstream since the last full sweep: the only ones the store may still hold beyond the model's.
    let deletedSinceSweep = new Set<string>();
    let changedSinceSync = true;
    const stats = { syncs: 0, sweeps: 0, quiet: 0, created: 0, renamed: 0, deleted: 0, late: 0 };

    const live = async () => {
      const rows = await service.store.db
        .selectFrom('context_records')
        .select(['record_id', 'data'])
        .where('connector_id', '=', id)
        .where('entity', '=', 'clients')
        .where('deleted_at', 'is', null)
        .execute();
      return new Map(rows.map((row) => [row.record_id, (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as Client]));
    };

    for (let step = 0; step < STEPS; step += 1) {
      // A few upstream changes, the clock moving on between them.
      const changes = Math.floor(random() * 6);
      for (let change = 0; change < changes; change += 1) {
        clock += Math.floor(random() * 10 * MINUTE);
        const roll = random();
        const existing = [...upstream.keys()];
        // A change stamped up to 4 minutes behind the clock: within the 5 minutes of overlap the manifest declares.
        const late = random() < 0.3 ? Math.floor(random() * 4 * MINUTE) : 0;
        const stamp = isoSeconds(clock - late);
        if (roll < 0.45 || existing.length === 0) {
          const client: Client = { id: nextId, name: `Client ${nextId}`, is_active: true, currency: 'EUR', created_at: stamp, updated_at: stamp };
          nextId += 1;
          upstream.set(client.id, client);
          deletedSinceSweep.delete(String(client.id));
          stats.created += 1;
        } else if (roll < 0.8) {
          const target = upstream.get(existing[Math.floor(random() * existing.length)] as number) as Client;
          upstream.set(target.id, { ...target, name: `${target.name.split(' (')[0]} (renamed at step ${step})`, updated_at: stamp });
          stats.renamed += 1;
        } else {
          const target = existing[Math.floor(random() * existing.length)] as number;
          upstream.delete(target);
          deletedSinceSweep.add(String(target));
          stats.deleted += 1;
        }
        if (late > 0) stats.late += 1;
        changedSinceSync = true;
      }

      const sweep = random() < 0.15;
      if (sweep) {
        await service.store.db
          .updateTable('context_sync_state')
          .set({ last_full_sweep_at: sql`now() - interval '25 hours'` })
          .where('connector_id', '=', id)
          .where('entity', '=', 'clients')
          .execute();
      }
      const before = requests.length;
      const state = await syncEntity(id, 'clients');
      const sent = requests.slice(before);
      stats.syncs += 1;
      const where = `step ${step} (${sent.join(' ')})`;
      expect(state.status, where).toBe('ready');

      const stored = await live();
      for (const client of upstream.values()) expect(stored.get(String(client.id)), `${where}: client ${client.id}`).toEqual(client);
      const beyond = [...stored.keys()].filter((storedId) => !upstream.has(Number(storedId)));
      const full = state.last_mode === 'full';
      if (full) {
        stats.sweeps += 1;
        expect(beyond, `${where}: a full sweep leaves only the upstream's clients`).toEqual([]);
        deletedSinceSweep = new Set();
      } else {
        expect(
          beyond.filter((storedId) => !deletedSinceSweep.has(storedId)),
          `${where}: only clients deleted since the last full sweep stay`,
        ).toEqual([]);
        expect(
          sent.every((uri) => new URL(uri, HARVEST).searchParams.has('updated_since')),
          where,
        ).toBe(true);
        if (!changedSinceSync) {
          stats.quiet += 1;
          expect(sent, `${where}: nothing changed since the sync before`).toHaveLength(1);
        }
      }
      expect(state.entity_count, where).toBe(stored.size);
      changedSinceSync = false;
    }
    // The steps took every path: creations, renames, deletions, late stamps, incremental and full syncs, quiet syncs.
    expect(stats.sweeps).toBeGreaterThan(2);
    expect(stats.syncs - stats.sweeps).toBeGreaterThan(20);
    expect(Math.min(stats.quiet, stats.created, stats.renamed, stats.deleted, stats.late)).toBeGreaterThan(0);
    expect((await entityState(id, 'clients')).entity_count).toBe((await live()).size);
  });
});
