/**
 * Bring-your-own OAuth app: an organization's own OAuth client (client_id, client_secret) per connector
 * type, used by the connect page's consent flow and stored with the connectors it creates. The reference's
 * PUT /api/v1/oauth/credentials and DELETE .../connector_type/{connector_type}. The configuration is
 * sealed like connector credentials (bound to the row id) and never returned.
 */
import { randomUUID } from 'node:crypto';
import type { AuthOption, ConnectorDefinition } from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import { BadRequestError, RequestValidationError } from '../errors.js';
import { definitionById, definitionByType, knownConnectorTypes } from './catalog.js';
import { openCredentials, sealCredentials } from './credentials.js';

export interface OAuthAppInput {
  connector_definition_id?: string | null;
  connector_type?: string | null;
  configuration: Record<string, unknown>;
}

/** The reference's OAuthCredentialsResponse: never the configuration. */
export interface OAuthAppView {
  id: string;
  scope_type: 'organization';
  scope_id: string;
  connector_type: 'source';
  connector_definition_id: string;
  created_at: string;
  updated_at: string;
}

/** An auth option whose manifest declares the vendor's consent flow (authorization_code). */
export type ConsentOption = AuthOption & { authorizationCode: NonNullable<AuthOption['authorizationCode']> };

/**
 * The options of a definition whose vendor offers the consent flow (manifest key authorization_code):
 * oauth2_refresh options, and options whose token is sent as is (one that does not expire, or one the end
 * user renews by connecting again, like Facebook's long-lived user token).
 */
export function consentOptions(definition: ConnectorDefinition): ConsentOption[] {
  return definition.auth.filter((option): option is ConsentOption => option.authorizationCode !== undefined);
}

const CONFIGURATION_KEYS = ['client_id', 'client_secret'] as const;

function unknownConnector(field: string, message: string): BadRequestError {
  return new BadRequestError(message, field === 'connector_type' ? 'unknown_connector_type' : 'unknown_definition', [
    { field, rule: field === 'connector_type' ? 'unknown_connector_type' : 'unknown_definition', message },
  ]);
}

/** Exactly one of connector_definition_id / connector_type (null = absent), naming a connector with a consent flow. */
function resolveOAuthDefinition(input: Pick<OAuthAppInput, 'connector_definition_id' | 'connector_type'>): ConnectorDefinition {
  const given = (['connector_definition_id', 'connector_type'] as const).filter((field) => input[field] != null);
  if (given.length !== 1) {
    const message =
      given.length === 0
        ? 'Send exactly one of connector_definition_id or connector_type: neither was given.'
        : 'Send exactly one of connector_definition_id or connector_type, not both.';
    throw new RequestValidationError(message, [
      { field: 'connector_definition_id', rule: 'exactly_one_of', message },
      { field: 'connector_type', rule: 'exactly_one_of', message },
    ]);
  }
  const definition = input.connector_definition_id != null ? definitionById(input.connector_definition_id) : definitionByType(input.connector_type ?? '');
  if (!definition) {
    throw input.connector_definition_id != null
      ? unknownConnector('connector_definition_id', `connector_definition_id ${input.connector_definition_id} is not a source definition of this service.`)
      : unknownConnector(
          'connector_type',
          `connector_type "${input.connector_type}" is not offered by this service. Known types: ${knownConnectorTypes().join(', ')}.`,
        );
  }
  if (consentOptions(definition).length === 0) {
    const withFlow = knownConnectorTypes().filter((type) => consentOptions(definitionByType(type) as ConnectorDefinition).length > 0);
    const message = `${definition.displayName} has no OAuth consent flow in this service, so it takes no OAuth app. Connector types with one: ${withFlow.join(', ')}.`;
    throw new BadRequestError(message, 'oauth_not_supported', [{ field: given[0] as string, rule: 'oauth_not_supported', message }]);
  }
  return definition;
}

