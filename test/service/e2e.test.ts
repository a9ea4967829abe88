/**
 * End to end, once per connector kind: application token -> POST connector -> inspect -> execute list
 * (two pages, the second from next_params) -> execute get, with the vendor mocked by nock.
 * The reference kinds have hand-written cases asserting the exact vendor requests (CASES); every other
 * kind in connectorModules gets a case derived from its definition (derivedCase), so a new connector is
 * covered as soon as it is generated.
 */
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import {
  createConnector,
  connectorModules,
  type ActionDefinition,
  type AuthOption,
  type ConnectorDefinition,
  type JsonObject,
  type ParamDefinition,
} from '../../runtime/index.js';
import { buildBlock } from '../../runtime/pagination/next-params.js';
import { getPath, setPath } from '../../runtime/paths.js';
import { renderTemplate } from '../../runtime/templates.js';
import { createClient, createOrganization } from '../../src/services/organizations.js';
import { ApiClient, startTestService, storeKinds, type TestService } from '../support/service.js';

type Rec = Record<string, unknown>;

interface Page {
  /** Sets up the vendor's answer to the exact request for this page and returns its scope. */
  mock: () => nock.Scope;
  result: unknown[];
  connector_metadata: Rec;
}

interface E2eCase {
  create: { connector_type: string; credentials: Record<string, string>; replication_config?: Record<string, string> };
  /** Values that must never appear in a response. */
  secrets: string[];
  /** The vendor's auth endpoint (an OAuth refresh), asked once for the whole walk. */
  auth?: () => nock.Scope;
  list: { entity: string; action: string; params: Rec; first: Page; second: Page };
  /** The get step, or why the vendor offers no get for this kind (e.g. TikTok's API has none). */
  get: { entity: string; params: Rec; mock: () => nock.Scope; result: Rec } | { none: string };
  /** Further checks once the walk is done (derived cases: every vendor request carried the credentials). */
  check?: () => void;
}

function graphqlDocument(type: string, entity: string, action: string): string {
  const document = connectorModules[type]?.definition.entities[entity]?.actions[action]?.graphql?.document;
  if (document === undefined) throw new Error(`no GraphQL document for ${type} ${entity}.${action}`);
  return document;
}

/* ----- harvest: personal access token, next_url pagination ----- */

const HARVEST_API = 'https://api.harvestapp.com';
const HARVEST_TOKEN = 'harvest-e2e-pat-0003';
const harvestUsers = [
  { id: 3230547, first_name: 'Jim', last_name: 'Allen', email: 'jimallen@example.com', is_active: true },
  { id: 1782959, first_name: 'Kim', last_name: 'Allen', email: 'kimallen@example.com', is_active: true },
  { id: 1782884, first_name: 'Bob', last_name: 'Powell', email: 'bobpowell@example.com', is_active: false },
];
const harvestApi = () =>
  nock(HARVEST_API)
    .matchHeader('authorization', `Bearer ${HARVEST_TOKEN}`)
    .matchHeader('harvest-account-id', '987654')
    .matchHeader('user-agent', 'Switchyard (https://github.com/switchyard-dev/switchyard)');
const harvestNext = `${HARVEST_API}/v2/users?page=2&per_page=2&ref=next`;
const harvestPage = (records: Rec[], page: number, next: string | null) => ({
  users: records,
  per_page: 2,
  total_pages: 2,
  total_entries: 3,
  next_page: next ? 2 : null,
  previous_page: page === 2 ? 1 : null,
  page,
  links: { first: `${HARVEST_API}/v2/users?page=1&per_page=2`, next, previous: null, last: `${HARVEST_API}/v2/users?page=2&per_page=2` },
});

/* ----- jira: basic auth, tenant subdomain, offset pagination ----- */

const JIRA_API = 'https://acme.atlassian.net';
const JIRA_TOKEN = 'jira-e2e-api-token-0003';
const jiraProjects = [
  { id: '10000', key: 'ABC', name: 'Alphabet', projectTypeKey: 'software', style: 'classic', isPrivate: false },
  { id: '10001', key: 'OPS', name: 'Operations', projectTypeKey: 'business', style: 'next-gen', isPrivate: false },
  { id: '10002', key: 'WEB', name: 'Website', projectTypeKey: 'software', style: 'classic', isPrivate: true },
];
const jiraApi = () => nock(JIRA_API).matchHeader('authorization', `Basic ${Buffer.from(`ops@acme.example:${JIRA_TOKEN}`).toString('base64')}`);

/* ----- linear: API key, GraphQL page info ----- */

const LINEAR_API = 'https://api.linear.app';
const LINEAR_KEY = 'lin_api_e2e_secret_0003';
const linearIssues = [
  { id: 'a1b2c3d4-0000-4000-8000-000000000001', identifier: 'ENG-1', title: 'Login fails on Safari', priority: 2 },
  { id: 'a1b2c3d4-0000-4000-8000-000000000002', identifier: 'ENG-2', title: 'Slow dashboard', priority: 3 },
  { id: 'a1b2c3d4-0000-4000-8000-000000000003', identifier: 'ENG-3', title: 'Typo in footer', priority: 4 },
];
const linearGraphql = (action: string, variables: nock.DataMatcherMap) =>
  nock(LINEAR_API)
    .matchHeader('authorization', LINEAR_KEY)
    .matchHeader('content-type', /^application\/json/)
    .post('/graphql', { query: graphqlDocument('linear', 'issues', action), variables });

