/**
 * `query.sort` and keyset paging. Each sort field orders by two keys: JSON numbers by value first, then
 * everything else by its text, lowercased, in code-point order ("C" collation, the same on every
 * store); numbers come before the other values and records missing the field come last in both directions
 * (desc reverses the order within each group). The record id breaks ties, ascending, so the
 * order is total and a page can resume strictly after the last record it returned, whatever records
 * arrive meanwhile.
 */
import { sql, type RawBuilder } from 'kysely';
import type { EntityDefinition, ErrorIssue } from '../../../runtime/index.js';
import { isSearchablePath, parsePath, unknownFieldMessage } from './fields.js';
import { SORT_INDEXED_FIELDS } from '../../db/migrations.js';
import { and, jsonAt, or, recordScope, textAt } from './sql.js';

export const MAX_SORT_FIELDS = 10;

export interface SortField {
  field: string;
  direction: 'asc' | 'desc';
}

/**
 * One ORDER BY key: its expression, its direction, the SQL type its cursor value is cast back to, and
 * the condition "the key is NULL" as the planner estimates it well. `key IS NOT DISTINCT FROM NULL` is
 * estimated to hold for no row at all (as `= NULL`): a resumed page (the cursor's condition holds it
 * for a key that is NULL at the cursor's row) would be planned as if it had a row or two to read.
 */
interface SortKey {
  expression: RawBuilder<unknown>;
  direction: 'asc' | 'desc';
  type: 'numeric' | 'text';
  isNull: RawBuilder<boolean>;
}

/** The sort fields of `query.sort` (an array of {field: "asc" | "desc"}), adding located issues for anything wrong. */
export function parseSort(sort: unknown, entity: EntityDefinition, at: string, issues: ErrorIssue[]): SortField[] {
  if (sort === undefined || sort === null) return [];
  const problem = (where: string, rule: string, message: string) => issues.push({ field: where, rule, message: `${where}: ${message}` });
  if (!Array.isArray(sort)) {
    problem(at, 'invalid_sort', 'sort is an array of {"field": "asc" | "desc"} objects');
    return [];
  }
  const fields: SortField[] = [];
  sort.forEach((item, index) => {
    const where = `${at}[${index}]`;
    if (item === null || typeof item !== 'object' || Array.isArray(item) || Object.keys(item).length === 0) {
      problem(where, 'invalid_sort', 'each sort entry is an object mapping a field to "asc" or "desc", e.g. {"updated_at": "desc"}');
      return;
    }
    for (const [field, direction] of Object.entries(item as Record<string, unknown>)) {
      const parsed = parsePath(field);
      if ('problem' in parsed) {
        problem(where, 'invalid_field', parsed.problem);
        continue;
      }
      if (!isSearchablePath(field, entity.search.fields)) {
        problem(where, 'unknown_field', unknownFieldMessage(field, entity.search.fields));
        continue;
      }
      const normalized = typeof direction === 'string' ? direction.toLowerCase() : direction;
      if (normalized !== 'asc' && normalized !== 'desc') {
        problem(where, 'invalid_sort', `the direction of '${field}' is "asc" or "desc", not ${JSON.stringify(direction)}`);
        continue;
      }
      fields.push({ field, direction: normalized });
    }
  });
  if (fields.length > MAX_SORT_FIELDS) problem(at, 'too_many', `sort takes at most ${MAX_SORT_FIELDS} fields`);
  return fields;
}

function sortKeys(fields: readonly SortField[], alias: string): SortKey[] {
  const scope = recordScope(alias);
  return fields.flatMap(({ field, direction }): SortKey[] => {
    const segments = field.split('.');
    const json = jsonAt(scope, segments);
    return [
      {
        expression: sql`(CASE WHEN jsonb_typeof(${json}) = 'number' THEN (${json})::numeric END)`,
        direction,
        type: 'numeric',
        // NULL exactly when the value is no JSON number (a number always converts).
        isNull: sql<boolean>`(jsonb_typeof(${json}) IS DISTINCT FROM 'number')`,
      },
      {
        expression: sql`(lower(${textAt(scope, segments)}) COLLATE "C")`,
        direction,
        type: 'text',
        isNull: sql<boolean>`(${textAt(scope, segments)} IS NULL)`,
      },
    ];
  });
}

/** One query of a sorted search: the records it reads (a condition on the first sort field) and their order. */
export interface SortPhase {
  where: RawBuilder<boolean>;
  orderBy: RawBuilder<unknown>;
}

