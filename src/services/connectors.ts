/**
 * Connectors of the hosted service: create, list, get, update and delete, always scoped to the
 * caller's organization. Credentials are checked against the connector's auth options (the runtime's
 * selectAuthOption) and replication_config against its configuration fields (the runtime's
 * validateConfig) before anything is stored; credentials are stored only sealed (AES-256-GCM bound to
 * the connector id) and never leave this module in a response.
 */
import { randomUUID } from 'node:crypto';
import type { Kysely, Transaction } from 'kysely';
import { optionsForTitle, selectAuthOption } from '../../runtime/auth/select-option.js';
import { validateConfig } from '../../runtime/connector.js';
import { connectorModules, CredentialsError, ValidationError, type AuthOption, type ConnectorDefinition } from '../../runtime/index.js';
import { MAX_SYNC_INTERVAL_MINUTES } from '../context/sync/schedule.js';
import type { ServiceContext } from '../service-context.js';
import { announceChange } from '../db/changes.js';
import type { DatabaseSchema } from '../db/schema.js';
import { BadRequestError, InternalError } from '../errors.js';
import { findConnector, type ConnectorRow } from './connector-lookup.js';
import { definitionById, definitionByType, detailedSourceTemplate, knownConnectorTypes, summarizedSourceTemplate } from './catalog.js';
import {
  assertCheckSucceeded,
  refuseInternalConfiguredHost,
  checkResponse,
  checkRunId,
  runCheck,
  unsavedConnector,
  type CheckConfigResponse,
} from './connector-check.js';
import { openCredentials, sealCredentials } from './credentials.js';
import { dropDeletedConnectorIndexes } from './connector-indexes.js';
import { connectorInstance } from './execution.js';
import { assertWorkspaceActive, ensureWorkspace, findWorkspace } from './workspaces.js';
import { newResourceId } from './ids.js';
import type { ConnectorIdentity, ConnectorListItem, ConnectorView, CreateConnectorInput, UpdateConnectorInput } from '../api-shapes.js';

type Db = Kysely<DatabaseSchema> | Transaction<DatabaseSchema>;

/** Whether create and update make the manifest's check read first (the query parameter check, default true). */
export interface CheckChoice {
  check: boolean;
}

export interface ListConnectorsFilter {
  workspace_name?: string;
  workspace_id?: string;
  definition_id?: string;
}

type RowWithWorkspace = ConnectorRow & { workspace_name: string };

function iso(value: Date | string): string {
  return (value instanceof Date ? value : new Date(value)).toISOString();
}

function jsonObject(value: unknown): Record<string, unknown> {
  const parsed: unknown = typeof value === 'string' ? JSON.parse(value) : value;
  return parsed !== null && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, unknown>) : {};
}

function definitionOfRow(row: ConnectorRow): ConnectorDefinition {
  const definition = connectorModules[row.connector_type]?.definition;
  if (!definition) throw new InternalError(`Connector ${row.id} is of type "${row.connector_type}", which this deployment no longer offers.`);
  return definition;
}

function identity(row: RowWithWorkspace): ConnectorIdentity {
  return {
    workspace_id: row.workspace_id,
    workspace_name: row.workspace_name,
    connector_type: row.connector_type,
    definition_id: row.definition_id,
    auth_option: row.auth_option,
  };
}

function toView(row: RowWithWorkspace): ConnectorView {
  return {
    id: row.id,
    name: row.name,
    source_template: detailedSourceTemplate(definitionOfRow(row)),
    replication_config: jsonObject(row.replication_config),
    entities: null,
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...identity(row),
  };
}

function toListItem(row: RowWithWorkspace): ConnectorListItem {
  return {
    id: row.id,
    name: row.name,
    summarized_source_template: summarizedSourceTemplate(definitionOfRow(row)),
    created_at: iso(row.created_at),
    updated_at: iso(row.updated_at),
    ...identity(row),
  };
}

/**
 * The catalog definition named by definition_id or connector_type (the caller checked that exactly one
 * is given). A well-formed id or a type that is not in the catalog is a 400 on that field: the request
 * refers to something that does not exist, while the URL it was sent to does.
 */
