/**
 * The statements pg-boss sends when a worker's job ends (complete, or fail and maybe retry). pg-boss does
 * not wait for them (manager.js, work: `this.complete(...)` / `this.fail(...)` without await), so one that
 * fails while PostgreSQL is down is an unhandled rejection, which ends the process. The sync queue's
 * connection waits for the store instead (src/context/sync/service.ts). Their text comes from pg-boss's own
 * plans, so they are recognised exactly (pg-boss is pinned; a change there only loses the wait).
 */
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const plans = require('pg-boss/src/plans.js') as { completeJobs(schema: string): string; failJobsById(schema: string): string };

export function jobSettleStatements(schema: string): Set<string> {
  return new Set([plans.completeJobs(schema), plans.failJobsById(schema)]);
}
