/**
 * Writing synchronized records: their ids and content hashes, the upsert of one page (only new,
 * changed or reappearing records are rewritten and reported), and the sweep that marks records two
 * complete full walks in a row no longer saw as deleted.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { RecordDefinition } from '../../../runtime/index.js';
import { getPath } from '../../../runtime/paths.js';
import type { DatabaseSchema } from '../../db/schema.js';
import type { SyncedRecord } from '../observers.js';
import { wordsToKeep } from '../typos.js';

type Db = Kysely<DatabaseSchema>;

/**
 * JSON with object keys sorted at every level: equal records give equal text whatever the vendor's key
 * order. It is also the text the record is stored from (jsonb keeps no key order), so it is made once.
 */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) {
    let text = '[';
    for (let index = 0; index < value.length; index += 1) {
      const item: unknown = value[index];
      if (index > 0) text += ',';
      text += item === undefined ? 'null' : canonicalJson(item);
    }
    return `${text}]`;
  }
  const keys = Object.keys(value).sort();
  const record = value as Record<string, unknown>;
  let text = '{';
  let first = true;
  for (const key of keys) {
    const item = record[key];
    if (item === undefined) continue;
    text += `${first ? '' : ','}${JSON.stringify(key)}:${canonicalJson(item)}`;
    first = false;
  }
  return `${text}}`;
}

function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** sha256 (hex) of the record's canonical JSON. */
export function contentHash(record: unknown): string {
  return sha256(canonicalJson(record));
}

function idText(value: unknown): string | undefined {
  if (value === undefined || value === null || value === '') return undefined;
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return String(value);
  return canonicalJson(value);
}

/**
 * The record's id as stored: the id field's value as text, or for a composite id the JSON array text of
 * the values. Undefined when (part of) the id is missing.
 */
export function recordIdOf(record: unknown, definition: Pick<RecordDefinition, 'idField'>): string | undefined {
  if (Array.isArray(definition.idField)) {
    const values: unknown[] = [];
    for (const field of definition.idField) {
      const value = getPath(record, field);
      if (value === undefined || value === null) return undefined;
      values.push(value);
    }
    return canonicalJson(values);
  }
  return idText(getPath(record, definition.idField));
}

export interface PreparedRecord {
  recordId: string;
  data: Record<string, unknown>;
  /** canonicalJson(data): what is stored and hashed. */
  json: string;
  hash: string;
}

export interface PreparedPage {
  records: PreparedRecord[];
  /** Items without an id (or not objects), left out. */
  skipped: number;
}

/** Ids and hashes for a page of records; a record id seen twice in one page keeps its last version. */
export function preparePage(items: unknown[], definition: Pick<RecordDefinition, 'idField'>): PreparedPage {
  const byId = new Map<string, PreparedRecord>();
  let skipped = 0;
  for (const item of items) {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) {
      skipped += 1;
      continue;
    }
    const recordId = recordIdOf(item, definition);
    if (recordId === undefined) {
      skipped += 1;
      continue;
    }
    const data = item as Record<string, unknown>;
    byId.delete(recordId);
    const json = canonicalJson(data);
    byId.set(recordId, { recordId, data, json, hash: sha256(json) });
  }
  return { records: [...byId.values()], skipped };
}

/** The value at a dot path; a segment `name[]` maps the rest of the path over the array at name (nodes[].id: every id). */
function pluck(value: unknown, path: string[]): unknown {
  const index = path.findIndex((segment) => segment.endsWith('[]'));
  if (index === -1) return getPath(value, path.join('.'));
  const list = getPath(value, [...path.slice(0, index), (path[index] as string).slice(0, -2)].join('.'));
  if (!Array.isArray(list)) return undefined;
  return list.map((element) => pluck(element, path.slice(index + 1)) ?? null);
}

/**
 * The records of one page with the entity's derived fields added (manifest search.derived): a value
 * inside the record (record.<path>) or the list param it was read with (params.<name>). A record that
 * holds the field already keeps its own value.
 */
export function withDerivedFields(items: unknown[], derived: Record<string, string> | undefined, params: Record<string, unknown>): unknown[] {
  if (derived === undefined) return items;
  return items.map((item) => {
    if (item === null || typeof item !== 'object' || Array.isArray(item)) return item;
    const record = { ...(item as Record<string, unknown>) };
    for (const [name, source] of Object.entries(derived)) {
      if (record[name] !== undefined) continue;
      const [origin, ...path] = source.split('.');
      const value = origin === 'params' ? params[path.join('.')] : pluck(item, path);
      if (value !== undefined) record[name] = value;
    }
    return record;
  });
}

export interface RecordScope {
  organizationId: string;
  connectorId: string;
  entity: string;
}

export interface PageWrite {
  /** New records, records whose content changed and records that reappeared after being marked deleted. */
  changed: SyncedRecord[];
  unchanged: number;
}

/** Ids per statement of the updates and deletes that take a list of record ids. */
const CHUNK = 1000;

