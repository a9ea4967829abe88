/**
 * Incremental syncs against an upstream that keeps changing, as seeded random steps: Harvest's clients list is
 * served on 127.0.0.1 (test/support/harvest-stand-in.ts: updated_since, pages linked by links.next) from a model
 * that creates, renames and deletes clients, some with change times a few minutes behind the newest (a vendor's
 * clocks are not one clock), while the service syncs through its API, sometimes with the full sweep due. After every sync the context store must
 * hold every client the model holds, as the model holds it; a client it holds beyond those must be one deleted
 * upstream since the last full sweep (a change filter never reports a deletion). A full sweep asks Harvest for each
 * client it missed (search.confirm_deletion) and deletes those Harvest answers 404 for, so it leaves exactly the
 * model; in some steps Harvest fails those reads (503), and the missed clients stay as the sweep's unconfirmed
 * deletions (a record is deleted when two full walks in a row miss it): the next sync walks in full and deletes them.
 * A sync with nothing changed since the one before costs one request.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { makeFullSweepDue } from '../support/context-store.js';
import { type HarvestClient, type HarvestStandIn, harvestTime, startHarvestStandIn } from '../support/harvest-stand-in.js';
import { seededRandom } from '../support/seeded-random.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { connectorSyncApi } from '../support/sync-api.js';

const MINUTE = 60_000;
const TOKEN = 'harvest-model-token';
/** Clients per page of the model's answers (Harvest's are up to per_page; small here, so syncs read several pages). */
const PAGE_SIZE = 7;
const STEPS = 60;

