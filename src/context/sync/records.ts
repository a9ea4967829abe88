/**
 * Writing synchronized records: their ids and content hashes, the upsert of one page (only new,
 * changed or reappearing records are rewritten and reported), and the sweep that marks records a
 * complete sync no longer saw as deleted.
 */
import { createHash } from 'node:crypto';
import { sql, type Kysely } from 'kysely';
import type { RecordDefinition } from '../../../runtime/index.js';
import { getPath } from '../../../runtime/paths.js';
import type { DatabaseSchema } from '../../db/schema.js';
import type { SyncedRecord } from '../observers.js';

type Db = Kysely<DatabaseSchema>;

/** JSON with object keys sorted at every level: equal records give equal text whatever the vendor's key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((item) => (item === undefined ? 'null' : canonicalJson(item))).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(',')}}`;
}

/** sha256 (hex) of the record's canonical JSON. */
export function contentHash(record: unknown): string {
  return createHash('sha256').update(canonicalJson(record)).digest('hex');
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
    byId.set(recordId, { recordId, data, hash: contentHash(data) });
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

/** Rows per INSERT statement (6 params each, well below PostgreSQL's 65,535). */
const CHUNK = 1000;

/**
 * Upserts one page in one short transaction: new and changed (or undeleted) rows are written and
 * returned; unchanged rows only get last_synced_at, so the sweep at the end keeps them.
 */
export async function writePage(db: Db, scope: RecordScope, records: PreparedRecord[]): Promise<PageWrite> {
  if (records.length === 0) return { changed: [], unchanged: 0 };
  return db.transaction().execute(async (trx) => {
    const changedIds = new Set<string>();
    for (let start = 0; start < records.length; start += CHUNK) {
      const chunk = records.slice(start, start + CHUNK);
      const rows = await trx
        .insertInto('context_records')
        .values(
          chunk.map((record) => ({
            connector_id: scope.connectorId,
            organization_id: scope.organizationId,
            entity: scope.entity,
            record_id: record.recordId,
            data: JSON.stringify(record.data),
            content_hash: record.hash,
          })),
        )
        .onConflict((oc) =>
          oc
            .columns(['connector_id', 'entity', 'record_id'])
            .doUpdateSet({
              data: sql`excluded.data`,
              content_hash: sql`excluded.content_hash`,
              last_synced_at: sql`now()`,
              deleted_at: null,
            })
            .where((eb) =>
              eb.or([eb('context_records.content_hash', '<>', eb.ref('excluded.content_hash')), eb('context_records.deleted_at', 'is not', null)]),
            ),
        )
        .returning('record_id')
        .execute();
      for (const row of rows) changedIds.add(row.record_id);
    }
    const unchangedIds = records.filter((record) => !changedIds.has(record.recordId)).map((record) => record.recordId);
    for (let start = 0; start < unchangedIds.length; start += CHUNK) {
      await trx
        .updateTable('context_records')
        .set({ last_synced_at: sql`now()` })
        .where('connector_id', '=', scope.connectorId)
        .where('entity', '=', scope.entity)
        .where('record_id', 'in', unchangedIds.slice(start, start + CHUNK))
        .execute();
    }
    return {
      changed: records.filter((record) => changedIds.has(record.recordId)).map((record) => ({ recordId: record.recordId, data: record.data })),
      unchanged: unchangedIds.length,
    };
  });
}

/**
 * After an observer failed on a committed page: the records' hashes are cleared so the next sync sees
 * them as changed and reports them again (observers would otherwise never hear of them).
 */
export async function forgetHashes(db: Db, scope: RecordScope, recordIds: string[]): Promise<void> {
  for (let start = 0; start < recordIds.length; start += CHUNK) {
    await db
      .updateTable('context_records')
      .set({ content_hash: '' })
      .where('connector_id', '=', scope.connectorId)
      .where('entity', '=', scope.entity)
      .where('record_id', 'in', recordIds.slice(start, start + CHUNK))
      .execute();
  }
}

/** Marks deleted the live records of the entity that the sync begun at `syncStartedAt` did not see; returns how many. */
export async function sweepUnseen(db: Db, scope: RecordScope, syncStartedAt: Date): Promise<number> {
  const result = await db
    .updateTable('context_records')
    .set({ deleted_at: sql`now()` })
    .where('organization_id', '=', scope.organizationId)
    .where('connector_id', '=', scope.connectorId)
    .where('entity', '=', scope.entity)
    .where('deleted_at', 'is', null)
    .where('last_synced_at', '<', syncStartedAt)
    .executeTakeFirst();
  return Number(result.numUpdatedRows);
}

/** Live (not deleted) records of the entity. */
export async function liveCount(db: Db, scope: RecordScope): Promise<number> {
  const row = await db
    .selectFrom('context_records')
    .select((eb) => eb.fn.countAll<string>().as('count'))
    .where('organization_id', '=', scope.organizationId)
    .where('connector_id', '=', scope.connectorId)
    .where('entity', '=', scope.entity)
    .where('deleted_at', 'is', null)
    .executeTakeFirstOrThrow();
  return Number(row.count);
}