export function resolveDefinition(input: { definition_id?: string | null; connector_type?: string | null }): ConnectorDefinition {
  if (input.definition_id != null) {
    const definition = definitionById(input.definition_id);
    if (!definition) {
      const message = `definition_id ${input.definition_id} is not a source definition of this service (GET /api/v1/integrations/definitions/sources lists them).`;
      throw new BadRequestError(message, 'unknown_definition', [{ field: 'definition_id', rule: 'unknown_definition', message }]);
    }
    return definition;
  }
  const type = input.connector_type ?? '';
  const definition = definitionByType(type);
  if (!definition) {
    const message = `connector_type "${type}" is not offered by this service. Known types: ${knownConnectorTypes().join(', ')}.`;
    throw new BadRequestError(message, 'unknown_connector_type', [{ field: 'connector_type', rule: 'unknown_connector_type', message }]);
  }
  return definition;
}

/** Airbyte's schema lets credentials be omitted (its OAuth flows fill them); every Switchyard connector needs them. */
function requireCredentials(definition: ConnectorDefinition, credentials: Record<string, unknown> | null | undefined): Record<string, unknown> {
  if (credentials != null) return credentials;
  const titles = definition.auth.map((option) => `"${option.optionTitle}" (${Object.keys(option.fields).join(', ')})`).join(' or ');
  const message = `${definition.displayName} needs credentials: send the fields of ${titles}.`;
  throw new CredentialsError(message, { issues: [{ field: 'credentials', rule: 'required', message }] });
}

/**
 * Picks and checks the credential option (option_title, else inferred from the keys given). Errors
 * name the keys provided and each option's required fields, never a value.
 */
export function checkCredentials(definition: ConnectorDefinition, input: Record<string, unknown>): { option: AuthOption; credentials: Record<string, string> } {
  try {
    return selectAuthOption(definition.auth, input);
  } catch (error) {
    if (!(error instanceof CredentialsError)) throw error;
    const title = input.option_title;
    const unsupported = title !== undefined && title !== null && (typeof title !== 'string' || optionsForTitle(definition.auth, title).length === 0);
    if (unsupported)
      throw new CredentialsError(error.message, { issues: [{ field: 'credentials.option_title', rule: 'unsupported_option', message: error.message }] });
    // A field's own problems name it (credentials.account_id, rule pattern); an option that cannot be told names the object.
    const issues = error.issues.length > 0 ? error.issues : [{ field: 'credentials', rule: 'invalid_credentials', message: error.message }];
    throw new CredentialsError(error.message, { issues });
  }
}

/**
 * replication_config checked with the runtime's configuration rules; returns the config values to store
 * (defaults applied). Problems name each setting under `at`, the field the caller sent it in.
 */
export function checkReplicationConfig(
  definition: ConnectorDefinition,
  replicationConfig: Record<string, unknown>,
  at: 'replication_config' | 'settings' = 'replication_config',
): Record<string, string> {
  const { [SYNC_INTERVAL_KEY]: syncInterval, ...connectorConfig } = replicationConfig;
  if (syncInterval !== undefined) checkSyncInterval(syncInterval);
  return validateConfig(definition, connectorConfig, at);
}

/** replication_config key of the context store sync interval (minutes; 0 = no automatic syncs), not a connector setting. */
const SYNC_INTERVAL_KEY = 'sync_interval_minutes';

function checkSyncInterval(value: unknown): void {
  const number = typeof value === 'number' ? value : typeof value === 'string' && /^\s*\d+\s*$/.test(value) ? Number(value) : Number.NaN;
  if (Number.isInteger(number) && number >= 0 && number <= MAX_SYNC_INTERVAL_MINUTES) return;
  const message = `replication_config.${SYNC_INTERVAL_KEY} must be an integer from 0 (no automatic syncs) to ${MAX_SYNC_INTERVAL_MINUTES} minutes`;
  throw new ValidationError(`Invalid connector configuration: ${message}.`, [
    { field: `replication_config.${SYNC_INTERVAL_KEY}`, rule: 'sync_interval', message, limit: { minimum: 0, maximum: MAX_SYNC_INTERVAL_MINUTES } },
  ]);
}

async function loadWithWorkspace(db: Db, organizationId: string, id: string): Promise<RowWithWorkspace> {
  const row = await findConnector(db, organizationId, id);
  const workspace = await db.selectFrom('workspaces').select('name').where('id', '=', row.workspace_id).executeTakeFirstOrThrow();
  return { ...row, workspace_name: workspace.name };
}

/**
 * Creates a connector. Everything is validated first; then, in one transaction, the workspace named
 * workspace_name is created when the organization has no live workspace of that name, and the
 * connector row is written with its sealed credentials. A failure leaves nothing behind.
 */