/* ----- pinterest: OAuth with a rotating refresh token, bookmark pagination ----- */

const PINTEREST_API = 'https://api.pinterest.com';
const PINTEREST_SECRET = 'pinterest-e2e-app-secret-0003';
const pinterestBoards = [
  { id: '549755885175', name: 'Summer recipes', description: 'Cold soups', privacy: 'PUBLIC', pin_count: 12 },
  { id: '549755885176', name: 'Garden', description: null, privacy: 'SECRET', pin_count: 3 },
  { id: '549755885177', name: 'Travel', description: 'Places', privacy: 'PUBLIC', pin_count: 40 },
];
const pinterestApi = () => nock(PINTEREST_API).matchHeader('authorization', 'Bearer pinterest-e2e-access-1');

/* ----- salesforce: OAuth refresh whose token response names the instance, next_records_url ----- */

const SF_INSTANCE = 'https://acme.my.salesforce.com';
const SF_SECRET = 'sf-e2e-client-secret-0007';
const SF_REFRESH = 'sf-e2e-refresh-0007';
const SF_ACCESS = 'sf-e2e-access-0007';
const sfAccounts = [
  { attributes: { type: 'Account', url: '/services/data/v62.0/sobjects/Account/001Dn00000AbCdEIAV' }, Id: '001Dn00000AbCdEIAV', Name: 'Edge Communications' },
  { attributes: { type: 'Account', url: '/services/data/v62.0/sobjects/Account/001Dn00000AbCdFIAV' }, Id: '001Dn00000AbCdFIAV', Name: 'Burlington Textiles' },
  { attributes: { type: 'Account', url: '/services/data/v62.0/sobjects/Account/001Dn00000AbCdGIAV' }, Id: '001Dn00000AbCdGIAV', Name: 'Pyramid Construction' },
];
const SF_NEXT = '/services/data/v62.0/query/01gDn00000XyZ12IAB-2000';
const SF_QUERY = 'SELECT Id, Name FROM Account ORDER BY Name';
const sfApi = () =>
  nock(SF_INSTANCE)
    .matchHeader('authorization', `Bearer ${SF_ACCESS}`)
    .matchHeader('sforce-query-options', (v) => v === undefined || v === 'batchSize=200');

/* ----- tiktok-marketing: Access-Token header, page_number over page_info; the one get is the authorizing user ----- */
const TIKTOK_USER = {
  core_user_id: '7011111111111111111',
  display_name: 'Acme Ads',
  email: 'ads@acme.example',
  avatar_url: 'https://p16.tiktokcdn.com/a.png',
  create_time: 1700000000,
};

const TIKTOK_API = 'https://business-api.tiktok.com';
const TIKTOK_TOKEN = 'tiktok-e2e-access-0009';
const tiktokCampaigns = [
  { campaign_id: '1800000000000000001', campaign_name: 'Spring launch', advertiser_id: '7012345678901234567', operation_status: 'ENABLE' },
  { campaign_id: '1800000000000000002', campaign_name: 'Summer promo', advertiser_id: '7012345678901234567', operation_status: 'ENABLE' },
  { campaign_id: '1800000000000000003', campaign_name: 'Autumn retarget', advertiser_id: '7012345678901234567', operation_status: 'DISABLE' },
];
const tiktokPage = (list: Rec[], page: number) => ({
  code: 0,
  message: 'OK',
  request_id: `20251103120000112233445566778899${page}`,
  data: { list, page_info: { page, page_size: 2, total_number: 3, total_page: 2 } },
});
const tiktokApi = () => nock(TIKTOK_API).matchHeader('access-token', TIKTOK_TOKEN);

