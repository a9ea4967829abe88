import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTenant, startTestService, type Tenant, type TestService } from '../support/service.js';

// GET /api/v1/skills/search: full-text search over every skill doc (overview, authentication, each action).

interface Hit {
  id: string;
  kind: string;
  score: number;
  matched_sections: Array<{ section_id: string; title: string; summary: string }>;
}
interface Page {
  data: Hit[];
  next_cursor: string | null;
}
interface ErrorBody {
  errors: Array<{ field: string | null; error_code: string }>;
}

describe('skill search', () => {
  let service: TestService;
  let tenant: Tenant;

  beforeAll(async () => {
    service = await startTestService('pglite');
    tenant = await createTenant(service);
  });
  afterAll(async () => {
    await service.close();
  });

  const search = (query: string) => tenant.api.get<Page & ErrorBody>(`/api/v1/skills/search?${query}`);

  it('finds the skills whose docs hold every word, best first, with the sections to read', async () => {
    const response = await search('query=harvest%20time%20entries');
    expect(response.status).toBe(200);
    expect(response.body.data.map((hit) => hit.id)).toEqual(['connector:harvest']);
    const [hit] = response.body.data;
    expect(hit).toMatchObject({ kind: 'connector_source', freshness: { state: 'static' } });
    expect(hit?.matched_sections.map((s) => s.section_id)).toContain('time_entries.list');
    const docs = await tenant.api.get<{ section_id: string }>(`/api/v1/skills/docs?id=${hit?.id}&section=${hit?.matched_sections[0]?.section_id}`);
    expect(docs.status).toBe(200);
  });

  it('matches word prefixes, ignores case, and finds authentication sections', async () => {
    const response = await search('query=REFRESH%20TOK');
    const ids = response.body.data.map((hit) => hit.id);
    expect(ids).toEqual(expect.arrayContaining(['connector:harvest', 'connector:salesforce']));
    expect(ids).not.toContain('connector:orb'); // API keys only: no refresh token anywhere in its docs
    const salesforce = response.body.data.find((hit) => hit.id === 'connector:salesforce');
    expect(salesforce?.matched_sections.map((s) => s.section_id)).toContain('authentication');
  });

  it('pages with next_cursor and refuses foreign cursors and empty queries', async () => {
    const all = await search('query=list&limit=100');
    expect(all.body.data.length).toBeGreaterThan(3);
    const first = await search('query=list&limit=2');
    expect(first.body.data).toHaveLength(2);
    const second = await search(`query=list&limit=2&cursor=${first.body.next_cursor}`);
    expect([...first.body.data, ...second.body.data].map((h) => h.id)).toEqual(all.body.data.slice(0, 4).map((h) => h.id));
    expect((await search(`query=users&cursor=${first.body.next_cursor}`)).body.errors[0]?.error_code).toBe('invalid_cursor');
    // A cursor naming an offset this service never issues (it reads the list from its end) is refused too.
    for (const offset of [-1, 0, 1.5]) {
      const forged = Buffer.from(JSON.stringify({ query: 'list', offset })).toString('base64url');
      expect((await search(`query=list&cursor=${forged}`)).body.errors[0]?.error_code, String(offset)).toBe('invalid_cursor');
    }
    const punctuation = await search('query=%3F%3F');
    expect(punctuation.status).toBe(400);
    expect(punctuation.body.errors[0]).toMatchObject({ field: 'query', error_code: 'words' });
    expect((await search('')).status).toBe(422);
    expect((await search('query=zzzqqq')).body).toEqual({ data: [], next_cursor: null });
  });
});
