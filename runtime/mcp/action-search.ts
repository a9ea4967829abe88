/**
 * search_actions: ranks entity/action pairs for a natural-language need with BM25 over each action's
 * skill docs section, its description and its names (the names weigh most).
 */
import type { ConnectorDefinition } from '../definition.js';
import type { SkillDocs } from '../skill-docs.js';

export interface ActionMatch {
  connector_type: string;
  entity: string;
  action: string;
  score: number;
  description: string | null;
  read_only: boolean;
  destructive: boolean;
  /** The skill docs section with the action's params, limits and record fields. */
  docs_section: string;
}

/** Everyday verbs mapped to the action words manifests use. */
const SYNONYMS: Record<string, string> = {
  find: 'search',
  lookup: 'search',
  query: 'search',
  fetch: 'get',
  retrieve: 'get',
  show: 'get',
  read: 'get',
  view: 'get',
  detail: 'get',
  remove: 'delete',
  erase: 'delete',
  destroy: 'delete',
  add: 'create',
  new: 'create',
  make: 'create',
  open: 'create',
  edit: 'update',
  change: 'update',
  modify: 'update',
  rename: 'update',
  set: 'update',
  all: 'list',
  every: 'list',
  enumerate: 'list',
};

const STOPWORDS = new Set([
  'a',
  'an',
  'the',
  'of',
  'to',
  'in',
  'on',
  'for',
  'and',
  'or',
  'by',
  'with',
  'my',
  'our',
  'is',
  'are',
  'be',
  'it',
  'that',
  'this',
  'from',
  'at',
  'as',
  'i',
  'me',
  'we',
  'want',
  'need',
  'please',
  'some',
]);

function stem(word: string): string {
  if (word.length > 4 && word.endsWith('ies')) return `${word.slice(0, -3)}y`;
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

export function tokenize(text: string): string[] {
  const tokens: string[] = [];
  for (const raw of text.toLowerCase().split(/[^a-z0-9]+/)) {
    if (raw === '' || STOPWORDS.has(raw)) continue;
    const word = stem(raw);
    tokens.push(SYNONYMS[word] ?? word);
  }
  return tokens;
}

interface Doc {
  match: Omit<ActionMatch, 'score'>;
  terms: Map<string, number>;
  length: number;
}

const NAME_WEIGHT = 4;
const K1 = 1.2;
const B = 0.75;

export class ActionIndex {
  private readonly docs: Doc[] = [];
  private readonly documentFrequency = new Map<string, number>();
  private averageLength = 1;

  /** Indexes every action of the definitions; docs gives each connector type's skill docs. */
  constructor(definitions: ConnectorDefinition[], docs: (connectorType: string) => SkillDocs | undefined) {
    for (const definition of definitions) {
      const sections = new Map((docs(definition.connectorType)?.sections ?? []).map((s) => [s.id, s.markdown]));
      for (const entity of Object.values(definition.entities)) {
        for (const action of Object.values(entity.actions)) {
          const sectionId = `${entity.name}.${action.name}`;
          const names = `${definition.connectorType} ${definition.displayName} ${entity.name} ${entity.name} ${action.name} ${action.description ?? ''}`;
          const tokens = [
            ...Array.from({ length: NAME_WEIGHT }, () => tokenize(names)).flat(),
            ...tokenize(`${definition.displayName} ${entity.description} ${sections.get(sectionId) ?? ''}`),
          ];
          const terms = new Map<string, number>();
          for (const token of tokens) terms.set(token, (terms.get(token) ?? 0) + 1);
          for (const term of terms.keys()) this.documentFrequency.set(term, (this.documentFrequency.get(term) ?? 0) + 1);
          this.docs.push({
            match: {
              connector_type: definition.connectorType,
              entity: entity.name,
              action: action.name,
              description: action.description ?? null,
              read_only: action.readOnly,
              destructive: action.destructive,
              docs_section: sectionId,
            },
            terms,
            length: tokens.length,
          });
        }
      }
    }
    this.averageLength = this.docs.reduce((sum, d) => sum + d.length, 0) / Math.max(1, this.docs.length);
  }

  /** The best matches first; only actions sharing at least one term with the need. */
  search(need: string, options: { limit: number; connectorTypes?: string[] }): ActionMatch[] {
    const terms = [...new Set(tokenize(need))];
    const n = this.docs.length;
    const scored: ActionMatch[] = [];
    for (const doc of this.docs) {
      if (options.connectorTypes && !options.connectorTypes.includes(doc.match.connector_type)) continue;
      let score = 0;
      for (const term of terms) {
        const tf = doc.terms.get(term);
        if (tf === undefined) continue;
        const df = this.documentFrequency.get(term) ?? 0;
        const idf = Math.log(1 + (n - df + 0.5) / (df + 0.5));
        score += (idf * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * doc.length) / this.averageLength));
      }
      if (score > 0) scored.push({ ...doc.match, score: Math.round(score * 1000) / 1000 });
    }
    return scored.sort((a, b) => b.score - a.score || a.entity.localeCompare(b.entity) || a.action.localeCompare(b.action)).slice(0, options.limit);
  }
}
