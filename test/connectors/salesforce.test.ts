import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import {
  AuthenticationError,
  createConnector,
  NotFoundError,
  type TokenRefresh,
  UnknownOperationError,
  UpstreamError,
  ValidationError,
} from '../../runtime/index.js';

// Salesforce REST API v62.0 on the org's instance host (the token response's instance_url), OAuth 2.0
// refresh token flow at login.salesforce.com / test.salesforce.com. Bodies follow the REST API
// Developer Guide examples (query, create, describe global) and the Reports REST API.

const INSTANCE = 'https://acme.my.salesforce.com';
const API = '/services/data/v62.0';
const LOGIN = 'https://login.salesforce.com';
const TOKEN_PATH = '/services/oauth2/token';

type Rec = Record<string, any>;

/** Credentials with a current access token and its instance URL: no token request needed. */
const CREDS = {
  client_id: '3MVG9lKcPoNINVBIPJjdw1J9LLM82HnFVVX19KY1uA5mu0',
  client_secret: 'sec-1955279925675241571',
  refresh_token: 'rtok-5Aep861',
  access_token: 'tok-00D',
  instance_url: INSTANCE,
};

const salesforce = (credentials: Record<string, string> = CREDS, config: Record<string, string> = {}) =>
  createConnector('salesforce', { credentials, config, http: { retries: 0 } });

/** A scope on the instance host that only matches requests carrying the bearer token. */
const api = (token = 'tok-00D', host = INSTANCE) => nock(host).matchHeader('authorization', `Bearer ${token}`);

const attrs = (type: string, id: string) => ({ type, url: `${API}/sobjects/${type}/${id}` });

/** One record per query-listed entity, as Salesforce returns it. */
const R = {
  accounts: {
    attributes: attrs('Account', '001D000000IqhSLIAZ'),
    Id: '001D000000IqhSLIAZ',
    Name: 'Express Logistics and Transport',
    AccountNumber: 'CC947211',
    Type: 'Customer - Channel',
    Industry: 'Transportation',
    Phone: '(503) 421-7800',
    Website: 'www.expressl&t.net',
    BillingCity: 'Portland',
    BillingCountry: 'USA',
    AnnualRevenue: 950000000,
    NumberOfEmployees: 12300,
    OwnerId: '005D0000001AzKrIAK',
    ParentId: null,
    CreatedDate: '2024-03-14T09:21:37.000+0000',
    LastModifiedDate: '2024-05-02T16:03:11.000+0000',
  },
  contacts: {
    attributes: attrs('Contact', '003D000000QV9n2IAD'),
    Id: '003D000000QV9n2IAD',
    Name: 'Rose Gonzalez',
    FirstName: 'Rose',
    LastName: 'Gonzalez',
    AccountId: '001D000000IqhSLIAZ',
    Title: 'SVP, Procurement',
    Email: 'rose@edge.com',
    Phone: '(512) 757-6000',
    MobilePhone: '(512) 757-9340',
    Department: 'Procurement',
    LeadSource: 'Trade Show',
    MailingStreet: '313 Constitution Place',
    MailingCity: 'Austin',
    MailingState: 'TX',
    MailingPostalCode: '78767',
    MailingCountry: 'USA',
    OwnerId: '005D0000001AzKrIAK',
    Description: null,
    CreatedDate: '2024-03-14T09:21:37.000+0000',
    LastModifiedDate: '2024-03-14T09:21:37.000+0000',
  },
  leads: {
    attributes: attrs('Lead', '00QD000000FZj0pMAD'),
    Id: '00QD000000FZj0pMAD',
    Name: 'Bertha Boxer',
    FirstName: 'Bertha',
    LastName: 'Boxer',
    Company: 'Farmers Coop. of Florida',
    Title: 'Director of Vendor Relations',
    Email: 'bertha@fcof.net',
    Phone: '(850) 644-4200',
    Status: 'Working - Contacted',
    LeadSource: 'Web',
    Industry: 'Agriculture',
    Rating: 'Hot',
    Street: '321 Westcott Building',
    City: 'Tallahassee',
    State: 'FL',
    PostalCode: '32306',
    Country: 'USA',
    IsConverted: false,
    ConvertedAccountId: null,
    ConvertedContactId: null,
    ConvertedOpportunityId: null,
    OwnerId: '005D0000001AzKrIAK',
    Description: null,
    CreatedDate: '2024-03-14T09:21:37.000+0000',
    LastModifiedDate: '2024-04-01T10:00:00.000+0000',
  },
  opportunities: {
    attributes: attrs('Opportunity', '006D000000CsaJoIAJ'),
    Id: '006D000000CsaJoIAJ',
    Name: 'Express Logistics Standby Generator',
    AccountId: '001D000000IqhSLIAZ',
    Amount: 220000,
    CloseDate: '2024-06-30',
    StageName: 'Closed Won',
    Probability: 100,
    Type: 'Existing Customer - Upgrade',
    LeadSource: 'Web',
    NextStep: null,
    ForecastCategoryName: 'Closed',
    IsClosed: true,
    IsWon: true,
    OwnerId: '005D0000001AzKrIAK',
    Description: null,
    CreatedDate: '2024-03-14T09:21:37.000+0000',
    LastModifiedDate: '2024-06-30T17:45:00.000+0000',
  },
  tasks: {
    attributes: attrs('Task', '00TD000000B2xLjMAJ'),
    Id: '00TD000000B2xLjMAJ',
    Subject: 'Call',
    Status: 'Completed',
    Priority: 'Normal',
    ActivityDate: '2024-04-02',
    WhoId: '003D000000QV9n2IAD',
    WhatId: '006D000000CsaJoIAJ',
    AccountId: '001D000000IqhSLIAZ',
    OwnerId: '005D0000001AzKrIAK',
    Type: 'Call',
    TaskSubtype: 'Call',
    IsClosed: true,
    Description: 'Discussed the renewal.',
    CreatedDate: '2024-04-02T15:00:00.000+0000',
    LastModifiedDate: '2024-04-02T15:20:00.000+0000',
  },
  events: {
    attributes: attrs('Event', '00UD0000006jLDeMAM'),
    Id: '00UD0000006jLDeMAM',
    Subject: 'Meeting',
    StartDateTime: '2024-04-10T14:00:00.000+0000',
    EndDateTime: '2024-04-10T15:00:00.000+0000',
    ActivityDate: '2024-04-10',
    IsAllDayEvent: false,
    DurationInMinutes: 60,
    Location: 'Portland office',
    ShowAs: 'Busy',
    WhoId: '003D000000QV9n2IAD',
    WhatId: '001D000000IqhSLIAZ',
    AccountId: '001D000000IqhSLIAZ',
    OwnerId: '005D0000001AzKrIAK',
    Type: 'Meeting',
    Description: null,
    CreatedDate: '2024-04-01T09:00:00.000+0000',
    LastModifiedDate: '2024-04-01T09:00:00.000+0000',
  },
  campaigns: {
    attributes: attrs('Campaign', '701D0000000dmWgIAI'),
    Id: '701D0000000dmWgIAI',
    Name: 'User Conference - Jun 17-19, 2024',
    Type: 'Conference',
    Status: 'Planned',
    StartDate: '2024-06-17',
    EndDate: '2024-06-19',
    IsActive: true,
    ParentId: null,
    BudgetedCost: 100000,
    ActualCost: 81000,
    ExpectedRevenue: 2500000,
    NumberOfLeads: 0,
    NumberOfContacts: 12,
    NumberOfOpportunities: 3,
    OwnerId: '005D0000001AzKrIAK',
    Description: null,
    CreatedDate: '2024-03-14T09:21:37.000+0000',
    LastModifiedDate: '2024-03-14T09:21:37.000+0000',
  },
  cases: {
    attributes: attrs('Case', '500D000000Ba5anIAB'),
    Id: '500D000000Ba5anIAB',
    CaseNumber: '00001001',
    Subject: 'Starting generator after electrical failure',
    Status: 'New',
    Priority: 'High',
    Origin: 'Phone',
    Type: 'Electrical',
    Reason: 'Performance',
    IsClosed: false,
    ClosedDate: null,
    AccountId: '001D000000IqhSLIAZ',
    ContactId: '003D000000QV9n2IAD',
    OwnerId: '005D0000001AzKrIAK',
    SuppliedEmail: null,
    SuppliedName: null,
    Description: 'The generator does not start.',
    CreatedDate: '2024-03-20T08:00:00.000+0000',
    LastModifiedDate: '2024-03-20T08:00:00.000+0000',
  },
  notes: {
    attributes: attrs('Note', '002D000000Iu0y9IAB'),
    Id: '002D000000Iu0y9IAB',
    Title: 'Renewal call',
    Body: 'Wants a three-year term.',
    ParentId: '001D000000IqhSLIAZ',
    OwnerId: '005D0000001AzKrIAK',
    IsPrivate: false,
    CreatedDate: '2024-04-02T15:30:00.000+0000',
    LastModifiedDate: '2024-04-02T15:30:00.000+0000',
  },
  content_versions: {
    attributes: attrs('ContentVersion', '068D00000004v3BIAQ'),
    Id: '068D00000004v3BIAQ',
    Title: 'Proposal',
    Description: null,
    PathOnClient: 'Proposal.pdf',
    FileType: 'PDF',
    FileExtension: 'pdf',
    ContentSize: 184320,
    VersionNumber: '1',
    ContentDocumentId: '069D00000001FHEIA2',
    IsLatest: true,
    OwnerId: '005D0000001AzKrIAK',
    CreatedDate: '2024-04-03T11:00:00.000+0000',
    LastModifiedDate: '2024-04-03T11:00:00.000+0000',
  },
  attachments: {
    attributes: attrs('Attachment', '00PD0000001HNCVMA4'),
    Id: '00PD0000001HNCVMA4',
    Name: 'contract.pdf',
    ParentId: '001D000000IqhSLIAZ',
    ContentType: 'application/pdf',
    BodyLength: 53219,
    IsPrivate: false,
    OwnerId: '005D0000001AzKrIAK',
    Description: null,
    CreatedDate: '2024-04-03T11:00:00.000+0000',
    LastModifiedDate: '2024-04-03T11:00:00.000+0000',
  },
  users: {
    attributes: attrs('User', '005D0000001AzKrIAK'),
    Id: '005D0000001AzKrIAK',
    Username: 'ana@acme.com',
    Name: 'Ana Lima',
    FirstName: 'Ana',
    LastName: 'Lima',
    Email: 'ana@acme.com',
    Alias: 'alima',
    Title: 'Account Executive',
    Department: 'Sales',
    CompanyName: 'Acme',
    IsActive: true,
    UserType: 'Standard',
    ProfileId: '00eD0000001OiRDIA0',
    UserRoleId: null,
    TimeZoneSidKey: 'America/Los_Angeles',
    LastLoginDate: '2024-05-02T16:00:00.000+0000',
    CreatedDate: '2024-01-10T09:00:00.000+0000',
    LastModifiedDate: '2024-05-02T16:00:00.000+0000',
  },
  opportunity_stages: {
    attributes: attrs('OpportunityStage', '01JD0000001ZW1YMAW'),
    Id: '01JD0000001ZW1YMAW',
    MasterLabel: 'Prospecting',
    IsActive: true,
    SortOrder: 1,
    IsClosed: false,
    IsWon: false,
    ForecastCategory: 'Pipeline',
    ForecastCategoryName: 'Pipeline',
    DefaultProbability: 10,
    Description: null,
    CreatedDate: '2024-01-10T09:00:00.000+0000',
    LastModifiedDate: '2024-01-10T09:00:00.000+0000',
  },
} satisfies Record<string, Rec>;
type Entity = keyof typeof R;

