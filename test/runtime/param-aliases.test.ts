/**
 * Params given under their manifest `aliases` (the names Airbyte's clients send): Jira's commentId and
 * worklogId for a comment's or worklog's id, Pylon's id for an issue's issue_id, Gong's workspace-id and
 * manager-id for coaching. The vendor receives exactly what the param's own name sends; a param given
 * under two of its names is refused before any request.
 */
import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { connectorModules, createConnector, ValidationError } from '../../runtime/index.js';

const JIRA = 'https://acme.atlassian.net';
const JIRA_AUTH = `Basic ${Buffer.from('ana@acme.com:ATATT3xFfGF0-test-token').toString('base64')}`;
const jira = () =>
  createConnector('jira', {
    credentials: { email: 'ana@acme.com', api_token: 'ATATT3xFfGF0-test-token' },
    config: { subdomain: 'acme' },
    http: { retries: 0 },
  });

const PYLON = 'https://api.usepylon.com';
const PYLON_TOKEN = 'pyl_live_4f8a2c9e1b7d3f6a0c5e8b2d9f1a7c3e';
const pylon = () => createConnector('pylon', { credentials: { api_token: PYLON_TOKEN }, http: { retries: 0 } });

const GONG = 'https://api.gong.io';
const gong = () => createConnector('gong', { credentials: { access_key: 'gong-key-1', access_key_secret: 'gong-secret-1' }, http: { retries: 0 } });

const comment = { id: '10010', body: { type: 'doc', version: 1, content: [] }, created: '2025-01-02T10:00:00.000+0000' };

beforeAll(() => nock.disableNetConnect());
afterAll(() => nock.enableNetConnect());
afterEach(() => {
  expect(nock.pendingMocks()).toEqual([]);
  nock.cleanAll();
});

async function refusal(promise: Promise<unknown>): Promise<ValidationError> {
  const error = await promise.catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('param aliases', () => {
  it("Jira: commentId names issue_comments' id on get, update and delete; worklogId names issue_worklogs' id", async () => {
    const api = nock(JIRA).matchHeader('authorization', JIRA_AUTH);
    api.get('/rest/api/3/issue/ABC-1/comment/10010').reply(200, comment);
    api.delete('/rest/api/3/issue/ABC-1/comment/10010').reply(204);
    api.get('/rest/api/3/issue/ABC-1/worklog/20020').reply(200, { id: '20020', timeSpentSeconds: 3600 });

    expect((await jira().execute('issue_comments', 'get', { issueIdOrKey: 'ABC-1', commentId: '10010' })).data).toEqual(comment);
    await jira().execute('issue_comments', 'delete', { issueIdOrKey: 'ABC-1', commentId: '10010' });
    expect((await jira().execute('issue_worklogs', 'get', { issueIdOrKey: 'ABC-1', worklogId: '20020' })).data).toEqual({
      id: '20020',
      timeSpentSeconds: 3600,
    });
  });

  it('refuses a param given under two of its names before any request, naming both', async () => {
    const error = await refusal(jira().execute('issue_comments', 'get', { issueIdOrKey: 'ABC-1', id: '10010', commentId: '10011' }));
    expect(error.issues).toEqual([
      expect.objectContaining({
        field: 'commentId',
        rule: 'alias_conflict',
        message: 'id and commentId name the same param (id) of issue_comments.get; give it once',
      }),
    ]);
  });

  it('takes an alias given as null for not given, and reports a missing param under its own name', async () => {
    nock(JIRA).get('/rest/api/3/issue/ABC-1/comment/10010').reply(200, comment);
    expect((await jira().execute('issue_comments', 'get', { issueIdOrKey: 'ABC-1', id: '10010', commentId: null })).data).toEqual(comment);

    const missing = await refusal(jira().execute('issue_comments', 'get', { issueIdOrKey: 'ABC-1' }));
    expect(missing.issues).toEqual([expect.objectContaining({ field: 'id', rule: 'required' })]);
  });

  it("validates a value given under an alias by its param's rules, reported under the param's name", async () => {
    const error = await refusal(jira().execute('issue_comments', 'get', { issueIdOrKey: 'ABC-1', commentId: '' }));
    expect(error.issues).toEqual([expect.objectContaining({ field: 'id', rule: 'minLength' })]);
  });

  it("Pylon: id names an issue's issue_id on its messages, replies, notes, threads and assignment", async () => {
    nock(PYLON)
      .matchHeader('authorization', `Bearer ${PYLON_TOKEN}`)
      .get('/issues/iss_1/messages')
      .reply(200, { data: [{ id: 'msg_1', message_html: '<p>Hi</p>' }], request_id: 'req_1' });

    const res = await pylon().execute('messages', 'list', { id: 'iss_1' });

    expect(res.data).toEqual([{ id: 'msg_1', message_html: '<p>Hi</p>' }]);
  });

  it("Gong: coaching takes Gong's own names workspace-id and manager-id, sent unchanged", async () => {
    const query = { 'workspace-id': '623457276584334', 'manager-id': '563515258458745', from: '2018-02-18T08:00:00Z', to: '2018-03-18T08:00:00Z' };
    nock(GONG).get('/v2/coaching').query(query).reply(200, { requestId: 'r1', coachingData: [] });

    const res = await gong().execute('coaching', 'list', query);

    expect(res.data).toEqual([]);
  });

  it("the definitions and the skill docs list each param's aliases", () => {
    expect(connectorModules.jira?.definition.entities.issue_comments?.actions.get?.params.id?.aliases).toEqual(['commentId']);
    const docs = readFileSync(new URL('../../docs/connectors/jira.md', import.meta.url), 'utf8');
    expect(docs).toContain('Also accepted as `commentId`.');
  });
});
