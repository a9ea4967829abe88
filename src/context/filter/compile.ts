/**
 * The filter language of context_store_search (filter mode's `query.filter`, semantic mode's
 * `semantic.filter`) compiled to one SQL condition over context_records.data. Semantics are documented
 * in docs/api-reference.md, "Context store search"; in short:
 *
 * - A filter is an object keyed by operator; several operators in one object must all hold. Comparison
 *   operators map field paths to values (several fields must all hold); `and`/`or` take non-empty arrays
 *   of filters, `not` a filter, `any` maps an array field to a filter its elements are matched against.
 * - Every problem is reported at once, each with where it is (`query.filter.and[1].eq`) and what is
 *   wrong, as a 400 validation error; nothing runs.
 */
import { sql, type RawBuilder } from 'kysely';
import { ValidationError, type EntityDefinition, type ErrorIssue } from '../../../runtime/index.js';
import { declaredTypes, ELEMENT_PATH, isSearchablePath, parsePath, unknownFieldMessage } from './fields.js';
import { and, escapeLike, likePattern, jsonAt, jsonEquals, jsonParam, nest, not, or, recordScope, textAt, type Scope } from './sql.js';
import { TRIGRAM_INDEXED_FIELDS } from '../../db/migrations.js';
import { wordsOf, type TypoVariants } from '../typos.js';
import { isNumericText, isoInstantSeconds, utcDay, utcSecond } from './values.js';

export const COMPARISON_OPERATORS = [
  'eq',
  'neq',
  'gt',
  'gte',
  'lt',
  'lte',
  'in',
  'like',
  'startswith',
  'endswith',
  'contains',
  'array_contains',
  'fuzzy',
  'keyword',
] as const;
export const LOGICAL_OPERATORS = ['and', 'or', 'not', 'any'] as const;
export const OPERATORS: readonly string[] = [...COMPARISON_OPERATORS, ...LOGICAL_OPERATORS];

type ComparisonOperator = (typeof COMPARISON_OPERATORS)[number];

export const MAX_FILTER_DEPTH = 32;
export const MAX_BRANCHES = 100;
export const MAX_IN_VALUES = 1000;
export const MAX_KEYWORDS = 32;
export const MAX_FUZZY_WORDS = 16;
export const MAX_FILTER_FUZZY_WORDS = 64;
export const MAX_TEXT_LENGTH = 1000;
/**
 * Comparisons (a field of an operator) in a whole filter. Each is a condition the database plans, and PostgreSQL's
 * planner weighs combinations of the indexable ones: on a store of 320 records, 500 equalities ANDed took 7 s and
 * 1000 took 28 s, while one `in` of 1000 values (one comparison) took 0.2 s.
 */
export const MAX_FILTER_COMPARISONS = 200;
/** Levels of nesting of a comparison value (an object or array compared whole). */
export const MAX_VALUE_DEPTH = 32;
/** Values of every `in` of a filter together: each value is a condition (an `in` is their OR) and up to five query parameters, of the 65 535 a statement takes. */
export const MAX_FILTER_IN_VALUES = 2000;
const MAX_ISSUES = 50;

/**
 * A valid UTC timestamp to the second or finer ("2024-01-05T10:00:00Z", "...:00.123+00:00"); days
 * 29-31 are left to switchyard_instant, which knows month lengths.
 */
const UTC_SECOND = '^\\d{4}-(0[1-9]|1[0-2])-(0[1-9]|1\\d|2[0-8])T([01]\\d|2[0-3]):[0-5]\\d:[0-5]\\d(\\.\\d{1,9})?([Zz]|\\+00:?00)$';

const RANGE_SQL = { gt: '>', gte: '>=', lt: '<', lte: '<=' } as const;
type RangeOperator = keyof typeof RANGE_SQL;
type InstantOperator = '=' | '>' | '>=' | '<' | '<=';

/** A field a condition reads: where it is, and what its schema declares (top-level record fields only). */
interface FieldRef {
  name: string;
  segments: string[];
  scope: Scope;
  types: Set<string> | undefined;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function typeName(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'object') return 'an object';
  return `a ${typeof value}`;
}

function only(types: Set<string> | undefined, ...allowed: string[]): boolean {
  return types !== undefined && [...types].every((type) => allowed.includes(type));
}