const CASES: Record<string, E2eCase> = {
  salesforce: {
    create: { connector_type: 'salesforce', credentials: { client_id: '3MVG9e2e', client_secret: SF_SECRET, refresh_token: SF_REFRESH } },
    secrets: [SF_SECRET, SF_REFRESH, SF_ACCESS],
    auth: () =>
      nock('https://login.salesforce.com')
        .post('/services/oauth2/token', { grant_type: 'refresh_token', refresh_token: SF_REFRESH, client_id: '3MVG9e2e', client_secret: SF_SECRET })
        .reply(200, { access_token: SF_ACCESS, instance_url: SF_INSTANCE, token_type: 'Bearer', issued_at: '1731000000000' }),
    list: {
      entity: 'accounts',
      action: 'list',
      params: { q: SF_QUERY },
      first: {
        mock: () =>
          sfApi()
            .get('/services/data/v62.0/query')
            .query({ q: SF_QUERY })
            .reply(200, { totalSize: 3, done: false, nextRecordsUrl: SF_NEXT, records: sfAccounts.slice(0, 2) }),
        result: sfAccounts.slice(0, 2),
        connector_metadata: { done: false, nextRecordsUrl: SF_NEXT, next_params: { nextRecordsUrl: SF_NEXT } },
      },
      second: {
        mock: () =>
          sfApi()
            .get(SF_NEXT)
            .reply(200, { totalSize: 3, done: true, records: sfAccounts.slice(2) }),
        result: sfAccounts.slice(2),
        connector_metadata: { done: true, nextRecordsUrl: null },
      },
    },
    get: {
      entity: 'accounts',
      params: { id: '001Dn00000AbCdGIAV' },
      mock: () => sfApi().get('/services/data/v62.0/sobjects/Account/001Dn00000AbCdGIAV').reply(200, sfAccounts[2]),
      result: sfAccounts[2] as Rec,
    },
  },
  'tiktok-marketing': {
    create: { connector_type: 'tiktok-marketing', credentials: { access_token: TIKTOK_TOKEN } },
    secrets: [TIKTOK_TOKEN],
    list: {
      entity: 'campaigns',
      action: 'list',
      params: { advertiser_id: '7012345678901234567', page_size: 2 },
      first: {
        mock: () =>
          tiktokApi()
            .get('/open_api/v1.3/campaign/get/')
            .query({ advertiser_id: '7012345678901234567', page_size: '2' })
            .reply(200, tiktokPage(tiktokCampaigns.slice(0, 2), 1)),
        result: tiktokCampaigns.slice(0, 2),
        connector_metadata: { page_info: { page: 1, page_size: 2, total_number: 3, total_page: 2 }, next_params: { page: 2 } },
      },
      second: {
        mock: () =>
          tiktokApi()
            .get('/open_api/v1.3/campaign/get/')
            .query({ advertiser_id: '7012345678901234567', page_size: '2', page: '2' })
            .reply(200, tiktokPage(tiktokCampaigns.slice(2), 2)),
        result: tiktokCampaigns.slice(2),
        connector_metadata: { page_info: { page: 2, page_size: 2, total_number: 3, total_page: 2 } },
      },
    },
    // TikTok has no get-by-id endpoints (lists filter by ids); its one get is the authorizing user.
    get: {
      entity: 'user',
      params: {},
      mock: () =>
        tiktokApi()
          .get('/open_api/v1.3/user/info/')
          .reply(200, { code: 0, message: 'OK', request_id: '2025110312000011223344556677889900', data: TIKTOK_USER }),
      result: TIKTOK_USER,
    },
  },
  harvest: {
    create: { connector_type: 'harvest', credentials: { option_title: 'Personal Access Token', api_token: HARVEST_TOKEN, account_id: '987654' } },
    secrets: [HARVEST_TOKEN],
    list: {
      entity: 'users',
      action: 'list',
      params: { per_page: 2 },
      first: {
        mock: () =>
          harvestApi()
            .get('/v2/users')
            .query({ per_page: '2' })
            .reply(200, harvestPage(harvestUsers.slice(0, 2), 1, harvestNext)),
        result: harvestUsers.slice(0, 2),
        connector_metadata: { next_link: harvestNext, next_params: { page: 2, per_page: 2 } },
      },
      second: {
        mock: () =>
          harvestApi()
            .get('/v2/users')
            .query({ per_page: '2', page: '2' })
            .reply(200, harvestPage(harvestUsers.slice(2), 2, null)),
        result: harvestUsers.slice(2),
        connector_metadata: { next_link: null },
      },
    },
    get: {
      entity: 'users',
      params: { id: 1782884 },
      mock: () => harvestApi().get('/v2/users/1782884').reply(200, harvestUsers[2]),
      result: harvestUsers[2] as Rec,
    },
  },
  jira: {
    create: { connector_type: 'jira', credentials: { email: 'ops@acme.example', api_token: JIRA_TOKEN }, replication_config: { subdomain: 'acme' } },
    secrets: [JIRA_TOKEN],
    list: {
      entity: 'projects',
      action: 'list',
      params: { maxResults: 2 },
      first: {
        mock: () =>
          jiraApi()
            .get('/rest/api/3/project/search')
            .query({ maxResults: '2' })
            .reply(200, {
              self: `${JIRA_API}/rest/api/3/project/search`,
              maxResults: 2,
              startAt: 0,
              total: 3,
              isLast: false,
              values: jiraProjects.slice(0, 2),
            }),
        result: jiraProjects.slice(0, 2),
        connector_metadata: { nextPageToken: 2, isLast: false, total: 3, next_params: { startAt: 2 } },
      },
      second: {
        mock: () =>
          jiraApi()
            .get('/rest/api/3/project/search')
            .query({ maxResults: '2', startAt: '2' })
            .reply(200, { self: `${JIRA_API}/rest/api/3/project/search`, maxResults: 2, startAt: 2, total: 3, isLast: true, values: jiraProjects.slice(2) }),
        result: jiraProjects.slice(2),
        connector_metadata: { nextPageToken: null, isLast: true, total: 3 },
      },
    },
    get: {
      entity: 'projects',
      params: { projectIdOrKey: 'OPS' },
      mock: () => jiraApi().get('/rest/api/3/project/OPS').reply(200, jiraProjects[1]),
      result: jiraProjects[1] as Rec,
    },
  },
  linear: {
    create: { connector_type: 'linear', credentials: { api_key: LINEAR_KEY } },
    secrets: [LINEAR_KEY],
    list: {
      entity: 'issues',
      action: 'list',
      params: { first: 2 },
      first: {
        mock: () =>
          linearGraphql('list', { first: 2 }).reply(200, {
            data: { issues: { nodes: linearIssues.slice(0, 2), pageInfo: { hasNextPage: true, endCursor: 'cursor-2' } } },
          }),
        result: linearIssues.slice(0, 2),
        connector_metadata: { hasNextPage: true, endCursor: 'cursor-2', next_params: { after: 'cursor-2' } },
      },
      second: {
        mock: () =>
          linearGraphql('list', { first: 2, after: 'cursor-2' }).reply(200, {
            data: { issues: { nodes: linearIssues.slice(2), pageInfo: { hasNextPage: false, endCursor: 'cursor-3' } } },
          }),
        result: linearIssues.slice(2),
        connector_metadata: { hasNextPage: false, endCursor: 'cursor-3' },
      },
    },
    get: {
      entity: 'issues',
      params: { id: 'ENG-3' },
      mock: () => linearGraphql('get', { id: 'ENG-3' }).reply(200, { data: { issue: linearIssues[2] } }),
      result: linearIssues[2] as Rec,
    },
  },
  pinterest: {
    create: {
      connector_type: 'pinterest',
      credentials: { client_id: '1484362', client_secret: PINTEREST_SECRET, refresh_token: 'pinterest-e2e-refresh-1' },
    },
    secrets: [PINTEREST_SECRET, 'pinterest-e2e-refresh-1', 'pinterest-e2e-refresh-2', 'pinterest-e2e-access-1'],
    auth: () =>
      nock(PINTEREST_API)
        .matchHeader('authorization', `Basic ${Buffer.from(`1484362:${PINTEREST_SECRET}`).toString('base64')}`)
        .post('/v5/oauth/token', { grant_type: 'refresh_token', refresh_token: 'pinterest-e2e-refresh-1' })
        .reply(200, {
          access_token: 'pinterest-e2e-access-1',
          refresh_token: 'pinterest-e2e-refresh-2',
          token_type: 'bearer',
          expires_in: 2592000,
          scope: 'boards:read',
        }),
    list: {
      entity: 'boards',
      action: 'list',
      params: { page_size: 2 },
      first: {
        mock: () =>
          pinterestApi()
            .get('/v5/boards')
            .query({ page_size: '2' })
            .reply(200, { items: pinterestBoards.slice(0, 2), bookmark: 'Pz9Cb2FyZDI=' }),
        result: pinterestBoards.slice(0, 2),
        connector_metadata: { cursor: 'Pz9Cb2FyZDI=', next_params: { bookmark: 'Pz9Cb2FyZDI=' } },
      },
      second: {
        mock: () =>
          pinterestApi()
            .get('/v5/boards')
            .query({ page_size: '2', bookmark: 'Pz9Cb2FyZDI=' })
            .reply(200, { items: pinterestBoards.slice(2), bookmark: null }),
        result: pinterestBoards.slice(2),
        connector_metadata: { cursor: null },
      },
    },
    get: {
      entity: 'boards',
      params: { board_id: '549755885177' },
      mock: () => pinterestApi().get('/v5/boards/549755885177').reply(200, pinterestBoards[2]),
      result: pinterestBoards[2] as Rec,
    },
  },
};

