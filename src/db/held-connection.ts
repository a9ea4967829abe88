/**
 * A PostgreSQL connection of its own that holds a session-level advisory lock for as long as a process runs:
 * PostgreSQL releases the lock when the connection ends, so others can tell the process is gone (or has lost
 * its connection). A lost connection is replaced every 5 s and the lock taken again.
 */
import pg from 'pg';

export interface HeldConnection {
  /** Whether the lock is held now (false from a lost connection until it is taken again). */
  readonly held: boolean;
  /** How many times the lock was lost: a holder that saw another count has had a gap in which it was not held. */
  readonly losses: number;
  release(): Promise<void>;
}

/**
 * Connects and runs `acquire` (which takes the lock: `again` is false the first time, true after a loss); a
 * failure of the first connection rejects, later ones are retried. `onLost` is told of each lost connection.
 */
export async function holdOnOwnConnection(
  databaseUrl: string,
  acquire: (client: pg.Client, again: boolean) => Promise<void>,
  onLost: (error: Error) => void,
): Promise<HeldConnection> {
  let client: pg.Client | undefined;
  let released = false;
  let losses = 0;
  let retry: NodeJS.Timeout | undefined;
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000 });
    next.on('error', (error: Error) => {
      if (released || client !== next) return;
      losses += 1;
      onLost(error);
      client = undefined;
      next.end().catch(() => undefined);
      schedule();
    });
    try {
      await next.connect();
      await acquire(next, losses > 0);
    } catch (error) {
      await next.end().catch(() => undefined);
      throw error;
    }
    if (released) {
      await next.end().catch(() => undefined);
      return;
    }
    client = next;
  };
  const schedule = () => {
    if (released || retry !== undefined) return;
    retry = setTimeout(() => {
      retry = undefined;
      connect().catch(() => schedule());
    }, 5000);
    retry.unref();
  };
  await connect();
  return {
    get held() {
      return !released && client !== undefined;
    },
    get losses() {
      return losses;
    },
    async release() {
      released = true;
      if (retry !== undefined) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