/**
 * Whether every literal character of a LIKE pattern appears as itself in JSON text: not `"`, `\` or a
 * control character (JSON escapes them). `\%` and `\_` are the literal % and _.
 */
function literalInJsonText(pattern: string): boolean {
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] as string;
    if (char === '\\') {
      const next = pattern[index + 1];
      if (next !== '%' && next !== '_') return false;
      index += 1;
    } else if (char === '"' || char < ' ') {
      return false;
    }
  }
  return true;
}

/**
 * A condition on a record field that implies its value matches the case-insensitive LIKE pattern,
 * with the same pattern on the record's value text added (`%` around it: the value is somewhere in
 * it, as itself), which the trigram index of migration 11 serves. Not inside `any` (the element is not
 * a record).
 */
function withTextIndex(scope: Scope, exact: RawBuilder<boolean>, pattern: string): RawBuilder<boolean> {
  if (!scope.record) return exact;
  return sql<boolean>`(${opaque(exact)} AND switchyard_value_text(${scope.base}) ILIKE ${`%${pattern}%`})`;
}

/** A top-level record field with its own trigram index (migration 9): its text conditions are served by it as they are. */
function ownTrigramIndex(scope: Scope, segments: readonly string[]): boolean {
  return scope.record && segments.length === 1 && TRIGRAM_INDEXED_FIELDS.includes(segments[0] as string);
}

/**
 * The condition as a CASE, which the planner estimates as matching half the rows: left bare, its type
 * test and pattern (`jsonb_typeof(...) = 'string'`, 0.5% each by default, no statistics on JSON paths)
 * multiply into "almost nothing matches", and the planner reads every candidate of the trigram index and
 * sorts them even when the matches are common. So the estimate comes from the text condition (which has
 * statistics: the expression index of migration 9 or 11) and a common match reads in order instead.
 */
function opaque(condition: RawBuilder<boolean>): RawBuilder<boolean> {
  return sql<boolean>`(CASE WHEN ${condition} THEN true ELSE false END)`;
}

/**
 * Why an object or array compared as a value cannot be (nested deeper than MAX_VALUE_DEPTH, or holding text
 * over MAX_TEXT_LENGTH anywhere inside; a value that is text itself is judged by its operator), walked
 * without recursion.
 */
function valueProblem(value: unknown): { rule: string; message: string } | undefined {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }];
  while (stack.length > 0) {
    const { value: item, depth } = stack.pop() as { value: unknown; depth: number };
    if (typeof item === 'string' && depth > 0 && item.length > MAX_TEXT_LENGTH)
      return { rule: 'invalid_value', message: `holds text longer than ${MAX_TEXT_LENGTH} characters` };
    if (item === null || typeof item !== 'object') continue;
    if (depth >= MAX_VALUE_DEPTH) return { rule: 'too_deep', message: `nests deeper than ${MAX_VALUE_DEPTH} levels` };
    for (const child of Object.values(item)) stack.push({ value: child, depth: depth + 1 });
  }
  return undefined;
}

/** A count a whole filter may not exceed: over it, the problem is told once, where it overflows. */
class FilterLimit {
  private used = 0;

  constructor(
    private readonly max: number,
    private readonly message: string,
  ) {}

  /** Adds `count`; whether the filter is still within the limit (`report` is told the problem the first time it is not). */
  take(count: number, report: (message: string) => void): boolean {
    const before = this.used;
    this.used += count;
    if (this.used <= this.max) return true;
    if (before <= this.max) report(this.message);
    return false;
  }
}

class FilterCompiler {
  private elementAliases = 0;
  private readonly fuzzyWords = new Set<string>();
  private readonly fuzzyWordLimit = new FilterLimit(MAX_FILTER_FUZZY_WORDS, `a filter takes at most ${MAX_FILTER_FUZZY_WORDS} distinct fuzzy words in all`);
  private readonly comparisonLimit = new FilterLimit(
    MAX_FILTER_COMPARISONS,
    `a filter makes at most ${MAX_FILTER_COMPARISONS} comparisons in all (each field of an operator is one)`,
  );
  private readonly inValueLimit = new FilterLimit(MAX_FILTER_IN_VALUES, `the in operators of a filter take at most ${MAX_FILTER_IN_VALUES} values in all`);

