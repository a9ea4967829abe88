/**
 * The claim a sync job holds on the entities it syncs. One sync per connector at a time is the job
 * queue's guarantee (queue.ts: pg-boss, one active job per connector through its singleton key), so
 * no lock is taken here; what is left is knowing when that guarantee ends: the queue fails a job that
 * runs longer than its expiration and may hand it (retried) to another process, and on PostgreSQL the
 * others hand back the jobs of a process whose runner lock they can take (runner-lock.ts). The claim is
 * marked lost shortly before the expiration, or as soon as the runner lock is not held or was lost since
 * the job began, and the sync stops before its next write.
 */
export interface SyncLock {
  readonly connectorId: string;
  readonly entity: string;
  /** Set when the claim can no longer be trusted (the job is about to expire, or the queue stopped). */
  readonly lost: boolean;
  release(): Promise<void>;
}

export class JobClaim implements SyncLock {
  private released = false;

  constructor(
    readonly connectorId: string,
    readonly entity: string,
    /** Epoch ms after which another process may run this job again. */
    private readonly validUntil: number,
    /** Whether this process still holds the runner lock it held when the job began (PostgreSQL). */
    private readonly runnerHeld: () => boolean = () => true,
  ) {}

  get lost(): boolean {
    return !this.released && (Date.now() >= this.validUntil || !this.runnerHeld());
  }

  /** The entity is done; completing the job (the queue) is what lets the next sync of the connector start. */
  async release(): Promise<void> {
    this.released = true;
  }
}