export async function createConnector(ctx: ServiceContext, organizationId: string, input: CreateConnectorInput, choice: CheckChoice): Promise<ConnectorView> {
  const definition = resolveDefinition(input);
  const given = checkCredentials(definition, requireCredentials(definition, input.credentials));
  const option = given.option;
  let credentials = given.credentials;
  const replicationConfig = input.replication_config ?? {};
  const config = checkReplicationConfig(definition, replicationConfig);
  if (choice.check) {
    const unsaved = unsavedConnector(ctx, definition, option, credentials, config);
    assertCheckSucceeded(await runCheck(unsaved.connector), option.optionTitle);
    credentials = unsaved.credentialsToStore();
  } else {
    refuseInternalConfiguredHost(unsavedConnector(ctx, definition, option, credentials, config).connector, option.optionTitle);
  }
  const id = newResourceId();
  const row = await ctx.store.db.transaction().execute(async (trx) => {
    const workspace = await ensureWorkspace(trx, organizationId, input.workspace_name);
    await trx
      .insertInto('connectors')
      .values({
        id,
        organization_id: organizationId,
        workspace_id: workspace.id,
        connector_type: definition.connectorType,
        definition_id: definition.definitionId,
        name: input.name ?? definition.displayName,
        auth_option: option.optionTitle,
        config: JSON.stringify(config),
        replication_config: JSON.stringify(replicationConfig),
        ...sealCredentials(ctx.keyring, id, credentials),
      })
      .execute();
    return loadWithWorkspace(trx, organizationId, id);
  });
  // Its first context store sync is queued now (where the service runs its due checks).
  ctx.syncs.connectorCreated(row.id);
  return toView(row);
}

/** Connectors of the organization in live workspaces, oldest first; filters combine with AND. */
export async function listConnectors(ctx: ServiceContext, organizationId: string, filter: ListConnectorsFilter): Promise<ConnectorListItem[]> {
  let query = ctx.store.db
    .selectFrom('connectors')
    .innerJoin('workspaces', 'workspaces.id', 'connectors.workspace_id')
    .selectAll('connectors')
    .select('workspaces.name as workspace_name')
    .where('connectors.organization_id', '=', organizationId)
    .where('workspaces.organization_id', '=', organizationId)
    .where('workspaces.deleted_at', 'is', null);
  if (filter.workspace_name !== undefined) query = query.where('workspaces.name', '=', filter.workspace_name);
  if (filter.workspace_id !== undefined) query = query.where('connectors.workspace_id', '=', filter.workspace_id.toLowerCase());
  if (filter.definition_id !== undefined) query = query.where('connectors.definition_id', '=', filter.definition_id.toLowerCase());
  const rows = await query.orderBy('connectors.created_at', 'asc').orderBy('connectors.id', 'asc').execute();
  return rows.map(toListItem);
}

export async function getConnector(ctx: ServiceContext, organizationId: string, id: string): Promise<ConnectorView> {
  return toView(await loadWithWorkspace(ctx.store.db, organizationId, id));
}

/**
 * Updates name, credentials and/or replication_config (null or absent = unchanged; nothing = the current
 * record). New credentials replace the stored ones entirely: they are re-checked against the auth
 * options (the option may change) and re-sealed. A new replication_config replaces the old one and is
 * re-checked. When credentials or config change, the connector check runs first unless choice.check is false,
 * and a sync of the whole connector is queued once they are stored.
 */