/** client_id and client_secret, non-empty strings; nothing else (a key the flow would not use is a mistake to report). */
function checkConfiguration(configuration: Record<string, unknown>): Record<string, string> {
  const issues = [];
  for (const key of Object.keys(configuration)) {
    if (!(CONFIGURATION_KEYS as readonly string[]).includes(key)) {
      issues.push({
        field: `configuration.${key}`,
        rule: 'unknown',
        message: `configuration.${key} is not used: the configuration holds client_id and client_secret`,
      });
    }
  }
  const values: Record<string, string> = {};
  for (const key of CONFIGURATION_KEYS) {
    const value = configuration[key];
    if (typeof value !== 'string' || value.trim() === '') {
      issues.push({
        field: `configuration.${key}`,
        rule: 'required',
        message: `configuration.${key} is required: the ${key.replace('_', ' ')} of your OAuth app (a non-empty string)`,
      });
    } else if (value.length > 4096) {
      issues.push({ field: `configuration.${key}`, rule: 'max_length', message: `configuration.${key} must be at most 4096 characters`, limit: 4096 });
    } else if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value.trim())) {
      // Sent in the token request's Basic header or form body, which no control character survives.
      issues.push({ field: `configuration.${key}`, rule: 'control_character', message: `configuration.${key} contains a control character` });
    } else {
      values[key] = value.trim();
    }
  }
  if (issues.length > 0) throw new RequestValidationError(`Invalid OAuth app configuration: ${issues.map((i) => i.message).join('; ')}.`, issues);
  return values;
}

function toView(row: { id: string; organization_id: string; definition_id: string; created_at: Date | string; updated_at: Date | string }): OAuthAppView {
  return {
    id: row.id,
    scope_type: 'organization',
    scope_id: row.organization_id,
    connector_type: 'source',
    connector_definition_id: row.definition_id,
    created_at: new Date(row.created_at).toISOString(),
    updated_at: new Date(row.updated_at).toISOString(),
  };
}

/** Creates the organization's OAuth app for the connector type, or replaces its configuration (same id). */
export async function putOAuthApp(ctx: ServiceContext, organizationId: string, input: OAuthAppInput): Promise<OAuthAppView> {
  const definition = resolveOAuthDefinition(input);
  const configuration = checkConfiguration(input.configuration);
  const row = await ctx.store.db.transaction().execute(async (trx) => {
    const existing = await trx
      .selectFrom('oauth_apps')
      .select('id')
      .where('organization_id', '=', organizationId)
      .where('connector_type', '=', definition.connectorType)
      .where('deleted_at', 'is', null)
      .forUpdate()
      .executeTakeFirst();
    if (existing) {
      return trx
        .updateTable('oauth_apps')
        .set({ ...sealCredentials(ctx.keyring, existing.id, configuration), updated_at: new Date() })
        .where('id', '=', existing.id)
        .returningAll()
        .executeTakeFirstOrThrow();
    }
    const id = randomUUID();
    return trx
      .insertInto('oauth_apps')
      .values({
        id,
        organization_id: organizationId,
        connector_type: definition.connectorType,
        definition_id: definition.definitionId,
        ...sealCredentials(ctx.keyring, id, configuration),
      })
      .returningAll()
      .executeTakeFirstOrThrow();
  });
  return toView(row);
}

/** Soft-deletes the organization's OAuth app for the type; idempotent (nothing to delete is fine). */
export async function deleteOAuthApp(ctx: ServiceContext, organizationId: string, connectorType: string): Promise<void> {
  const definition = definitionByType(connectorType);
  if (!definition) {
    throw unknownConnector(
      'connector_type',
      `connector_type "${connectorType}" is not offered by this service. Known types: ${knownConnectorTypes().join(', ')}.`,
    );
  }
  await ctx.store.db
    .updateTable('oauth_apps')
    .set({ deleted_at: new Date() })
    .where('organization_id', '=', organizationId)
    .where('connector_type', '=', definition.connectorType)
    .where('deleted_at', 'is', null)
    .execute();
}

/** The organization's OAuth client for this connector type (opened), or undefined when none is configured. */
export async function findOAuthApp(
  ctx: ServiceContext,
  organizationId: string,
  connectorType: string,
): Promise<{ client_id: string; client_secret: string } | undefined> {
  const row = await ctx.store.db
    .selectFrom('oauth_apps')
    .selectAll()
    .where('organization_id', '=', organizationId)
    .where('connector_type', '=', connectorType)
    .where('deleted_at', 'is', null)
    .executeTakeFirst();
  if (!row) return undefined;
  const opened = openCredentials(ctx.keyring, row.id, row);
  return { client_id: opened.client_id ?? '', client_secret: opened.client_secret ?? '' };
}
