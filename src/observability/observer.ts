/**
 * What the runtime side of the service (execute, OAuth refreshes, the context store sync) reports
 * for metrics. Callers go through `observerOf(ctx)`; without metrics wired (the CLI, most tests) it
 * is a no-op, so the hot path pays one property read and an empty call.
 */
import { SwitchyardError } from '../errors.js';

export interface ServiceObserver {
  /** One operation sent to a vendor (an execute, a sync page): `outcome` is "success" or the error code. */
  upstreamCall(connectorType: string, outcome: string, seconds: number): void;
  /** An OAuth access token was refreshed; `rotated` when the vendor also issued a new refresh token. */
  tokenRefreshed(connectorType: string, rotated: boolean): void;
  /** One entity's sync run ended with `status` ("ready", "failed", "interrupted"...) after reading `records` and marking `deleted` deleted. */
  syncFinished(connectorType: string, status: string, records: number, deleted: number): void;
}

const silent: ServiceObserver = {
  upstreamCall: () => undefined,
  tokenRefreshed: () => undefined,
  syncFinished: () => undefined,
};

/** What carries the observer: the service context (src/service-context.ts); none means metrics are off. */
export interface Observed {
  observer?: ServiceObserver;
}

export function observerOf(ctx: Observed): ServiceObserver {
  return ctx.observer ?? silent;
}

/** The outcome label of a failed vendor call: the error's stable code, never its message. */
export function outcomeOf(error: unknown): string {
  return error instanceof SwitchyardError ? error.code : 'error';
}

/** Runs one vendor call and reports its outcome and duration. */
export async function observeUpstream<T>(ctx: Observed, connectorType: string, call: () => Promise<T>): Promise<T> {
  const { observer } = ctx;
  if (observer === undefined) return call();
  const started = performance.now();
  try {
    const result = await call();
    observer.upstreamCall(connectorType, 'success', (performance.now() - started) / 1000);
    return result;
  } catch (error) {
    observer.upstreamCall(connectorType, outcomeOf(error), (performance.now() - started) / 1000);
    throw error;
  }
}
