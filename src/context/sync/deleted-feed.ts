/**
 * A vendor's feed of deleted records (the manifest's incremental.deleted_feed: Salesforce's sObject Get
 * Deleted): the range an incremental sync asks it for, the params that carry the range, and the ids of the
 * deleted records in an answer. A change filter never reports a deletion; with a feed, an incremental sync
 * finds them without waiting for the full sweep.
 */
import { formatInstant } from '../../../runtime/instants.js';
import { getPath } from '../../../runtime/paths.js';
import type { EntityDefinition } from '../../../runtime/index.js';
import type { ChangeFilter, IncrementalState } from './incremental.js';

export type DeletedFeed = NonNullable<ChangeFilter['deletedFeed']>;

/** The entity's deleted feed, or undefined when only its full sweeps find deletions. */
export function deletedFeedOf(entity: EntityDefinition): DeletedFeed | undefined {
  return entity.search.incremental?.deletedFeed;
}

/**
 * Where the feed is read from: the start of the entity's last complete sync (of either mode) minus the
 * change filter's overlap, so that each incremental sync covers the deletions since the one before it
 * (the full sweep before that found the older ones).
 */
export function deletionsSince(filter: ChangeFilter, state: IncrementalState): Date | undefined {
  return state.syncedThrough === null ? undefined : new Date(state.syncedThrough.getTime() - filter.overlapSeconds * 1000);
}

/** The query params that ask the feed for the deletions from `since` to `now`. */
export function feedRangeParams(feed: DeletedFeed, since: Date, now: Date): Record<string, string> {
  return { [feed.from]: String(formatInstant(since, feed.format, now)), [feed.to]: String(formatInstant(now, feed.format, now)) };
}

/** The record ids (as text, as records are stored) of the deleted records the feed lists. */
export function deletedIds(records: unknown[], feed: DeletedFeed): string[] {
  const ids: string[] = [];
  for (const record of records) {
    const id = getPath(record, feed.idField);
    if (typeof id === 'string' ? id !== '' : typeof id === 'number') ids.push(String(id));
  }
  return ids;
}
