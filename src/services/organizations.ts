import { randomBytes, randomUUID } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';
import { BadRequestError, ForbiddenError, ResourceNotFoundError, UnauthorizedError } from '../errors.js';
import { generateClientSecret, hashSecret, verifySecret } from '../security/secrets.js';
import { newResourceId } from './ids.js';
import { UUID_PATTERN } from '../uuid.js';

export const DEFAULT_WORKSPACE = 'default';

/** Creates an organization with its `default` workspace. */
export async function createOrganization(db: Kysely<DatabaseSchema>, name: string): Promise<{ organization_id: string; name: string }> {
  const id = newResourceId();
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('organizations').values({ id, name }).execute();
    await trx.insertInto('workspaces').values({ id: newResourceId(), organization_id: id, name: DEFAULT_WORKSPACE, status: 'active' }).execute();
  });
  return { organization_id: id, name };
}

/** Creates an API client in one or more organizations; the secret is returned once and stored only as a hash. */
export async function createClient(
  db: Kysely<DatabaseSchema>,
  organizationIds: string[],
  name = 'api client',
): Promise<{ client_id: string; client_secret: string; organization_ids: string[] }> {
  const found = await db.selectFrom('organizations').select('id').where('id', 'in', organizationIds).execute();
  const missing = organizationIds.filter((id) => !found.some((row) => row.id === id));
  if (missing.length > 0) throw new ResourceNotFoundError(`No organization ${missing.join(', ')}.`);
  const clientId = randomUUID();
  const secret = generateClientSecret();
  const secretHash = await hashSecret(secret);
  await db.transaction().execute(async (trx) => {
    await trx.insertInto('api_clients').values({ id: clientId, name, secret_hash: secretHash }).execute();
    await trx
      .insertInto('api_client_organizations')
      .values(organizationIds.map((organization_id) => ({ client_id: clientId, organization_id })))
      .execute();
  });
  return { client_id: clientId, client_secret: secret, organization_ids: organizationIds };
}

let unknownClient: Promise<string> | undefined;

/** A hash no secret matches, checked against for a client_id that names no client. */
function unknownClientHash(): Promise<string> {
  unknownClient ??= hashSecret(randomBytes(32).toString('base64url'));
  return unknownClient;
}

/** Checks client credentials and picks the organization the token will be for. */
export async function authenticateClient(
  db: Kysely<DatabaseSchema>,
  clientId: string,
  clientSecret: string,
  requestedOrganization: string | undefined,
): Promise<string> {
  const refused = new UnauthorizedError('The client_id or client_secret is not valid.');
  if (!UUID_PATTERN.test(clientId)) throw refused;
  const client = await db.selectFrom('api_clients').select(['id', 'secret_hash']).where('id', '=', clientId).executeTakeFirst();
  // An unknown client_id costs the same hash as a known one: the time taken does not tell them apart.
  if (!client) {
    await verifySecret(clientSecret, await unknownClientHash());
    throw refused;
  }
  if (!(await verifySecret(clientSecret, client.secret_hash))) throw refused;
  const organizations = (await db.selectFrom('api_client_organizations').select('organization_id').where('client_id', '=', clientId).execute()).map(
    (row) => row.organization_id,
  );
  if (requestedOrganization !== undefined && requestedOrganization !== '') {
    const member = organizations.find((id) => id.toLowerCase() === requestedOrganization.toLowerCase());
    if (member === undefined) throw new ForbiddenError(`This client does not belong to organization ${requestedOrganization}.`);
    return member;
  }
  if (organizations.length === 1) return organizations[0] as string;
  if (organizations.length === 0) throw new ForbiddenError('This client belongs to no organization.');
  throw new BadRequestError(
    'This client belongs to several organizations: specify the organization with the X-Organization-Id header.',
    'organization_required',
    [{ field: 'X-Organization-Id', rule: 'required', message: 'X-Organization-Id is required for a client in several organizations' }],
  );
}

/**
 * Refuses a token whose client was revoked, or removed from the token's organization, since it was issued:
 * the token itself stays valid until it expires, but mints no other token (scoped or widget).
 */
export async function requireActiveClient(db: Kysely<DatabaseSchema>, clientId: string, organizationId: string): Promise<void> {
  const member = await db
    .selectFrom('api_client_organizations')
    .select('client_id')
    .where('client_id', '=', clientId)
    .where('organization_id', '=', organizationId)
    .executeTakeFirst();
  if (member === undefined) {
    throw new UnauthorizedError('The API client of this token was revoked or removed from its organization: it can mint no other token.');
  }
}

/** The ids among `organizationIds` that name no organization (ids that are not UUIDs included). */
export async function findMissingOrganizations(db: Kysely<DatabaseSchema>, organizationIds: string[]): Promise<string[]> {
  const wellFormed = organizationIds.filter((id) => UUID_PATTERN.test(id));
  const found = wellFormed.length === 0 ? [] : await db.selectFrom('organizations').select('id').where('id', 'in', wellFormed).execute();
  const existing = new Set(found.map((row) => row.id.toLowerCase()));
  return organizationIds.filter((id) => !existing.has(id.toLowerCase()));
}

export interface OrganizationView {
  organization_id: string;
  name: string;
  created_at: string;
}

export async function listOrganizations(db: Kysely<DatabaseSchema>): Promise<OrganizationView[]> {
  const rows = await db.selectFrom('organizations').select(['id', 'name', 'created_at']).orderBy('created_at').orderBy('id').execute();
  return rows.map((row) => ({ organization_id: row.id, name: row.name, created_at: new Date(row.created_at).toISOString() }));
}

export interface ClientView {
  client_id: string;
  name: string;
  organization_ids: string[];
  created_at: string;
}

/** API clients (never their secret or its hash), optionally only those of one organization. */
export async function listClients(db: Kysely<DatabaseSchema>, organizationId?: string): Promise<ClientView[]> {
  let query = db
    .selectFrom('api_clients')
    .innerJoin('api_client_organizations', 'api_client_organizations.client_id', 'api_clients.id')
    .select(['api_clients.id', 'api_clients.name', 'api_clients.created_at', 'api_client_organizations.organization_id']);
  if (organizationId !== undefined) {
    query = query.where('api_clients.id', 'in', db.selectFrom('api_client_organizations').select('client_id').where('organization_id', '=', organizationId));
  }
  const rows = await query.orderBy('api_clients.created_at').orderBy('api_clients.id').orderBy('api_client_organizations.organization_id').execute();
  const clients = new Map<string, ClientView>();
  for (const row of rows) {
    const found = clients.get(row.id) ?? { client_id: row.id, name: row.name, organization_ids: [], created_at: new Date(row.created_at).toISOString() };
    found.organization_ids.push(row.organization_id);
    clients.set(row.id, found);
  }
  return [...clients.values()];
}

/** Deletes an API client: its secret stops working at once, its tokens mint no other (they expire within TOKEN_TTL_SECONDS). */
export async function revokeClient(db: Kysely<DatabaseSchema>, clientId: string): Promise<void> {
  const deleted = UUID_PATTERN.test(clientId) ? await db.deleteFrom('api_clients').where('id', '=', clientId).executeTakeFirst() : undefined;
  if (deleted === undefined || Number(deleted.numDeletedRows) === 0) throw new ResourceNotFoundError(`No API client ${clientId}.`);
}