  constructor(
    private readonly entity: EntityDefinition,
    private readonly issues: ErrorIssue[],
    private readonly typos: TypoVariants,
  ) {}

  private problem(at: string, rule: string, message: string): RawBuilder<boolean> {
    if (this.issues.length < MAX_ISSUES) this.issues.push({ field: at, rule, message: `${at}: ${message}` });
    return sql<boolean>`false`;
  }

  filter(value: unknown, at: string, scope: Scope, depth: number): RawBuilder<boolean> {
    if (depth > MAX_FILTER_DEPTH) return this.problem(at, 'too_deep', `filters nest at most ${MAX_FILTER_DEPTH} levels`);
    if (!isObject(value)) {
      return this.problem(at, 'invalid_filter', `a filter is an object keyed by operator (e.g. {"eq": {"status": "open"}}), not ${typeName(value)}`);
    }
    const { parts, taken } = this.instantRanges(value, scope);
    for (const [operator, operand] of Object.entries(value)) {
      const where = `${at}.${operator}`;
      switch (operator) {
        case 'and':
        case 'or': {
          if (!Array.isArray(operand) || operand.length === 0) {
            parts.push(
              this.problem(
                where,
                'invalid_filter',
                `${operator} takes a non-empty array of filters, not ${Array.isArray(operand) ? 'an empty array' : typeName(operand)}`,
              ),
            );
            break;
          }
          if (operand.length > MAX_BRANCHES) {
            parts.push(this.problem(where, 'too_many', `${operator} takes at most ${MAX_BRANCHES} filters`));
            break;
          }
          const branches = operand.map((item, index) => this.filter(item, `${where}[${index}]`, scope, depth + 1));
          parts.push(operator === 'and' ? and(branches) : or(branches));
          break;
        }
        case 'not':
          parts.push(not(this.filter(operand, where, scope, depth + 1)));
          break;
        case 'any':
          parts.push(this.any(operand, where, scope, depth));
          break;
        default:
          if ((COMPARISON_OPERATORS as readonly string[]).includes(operator)) {
            parts.push(this.comparisons(operator as ComparisonOperator, operand, where, scope, taken));
          } else {
            parts.push(this.problem(at, 'unknown_operator', `unknown operator '${operator}'; operators: ${OPERATORS.join(', ')}`));
          }
      }
    }
    return and(parts);
  }

  /** Resolves a field path of a condition: a searchable path on records, any path (or `$`) inside `any`. */
  private field(name: string, at: string, scope: Scope): FieldRef | undefined {
    if (!scope.record && name === ELEMENT_PATH) return { name, segments: [], scope, types: undefined };
    const parsed = parsePath(name);
    if ('problem' in parsed) {
      this.problem(at, 'invalid_field', parsed.problem);
      return undefined;
    }
    if (scope.record && !isSearchablePath(name, this.entity.search.fields)) {
      const hint = name === ELEMENT_PATH ? ` ('${ELEMENT_PATH}' names an array element only inside any)` : '';
      this.problem(at, 'unknown_field', unknownFieldMessage(name, this.entity.search.fields) + hint);
      return undefined;
    }
    return { name, segments: parsed.segments, scope, types: scope.record ? declaredTypes(this.entity, parsed.segments) : undefined };
  }

  private comparisons(operator: ComparisonOperator, operand: unknown, at: string, scope: Scope, taken: ReadonlySet<string> = new Set()): RawBuilder<boolean> {
    if (!isObject(operand) || Object.keys(operand).length === 0) {
      return this.problem(
        at,
        'invalid_filter',
        `${operator} maps field names to values (e.g. {"${operator}": {"status": "open"}}), not ${isObject(operand) ? 'an empty object' : typeName(operand)}`,
      );
    }
    const parts: Array<RawBuilder<boolean>> = [];
    for (const [name, value] of Object.entries(operand)) {
      if (taken.has(`${operator} ${name}`)) continue;
      const field = this.field(name, at, scope);
      if (!field) continue;
      const problem = valueProblem(value);
      if (problem) {
        parts.push(this.problem(at, problem.rule, `the value for '${name}' ${problem.message}`));
        continue;
      }
      if (!this.comparisonLimit.take(1, (message) => this.problem(at, 'too_many', message))) continue;
      parts.push(this.comparison(operator, field, value, at));
    }
    return and(parts);
  }