/* ----- derived cases: any other kind, from its definition, against a stand-in vendor host ----- */

const MARKER = 'e2e-next-page-marker';

/** The vendor host a derived kind is pointed at (UPSTREAM_BASE_URLS), so no template of its base URL matters. */
const standInOrigin = (type: string) => `https://${type.replace(/[^a-z0-9-]/gi, '-')}.e2e-vendor.test`;

/** A value satisfying a JSON Schema where a simple one exists; the runtime's validator has the last word. */
function sampleValue(schema: JsonObject, name: string, unique: string): unknown {
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null);
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((t) => t !== 'null');
  const type = types[0];
  if (type === 'integer' || type === 'number') {
    const min = typeof schema.minimum === 'number' ? schema.minimum : 1;
    return Math.max(min, typeof schema.maximum === 'number' ? Math.min(2, schema.maximum) : 2);
  }
  if (type === 'boolean') return true;
  if (type === 'string' || type === undefined) {
    if (schema.format === 'date') return '2024-01-31';
    if (schema.format === 'date-time') return '2024-01-31T00:00:00Z';
    const candidates = [unique, `${name}-e2e`, '12345', 'E2E1', 'e2e', '2024-01-31', '2024-01-31T00:00:00Z', 'a@example.com'];
    const pattern = typeof schema.pattern === 'string' ? new RegExp(schema.pattern) : undefined;
    return candidates.find((c) => (pattern === undefined || pattern.test(c)) && (typeof schema.minLength !== 'number' || c.length >= schema.minLength));
  }
  return undefined;
}

