import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import nock from 'nock';
import { sql } from 'kysely';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import type { ServiceContext } from '../../src/service-context.js';
import type { RecordBatch } from '../../src/context/observers.js';
import type { SyncProgress } from '../../src/context/sync/engine.js';
import { canonicalJson, contentHash, recordIdOf } from '../../src/context/sync/records.js';
import { registerRecordObserver } from '../../src/context/sync/registry.js';
import { connectorInterval } from '../../src/context/sync/schedule.js';
import { composeService } from '../../src/composition.js';
import { entityReadiness } from '../../src/context/sync/state.js';
import { formatBar, formatPlainLine, formatProgressLine, formatRate, ProgressDisplay } from '../../src/context/sync/progress.js';
import { openStore } from '../../src/db/database.js';
import { Keyring } from '../../src/security/keyring.js';
import { createConnector } from '../../src/services/connectors.js';
import { createOrganization } from '../../src/services/organizations.js';
import { spawn } from 'node:child_process';
import { childEnv, REPO_ROOT, type CliResult } from '../support/spawn-service.js';
import { makeFullSweepDue } from '../support/context-store.js';
import { createTenant, startTestService, storeKinds, type Tenant, type TestService } from '../support/service.js';
import { form, response, startTypeformStandIn, type Rec, type StandIn } from '../support/typeform-stand-in.js';
import { seedDataDir } from '../support/store.js';
import { expectStartedAfter, jobsOf } from '../support/sync-jobs.js';
import { testConfig } from '../support/config.js';

const CONNECTORS = '/api/v1/integrations/connectors';
/** Connectors here are created for their syncs; the connector check has its own tests. */
const CREATE = `${CONNECTORS}?check=false`;
const sync = (id: string) => `${CONNECTORS}/${id}/sync`;
const inspect = (id: string) => `${CONNECTORS}/${id}/inspect`;
const SENTRY = 'https://sentry.io';
const SENTRY_TOKEN = 'sntryu_sync_test_secret_0001';

interface CacheEntity {
  entity: string;
  status: string;
  ready_for_search: boolean;
  supported: boolean;
  entity_count: number;
  updated_at: string | null;
  semantic_search_status: Array<{ field: string; status: string }>;
  reason: string | null;
  pages: number;
  started_at: string | null;
  finished_at: string | null;
}
interface Readiness {
  connector_id: string;
  source_definition_id: string;
  supported_context_store_entities: Array<{ entity: string; suggested: boolean }>;
  configured_cache_entities: CacheEntity[];
}
interface ErrorBody {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string; details?: Rec }>;
}

