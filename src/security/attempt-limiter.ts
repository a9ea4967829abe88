/**
 * Failed sign-ins per source, for the token endpoint: each wrong client secret costs a scrypt hash (tens of
 * milliseconds of CPU), so a source that keeps failing is refused before hashing, and cannot starve the
 * token requests of every other organization. Successful requests never count. One process's memory:
 * processes sharing PostgreSQL each keep their own counts.
 */
export class AttemptLimiter {
  private readonly windows = new Map<string, { startedAt: number; failures: number; pending: number }>();

  constructor(
    private readonly maxFailures: number,
    private readonly windowMs: number,
    private readonly maxSources = 10_000,
    private readonly now: () => number = Date.now,
  ) {}

  /**
   * Seconds to wait before `source` may try again, or undefined when it may try now. Attempts under way
   * count as failures until they succeed, so a burst of concurrent wrong secrets is held to the limit too.
   */
  refusal(source: string): number | undefined {
    const window = this.current(source);
    if (window === undefined || window.failures + window.pending < this.maxFailures) return undefined;
    return Math.max(1, Math.ceil((window.startedAt + this.windowMs - this.now()) / 1000));
  }

  /** Marks an attempt under way; call `settle` with its outcome when it ends. */
  begin(source: string): void {
    let window = this.current(source);
    if (window === undefined) {
      if (this.windows.size >= this.maxSources) this.windows.delete(this.windows.keys().next().value as string);
      window = { startedAt: this.now(), failures: 0, pending: 0 };
      this.windows.set(source, window);
    }
    window.pending++;
  }

  settle(source: string, succeeded: boolean): void {
    const window = this.windows.get(source);
    if (window === undefined) return;
    window.pending = Math.max(0, window.pending - 1);
    if (!succeeded) window.failures++;
    if (window.failures === 0 && window.pending === 0) this.windows.delete(source);
  }

  /** The source's window, a new one begun (attempts under way kept) when the last has run out. */
  private current(source: string): { startedAt: number; failures: number; pending: number } | undefined {
    const window = this.windows.get(source);
    if (window === undefined || this.now() - window.startedAt < this.windowMs) return window;
    if (window.pending === 0) {
      this.windows.delete(source);
      return undefined;
    }
    window.startedAt = this.now();
    window.failures = 0;
    return window;
  }
}
