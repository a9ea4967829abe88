import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { EntityDefinition } from '../../../runtime/index.js';
import type { DatabaseSchema } from '../../db/schema.js';
import { lookUpTypos } from '../typos.js';
import { compileFilter, fuzzyWordsOf } from './compile.js';

/** A validated search filter (none: `true`) compiled with the typos of its fuzzy words, looked up in the entity's words first (src/context/typos.ts). */
export async function compileSearchFilter(
  db: Kysely<DatabaseSchema>,
  scope: { connectorId: string; entity: EntityDefinition },
  filter: unknown,
  at: string,
): Promise<RawBuilder<boolean>> {
  if (filter === undefined || filter === null) return sql<boolean>`true`;
  const typos = await lookUpTypos(db, { connectorId: scope.connectorId, entity: scope.entity.name }, fuzzyWordsOf(filter));
  return compileFilter(filter, scope.entity, 'r', { at, typos });
}