/** Runs `run` on `recordIds` in chunks of CHUNK (one IN list each) and sums the rows each affected. */
async function inChunks(recordIds: string[], run: (chunk: string[]) => Promise<bigint | number | undefined>): Promise<number> {
  let count = 0;
  for (let start = 0; start < recordIds.length; start += CHUNK) count += Number((await run(recordIds.slice(start, start + CHUNK))) ?? 0);
  return count;
}

/**
 * The page as one JSON array of [record id, record, content hash] triples, built from the canonical JSON
 * already made for hashing: the database parses it once. A jsonb[] parameter costs more on both sides:
 * the client escapes every record's JSON into an array literal, the database unescapes it and then
 * parses each record.
 */
function pageJson(records: PreparedRecord[]): string {
  let text = '[';
  for (let index = 0; index < records.length; index += 1) {
    const record = records[index] as PreparedRecord;
    text += `${index > 0 ? ',' : ''}[${JSON.stringify(record.recordId)},${record.json},${JSON.stringify(record.hash)}]`;
  }
  return `${text}]`;
}

/**
 * Upserts one page in one statement: the page travels as one jsonb array (pageJson), so the statement
 * has the same text and a handful of parameters whatever the page size. New, changed and undeleted rows
 * are written and returned; unchanged rows are not touched (rewriting a row writes every index of
 * context_records again). With `track` (a full sync), every id is noted in context_sync_seen for the
 * final sweep. When a record of the page is written, the words of the page's records join the entity's
 * words (context_words: the typos of fuzzy, src/context/typos.ts) in the same statement, so a record is never
 * searchable without its words; a page of unchanged records adds none (they were added when written).
 */
export async function writePage(db: Db, scope: RecordScope, records: PreparedRecord[], options: { track?: boolean } = {}): Promise<PageWrite> {
  if (records.length === 0) return { changed: [], unchanged: 0 };
  const seen = options.track
    ? sql`seen AS (
        INSERT INTO context_sync_seen (connector_id, entity, record_id)
        SELECT ${scope.connectorId}::uuid, ${scope.entity}::text, input.record_id FROM input
        ON CONFLICT DO NOTHING
      ), `
    : sql``;
  const { rows } = await sql<{ record_id: string }>`
    WITH input AS MATERIALIZED (
      SELECT item ->> 0 AS record_id, item -> 1 AS data, item ->> 2 AS content_hash FROM jsonb_array_elements(${pageJson(records)}::jsonb) AS item
    ), ${seen}written AS (
      INSERT INTO context_records AS r (connector_id, organization_id, entity, record_id, data, content_hash)
      SELECT ${scope.connectorId}::uuid, ${scope.organizationId}::uuid, ${scope.entity}::text, input.record_id, input.data, input.content_hash FROM input
      ON CONFLICT (connector_id, entity, record_id) DO UPDATE
        SET data = excluded.data, content_hash = excluded.content_hash, last_synced_at = now(), deleted_at = NULL
        WHERE r.content_hash <> excluded.content_hash OR r.deleted_at IS NOT NULL
      RETURNING r.record_id
    ), words AS (
      INSERT INTO context_words (connector_id, entity, word)
      SELECT ${scope.connectorId}::uuid, ${scope.entity}::text, word FROM jsonb_array_elements_text(${JSON.stringify(wordsToKeep(records.map((record) => record.data)))}::jsonb) AS word
      WHERE EXISTS (SELECT 1 FROM written)
      ON CONFLICT DO NOTHING
    )
    SELECT record_id FROM written`.execute(db);
  const changedIds = new Set(rows.map((row) => row.record_id));
  return {
    changed: records.filter((record) => changedIds.has(record.recordId)).map((record) => ({ recordId: record.recordId, data: record.data })),
    unchanged: records.length - changedIds.size,
  };
}

/**
 * Records a committed page reported that no observer has heard of (an observer failed on their page, or
 * on the page before it): their hashes are cleared so the next sync sees them as changed and reports them
 * again.
 */
export async function forgetHashes(db: Db, scope: RecordScope, records: SyncedRecord[]): Promise<void> {
  await inChunks(
    records.map((record) => record.recordId),
    async (chunk) =>
      (
        await db
          .updateTable('context_records')
          .set({ content_hash: '' })
          .where('connector_id', '=', scope.connectorId)
          .where('entity', '=', scope.entity)
          .where('record_id', 'in', chunk)
          .executeTakeFirst()
      ).numUpdatedRows,
  );
}

/** Clears what a full sync of the entity noted as seen (when it ends, and before one begins: a sync stopped by a crash leaves notes). */
export async function forgetSeen(db: Db, scope: RecordScope): Promise<void> {
  await db.deleteFrom('context_sync_seen').where('connector_id', '=', scope.connectorId).where('entity', '=', scope.entity).execute();
}

export interface SweepResult {
  /** Records marked deleted: missed by this walk and by the complete full walk before it. */
  deleted: number;
  /** Records missed by this walk only: still live, noted in context_sync_missed for the next full walk. */
  unconfirmed: number;
}