/** The sort's SQL: key columns to select (as _k0, _k1...), the ORDER BY list, and how to resume after a row. */
export interface SortPlan {
  select: RawBuilder<unknown>;
  orderBy: RawBuilder<unknown>;
  /** The number of _k columns; a cursor carries that many values. */
  keyCount: number;
  /** Whether the first sort field has a sort index (migration 9): phases then reads it in order. */
  indexed: boolean;
  /** The whole order as one query (no condition): the order the phases return, one after the other. */
  whole: SortPhase;
  /** The condition "strictly after the row with these key values and this record id". */
  after(values: ReadonlyArray<string | null>, recordId: string): RawBuilder<boolean>;
  /**
   * The queries that return the records in order, run one after the other until a page is full,
   * starting with the one holding the cursor's row (its key values). When the first sort field has a
   * sort index (migration 9), three: records where it is a number, then records where it is other
   * JSON, then records missing it. Each reads the index in its order (forward for asc, backward for
   * desc: the NULLS placement of a key is irrelevant inside a query where it is never or always NULL)
   * and stops after a page, instead of sorting every match. Otherwise one query, the whole order.
   */
  phases(values?: ReadonlyArray<string | null>): SortPhase[];
}

const direction = (dir: 'asc' | 'desc') => sql.raw(dir === 'asc' ? 'ASC' : 'DESC');

export function sortPlan(fields: readonly SortField[], alias: string): SortPlan {
  const keys = sortKeys(fields, alias);
  const recordId = sql.ref(`${alias}.record_id`);
  const select = keys.length === 0 ? sql`` : sql`, ${sql.join(keys.map((key, index) => sql`${key.expression}::text AS ${sql.ref(`_k${index}`)}`))}`;
  const orderKeys = (from: number) => keys.slice(from).map((key) => sql`${key.expression} ${direction(key.direction)} NULLS LAST`);
  const orderBy = sql.join([...orderKeys(0), sql`${recordId} ASC`]);
  const first = fields[0];
  const indexed = first !== undefined && SORT_INDEXED_FIELDS.includes(first.field);
  return {
    select,
    orderBy,
    keyCount: keys.length,
    indexed,
    whole: { where: sql<boolean>`true`, orderBy },
    after(values, id) {
      // OR over i of (keys before i equal AND key i after): the expansion of a row comparison that
      // mixes directions and puts NULLs last.
      const terms: Array<RawBuilder<boolean>> = [];
      const equal: Array<RawBuilder<boolean>> = [];
      keys.forEach((key, index) => {
        const value = values[index] ?? null;
        const typed = value === null ? sql`NULL::${sql.raw(key.type)}` : key.type === 'numeric' ? sql`${value}::numeric` : sql`${value}`;
        if (value !== null) {
          const beyond = sql<boolean>`(${key.expression} IS NULL OR ${key.expression} ${sql.raw(key.direction === 'asc' ? '>' : '<')} ${typed})`;
          terms.push(and([...equal, beyond]));
        }
        equal.push(value === null ? key.isNull : sql<boolean>`${key.expression} IS NOT DISTINCT FROM ${typed}`);
      });
      terms.push(and([...equal, sql<boolean>`${recordId} > ${id}`]));
      return or(terms);
    },
    phases(values) {
      if (!indexed || first === undefined) return [{ where: sql<boolean>`true`, orderBy }];
      const [numeric, text] = keys as [SortKey, SortKey];
      const present = sql<boolean>`${textAt(recordScope(alias), [first.field])} IS NOT NULL`;
      // The index's own order in this direction (its keys are ASC NULLS LAST, read backward for desc).
      const indexOrder = sql.join([
        sql`${numeric.expression} ${direction(first.direction)} NULLS ${sql.raw(first.direction === 'asc' ? 'LAST' : 'FIRST')}`,
        sql`${text.expression} ${direction(first.direction)} NULLS ${sql.raw(first.direction === 'asc' ? 'LAST' : 'FIRST')}`,
        ...orderKeys(2),
        sql`${recordId} ASC`,
      ]);
      const numbers = values?.[0] ?? null;
      const texts = values?.[1] ?? null;
      // A redundant bound where the cursor is, so the index is read from there, not from the start.
      const from = (key: SortKey, value: string | null) =>
        value === null
          ? sql<boolean>`true`
          : sql<boolean>`${key.expression} ${sql.raw(first.direction === 'asc' ? '>=' : '<=')} ${key.type === 'numeric' ? sql`${value}::numeric` : sql`${value}`}`;
      const all: SortPhase[] = [
        { where: and([present, sql<boolean>`${numeric.expression} IS NOT NULL`, from(numeric, numbers)]), orderBy: indexOrder },
        // Written so it is no index condition: an index scan of the sort index in order, or the filter's
        // own indexes, serve this query; a bitmap of every record of the entity would not.
        {
          where: and([
            present,
            sql<boolean>`jsonb_typeof(${jsonAt(recordScope(alias), [first.field])}) <> 'number'`,
            from(text, numbers === null ? texts : null),
          ]),
          orderBy: indexOrder,
        },
        { where: sql<boolean>`${textAt(recordScope(alias), [first.field])} IS NULL`, orderBy: sql.join([...orderKeys(2), sql`${recordId} ASC`]) },
      ];
      if (values === undefined) return all;
      return all.slice(numbers !== null ? 0 : texts !== null ? 1 : 2);
    },
  };
}
