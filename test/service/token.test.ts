import { SignJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createClient, createOrganization } from '../../src/services/organizations.js';
import { ApiClient, createTenant, startTestService, storeKinds, type TestService } from '../support/service.js';

const TOKEN = '/api/v1/account/applications/token';

describe.each(storeKinds())('application tokens (%s)', (kind) => {
  let service: TestService;
  let anonymous: ApiClient;
  beforeAll(async () => {
    service = await startTestService(kind);
    anonymous = new ApiClient(service.url);
  });
  afterAll(async () => service.close());

  it('exchanges client credentials for a bearer token of the client organization', async () => {
    const { organization_id } = await createOrganization(service.store.db, 'Solo');
    const { client_id, client_secret } = await createClient(service.store.db, [organization_id]);
    const response = await anonymous.post(TOKEN, { client_id, client_secret });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ access_token: expect.any(String), token_type: 'bearer', expires_in: 900, organization_id });
    const [header] = String(response.body.access_token).split('.');
    expect(JSON.parse(Buffer.from(header as string, 'base64url').toString())).toMatchObject({ alg: 'HS256' });
  });

  it('refuses a wrong secret or an unknown client with 401, in the error envelope', async () => {
    const tenant = await createTenant(service);
    const wrong = await anonymous.post(TOKEN, { client_id: tenant.clientId, client_secret: 'nope' });
    expect(wrong.status).toBe(401);
    expect(wrong.body).toEqual({
      message: 'The client_id or client_secret is not valid.',
      errors: [{ field: null, message: 'The client_id or client_secret is not valid.', error_code: 'unauthorized' }],
    });
    expect((await anonymous.post(TOKEN, { client_id: 'not-a-uuid', client_secret: 'x' })).status).toBe(401);
  });

  it('asks a client of several organizations to name one, and refuses one it does not belong to', async () => {
    const a = await createOrganization(service.store.db, 'A');
    const b = await createOrganization(service.store.db, 'B');
    const other = await createOrganization(service.store.db, 'C');
    const { client_id, client_secret } = await createClient(service.store.db, [a.organization_id, b.organization_id]);
    const ambiguous = await anonymous.post(TOKEN, { client_id, client_secret });
    expect(ambiguous.status).toBe(400);
    expect(ambiguous.body.message).toMatch(/specify the organization with the X-Organization-Id header/);
    const chosen = await anonymous.post(TOKEN, { client_id, client_secret }, { headers: { 'x-organization-id': b.organization_id } });
    expect(chosen.status).toBe(200);
    expect(chosen.body.organization_id).toBe(b.organization_id);
    const foreign = await anonymous.post(TOKEN, { client_id, client_secret }, { headers: { 'x-organization-id': other.organization_id } });
    expect(foreign.status).toBe(403);
    // Ids compare in any case; the token names the organization as stored.
    const upper = await anonymous.post(TOKEN, { client_id, client_secret }, { headers: { 'x-organization-id': b.organization_id.toUpperCase() } });
    expect(upper.status).toBe(200);
    expect(upper.body.organization_id).toBe(b.organization_id);
    const malformed = await anonymous.post(TOKEN, { client_id, client_secret }, { headers: { 'x-organization-id': 'not-a-uuid' } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors).toEqual([
      { field: 'X-Organization-Id', error_code: 'format', message: 'X-Organization-Id must be one organization id (a UUID)', details: { limit: 'uuid' } },
    ]);
    expect(JSON.stringify(malformed.body)).not.toContain('not-a-uuid');
  });

  it('answers a token with Cache-Control: no-store, and a 401 with WWW-Authenticate: Bearer', async () => {
    const { organization_id } = await createOrganization(service.store.db, 'Cache');
    const { client_id, client_secret } = await createClient(service.store.db, [organization_id]);
    const issued = await fetch(`${service.url}${TOKEN}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ client_id, client_secret }),
    });
    expect(issued.status).toBe(200);
    expect(issued.headers.get('cache-control')).toBe('no-store');
    expect(issued.headers.get('pragma')).toBe('no-cache');
    const missing = await fetch(`${service.url}/api/v1/workspaces`);
    expect(missing.status).toBe(401);
    expect(missing.headers.get('www-authenticate')).toBe('Bearer realm="switchyard"');
    const forged = await fetch(`${service.url}/api/v1/workspaces`, { headers: { authorization: 'Bearer a.b.c' } });
    expect(forged.headers.get('www-authenticate')).toBe('Bearer realm="switchyard", error="invalid_token"');
    // Another scheme sent no bearer token to find invalid: the challenge alone.
    const basic = await fetch(`${service.url}/api/v1/workspaces`, { headers: { authorization: 'Basic dXNlcjpwYXNz' } });
    expect(basic.headers.get('www-authenticate')).toBe('Bearer realm="switchyard"');
  });

  it('validates the token request body', async () => {
    const missing = await anonymous.post(TOKEN, { client_id: 'x' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors).toEqual([{ field: 'client_secret', message: 'body client_secret is required', error_code: 'required' }]);
    const extra = await anonymous.post(TOKEN, { client_id: 'x', client_secret: 'y', scope: 'all' });
    expect(extra.status).toBe(422);
    expect((extra.body.errors as Array<{ error_code: string }>)[0]?.error_code).toBe('unknown');
    const typed = await anonymous.post(TOKEN, { client_id: 1, client_secret: 'y' });
    expect(typed.status).toBe(422);
    const malformed = await anonymous.request('POST', TOKEN, { rawBody: '{"client_id":', headers: { 'content-type': 'application/json' } });
    expect(malformed.status).toBe(400);
    expect(malformed.body.errors).toEqual([{ field: null, message: 'The request body is not valid JSON.', error_code: 'malformed_json' }]);
  });

  it('rejects missing, forged, wrong-algorithm and expired tokens on other routes', async () => {
    const tenant = await createTenant(service);
    expect((await tenant.api.get('/api/v1/workspaces')).status).toBe(200);
    expect((await tenant.api.get('/api/v1/workspaces', { token: null })).status).toBe(401);
    const key = service.keyring.derive('token-signing');
    const claims = { org: tenant.organizationId };
    const base = () => new SignJWT(claims).setSubject(tenant.clientId).setIssuer('switchyard').setAudience('switchyard-api');
    const expired = await base().setProtectedHeader({ alg: 'HS256' }).setIssuedAt(1_000).setExpirationTime(2_000).sign(key);
    const expiredResponse = await tenant.api.get('/api/v1/workspaces', { token: expired });
    expect(expiredResponse.status).toBe(401);
    expect(expiredResponse.body.message).toMatch(/expired/);
    const otherKey = await base().setProtectedHeader({ alg: 'HS256' }).setExpirationTime('5m').sign(new Uint8Array(32));
    expect((await tenant.api.get('/api/v1/workspaces', { token: otherKey })).status).toBe(401);
    const hs512 = await base().setProtectedHeader({ alg: 'HS512' }).setExpirationTime('5m').sign(key);
    expect((await tenant.api.get('/api/v1/workspaces', { token: hs512 })).status).toBe(401);
    const unsigned = `${Buffer.from('{"alg":"none"}').toString('base64url')}.${Buffer.from(JSON.stringify({ ...claims, sub: tenant.clientId })).toString('base64url')}.`;
    expect((await tenant.api.get('/api/v1/workspaces', { token: unsigned })).status).toBe(401);
  });

  it('requires X-Organization-Id on later calls to match the token', async () => {
    const tenant = await createTenant(service);
    const other = await createOrganization(service.store.db, 'Other');
    expect((await tenant.api.get('/api/v1/workspaces', { headers: { 'x-organization-id': tenant.organizationId } })).status).toBe(200);
    expect((await tenant.api.get('/api/v1/workspaces', { headers: { 'x-organization-id': other.organization_id } })).status).toBe(403);
    expect((await tenant.api.get('/api/v1/workspaces', { headers: { 'x-organization-id': tenant.organizationId.toUpperCase() } })).status).toBe(200);
    const malformed = await tenant.api.get('/api/v1/workspaces', { headers: { 'x-organization-id': 'nope' } });
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors).toMatchObject([{ field: 'X-Organization-Id', error_code: 'format' }]);
  });

  it('answers unknown routes with 404 in the envelope', async () => {
    const tenant = await createTenant(service);
    const response = await tenant.api.get('/api/v1/nothing-here');
    expect(response.status).toBe(404);
    expect(response.body).toEqual({
      message: 'No route GET /api/v1/nothing-here.',
      errors: [{ field: null, message: 'No route GET /api/v1/nothing-here.', error_code: 'not_found' }],
    });
  });
});
