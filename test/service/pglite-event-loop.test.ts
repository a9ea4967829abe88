/**
 * The embedded store (PGlite) answers through promise callbacks alone; the pool lets the event loop turn
 * before each query, so a long run of queries (the semantic index catching up) does not hold back timers
 * and incoming requests until it ends.
 */
import { sql } from 'kysely';
import { describe, expect, it } from 'vitest';
import { openMemoryStore } from '../support/store.js';

describe('the embedded store (PGlite) between queries', () => {
  it('lets timers run while queries follow one another', async () => {
    const store = await openMemoryStore();
    try {
      let firedAfter: number | undefined;
      let done = 0;
      const timer = new Promise<void>((resolve) =>
        setTimeout(() => {
          firedAfter = done;
          resolve();
        }, 5),
      );
      // PGlite answers through promise callbacks alone: without a turn of the event loop between queries,
      // the timer would fire only after the last of them.
      const started = performance.now();
      while (performance.now() - started < 300) {
        await sql`SELECT 1`.execute(store.db);
        done += 1;
      }
      await timer;
      expect(firedAfter).toBeDefined();
      expect(firedAfter).toBeLessThan(done);
    } finally {
      await store.close();
    }
  });
});