  private comparison(operator: ComparisonOperator, field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    switch (operator) {
      case 'eq':
        return this.equals(field, value, at);
      case 'neq':
        return not(this.equals(field, value, at));
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte':
        return this.range(operator, field, value, at);
      case 'in':
        return this.in(field, value, at);
      case 'like':
      case 'startswith':
      case 'endswith':
        return this.pattern(operator, field, value, at);
      case 'contains':
        return this.contains(field, value, at);
      case 'array_contains':
        return this.arrayContains(field, value, at);
      case 'fuzzy':
        return this.fuzzy(field, value, at);
      case 'keyword':
        return this.keyword(field, value, at);
    }
  }

  private equals(field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    const { scope, segments, types } = field;
    if (value === null) return sql<boolean>`(coalesce(jsonb_typeof(${jsonAt(scope, segments)}), 'null') = 'null')`;
    if (typeof value === 'string') {
      if (value.length > MAX_TEXT_LENGTH)
        return this.problem(at, 'invalid_value', `the value for '${field.name}' is longer than ${MAX_TEXT_LENGTH} characters`);
      const instant = isoInstantSeconds(value);
      if (instant !== undefined) return this.instant('=', field, instant);
      const forms: unknown[] = [value];
      if (isNumericText(value) && String(Number(value)) === value && !only(types, 'string')) forms.push(Number(value));
      return or(forms.map((form) => jsonEquals(scope, segments, form)));
    }
    if (typeof value === 'number') {
      if (only(types, 'number')) return jsonEquals(scope, segments, value);
      const forms = [jsonEquals(scope, segments, String(value))];
      if (!only(types, 'string')) forms.unshift(jsonEquals(scope, segments, value));
      // a Unix-second number also matches an ISO 8601 string of that instant
      forms.push(this.instant('=', field, String(value)));
      return or(forms);
    }
    return jsonEquals(scope, segments, value);
  }

  /**
   * switchyard_key(value) compared with epoch seconds, made cheap: parsing a timestamp in SQL costs
   * tens of microseconds a row on PGlite, so
   * - a condition on the date text (its first 10 characters, within a day of its UTC date whatever
   *   the offset) narrows the rows first, served by the day indexes of migration 4;
   * - UTC timestamps to the second ("2024-01-05T10:00:00Z", "...:00.123+00:00") compare as text to
   *   the second, which is exact unless they fall in the same second as the value;
   * - only the rest (other offsets, dates without time, the 29th-31st, that same second) is parsed.
   */
  private instant(operator: InstantOperator, field: FieldRef, seconds: string): RawBuilder<boolean> {
    return this.instantBounds(field, [{ operator, seconds }]);
  }

  /** Several comparisons of one field with instants (a lower and an upper bound), sharing the work per row. */
  private instantBounds(field: FieldRef, bounds: ReadonlyArray<{ operator: InstantOperator; seconds: string }>): RawBuilder<boolean> {
    const { scope, segments } = field;
    const text = textAt(scope, segments);
    // Text-only fields hold instants as text: switchyard_instant reads the text once per use, half the
    // work of switchyard_key (which first checks the JSON type).
    const textOnly = scope.record && segments.length === 1 && only(field.types, 'string');
    const parsed = textOnly ? sql`switchyard_instant(${text})` : sql`switchyard_key(${jsonAt(scope, segments)})`;
    let exact = and(bounds.map(({ operator, seconds }) => sql<boolean>`(${parsed} ${sql.raw(operator)} ${seconds}::numeric)`));
    const secondsOf = bounds.map(({ seconds }) => utcSecond(Number(seconds)));
    if (secondsOf.every((second) => second !== undefined)) {
      // One regular expression (reading the text once) recognizes a valid UTC timestamp to the second.
      const left19 = sql`left(${text}, 19) COLLATE "C"`;
      const differs = secondsOf.map((second) => sql<boolean>`${left19} <> ${second}`);
      const decided = bounds.map(({ operator }, index) =>
        operator === '=' ? sql<boolean>`false` : sql<boolean>`${left19} ${sql.raw(operator.startsWith('>') ? '>' : '<')} ${secondsOf[index] as string}`,
      );
      exact = sql<boolean>`(CASE WHEN ${text} ~ ${UTC_SECOND} AND ${and(differs)} THEN ${and(decided)} ELSE ${exact} END)`;
    }
    const day: Array<RawBuilder<boolean>> = [];
    for (const { operator, seconds } of bounds) {
      const value = Number(seconds);
      const low = operator === '<' || operator === '<=' ? undefined : utcDay(value - 86_400);
      const high = operator === '>' || operator === '>=' ? undefined : utcDay(value + 86_400);
      if (low !== undefined) day.push(sql<boolean>`left(${text}, 10) >= ${low}`);
      if (high !== undefined) day.push(sql<boolean>`left(${text}, 10) <= ${high}`);
    }
    if (day.length === 0) return exact;
    if (textOnly) {
      // Text-only field: only date-like text can be an instant, so the day condition holds as is and
      // matches the expression indexes of migration 4 (which also need the key to exist).
      return and([sql<boolean>`${scope.base} ? ${sql.lit(segments[0] as string)}`, ...day, exact]);
    }
    return and([sql<boolean>`(${text} NOT LIKE '____-__-__%' OR ${and(day)})`, exact]);
  }

