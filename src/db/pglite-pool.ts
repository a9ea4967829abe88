import type { PGlite } from '@electric-sql/pglite';
import type { PostgresPool, PostgresPoolClient, PostgresQueryResult } from 'kysely';

/**
 * Presents one embedded PGlite instance as the pool Kysely's PostgresDialect expects. PGlite has a
 * single connection, so a client is lent to one caller at a time (a transaction keeps it).
 */
export class PGlitePool implements PostgresPool {
  private queue: Promise<void> = Promise.resolve();
  /** Callers waiting for the connection, and whether it is lent (for the store pool metrics). */
  private waiting = 0;
  private lent = false;

  constructor(private readonly pglite: PGlite) {}

  async connect(): Promise<PostgresPoolClient> {
    // PGlite answers through promise callbacks alone: a caller running queries back to back (the semantic
    // index catching up) would keep the event loop from its timers and I/O (incoming requests, the sync
    // queue's polls, time-outs) until it stopped. Each lend of the connection first lets the loop turn.
    await new Promise<void>((resolve) => setImmediate(resolve));
    let release!: () => void;
    const turn = new Promise<void>((resolve) => {
      release = resolve;
    });
    const previous = this.queue;
    this.queue = previous.then(() => turn);
    this.waiting += 1;
    await previous;
    this.waiting -= 1;
    this.lent = true;
    const returned = release;
    release = () => {
      this.lent = false;
      returned();
    };
    const pglite = this.pglite;
    return {
      async query<R>(sql: string, parameters: ReadonlyArray<unknown>): Promise<PostgresQueryResult<R>> {
        // Without parameters use the simple protocol, which (like pg) accepts several statements.
        const result =
          parameters.length === 0 ? ((await pglite.exec(sql)).at(-1) ?? { rows: [], affectedRows: 0 }) : await pglite.query<R>(sql, parameters as unknown[]);
        const command = (sql.trimStart().split(/\s/, 1)[0] ?? '').toUpperCase() as PostgresQueryResult<R>['command'];
        return { command, rowCount: result.affectedRows ?? result.rows.length, rows: result.rows as R[] };
      },
      release,
    } as unknown as PostgresPoolClient;
  }

  state(): { total: number; idle: number; waiting: number } {
    return { total: 1, idle: this.lent ? 0 : 1, waiting: this.waiting };
  }

  async end(): Promise<void> {
    await this.pglite.close();
  }
}
