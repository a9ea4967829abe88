/**
 * Syncs as jobs on the PostgreSQL job queue (pg-boss): retries with backoff, the due check (scheduled
 * syncs) on PGlite, the per-vendor concurrency, and two services on one PostgreSQL sharing the jobs
 * without ever syncing one connector twice at once, and creating one queue from two processes at once.
 */
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { composeService, type ComposedService } from '../../src/composition.js';
import { ConfigError, loadConfig } from '../../src/config.js';
import pino from 'pino';
import pg from 'pg';
import PgBoss from 'pg-boss';
import { createQueueOnce } from '../../src/context/sync/queue-creation.js';
import { QUEUE_SCHEMA, SYNC_QUEUE_PREFIX, SyncService } from '../../src/context/sync/service.js';
import type { ServiceContext } from '../../src/service-context.js';
import { openStore, type Store } from '../../src/db/database.js';
import { createTenant, freshPostgresDatabase, startTestService, type Tenant, type TestService } from '../support/service.js';
import { expectStartedAfter, jobsOf, until } from '../support/sync-jobs.js';
import { form, response, startTypeformStandIn, type Rec, type StandIn } from '../support/typeform-stand-in.js';
import { inject } from 'vitest';

const CONNECTORS = '/api/v1/integrations/connectors';
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function seed(upstream: StandIn, forms: number): void {
  upstream.forms = Array.from({ length: forms }, (_, i) => form(`form${i + 1}`, `Survey ${i + 1}`));
  upstream.responses = new Map(upstream.forms.map((f) => [f.id as string, [response(`${String(f.id)}-r1`, 'an answer')]]));
}

async function createTypeform(tenant: Tenant, upstream: StandIn, extra: Rec = {}): Promise<string> {
  const res = await tenant.api.post<{ id: string }>(`${CONNECTORS}?check=false`, {
    workspace_name: 'default',
    connector_type: 'typeform',
    name: 'Typeform',
    credentials: { access_token: upstream.token },
    ...extra,
  });
  expect(res.status, JSON.stringify(res.body)).toBe(200);
  return res.body.id;
}

async function entityStates(store: Store, connectorId: string): Promise<Record<string, { status: string; started_at: Date }>> {
  const rows = await store.db.selectFrom('context_sync_state').select(['entity', 'status', 'started_at']).where('connector_id', '=', connectorId).execute();
  return Object.fromEntries(rows.map((r) => [r.entity, { status: r.status, started_at: new Date(r.started_at as Date) }]));
}

describe('sync queue settings', () => {
  it('reads SYNC_* from the environment, with defaults, and refuses bad values naming the setting', async () => {
    expect(loadConfig({}).syncQueue).toEqual({ concurrency: 2, vendorConcurrency: {}, retryLimit: 3, retryDelaySeconds: 60, jobTimeoutMinutes: 240 });
    expect(
      loadConfig({
        SYNC_CONCURRENCY: '4',
        SYNC_VENDOR_CONCURRENCY: ' harvest=1, jira = 6',
        SYNC_RETRY_LIMIT: '0',
        SYNC_RETRY_DELAY_SECONDS: '5',
        SYNC_JOB_TIMEOUT_MINUTES: '30',
      }).syncQueue,
    ).toEqual({ concurrency: 4, vendorConcurrency: { harvest: 1, jira: 6 }, retryLimit: 0, retryDelaySeconds: 5, jobTimeoutMinutes: 30 });
    expect(() => loadConfig({ SYNC_VENDOR_CONCURRENCY: 'harvest=0' })).toThrow(
      new ConfigError(
        'SYNC_VENDOR_CONCURRENCY must be a comma-separated list of connector_type=N with N from 1 to 64 (e.g. "harvest=1,jira=4"); "harvest=0" is not.',
      ),
    );
    expect(() => loadConfig({ SYNC_VENDOR_CONCURRENCY: 'harvest' })).toThrow(ConfigError);
    expect(() => loadConfig({ SYNC_JOB_TIMEOUT_MINUTES: '1440' })).toThrow(new ConfigError('SYNC_JOB_TIMEOUT_MINUTES must be an integer from 1 to 1439.'));
    expect(() => loadConfig({ SYNC_CONCURRENCY: '0' })).toThrow(new ConfigError('SYNC_CONCURRENCY must be an integer from 1 to 64.'));
    // A connector type that does not exist is a typo, not a setting to ignore.
    const config = { ...loadConfig({ DATA_DIR: 'memory://' }), syncQueue: { vendorConcurrency: { harvst: 1 } } };
    const ctx = { config, store: { db: {}, kind: 'pglite' } } as unknown as ServiceContext;
    expect(() => new SyncService(ctx, pino({ level: 'silent' }))).toThrow(
      /^SYNC_VENDOR_CONCURRENCY names no connector type "harvst"; connector types: .*harvest/,
    );
  });
});