  /**
   * A lower and an upper bound on the same field in one filter object (`{"gte": {"createdAt": a},
   * "lt": {"createdAt": b}}`), both instants, compile together; returns the pairs it took.
   */
  private instantRanges(value: Record<string, unknown>, scope: Scope): { parts: Array<RawBuilder<boolean>>; taken: Set<string> } {
    const parts: Array<RawBuilder<boolean>> = [];
    const taken = new Set<string>();
    const instantOf = (operator: RangeOperator, name: string): string | undefined => {
      const operand = value[operator];
      const bound = isObject(operand) ? operand[name] : undefined;
      return typeof bound === 'string' && bound.length <= MAX_TEXT_LENGTH ? isoInstantSeconds(bound) : undefined;
    };
    for (const lower of ['gt', 'gte'] as const) {
      const operand = value[lower];
      if (!isObject(operand)) continue;
      for (const name of Object.keys(operand)) {
        const low = instantOf(lower, name);
        const upper = (['lt', 'lte'] as const).find((candidate) => !taken.has(`${candidate} ${name}`) && instantOf(candidate, name) !== undefined);
        if (low === undefined || upper === undefined) continue;
        const parsed = parsePath(name);
        if ('problem' in parsed || (scope.record && !isSearchablePath(name, this.entity.search.fields)) || (!scope.record && name === ELEMENT_PATH)) continue;
        const types = scope.record ? declaredTypes(this.entity, parsed.segments) : undefined;
        if (only(types, 'boolean', 'object', 'array')) continue;
        const field: FieldRef = { name, segments: parsed.segments, scope, types };
        parts.push(
          this.instantBounds(field, [
            { operator: RANGE_SQL[lower], seconds: low },
            { operator: RANGE_SQL[upper], seconds: instantOf(upper, name) as string },
          ]),
        );
        taken.add(`${lower} ${name}`);
        taken.add(`${upper} ${name}`);
      }
    }
    return { parts, taken };
  }

  private range(operator: RangeOperator, field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    const { scope, segments, types } = field;
    if (only(types, 'boolean', 'object', 'array')) {
      return this.problem(at, 'invalid_value', `'${field.name}' holds ${[...(types ?? [])].join(' or ')} values, which ${operator} does not compare`);
    }
    const op = RANGE_SQL[operator];
    if (typeof value === 'number' || (typeof value === 'string' && isNumericText(value))) {
      return sql<boolean>`(switchyard_key(${jsonAt(scope, segments)}) ${sql.raw(op)} ${String(value)}::numeric)`;
    }
    if (typeof value === 'string') {
      if (value.length > MAX_TEXT_LENGTH)
        return this.problem(at, 'invalid_value', `the value for '${field.name}' is longer than ${MAX_TEXT_LENGTH} characters`);
      const instant = isoInstantSeconds(value);
      if (instant !== undefined) return this.instant(op, field, instant);
      if (only(types, 'number')) {
        return this.problem(at, 'invalid_value', `'${field.name}' holds numbers: compare it with a number or an ISO 8601 instant, not '${value}'`);
      }
      return sql<boolean>`(jsonb_typeof(${jsonAt(scope, segments)}) = 'string' AND ${textAt(scope, segments)} COLLATE "C" ${sql.raw(op)} ${value})`;
    }
    return this.problem(
      at,
      'invalid_value',
      `${operator} on '${field.name}' takes a number or a string (an ISO 8601 instant, a number, or text), not ${typeName(value)}`,
    );
  }