/** A SOQL query response: every record on one page. */
const done = (records: Rec[]) => ({ totalSize: records.length, done: true, records });

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  nock.cleanAll();
});

// [entity, sObject, the default query sent when q is omitted]
const LISTS: Array<[Exclude<Entity, 'accounts'>, string, string]> = [
  [
    'contacts',
    'Contact',
    'SELECT Id, Name, FirstName, LastName, AccountId, Title, Email, Phone, MobilePhone, Department, LeadSource, MailingStreet, MailingCity, MailingState, MailingPostalCode, MailingCountry, OwnerId, Description, CreatedDate, LastModifiedDate, SystemModstamp FROM Contact',
  ],
  [
    'leads',
    'Lead',
    'SELECT Id, Name, FirstName, LastName, Company, Title, Email, Phone, Status, LeadSource, Industry, Rating, Street, City, State, PostalCode, Country, IsConverted, ConvertedAccountId, ConvertedContactId, ConvertedOpportunityId, OwnerId, Description, LastActivityDate, CreatedDate, LastModifiedDate, SystemModstamp FROM Lead',
  ],
  [
    'opportunities',
    'Opportunity',
    'SELECT Id, Name, AccountId, Amount, CloseDate, StageName, Probability, Type, LeadSource, NextStep, ForecastCategoryName, IsClosed, IsWon, OwnerId, Description, ContactId, CreatedDate, LastModifiedDate, SystemModstamp FROM Opportunity',
  ],
  [
    'tasks',
    'Task',
    'SELECT Id, Subject, Status, Priority, ActivityDate, WhoId, WhatId, AccountId, OwnerId, Type, TaskSubtype, IsClosed, Description, CallDisposition, CreatedDate, LastModifiedDate, SystemModstamp FROM Task',
  ],
  [
    'events',
    'Event',
    'SELECT Id, Subject, StartDateTime, EndDateTime, ActivityDate, IsAllDayEvent, DurationInMinutes, Location, ShowAs, WhoId, WhatId, AccountId, OwnerId, Type, Description, CreatedDate, LastModifiedDate, SystemModstamp FROM Event',
  ],
  [
    'campaigns',
    'Campaign',
    'SELECT Id, Name, Type, Status, StartDate, EndDate, IsActive, ParentId, BudgetedCost, ActualCost, ExpectedRevenue, NumberOfLeads, NumberOfContacts, NumberOfOpportunities, OwnerId, Description, CreatedDate, LastModifiedDate, SystemModstamp FROM Campaign',
  ],
  [
    'cases',
    'Case',
    'SELECT Id, CaseNumber, Subject, Status, Priority, Origin, Type, Reason, IsClosed, ClosedDate, AccountId, ContactId, OwnerId, SuppliedEmail, SuppliedName, Description, CreatedDate, LastModifiedDate, SystemModstamp FROM Case',
  ],
  ['notes', 'Note', 'SELECT Id, Title, Body, ParentId, OwnerId, IsPrivate, CreatedDate, LastModifiedDate, SystemModstamp FROM Note'],
  [
    'content_versions',
    'ContentVersion',
    'SELECT Id, Title, Description, PathOnClient, FileType, FileExtension, ContentSize, VersionNumber, ContentDocumentId, IsLatest, OwnerId, CreatedDate, LastModifiedDate, SystemModstamp FROM ContentVersion',
  ],
  [
    'attachments',
    'Attachment',
    'SELECT Id, Name, ParentId, ContentType, BodyLength, IsPrivate, OwnerId, Description, CreatedDate, LastModifiedDate, SystemModstamp FROM Attachment',
  ],
  [
    'users',
    'User',
    'SELECT Id, Username, Name, FirstName, LastName, Email, Alias, Title, Department, CompanyName, IsActive, UserType, ProfileId, UserRoleId, TimeZoneSidKey, LastLoginDate, AccountId, ContactId, Division, EmployeeNumber, Street, City, State, PostalCode, Country, CreatedDate, LastModifiedDate, SystemModstamp FROM User',
  ],
  [
    'opportunity_stages',
    'OpportunityStage',
    'SELECT Id, MasterLabel, IsActive, SortOrder, IsClosed, IsWon, ForecastCategory, ForecastCategoryName, DefaultProbability, Description, CreatedDate, LastModifiedDate, SystemModstamp FROM OpportunityStage',
  ],
];