function credentialsFor(option: AuthOption): { credentials: Record<string, string>; secrets: string[] } {
  const credentials: Record<string, string> = { option_title: option.optionTitle };
  const secrets: string[] = [];
  for (const [name, field] of Object.entries(option.fields)) {
    if (!field.required && !(option.type === 'oauth2_refresh' && name === 'refresh_token')) continue;
    const unique = `e2e-${name.replace(/_/g, '-')}-0005`;
    const value = sampleValue({ type: 'string', ...(field.pattern !== undefined && { pattern: field.pattern }) }, name, unique) ?? field.example;
    if (typeof value !== 'string') continue;
    credentials[name] = field.example !== undefined && !field.secret ? field.example : value;
    if (field.secret && credentials[name] === unique) secrets.push(unique);
  }
  return { credentials, secrets };
}

function configFor(definition: ConnectorDefinition): Record<string, string> {
  const config: Record<string, string> = {};
  for (const [name, field] of Object.entries(definition.config)) {
    if (!field.required || field.default !== undefined) continue;
    const value =
      field.example ?? field.enum?.[0] ?? sampleValue({ type: 'string', ...(field.pattern !== undefined && { pattern: field.pattern }) }, name, 'e2e');
    if (typeof value === 'string') config[name] = value;
  }
  return config;
}

/** Required params (and one of an at_least_one_of set), or undefined when they cannot be made up. */
function paramsFor(action: ActionDefinition): Rec | undefined {
  const params: Rec = {};
  const needed = Object.entries(action.params).filter(([name, p]) => p.required || action.atLeastOneOf?.[0] === name);
  for (const [name, param] of needed) {
    const value = sampleValue(param.schema, name, `e2e-${name}`);
    if (value === undefined) return undefined;
    params[name] = value;
  }
  return params;
}

function recordsFor(definition: ConnectorDefinition, entity: string, count: number): Rec[] {
  const record = definition.entities[entity]?.record;
  const idFields = [record?.idField ?? 'id'].flat();
  return Array.from({ length: count }, (_, i) => {
    const made: Rec = { name: `E2E record ${i + 1}` };
    for (const field of idFields) {
      const type = record?.fields[field.split('.')[0] as string]?.type;
      const integer = type === 'integer' || (Array.isArray(type) && type.includes('integer'));
      setPath(made, field, integer ? 7001 + i : `e2e-record-${i + 1}`);
    }
    return made;
  });
}

/** A value as the runtime writes it on the wire (a param's value_template). */
function onWire(param: ParamDefinition, value: unknown): string {
  return param.valueTemplate === undefined ? String(value) : param.valueTemplate.replace('{value}', String(value));
}

interface PagePlan {
  /** An object, or the records themselves for actions whose records are the whole body. */
  body: Rec | Rec[];
  headers: Record<string, string>;
}

/** The page-size param that makes two records a full page, where a short page ends the walk. */
function twoRecordPages(rule: { limit_param?: string; default_limit: number }): Rec {
  if (rule.limit_param === undefined) throw new Error(`a fixed page size of ${rule.default_limit} records: write a case in CASES`);
  return { [rule.limit_param]: 2 };
}

