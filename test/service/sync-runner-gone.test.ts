/**
 * A process that dies while it runs a sync on PostgreSQL (kill -9 of `switchyard sync`, here a real child
 * process) leaves its job active in the queue. The other processes see that its runner lock is free and hand
 * the job back at their next due check, instead of leaving the connector unsynced until
 * SYNC_JOB_TIMEOUT_MINUTES; and a process that loses its runner lock stops its syncs before the next write.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sql } from 'kysely';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { composeService } from '../../src/composition.js';
import { CLAIM_LOST } from '../../src/context/sync/engine.js';
import { openStore } from '../../src/db/database.js';
import { Keyring } from '../../src/security/keyring.js';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';
import { childEnv, REPO_ROOT } from '../support/spawn-service.js';
import { jobsOf, until } from '../support/sync-jobs.js';
import { form, response, startTypeformStandIn, type StandIn } from '../support/typeform-stand-in.js';

const CONNECTORS = '/api/v1/integrations/connectors';

describe.runIf(inject('postgresUrl'))('a sync job whose process is gone (PostgreSQL)', () => {
  const masterKey = randomBytes(32);
  let service: TestService;
  let upstream: StandIn;
  let tenant: Tenant;
  let dataDir: string;

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 1, responsesPerPage: 1 });
    upstream.forms = [form('form1', 'Survey 1'), form('form2', 'Survey 2')];
    upstream.responses = new Map(upstream.forms.map((f) => [f.id as string, [response(`${String(f.id)}-r1`, 'an answer')]]));
    service = await startTestService(
      'postgres',
      { upstreamBaseUrls: { typeform: upstream.url }, upstreamRetries: 0 },
      { masterKey, sync: { queue: { retryLimit: 2, retryDelaySeconds: 1, pollSeconds: 0.5, checkSeconds: 1 } } },
    );
    tenant = await createTenant(service);
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-cli-'));
  }, 120_000);
  afterAll(async () => {
    await service?.close();
    await upstream?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  /** A Typeform connector with no scheduled syncs (each test starts its own). */
  async function typeformConnector(name: string): Promise<string> {
    const created = await tenant.api.post<{ id: string }>(`${CONNECTORS}?check=false`, {
      workspace_name: 'default',
      connector_type: 'typeform',
      name,
      credentials: { access_token: upstream.token },
      replication_config: { sync_interval_minutes: 0 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    return created.body.id;
  }

  it('is handed back to the queue by a live process at its next due check, and synced there', { timeout: 120_000 }, async () => {
    const id = await typeformConnector('Typeform');
    // The walk hangs on its first page: the child is killed in the middle of it.
    upstream.delays.set('/forms', 120_000);
    let child: ChildProcess | undefined = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', 'sync', id, '--entity', 'forms'], {
      cwd: REPO_ROOT,
      env: childEnv({
        DATABASE_URL: service.databaseUrl,
        SWITCHYARD_MASTER_KEY: masterKey.toString('hex'),
        UPSTREAM_BASE_URLS: JSON.stringify({ typeform: upstream.url }),
        DATA_DIR: dataDir,
        UPSTREAM_RETRIES: '0',
        SYNC_RETRY_LIMIT: '2',
        SYNC_RETRY_DELAY_SECONDS: '1',
      }),
      stdio: 'ignore',
    });
    try {
      const active = await until(
        'the child running the job',
        async () => {
          // The child installs the queue's schema as it starts.
          const job = (await jobsOf(service.store, id).catch(() => [])).find((j) => j.state === 'active');
          if (job === undefined) return undefined;
          const { rows } = await sql<{ runner_key: number }>`SELECT runner_key FROM sync_job_runners WHERE job_id = ${job.id}`.execute(service.store.db);
          return rows.length === 1 ? job : undefined;
        },
        60_000,
      );
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGKILL');
      await exited;
      child = undefined;
      upstream.delays.clear();
      // Nothing else would touch it for SYNC_JOB_TIMEOUT_MINUTES (4 h by default).
      expect((await jobsOf(service.store, id)).find((j) => j.id === active.id)?.state).toBe('active');

      await service.app.ctx.syncs.startScheduling();
      const done = await until(
        'the job synced by the live service',
        async () => {
          const job = (await jobsOf(service.store, id)).find((j) => j.id === active.id);
          return job?.state === 'completed' ? job : undefined;
        },
        30_000,
      );
      expect(done.retry_count).toBe(1);
      expect(done.output).toMatchObject({ value: [{ entity: 'forms', status: 'ready', recordCount: 2 }] });
      const notes = await sql<{ job_id: string }>`SELECT job_id FROM sync_job_runners WHERE job_id = ${active.id}`.execute(service.store.db);
      expect(notes.rows).toEqual([]);
    } finally {
      child?.kill('SIGKILL');
      upstream.delays.clear();
    }
  });

  it('stops before its next write in a process that loses its runner lock, and is synced again without spending a retry', { timeout: 90_000 }, async () => {
    const id = await typeformConnector('Typeform 3');
    // Two pages, the second slow: the lock is lost while the first is written and the second read.
    upstream.delays.set('/forms', 1_500);
    try {
      const started = await service.app.ctx.syncs.start({ connectorId: id, entity: 'forms', trigger: 'cli' });
      const key = await until('the runner noted', async () => {
        const { rows } = await sql<{ runner_key: number }>`SELECT runner_key FROM sync_job_runners WHERE job_id = ${started.job_id}`.execute(service.store.db);
        return rows[0]?.runner_key;
      });
      // What an outage of that one connection does: PostgreSQL ends it, and the lock with it.
      await sql`
        SELECT pg_terminate_backend(pid) FROM pg_locks
        WHERE locktype = 'advisory' AND classid = 727100003 AND objid = ${key}::oid AND objsubid = 2`.execute(service.store.db);
      const stopped = await until('the first attempt stopped', async () => {
        const state = await service.store.db
          .selectFrom('context_sync_state')
          .select(['status', 'last_error'])
          .where('connector_id', '=', id)
          .where('entity', '=', 'forms')
          .executeTakeFirst();
        return state?.status === 'failed' ? state : undefined;
      });
      expect(stopped.last_error).toContain(CLAIM_LOST);
      upstream.delays.clear();
      // The lock is taken again (every 5 s), and the job runs again here.
      const done = await until(
        'the job completed',
        async () => {
          const job = (await jobsOf(service.store, id)).find((j) => j.id === started.job_id);
          return job?.state === 'completed' ? job : undefined;
        },
        60_000,
      );
      expect(done.output).toMatchObject({ value: [{ entity: 'forms', status: 'ready', recordCount: 2 }] });
      // Each attempt stopped by the lost lock gave its retry back: none of the 2 was spent.
      expect(done.retry_limit - done.retry_count).toBe(2);
    } finally {
      upstream.delays.clear();
    }
  });

  it('is not taken from a process that is alive: another process sweeping every second leaves it alone', { timeout: 60_000 }, async () => {
    const id = await typeformConnector('Typeform 2');
    const otherStore = await openStore({ databaseUrl: service.databaseUrl as string });
    const other = composeService(
      { store: otherStore, keyring: new Keyring(masterKey), config: service.config },
      { sync: { queue: { retryLimit: 2, retryDelaySeconds: 1, pollSeconds: 0.5, checkSeconds: 1 } } },
    );
    upstream.delays.set('/forms', 1_500);
    try {
      await other.ctx.syncs.startScheduling();
      const started = await service.app.ctx.syncs.start({ connectorId: id, entity: 'forms', trigger: 'cli' });
      // Whichever process runs it, the other checks its runner every second for the 3 s it runs.
      await until('the job running', async () => (service.app.ctx.syncs.isRunning(id) || other.ctx.syncs.isRunning(id) ? true : undefined));
      const done = await until('the job completed', async () => {
        const job = (await jobsOf(service.store, id)).find((j) => j.id === started.job_id);
        return job?.state === 'completed' ? job : undefined;
      });
      expect(done).toMatchObject({ state: 'completed', retry_count: 0 });
      expect(done.output).toMatchObject({ value: [{ entity: 'forms', status: 'ready', recordCount: 2 }] });
    } finally {
      upstream.delays.clear();
      await other.close();
      await otherStore.close();
    }
  });
});
