/**
 * The RecordObservers of a service (src/context/observers.ts): registered where the service is composed
 * (src/composition.ts), called by the sync after each committed page with the changed records. They live
 * on the ServiceContext, so two services in one process (tests) do not see each other's records.
 */
import type { ServiceContext } from '../../service-context.js';
import type { RecordBatch, RecordObserver } from '../observers.js';

/** Adds an observer of the service's synced records; returns a function removing it. */
export function registerRecordObserver(ctx: ServiceContext, observer: RecordObserver): () => void {
  ctx.observers.push(observer);
  return () => {
    const index = ctx.observers.indexOf(observer);
    if (index >= 0) ctx.observers.splice(index, 1);
  };
}

export function recordObservers(ctx: ServiceContext): readonly RecordObserver[] {
  return ctx.observers;
}

/** Calls every observer in registration order; the first failure is thrown after all were called. */
export async function notifyObservers(ctx: ServiceContext, batch: RecordBatch): Promise<void> {
  if (batch.records.length === 0) return;
  let failure: unknown;
  for (const observer of recordObservers(ctx)) {
    try {
      await observer.recordsChanged(batch);
    } catch (error) {
      failure ??= error;
    }
  }
  if (failure !== undefined) throw failure;
}