/** What page 1 (there is a next page) and page 2 (the last) answer for this pagination, and the next_params page 1 must give. */
function paginationPlan(
  action: ActionDefinition,
  params: Rec,
  origin: string,
  secondRecord: Rec,
): { first: (body: PagePlan['body']) => PagePlan; second: (body: PagePlan['body']) => PagePlan; nextParams: Rec; pageSize?: Rec; lastPageEmpty: boolean } {
  const def = action.pagination;
  if (!def) throw new Error('no pagination');
  const put = (plan: PagePlan, source: string | undefined, value: unknown) => {
    if (source === undefined) return;
    const [root, ...rest] = source.split('.');
    if (root === 'body') {
      if (Array.isArray(plan.body)) throw new Error(`pagination source ${source} in a body that is a list of records`);
      setPath(plan.body, rest.join('.'), value);
    } else if (root === 'headers' && value !== null) plan.headers[rest.join('.')] = String(value);
  };
  const plan = (body: PagePlan['body'], fill: (p: PagePlan) => void) => {
    const p: PagePlan = { body, headers: {} };
    fill(p);
    return p;
  };
  switch (def.style) {
    case 'next_url': {
      const entry =
        Object.entries(action.params).find(([name, p]) => p.in === 'query' && !p.required && /page|cursor|offset|start|after|token|next/i.test(name)) ??
        Object.entries(action.params).find(([, p]) => p.in === 'query' && !p.required);
      if (!entry) throw new Error('next_url pagination without a query param');
      const [name, param] = entry;
      const value = param.schema.type === 'integer' || param.schema.type === 'number' ? 2 : MARKER;
      const url = `${origin}/e2e-next?${param.wire}=${encodeURIComponent(onWire(param, value))}`;
      return {
        first: (b) => plan(b, (p) => put(p, def.next_url, url)),
        // An export that always sends a next URL ends on its short last page instead.
        second: (b) => plan(b, (p) => put(p, def.next_url, def.short_page_ends ? url : null)),
        nextParams: { [name]: value },
        ...(def.short_page_ends && { pageSize: twoRecordPages(def.short_page_ends) }),
        lastPageEmpty: false,
      };
    }
    case 'last_record': {
      const value = getPath(secondRecord, def.field);
      if (value === undefined) throw new Error(`last_record pagination on "${def.field}", which the generated records lack: write a hand-written case`);
      return {
        first: (b) => plan(b, () => undefined),
        second: (b) => plan(b, () => undefined),
        nextParams: { [def.cursor_param]: def.increment !== undefined && typeof value === 'number' ? value + def.increment : value },
        ...(def.short_page_ends && { pageSize: twoRecordPages(def.short_page_ends) }),
        lastPageEmpty: def.short_page_ends === undefined,
      };
    }
    case 'cursor':
    case 'bookmark':
      return {
        first: (b) => plan(b, (p) => (put(p, def.next_cursor, MARKER), put(p, def.has_more, true))),
        second: (b) => plan(b, (p) => (put(p, def.next_cursor, null), put(p, def.has_more, false))),
        nextParams: { [def.cursor_param]: MARKER },
        lastPageEmpty: false,
      };
    case 'next_page_token':
      return {
        first: (b) => plan(b, (p) => (put(p, def.next_token, MARKER), put(p, def.is_last, false))),
        second: (b) => plan(b, (p) => (put(p, def.next_token, null), put(p, def.is_last, true))),
        nextParams: { [def.token_param]: MARKER },
        lastPageEmpty: false,
      };
    case 'link_header': {
      const cursorParam = action.params[def.cursor_param];
      const wire = cursorParam?.wire ?? def.cursor_param;
      const attributes = Object.entries(def.require_attributes ?? {})
        .map(([k, v]) => `; ${k}="${v}"`)
        .join('');
      return {
        first: (b) =>
          plan(
            b,
            (p) =>
              (p.headers.link = `<${origin}/e2e-next?${wire}=${encodeURIComponent(cursorParam ? onWire(cursorParam, MARKER) : MARKER)}>; rel="${def.rel}"${attributes}`),
          ),
        second: (b) => plan(b, () => undefined),
        nextParams: { [def.cursor_param]: MARKER },
        lastPageEmpty: false,
      };
    }
    case 'page_number': {
      const current = Number(params[def.page_param] ?? def.first_page);
      return {
        first: (b) => plan(b, (p) => (put(p, def.page_count, current - def.first_page + 2), put(p, def.has_more, true), put(p, def.is_last, false))),
        second: (b) => plan(b, (p) => (put(p, def.page_count, current - def.first_page + 2), put(p, def.has_more, false), put(p, def.is_last, true))),
        nextParams: { [def.page_param]: current + 1 },
        // Without a page count, has_more or is_last, the runtime stops at the first empty page.
        lastPageEmpty: def.page_count === undefined && def.has_more === undefined && def.is_last === undefined,
      };
    }
    case 'offset':
      return {
        first: (b) => plan(b, (p) => put(p, def.total, 3)),
        second: (b) => plan(b, (p) => put(p, def.total, 3)),
        nextParams: { [def.offset_param]: Number(params[def.offset_param] ?? 0) + 2 },
        ...(def.total === undefined && { pageSize: { [def.limit_param]: 2 } }),
        lastPageEmpty: false,
      };
    case 'graphql_page_info':
      return {
        first: (b) => plan(b, (p) => put(p, def.page_info, { hasNextPage: true, endCursor: MARKER })),
        second: (b) => plan(b, (p) => put(p, def.page_info, { hasNextPage: false, endCursor: null })),
        nextParams: { [def.cursor_param]: MARKER },
        lastPageEmpty: false,
      };
    case 'next_records_url': {
      const url = `${origin}/e2e-next-records/${MARKER}`;
      return {
        first: (b) => plan(b, (p) => (put(p, def.next_url, url), put(p, def.done, false))),
        second: (b) => plan(b, (p) => (put(p, def.next_url, null), put(p, def.done, true))),
        nextParams: { [def.url_param]: url },
        lastPageEmpty: false,
      };
    }
  }
}

interface Seen {
  uri: string;
  headers: Record<string, unknown>;
  body: string;
}

