/** What the sync tells other parts of the context store (the semantic index) about the records it wrote. */

export interface SyncedRecord {
  recordId: string;
  data: Record<string, unknown>;
}

export interface RecordBatch {
  organizationId: string;
  connectorId: string;
  entity: string;
  /** Records that are new or whose content changed in this page (unchanged records are not listed). */
  records: SyncedRecord[];
}

/** Called by the sync after each page is committed; must be idempotent (a retried page calls it again). */
export interface RecordObserver {
  recordsChanged(batch: RecordBatch): Promise<void>;
}