describe('salesforce SOQL lists (GET /query)', () => {
  it.each(LISTS)('%s list sends the default query FROM %s with batchSize=200', async (entity, _sobject, soql) => {
    const scope = api()
      .matchHeader('sforce-query-options', 'batchSize=200')
      .matchHeader('accept', 'application/json')
      .get(`${API}/query`)
      .query({ q: soql })
      .reply(200, done([R[entity]]));

    const res = await salesforce().execute(entity, 'list', {});

    expect(res.data).toEqual([R[entity]]);
    expect(res.pagination).toEqual({ done: true, nextRecordsUrl: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it.each(LISTS)("%s list sends the caller's q instead", async (entity, sobject) => {
    const q = `SELECT Id FROM ${sobject} WHERE CreatedDate = LAST_N_DAYS:7 LIMIT 10`;
    const scope = api()
      .matchHeader('sforce-query-options', 'batchSize=200')
      .get(`${API}/query`)
      .query({ q })
      .reply(200, done([{ attributes: R[entity].attributes, Id: R[entity].Id }]));

    const res = await salesforce().execute(entity, 'list', { q });

    expect(res.data).toEqual([{ attributes: R[entity].attributes, Id: R[entity].Id }]);
    expect(scope.isDone()).toBe(true);
  });

  it('accounts list runs the q given, with batchSize=200 unless told otherwise', async () => {
    const q = "SELECT Id, Name, Industry FROM Account WHERE Industry = 'Transportation' ORDER BY Name";
    const scope = api()
      .matchHeader('sforce-query-options', 'batchSize=200')
      .get(`${API}/query`)
      .query({ q })
      .reply(200, done([R.accounts]));

    const res = await salesforce().execute('accounts', 'list', { q });

    expect(res.data).toEqual([R.accounts]);
    expect(res.pagination).toEqual({ done: true, nextRecordsUrl: null });
    expect(res.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('accounts list requires q; batchSize must stay within 200..2000', async () => {
    const scope = nock(INSTANCE);
    const missing = await salesforce()
      .execute('accounts', 'list', {})
      .catch((e: unknown) => e);
    expect(missing).toBeInstanceOf(ValidationError);
    expect((missing as ValidationError).issues).toEqual([expect.objectContaining({ field: 'q', rule: 'required' })]);
    const small = await salesforce()
      .execute('accounts', 'list', { q: 'SELECT Id FROM Account', batchSize: 100 })
      .catch((e: unknown) => e);
    expect((small as ValidationError).issues).toEqual([expect.objectContaining({ field: 'batchSize', rule: 'minimum', limit: 200 })]);
    expect(scope.isDone()).toBe(true);
  });

  it('query list runs any SOQL query and sends the batchSize given', async () => {
    const q = 'SELECT Id, Name, StageName FROM Opportunity WHERE IsClosed = false LIMIT 50';
    const row = {
      attributes: attrs('Opportunity', '006D000000CsaJpIAJ'),
      Id: '006D000000CsaJpIAJ',
      Name: 'Edge Emergency Generator',
      StageName: 'Id. Decision Makers',
    };
    const scope = api()
      .matchHeader('sforce-query-options', 'batchSize=1000')
      .get(`${API}/query`)
      .query({ q })
      .reply(200, done([row]));

    const res = await salesforce().execute('query', 'list', { q, batchSize: 1000 });

    expect(res.data).toEqual([row]);
    expect(res.pagination).toEqual({ done: true, nextRecordsUrl: null });
    expect(scope.isDone()).toBe(true);
  });
});

describe('salesforce pagination (next_records_url: done / nextRecordsUrl)', () => {
  it('walks two pages of accounts by following nextRecordsUrl', async () => {
    const q = 'SELECT Id, Name FROM Account';
    const next = `${API}/query/01gD0000002HU6KIAW-200`;
    const a1 = { attributes: attrs('Account', '001D000000IRFmaIAH'), Id: '001D000000IRFmaIAH', Name: 'Test 1' };
    const a2 = { attributes: attrs('Account', '001D000000IomazIAB'), Id: '001D000000IomazIAB', Name: 'Test 2' };
    const first = api()
      .matchHeader('sforce-query-options', 'batchSize=200')
      .get(`${API}/query`)
      .query({ q })
      .reply(200, { totalSize: 201, done: false, nextRecordsUrl: next, records: [a1] });
    // Query More Results: a plain GET of the URL, without q or the query options header.
    const more = nock(INSTANCE, { badheaders: ['sforce-query-options'] })
      .matchHeader('authorization', 'Bearer tok-00D')
      .get(`${API}/query/01gD0000002HU6KIAW-200`)
      .reply(200, { totalSize: 201, done: true, records: [a2] });
    const conn = salesforce();

    const p1 = await conn.execute('accounts', 'list', { q });
    expect(p1.data).toEqual([a1]);
    expect(p1.pagination).toEqual({ done: false, nextRecordsUrl: next });
    expect(p1.next_params).toEqual({ nextRecordsUrl: next });

    const p2 = await conn.execute('accounts', 'list', { q, ...p1.next_params });
    expect(p2.data).toEqual([a2]);
    expect(p2.pagination).toEqual({ done: true, nextRecordsUrl: null });
    expect(p2.next_params).toBeUndefined();
    expect(first.isDone()).toBe(true);
    expect(more.isDone()).toBe(true);
  });

  it('walks two pages of a default-query list (contacts)', async () => {
    const next = `${API}/query/01gD0000002HU6KIAW-400`;
    const c2 = {
      ...R.contacts,
      attributes: attrs('Contact', '003D000000QV9n3IAD'),
      Id: '003D000000QV9n3IAD',
      Name: 'Sean Forbes',
      FirstName: 'Sean',
      LastName: 'Forbes',
      Email: 'sean@edge.com',
    };
    const scope = api()
      .get(`${API}/query`)
      .query({ q: LISTS[0]![2] })
      .reply(200, { totalSize: 2, done: false, nextRecordsUrl: next, records: [R.contacts] })
      .get(next)
      .reply(200, { totalSize: 2, done: true, records: [c2] });
    const conn = salesforce();

    const p1 = await conn.execute('contacts', 'list', {});
    expect(p1.next_params).toEqual({ nextRecordsUrl: next });
    const p2 = await conn.execute('contacts', 'list', { ...p1.next_params });
    expect(p2.data).toEqual([c2]);
    expect(p2.pagination).toEqual({ done: true, nextRecordsUrl: null });
    expect(p2.next_params).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a nextRecordsUrl that is not a Salesforce data path', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('query', 'list', { q: 'SELECT Id FROM Account', nextRecordsUrl: 'https://evil.example/steal' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'nextRecordsUrl', rule: 'pattern' })]);
    expect(scope.isDone()).toBe(true);
  });
});

// [entity, sObject] read by ID through sObject Rows
const GETS: Array<[Entity, string]> = [['accounts', 'Account'], ...LISTS.map(([entity, sobject]) => [entity, sobject] as [Entity, string])];

describe('salesforce get (GET /sobjects/{sObject}/{id})', () => {
  it.each(GETS)('%s get -> GET /sobjects/%s/{id}', async (entity, sobject) => {
    const record: Rec = R[entity];
    const scope = api().get(`${API}/sobjects/${sobject}/${record.Id}`).reply(200, record);

    const res = await salesforce().execute(entity, 'get', { id: record.Id });

    expect(res.data).toEqual(record);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('accounts get sends fields (comma-separated)', async () => {
    const body = { attributes: R.accounts.attributes, Id: R.accounts.Id, Name: R.accounts.Name, Industry: R.accounts.Industry };
    const scope = api().get(`${API}/sobjects/Account/001D000000IqhSLIAZ`).query({ fields: 'Name,Industry' }).reply(200, body);

    const res = await salesforce().execute('accounts', 'get', { id: '001D000000IqhSLIAZ', fields: 'Name,Industry' });

    expect(res.data).toEqual(body);
    expect(scope.isDone()).toBe(true);
  });

  it('wants an 18-character id', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('accounts', 'get', { id: '001D000000IqhSL' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'id', rule: 'pattern' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('maps Salesforce NOT_FOUND to NotFoundError', async () => {
    const scope = api()
      .get(`${API}/sobjects/Account/001D000000IqhSLIAA`)
      .reply(404, [{ errorCode: 'NOT_FOUND', message: 'The requested resource does not exist' }]);
    const err = await salesforce()
      .execute('accounts', 'get', { id: '001D000000IqhSLIAA' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(NotFoundError);
    expect((err as NotFoundError).upstreamStatus).toBe(404);
    expect(scope.isDone()).toBe(true);
  });
});

describe('salesforce accounts create / update / delete', () => {
  it('create posts the fields and returns {id, success, errors}', async () => {
    const body = {
      Name: 'Express Logistics and Transport',
      AccountNumber: 'CC947211',
      Type: 'Customer - Channel',
      Industry: 'Transportation',
      Phone: '(503) 421-7800',
      Website: 'www.expressl&t.net',
      BillingStreet: '620 SW 5th Avenue Suite 400',
      BillingCity: 'Portland',
      BillingState: 'Oregon',
      BillingPostalCode: '97204',
      BillingCountry: 'USA',
      AnnualRevenue: 950000000,
      NumberOfEmployees: 12300,
      Description: 'Commercial logistics and transportation.',
      OwnerId: '005D0000001AzKrIAK',
      ParentId: '001D000000IRFmaIAH',
    };
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post(`${API}/sobjects/Account`, body)
      .reply(201, { id: '001D000000IqhSLIAZ', errors: [], success: true });

    const res = await salesforce().execute('accounts', 'create', body);

    expect(res.data).toEqual({ id: '001D000000IqhSLIAZ', errors: [], success: true });
    expect(scope.isDone()).toBe(true);
  });

  it('create needs Name and refuses unknown fields', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('accounts', 'create', { Industry: 'Energy', Rating__c: 'Hot' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['Name', 'required'],
      ['Rating__c', 'unknown'],
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it('update patches only the fields given and returns {} for the 204', async () => {
    const scope = api().patch(`${API}/sobjects/Account/001D000000IqhSLIAZ`, { Phone: '(503) 421-7801', NumberOfEmployees: 12500 }).reply(204);

    const res = await salesforce().execute('accounts', 'update', { id: '001D000000IqhSLIAZ', Phone: '(503) 421-7801', NumberOfEmployees: 12500 });

    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it('update refuses a call that changes nothing', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('accounts', 'update', { id: '001D000000IqhSLIAZ' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('delete sends DELETE and returns {} for the 204', async () => {
    const scope = api().delete(`${API}/sobjects/Account/001D000000IqhSLIAZ`).reply(204);

    const res = await salesforce().execute('accounts', 'delete', { id: '001D000000IqhSLIAZ' });

    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });
});

describe('salesforce sobjects (generic CRUD by sobjectType)', () => {
  it('list describes the available objects (GET /sobjects)', async () => {
    const account = {
      activateable: false,
      createable: true,
      custom: false,
      customSetting: false,
      deletable: true,
      deprecatedAndHidden: false,
      feedEnabled: true,
      keyPrefix: '001',
      label: 'Account',
      labelPlural: 'Accounts',
      layoutable: true,
      mergeable: true,
      mruEnabled: true,
      name: 'Account',
      queryable: true,
      replicateable: true,
      retrieveable: true,
      searchable: true,
      triggerable: true,
      undeletable: true,
      updateable: true,
      urls: { sobject: `${API}/sobjects/Account`, describe: `${API}/sobjects/Account/describe`, rowTemplate: `${API}/sobjects/Account/{ID}` },
    };
    const invoice = {
      ...account,
      custom: true,
      feedEnabled: false,
      keyPrefix: 'a00',
      label: 'Invoice',
      labelPlural: 'Invoices',
      mergeable: false,
      name: 'Invoice__c',
      urls: { sobject: `${API}/sobjects/Invoice__c`, describe: `${API}/sobjects/Invoice__c/describe`, rowTemplate: `${API}/sobjects/Invoice__c/{ID}` },
    };
    const scope = api()
      .get(`${API}/sobjects`)
      .reply(200, { encoding: 'UTF-8', maxBatchSize: 200, sobjects: [account, invoice] });

    const res = await salesforce().execute('sobjects', 'list', {});

    expect(res.data).toEqual([account, invoice]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('create posts free-form field values to /sobjects/{sobjectType}', async () => {
    const scope = api()
      .post(`${API}/sobjects/Lead`, { FirstName: 'Test', LastName: 'API', Company: 'Acme' })
      .reply(201, { id: '00QD000000FZj0qMAD', errors: [], success: true });

    const res = await salesforce().execute('sobjects', 'create', { sobjectType: 'Lead', FirstName: 'Test', LastName: 'API', Company: 'Acme' });

    expect(res.data).toEqual({ id: '00QD000000FZj0qMAD', errors: [], success: true });
    expect(scope.isDone()).toBe(true);
  });

  it('get reads a record of a custom object with fields', async () => {
    const record = { attributes: attrs('Invoice__c', 'a00D0000008pQSNIA2'), Id: 'a00D0000008pQSNIA2', Name: 'INV-0001', Amount__c: 1250.5 };
    const scope = api().get(`${API}/sobjects/Invoice__c/a00D0000008pQSNIA2`).query({ fields: 'Name,Amount__c' }).reply(200, record);

    const res = await salesforce().execute('sobjects', 'get', { sobjectType: 'Invoice__c', id: 'a00D0000008pQSNIA2', fields: 'Name,Amount__c' });

    expect(res.data).toEqual(record);
    expect(scope.isDone()).toBe(true);
  });

  it('update patches the changed fields only and returns {}', async () => {
    const scope = api().patch(`${API}/sobjects/Contact/003D000000QV9n2IAD`, { Title: 'CFO', Email: null }).reply(204);

    const res = await salesforce().execute('sobjects', 'update', { sobjectType: 'Contact', id: '003D000000QV9n2IAD', Title: 'CFO', Email: null });

    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it('delete sends DELETE /sobjects/{sobjectType}/{id} and returns {}', async () => {
    const scope = api().delete(`${API}/sobjects/Case/500D000000Ba5anIAB`).reply(204);

    const res = await salesforce().execute('sobjects', 'delete', { sobjectType: 'Case', id: '500D000000Ba5anIAB' });

    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it('refuses an sobjectType that is not an API name (no path tricks)', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('sobjects', 'get', { sobjectType: '../limits', id: '001D000000IqhSLIAZ' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'sobjectType', rule: 'pattern' })]);
    expect(scope.isDone()).toBe(true);
  });
});

describe('salesforce reports (Reports and Dashboards REST API)', () => {
  const reportId = '00OD0000001ZbP7MAK';
  const listed = {
    name: 'Deals Closing This Quarter',
    id: reportId,
    url: `${API}/analytics/reports/${reportId}`,
    describeUrl: `${API}/analytics/reports/${reportId}/describe`,
    instancesUrl: `${API}/analytics/reports/${reportId}/instances`,
  };

  it('list gives the recently viewed reports (a bare array)', async () => {
    const scope = api().get(`${API}/analytics/reports`).reply(200, [listed]);

    const res = await salesforce().execute('reports', 'list', {});

    expect(res.data).toEqual([listed]);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('get returns the reportMetadata of the describe resource', async () => {
    const reportMetadata = {
      aggregates: ['s!AMOUNT', 'RowCount'],
      currency: null,
      description: 'Opportunities closing this fiscal quarter.',
      detailColumns: ['OPPORTUNITY_NAME', 'CLOSE_DATE', 'AMOUNT'],
      developerName: 'Deals_Closing_This_Quarter',
      division: null,
      folderId: '00lD0000001b8bCIAQ',
      groupingsAcross: [],
      groupingsDown: [{ dateGranularity: 'None', name: 'STAGE_NAME', sortAggregate: null, sortOrder: 'Asc' }],
      hasDetailRows: true,
      hasRecordCount: true,
      historicalSnapshotDates: [],
      id: reportId,
      name: 'Deals Closing This Quarter',
      reportBooleanFilter: null,
      reportFilters: [],
      reportFormat: 'SUMMARY',
      reportType: { label: 'Opportunities', type: 'Opportunity' },
      scope: 'organization',
      showGrandTotal: true,
      showSubtotals: true,
      sortBy: [],
      standardDateFilter: { column: 'CLOSE_DATE', durationValue: 'THIS_FISCAL_QUARTER', endDate: '2024-06-30', startDate: '2024-04-01' },
      standardFilters: [{ name: 'open', value: 'all' }],
    };
    const scope = api()
      .get(`${API}/analytics/reports/${reportId}/describe`)
      .reply(200, {
        attributes: { describeUrl: listed.describeUrl, type: 'Report' },
        reportMetadata,
        reportExtendedMetadata: { aggregateColumnInfo: {}, detailColumnInfo: {}, groupingColumnInfo: {} },
        reportTypeMetadata: { categories: [] },
      });

    const res = await salesforce().execute('reports', 'get', { id: reportId });

    expect(res.data).toEqual(reportMetadata);
    expect(scope.isDone()).toBe(true);
  });
});

describe('salesforce OAuth2.0 (refresh token, instance_url as API host)', () => {
  const REFRESH = { client_id: CREDS.client_id, client_secret: CREDS.client_secret, refresh_token: CREDS.refresh_token };
  const tokenBody = `grant_type=refresh_token&refresh_token=rtok-5Aep861&client_id=${CREDS.client_id}&client_secret=sec-1955279925675241571`;
  const tokenResponse = (instanceUrl: string, accessToken = 'tok-new') => ({
    access_token: accessToken,
    signature: 'HfBA4fU8h2ezJTsEAUy6k6/ov3nhb6gSOUcg8ndBMnw=',
    scope: 'refresh_token api',
    instance_url: instanceUrl,
    id: `https://login.salesforce.com/id/00DD0000000FHaBMAW/005D0000001AzKrIAK`,
    token_type: 'Bearer',
    issued_at: '1708058728442',
  });

  it('refreshes at login.salesforce.com (form body) and calls the instance_url it names', async () => {
    const onTokenRefresh = vi.fn();
    const token = nock(LOGIN)
      .matchHeader('content-type', /^application\/x-www-form-urlencoded/)
      .matchHeader('accept', 'application/json')
      .post(TOKEN_PATH, tokenBody)
      .reply(200, tokenResponse('https://acme.my.salesforce.com'));
    const scope = api('tok-new').get(`${API}/sobjects/User/005D0000001AzKrIAK`).reply(200, R.users);
    const conn = createConnector('salesforce', { credentials: REFRESH, http: { retries: 0 }, onTokenRefresh });

    const res = await conn.execute('users', 'get', { id: '005D0000001AzKrIAK' });

    expect(res.data).toEqual(R.users);
    expect(onTokenRefresh).toHaveBeenCalledTimes(1);
    expect(onTokenRefresh.mock.calls[0]![0]).toMatchObject({
      access_token: 'tok-new',
      refresh_token: 'rtok-5Aep861',
      rotated: false,
      kept: { instance_url: 'https://acme.my.salesforce.com' },
    });
    // A credential field of the option: stored with the access token, the next instance needs no refresh.
    expect(onTokenRefresh.mock.calls[0]?.[0]?.keptCredentials).toEqual({ instance_url: 'https://acme.my.salesforce.com' });
    expect(token.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('keeps an instance_url its credential field refuses for this instance only, out of what is to be stored', async () => {
    const onTokenRefresh = vi.fn();
    // A path after the host: the base URL still works, but the instance_url field (https://host) refuses it.
    nock(LOGIN).post(TOKEN_PATH, tokenBody).reply(200, tokenResponse('https://acme.my.salesforce.com/extra'));
    const scope = api('tok-new').get(`/extra${API}/sobjects`).reply(200, { encoding: 'UTF-8', maxBatchSize: 200, sobjects: [] });

    await createConnector('salesforce', { credentials: REFRESH, http: { retries: 0 }, onTokenRefresh }).execute('sobjects', 'list', {});

    const refresh = onTokenRefresh.mock.calls[0]?.[0] as TokenRefresh;
    expect(refresh.kept).toEqual({ instance_url: 'https://acme.my.salesforce.com/extra' });
    expect(refresh.keptCredentials).toEqual({});
    expect(scope.isDone()).toBe(true);
  });

  it('refreshes first when given an access token without its instance_url (the host comes with a new token)', async () => {
    const token = nock(LOGIN).post(TOKEN_PATH, tokenBody).reply(200, tokenResponse('https://acme.my.salesforce.com'));
    const scope = api('tok-new').get(`${API}/sobjects`).reply(200, { encoding: 'UTF-8', maxBatchSize: 200, sobjects: [] });

    const res = await salesforce({ ...REFRESH, access_token: 'tok-without-host' }).execute('sobjects', 'list', {});

    expect(res.data).toEqual([]);
    expect(token.isDone() && scope.isDone()).toBe(true);
  });

  it('uses test.salesforce.com for sandboxes and a sandbox My Domain host', async () => {
    const sandbox = 'https://acme--uat.sandbox.my.salesforce.com';
    const token = nock('https://test.salesforce.com').post(TOKEN_PATH, tokenBody).reply(200, tokenResponse(sandbox));
    const scope = api('tok-new', sandbox).get(`${API}/sobjects`).reply(200, { encoding: 'UTF-8', maxBatchSize: 200, sobjects: [] });

    const res = await salesforce(REFRESH, { login_environment: 'test' }).execute('sobjects', 'list', {});

    expect(res.data).toEqual([]);
    expect(token.isDone()).toBe(true);
    expect(scope.isDone()).toBe(true);
  });

  it('refreshes once after a 401 INVALID_SESSION_ID and retries with the new token', async () => {
    const stale = api('tok-00D')
      .get(`${API}/sobjects/Account/001D000000IqhSLIAZ`)
      .reply(401, [{ message: 'Session expired or invalid', errorCode: 'INVALID_SESSION_ID' }]);
    const token = nock(LOGIN).post(TOKEN_PATH, tokenBody).reply(200, tokenResponse(INSTANCE));
    const retry = api('tok-new').get(`${API}/sobjects/Account/001D000000IqhSLIAZ`).reply(200, R.accounts);

    const res = await salesforce().execute('accounts', 'get', { id: '001D000000IqhSLIAZ' });

    expect(res.data).toEqual(R.accounts);
    expect(stale.isDone()).toBe(true);
    expect(token.isDone()).toBe(true);
    expect(retry.isDone()).toBe(true);
  });

  it('refuses an instance_url outside salesforce.com before sending the token anywhere', async () => {
    const token = nock(LOGIN).post(TOKEN_PATH, tokenBody).reply(200, tokenResponse('https://acme.my.salesforce.com.evil.example'));
    const evil = nock('https://acme.my.salesforce.com.evil.example');

    const err = await salesforce(REFRESH)
      .execute('sobjects', 'list', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(UpstreamError);
    expect((err as Error).message).toMatch(/acme\.my\.salesforce\.com\.evil\.example is not one this connector may call/);
    expect(token.isDone()).toBe(true);
    expect(evil.isDone()).toBe(true);
  });

  it('a refused refresh is an AuthenticationError', async () => {
    const token = nock(LOGIN).post(TOKEN_PATH, tokenBody).reply(400, { error: 'invalid_grant', error_description: 'expired access/refresh token' });

    const err = await salesforce(REFRESH)
      .execute('sobjects', 'list', {})
      .catch((e: unknown) => e);

    expect(err).toBeInstanceOf(AuthenticationError);
    expect(token.isDone()).toBe(true);
  });
});

// Typed create / update / delete of the other CRM objects: POST /sobjects/{sObject} with the field values,
// PATCH /sobjects/{sObject}/{id} (Salesforce answers 204), DELETE /sobjects/{sObject}/{id} (204).
// [entity, sObject, create body (every field the action takes), new id, update body]
const WRITES: Array<[Entity, string, Rec, string, Rec]> = [
  [
    'contacts',
    'Contact',
    {
      FirstName: 'Sean',
      LastName: 'Forbes',
      Email: 'sean@edge.com',
      Phone: '(512) 757-6000',
      MobilePhone: '(512) 757-4561',
      Title: 'CFO',
      Department: 'Finance',
      AccountId: '001D000000IqhSLIAZ',
      MailingStreet: '312 Constitution Place',
      MailingCity: 'Austin',
      MailingState: 'TX',
      MailingPostalCode: '78767',
      MailingCountry: 'USA',
      Description: 'Met at the user conference.',
      OwnerId: '005D0000001AzKrIAK',
    },
    '003D000000QV9n3IAD',
    { Title: 'SVP, Finance', MobilePhone: '(512) 757-4562' },
  ],
  [
    'leads',
    'Lead',
    {
      FirstName: 'Phyllis',
      LastName: 'Cotton',
      Company: 'Abbott Insurance',
      Title: 'CFO',
      Email: 'pcotton@abbottins.net',
      Phone: '(703) 757-1000',
      MobilePhone: '(703) 757-1001',
      Website: 'www.abbottins.net',
      Status: 'Open - Not Contacted',
      LeadSource: 'Web',
      Industry: 'Insurance',
      Rating: 'Warm',
      AnnualRevenue: 2750000,
      NumberOfEmployees: 120,
      Street: '1621 Gulf Freeway',
      City: 'Arlington',
      State: 'VA',
      PostalCode: '22201',
      Country: 'USA',
      Description: 'Asked for a quote.',
      OwnerId: '005D0000001AzKrIAK',
    },
    '00QD000000FZj0qMAD',
    { Status: 'Working - Contacted', Rating: 'Hot' },
  ],
  [
    'opportunities',
    'Opportunity',
    {
      Name: 'Edge Emergency Generator',
      AccountId: '001D000000IqhSLIAZ',
      StageName: 'Id. Decision Makers',
      CloseDate: '2024-09-30',
      Amount: 35000,
      Probability: 60,
      Type: 'New Customer',
      LeadSource: 'Phone Inquiry',
      NextStep: 'Send the proposal',
      CampaignId: '701D0000000dmWgIAI',
      ForecastCategoryName: 'Pipeline',
      Description: 'Backup generator for the Austin plant.',
      OwnerId: '005D0000001AzKrIAK',
    },
    '006D000000CsaJpIAJ',
    { StageName: 'Closed Won', CloseDate: '2024-08-15', Amount: 36500 },
  ],
  [
    'tasks',
    'Task',
    {
      Subject: 'Call',
      Status: 'Not Started',
      Priority: 'High',
      ActivityDate: '2024-04-05',
      WhoId: '003D000000QV9n2IAD',
      WhatId: '006D000000CsaJoIAJ',
      Description: 'Confirm the renewal terms.',
      Type: 'Call',
      IsReminderSet: true,
      ReminderDateTime: '2024-04-05T08:00:00Z',
      OwnerId: '005D0000001AzKrIAK',
    },
    '00TD000000B2xLkMAJ',
    { Status: 'Completed', IsReminderSet: false },
  ],
  [
    'events',
    'Event',
    {
      Subject: 'Meeting',
      StartDateTime: '2024-04-10T14:00:00Z',
      EndDateTime: '2024-04-10T15:00:00Z',
      DurationInMinutes: 60,
      Location: 'Portland office',
      Description: 'Quarterly business review.',
      WhoId: '003D000000QV9n2IAD',
      WhatId: '001D000000IqhSLIAZ',
      IsAllDayEvent: false,
      ShowAs: 'Busy',
      OwnerId: '005D0000001AzKrIAK',
    },
    '00UD0000006jLDfMAM',
    { Location: 'Video call', EndDateTime: '2024-04-10T15:30:00Z', DurationInMinutes: 90 },
  ],
  [
    'campaigns',
    'Campaign',
    {
      Name: 'Spring Webinar 2024',
      Type: 'Webinar',
      Status: 'Planned',
      StartDate: '2024-05-01',
      EndDate: '2024-05-31',
      IsActive: true,
      Description: 'Generator maintenance webinar series.',
      ExpectedRevenue: 500000,
      BudgetedCost: 20000,
      ActualCost: 0,
      ExpectedResponse: 12.5,
      NumberSent: 4000,
      ParentId: '701D0000000dmWgIAI',
      OwnerId: '005D0000001AzKrIAK',
    },
    '701D0000000dmWhIAI',
    { Status: 'In Progress', ActualCost: 8500.5 },
  ],
  [
    'cases',
    'Case',
    {
      Subject: 'Generator makes noise',
      Status: 'New',
      Priority: 'Medium',
      Origin: 'Web',
      Type: 'Mechanical',
      Reason: 'Performance',
      Description: 'Loud rattle under load.',
      AccountId: '001D000000IqhSLIAZ',
      ContactId: '003D000000QV9n2IAD',
      SuppliedName: 'Rose Gonzalez',
      SuppliedEmail: 'rose@edge.com',
      SuppliedPhone: '(512) 757-6000',
      SuppliedCompany: 'Edge Communications',
      OwnerId: '00GD0000000rZnYMAU',
      ParentId: '500D000000Ba5anIAB',
    },
    '500D000000Ba5aoIAB',
    { Status: 'Escalated', Priority: 'High' },
  ],
  [
    'notes',
    'Note',
    { Title: 'Pricing', Body: 'Agreed on 5% off list.', ParentId: '001D000000IqhSLIAZ', IsPrivate: true, OwnerId: '005D0000001AzKrIAK' },
    '002D000000Iu0yAIAR',
    { Body: 'Agreed on 7% off list.', IsPrivate: false },
  ],
];

describe('salesforce typed create / update / delete (contacts, leads, opportunities, tasks, events, campaigns, cases, notes)', () => {
  it.each(WRITES)('%s create posts the fields to /sobjects/%s and returns {id, success, errors}', async (entity, sobject, body, newId) => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post(`${API}/sobjects/${sobject}`, body)
      .reply(201, { id: newId, errors: [], success: true });

    const res = await salesforce().execute(entity, 'create', body);

    expect(res.data).toEqual({ id: newId, errors: [], success: true });
    expect(scope.isDone()).toBe(true);
  });

  it.each(WRITES)('%s update patches only the fields given on /sobjects/%s/{id} and returns {} for the 204', async (entity, sobject, _body, id, changes) => {
    const scope = api().matchHeader('content-type', 'application/json').patch(`${API}/sobjects/${sobject}/${id}`, changes).reply(204);

    const res = await salesforce().execute(entity, 'update', { id, ...changes });

    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it.each(WRITES)('%s delete sends DELETE /sobjects/%s/{id} and returns {} for the 204', async (entity, sobject, _body, id) => {
    const scope = api().delete(`${API}/sobjects/${sobject}/${id}`).reply(204);

    const res = await salesforce().execute(entity, 'delete', { id });

    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it.each(WRITES)('%s update refuses a call that changes nothing', async (entity, _sobject, _body, id) => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute(entity, 'update', { id })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(scope.isDone()).toBe(true);
  });

  // [entity, the create params without the required ones, the required fields missing]
  const MISSING: Array<[Entity, Rec, string[]]> = [
    ['contacts', { FirstName: 'Sean', Email: 'sean@edge.com' }, ['LastName']],
    ['leads', { FirstName: 'Phyllis', LastName: 'Cotton' }, ['Company']],
    ['opportunities', { Name: 'Edge Emergency Generator', Amount: 35000 }, ['CloseDate', 'StageName']],
    ['campaigns', { Type: 'Webinar', IsActive: true }, ['Name']],
    ['notes', { Body: 'Agreed on 5% off list.' }, ['ParentId', 'Title']],
  ];

  it.each(MISSING)('%s create refuses a call without its required fields', async (entity, params, missing) => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute(entity, 'create', params)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual(missing.map((f) => [f, 'required']));
    expect(scope.isDone()).toBe(true);
  });

  it('refuses dates, date-times, IDs and numbers in the wrong shape before any request', async () => {
    const scope = nock(INSTANCE);
    const issues = async (entity: Entity, action: string, params: Rec) => {
      const err = await salesforce()
        .execute(entity, action, params)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      return (err as ValidationError).issues.map((i) => [i.field, i.rule]);
    };

    expect(await issues('opportunities', 'create', { Name: 'Deal', StageName: 'Prospecting', CloseDate: '09/30/2024', Probability: 120 })).toEqual([
      ['CloseDate', 'format'],
      ['Probability', 'maximum'],
    ]);
    expect(await issues('events', 'create', { Subject: 'Meeting', StartDateTime: '2024-04-10 14:00', DurationInMinutes: -5 })).toEqual([
      ['StartDateTime', 'format'],
      ['DurationInMinutes', 'minimum'],
    ]);
    expect(await issues('tasks', 'update', { id: '00TD000000B2xLjMAJ', WhoId: 'Rose Gonzalez' })).toEqual([['WhoId', 'pattern']]);
    expect(await issues('contacts', 'create', { LastName: 'Forbes', Email: 'not-an-email' })).toEqual([['Email', 'format']]);
    expect(await issues('leads', 'create', { LastName: 'Cotton', Company: 'Abbott', NumberOfEmployees: 'many' })).toEqual([['NumberOfEmployees', 'type']]);
    expect(scope.isDone()).toBe(true);
  });

  it('notes update cannot move a note to another parent (ParentId is create-only)', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('notes', 'update', { id: '002D000000Iu0y9IAB', Body: 'Moved.', ParentId: '001D000000IomazIAB' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'ParentId', rule: 'unknown' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('a 15-character reference ID is accepted and sent as given', async () => {
    const body = { LastName: 'Forbes', AccountId: '001D000000IqhSL' };
    const scope = api().post(`${API}/sobjects/Contact`, body).reply(201, { id: '003D000000QV9n3IAD', errors: [], success: true });

    const res = await salesforce().execute('contacts', 'create', body);

    expect(res.data).toEqual({ id: '003D000000QV9n3IAD', errors: [], success: true });
    expect(scope.isDone()).toBe(true);
  });
});

// Users: POST /sobjects/User and PATCH /sobjects/User/{id} with the User field API names (Object Reference:
// User). Salesforce users cannot be deleted, only deactivated with IsActive false.
describe('salesforce users create / update', () => {
  const userBody = {
    Username: 'jsmith@acme.com.uat',
    FirstName: 'Jane',
    LastName: 'Smith',
    Email: 'jane.smith@acme.com',
    Alias: 'jsmith',
    ProfileId: '00eD0000001DqaQIAS',
    UserRoleId: '00ED0000000qzJ3MAI',
    ManagerId: '005D0000001AzKrIAK',
    TimeZoneSidKey: 'America/Los_Angeles',
    LocaleSidKey: 'en_US',
    EmailEncodingKey: 'UTF-8',
    LanguageLocaleKey: 'en_US',
    IsActive: true,
    Title: 'Sales Engineer',
    Department: 'Sales',
    Phone: '(415) 555-0100',
    MobilePhone: '(415) 555-0101',
  };

  it('create posts the fields to /sobjects/User and returns {id, success, errors}', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .post(`${API}/sobjects/User`, userBody)
      .reply(201, { id: '005D0000001B2cDIAS', errors: [], success: true });

    const res = await salesforce().execute('users', 'create', userBody);

    expect(res.data).toEqual({ id: '005D0000001B2cDIAS', errors: [], success: true });
    expect(scope.isDone()).toBe(true);
  });

  it('update patches only the fields given on /sobjects/User/{id} and returns {} for the 204 (deactivation)', async () => {
    const scope = api()
      .matchHeader('content-type', 'application/json')
      .patch(`${API}/sobjects/User/005D0000001B2cDIAS`, { IsActive: false, Title: 'Former Sales Engineer' })
      .reply(204);

    const res = await salesforce().execute('users', 'update', { id: '005D0000001B2cDIAS', IsActive: false, Title: 'Former Sales Engineer' });

    expect(res).toEqual({ data: {} });
    expect(scope.isDone()).toBe(true);
  });

  it('create refuses a call without the nine required User fields before any request', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('users', 'create', { FirstName: 'Jane', Title: 'Sales Engineer' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual(
      ['Alias', 'Email', 'EmailEncodingKey', 'LanguageLocaleKey', 'LastName', 'LocaleSidKey', 'ProfileId', 'TimeZoneSidKey', 'Username'].map((f) => [
        f,
        'required',
      ]),
    );
    expect(scope.isDone()).toBe(true);
  });

  it('update refuses a call that changes nothing', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('users', 'update', { id: '005D0000001B2cDIAS' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'params', rule: 'at_least_one_of' })]);
    expect(scope.isDone()).toBe(true);
  });

  it('refuses a Username not in email form, an Alias over 8 characters and malformed IDs before any request', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('users', 'create', { ...userBody, Username: 'jsmith', Alias: 'janesmith', ProfileId: 'Standard User' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ValidationError);
    expect((err as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['Alias', 'maxLength'],
      ['ProfileId', 'pattern'],
      ['Username', 'format'],
    ]);
    const bad = await salesforce()
      .execute('users', 'update', { id: '005D0000001B2cD', ManagerId: 'Rose Gonzalez' })
      .catch((e: unknown) => e);
    expect(bad).toBeInstanceOf(ValidationError);
    expect((bad as ValidationError).issues.map((i) => [i.field, i.rule]).sort()).toEqual([
      ['ManagerId', 'pattern'],
      ['id', 'pattern'],
    ]);
    expect(scope.isDone()).toBe(true);
  });

  it('offers no delete: Salesforce users are deactivated, never deleted', async () => {
    const scope = nock(INSTANCE);
    const err = await salesforce()
      .execute('users', 'delete', { id: '005D0000001B2cDIAS' })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnknownOperationError);
    expect(scope.isDone()).toBe(true);
  });
});

// SOSL search through GET /search?q= (Search resource); the answer is {searchRecords: [...]}.
// [entity, SOSL search, its URL-encoded form as sent, records]
const SEARCHES: Array<[Entity, string, string, Rec[]]> = [
  [
    'accounts',
    'FIND {Acme} IN ALL FIELDS RETURNING Account(Id, Name)',
    'FIND+%7BAcme%7D+IN+ALL+FIELDS+RETURNING+Account%28Id%2C+Name%29',
    [
      { attributes: attrs('Account', '001D000000IqhSLIAZ'), Id: '001D000000IqhSLIAZ', Name: 'Acme' },
      { attributes: attrs('Account', '001D000000IomazIAB'), Id: '001D000000IomazIAB', Name: 'Acme Import Company' },
    ],
  ],
  [
    'contacts',
    'FIND {rose@edge.com} IN EMAIL FIELDS RETURNING Contact(Id, Name, Email)',
    'FIND+%7Brose%40edge.com%7D+IN+EMAIL+FIELDS+RETURNING+Contact%28Id%2C+Name%2C+Email%29',
    [{ attributes: R.contacts.attributes, Id: R.contacts.Id, Name: R.contacts.Name, Email: R.contacts.Email }],
  ],
  [
    'leads',
    'FIND {Boxer} IN NAME FIELDS RETURNING Lead(Id, Name, Company)',
    'FIND+%7BBoxer%7D+IN+NAME+FIELDS+RETURNING+Lead%28Id%2C+Name%2C+Company%29',
    [{ attributes: R.leads.attributes, Id: R.leads.Id, Name: R.leads.Name, Company: R.leads.Company }],
  ],
  [
    'opportunities',
    "FIND {Generator} RETURNING Opportunity(Id, Name WHERE StageName = 'Closed Won')",
    'FIND+%7BGenerator%7D+RETURNING+Opportunity%28Id%2C+Name+WHERE+StageName+%3D+%27Closed+Won%27%29',
    [{ attributes: R.opportunities.attributes, Id: R.opportunities.Id, Name: R.opportunities.Name }],
  ],
  [
    'tasks',
    'FIND {renewal} RETURNING Task(Id, Subject)',
    'FIND+%7Brenewal%7D+RETURNING+Task%28Id%2C+Subject%29',
    [{ attributes: R.tasks.attributes, Id: R.tasks.Id, Subject: R.tasks.Subject }],
  ],
  [
    'events',
    'FIND {Portland} RETURNING Event(Id, Subject, Location)',
    'FIND+%7BPortland%7D+RETURNING+Event%28Id%2C+Subject%2C+Location%29',
    [{ attributes: R.events.attributes, Id: R.events.Id, Subject: R.events.Subject, Location: R.events.Location }],
  ],
  [
    'campaigns',
    'FIND {Conference} IN NAME FIELDS RETURNING Campaign(Id, Name) LIMIT 5',
    'FIND+%7BConference%7D+IN+NAME+FIELDS+RETURNING+Campaign%28Id%2C+Name%29+LIMIT+5',
    [{ attributes: R.campaigns.attributes, Id: R.campaigns.Id, Name: R.campaigns.Name }],
  ],
  [
    'cases',
    'FIND {generator} RETURNING Case(Id, CaseNumber, Subject)',
    'FIND+%7Bgenerator%7D+RETURNING+Case%28Id%2C+CaseNumber%2C+Subject%29',
    [{ attributes: R.cases.attributes, Id: R.cases.Id, CaseNumber: R.cases.CaseNumber, Subject: R.cases.Subject }],
  ],
  [
    'notes',
    'FIND {"three-year term"} RETURNING Note(Id, Title, ParentId)',
    'FIND+%7B%22three-year+term%22%7D+RETURNING+Note%28Id%2C+Title%2C+ParentId%29',
    [{ attributes: R.notes.attributes, Id: R.notes.Id, Title: R.notes.Title, ParentId: R.notes.ParentId }],
  ],
];

describe('salesforce api_search (SOSL, GET /search?q=)', () => {
  it.each(SEARCHES)('%s api_search sends q URL-encoded and returns the searchRecords', async (entity, q, encoded, records) => {
    let sent = '';
    const scope = api()
      .matchHeader('accept', 'application/json')
      .get(`${API}/search`)
      .query({ q })
      .reply(200, (uri) => {
        sent = uri;
        return { searchRecords: records };
      });

    const res = await salesforce().execute(entity, 'api_search', { q });

    expect(sent).toBe(`${API}/search?q=${encoded}`);
    expect(res.data).toEqual(records);
    expect(res.pagination).toBeUndefined();
    expect(scope.isDone()).toBe(true);
  });

  it('returns the records of every object named in RETURNING, as Salesforce answers', async () => {
    const q = 'FIND {Edge} RETURNING Account(Id, Name), Contact(Id, Name)';
    const records = [
      { attributes: attrs('Account', '001D000000IqhSLIAZ'), Id: '001D000000IqhSLIAZ', Name: 'Edge Communications' },
      { attributes: R.contacts.attributes, Id: R.contacts.Id, Name: R.contacts.Name },
    ];
    const scope = api().get(`${API}/search`).query({ q }).reply(200, { searchRecords: records });

    const res = await salesforce().execute('contacts', 'api_search', { q });

    expect(res.data).toEqual(records);
    expect(scope.isDone()).toBe(true);
  });

  it('an empty search answers an empty list', async () => {
    const q = 'FIND {zzzz-no-match} RETURNING Lead(Id)';
    const scope = api().get(`${API}/search`).query({ q }).reply(200, { searchRecords: [] });

    const res = await salesforce().execute('leads', 'api_search', { q });

    expect(res.data).toEqual([]);
    expect(scope.isDone()).toBe(true);
  });

  it('requires q', async () => {
    const scope = nock(INSTANCE);
    for (const params of [{}, { q: '' }]) {
      const err = await salesforce()
        .execute('cases', 'api_search', params)
        .catch((e: unknown) => e);
      expect(err).toBeInstanceOf(ValidationError);
      expect((err as ValidationError).issues).toEqual([expect.objectContaining({ field: 'q', rule: 'q' in params ? 'minLength' : 'required' })]);
    }
    expect(scope.isDone()).toBe(true);
  });
});