/** A case for any connector kind, built from its definition (credentials, params, vendor answers). */
function derivedCase(type: string): E2eCase {
  const definition = connectorModules[type]?.definition;
  if (!definition) throw new Error(`no connector ${type}`);
  const origin = standInOrigin(type);
  const config = configFor(definition);
  const options = [...definition.auth].sort((x, y) => Number(x.type === 'oauth2_refresh') - Number(y.type === 'oauth2_refresh'));
  let chosen: { option: AuthOption; credentials: Record<string, string>; secrets: string[] } | undefined;
  for (const option of options) {
    const { credentials, secrets } = credentialsFor(option);
    try {
      createConnector(type, { credentials, config });
      chosen = { option, credentials, secrets };
      break;
    } catch {
      // try the next option
    }
  }
  if (!chosen) throw new Error(`${type}: no credential option could be filled in; write a case in CASES`);
  const { option, credentials, secrets } = chosen;
  const probe = createConnector(type, { credentials, config });
  const valid = (entity: string, action: string, params: Rec) => {
    try {
      probe.validate(entity, action, params);
      return true;
    } catch {
      return false;
    }
  };

  let list: { entity: string; action: ActionDefinition; params: Rec } | undefined;
  let get: { entity: string; action: ActionDefinition; params: Rec } | undefined;
  for (const [entityName, entity] of Object.entries(definition.entities)) {
    const many = [entity.actions.list, ...Object.values(entity.actions)].find(
      (a) => a?.result === 'many' && a.pagination !== undefined && a.guards.length === 0,
    );
    const params = many ? paramsFor(many) : undefined;
    if (!list && many && params && valid(entityName, many.name, params)) list = { entity: entityName, action: many, params };
    const one = entity.actions.get;
    const getParams = one ? paramsFor(one) : undefined;
    if (one && getParams && valid(entityName, 'get', getParams) && (!get || list?.entity === entityName))
      get = { entity: entityName, action: one, params: getParams };
  }
  if (!list || !get) throw new Error(`${type}: no paginated list and get whose params could be filled in; write a case in CASES`);

  const records = recordsFor(definition, list.entity, 3);
  const plan = paginationPlan(list.action, list.params, origin, records[1] as Rec);
  const listParams = { ...list.params, ...plan.pageSize };
  const recordsPath = list.action.recordsPath === undefined ? undefined : [list.action.recordsPath].flat()[0];
  const itemPath = list.action.recordItemPath;
  const envelope = (recordsOfPage: Rec[]): PagePlan['body'] => {
    const items =
      itemPath === undefined
        ? recordsOfPage
        : recordsOfPage.map((r) => {
            const item: Rec = {};
            setPath(item, itemPath, r);
            return item;
          });
    if (recordsPath === undefined) return items;
    const body: Rec = {};
    setPath(body, recordsPath, items);
    return body;
  };
  const lastRecords = plan.lastPageEmpty ? [] : records.slice(2);
  const firstPlan = plan.first(envelope(records.slice(0, 2)));
  const secondPlan = plan.second(envelope(lastRecords));
  const view = (p: PagePlan, next?: Rec) => ({ body: p.body, headers: new Headers(p.headers), ...(next && { next }) });

  const seen: Seen[] = [];
  const answer = (plan: PagePlan) =>
    function (this: { req: { headers: Record<string, unknown> } }, uri: string, body: unknown): [number, PagePlan['body'], Record<string, string>] {
      seen.push({ uri: decodeURIComponent(uri), headers: this.req.headers, body: typeof body === 'string' ? body : JSON.stringify(body) });
      return [200, plan.body, { 'content-type': 'application/json', ...plan.headers }];
    };
  const vendor = (method: string) => nock(origin).intercept(() => true, method);

  const getRecord = recordsFor(definition, get.entity, 1)[0] as Rec;
  const getBody: Rec = {};
  if (get.action.recordPath) setPath(getBody, get.action.recordPath, getRecord);
  const getPlan: PagePlan = { body: get.action.recordPath ? getBody : getRecord, headers: {} };

  let tokenScope: nock.Scope | undefined;
  const accessToken = 'e2e-access-token-0005';
  const auth =
    option.type === 'oauth2_refresh'
      ? () => {
          const url = new URL(renderTemplate(option.tokenUrl, { credentials, config, token: {} }));
          const kept = Object.fromEntries(option.keep.map((k) => [k, `e2e-${k}`]));
          tokenScope = nock(url.origin)
            .post(url.pathname + url.search, (body: Rec) => body.grant_type === 'refresh_token' && body.refresh_token === credentials.refresh_token)
            .reply(200, { access_token: accessToken, refresh_token: 'e2e-rotated-refresh-0005', expires_in: 3600, token_type: 'bearer', ...kept });
          return tokenScope;
        }
      : undefined;
  const basic =
    option.type === 'basic'
      ? Buffer.from(
          `${renderTemplate(option.username, { credentials, config, token: {} })}:${renderTemplate(option.password, { credentials, config, token: {} })}`,
        ).toString('base64')
      : undefined;
  const needles = [
    accessToken,
    ...(basic ? [basic] : []),
    ...Object.entries(option.fields)
      .filter(([, f]) => f.secret)
      .map(([n]) => credentials[n])
      .filter((v): v is string => Boolean(v)),
  ];

  return {
    create: { connector_type: type, credentials, ...(Object.keys(config).length > 0 && { replication_config: config }) },
    secrets: [...secrets, 'e2e-rotated-refresh-0005', accessToken],
    ...(auth && { auth }),
    list: {
      entity: list.entity,
      action: list.action.name,
      params: listParams,
      first: {
        mock: () => vendor(list.action.method).reply(answer(firstPlan)),
        result: records.slice(0, 2),
        connector_metadata: {
          ...buildBlock(list.action.pagination as NonNullable<ActionDefinition['pagination']>, view(firstPlan, plan.nextParams)),
          next_params: plan.nextParams,
        },
      },
      second: {
        mock: () => vendor(list.action.method).reply(answer(secondPlan)),
        result: lastRecords,
        connector_metadata: buildBlock(list.action.pagination as NonNullable<ActionDefinition['pagination']>, view(secondPlan)),
      },
    },
    get: { entity: get.entity, params: get.params, mock: () => vendor(get.action.method).reply(answer(getPlan)), result: getRecord },
    check: () => {
      expect(seen).toHaveLength(3);
      for (const request of seen) {
        const text = JSON.stringify(request.headers) + request.uri;
        expect(
          needles.some((n) => text.includes(n)),
          `${type}: a vendor request without the stored credentials: ${request.uri}`,
        ).toBe(true);
      }
      const second = seen[1] as Seen;
      for (const value of Object.values(plan.nextParams)) {
        expect(second.uri + second.body, `${type}: page 2 request does not carry next_params`).toContain(String(value).replace(origin, ''));
      }
    },
  };
}