export async function updateConnector(
  ctx: ServiceContext,
  organizationId: string,
  id: string,
  input: UpdateConnectorInput,
  choice: CheckChoice,
): Promise<ConnectorView> {
  if (input.name == null && input.credentials == null && input.replication_config == null) return getConnector(ctx, organizationId, id);
  // Read and check outside the transaction: the connector check calls the vendor, which must not hold a lock.
  const current = await findConnector(ctx.store.db, organizationId, id);
  const definition = definitionOfRow(current);
  const changes: {
    name?: string;
    auth_option?: string;
    config?: string;
    replication_config?: string;
    credentials_key_id?: string;
    credentials_iv?: string;
    credentials_ciphertext?: string;
    credentials_tag?: string;
    updated_at: Date;
  } = { updated_at: new Date() };
  if (input.name != null) changes.name = input.name;
  let option = definition.auth.find((o) => o.optionTitle === current.auth_option);
  let credentials: Record<string, string> | undefined;
  if (input.credentials != null) {
    ({ option, credentials } = checkCredentials(definition, input.credentials));
  }
  let config = jsonObject(current.config) as Record<string, string>;
  if (input.replication_config != null) {
    config = checkReplicationConfig(definition, input.replication_config);
    changes.config = JSON.stringify(config);
    changes.replication_config = JSON.stringify(input.replication_config);
  }
  if (option !== undefined && (credentials !== undefined || input.replication_config != null)) {
    const unsaved = unsavedConnector(ctx, definition, option, credentials ?? openCredentials(ctx.keyring, current.id, current), config);
    if (choice.check) {
      assertCheckSucceeded(await runCheck(unsaved.connector), option.optionTitle);
      // Also when only the config changed: a refresh token the vendor rotated during the check must be kept.
      credentials = unsaved.credentialsToStore();
    } else {
      refuseInternalConfiguredHost(unsaved.connector, option.optionTitle);
    }
  }
  if (credentials !== undefined && option !== undefined)
    Object.assign(changes, { auth_option: option.optionTitle }, sealCredentials(ctx.keyring, current.id, credentials));
  const row = await ctx.store.db.transaction().execute(async (trx) => {
    const locked = await findConnector(trx, organizationId, id);
    await trx.updateTable('connectors').set(changes).where('id', '=', locked.id).where('organization_id', '=', organizationId).execute();
    await announceChange(trx, { kind: 'connector', id: locked.id });
    return loadWithWorkspace(trx, organizationId, locked.id);
  });
  ctx.store.changes.emit({ kind: 'connector', id: row.id });
  // New credentials or settings may reach what the last sync could not (TikTok's advertiser_ids, a
  // token with more scopes) or another account (Jira's subdomain): the store is brought up to date now.
  if (credentials !== undefined || (changes.config !== undefined && changes.config !== JSON.stringify(jsonObject(current.config)))) {
    ctx.syncs.connectorChanged(row.id);
  }
  return toView(row);
}

/* ----- connector check ----- */

export type CheckNewConnectorInput = Omit<CreateConnectorInput, 'name'>;

/** POST /connectors/check: the manifest's check read with credentials and config that are not stored (nothing is written). */
export async function checkNewConnector(ctx: ServiceContext, input: CheckNewConnectorInput): Promise<CheckConfigResponse> {
  const definition = resolveDefinition(input);
  const { option, credentials } = checkCredentials(definition, requireCredentials(definition, input.credentials));
  const config = checkReplicationConfig(definition, input.replication_config ?? {});
  const outcome = await runCheck(unsavedConnector(ctx, definition, option, credentials, config).connector);
  return checkResponse(checkRunId(), outcome, option.optionTitle);
}

/**
 * POST /connectors/{id}/check: the check read with the stored credentials, and the stored config or
 * the replication_config given (not stored). The stored config goes through the warm instance, so an
 * OAuth token it refreshes is kept as on execute.
 */
export async function checkStoredConnector(
  ctx: ServiceContext,
  organizationId: string,
  id: string,
  replicationConfig: Record<string, unknown> | undefined,
): Promise<CheckConfigResponse> {
  const row = await findConnector(ctx.store.db, organizationId, id);
  assertWorkspaceActive(await findWorkspace(ctx.store.db, organizationId, row.workspace_id));
  const definition = definitionOfRow(row);
  let connector = connectorInstance(ctx, row);
  if (replicationConfig !== undefined) {
    const option = definition.auth.find((o) => o.optionTitle === row.auth_option);
    if (!option) throw new InternalError(`Connector ${row.id} uses the credential option "${row.auth_option}", which its kind no longer offers.`);
    const config = checkReplicationConfig(definition, replicationConfig);
    connector = unsavedConnector(ctx, definition, option, openCredentials(ctx.keyring, row.id, row), config).connector;
  }
  return checkResponse(row.id, await runCheck(connector), row.auth_option);
}

/** Deletes the connector and, with its row, its sealed credentials. Synchronous; the job id only echoes the reference's 202 shape. */
export async function deleteConnector(ctx: ServiceContext, organizationId: string, id: string): Promise<{ job_id: string }> {
  await ctx.store.db.transaction().execute(async (trx) => {
    const current = await findConnector(trx, organizationId, id);
    await trx.deleteFrom('connectors').where('id', '=', current.id).where('organization_id', '=', organizationId).execute();
    await announceChange(trx, { kind: 'connector', id: current.id });
  });
  ctx.store.changes.emit({ kind: 'connector', id });
  dropDeletedConnectorIndexes(ctx);
  return { job_id: randomUUID() };
}
