import { uuidv7 } from 'uuidv7';

/**
 * The id of a new stored resource (organization, workspace, connector, source template): a UUID version 7,
 * time-ordered and increasing within the process. Lists are ordered by `created_at`, then `id`; PGlite's clock
 * counts milliseconds, so resources created in the same millisecond are told apart by their ids, in the order
 * they were created (random version 4 ids listed them in any order).
 */
export function newResourceId(): string {
  return uuidv7();
}
