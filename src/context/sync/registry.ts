/**
 * The RecordObservers of a service (src/context/observers.ts): registered once where the service is
 * wired (the app, the CLI), called by the sync after each committed page with the changed records.
 * Kept per ServiceContext, so two services in one process (tests) do not see each other's records.
 */
import type { ServiceContext } from '../../service-context.js';
import type { RecordBatch, RecordObserver } from '../observers.js';

const registry = new WeakMap<ServiceContext, RecordObserver[]>();

/** Adds an observer of the service's synced records; returns a function removing it. */
export function registerRecordObserver(ctx: ServiceContext, observer: RecordObserver): () => void {
  const list = registry.get(ctx) ?? [];
  list.push(observer);
  registry.set(ctx, list);
  return () => {
    const current = registry.get(ctx);
    if (!current) return;
    const index = current.indexOf(observer);
    if (index >= 0) current.splice(index, 1);
  };
}

export function recordObservers(ctx: ServiceContext): readonly RecordObserver[] {
  return registry.get(ctx) ?? [];
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
