/**
 * GET /api/v1/skills/search: full-text search over every skill doc (each connector kind's overview,
 * authentication and per-action sections). A skill matches when every query word appears in it; skills
 * are ranked by how often and where (titles weigh more) the words appear, and each hit names its best
 * sections so an agent can read exactly those with GET /api/v1/skills/docs?section=.
 */
import { connectorModules } from '../../runtime/index.js';
import { BadRequestError } from '../errors.js';
import { skillMetadata } from './inspection.js';
import { words, type IndexedSection, type SkillLibrary } from './skill-library.js';
import type { SkillMetadata } from '../api-shapes.js';

export interface SkillSectionMatch {
  section_id: string;
  title: string;
  summary: string;
}

/** SkillMetadata (the reference's item) plus the sections that matched, best first. */
export type SkillSearchHit = SkillMetadata & { score: number; matched_sections: SkillSectionMatch[] };

const TITLE_WEIGHT = 3;
const MAX_SECTIONS_PER_HIT = 5;

function countIn(haystack: string[], term: string): number {
  let count = 0;
  for (const word of haystack) if (word.startsWith(term)) count += 1;
  return count;
}

function scoreSection(entry: IndexedSection, terms: string[]): number {
  return terms.reduce((sum, term) => sum + TITLE_WEIGHT * countIn(entry.titleWords, term) + countIn(entry.bodyWords, term), 0);
}

function decodeOffset(cursor: string, query: string): number {
  try {
    const parsed: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (
      parsed !== null &&
      typeof parsed === 'object' &&
      'offset' in parsed &&
      'query' in parsed &&
      Number.isInteger(parsed.offset) &&
      (parsed.offset as number) > 0 &&
      parsed.query === query
    )
      return parsed.offset as number;
  } catch {
    // reported below
  }
  throw new BadRequestError(
    'The cursor is not one this service issued for this query; pass next_cursor from the previous page unchanged, with the same query.',
    'invalid_cursor',
    [{ field: 'cursor', rule: 'invalid_cursor', message: 'cursor is not a cursor this service issued for this query' }],
  );
}

export async function searchSkills(
  skills: SkillLibrary,
  query: string,
  limit: number,
  cursor: string | undefined,
): Promise<{ data: SkillSearchHit[]; next_cursor: string | null }> {
  const terms = [...new Set(words(query))];
  if (terms.length === 0) {
    const message = 'query needs at least one word (letters or digits).';
    throw new BadRequestError(`The search ${message}`, 'invalid_query', [{ field: 'query', rule: 'words', message }]);
  }
  const offset = cursor === undefined ? 0 : decodeOffset(cursor, query);
  const hits: SkillSearchHit[] = [];
  for (const connectorType of Object.keys(connectorModules).sort()) {
    const docs = await skills.docs(connectorType);
    if (!docs) continue;
    const sections = skills.sections(connectorType, docs);
    const everyTermFound = terms.every((term) => sections.some((s) => countIn(s.titleWords, term) + countIn(s.bodyWords, term) > 0));
    if (!everyTermFound) continue;
    const scored = sections.map((entry) => ({ entry, score: scoreSection(entry, terms) })).filter((s) => s.score > 0);
    scored.sort((a, b) => b.score - a.score);
    hits.push({
      ...skillMetadata(connectorType, docs),
      score: scored.reduce((sum, s) => sum + s.score, 0),
      matched_sections: scored
        .slice(0, MAX_SECTIONS_PER_HIT)
        .map(({ entry }) => ({ section_id: entry.section.id, title: entry.section.title, summary: entry.section.summary })),
    });
  }
  hits.sort((a, b) => b.score - a.score || a.id.localeCompare(b.id));
  const page = hits.slice(offset, offset + limit);
  const next = offset + limit < hits.length ? Buffer.from(JSON.stringify({ query, offset: offset + limit })).toString('base64url') : null;
  return { data: page, next_cursor: next };
}