describe('sync jobs on the queue (PGlite)', () => {
  let service: TestService;
  let upstream: StandIn;
  let tenant: Tenant;

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 2, responsesPerPage: 2 });
    service = await startTestService(
      'pglite',
      { upstreamBaseUrls: { typeform: upstream.url }, upstreamRetries: 0, syncIntervalMinutes: 60 },
      {
        sync: { retry: { retries: 0 }, queue: { retryLimit: 2, retryDelaySeconds: 1, pollSeconds: 0.5, checkSeconds: 1, vendorConcurrency: { typeform: 1 } } },
      },
    );
    tenant = await createTenant(service, 'Queue');
  }, 180_000);
  afterAll(async () => {
    await service.close();
    await upstream.close();
  });

  it('retries a failed job with backoff; the retry syncs only what did not complete', async () => {
    seed(upstream, 3);
    const id = await createTypeform(tenant, upstream);
    upstream.failures.set('/forms/form2/responses', { status: 500, times: 1 });
    const res = await tenant.api.post<{ job_id: string; results: Rec[] }>(`${CONNECTORS}/${id}/sync`, { wait: true, wait_seconds: 20 });
    expect(res.status).toBe(200);
    expect(res.body.results).toMatchObject([
      { entity: 'forms', status: 'ready', record_count: 3 },
      { entity: 'responses', status: 'failed', reason: expect.stringMatching(/^Reading responses \(form_id=form2, page 1\) failed: /) },
    ]);
    const [failed] = await jobsOf(service.store, id);
    expect(failed).toMatchObject({ id: res.body.job_id, state: 'retry', retry_count: 0 });
    const formsSynced = (await entityStates(service.store, id)).forms?.started_at;

    const done = await until('the retry', async () => {
      const [job] = await jobsOf(service.store, id);
      return job?.state === 'completed' ? job : undefined;
    });
    expect(done.retry_count).toBe(1);
    // The backoff: the retry started at least the retry delay after the failure.
    expect(new Date(done.started_on as Date).getTime() - new Date(failed?.started_on as Date).getTime()).toBeGreaterThanOrEqual(1000);
    const states = await entityStates(service.store, id);
    expect(states.responses?.status).toBe('ready');
    // Forms completed in the first attempt: the retry left it alone.
    expect(states.forms?.started_at.getTime()).toBe(formsSynced?.getTime());
    // The failed page, then the retry's two pages (records, then the empty page that ends the walk).
    expect(upstream.requests.filter((r) => r.startsWith('/forms/form2/responses'))).toEqual([
      '/forms/form2/responses?page_size=1000',
      '/forms/form2/responses?page_size=1000',
      '/forms/form2/responses?page_size=1000&before=form2-r1',
    ]);
  });

  it('a job left active by a process that died is handed back to the queue when the queue starts again on the store', async () => {
    seed(upstream, 1);
    // The walk is under way when the process "dies": its first page takes 3 s.
    upstream.delays.set('/forms', 3_000);
    try {
      const id = await createTypeform(tenant, upstream, { replication_config: { sync_interval_minutes: 0 } });
      expect((await tenant.api.post(`${CONNECTORS}/${id}/sync`, { entity: 'forms' })).status).toBe(202);
      const active = await until('the job to run', async () => (await jobsOf(service.store, id)).find((job) => job.state === 'active'));
      // A restart finds the job active: the queue of the new process (here a second one on the same store) hands it back.
      const restarted = new SyncService(service.app.ctx, pino({ level: 'silent' }), { queue: { pollSeconds: 60, checkSeconds: 60 } });
      try {
        await restarted.startScheduling();
        expect((await jobsOf(service.store, id)).find((job) => job.id === active.id)).toMatchObject({ state: 'retry', retry_count: 0 });
      } finally {
        await restarted.close();
      }
    } finally {
      upstream.delays.clear();
    }
  });

  it('a sync request that joins a retrying job answers ready for what an earlier attempt synced, whatever fails again', async () => {
    seed(upstream, 3);
    const id = await createTypeform(tenant, upstream);
    upstream.failures.set('/forms/form3/responses', { status: 500, times: 2 });
    const first = await tenant.api.post<{ job_id: string; results: Rec[] }>(`${CONNECTORS}/${id}/sync`, { wait: true, wait_seconds: 20 });
    expect(first.body.results).toMatchObject([
      { entity: 'forms', status: 'ready' },
      { entity: 'responses', status: 'failed' },
    ]);

    // The job waits for its retry: this request joins it, and its second attempt fails on responses again.
    const joined = await tenant.api.post<{ job_id: string; results: Rec[] }>(`${CONNECTORS}/${id}/sync`, { entity: 'forms', wait: true, wait_seconds: 20 });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect(joined.body.job_id).toBe(first.body.job_id);
    expect(joined.body.results).toEqual([
      expect.objectContaining({ entity: 'forms', status: 'ready', record_count: 3, reason: 'synced by an earlier attempt of this job' }),
    ]);
    const [job] = await jobsOf(service.store, id);
    expect(job).toMatchObject({ state: 'retry', retry_count: 1 });
    await until('the third attempt', async () => ((await jobsOf(service.store, id))[0]?.state === 'completed' ? true : undefined));
  });

  it('a request to walk in full that joins a retrying job is not answered by an earlier attempt: the next attempt walks the entity in full', async () => {
    seed(upstream, 3);
    const id = await createTypeform(tenant, upstream);
    upstream.failures.set('/forms/form3/responses', { status: 500, times: 1 });
    const first = await tenant.api.post<{ job_id: string; results: Rec[] }>(`${CONNECTORS}/${id}/sync`, { wait: true, wait_seconds: 20 });
    expect(first.body.results).toMatchObject([
      { entity: 'forms', status: 'ready', record_count: 3 },
      { entity: 'responses', status: 'failed' },
    ]);
    const formsSynced = (await entityStates(service.store, id)).forms?.started_at;

    // A form was deleted upstream after the first attempt walked the forms; the full walk asked for now finds it.
    upstream.forms = upstream.forms.slice(0, 2);
    const joined = await tenant.api.post<{ job_id: string; results: Rec[] }>(`${CONNECTORS}/${id}/sync`, {
      entity: 'forms',
      full: true,
      wait: true,
      wait_seconds: 20,
    });
    expect(joined.status, JSON.stringify(joined.body)).toBe(200);
    expect(joined.body.job_id).toBe(first.body.job_id);
    expect(joined.body.results).toEqual([expect.objectContaining({ entity: 'forms', status: 'ready', mode: 'full', records: 2, unconfirmed_deletions: 1 })]);
    expect((await entityStates(service.store, id)).forms?.started_at.getTime()).toBeGreaterThan(formsSynced?.getTime() ?? Number.POSITIVE_INFINITY);
    await until('the job to complete', async () => ((await jobsOf(service.store, id))[0]?.state === 'completed' ? true : undefined));
  });

  it('runs at most SYNC_VENDOR_CONCURRENCY syncs of one vendor at once in a process', async () => {
    seed(upstream, 2);
    upstream.delays.set('/forms?', 60);
    const ids = [await createTypeform(tenant, upstream), await createTypeform(tenant, upstream), await createTypeform(tenant, upstream)];
    let most = 0;
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        most = Math.max(most, service.app.ctx.syncs.activeRuns);
        await sleep(5);
      }
    })();
    try {
      const answers = await Promise.all(
        ids.map((id) => tenant.api.post<{ results: Rec[] }>(`${CONNECTORS}/${id}/sync`, { entity: 'forms', wait: true, wait_seconds: 30 })),
      );
      for (const answer of answers) expect(answer.body.results).toMatchObject([{ entity: 'forms', status: 'ready', record_count: 2 }]);
    } finally {
      sampling = false;
      await sampler;
      upstream.delays.clear();
    }
    expect(most).toBe(1);
  });

  it('the due check queues a connector at creation (unless its interval is 0) and again when it is due', async () => {
    seed(upstream, 2);
    await service.app.ctx.syncs.startScheduling();
    const id = await createTypeform(tenant, upstream);
    const off = await createTypeform(tenant, upstream, { replication_config: { sync_interval_minutes: 0 } });
    await until('the first sync', async () => {
      const states = await entityStates(service.store, id);
      return states.forms?.status === 'ready' && states.responses?.status === 'ready' ? true : undefined;
    });
    expect((await jobsOf(service.store, id)).map((j) => j.state)).toEqual(['completed']);

    // Due again once its interval has passed (the last start moved back in time): the next check (every second) queues it.
    await service.store.db
      .updateTable('context_sync_state')
      .set({ started_at: new Date(Date.now() - 61 * 60_000) })
      .where('connector_id', '=', id)
      .execute();
    await until('the scheduled sync', async () => ((await jobsOf(service.store, id)).filter((j) => j.state === 'completed').length === 2 ? true : undefined));
    const [, scheduled] = await jobsOf(service.store, id);
    expect(scheduled?.output).toMatchObject({
      value: [
        { entity: 'forms', status: 'ready' },
        { entity: 'responses', status: 'ready' },
      ],
    });

    // Not due: a few more checks queue nothing; the connector with interval 0 was never synced.
    await sleep(2_500);
    expect(await jobsOf(service.store, id)).toHaveLength(2);
    expect(await jobsOf(service.store, off)).toEqual([]);
    expect(await entityStates(service.store, off)).toEqual({});
    // The due checks are jobs too: one per period, whichever process takes it.
    const checks = await sql<{ n: number }>`SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'context-sync-due' AND state = 'completed'`.execute(
      service.store.db,
    );
    expect(checks.rows[0]?.n).toBeGreaterThanOrEqual(2);
  });

  it("a change of credentials or of a setting queues the connector's sync; a new name alone does not", async () => {
    seed(upstream, 2);
    await service.app.ctx.syncs.startScheduling();
    const id = await createTypeform(tenant, upstream);
    await until('the first sync', async () => ((await jobsOf(service.store, id)).some((j) => j.state === 'completed') ? true : undefined));
    const put = (body: Rec) => tenant.api.put(`${CONNECTORS}/${id}?check=false`, body);

    expect((await put({ name: 'Typeform (renamed)' })).status).toBe(200);
    await sleep(1_000);
    expect(await jobsOf(service.store, id)).toHaveLength(1);

    // The same host written out: the stored settings do not change, so nothing is queued.
    expect((await put({ replication_config: { api_host: 'api.typeform.com' } })).status).toBe(200);
    await sleep(1_000);
    expect(await jobsOf(service.store, id)).toHaveLength(1);

    expect((await put({ credentials: { access_token: upstream.token } })).status).toBe(200);
    await until('the sync after new credentials', async () =>
      (await jobsOf(service.store, id)).filter((j) => j.state === 'completed').length === 2 ? true : undefined,
    );
    const queued = await sql<{ data: Rec }>`SELECT data FROM pgboss.job WHERE singleton_key = ${id} ORDER BY created_on`.execute(service.store.db);
    expect(queued.rows.map((row) => row.data)).toMatchObject([
      { trigger: 'created', entities: ['forms', 'responses'] },
      { trigger: 'updated', entities: ['forms', 'responses'] },
    ]);
  });
});

