/**
 * The words of an entity's records (context_words, migration 16), and the typo tolerance of `fuzzy`
 * built on them. A word is a run of letters and digits, lowercased; one holding a digit (an id, a
 * version, a number) is matched exactly and not kept. A fuzzy word of at least TYPO_MIN_LENGTH letters also
 * finds the words of the entity one typo away (a letter left out, added or changed, or two neighbours
 * swapped): they are looked up here first, then the filter asks the field for any of them as a whole word,
 * which the trigram indexes serve with candidates that are nearly the matches.
 */
import { sql, type Kysely, type RawBuilder } from 'kysely';
import type { DatabaseSchema } from '../db/schema.js';

type Db = Kysely<DatabaseSchema>;

/** Fuzzy words shorter than this match exactly (one typo in "bug" finds "big", "bag", "bud"…). */
export const TYPO_MIN_LENGTH = 4;
/** Longer words are neither kept nor given typos: no one types them with a typo in mind. */
export const WORD_MAX_LENGTH = 64;
/** The shortest word kept: a 4-letter fuzzy word with a letter left out finds 3-letter words. */
const WORD_MIN_LENGTH = TYPO_MIN_LENGTH - 1;

/**
 * A word as PostgreSQL's `[[:alnum:]]` has it under a UTF-8 character type: letters with their vowel signs
 * (Thai, Devanagari: alphabetic marks), and decimal digits; a combining accent (U+0301) breaks it.
 */
const WORD = /[\p{Alphabetic}\p{Nd}]+/gu;
const DIGIT = /\p{Nd}/u;

/** Lowercased as PostgreSQL's lower() does: 'İ' is 'i', not 'i' and a combining dot, which would break the word. */
function lowercase(text: string): string {
  return text.toLowerCase().replace(/i\u0307/g, 'i');
}

/** The distinct words of a text, lowercased, in order of first appearance. */
export function wordsOf(text: string): string[] {
  return [...new Set(lowercase(text).match(WORD) ?? [])];
}

/** Whether a word is letters only, from `min` to WORD_MAX_LENGTH of them. */
function lettersOnly(word: string, min: number): boolean {
  const length = [...word].length;
  return length >= min && length <= WORD_MAX_LENGTH && !DIGIT.test(word);
}

/** Whether a fuzzy word gets typos: letters only, TYPO_MIN_LENGTH to WORD_MAX_LENGTH of them. */
export function toleratesTypos(word: string): boolean {
  return lettersOnly(word, TYPO_MIN_LENGTH);
}

function kept(word: string): boolean {
  return lettersOnly(word, WORD_MIN_LENGTH);
}

/** The words of a page of records that context_words keeps: of every string value, at any depth, sorted. */
export function wordsToKeep(records: ReadonlyArray<unknown>): string[] {
  const words = new Set<string>();
  const visit = (value: unknown): void => {
    if (typeof value === 'string') {
      for (const word of lowercase(value).match(WORD) ?? []) if (kept(word)) words.add(word);
    } else if (Array.isArray(value)) {
      for (const item of value) visit(item);
    } else if (value !== null && typeof value === 'object') {
      for (const item of Object.values(value)) visit(item);
    }
  };
  for (const record of records) visit(record);
  return [...words].sort();
}

/** Whether `a` and `b` are at most one typo apart: equal, or one letter left out, added, changed, or two neighbours swapped. */
export function oneTypoApart(a: string, b: string): boolean {
  const x = [...a];
  const y = [...b];
  if (Math.abs(x.length - y.length) > 1) return false;
  let start = 0;
  while (start < x.length && start < y.length && x[start] === y[start]) start += 1;
  let endX = x.length;
  let endY = y.length;
  while (endX > start && endY > start && x[endX - 1] === y[endY - 1]) {
    endX -= 1;
    endY -= 1;
  }
  const restX = endX - start;
  const restY = endY - start;
  // what differs between the common start and end: nothing, one letter (changed, added or left out), or a swap
  if (restX <= 1 && restY <= 1) return true;
  return restX === 2 && restY === 2 && x[start] === y[start + 1] && x[start + 1] === y[start];
}