  private in(field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    if (!Array.isArray(value) || value.length === 0) {
      return this.problem(
        at,
        'invalid_value',
        `in on '${field.name}' takes a non-empty array of values, not ${Array.isArray(value) ? 'an empty array' : typeName(value)}`,
      );
    }
    if (value.length > MAX_IN_VALUES) return this.problem(at, 'too_many', `in on '${field.name}' takes at most ${MAX_IN_VALUES} values`);
    if (!this.inValueLimit.take(value.length, (message) => this.problem(at, 'too_many', message))) return sql<boolean>`false`;
    return or(value.map((item) => this.equals(field, item, at)));
  }

  private text(operator: string, field: FieldRef, value: unknown, at: string): string | undefined {
    if (typeof value !== 'string') {
      this.problem(at, 'invalid_value', `${operator} on '${field.name}' takes a string, not ${typeName(value)}`);
      return undefined;
    }
    if (value.length > MAX_TEXT_LENGTH) {
      this.problem(at, 'invalid_value', `the value for '${field.name}' is longer than ${MAX_TEXT_LENGTH} characters`);
      return undefined;
    }
    return value;
  }

  /** Strings (and numbers, as their text) matched case-insensitively against a LIKE pattern. */
  private scalarLike(field: FieldRef, pattern: string): RawBuilder<boolean> {
    const { scope, segments } = field;
    const scalar = sql<boolean>`jsonb_typeof(${jsonAt(scope, segments)}) IN ('string', 'number')`;
    if (ownTrigramIndex(scope, segments)) return sql<boolean>`(${opaque(scalar)} AND ${textAt(scope, segments)} ILIKE ${pattern})`;
    const exact = sql<boolean>`(${scalar} AND ${textAt(scope, segments)} ILIKE ${pattern})`;
    return withTextIndex(scope, exact, pattern);
  }

  /**
   * A problem when the manifest declares the field's values none of `matched` (a top-level field of the record):
   * the operator could never find a record by it, and an empty answer would hide the mistake.
   */
  private mismatchedType(operator: string, field: FieldRef, at: string, matched: readonly string[]): RawBuilder<boolean> | undefined {
    const { types } = field;
    if (types === undefined || [...types].some((type) => matched.includes(type))) return undefined;
    const declared = [...types].join(' or ');
    return this.problem(
      at,
      'invalid_value',
      `'${field.name}' holds ${declared} values; ${operator} matches ${matched.join(' or ')} fields only (use eq or in)`,
    );
  }

  private pattern(operator: 'like' | 'startswith' | 'endswith', field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    const mismatch = this.mismatchedType(operator, field, at, ['string', 'number']);
    if (mismatch) return mismatch;
    const text = this.text(operator, field, value, at);
    if (text === undefined) return sql<boolean>`false`;
    const pattern = operator === 'like' ? likePattern(text) : operator === 'startswith' ? `${escapeLike(text)}%` : `%${escapeLike(text)}`;
    return this.scalarLike(field, pattern);
  }