describe.each(storeKinds())('incremental syncs against a changing upstream, seeded random steps (%s)', (kind) => {
  let service: TestService;
  let tenant: Tenant;
  let upstream: HarvestStandIn;
  const { create, entityState, syncEntity } = connectorSyncApi(() => tenant);

  beforeAll(async () => {
    upstream = await startHarvestStandIn({ pageSize: PAGE_SIZE });
    service = await startTestService(
      kind,
      { upstreamRetries: 0, upstreamBaseUrls: { harvest: upstream.url } },
      { sync: { retry: { retries: 0, baseMs: 5, maxMs: 20 } } },
    );
    tenant = await createTenant(service, 'Model Org');
  });
  afterAll(async () => {
    await service.close();
    await upstream.close();
  });

  it('keeps the store equal to the upstream, but for deletions until the next full sweep', { timeout: 120_000 }, async () => {
    const random = seededRandom(kind === 'pglite' ? 11 : 12);
    // The model: Harvest lists the most recently created clients first.
    const model = new Map<number, HarvestClient>();
    const publish = () => {
      upstream.clients = [...model.values()].sort((a, b) => b.id - a.id);
    };
    let clock = Date.now() - 30 * 24 * 60 * MINUTE;
    let nextId = 1;
    const requests = upstream.requests;
    const targets = (from: number) => requests.slice(from).map((request) => request.target);

    const id = await create({ connector_type: 'harvest', name: 'Harvest model', credentials: { api_token: TOKEN, account_id: '123456' } });
    // Clients deleted upstream since the last full sweep: the only ones the store may still hold beyond the model's.
    let deletedSinceSweep = new Set<string>();
    // Clients the last full walk did not read for the first time: still live, deleted by the next full walk.
    let unconfirmed = new Set<string>();
    let changedSinceSync = true;
    const stats = { syncs: 0, sweeps: 0, confirmations: 0, askedFor: 0, quiet: 0, created: 0, renamed: 0, deleted: 0, late: 0 };

    const live = async () => {
      const rows = await service.store.db
        .selectFrom('context_records')
        .select(['record_id', 'data'])
        .where('connector_id', '=', id)
        .where('entity', '=', 'clients')
        .where('deleted_at', 'is', null)
        .execute();
      return new Map(rows.map((row) => [row.record_id, (typeof row.data === 'string' ? JSON.parse(row.data) : row.data) as HarvestClient]));
    };

    for (let step = 0; step < STEPS; step += 1) {
      // A few upstream changes, the clock moving on between them.
      const changes = Math.floor(random() * 6);
      for (let change = 0; change < changes; change += 1) {
        clock += Math.floor(random() * 10 * MINUTE);
        const roll = random();
        const existing = [...model.keys()];
        // A change stamped up to 4 minutes behind the clock: within the 5 minutes of overlap the manifest declares.
        const late = random() < 0.3 ? Math.floor(random() * 4 * MINUTE) : 0;
        const stamp = harvestTime(clock - late);
        if (roll < 0.45 || existing.length === 0) {
          const client: HarvestClient = { id: nextId, name: `Client ${nextId}`, is_active: true, currency: 'EUR', created_at: stamp, updated_at: stamp };
          nextId += 1;
          model.set(client.id, client);
          deletedSinceSweep.delete(String(client.id));
          stats.created += 1;
        } else if (roll < 0.8) {
          const target = model.get(existing[Math.floor(random() * existing.length)] as number) as HarvestClient;
          model.set(target.id, { ...target, name: `${target.name.split(' (')[0]} (renamed at step ${step})`, updated_at: stamp });
          stats.renamed += 1;
        } else {
          const target = existing[Math.floor(random() * existing.length)] as number;
          model.delete(target);
          deletedSinceSweep.add(String(target));
          stats.deleted += 1;
        }
        if (late > 0) stats.late += 1;
        changedSinceSync = true;
      }
      publish();

      const sweep = random() < 0.15;
      if (sweep) {
        await makeFullSweepDue(service.store, { connectorId: id, entity: 'clients' });
      }
      upstream.readsFail = random() < 0.4;
      const before = requests.length;
      const state = await syncEntity(id, 'clients');
      const sent = targets(before).filter((target) => target.includes('/clients'));
      stats.syncs += 1;
      const where = `step ${step} (${sent.join(' ')})`;
      expect(state.status, where).toBe('ready');

      const stored = await live();
      for (const client of model.values()) expect(stored.get(String(client.id)), `${where}: client ${client.id}`).toEqual(client);
      const beyond = [...stored.keys()].filter((storedId) => !model.has(Number(storedId)));
      const full = state.last_mode === 'full';
      if (full) {
        stats.sweeps += 1;
        if (unconfirmed.size > 0) stats.confirmations += 1;
        expect(
          beyond.filter((storedId) => !deletedSinceSweep.has(storedId)),
          `${where}: a full sweep leaves the upstream's clients and those deleted since the sweep before`,
        ).toEqual([]);
        expect(
          beyond.filter((storedId) => unconfirmed.has(storedId)),
          `${where}: clients missed by two full walks in a row are deleted`,
        ).toEqual([]);
        expect(state.unconfirmed_deletions, where).toBe(beyond.length);
        // Harvest answered the reads of the missed clients: each one it answered 404 for is deleted already.
        if (!upstream.readsFail) expect(beyond, `${where}: a full sweep deletes the missed clients Harvest answers 404 for`).toEqual([]);
        if (sent.some((target) => /\/clients\/\d+$/.test(target))) stats.askedFor += 1;
        unconfirmed = new Set(beyond);
        deletedSinceSweep = new Set();
      } else {
        expect([...unconfirmed], `${where}: the sync after a full walk that missed clients walks in full`).toEqual([]);
        expect(
          beyond.filter((storedId) => !deletedSinceSweep.has(storedId)),
          `${where}: only clients deleted since the last full sweep stay`,
        ).toEqual([]);
        expect(
          sent.every((target) => new URL(target, upstream.url).searchParams.has('updated_since')),
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
    expect(stats.confirmations).toBeGreaterThan(0);
    expect(stats.askedFor).toBeGreaterThan(0);
    expect(stats.syncs - stats.sweeps).toBeGreaterThan(20);
    expect(Math.min(stats.quiet, stats.created, stats.renamed, stats.deleted, stats.late)).toBeGreaterThan(0);
    expect((await entityState(id, 'clients')).entity_count).toBe((await live()).size);
  });

  it('a deletion upstream during a walk paged by position does not delete the record it shifts past the walk', async () => {
    const clock = Date.now() - 24 * 60 * MINUTE;
    const client = (n: number): HarvestClient => {
      const stamp = harvestTime(clock + n * MINUTE);
      return { id: n, name: `Shifted ${n}`, is_active: true, currency: 'EUR', created_at: stamp, updated_at: stamp };
    };
    // Three pages of 7 (the stand-in's page size): Harvest's pages are numbered, so each is a position in the list.
    upstream.readsFail = false;
    upstream.clients = Array.from({ length: 15 }, (_, index) => client(15 - index));
    const id = await create({ connector_type: 'harvest', name: 'Harvest shifted', credentials: { api_token: TOKEN, account_id: '123456' } });
    const stored = async () => {
      const rows = await service.store.db
        .selectFrom('context_records')
        .select('record_id')
        .where('connector_id', '=', id)
        .where('entity', '=', 'clients')
        .where('deleted_at', 'is', null)
        .execute();
      return rows.map((row) => Number(row.record_id)).sort((x, y) => y - x);
    };
    const upstreamIds = () => upstream.clients.map((c) => c.id);
    expect(await syncEntity(id, 'clients')).toMatchObject({ status: 'ready', entity_count: 15 });

    // The full sweep: while it reads page 1, client 13 (third on page 1) is deleted, so client 8, first of page
    // 2 until then, moves to page 1 and the walk never reads it.
    await makeFullSweepDue(service.store, { connectorId: id, entity: 'clients' });
    upstream.beforeList = (list, url) => {
      if (list === 'clients' && url.searchParams.get('page') === '2' && upstreamIds().includes(13)) {
        upstream.clients = upstream.clients.filter((c) => c.id !== 13);
      }
    };
    let before = upstream.requests.length;
    const swept = await syncEntity(id, 'clients');
    upstream.beforeList = undefined;
    // Page 2 is the last of the 14 left; then the sweep asks Harvest for client 8, which it did not read.
    expect(upstream.requests.slice(before).map((r) => r.target)).toEqual(['/clients?per_page=2000', '/clients?per_page=2000&page=2', '/clients/8']);
    // Harvest still has client 8: it stays, a deletion to confirm (client 13 was read before it was deleted).
    expect(swept).toMatchObject({ status: 'ready', last_mode: 'full', entity_count: 15, unconfirmed_deletions: 1 });
    expect(await stored()).toEqual(Array.from({ length: 15 }, (_, index) => 15 - index));

    // The next sync walks in full though the sweep is not due: it reads client 8, and misses client 13, which
    // Harvest answers 404 for: deleted at once.
    before = upstream.requests.length;
    expect(await syncEntity(id, 'clients')).toMatchObject({ status: 'ready', last_mode: 'full', entity_count: 14, unconfirmed_deletions: 0 });
    expect(upstream.requests.slice(before).map((r) => r.target)).toEqual(['/clients?per_page=2000', '/clients?per_page=2000&page=2', '/clients/13']);
    expect(await stored()).toEqual(upstreamIds());
    // And the one after that is incremental again.
    expect(await syncEntity(id, 'clients')).toMatchObject({ status: 'ready', last_mode: 'incremental', entity_count: 14 });
  });
});