/**
 * Where the words one typo away from `word` must agree with it: a typo in its second half leaves its
 * first half (`prefix`), one in its first half its second half (`suffix`); a swap across the middle
 * leaves neither and is the one word `swapped`.
 */
export function typoKeys(word: string): { prefix: string; suffix: string; swapped: string } {
  const letters = [...word];
  const half = Math.floor(letters.length / 2);
  const swapped = [...letters];
  [swapped[half - 1], swapped[half]] = [letters[half] as string, letters[half - 1] as string];
  return { prefix: letters.slice(0, half).join(''), suffix: letters.slice(half).join(''), swapped: swapped.join('') };
}

/** What a fuzzy word finds: itself, and the words of the entity one typo away. */
export type TypoVariants = (word: string) => readonly string[];

/** Every word finds itself only: for compiling a filter only to validate it. */
export const exactWords: TypoVariants = (word) => [word];

/**
 * The words of the entity near each of `words` (those that toleratesTypos): two index ranges a word (the words
 * starting with its prefix, through the primary key, and those ending with its suffix, through
 * context_words_suffix; the column's C collation orders by code point, so a prefix is a range) and the swap
 * across its middle, of lengths one apart at most. Exported so a test can read its plan.
 */
export function nearWordsQuery(scope: { connectorId: string; entity: string }, words: readonly string[]): RawBuilder<{ wanted: string; word: string }> {
  const ranges = words.map((word) => {
    const { prefix, suffix, swapped } = typoKeys(word);
    const reversed = reverse(suffix);
    return { wanted: word, prefix, prefix_end: successor(prefix), reversed, reversed_end: successor(reversed), swapped };
  });
  return sql<{ wanted: string; word: string }>`
    SELECT q.wanted, v.word
    FROM jsonb_to_recordset(${JSON.stringify(ranges)}::jsonb)
      AS q(wanted text, prefix text, prefix_end text, reversed text, reversed_end text, swapped text)
    CROSS JOIN LATERAL (
      SELECT v.word FROM context_words AS v
      WHERE v.connector_id = ${scope.connectorId} AND v.entity = ${scope.entity} AND v.word >= q.prefix AND v.word < q.prefix_end
      UNION
      SELECT v.word FROM context_words AS v
      WHERE v.connector_id = ${scope.connectorId} AND v.entity = ${scope.entity} AND reverse(v.word) >= q.reversed AND reverse(v.word) < q.reversed_end
      UNION
      SELECT v.word FROM context_words AS v
      WHERE v.connector_id = ${scope.connectorId} AND v.entity = ${scope.entity} AND v.word = q.swapped
    ) AS v
    WHERE abs(length(v.word) - length(q.wanted)) <= 1
    ORDER BY v.word`;
}

/** The words of the entity one typo away from each of `words` (nearWordsQuery, checked here), each word with itself first, then in order. */
export async function lookUpTypos(db: Db, scope: { connectorId: string; entity: string }, words: readonly string[]): Promise<TypoVariants> {
  const wanted = [...new Set(words.filter(toleratesTypos))];
  const found = new Map<string, string[]>(wanted.map((word) => [word, [word]]));
  if (wanted.length > 0) {
    const { rows } = await nearWordsQuery(scope, wanted).execute(db);
    for (const row of rows) {
      const variants = found.get(row.wanted);
      if (variants !== undefined && row.word !== row.wanted && oneTypoApart(row.wanted, row.word)) variants.push(row.word);
    }
  }
  return (word) => found.get(word) ?? [word];
}

function reverse(text: string): string {
  return [...text].reverse().join('');
}

/** The first text after every text starting with `prefix`, in code point order: its last character's successor. */
function successor(prefix: string): string {
  const characters = [...prefix];
  const next = ((characters.pop() as string).codePointAt(0) as number) + 1;
  // JSON cannot carry a lone surrogate, and none is in a text: the next character is U+E000
  return characters.join('') + String.fromCodePoint(next >= 0xd800 && next <= 0xdfff ? 0xe000 : next);
}