  /** Text containing the value (case-insensitive), or an array with an element equal to it (strings case-insensitively). */
  private contains(field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    if (typeof value !== 'string' && typeof value !== 'number' && typeof value !== 'boolean') {
      return this.problem(at, 'invalid_value', `contains on '${field.name}' takes a string, number or boolean, not ${typeName(value)}`);
    }
    if (typeof value === 'string' && value.length > MAX_TEXT_LENGTH) {
      return this.problem(at, 'invalid_value', `the value for '${field.name}' is longer than ${MAX_TEXT_LENGTH} characters`);
    }
    const { scope, segments } = field;
    const json = jsonAt(scope, segments);
    const text = String(value);
    const exact = sql<boolean>`(CASE jsonb_typeof(${json})
      WHEN 'array' THEN EXISTS (SELECT 1 FROM jsonb_array_elements(${json}) AS _contains(v)
        WHERE _contains.v = ${jsonParam(value)} OR (jsonb_typeof(_contains.v) = 'string' AND lower(_contains.v #>> '{}') = lower(${text})))
      WHEN 'string' THEN ${textAt(scope, segments)} ILIKE ${`%${escapeLike(text)}%`}
      WHEN 'number' THEN ${textAt(scope, segments)} ILIKE ${`%${escapeLike(text)}%`}
      ELSE false END)`;
    // An array element equal to the value (ignoring case) holds its text too (in the record's value text,
    // and in the array's JSON text that ->> gives, unless JSON escapes a character of it); a number in
    // exponent notation ("1e+21") may be written out in JSON text, so it gets no text condition.
    const pattern = `%${escapeLike(text)}%`;
    if (/e/i.test(text) && typeof value === 'number') return exact;
    if (ownTrigramIndex(scope, segments)) {
      return literalInJsonText(pattern) ? sql<boolean>`(${opaque(exact)} AND ${textAt(scope, segments)} ILIKE ${pattern})` : exact;
    }
    return withTextIndex(scope, exact, pattern);
  }

  /** An array holding the value (every value, when given an array); objects match elements that contain them. */
  private arrayContains(field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    if (value === null || (Array.isArray(value) && value.length === 0)) {
      return this.problem(
        at,
        'invalid_value',
        `array_contains on '${field.name}' takes a value or a non-empty array of values, not ${value === null ? 'null' : 'an empty array'}`,
      );
    }
    if (only(field.types, 'string', 'number', 'boolean', 'object')) {
      return this.problem(at, 'invalid_value', `'${field.name}' is not an array field; array_contains applies to arrays (use eq or contains)`);
    }
    const elements = Array.isArray(value) ? value : [value];
    const { scope, segments } = field;
    const containable = scope.record && segments.length > 0 && !segments.some((segment) => /^-?\d+$/.test(segment));
    if (containable) return sql<boolean>`${scope.base} @> ${jsonParam(nest(segments, elements))}`;
    const json = jsonAt(scope, segments);
    return sql<boolean>`(jsonb_typeof(${json}) = 'array' AND ${json} @> ${jsonParam(elements)})`;
  }

  /**
   * Every word of the value in the field as a whole word, in any order, case-insensitively, a word of four
   * letters or more also one typo away (src/context/typos.ts): the entity's words one typo away were
   * looked up before compiling (`typos`), and the field is asked for any of them.
   */
  private fuzzy(field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    const mismatch = this.mismatchedType('fuzzy', field, at, ['string']);
    if (mismatch) return mismatch;
    const text = this.text('fuzzy', field, value, at);
    if (text === undefined) return sql<boolean>`false`;
    const words = wordsOf(text);
    if (words.length === 0) return this.problem(at, 'invalid_value', `fuzzy on '${field.name}' needs at least one letter or digit`);
    if (words.length > MAX_FUZZY_WORDS) return this.problem(at, 'too_many', `fuzzy on '${field.name}' takes at most ${MAX_FUZZY_WORDS} words`);
    // each distinct word is looked up in the entity's words before the search runs
    const fresh = words.filter((word) => !this.fuzzyWords.has(word));
    for (const word of fresh) this.fuzzyWords.add(word);
    if (!this.fuzzyWordLimit.take(fresh.length, (message) => this.problem(at, 'too_many', message))) return sql<boolean>`false`;
    const isString = sql<boolean>`jsonb_typeof(${jsonAt(field.scope, field.segments)}) = 'string'`;
    return and(words.map((word) => this.wholeWords(field, isString, this.typos(word))));
  }

  /**
   * Any of the words of the value, as whole words, case-insensitively. A word is a run of letters and digits,
   * in the value as in the field: bounded by anything else or an end, not by \m and \M, for which an
   * underscore is part of the word ('snake' would not find "snake_case", nor "snake_case" itself).
   */
  private keyword(field: FieldRef, value: unknown, at: string): RawBuilder<boolean> {
    const mismatch = this.mismatchedType('keyword', field, at, ['string', 'number']);
    if (mismatch) return mismatch;
    const text = this.text('keyword', field, value, at);
    if (text === undefined) return sql<boolean>`false`;
    const words = wordsOf(text);
    if (words.length === 0) return this.problem(at, 'invalid_value', `keyword on '${field.name}' needs at least one word`);
    if (words.length > MAX_KEYWORDS) return this.problem(at, 'too_many', `keyword on '${field.name}' takes at most ${MAX_KEYWORDS} words`);
    const scalar = sql<boolean>`jsonb_typeof(${jsonAt(field.scope, field.segments)}) IN ('string', 'number')`;
    return this.wholeWords(field, scalar, words);
  }

