import type { EntityOutcome } from './engine.js';

/** How an entity's sync outcome is shown to callers: the `results` of POST .../sync and `switchyard sync --json`. */
export interface EntityOutcomeView {
  entity: string;
  status: EntityOutcome['status'];
  mode?: NonNullable<EntityOutcome['mode']>;
  records: number;
  changed: number;
  deleted: number;
  unconfirmed_deletions: number;
  pages: number;
  record_count: number;
  seconds: number;
  reason?: string;
}

export function entityOutcomeView(outcome: EntityOutcome): EntityOutcomeView {
  return {
    entity: outcome.entity,
    status: outcome.status,
    ...(outcome.mode !== undefined && { mode: outcome.mode }),
    records: outcome.records,
    changed: outcome.changed,
    deleted: outcome.deleted,
    unconfirmed_deletions: outcome.unconfirmed,
    pages: outcome.pages,
    record_count: outcome.recordCount,
    seconds: Math.round(outcome.elapsedMs) / 1000,
    ...(outcome.reason !== undefined && { reason: outcome.reason }),
  };
}
