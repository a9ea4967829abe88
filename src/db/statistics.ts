import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/**
 * Planner statistics for tables that grow in bursts (the context store). PGlite runs no autovacuum, and
 * on PostgreSQL autovacuum lags a bulk load: without statistics the planner takes a table that grew from
 * nothing as tiny and scans where it should look rows up by index (seconds instead of milliseconds).
 * So writers report how many rows they wrote, and a table is analyzed once writes reach a fifth of what
 * its last ANALYZE saw (at least 500 rows); readers ask once per service that a table has statistics.
 */

type Db = Kysely<DatabaseSchema>;

export type StatisticsTable = 'context_records' | 'context_passages';

interface TableState {
  written: number;
  baseline: number;
  checked: boolean;
  running?: Promise<void>;
}

/**
 * What this service knows of its store's tables (rows written since the last ANALYZE, whether statistics
 * were checked). The composition root builds one per service over its store.
 */
export class TableStatistics {
  private readonly states = new Map<StatisticsTable, TableState>();

  constructor(private readonly db: Db) {}

  private stateOf(table: StatisticsTable): TableState {
    let state = this.states.get(table);
    if (!state) {
      state = { written: 0, baseline: 0, checked: false };
      this.states.set(table, state);
    }
    return state;
  }

  private async analyze(table: StatisticsTable, state: TableState): Promise<void> {
    state.running ??= (async () => {
      state.written = 0;
      await sql`ANALYZE ${sql.table(table)}`.execute(this.db);
      const { rows } = await sql<{ reltuples: number }>`SELECT reltuples FROM pg_class WHERE relname = ${table}`.execute(this.db);
      state.baseline = Math.max(0, Number(rows[0]?.reltuples ?? 0));
      state.checked = true;
    })().finally(() => {
      state.running = undefined;
    });
    await state.running;
  }

  /** Counts rows written to a table; analyzes it when enough changed since its last ANALYZE. */
  async noteRowsWritten(table: StatisticsTable, count: number): Promise<void> {
    const state = this.stateOf(table);
    state.written += count;
    if (state.written >= Math.max(500, state.baseline * 0.2)) await this.analyze(table, state);
  }

  /**
   * Counts rows written to a table and, when enough changed, analyzes it in the background: the writer
   * (a sync finishing an entity) does not wait for it; readers do (ensure), and so does settle().
   */
  noteRowsWrittenLater(table: StatisticsTable, count: number, onError: (error: unknown) => void): void {
    this.noteRowsWritten(table, count).catch(onError);
  }

  /** Waits for the analyses under way (before the store closes). */
  async settle(): Promise<void> {
    await Promise.all([...this.states.values()].map((state) => state.running?.catch(() => undefined)));
  }

  /**
   * Analyzes a table once per service if it has no column statistics yet (rows loaded by another
   * process); waits for an analysis of it under way, so a search right after a sync plans with its rows.
   */
  async ensure(table: StatisticsTable): Promise<void> {
    const state = this.stateOf(table);
    if (state.running) await state.running.catch(() => undefined);
    if (state.checked) return;
    const { rows } = await sql<{ analyzed: boolean; reltuples: number }>`
      SELECT EXISTS (SELECT 1 FROM pg_stats WHERE schemaname = current_schema() AND tablename = ${table}) AS analyzed,
             (SELECT reltuples FROM pg_class WHERE relname = ${table}) AS reltuples`.execute(this.db);
    const row = rows[0];
    if (!row?.analyzed) await this.analyze(table, state);
    else {
      state.baseline = Math.max(0, Number(row.reltuples));
      state.checked = true;
    }
  }
}
