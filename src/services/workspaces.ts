import { sql, type Kysely, type Selectable, type Transaction } from 'kysely';
import { announceChange } from '../db/changes.js';
import type { Store } from '../db/database.js';
import type { ServiceContext } from '../service-context.js';
import type { DatabaseSchema, WorkspacesTable } from '../db/schema.js';
import { BadRequestError, ConflictError, ForbiddenError, ResourceNotFoundError } from '../errors.js';
import { DEFAULT_WORKSPACE } from './organizations.js';
import { openPayload, signPayload } from '../security/signed-payload.js';
import { dropDeletedConnectorIndexes } from './connector-indexes.js';
import { newResourceId } from './ids.js';
import { UUID_PATTERN } from '../uuid.js';
import type { WorkspaceDetail, WorkspaceRecord, WorkspaceStatus } from '../api-shapes.js';

export type WorkspaceRow = Selectable<WorkspacesTable>;
type Db = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

/**
 * The live workspace of this organization with this name, created (active) when it does not exist yet.
 * Inside a transaction the row is read FOR SHARE, so a concurrent DELETE of the workspace (which takes
 * it FOR UPDATE) waits for the caller's commit and then removes what the caller added, or the caller
 * waits for the delete and then creates a fresh workspace of that name.
 */
export async function ensureWorkspace(db: Db, organizationId: string, name: string): Promise<WorkspaceRow> {
  const live = () =>
    db.selectFrom('workspaces').selectAll().where('organization_id', '=', organizationId).where('name', '=', name).where('deleted_at', 'is', null).forShare();
  const existing = await live().executeTakeFirst();
  if (existing) return existing;
  await db
    .insertInto('workspaces')
    .values({ id: newResourceId(), organization_id: organizationId, name, status: 'active' })
    .onConflict((oc) => oc.columns(['organization_id', 'name']).where('deleted_at', 'is', null).doNothing())
    .execute();
  return live().executeTakeFirstOrThrow();
}

/** A live workspace of the caller's organization; another organization's id is simply not found. */
export async function findWorkspace(db: Db, organizationId: string, id: string): Promise<WorkspaceRow> {
  const row = await db
    .selectFrom('workspaces')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) throw new ResourceNotFoundError(`No workspace ${id}.`);
  return row;
}

/** Connectors of an inactive workspace cannot execute. */
export function assertWorkspaceActive(workspace: Pick<WorkspaceRow, 'id' | 'name' | 'status'>): void {
  if (workspace.status !== 'active') {
    throw new ForbiddenError(
      `Workspace "${workspace.name}" is inactive, so its connectors cannot execute. Set its status to active (PUT /api/v1/workspaces/${workspace.id}) to use them.`,
    );
  }
}

// ---------------------------------------------------------------------------------------------
// Administration: list (keyset pagination), stats, get, update, delete.

function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

export function toWorkspaceRecord(row: WorkspaceRow): WorkspaceRecord {
  return {
    id: row.id,
    name: row.name,
    organization_id: row.organization_id,
    status: row.status,
    cache_enabled: null,
    tombstone: row.deleted_at !== null,
    visibility: 'shared',
    color: null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
  };
}

/** Position of a row in the (created_at, id) order; created_at kept to the microsecond, as stored. */
interface CursorPosition {
  createdAt: string;
  id: string;
}

const CURSOR_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
const CURSOR_VERSION = 1;

/** An opaque cursor: base64url JSON of the position, then an HMAC bound to the organization, so it cannot be forged or moved. */
export function encodeCursor(key: Uint8Array, organizationId: string, position: CursorPosition): string {
  return signPayload(key, `workspaces:${organizationId}`, { v: CURSOR_VERSION, t: position.createdAt, i: position.id });
}

function invalidCursor(reason: string): BadRequestError {
  const message = `The cursor is not valid: ${reason}. Pass the cursor exactly as returned in "next" by the previous page, or omit it to start from the first page.`;
  return new BadRequestError(message, 'invalid_cursor', [{ field: 'cursor', rule: 'invalid_cursor', message }]);
}

/**
 * Reads a cursor. Accepts the bare token or the whole `next` URL of the previous page (its `cursor`
 * query value is used), so clients that pass `next` back as the cursor work too.
 */