/** `switchyard ...args` without blocking this process, which serves the stand-in upstream the CLI calls. */
function runCli(args: string[], env: Record<string, string | undefined>): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', 'src/cli.ts', ...args], {
      cwd: REPO_ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 90_000);
    child.once('error', reject);
    child.once('close', (status) => {
      clearTimeout(timer);
      resolve({ status, stdout, stderr });
    });
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe.each(storeKinds())('context store sync (%s)', (kind) => {
  let service: TestService;
  let ctx: ServiceContext;
  let upstream: StandIn;
  let a: Tenant;
  let b: Tenant;
  const bodies: string[] = [];
  const batches: RecordBatch[] = [];

  async function readiness(tenant: Tenant, id: string): Promise<Readiness> {
    const res = await tenant.api.get<{ context_store_readiness: Readiness }>(inspect(id));
    bodies.push(JSON.stringify(res.body));
    expect(res.status).toBe(200);
    return res.body.context_store_readiness;
  }

  /** Polls inspect until no entity is initializing or updating. */
  async function settled(tenant: Tenant, id: string, timeoutMs = 20_000): Promise<Record<string, CacheEntity>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const ready = await readiness(tenant, id);
      if (ready.configured_cache_entities.every((e) => e.status !== 'initializing' && e.status !== 'updating')) {
        return Object.fromEntries(ready.configured_cache_entities.map((e) => [e.entity, e]));
      }
      if (Date.now() > deadline) throw new Error(`sync of ${id} did not settle: ${JSON.stringify(ready)}`);
      await sleep(25);
    }
  }

  async function startSync(tenant: Tenant, id: string, body?: unknown) {
    const res = await tenant.api.post<
      { connector_id: string; job_id: string; entities: Array<{ entity: string; state: string }>; results?: Rec[] } & ErrorBody
    >(sync(id), body);
    bodies.push(JSON.stringify(res.body));
    return res;
  }

  /** Queues a sync and waits for its job through the route (`wait: true`), then reads inspect. */
  async function syncAndSettle(tenant: Tenant, id: string, body?: Rec) {
    const res = await startSync(tenant, id, { ...body, wait: true, wait_seconds: 20 });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return settled(tenant, id);
  }

  /** Polls inspect until the entity shows `status` (a queued job marks its entities when a worker takes it). */
  async function untilStatus(tenant: Tenant, id: string, entity: string, status: string): Promise<CacheEntity> {
    const deadline = Date.now() + 10_000;
    for (;;) {
      const found = (await readiness(tenant, id)).configured_cache_entities.find((e) => e.entity === entity);
      if (found?.status === status) return found;
      if (Date.now() > deadline) throw new Error(`${entity} of ${id} did not become ${status}: ${JSON.stringify(found)}`);
      await sleep(10);
    }
  }

  async function createTypeform(tenant: Tenant, extra: Rec = {}): Promise<string> {
    const res = await tenant.api.post<{ id: string }>(CREATE, {
      workspace_name: 'default',
      connector_type: 'typeform',
      name: 'Typeform',
      credentials: { access_token: upstream.token },
      ...extra,
    });
    expect(res.status, JSON.stringify(res.body)).toBe(200);
    return res.body.id;
  }

  async function records(connectorId: string, entity: string) {
    return service.store.db
      .selectFrom('context_records')
      .selectAll()
      .where('connector_id', '=', connectorId)
      .where('entity', '=', entity)
      .orderBy('record_id')
      .execute();
  }

  /** Registers an observer of the forms one connector's syncs report; returns its removal. */
  function observeForms(connectorId: string, observe: (batch: RecordBatch) => Promise<void>): () => void {
    return registerRecordObserver(ctx, {
      recordsChanged: async (batch) => {
        if (batch.connectorId === connectorId && batch.entity === 'forms') await observe(batch);
      },
    });
  }

  function seed(formCount: number, responsesPerForm: number): void {
    upstream.forms = Array.from({ length: formCount }, (_, i) => form(`form${i + 1}`, `Feedback survey ${i + 1}`));
    upstream.responses = new Map(
      upstream.forms.map((f) => [
        f.id as string,
        Array.from({ length: responsesPerForm }, (_, j) => response(`${String(f.id)}-r${j + 1}`, `Answer ${j + 1} to ${String(f.id)}`)),
      ]),
    );
  }

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 2, responsesPerPage: 2 });
    // Upstream retries off: the page-level retries of the sync are what these tests watch.
    // Job retries off here (sync-queue.test.ts has them): each request's outcome is the one asserted.
    service = await startTestService(
      kind,
      { upstreamBaseUrls: { typeform: upstream.url }, upstreamRetries: 0 },
      { sync: { retry: { retries: 2, baseMs: 5, maxMs: 20 }, queue: { retryLimit: 0, pollSeconds: 0.5 } } },
    );
    ctx = service.app.ctx;
    registerRecordObserver(ctx, { recordsChanged: async (batch) => void batches.push(batch) });
    a = await createTenant(service, 'Org A');
    b = await createTenant(service, 'Org B');
  });
  beforeEach(() => {
    upstream.requests.length = 0;
    upstream.failures.clear();
    upstream.delays.clear();
    batches.length = 0;
  });
  afterAll(async () => {
    for (const body of bodies) expect(body).not.toContain(upstream.token);
    await service.close();
    await upstream.close();
  });

  it('reads every page of forms and fans out to the responses of each form', async () => {
    seed(5, 3);
    const id = await createTypeform(a);
    const before = await readiness(a, id);
    expect(before).toEqual({
      connector_id: id,
      source_definition_id: connectorModules.typeform?.definition.definitionId,
      supported_context_store_entities: [
        { entity: 'forms', suggested: true },
        { entity: 'responses', suggested: false },
      ],
      configured_cache_entities: [
        expect.objectContaining({ entity: 'forms', status: 'not_synced', ready_for_search: false, supported: true, entity_count: 0, updated_at: null }),
        expect.objectContaining({ entity: 'responses', status: 'not_synced', ready_for_search: false, entity_count: 0 }),
      ],
    });
    expect(before.configured_cache_entities[0]?.reason).toMatch(/has not been synchronized yet: start a sync with POST/);

    const started = await startSync(a, id);
    expect(started.status).toBe(202);
    expect(started.body).toEqual({
      connector_id: id,
      job_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      entities: [
        { entity: 'forms', state: 'started' },
        { entity: 'responses', state: 'started' },
      ],
    });
    // The job marks its entities once a worker takes it.
    await untilStatus(a, id, 'responses', 'ready');
    const done = await settled(a, id);
    expect(done.forms).toMatchObject({ status: 'ready', ready_for_search: true, entity_count: 5, pages: 3, reason: null });
    // READY once the semantic index holds every record (it reports its own state); never READY before the data is.
    expect(done.forms?.semantic_search_status.map((s) => s.field)).toEqual(['title', 'fields']);
    expect(done.responses).toMatchObject({ status: 'ready', ready_for_search: true, entity_count: 15, semantic_search_status: [] });
    // Forms: 3 pages at the largest page size; each form's responses: 2 pages of records, then the empty page that ends the walk.
    expect(upstream.requests.filter((r) => r.startsWith('/forms?'))).toEqual([
      '/forms?page_size=200',
      '/forms?page_size=200&page=2',
      '/forms?page_size=200&page=3',
    ]);
    expect(upstream.requests.filter((r) => r.startsWith('/forms/form2/'))).toEqual([
      '/forms/form2/responses?page_size=1000',
      '/forms/form2/responses?page_size=1000&before=form2-r2',
      '/forms/form2/responses?page_size=1000&before=form2-r3',
    ]);
    expect(upstream.requests).toHaveLength(3 + 5 * 3);

    const forms = await records(id, 'forms');
    expect(forms.map((r) => r.record_id)).toEqual(['form1', 'form2', 'form3', 'form4', 'form5']);
    expect(forms[0]).toMatchObject({
      organization_id: a.organizationId,
      entity: 'forms',
      data: upstream.forms[0],
      content_hash: contentHash(upstream.forms[0]),
      deleted_at: null,
    });
    const responses = await records(id, 'responses');
    expect(responses).toHaveLength(15);
    // Stored as read, plus form_id (search.derived: the parent form the record was listed under).
    expect(responses.find((r) => r.record_id === 'form3-r2')?.data).toEqual({ ...upstream.responses.get('form3')?.[1], form_id: 'form3' });
    // Observers heard every record once, page by page.
    expect(batches.filter((x) => x.entity === 'forms').flatMap((x) => x.records.map((r) => r.recordId))).toEqual(['form1', 'form2', 'form3', 'form4', 'form5']);
    expect(batches.filter((x) => x.entity === 'responses').flatMap((x) => x.records)).toHaveLength(15);
    expect(batches.every((x) => x.connectorId === id && x.organizationId === a.organizationId)).toBe(true);

    expect(await entityReadiness(service.store.db, id, 'forms')).toMatchObject({
      status: 'ready',
      ready_for_search: true,
      record_count: 5,
      syncable: true,
      reason: null,
    });
  });

  it('re-sync: unchanged records keep their content and hash, changed and new ones are rewritten and reported', async () => {
    seed(3, 2);
    const id = await createTypeform(a);
    await syncAndSettle(a, id);
    const first = await records(id, 'forms');
    batches.length = 0;
    upstream.forms[1] = { ...upstream.forms[1], title: 'Renamed survey' };
    upstream.responses.get('form3')?.unshift(response('form3-r0', 'A brand new answer'));
    await sleep(5);
    const done = await syncAndSettle(a, id);
    expect(done.forms).toMatchObject({ status: 'ready', entity_count: 3 });
    expect(done.responses).toMatchObject({ status: 'ready', entity_count: 7 });
    expect(batches.map((x) => [x.entity, x.records.map((r) => r.recordId)])).toEqual([
      ['forms', ['form2']],
      ['responses', ['form3-r0']],
    ]);
    expect(batches[0]?.records[0]?.data).toMatchObject({ title: 'Renamed survey' });
    const second = await records(id, 'forms');
    for (const [index, row] of second.entries()) {
      const old = first[index];
      expect(row.first_seen_at).toEqual(old?.first_seen_at);
      // last_synced_at is when a sync last wrote the record: an unchanged one is not rewritten.
      if (row.record_id === 'form2') {
        expect(row.content_hash).not.toBe(old?.content_hash);
        expect(new Date(row.last_synced_at).getTime()).toBeGreaterThan(new Date(old?.last_synced_at ?? 0).getTime());
      } else {
        expect(row.content_hash).toBe(old?.content_hash);
        expect(new Date(row.last_synced_at).getTime()).toBe(new Date(old?.last_synced_at ?? 0).getTime());
      }
    }
  });

  it('marks records two complete syncs in a row no longer see as deleted, and brings them back when they reappear', async () => {
    seed(4, 1);
    const id = await createTypeform(a);
    await syncAndSettle(a, id);
    const removed = upstream.forms.splice(2, 1)[0] as Rec;
    // One full walk missing a record keeps it (a list can leave out a record that still exists) ...
    const missed = await syncAndSettle(a, id);
    expect(missed.forms).toMatchObject({ status: 'ready', entity_count: 4, unconfirmed_deletions: 1 });
    expect((await records(id, 'forms')).every((r) => r.deleted_at === null)).toBe(true);
    // ... the next one confirms it.
    const done = await syncAndSettle(a, id);
    expect(done.forms).toMatchObject({ status: 'ready', entity_count: 3, unconfirmed_deletions: 0 });
    const forms = await records(id, 'forms');
    expect(forms.filter((r) => r.deleted_at !== null).map((r) => r.record_id)).toEqual(['form3']);
    // Responses are read incrementally (since): the removed form's response waits for their full walk.
    expect(done.responses).toMatchObject({ status: 'ready', entity_count: 4 });
    await makeFullSweepDue(service.store, { connectorId: id, entity: 'responses' });
    const sweptOnce = await syncAndSettle(a, id);
    expect(sweptOnce.responses).toMatchObject({ status: 'ready', last_mode: 'full', entity_count: 4, unconfirmed_deletions: 1 });
    // The sync after a full walk that missed records walks in full again, though the sweep is not due.
    const swept = await syncAndSettle(a, id);
    // Its responses went with it: the full walk no longer visits the form.
    expect(swept.responses).toMatchObject({ status: 'ready', last_mode: 'full', entity_count: 3, unconfirmed_deletions: 0 });
    expect((await records(id, 'responses')).filter((r) => r.deleted_at !== null).map((r) => r.record_id)).toEqual(['form3-r1']);
    expect((await syncAndSettle(a, id)).responses).toMatchObject({ last_mode: 'incremental', entity_count: 3 });

    batches.length = 0;
    upstream.forms.splice(2, 0, removed);
    const back = await syncAndSettle(a, id);
    expect(back.forms).toMatchObject({ entity_count: 4 });
    // Submitted within the overlap, the response is read again by the incremental walk.
    expect(back.responses).toMatchObject({ entity_count: 4 });
    expect((await records(id, 'forms')).every((r) => r.deleted_at === null)).toBe(true);
    // Reappearing records are reported again (their index entries may have been dropped).
    expect(batches.map((x) => [x.entity, x.records.map((r) => r.recordId)])).toEqual([
      ['forms', ['form3']],
      ['responses', ['form3-r1']],
    ]);
  });

  it('a full walk notes what it reads for the sweep only when the entity has live records to sweep', async () => {
    seed(4, 1);
    const id = await createTypeform(a);
    const notesPerPage: number[] = [];
    const remove = observeForms(id, async () => {
      const row = await service.store.db
        .selectFrom('context_sync_seen')
        .select((eb) => eb.fn.countAll<string>().as('count'))
        .where('connector_id', '=', id)
        .where('entity', '=', 'forms')
        .executeTakeFirstOrThrow();
      notesPerPage.push(Number(row.count));
    });
    try {
      // First sync: nothing to sweep, no notes.
      await syncAndSettle(a, id, { entity: 'forms' });
      expect(notesPerPage).toEqual([0, 0]);
      // Every form changes and one is gone: the walk notes each page (the second page may be written while the
      // first one's observers run), and the sweep notes form4 as missed; the next walk, missing it too, marks it deleted.
      notesPerPage.length = 0;
      upstream.forms = upstream.forms.slice(0, 3).map((f) => ({ ...f, title: `${String(f.title)} (edited)` }));
      const swept = await syncAndSettle(a, id, { entity: 'forms' });
      expect(notesPerPage).toHaveLength(2);
      expect(notesPerPage[0]).toBeGreaterThanOrEqual(2);
      expect(notesPerPage[1]).toBe(3);
      expect(swept.forms).toMatchObject({ status: 'ready', entity_count: 4, unconfirmed_deletions: 1 });
      expect((await syncAndSettle(a, id, { entity: 'forms' })).forms).toMatchObject({ status: 'ready', entity_count: 3, unconfirmed_deletions: 0 });
      expect((await records(id, 'forms')).filter((r) => r.deleted_at !== null).map((r) => r.record_id)).toEqual(['form4']);
      // Everything gone, then two come back: with no live record left, the walk notes nothing, the two reappear
      // and the rest stay deleted.
      const kept = upstream.forms.slice(0, 2);
      upstream.forms = [];
      expect((await syncAndSettle(a, id, { entity: 'forms' })).forms).toMatchObject({ status: 'ready', entity_count: 3, unconfirmed_deletions: 3 });
      expect((await syncAndSettle(a, id, { entity: 'forms' })).forms).toMatchObject({ status: 'ready', entity_count: 0, unconfirmed_deletions: 0 });
      notesPerPage.length = 0;
      upstream.forms = kept;
      expect((await syncAndSettle(a, id, { entity: 'forms' })).forms).toMatchObject({ status: 'ready', entity_count: 2 });
      expect(notesPerPage).toEqual([0]);
      const live = (await records(id, 'forms')).filter((r) => r.deleted_at === null).map((r) => r.record_id);
      expect(live).toEqual(['form1', 'form2']);
      const rows = await service.store.db.selectFrom('context_sync_seen').select('record_id').where('connector_id', '=', id).execute();
      expect(rows).toEqual([]);
    } finally {
      remove();
    }
  });

  it('retries a failed page; a sync that still fails records the reason and keeps the previous data searchable', async () => {
    seed(6, 1);
    const id = await createTypeform(a);
    upstream.failures.set('/forms?page_size=200&page=2', { status: 503, times: 2 });
    const first = await syncAndSettle(a, id);
    expect(first.forms).toMatchObject({ status: 'ready', entity_count: 6 });
    expect(upstream.requests.filter((r) => r === '/forms?page_size=200&page=2')).toHaveLength(3);

    // Now page 2 keeps failing, and form6 is gone: nothing may be marked deleted by an incomplete sync.
    upstream.forms.pop();
    upstream.failures.set('/forms?page_size=200&page=2', { status: 500, times: Infinity });
    upstream.requests.length = 0;
    const failed = await syncAndSettle(a, id);
    expect(upstream.requests.filter((r) => r === '/forms?page_size=200&page=2')).toHaveLength(3);
    expect(failed.forms).toMatchObject({ status: 'failed', ready_for_search: true, entity_count: 6 });
    expect(failed.forms?.reason).toMatch(/^Reading forms \(page 2\) failed after 3 attempts: /);
    expect(failed.forms?.updated_at).toBe(first.forms?.updated_at);
    expect(failed.responses).toMatchObject({ status: 'failed', ready_for_search: true, entity_count: 6 });
    expect(failed.responses?.reason).toMatch(/^responses is read through forms, whose sync failed: Reading forms/);
    expect((await records(id, 'forms')).every((r) => r.deleted_at === null)).toBe(true);
    const entity = await entityReadiness(service.store.db, id, 'forms');
    expect(entity).toMatchObject({ status: 'failed', ready_for_search: true, record_count: 6 });
    expect(entity.reason).toBe(failed.forms?.reason);

    // Refused credentials are not retried.
    upstream.failures.set('/forms', { status: 401, times: Infinity });
    upstream.requests.length = 0;
    const refused = await syncAndSettle(a, id, { entity: 'forms' });
    expect(upstream.requests).toHaveLength(1);
    expect(refused.forms?.status).toBe('failed');
    expect(refused.forms?.reason).toMatch(/^Reading forms \(page 1\) failed: /);
    expect(refused.forms?.reason).not.toMatch(/attempts/);

    upstream.failures.clear();
    const recovered = await syncAndSettle(a, id);
    // The first complete walk without form6 notes it as missed, the next marks it deleted.
    expect(recovered.forms).toMatchObject({ status: 'ready', entity_count: 6, unconfirmed_deletions: 1, reason: null });
    expect((await syncAndSettle(a, id)).forms).toMatchObject({ status: 'ready', entity_count: 5, unconfirmed_deletions: 0 });
  });

  it('a never-synced first sync that fails is not ready for search', async () => {
    seed(2, 1);
    const id = await createTypeform(a);
    upstream.failures.set('/forms', { status: 500, times: Infinity });
    const done = await syncAndSettle(a, id, { entity: 'forms' });
    expect(done.forms).toMatchObject({ status: 'failed', ready_for_search: false, entity_count: 0, updated_at: null });
    expect(done.responses).toMatchObject({ status: 'not_synced', ready_for_search: false });
    expect(await entityReadiness(service.store.db, id, 'responses')).toMatchObject({ status: 'not_synced', ready_for_search: false });
  });

  it('shows initializing during the first sync and updating during a later one', async () => {
    seed(4, 1);
    const id = await createTypeform(a);
    upstream.delays.set('/forms?', 150);
    expect((await startSync(a, id, { entity: 'forms' })).status).toBe(202);
    const during = await untilStatus(a, id, 'forms', 'initializing');
    expect(during).toMatchObject({ entity: 'forms', status: 'initializing', ready_for_search: false, finished_at: null });
    expect(during.reason).toBe('the first sync of forms is running');
    expect(during.semantic_search_status).toEqual([
      { field: 'title', status: 'INDEXING' },
      { field: 'fields', status: 'INDEXING' },
    ]);
    await settled(a, id);
    expect((await startSync(a, id, { entity: 'forms' })).status).toBe(202);
    expect(await untilStatus(a, id, 'forms', 'updating')).toMatchObject({ entity: 'forms', status: 'updating', ready_for_search: true, entity_count: 4 });
    expect((await settled(a, id)).forms?.status).toBe('ready');
  });

  it('runs one sync per connector: a request joins the waiting job, and is a 409 for what the running job covers', async () => {
    seed(4, 1);
    const id = await createTypeform(a);
    upstream.delays.set('/forms?', 100);
    const [one, two] = await Promise.all([startSync(a, id, { entity: 'forms' }), startSync(a, id, { entity: 'forms' })]);
    // Both while the job waits: one job; or the second once it runs: a 409.
    for (const res of [one, two]) expect([202, 409]).toContain(res.status);
    const accepted = [one, two].filter((res) => res.status === 202);
    expect(new Set(accepted.map((res) => res.body.job_id)).size).toBe(1);
    const job = accepted[0]?.body.job_id as string;
    await untilStatus(a, id, 'forms', 'initializing');
    const conflict = await startSync(a, id, { entity: 'forms' });
    expect(conflict.status).toBe(409);
    expect(conflict.body.errors).toEqual([
      {
        field: 'entity',
        error_code: 'sync_in_progress',
        message: `A sync of forms of connector ${id} is already running; wait for it to finish (inspect shows its progress).`,
      },
    ]);
    // The whole connector: forms is running, responses waits for it in a second job.
    const all = await startSync(a, id);
    expect(all.status).toBe(202);
    expect(all.body.job_id).not.toBe(job);
    expect(all.body.entities).toEqual([
      { entity: 'forms', state: 'already_running' },
      { entity: 'responses', state: 'queued' },
    ]);
    // Held back until the running job ends (a fetch of it before then would fail and hold up other connectors' jobs).
    const held = await sql<{ held: boolean }>`SELECT start_after > now() + interval '1 minute' AS held FROM pgboss.job WHERE id = ${all.body.job_id}`.execute(
      service.store.db,
    );
    expect(held.rows).toEqual([{ held: true }]);
    // Asked again: it joins that waiting job.
    const again = await startSync(a, id);
    expect(again.status).toBe(202);
    expect(again.body.job_id).toBe(all.body.job_id);
    // Asked again in full: the waiting job walks responses in full.
    const full = await startSync(a, id, { entity: 'responses', full: true });
    expect(full.body.job_id).toBe(all.body.job_id);
    const data = await sql<{ full: unknown }>`SELECT data -> 'full' AS full FROM pgboss.job WHERE id = ${all.body.job_id}`.execute(service.store.db);
    expect(data.rows).toEqual([{ full: ['responses'] }]);
    const waited = await startSync(a, id, { entity: 'responses', wait: true, wait_seconds: 20 });
    expect(waited.status).toBe(200);
    expect(waited.body.job_id).toBe(all.body.job_id);
    // Read alone, responses walks its parents: each of the 4 forms gives a page of records, then the empty page.
    expect(waited.body.results).toEqual([
      {
        entity: 'responses',
        status: 'ready',
        mode: 'full',
        records: 4,
        changed: 4,
        deleted: 0,
        unconfirmed_deletions: 0,
        pages: 8,
        record_count: 4,
        seconds: expect.any(Number),
      },
    ]);
    await settled(a, id);
    // Forms was read by the first job, then by responses' fan-out in the second, never twice at once.
    expect(upstream.requests.filter((r) => r === '/forms?page_size=200')).toHaveLength(2);
    const jobs = await jobsOf(service.store, id);
    expect(jobs.map((r) => [r.id, r.state])).toEqual([
      [job, 'completed'],
      [all.body.job_id, 'completed'],
    ]);
    expectStartedAfter(jobs[1], jobs[0]);
  });

  it.runIf(kind === 'postgres')('shares the queue with another process on the same PostgreSQL: its running sync is a 409 here', async () => {
    seed(4, 1);
    const id = await createTypeform(a);
    const other = await openStore({ databaseUrl: service.databaseUrl as string });
    const otherService = composeService(
      { store: other, keyring: service.keyring, config: service.config },
      { sync: { queue: { retryLimit: 0, pollSeconds: 0.5 } } },
    );
    const otherSyncs = otherService.ctx.syncs;
    try {
      upstream.delays.set('/forms?', 100);
      const started = await otherSyncs.start({ connectorId: id, entity: 'forms', trigger: 'cli' });
      expect(started.entities).toEqual([{ entity: 'forms', state: 'started' }]);
      await untilStatus(a, id, 'forms', 'initializing');
      const refused = await startSync(a, id, { entity: 'forms' });
      expect(refused.status).toBe(409);
      const outcomes = await started.wait();
      expect(outcomes).toMatchObject([{ entity: 'forms', status: 'ready', records: 4, recordCount: 4 }]);
      // Done: this process can queue it now, and the other one is refused while it runs.
      const mine = await startSync(a, id, { entity: 'forms' });
      expect(mine.status).toBe(202);
      await untilStatus(a, id, 'forms', 'updating');
      await expect(otherSyncs.start({ connectorId: id, entity: 'forms', trigger: 'cli' })).rejects.toMatchObject({ status: 409 });
      await settled(a, id);
    } finally {
      await otherService.close();
      await other.close();
    }
  });

  it('validates the request: unknown entity, an entity the sync cannot read, bad bodies and ids', async () => {
    const id = await createTypeform(a);
    const unknown = await startSync(a, id, { entity: 'answers' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.errors).toEqual([
      {
        field: 'entity',
        error_code: 'unknown_entity',
        message: 'Unknown entity "answers" for typeform. Entities the sync reads: forms, responses.',
        details: { limit: ['forms', 'responses'] },
      },
    ]);
    const jira = await a.api.post<{ id: string }>(CREATE, {
      workspace_name: 'default',
      connector_type: 'jira',
      name: 'Jira',
      credentials: { email: 'ops@acme.example', api_token: 'jira-token-sync-0001' },
      replication_config: { subdomain: 'acme' },
    });
    expect(jira.status).toBe(200);
    const notSyncable = await startSync(a, jira.body.id, { entity: 'issue_transitions' });
    expect(notSyncable.status).toBe(400);
    expect(notSyncable.body.errors[0]).toMatchObject({ field: 'entity', error_code: 'entity_not_syncable' });
    expect(notSyncable.body.message).toMatch(
      /^issue_transitions cannot be synchronized: issue_transitions.list needs issueIdOrKey, which neither a parent entity nor the entity's each, window or config_params supplies/,
    );
    const jiraReadiness = await readiness(a, jira.body.id);
    expect(jiraReadiness.supported_context_store_entities.map((e) => e.entity)).toContain('issue_transitions');
    expect(jiraReadiness.configured_cache_entities.map((e) => e.entity)).not.toContain('issue_transitions');
    expect(await entityReadiness(service.store.db, jira.body.id, 'issue_transitions')).toMatchObject({
      status: 'not_synced',
      syncable: false,
      ready_for_search: false,
    });

    const extra = await startSync(a, id, { entity: 'forms', since: '2024-01-01' });
    expect(extra.status).toBe(422);
    expect(extra.body.errors[0]?.error_code).toBe('unknown');
    expect((await startSync(a, id, { entity: 7 })).status).toBe(422);
    expect((await startSync(a, id, { entity: '' })).status).toBe(422);
    expect((await a.api.post(sync('not-a-uuid'), {})).status).toBe(422);
    expect((await a.api.post(sync('00000000-0000-4000-8000-000000000000'), {})).status).toBe(404);
    expect((await a.api.post(sync(id), {}, { token: null })).status).toBe(401);
    const empty = await startSync(a, id, {});
    expect(empty.status).toBe(202);
    await settled(a, id);
  });

  it('keeps organizations apart: B cannot sync or inspect A connector, and records carry their organization', async () => {
    seed(2, 1);
    const mine = await createTypeform(a);
    const theirs = await createTypeform(b);
    const refused = await startSync(b, mine);
    expect(refused.status).toBe(404);
    expect(refused.body.message).toBe(`No connector ${mine}.`);
    expect((await b.api.get(inspect(mine))).status).toBe(404);
    await syncAndSettle(b, theirs);
    expect((await readiness(a, mine)).configured_cache_entities.every((e) => e.status === 'not_synced')).toBe(true);
    const rows = await service.store.db.selectFrom('context_records').select(['organization_id']).where('connector_id', '=', theirs).execute();
    expect(rows.length).toBe(4);
    expect(rows.every((r) => r.organization_id === b.organizationId)).toBe(true);
  });

  it('refuses a sync in an inactive workspace (403)', async () => {
    seed(1, 1);
    const id = await a.api.post<{ id: string }>(CREATE, {
      workspace_name: 'paused',
      connector_type: 'typeform',
      name: 'Typeform paused',
      credentials: { access_token: upstream.token },
    });
    const workspace = await service.store.db
      .selectFrom('workspaces')
      .select('id')
      .where('organization_id', '=', a.organizationId)
      .where('name', '=', 'paused')
      .executeTakeFirstOrThrow();
    await service.store.db.updateTable('workspaces').set({ status: 'inactive' }).where('id', '=', workspace.id).execute();
    expect((await startSync(a, id.body.id)).status).toBe(403);
  });

  it('removes the records and sync state with their connector, and with their workspace', async () => {
    seed(2, 2);
    const id = await createTypeform(a);
    await syncAndSettle(a, id);
    expect((await records(id, 'responses')).length).toBe(4);
    expect((await a.api.delete(`${CONNECTORS}/${id}`)).status).toBe(202);
    expect(await service.store.db.selectFrom('context_records').select('record_id').where('connector_id', '=', id).execute()).toEqual([]);
    expect(await service.store.db.selectFrom('context_sync_state').select('entity').where('connector_id', '=', id).execute()).toEqual([]);

    const created = await a.api.post<{ id: string; workspace_id: string }>(CREATE, {
      workspace_name: 'doomed',
      connector_type: 'typeform',
      name: 'Typeform doomed',
      credentials: { access_token: upstream.token },
    });
    await syncAndSettle(a, created.body.id);
    expect((await records(created.body.id, 'forms')).length).toBe(2);
    expect((await a.api.delete(`/api/v1/workspaces/${created.body.workspace_id}`)).status).toBeLessThan(300);
    expect(await service.store.db.selectFrom('context_records').select('record_id').where('connector_id', '=', created.body.id).execute()).toEqual([]);
  });

  it('a connector deleted while it syncs stops the sync quietly', async () => {
    seed(6, 1);
    const id = await createTypeform(a);
    upstream.delays.set('/forms?', 80);
    expect((await startSync(a, id)).status).toBe(202);
    await sleep(120);
    expect((await a.api.delete(`${CONNECTORS}/${id}`)).status).toBe(202);
    await sleep(400);
    expect(await service.store.db.selectFrom('context_records').select('record_id').where('connector_id', '=', id).execute()).toEqual([]);
    expect(await service.store.db.selectFrom('context_sync_state').select('entity').where('connector_id', '=', id).execute()).toEqual([]);
  });

  it('fans out through two levels, passing parent params along (Sentry organizations -> projects -> issues)', async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    try {
      const created = await a.api.post<{ id: string }>(CREATE, {
        workspace_name: 'default',
        connector_type: 'sentry',
        name: 'Sentry',
        credentials: { auth_token: SENTRY_TOKEN },
      });
      expect(created.status).toBe(200);
      const api = () => nock(SENTRY).matchHeader('authorization', `Bearer ${SENTRY_TOKEN}`);
      const next = (path: string, cursor: string) => ({ link: `<${SENTRY}${path}?cursor=${cursor}>; rel="next"; results="true"; cursor="${cursor}"` });
      const end = (path: string) => ({ link: `<${SENTRY}${path}?cursor=0:100:0>; rel="next"; results="false"; cursor="0:100:0"` });
      const scopes = [
        api()
          .get('/api/0/organizations/')
          .reply(200, [{ id: '1', slug: 'acme', name: 'Acme' }], end('/api/0/organizations/')),
        api()
          .get('/api/0/organizations/acme/projects/')
          .reply(200, [{ id: '11', slug: 'web', name: 'Web' }], next('/api/0/organizations/acme/projects/', '0:1:0')),
        api()
          .get('/api/0/organizations/acme/projects/')
          .query({ cursor: '0:1:0' })
          .reply(200, [{ id: '12', slug: 'api', name: 'API' }], end('/api/0/organizations/acme/projects/')),
        // Issues of every status (search.params: query=, which Sentry otherwise reads as is:unresolved), without stats.
        api()
          .get('/api/0/projects/acme/web/issues/')
          .query({ query: '', statsPeriod: '' })
          .reply(200, [{ id: '101', title: 'TypeError in checkout', status: 'unresolved' }], next('/api/0/projects/acme/web/issues/', '0:1:0')),
        api()
          .get('/api/0/projects/acme/web/issues/')
          .query({ query: '', statsPeriod: '', cursor: '0:1:0' })
          .reply(200, [{ id: '102', title: 'Timeout on login', status: 'resolved' }], end('/api/0/projects/acme/web/issues/')),
        api()
          .get('/api/0/projects/acme/api/issues/')
          .query({ query: '', statsPeriod: '' })
          .reply(200, [{ id: '201', title: 'Database connection refused', status: 'ignored' }], end('/api/0/projects/acme/api/issues/')),
      ];
      const done = await syncAndSettle(a, created.body.id, { entity: 'issues' });
      for (const scope of scopes) expect(scope.isDone()).toBe(true);
      expect(done.issues).toMatchObject({ status: 'ready', entity_count: 3, pages: 3 });
      // Only the entity asked for is stored; its parents were walked, not synced.
      expect(done.organizations?.status).toBe('not_synced');
      expect(done.projects?.status).toBe('not_synced');
      expect((await records(created.body.id, 'issues')).map((r) => r.record_id)).toEqual(['101', '102', '201']);
      expect(
        await service.store.db
          .selectFrom('context_records')
          .select('entity')
          .where('connector_id', '=', created.body.id)
          .where('entity', '!=', 'issues')
          .execute(),
      ).toEqual([]);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  it('asks lists that leave records out by default for every record: Orb invoices of every status, Pinterest campaigns, ad groups and ads of every status but deleted drafts', async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    try {
      const orb = await a.api.post<{ id: string }>(CREATE, {
        workspace_name: 'default',
        connector_type: 'orb',
        name: 'Orb statuses',
        credentials: { api_key: 'orb_sync_statuses_secret' },
      });
      expect(orb.status).toBe(200);
      const invoiceQueries: Array<Record<string, unknown>> = [];
      const invoices = nock('https://api.withorb.com')
        .matchHeader('authorization', 'Bearer orb_sync_statuses_secret')
        .get('/v1/invoices')
        .query((query) => {
          invoiceQueries.push(query);
          return true;
        })
        .reply(200, {
          data: [
            { id: 'inv_1', invoice_number: 'ACME-1', status: 'draft' },
            { id: 'inv_2', invoice_number: 'ACME-2', status: 'void' },
            { id: 'inv_3', invoice_number: 'ACME-3', status: 'paid' },
          ],
          pagination_metadata: { has_more: false, next_cursor: null },
        });
      expect((await syncAndSettle(a, orb.body.id, { entity: 'invoices' })).invoices).toMatchObject({ status: 'ready', entity_count: 3 });
      expect(invoices.isDone()).toBe(true);
      // Without status[] Orb lists only issued, paid and synced invoices.
      expect(invoiceQueries).toEqual([{ limit: '100', 'status[]': ['draft', 'issued', 'paid', 'synced', 'void'] }]);

      const pinterest = await a.api.post<{ id: string }>(CREATE, {
        workspace_name: 'default',
        connector_type: 'pinterest',
        name: 'Pinterest statuses',
        credentials: { client_id: '1484362', client_secret: 'pinterest-app-secret', refresh_token: 'pinterest-refresh', access_token: 'pina_sync_statuses' },
      });
      expect(pinterest.status).toBe(200);
      const api = () => nock('https://api.pinterest.com').matchHeader('authorization', 'Bearer pina_sync_statuses');
      api()
        .get('/v5/ad_accounts')
        .query({ page_size: '250' })
        .reply(200, { items: [{ id: '549755885175', name: 'Acme ads' }], bookmark: null });
      // Pinterest's default is ACTIVE and PAUSED only: an archived campaign would leave the list.
      const every = { page_size: '250', entity_statuses: ['ACTIVE', 'PAUSED', 'ARCHIVED', 'DRAFT'] };
      const scopes = [
        api()
          .get('/v5/ad_accounts/549755885175/campaigns')
          .query(every)
          .reply(200, { items: [{ id: '626736533506', ad_account_id: '549755885175', name: 'Spring', status: 'ARCHIVED' }], bookmark: null }),
      ];
      expect((await syncAndSettle(a, pinterest.body.id, { entity: 'campaigns' })).campaigns).toMatchObject({ status: 'ready', entity_count: 1 });
      for (const scope of scopes) expect(scope.isDone()).toBe(true);
      expect(
        (await records(pinterest.body.id, 'campaigns')).map((r) => [r.record_id, (typeof r.data === 'string' ? JSON.parse(r.data) : r.data).status]),
      ).toEqual([['626736533506', 'ARCHIVED']]);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  it('syncs Snapchat campaigns unwrapped from their wrappers, fanning out organizations -> ad accounts -> campaigns', async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    try {
      const token = 'snap_access_token_sync_0001';
      const created = await a.api.post<{ id: string }>(CREATE, {
        workspace_name: 'default',
        connector_type: 'snapchat-marketing',
        name: 'Snapchat',
        credentials: { client_id: 'snap-client', client_secret: 'snap-client-secret', refresh_token: 'snap-refresh-token', access_token: token },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const SNAP = 'https://adsapi.snapchat.com';
      const api = () => nock(SNAP).matchHeader('authorization', `Bearer ${token}`).matchHeader('accept', 'application/json');
      const wrap = (plural: string, singular: string, records: Rec[], nextLink?: string) => ({
        request_status: 'SUCCESS',
        request_id: '5b3f92d000ff0943',
        ...(nextLink !== undefined && { paging: { next_link: nextLink } }),
        [plural]: records.map((r) => ({ sub_request_status: 'SUCCESS', [singular]: r })),
      });
      const campaign = (id: string, adAccountId: string, name: string) => ({
        id,
        ad_account_id: adAccountId,
        name,
        status: 'ACTIVE',
        objective: 'BRAND_AWARENESS',
        created_at: '2026-11-01T10:00:00.000Z',
      });
      const scopes = [
        api()
          .get('/v1/me/organizations')
          .reply(200, wrap('organizations', 'organization', [{ id: 'org-1', name: 'Acme Brand', type: 'ENTERPRISE' }])),
        // A sync asks for the largest page (limit 1000) and follows next_link.
        api()
          .get('/v1/organizations/org-1/adaccounts')
          .query({ limit: '1000' })
          .reply(
            200,
            wrap(
              'adaccounts',
              'adaccount',
              [{ id: 'acct-1', name: 'Acme US', organization_id: 'org-1' }],
              `${SNAP}/v1/organizations/org-1/adaccounts?cursor=c2&limit=1000`,
            ),
          ),
        api()
          .get('/v1/organizations/org-1/adaccounts')
          .query({ cursor: 'c2', limit: '1000' })
          .reply(200, wrap('adaccounts', 'adaccount', [{ id: 'acct-2', name: 'Acme EU', organization_id: 'org-1' }])),
        api()
          .get('/v1/adaccounts/acct-1/campaigns')
          .query({ limit: '1000' })
          .reply(200, wrap('campaigns', 'campaign', [campaign('camp-1', 'acct-1', 'Holiday launch'), campaign('camp-2', 'acct-1', 'Spring sale')])),
        api()
          .get('/v1/adaccounts/acct-2/campaigns')
          .query({ limit: '1000' })
          .reply(200, wrap('campaigns', 'campaign', [campaign('camp-3', 'acct-2', 'Rentrée')])),
      ];
      const done = await syncAndSettle(a, created.body.id, { entity: 'campaigns' });
      for (const scope of scopes) expect(scope.isDone()).toBe(true);
      expect(done.campaigns).toMatchObject({ status: 'ready', entity_count: 3 });
      const stored = await records(created.body.id, 'campaigns');
      expect(stored.map((r) => r.record_id)).toEqual(['camp-1', 'camp-2', 'camp-3']);
      // The stored records are the campaigns themselves, not Snapchat's {sub_request_status, campaign} wrappers.
      expect(stored.map((r) => r.data)).toEqual([
        campaign('camp-1', 'acct-1', 'Holiday launch'),
        campaign('camp-2', 'acct-1', 'Spring sale'),
        campaign('camp-3', 'acct-2', 'Rentrée'),
      ]);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  it("syncs a single object (Harvest's company) through its get, as one record", async () => {
    nock.disableNetConnect();
    nock.enableNetConnect('127.0.0.1');
    try {
      const created = await a.api.post<{ id: string }>(CREATE, {
        workspace_name: 'default',
        connector_type: 'harvest',
        name: 'Harvest',
        credentials: { option_title: 'Personal Access Token', api_token: 'harvest-pat-sync-0001', account_id: '123456' },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      const company = {
        base_uri: 'https://acme.harvestapp.com',
        full_domain: 'acme.harvestapp.com',
        name: 'Acme',
        is_active: true,
        week_start_day: 'Monday',
        plan_type: 'sponsored',
        weekly_capacity: 126000,
      };
      const scope = nock('https://api.harvestapp.com')
        .get('/v2/company')
        .matchHeader('authorization', 'Bearer harvest-pat-sync-0001')
        .matchHeader('harvest-account-id', '123456')
        .reply(200, company);
      const done = await syncAndSettle(a, created.body.id, { entity: 'company' });
      expect(scope.isDone()).toBe(true);
      expect(done.company).toMatchObject({ status: 'ready', entity_count: 1 });
      const stored = await records(created.body.id, 'company');
      expect(stored.map((r) => [r.record_id, r.data])).toEqual([['acme.harvestapp.com', company]]);
      const found = await a.api.post<{ result: { data: Rec[] } }>(`${CONNECTORS}/${created.body.id}/execute`, {
        entity: 'company',
        action: 'context_store_search',
        params: { query: { filter: { gte: { weekly_capacity: 100000 } } }, fields: ['name', 'plan_type', 'weekly_capacity'] },
      });
      expect(found.status, JSON.stringify(found.body)).toBe(200);
      expect(found.body.result.data).toEqual([{ name: 'Acme', plan_type: 'sponsored', weekly_capacity: 126000 }]);
    } finally {
      nock.cleanAll();
      nock.enableNetConnect();
    }
  });

  it('validates replication_config.sync_interval_minutes where the connector settings are checked', async () => {
    const bad = await a.api.post<ErrorBody>(CONNECTORS, {
      workspace_name: 'default',
      connector_type: 'typeform',
      name: 'Typeform',
      credentials: { access_token: upstream.token },
      replication_config: { sync_interval_minutes: 'hourly' },
    });
    expect(bad.status).toBe(400);
    expect(bad.body.errors).toEqual([
      {
        field: 'replication_config.sync_interval_minutes',
        error_code: 'sync_interval',
        message: 'replication_config.sync_interval_minutes must be an integer from 0 (no automatic syncs) to 525600 minutes',
        details: { limit: { minimum: 0, maximum: 525600 } },
      },
    ]);
    const negative = await a.api.post<ErrorBody>(CONNECTORS, {
      workspace_name: 'default',
      connector_type: 'typeform',
      name: 'Typeform',
      credentials: { access_token: upstream.token },
      replication_config: { sync_interval_minutes: -5 },
    });
    expect(negative.status).toBe(400);
    const typed = await a.api.post<ErrorBody>(CONNECTORS, {
      workspace_name: 'default',
      connector_type: 'typeform',
      name: 'Typeform',
      credentials: { access_token: upstream.token },
      replication_config: { sync_interval_minutes: true },
    });
    expect(typed.status).toBe(422);
    const id = await createTypeform(a, { replication_config: { sync_interval_minutes: 30, api_host: 'api.eu.typeform.com' } });
    const row = await service.store.db.selectFrom('connectors').select(['config', 'replication_config']).where('id', '=', id).executeTakeFirstOrThrow();
    expect(row.config).toEqual({ api_host: 'api.eu.typeform.com' });
    expect(row.replication_config).toEqual({ sync_interval_minutes: 30, api_host: 'api.eu.typeform.com' });
    const updated = await a.api.put(`${CONNECTORS}/${id}`, { replication_config: { sync_interval_minutes: '0' } });
    expect(updated.status).toBe(200);
    expect(connectorInterval({ sync_interval_minutes: '0' }, 60)).toBe(0);
    expect(connectorInterval({ sync_interval_minutes: 15 }, 60)).toBe(15);
    expect(connectorInterval('{"sync_interval_minutes": 5}', 60)).toBe(5);
    expect(connectorInterval({}, 60)).toBe(60);
  });

  it('a record on two consecutive pages keeps its later version (the next page is written while the page before it is indexed)', async () => {
    seed(3, 1);
    // Page 1: form1, form2; page 2: form2 again (edited since page 1 was read), form3.
    const [form1, form2, form3] = upstream.forms as [Rec, Rec, Rec];
    upstream.forms = [form1, form2, { ...form2, title: 'Feedback survey 2 (edited)' }, form3];
    const id = await createTypeform(a);
    // What the store holds for form2 when page 1 is reported: page 2 waits for page 1 instead of being written meanwhile.
    const storedWhenReported: unknown[] = [];
    const remove = observeForms(id, async () => {
      const row = await service.store.db
        .selectFrom('context_records')
        .select('data')
        .where('connector_id', '=', id)
        .where('entity', '=', 'forms')
        .where('record_id', '=', 'form2')
        .executeTakeFirst();
      storedWhenReported.push((row?.data as Rec | undefined)?.title);
    });
    let done: Awaited<ReturnType<typeof syncAndSettle>>;
    try {
      done = await syncAndSettle(a, id, { entity: 'forms' });
    } finally {
      remove();
    }
    expect(storedWhenReported).toEqual(['Feedback survey 2', 'Feedback survey 2 (edited)']);
    expect(done.forms).toMatchObject({ status: 'ready', entity_count: 3 });
    expect((await records(id, 'forms')).map((r) => [r.record_id, (r.data as Rec).title])).toEqual([
      ['form1', 'Feedback survey 1'],
      ['form2', 'Feedback survey 2 (edited)'],
      ['form3', 'Feedback survey 3'],
    ]);
    expect(batches.filter((x) => x.entity === 'forms').map((x) => x.records.map((r) => [r.recordId, (r.data as Rec).title]))).toEqual([
      [
        ['form1', 'Feedback survey 1'],
        ['form2', 'Feedback survey 2'],
      ],
      [
        ['form2', 'Feedback survey 2 (edited)'],
        ['form3', 'Feedback survey 3'],
      ],
    ]);
  });

  it('an observer failure fails the sync; the next one reports again the records of that page and of the page written meanwhile', async () => {
    seed(5, 1);
    const id = await createTypeform(a);
    let fail = true;
    const seen: string[][] = [];
    const remove = observeForms(id, async (batch) => {
      seen.push(batch.records.map((r) => r.recordId));
      if (fail) throw new Error('embedding provider unavailable');
    });
    try {
      const failed = await syncAndSettle(a, id, { entity: 'forms' });
      expect(failed.forms).toMatchObject({ status: 'failed', reason: 'Indexing the records of forms failed: embedding provider unavailable' });
      // The failure came with page 1; page 2 was being written meanwhile (and was stored), page 3 was never written.
      expect(seen).toEqual([['form1', 'form2']]);
      const stored = (await records(id, 'forms')).map((r) => [r.record_id, r.content_hash]);
      expect(stored).toEqual([
        ['form1', ''],
        ['form2', ''],
        ['form3', ''],
        ['form4', ''],
      ]);
      fail = false;
      seen.length = 0;
      const done = await syncAndSettle(a, id, { entity: 'forms' });
      expect(done.forms).toMatchObject({ status: 'ready', entity_count: 5 });
      expect(seen).toEqual([['form1', 'form2'], ['form3', 'form4'], ['form5']]);
    } finally {
      remove();
    }
  });

  it('reading a page failing after the one before it was written: that page is still indexed and counted', async () => {
    seed(6, 1);
    const id = await createTypeform(a);
    upstream.failures.set('/forms?page_size=200&page=3', { status: 500, times: Infinity });
    const failed = await syncAndSettle(a, id, { entity: 'forms' });
    expect(failed.forms).toMatchObject({ status: 'failed', entity_count: 4 });
    expect(failed.forms?.reason).toMatch(/^Reading forms \(page 3\) failed after 3 attempts: /);
    expect(batches.filter((x) => x.entity === 'forms').map((x) => x.records.map((r) => r.recordId))).toEqual([
      ['form1', 'form2'],
      ['form3', 'form4'],
    ]);
    // Indexed, so not reported again: the next sync reports only what it had not written.
    upstream.failures.clear();
    batches.length = 0;
    const done = await syncAndSettle(a, id, { entity: 'forms' });
    expect(done.forms).toMatchObject({ status: 'ready', entity_count: 6 });
    expect(batches.filter((x) => x.entity === 'forms').map((x) => x.records.map((r) => r.recordId))).toEqual([['form5', 'form6']]);
  });
});

describe('record ids and hashes', () => {
  it('uses the id field as text, a composite id as JSON array text, and hashes canonical JSON', () => {
    expect(recordIdOf({ id: 42 }, { idField: 'id' })).toBe('42');
    expect(recordIdOf({ metaData: { id: 'c1' } }, { idField: 'metaData.id' })).toBe('c1');
    expect(recordIdOf({ dimensions: { ad_id: 7, day: '2024-01-01' } }, { idField: ['dimensions.ad_id', 'dimensions.day'] })).toBe('[7,"2024-01-01"]');
    expect(recordIdOf({ name: 'x' }, { idField: 'id' })).toBeUndefined();
    expect(recordIdOf({ a: 1 }, { idField: ['a', 'b'] })).toBeUndefined();
    expect(canonicalJson({ b: 1, a: { d: [1, { f: 2, e: 3 }], c: null } })).toBe('{"a":{"c":null,"d":[1,{"e":3,"f":2}]},"b":1}');
    expect(contentHash({ a: 1, b: 2 })).toBe(contentHash({ b: 2, a: 1 }));
    expect(contentHash({ a: 1 })).not.toBe(contentHash({ a: 2 }));
  });
});

describe('switchyard sync progress display', () => {
  const progress = (over: Partial<SyncProgress>): SyncProgress => ({
    connectorId: 'c',
    entity: 'forms',
    phase: 'running',
    records: 1200,
    changed: 0,
    pages: 12,
    deleted: 0,
    elapsedMs: 2000,
    ...over,
  });

  it('formats bars, rates and lines', () => {
    expect(formatRate(1200, 2000)).toBe('600 rec/s');
    expect(formatRate(15, 2000)).toBe('7.5 rec/s');
    expect(formatRate(10, 50)).toBe('- rec/s');
    expect(formatBar('ready', 3)).toBe('[############]');
    expect(formatBar('failed', 3)).toBe('[!!!!!!!!!!!!]');
    expect(formatBar('running', 0)).toBe('[===         ]');
    expect(formatBar('running', 2)).toBe('[  ===       ]');
    expect(formatBar('running', 9)).toBe('[         ===]');
    expect(formatBar('running', 10)).toBe('[        === ]');
    expect(formatProgressLine(progress({}), 9)).toBe(
      'forms      [            ]  running   1,200 records  12 pages  600 rec/s  2.0s'.replace('[            ]', formatBar('running', 12)),
    );
    expect(formatProgressLine(progress({ phase: 'ready', changed: 3, deleted: 1 }), 5)).toBe(
      'forms  [############]  ready     1,200 records  12 pages  600 rec/s  2.0s (3 changed, 1 deleted)',
    );
    expect(formatProgressLine(progress({ phase: 'failed', reason: 'Reading forms (page 13) failed: boom' }), 5)).toBe(
      'forms  [!!!!!!!!!!!!]  failed    1,200 records  12 pages  600 rec/s  2.0s  Reading forms (page 13) failed: boom',
    );
    expect(formatProgressLine(progress({ phase: 'queued' }), 5)).toBe('forms  [            ]  queued');
    expect(formatPlainLine(progress({ phase: 'ready', elapsedMs: 65_000, records: 65_000 }))).toBe(
      'sync forms: ready, 65,000 records, 12 pages, 1,000 rec/s, 1m05s (0 changed)',
    );
    expect(formatPlainLine(progress({ phase: 'failed', reason: 'nope' }))).toBe('sync forms: failed after 1,200 records, 12 pages, 600 rec/s, 2.0s: nope');
  });

  it('redraws one line per entity on a terminal, and prints plain lines (throttled) otherwise', () => {
    let now = 0;
    let tty = '';
    const terminal = new ProgressDisplay({ isTTY: true, columns: 200, write: (t: string) => (tty += t) }, { now: () => now, redrawMs: 100 });
    terminal.update(progress({ phase: 'queued', records: 0, pages: 0 }));
    terminal.update(progress({ entity: 'responses', phase: 'queued', records: 0, pages: 0 }));
    now = 10;
    terminal.update(progress({ records: 100, pages: 1 }));
    now = 20;
    terminal.update(progress({ records: 200, pages: 2 })); // within 100 ms of the last draw: not drawn
    now = 200;
    terminal.update(progress({ phase: 'ready', records: 300, pages: 3 }));
    terminal.finish();
    // Drawn at each phase change and once the 100 ms have passed: 5 frames, the second moving up over the first line only.
    expect(tty.match(/\x1b\[1A/g)).toHaveLength(1);
    const frames = tty.split('\x1b[2A');
    expect(frames).toHaveLength(4);
    expect(frames.at(-1)).toContain('forms      [############]  ready');
    expect(frames.at(-1)).toContain('responses  [            ]  queued');
    expect(tty).not.toContain('200 records');

    now = 0;
    const lines: string[] = [];
    const plain = new ProgressDisplay({ isTTY: false, write: (t: string) => lines.push(t) }, { now: () => now, heartbeatMs: 5000 });
    plain.update(progress({ phase: 'queued', records: 0, pages: 0 }));
    plain.update(progress({ records: 100, pages: 1 }));
    now = 1000;
    plain.update(progress({ records: 200, pages: 2 }));
    now = 6000;
    plain.update(progress({ records: 300, pages: 3 }));
    plain.update(progress({ phase: 'ready', records: 400, pages: 4 }));
    expect(lines.map((l) => l.replace(/, [\d.,-]+ rec\/s, [\d.ms]+/, ''))).toEqual([
      'sync forms: queued\n',
      'sync forms: running, 100 records, 1 pages\n',
      'sync forms: running, 300 records, 3 pages\n',
      'sync forms: ready, 400 records, 4 pages (0 changed)\n',
    ]);
    expect(lines.every((l) => !l.includes('\x1b'))).toBe(true);
  });
});

describe('switchyard sync <connector_id> (CLI against a data folder and an UPSTREAM_BASE_URLS stand-in)', { timeout: 120_000 }, () => {
  let dataDir: string;
  let upstream: StandIn;
  let connectorId: string;
  const masterKey = randomBytes(32).toString('base64');

  beforeAll(async () => {
    upstream = await startTypeformStandIn({ formsPerPage: 3, responsesPerPage: 2 });
    upstream.forms = [form('f1', 'One'), form('f2', 'Two'), form('f3', 'Three'), form('f4', 'Four')];
    upstream.responses = new Map([['f2', [response('f2-a', 'x'), response('f2-b', 'y'), response('f2-c', 'z')]]]);
    dataDir = mkdtempSync(path.join(tmpdir(), 'switchyard-sync-cli-'));
    await seedDataDir(dataDir);
    const store = await openStore({ dataDir });
    try {
      const { organization_id } = await createOrganization(store.db, 'CLI');
      const { ctx } = composeService({
        store,
        keyring: new Keyring(Buffer.from(masterKey, 'base64')),
        config: testConfig({ dataDir }),
      });
      const created = await createConnector(
        ctx,
        organization_id,
        { workspace_name: 'default', connector_type: 'typeform', name: 'Typeform', credentials: { access_token: upstream.token } },
        { check: false },
      );
      connectorId = created.id;
    } finally {
      await store.close();
    }
  });
  afterAll(async () => {
    await upstream.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  const env = () => ({ DATA_DIR: dataDir, SWITCHYARD_MASTER_KEY: masterKey, UPSTREAM_BASE_URLS: JSON.stringify({ typeform: upstream.url }) });

  it('syncs every entity, printing plain progress lines on stderr (not a terminal) and a summary', async () => {
    const result = await runCli(['sync', connectorId], env());
    expect(result.status, result.stderr).toBe(0);
    expect(result.stdout).toBe(
      [
        'forms: ready, 4 records in the store (4 read in 2 pages, 4 new or changed, 0 deleted)',
        'responses: ready, 3 records in the store (3 read in 6 pages, 3 new or changed, 0 deleted)',
        '',
      ].join('\n'),
    );
    const lines = result.stderr.trim().split('\n');
    expect(lines[0]).toBe('sync forms: queued');
    expect(lines).toContain('sync responses: queued');
    expect(lines.some((l) => /^sync forms: ready, 4 records, 2 pages, [\d.,-]+ rec\/s, [\d.]+s \(4 changed\)$/.test(l))).toBe(true);
    expect(lines.some((l) => l.startsWith('sync responses: ready, 3 records, 6 pages'))).toBe(true);
    expect(result.stderr).not.toContain('\x1b');
    expect(result.stdout + result.stderr).not.toContain(upstream.token);
  });

  it('syncs one entity with --entity and --json; reports failures with exit code 1', async () => {
    const json = await runCli(['sync', connectorId, '--entity', 'forms', '--json'], env());
    expect(json.status, json.stderr).toBe(0);
    expect(JSON.parse(json.stdout)).toEqual({
      connector_id: connectorId,
      entities: [
        {
          entity: 'forms',
          status: 'ready',
          mode: 'full',
          records: 4,
          changed: 0,
          deleted: 0,
          unconfirmed_deletions: 0,
          pages: 2,
          record_count: 4,
          seconds: expect.any(Number),
        },
      ],
    });
    // Responses, synced in full by the test above, would be read incrementally now: --full walks them again.
    const full = await runCli(['sync', connectorId, '--entity', 'responses', '--full', '--json'], env());
    expect(full.status, full.stderr).toBe(0);
    expect(JSON.parse(full.stdout).entities).toEqual([expect.objectContaining({ entity: 'responses', status: 'ready', mode: 'full', records: 3 })]);
    const unknown = await runCli(['sync', connectorId, '--entity', 'nope'], env());
    expect(unknown.status).toBe(1);
    expect(unknown.stderr.trim()).toBe('Unknown entity "nope" for typeform. Entities the sync reads: forms, responses.');
    const notId = await runCli(['sync', 'abc'], env());
    expect(notId.status).toBe(1);
    expect(notId.stderr.trim()).toBe('"abc" is not a connector id (a UUID).');
    upstream.failures.set('/forms', { status: 401, times: Infinity });
    const refused = await runCli(['sync', connectorId], env());
    upstream.failures.clear();
    expect(refused.status).toBe(1);
    expect(refused.stdout).toMatch(
      /^forms: failed: Reading forms \(page 1\) failed: .*\nresponses: failed: responses is read through forms, whose sync failed: /,
    );
  });

  it('says when a full walk did not read a stored record, and when the next one deletes it', async () => {
    expect((await runCli(['sync', connectorId, '--entity', 'forms'], env())).status).toBe(0);
    const kept = upstream.forms;
    upstream.forms = kept.filter((f) => f.id !== 'f4');
    try {
      const missed = await runCli(['sync', connectorId, '--entity', 'forms'], env());
      expect(missed.status, missed.stderr).toBe(0);
      expect(missed.stdout).toBe(
        'forms: ready, 4 records in the store (3 read in 1 pages, 0 new or changed, 0 deleted, 1 not read: deleted if the next sync, a full walk, misses it too)\n',
      );
      const confirmed = await runCli(['sync', connectorId, '--entity', 'forms'], env());
      expect(confirmed.status, confirmed.stderr).toBe(0);
      expect(confirmed.stdout).toBe('forms: ready, 3 records in the store (3 read in 1 pages, 0 new or changed, 1 deleted)\n');
    } finally {
      upstream.forms = kept;
    }
  });
});
