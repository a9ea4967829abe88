import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { EntityDefinition } from '../../../runtime/index.js';
import type { DatabaseSchema } from '../../db/schema.js';
import { lookUpTypos, toleratesTypos, type TypoVariants } from '../typos.js';
import { compileFilter } from './compile.js';

/** A filter compiled without typos, and the fuzzy words it asked typos for. */
export interface ExactFilter {
  condition: RawBuilder<boolean>;
  fuzzyWords: ReadonlySet<string>;
}

/** Typos that give every word itself and note the words asked: for the first compile of a search filter. */
export function notingWords(): { typos: TypoVariants; words: Set<string> } {
  const words = new Set<string>();
  return {
    typos: (word) => {
      words.add(word);
      return [word];
    },
    words,
  };
}

/**
 * A validated filter with the typos of its fuzzy words (src/context/typos.ts): the exact compile as it is when
 * none of its words takes typos, else those looked up in the entity's words and the filter compiled again.
 */
export async function withTypos(
  db: Kysely<DatabaseSchema>,
  scope: { connectorId: string; entity: EntityDefinition },
  filter: unknown,
  exact: ExactFilter,
  at: string,
): Promise<RawBuilder<boolean>> {
  const words = [...exact.fuzzyWords].filter(toleratesTypos);
  if (words.length === 0) return exact.condition;
  const typos = await lookUpTypos(db, { connectorId: scope.connectorId, entity: scope.entity.name }, words);
  return compileFilter(filter, scope.entity, 'r', { at, typos });
}

/** A search filter (none: `true`) validated (a ValidationError otherwise) and compiled with the typos of its fuzzy words. */
export async function compileSearchFilter(
  db: Kysely<DatabaseSchema>,
  scope: { connectorId: string; entity: EntityDefinition },
  filter: unknown,
  at: string,
): Promise<RawBuilder<boolean>> {
  if (filter === undefined || filter === null) return sql<boolean>`true`;
  const noting = notingWords();
  const condition = compileFilter(filter, scope.entity, 'r', { at, typos: noting.typos });
  return withTypos(db, scope, filter, { condition, fuzzyWords: noting.words }, at);
}
