/**
 * Records the vendor keeps but counts as deleted (the manifest's search.removed: Notion's trashed pages,
 * Linear's archived issues), recognised by a field set on them wherever the sync reads them.
 */
import type { SearchDefinition } from '../../../runtime/index.js';
import { getPath } from '../../../runtime/paths.js';

export type Removed = NonNullable<SearchDefinition['removed']>;

/** Whether a record's removal field is set: neither absent, null, false nor empty. */
export function isRemoved(data: unknown, removed: Removed): boolean {
  const mark = getPath(data, removed.field);
  return !(mark === undefined || mark === null || mark === false || mark === '');
}

/** The records a walk read as removed, by the last state the walk read each in: a record read removed and then live again stays. */
export class RemovedRecords {
  private readonly ids = new Set<string>();

  constructor(private readonly removed: Removed) {}

  /** Takes a page in the order read; returns its live records, to store. */
  live<T extends { recordId: string; data: unknown }>(records: T[]): T[] {
    const kept: T[] = [];
    for (const record of records) {
      if (isRemoved(record.data, this.removed)) this.ids.add(record.recordId);
      else {
        this.ids.delete(record.recordId);
        kept.push(record);
      }
    }
    return kept;
  }

  /** The ids whose last reading was removed. */
  get recordIds(): string[] {
    return [...this.ids];
  }
}
