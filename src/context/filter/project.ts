/** Projection of stored records onto field paths (the entity's searchable fields, or the `fields` a search asks for). */
import { selectPaths } from '../../field-paths.js';

/** The record reduced to the given dot paths. */
export function projectFields(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return selectPaths(record, fields) as Record<string, unknown>;
}