export function decodeCursor(key: Uint8Array, organizationId: string, raw: string): CursorPosition {
  let token = raw.trim();
  if (/^(https?:\/\/|\/)/i.test(token)) {
    let fromUrl: string | null = null;
    try {
      fromUrl = new URL(token, 'http://switchyard.invalid').searchParams.get('cursor');
    } catch {
      fromUrl = null;
    }
    if (fromUrl === null) throw invalidCursor('the URL given as cursor has no cursor parameter');
    token = fromUrl;
  }
  const opened = openPayload(key, `workspaces:${organizationId}`, token);
  if ('problem' in opened) {
    throw invalidCursor(
      opened.problem === 'altered' ? 'it was altered, was issued for another organization, or has expired after a key rotation' : 'it is malformed',
    );
  }
  const decoded = opened.payload;
  const { v, t, i } = decoded;
  if (v !== CURSOR_VERSION || typeof t !== 'string' || !CURSOR_TIME.test(t) || typeof i !== 'string' || !UUID_PATTERN.test(i)) {
    throw invalidCursor('it is malformed');
  }
  return { createdAt: t, id: i };
}

export interface ListWorkspacesOptions {
  nameContains?: string;
  status?: WorkspaceStatus;
  limit: number;
  cursor?: string;
  /** keyring.derive('cursor'). */
  cursorKey: Uint8Array;
}

/**
 * Live workspaces of one organization in (created_at, id) order, `limit` at a time. The cursor is the
 * position of the last row returned, so rows created after a page was read land after it and rows
 * already listed are never repeated or skipped.
 */
export async function listWorkspaces(
  db: Db,
  organizationId: string,
  options: ListWorkspacesOptions,
): Promise<{ data: WorkspaceRecord[]; nextCursor: string | null }> {
  let query = db
    .selectFrom('workspaces')
    .selectAll()
    .select(sql<string>`to_char(created_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`.as('cursor_time'))
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null);
  if (options.nameContains !== undefined && options.nameContains !== '') {
    query = query.where(sql<boolean>`strpos(lower(name), lower(${options.nameContains})) > 0`);
  }
  if (options.status !== undefined) query = query.where('status', '=', options.status);
  if (options.cursor !== undefined) {
    const after = decodeCursor(options.cursorKey, organizationId, options.cursor);
    query = query.where(sql<boolean>`(created_at, id) > (${after.createdAt}::timestamptz, ${after.id}::uuid)`);
  }
  const rows = await query
    .orderBy('created_at', 'asc')
    .orderBy('id', 'asc')
    .limit(options.limit + 1)
    .execute();
  const page = rows.slice(0, options.limit);
  const last = page[page.length - 1];
  const nextCursor =
    rows.length > options.limit && last !== undefined ? encodeCursor(options.cursorKey, organizationId, { createdAt: last.cursor_time, id: last.id }) : null;
  return { data: page.map((row) => toWorkspaceRecord(row)), nextCursor };
}

export async function workspaceStats(db: Db, organizationId: string): Promise<{ active_count: number; inactive_count: number; total_count: number }> {
  const rows = await db
    .selectFrom('workspaces')
    .select(['status', sql<string>`count(*)`.as('n')])
    .where('organization_id', '=', organizationId)
    .where('deleted_at', 'is', null)
    .groupBy('status')
    .execute();
  const count = (status: WorkspaceStatus) => Number(rows.find((row) => row.status === status)?.n ?? 0);
  const active = count('active');
  const inactive = count('inactive');
  return { active_count: active, inactive_count: inactive, total_count: active + inactive };
}

async function connectorCount(db: Db, organizationId: string, workspaceId: string): Promise<number> {
  const row = await db
    .selectFrom('connectors')
    .select(sql<string>`count(*)`.as('n'))
    .where('organization_id', '=', organizationId)
    .where('workspace_id', '=', workspaceId)
    .executeTakeFirstOrThrow();
  return Number(row.n);
}

export async function getWorkspaceDetail(db: Db, organizationId: string, id: string): Promise<WorkspaceDetail> {
  const row = await findWorkspace(db, organizationId, id);
  return { ...toWorkspaceRecord(row), connector_count: await connectorCount(db, organizationId, id) };
}

/** The live workspace, locked FOR UPDATE for the rest of the transaction; 404 when absent or deleted. */
async function lockWorkspace(trx: Transaction<DatabaseSchema>, organizationId: string, id: string): Promise<WorkspaceRow> {
  const row = await trx
    .selectFrom('workspaces')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('id', '=', id)
    .where('deleted_at', 'is', null)
    .forUpdate()
    .executeTakeFirst();
  if (!row) throw new ResourceNotFoundError(`No workspace ${id}.`);
  return row;
}