describe.runIf(inject('postgresUrl'))('two services on one PostgreSQL', () => {
  let first: TestService;
  let secondStore: Store;
  let second: ComposedService;
  let upstream: StandIn;
  let tenant: Tenant;

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 1, responsesPerPage: 1 });
    const queue = { retryLimit: 0, pollSeconds: 0.5, concurrency: 2 };
    first = await startTestService('postgres', { upstreamBaseUrls: { typeform: upstream.url }, upstreamRetries: 0 }, { sync: { queue } });
    secondStore = await openStore({ databaseUrl: first.databaseUrl as string });
    second = composeService({ store: secondStore, keyring: first.keyring, config: first.config }, { sync: { queue } });
    tenant = await createTenant(first, 'Shared');
  }, 180_000);
  afterAll(async () => {
    await second.close();
    await secondStore.close();
    await first.close();
    await upstream.close();
  });

  it('share the sync jobs and never sync one connector twice at once', { timeout: 60_000 }, async () => {
    seed(upstream, 3);
    upstream.delays.set('/forms', 15);
    const ids = [await createTypeform(tenant, upstream), await createTypeform(tenant, upstream), await createTypeform(tenant, upstream)];
    const a = first.app.ctx.syncs;
    const b = second.ctx.syncs;
    const overlaps: string[] = [];
    let sampling = true;
    const sampler = (async () => {
      while (sampling) {
        for (const id of ids) if (a.isRunning(id) && b.isRunning(id)) overlaps.push(id);
        await sleep(2);
      }
    })();
    try {
      for (let round = 0; round < 4; round += 1) {
        const order = round % 2 === 0 ? [a, b] : [b, a];
        const requests = ids.flatMap((id) =>
          order.map(async (syncs) => {
            try {
              return await (await syncs.start({ connectorId: id, trigger: 'cli' })).wait();
            } catch (error) {
              // The other service's job runs it already.
              expect(error).toMatchObject({ status: 409 });
              return undefined;
            }
          }),
        );
        for (const outcomes of await Promise.all(requests)) {
          if (outcomes) for (const outcome of outcomes) expect(outcome.status).toBe('ready');
        }
      }
    } finally {
      sampling = false;
      await sampler;
      upstream.delays.clear();
    }
    expect(overlaps).toEqual([]);
    // Both services ran jobs.
    expect(a.jobsRun).toBeGreaterThan(0);
    expect(b.jobsRun).toBeGreaterThan(0);
    // The queue's own record: per connector, each job started after the one before it ended.
    for (const id of ids) {
      const jobs = (await jobsOf(first.store, id))
        .filter((j) => j.started_on !== null)
        .sort((x, y) => new Date(x.started_on as Date).getTime() - new Date(y.started_on as Date).getTime());
      expect(jobs.length).toBeGreaterThanOrEqual(2);
      for (let i = 1; i < jobs.length; i += 1) {
        expect(jobs[i]?.state).toBe('completed');
        expectStartedAfter(jobs[i], jobs[i - 1]);
      }
    }
  });

  it('a service that stops hands its running sync back to the queue at once, and another one finishes it', { timeout: 60_000 }, async () => {
    // Runs after the test above, whose requests started both services' workers on the typeform queue.
    seed(upstream, 6);
    upstream.delays.set('/forms', 150);
    const id = await createTypeform(tenant, upstream);
    const store = await openStore({ databaseUrl: first.databaseUrl as string });
    const leaving = composeService(
      { store, keyring: first.keyring, config: first.config },
      // A retry delay longer than this test: the interrupted job must not wait for it.
      { sync: { queue: { retryLimit: 2, retryDelaySeconds: 600, pollSeconds: 0.5 } } },
    );
    const elsewhere = () => first.app.ctx.syncs.isRunning(id) || second.ctx.syncs.isRunning(id);
    const runBefore = first.app.ctx.syncs.jobsRun + second.ctx.syncs.jobsRun;
    let jobId: string;
    try {
      // The suite's two other services poll the same queue, so now and then one of them takes the job before the
      // leaving service's worker does. That sync then ends where it ran, and the scenario is set up again.
      for (let attempt = 1; ; attempt += 1) {
        const started = await leaving.ctx.syncs.start({ connectorId: id, entity: 'forms', trigger: 'cli' });
        const runner = await until('the sync running in some service', async () =>
          leaving.ctx.syncs.isRunning(id) ? 'leaving' : elsewhere() ? 'another' : undefined,
        );
        if (runner === 'leaving') {
          jobId = started.job_id;
          // What SIGTERM does: the composition root closes the service.
          await leaving.close();
          expect(await started.wait()).toBeUndefined();
          break;
        }
        expect(attempt, 'another service took the job before the leaving one, every time').toBeLessThan(3);
        await started.wait();
        await until('the other service done with the sync', async () => (elsewhere() ? undefined : true));
      }
    } finally {
      await leaving.close();
      await store.close();
    }
    const jobOf = async () => (await jobsOf(first.store, id)).find((job) => job.id === jobId);
    expect((await jobOf())?.state).toMatch(/^(retry|active|completed)$/);
    const done = await until('the job finished elsewhere', async () => {
      const job = await jobOf();
      return job?.state === 'completed' ? job : undefined;
    });
    upstream.delays.clear();
    // The attempt after the stop counts as a retry, and the stop gave one back: none of the 2 was spent.
    expect(done.retry_count).toBe(1);
    expect(done.retry_limit).toBe(3);
    expect(done.output).toMatchObject({ value: [{ entity: 'forms', status: 'ready', recordCount: 6 }] });
    expect(first.app.ctx.syncs.jobsRun + second.ctx.syncs.jobsRun).toBeGreaterThan(runBefore);
  });
});