  /** The field (of the kind `kind` tests) holds one of `words` as a whole word, served by a trigram index. */
  private wholeWords(field: FieldRef, kind: RawBuilder<boolean>, words: readonly string[]): RawBuilder<boolean> {
    const { scope, segments } = field;
    const pattern = `(^|[^[:alnum:]])(${words.join('|')})([^[:alnum:]]|$)`;
    if (ownTrigramIndex(scope, segments)) return sql<boolean>`(${opaque(kind)} AND ${textAt(scope, segments)} ~* ${pattern})`;
    const exact = sql<boolean>`(${kind} AND ${textAt(scope, segments)} ~* ${pattern})`;
    // whole words of a field are whole words of the record's value text (migration 11)
    return scope.record ? sql<boolean>`(${opaque(exact)} AND switchyard_value_text(${scope.base}) ~* ${pattern})` : exact;
  }

  /** At least one element of the array field matches the nested filter (paths relative to the element, `$` the element itself). */
  private any(operand: unknown, at: string, scope: Scope, depth: number): RawBuilder<boolean> {
    if (!isObject(operand) || Object.keys(operand).length === 0) {
      return this.problem(
        at,
        'invalid_filter',
        `any maps an array field to a filter its elements must match (e.g. {"any": {"labels": {"eq": {"name": "bug"}}}}), not ${isObject(operand) ? 'an empty object' : typeName(operand)}`,
      );
    }
    const parts: Array<RawBuilder<boolean>> = [];
    for (const [name, nested] of Object.entries(operand)) {
      const field = this.field(name, at, scope);
      if (!field) continue;
      if (only(field.types, 'string', 'number', 'boolean', 'object')) {
        parts.push(this.problem(at, 'invalid_filter', `'${field.name}' is not an array field; any applies to arrays (filter the field itself instead)`));
        continue;
      }
      this.elementAliases += 1;
      const alias = `_any${this.elementAliases}`;
      const element: Scope = { base: sql.ref(`${alias}.value`), record: false };
      const inner = this.filter(nested, `${at}.${name}`, element, depth + 1);
      const json = jsonAt(field.scope, field.segments);
      parts.push(
        sql<boolean>`EXISTS (SELECT 1 FROM jsonb_array_elements(CASE WHEN jsonb_typeof(${json}) = 'array' THEN ${json} ELSE '[]'::jsonb END) AS ${sql.raw(alias)}(value) WHERE ${inner})`,
      );
    }
    return and(parts);
  }
}

/**
 * Compiles a filter into issues (appended to `issues`) and a condition over `${alias}.data`. The
 * condition is only meaningful when no issue was added. For callers that validate several params at
 * once (the search); others use compileFilter.
 */
export function compileFilterInto(
  filter: unknown,
  entity: EntityDefinition,
  alias: string,
  at: string,
  issues: ErrorIssue[],
  typos: TypoVariants,
): RawBuilder<boolean> {
  return new FilterCompiler(entity, issues, typos).filter(filter, at, recordScope(alias), 0);
}

/**
 * The SQL condition of a filter over the records aliased `alias` (context_records AS alias), for the
 * entity's searchable fields. Throws a ValidationError (400) listing every problem, each located
 * (`options.at`, default `query.filter`, is the location of the filter itself).
 */
export function compileFilter(filter: unknown, entity: EntityDefinition, alias: string, options: { at?: string; typos: TypoVariants }): RawBuilder<boolean> {
  const at = options.at ?? 'query.filter';
  const issues: ErrorIssue[] = [];
  const condition = compileFilterInto(filter, entity, alias, at, issues, options.typos);
  if (issues.length > 0) throw new ValidationError(`Invalid ${at}: ${issues.map((issue) => issue.message).join('; ')}.`, issues);
  return condition;
}
