/**
 * A PostgreSQL connection of its own that holds a session-level advisory lock for as long as a process runs:
 * PostgreSQL releases the lock when the connection ends, so others can tell the process is gone (or has lost
 * its connection). A lost connection is replaced every 5 s and the lock taken again. The connection is checked
 * every 15 s (`verify`, which also keeps an idle_session_timeout from ending it), with TCP keepalives on, so a
 * connection a middlebox dropped without a word is noticed instead of trusted.
 */
import pg from 'pg';

const RECONNECT_MS = 5_000;
const HEARTBEAT_MS = 15_000;
/** A check not answered within this counts as a loss: a connection that died without a word leaves its query waiting for good. */
const HEARTBEAT_TIMEOUT_MS = 10_000;

export interface HeldConnection {
  /** Whether the lock is held now, as far as the last check knows (false from a loss until it is taken again). */
  readonly held: boolean;
  /** How many times the lock was lost: a holder that saw another count has had a gap in which it was not held. */
  readonly losses: number;
  release(): Promise<void>;
}

/**
 * Connects and runs `acquire` (which takes the lock: `again` is false the first time, true after a loss; it
 * throws when the lock cannot be taken, and is tried again); a failure of the first connection rejects. `verify`
 * tells whether the connection still holds the lock (default: it answers). `onLost` is told of each loss.
 */
export async function holdOnOwnConnection(
  databaseUrl: string,
  acquire: (client: pg.Client, again: boolean) => Promise<void>,
  onLost: (error: Error) => void,
  verify: (client: pg.Client) => Promise<boolean> = async (client) => (await client.query('SELECT 1')).rowCount === 1,
): Promise<HeldConnection> {
  let client: pg.Client | undefined;
  let released = false;
  let losses = 0;
  let retry: NodeJS.Timeout | undefined;
  const lose = (lost: pg.Client, error: Error) => {
    if (released || client !== lost) return;
    losses += 1;
    client = undefined;
    onLost(error);
    lost.end().catch(() => undefined);
    schedule();
  };
  const connect = async (): Promise<void> => {
    const next = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 5000, keepAlive: true, keepAliveInitialDelayMillis: 10_000 });
    next.on('error', (error: Error) => lose(next, error));
    try {
      await next.connect();
      // The server's side of the keepalives: a machine that vanished frees its lock within about a minute, not hours.
      await next.query('SET tcp_keepalives_idle = 30; SET tcp_keepalives_interval = 10; SET tcp_keepalives_count = 3').catch(() => undefined);
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
    }, RECONNECT_MS);
    retry.unref();
  };
  let checking = false;
  const heartbeat = setInterval(() => {
    const current = client;
    if (current === undefined || checking) return;
    checking = true;
    let timer: NodeJS.Timeout | undefined;
    const unanswered = new Promise<boolean>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`the connection did not answer its check within ${HEARTBEAT_TIMEOUT_MS / 1000} s`)), HEARTBEAT_TIMEOUT_MS);
    });
    Promise.race([verify(current), unanswered])
      .then(
        (holds) => {
          if (!holds) lose(current, new Error('the connection no longer holds its lock'));
        },
        (error: unknown) => lose(current, error instanceof Error ? error : new Error(String(error))),
      )
      .finally(() => {
        clearTimeout(timer);
        checking = false;
      });
  }, HEARTBEAT_MS);
  heartbeat.unref();
  try {
    await connect();
  } catch (error) {
    clearInterval(heartbeat);
    throw error;
  }
  return {
    get held() {
      return !released && client !== undefined;
    },
    get losses() {
      return losses;
    },
    async release() {
      released = true;
      clearInterval(heartbeat);
      if (retry !== undefined) clearTimeout(retry);
      await client?.end().catch(() => undefined);
    },
  };
}