describe.runIf(inject('postgresUrl'))('queue creation by several processes on one PostgreSQL', () => {
  it('creates a queue that two processes create at the same moment (pg-boss deadlocks on about half such pairs)', { timeout: 60_000 }, async () => {
    const url = await freshPostgresDatabase();
    // PostgreSQL looks for deadlocks after deadlock_timeout (1 s by default): shorter here, so the rounds run quickly.
    const admin = new pg.Client({ connectionString: url });
    await admin.connect();
    await admin.query(`ALTER DATABASE ${new URL(url).pathname.slice(1)} SET deadlock_timeout = '20ms'`);
    await admin.end();
    const bosses = [0, 1].map(() => new PgBoss({ connectionString: url, schema: QUEUE_SCHEMA, schedule: false, supervise: false }));
    const errors: unknown[] = [];
    for (const boss of bosses) boss.on('error', (error) => errors.push(error));
    // One after the other: the schema is installed once (pg-boss serializes its own install).
    for (const boss of bosses) await boss.start();
    try {
      for (let round = 0; round < 12; round += 1) {
        const name = `${SYNC_QUEUE_PREFIX}race-${round}`;
        const options = { name, policy: 'stately' as const, retryLimit: 2 };
        await Promise.all(bosses.map((boss) => createQueueOnce(boss, name, options)));
        expect(await bosses[0]?.getQueue(name)).toMatchObject({ name, policy: 'stately', retryLimit: 2 });
      }
      expect(errors).toEqual([]);
    } finally {
      for (const boss of bosses) await boss.stop({ graceful: false, wait: true });
    }
  });
});
