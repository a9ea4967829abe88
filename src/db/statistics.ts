import { sql, type Kysely } from 'kysely';
import type { DatabaseSchema } from './schema.js';

/**
 * Planner statistics for tables that grow in bursts (the context store). PGlite runs no autovacuum, and
 * on PostgreSQL autovacuum lags a bulk load: without statistics the planner takes a table that grew from
 * nothing as tiny and scans where it should look rows up by index (seconds instead of milliseconds).
 * So writers report how many rows they wrote, and a table is analyzed once writes reach a fifth of what
 * its last ANALYZE saw (at least 500 rows), or once the rows written to one scope (a connector's entity)
 * reach three times what the last ANALYZE saw of it (at least 500): a new connector's first sync is a small
 * part of a large table, yet without it the planner estimates its scope at one row (a semantic search of 3000
 * such passages looked up every record of the scope for each passage: 640 ms instead of 30). Readers ask once
 * per service that a table has statistics.
 */

type Db = Kysely<DatabaseSchema>;

export type StatisticsTable = 'context_records' | 'context_passages';

/** Rows a writer wrote to a table, in one scope: a connector's entity. */
export interface WrittenRows {
  connectorId: string;
  entity: string;
  count: number;
}

interface ScopeState {
  /** Rows written since the table's last ANALYZE. */
  written: number;
  /** Rows written before it (what that ANALYZE saw, as far as this process knows). */
  known: number;
}

interface TableState {
  written: number;
  baseline: number;
  checked: boolean;
  scopes: Map<string, ScopeState>;
  running?: Promise<void>;
}

/** Rows written to a table since its last ANALYZE that make a new one worth it (and to a scope, times what it saw). */
const MIN_ROWS_BEFORE_ANALYZE = 500;
const TABLE_GROWTH_BEFORE_ANALYZE = 0.2;
const SCOPE_GROWTH_BEFORE_ANALYZE = 3;

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
      state = { written: 0, baseline: 0, checked: false, scopes: new Map() };
      this.states.set(table, state);
    }
    return state;
  }

  private async analyze(table: StatisticsTable, state: TableState): Promise<void> {
    state.running ??= (async () => {
      state.written = 0;
      for (const scope of state.scopes.values()) {
        scope.known += scope.written;
        scope.written = 0;
      }
      await sql`ANALYZE ${sql.table(table)}`.execute(this.db);
      const { rows } = await sql<{ reltuples: number }>`SELECT reltuples FROM pg_class WHERE relname = ${table}`.execute(this.db);
      state.baseline = Math.max(0, Number(rows[0]?.reltuples ?? 0));
      state.checked = true;
    })().finally(() => {
      state.running = undefined;
    });
    await state.running;
  }

  /** Counts rows written to a table; analyzes it when enough changed since its last ANALYZE, in the table or in the scope. */
  async noteRowsWritten(table: StatisticsTable, rows: WrittenRows): Promise<void> {
    const state = this.stateOf(table);
    state.written += rows.count;
    const key = `${rows.connectorId}:${rows.entity}`;
    let scope = state.scopes.get(key);
    if (!scope) {
      scope = { written: 0, known: 0 };
      state.scopes.set(key, scope);
    }
    scope.written += rows.count;
    const tableGrew = state.written >= Math.max(MIN_ROWS_BEFORE_ANALYZE, state.baseline * TABLE_GROWTH_BEFORE_ANALYZE);
    const scopeGrew = scope.written >= Math.max(MIN_ROWS_BEFORE_ANALYZE, scope.known * SCOPE_GROWTH_BEFORE_ANALYZE);
    if (tableGrew || scopeGrew) await this.analyze(table, state);
  }

  /**
   * Counts rows written to a table and, when enough changed, analyzes it in the background: the writer
   * (a sync finishing an entity) does not wait for it; readers do (ensure), and so does settle().
   */
  noteRowsWrittenLater(table: StatisticsTable, rows: WrittenRows, onError: (error: unknown) => void): void {
    this.noteRowsWritten(table, rows).catch(onError);
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