function isUniqueViolation(error: unknown): boolean {
  return error !== null && typeof error === 'object' && (error as { code?: unknown }).code === '23505';
}

function nameTaken(name: string): ConflictError {
  return new ConflictError(`Another workspace of this organization is already named "${name}". Choose another name.`);
}

export interface WorkspaceChanges {
  name?: string;
  status?: WorkspaceStatus;
}

/**
 * Renames and/or changes the status of a live workspace. `default` keeps its name (it is where
 * connectors go by default, and every organization always has it); its status can change.
 */
export async function updateWorkspace(store: Store, organizationId: string, id: string, changes: WorkspaceChanges): Promise<WorkspaceDetail> {
  const { db } = store;
  // An update that changes nothing answers the current record, as Airbyte's API allows an empty body.
  if (changes.name === undefined && changes.status === undefined) return getWorkspaceDetail(db, organizationId, id);
  try {
    await db.transaction().execute(async (trx) => {
      const current = await lockWorkspace(trx, organizationId, id);
      const renamed = changes.name !== undefined && changes.name !== current.name;
      if (renamed && current.name === DEFAULT_WORKSPACE) {
        throw new BadRequestError(
          `The workspace "${DEFAULT_WORKSPACE}" cannot be renamed: every organization keeps a workspace named "${DEFAULT_WORKSPACE}".`,
          'default_workspace',
          [{ field: 'name', rule: 'default_workspace', message: `the "${DEFAULT_WORKSPACE}" workspace cannot be renamed` }],
        );
      }
      if (renamed) {
        const clash = await trx
          .selectFrom('workspaces')
          .select('id')
          .where('organization_id', '=', organizationId)
          .where('name', '=', changes.name as string)
          .where('deleted_at', 'is', null)
          .where('id', '!=', id)
          .executeTakeFirst();
        if (clash) throw nameTaken(changes.name as string);
      }
      const statusChanged = changes.status !== undefined && changes.status !== current.status;
      if (!renamed && !statusChanged) return;
      await trx
        .updateTable('workspaces')
        .set({
          ...(renamed && { name: changes.name as string }),
          ...(statusChanged && { status: changes.status as WorkspaceStatus }),
          updated_at: sql<Date>`now()`,
        })
        .where('id', '=', id)
        .execute();
      await announceChange(trx, { kind: 'workspace', id });
    });
  } catch (error) {
    // Two renames to the same name at once: the partial unique index decides.
    if (isUniqueViolation(error) && changes.name !== undefined) throw nameTaken(changes.name);
    throw error;
  }
  store.changes.emit({ kind: 'workspace', id });
  return getWorkspaceDetail(db, organizationId, id);
}

/**
 * Deletes a workspace in one transaction: its connectors' rows (and with them their encrypted
 * credentials) are removed, and the workspace is tombstoned (deleted_at set), which frees its name; their
 * semantic-search indexes are then dropped in the background. `default` cannot be deleted.
 */
export async function deleteWorkspace(
  ctx: Pick<ServiceContext, 'store' | 'vectors' | 'log'>,
  organizationId: string,
  id: string,
): Promise<{ id: string; deleted_at: string; connectors_deleted: number }> {
  const { store } = ctx;
  const deleted = await store.db.transaction().execute(async (trx) => {
    const current = await lockWorkspace(trx, organizationId, id);
    if (current.name === DEFAULT_WORKSPACE) {
      throw new BadRequestError(
        `The workspace "${DEFAULT_WORKSPACE}" cannot be deleted: every organization keeps a workspace named "${DEFAULT_WORKSPACE}". Delete its connectors one by one, or set its status to inactive.`,
        'default_workspace',
      );
    }
    const removed = await trx.deleteFrom('connectors').where('organization_id', '=', organizationId).where('workspace_id', '=', id).executeTakeFirst();
    const row = await trx
      .updateTable('workspaces')
      .set({ deleted_at: sql<Date>`now()`, updated_at: sql<Date>`now()` })
      .where('id', '=', id)
      .returning(['id', 'deleted_at'])
      .executeTakeFirstOrThrow();
    await announceChange(trx, { kind: 'workspace', id });
    return { id: row.id, deleted_at: iso(row.deleted_at as Date), connectors_deleted: Number(removed.numDeletedRows) };
  });
  store.changes.emit({ kind: 'workspace', id });
  if (deleted.connectors_deleted > 0) dropDeletedConnectorIndexes(ctx);
  return deleted;
}