/**
 * The final sweep of a complete full walk: the live records of the entity that the walk did not note as seen
 * (writePage's track) and that the entity's previous complete full walk missed too are marked deleted; the
 * ones missed for the first time are noted in context_sync_missed instead (a list can leave out a record that
 * still exists: see migration 13), replacing the notes of the walk before.
 */
export async function sweepUnseen(db: Db, scope: RecordScope): Promise<SweepResult> {
  // The notes were just written (PGlite runs no autovacuum, PostgreSQL's lags): without statistics the
  // planner takes the table as empty and scans it once per record (quadratic), instead of a hash anti-join.
  await sql`ANALYZE context_sync_seen`.execute(db);
  const notSeen = sql`NOT EXISTS (SELECT 1 FROM context_sync_seen AS s WHERE s.connector_id = r.connector_id AND s.entity = r.entity AND s.record_id = r.record_id)`;
  // Driven by the notes of the walk before (few, looked up by primary key), not by the entity's records.
  const deleted = await sql`
    UPDATE context_records AS r SET deleted_at = now()
    FROM context_sync_missed AS m
    WHERE m.connector_id = ${scope.connectorId}::uuid AND m.entity = ${scope.entity}
      AND r.connector_id = m.connector_id AND r.entity = m.entity AND r.record_id = m.record_id
      AND r.organization_id = ${scope.organizationId}::uuid AND r.deleted_at IS NULL AND ${notSeen}`.execute(db);
  await forgetMissed(db, scope);
  // The records deleted above are no longer live: what is left unseen was missed for the first time.
  const missed = await sql`
    INSERT INTO context_sync_missed (connector_id, entity, record_id)
    SELECT r.connector_id, r.entity, r.record_id FROM context_records AS r
    WHERE r.organization_id = ${scope.organizationId}::uuid AND r.connector_id = ${scope.connectorId}::uuid
      AND r.entity = ${scope.entity} AND r.deleted_at IS NULL AND ${notSeen}`.execute(db);
  return { deleted: Number(deleted.numAffectedRows ?? 0), unconfirmed: Number(missed.numAffectedRows ?? 0) };
}

/** Marks deleted the live records of the entity with these ids (a vendor's deleted feed named them, answered 404 for them, or gave them archived or trashed); returns how many. */
export async function markDeleted(db: Db, scope: RecordScope, recordIds: string[]): Promise<number> {
  return inChunks(
    recordIds,
    async (chunk) =>
      (
        await db
          .updateTable('context_records')
          .set({ deleted_at: sql`now()` })
          .where('organization_id', '=', scope.organizationId)
          .where('connector_id', '=', scope.connectorId)
          .where('entity', '=', scope.entity)
          .where('deleted_at', 'is', null)
          .where('record_id', 'in', chunk)
          .executeTakeFirst()
      ).numUpdatedRows,
  );
}

/** Up to `limit` ids of the records the entity's last complete full walk missed (noted by sweepUnseen). */
export async function missedRecordIds(db: Db, scope: RecordScope, limit: number): Promise<string[]> {
  const rows = await db
    .selectFrom('context_sync_missed')
    .select('record_id')
    .where('connector_id', '=', scope.connectorId)
    .where('entity', '=', scope.entity)
    .orderBy('record_id')
    .limit(limit)
    .execute();
  return rows.map((row) => row.record_id);
}

/** Removes these records' notes of a missed record (their deletion was confirmed); returns how many were removed. */
export async function forgetMissedRecords(db: Db, scope: RecordScope, recordIds: string[]): Promise<number> {
  return inChunks(
    recordIds,
    async (chunk) =>
      (
        await db
          .deleteFrom('context_sync_missed')
          .where('connector_id', '=', scope.connectorId)
          .where('entity', '=', scope.entity)
          .where('record_id', 'in', chunk)
          .executeTakeFirst()
      ).numDeletedRows,
  );
}

/** Clears the records noted as missed by the entity's last complete full walk. */
async function forgetMissed(db: Db, scope: RecordScope): Promise<void> {
  await db.deleteFrom('context_sync_missed').where('connector_id', '=', scope.connectorId).where('entity', '=', scope.entity).execute();
}

/** The live (not deleted) records of the entity. */
function liveRecordsOf(db: Db, scope: RecordScope) {
  return db
    .selectFrom('context_records')
    .where('organization_id', '=', scope.organizationId)
    .where('connector_id', '=', scope.connectorId)
    .where('entity', '=', scope.entity)
    .where('deleted_at', 'is', null);
}

/** Whether the entity has a live record. */
export async function hasLiveRecords(db: Db, scope: RecordScope): Promise<boolean> {
  const row = await liveRecordsOf(db, scope).select(sql`1`.as('one')).limit(1).executeTakeFirst();
  return row !== undefined;
}

/** Live (not deleted) records of the entity. */
export async function liveCount(db: Db, scope: RecordScope): Promise<number> {
  const row = await liveRecordsOf(db, scope)
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
