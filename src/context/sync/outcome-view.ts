import type { EntityOutcome } from './engine.js';
import type { EntityOutcomeView } from '../../api-shapes.js';

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