const DERIVED = Object.keys(connectorModules).filter((type) => !(type in CASES));

describe.each(storeKinds())('end to end (%s)', (kind) => {
  let service: TestService;
  const bodies: string[] = [];

  beforeAll(async () => {
    nock.disableNetConnect();
    service = await startTestService(kind, { upstreamBaseUrls: Object.fromEntries(DERIVED.map((type) => [type, standInOrigin(type)])) });
  });
  afterEach(() => {
    nock.cleanAll();
  });
  afterAll(async () => {
    await service.close();
    nock.enableNetConnect();
  });

  it.each(Object.keys(connectorModules))('%s: token -> create connector -> inspect -> execute list (two pages) -> execute get', async (type) => {
    const c = CASES[type] ?? derivedCase(type);
    const { organization_id } = await createOrganization(service.store.db, `E2E ${type}`);
    const { client_id, client_secret } = await createClient(service.store.db, [organization_id]);
    const api = new ApiClient(service.url);
    const record = <R extends { body: unknown }>(response: R): R => {
      bodies.push(JSON.stringify(response.body));
      return response;
    };

    const token = record(await api.post<{ access_token: string; organization_id: string }>('/api/v1/account/applications/token', { client_id, client_secret }));
    expect(token.status).toBe(200);
    expect(token.body.organization_id).toBe(organization_id);
    api.token = token.body.access_token;

    const created = record(
      await api.post<{ id: string; connector_type: string }>('/api/v1/integrations/connectors?check=false', {
        workspace_name: 'default',
        name: `${type} e2e`,
        ...c.create,
      }),
    );
    expect(created.status).toBe(200);
    expect(created.body.connector_type).toBe(type);
    const id = created.body.id;

    const inspected = record(
      await api.get<{ connector_id: string; docs_skill_id: string; entities: Array<{ name: string; actions: Array<{ name: string }> }> }>(
        `/api/v1/integrations/connectors/${id}/inspect`,
      ),
    );
    expect(inspected.status).toBe(200);
    expect(inspected.body.connector_id).toBe(id);
    expect(inspected.body.docs_skill_id).toBe(`connector:${type}`);
    const listed = inspected.body.entities.find((e) => e.name === c.list.entity);
    expect(listed?.actions.map((a) => a.name)).toContain(c.list.action);
    if ('entity' in c.get) {
      const getEntity = c.get.entity;
      expect(inspected.body.entities.find((e) => e.name === getEntity)?.actions.map((a) => a.name)).toContain('get');
    } else {
      // A kind without a get must really have none, so the exemption cannot hide a forgotten case.
      expect(inspected.body.entities.flatMap((e) => e.actions.map((a) => a.name))).not.toContain('get');
    }

    const execute = (body: Rec) =>
      api.post<{ status: string; result: unknown; connector_metadata: Rec & { next_params?: Rec } }>(`/api/v1/integrations/connectors/${id}/execute`, body);
    const auth = c.auth?.();
    const first = c.list.first.mock();
    const page1 = record(await execute({ entity: c.list.entity, action: c.list.action, params: c.list.params }));
    expect(page1.status).toBe(200);
    expect(page1.body).toMatchObject({ status: 'success', result: c.list.first.result, execution_metadata: { connector_instance_id: id } });
    expect(page1.body.connector_metadata).toEqual(c.list.first.connector_metadata);
    expect(first.isDone()).toBe(true);

    const nextParams = page1.body.connector_metadata.next_params as Rec;
    const secondParams = { ...c.list.params, ...nextParams };
    const second = c.list.second.mock();
    const page2 = record(await execute({ entity: c.list.entity, action: c.list.action, params: secondParams }));
    expect(page2.status).toBe(200);
    expect(page2.body.result).toEqual(c.list.second.result);
    expect(page2.body.connector_metadata).toEqual(c.list.second.connector_metadata);
    expect(second.isDone()).toBe(true);

    if ('entity' in c.get) {
      const got = c.get.mock();
      const one = record(await execute({ entity: c.get.entity, action: 'get', params: c.get.params }));
      expect(one.status).toBe(200);
      expect(one.body).toMatchObject({ status: 'success', result: c.get.result, connector_metadata: {} });
      expect(got.isDone()).toBe(true);
    }
    if (auth) expect(auth.isDone()).toBe(true);
    c.check?.();

    for (const body of bodies) for (const secret of c.secrets) expect(body).not.toContain(secret);
  });
});
