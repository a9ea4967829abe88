/**
 * PostgreSQL memory settings for the benchmarks that measure a large store: the server's defaults
 * (shared_buffers 128 MB), or settings sized for the data measured, with its relations read into shared
 * buffers first, as on a server that has been serving them.
 */
import { totalmem } from 'node:os';
import { type RawBuilder, sql } from 'kysely';
import type { Store } from '../src/db/database.js';

export const MB = 1024 * 1024;

/**
 * The memory settings of a server sized for the data measured: shared_buffers holding it (and a quarter
 * more, rounded up to 128 MB, at most 40% of the machine's memory), effective_cache_size three quarters of
 * the machine's memory.
 */
export function sizedSettings(dataBytes: number): Record<string, string> {
  const wanted = Math.ceil((dataBytes * 1.25) / (128 * MB)) * 128;
  const cap = Math.floor((totalmem() * 0.4) / MB);
  return { shared_buffers: `${Math.min(wanted, cap)}MB`, effective_cache_size: `${Math.floor((totalmem() * 0.75) / MB)}MB` };
}

/** The settings a measurement runs with, for its label and the log. */
export async function serverSettings(store: Store): Promise<Record<string, string>> {
  const { rows } = await sql<{ name: string; setting: string }>`
    SELECT name, current_setting(name) AS setting FROM pg_settings
    WHERE name IN ('shared_buffers', 'effective_cache_size', 'work_mem', 'random_page_cost', 'jit') ORDER BY name`.execute(store.db);
  return Object.fromEntries(rows.map((row) => [row.name, row.setting]));
}

export const describeSettings = (settings: Record<string, string>) =>
  Object.entries(settings)
    .map(([name, value]) => `${name}=${value}`)
    .join(' ');

/** A table and each of its indexes, as pg_class rows (alias c). */
export function tableRelations(table: string): RawBuilder<unknown> {
  return sql`(c.oid = ${table}::regclass OR c.oid IN (SELECT indexrelid FROM pg_index WHERE indrelid = ${table}::regclass))`;
}

/** Bytes of the relations (pg_class rows, alias c) the condition picks. */
export async function relationBytes(store: Store, relations: RawBuilder<unknown>): Promise<number> {
  const { rows } = await sql<{ bytes: string }>`SELECT sum(pg_relation_size(c.oid))::bigint AS bytes FROM pg_class AS c WHERE ${relations}`.execute(store.db);
  return Number(rows[0]?.bytes ?? 0);
}

/**
 * Reads the relations into shared buffers (pg_prewarm), then has the connection that serves the searches
 * (the pool reuses its one idle connection) read every page once: a backend's first touch of a page of
 * shared memory is a page fault, ~25 µs on this VM without huge pages (an eq sorted by createdAt: 150-270
 * ms on pages it never touched, 16-19 ms after). Returns the megabytes prewarmed.
 */
export async function warmRelations(store: Store, relations: RawBuilder<unknown>): Promise<number> {
  await sql`CREATE EXTENSION IF NOT EXISTS pg_prewarm`.execute(store.db);
  const { rows } = await sql<{ blocks: string }>`SELECT sum(pg_prewarm(c.oid))::bigint AS blocks FROM pg_class AS c WHERE ${relations}`.execute(store.db);
  await sql`CREATE EXTENSION IF NOT EXISTS pageinspect`.execute(store.db);
  await sql`
    SELECT sum(length(get_raw_page(c.oid::regclass::text, block))) FROM pg_class AS c,
      generate_series(0::bigint, pg_relation_size(c.oid) / 8192 - 1) AS block
    WHERE ${relations}`.execute(store.db);
  return Math.round((Number(rows[0]?.blocks ?? 0) * 8192) / MB);
}
