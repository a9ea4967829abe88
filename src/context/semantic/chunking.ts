/**
 * From a record to passages: the text of a semantic field (a dot path; HTML reduced to text; arrays and
 * objects reduced to their text parts), split into passages that fit the field's context window with a
 * small overlap, cut at sentence or word boundaries where possible.
 */
import { createHash } from 'node:crypto';

export interface Passage {
  /** Position in the field's text, from 0. */
  ordinal: number;
  /** Character offset of the passage in the normalized text. */
  start: number;
  text: string;
  /** sha256 of the text (hex). */
  hash: string;
}

/** A field holding more text than this many passages is indexed up to there (a 2048-character window indexes 200 kB). */
export const MAX_PASSAGES_PER_FIELD = 100;

/** Keys whose string values are the text of an object (a conversation part's body, a block's plain text). */
const TEXT_KEYS = new Set([
  'body',
  'text',
  'content',
  'value',
  'title',
  'name',
  'subject',
  'description',
  'summary',
  'message',
  'plain_text',
  'html',
  'markdown',
  'note',
  'comment',
]);

function isRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

/** Values at a dot path; arrays met on the way are walked element by element. */
export function valuesAtPath(value: unknown, path: string): unknown[] {
  let current: unknown[] = [value];
  for (const segment of path.split('.')) {
    const next: unknown[] = [];
    for (const item of current) {
      if (Array.isArray(item)) {
        for (const element of item) if (isRecord(element) && segment in element) next.push(element[segment]);
      } else if (isRecord(item) && segment in item) {
        next.push(item[segment]);
      }
    }
    current = next;
  }
  return current.filter((item) => item !== undefined && item !== null);
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|[a-z]+|#39);/gi, (whole, name: string) => {
    const lower = name.toLowerCase();
    if (lower.startsWith('#x')) return String.fromCodePoint(Number.parseInt(lower.slice(2), 16) || 32);
    if (lower.startsWith('#')) return String.fromCodePoint(Number.parseInt(lower.slice(1), 10) || 32);
    return ENTITIES[lower] ?? whole;
  });
}

/** Text of an HTML fragment: scripts and styles dropped, block ends become line breaks, tags removed, entities decoded. */
export function htmlToText(html: string): string {
  return decodeEntities(
    html
      .replace(/<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi, ' ')
      .replace(/<br\s*\/?>/gi, '\n')
      .replace(/<\/(p|div|li|h[1-6]|tr|blockquote|pre|ul|ol|table)\s*>/gi, '\n')
      .replace(/<[^>]+>/g, ' '),
  );
}

const LOOKS_LIKE_HTML = /<\/?[a-z][a-z0-9]*(\s[^>]*)?\/?>/i;

/** Spaces collapsed, line breaks kept (at most one blank line), ends trimmed. */
export function normalizeWhitespace(text: string): string {
  return text
    .replace(/\r\n?/g, '\n')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

function textParts(value: unknown, depth: number, out: string[]): void {
  if (depth > 6) return;
  if (typeof value === 'string') {
    out.push(LOOKS_LIKE_HTML.test(value) ? htmlToText(value) : value);
  } else if (typeof value === 'number' || typeof value === 'boolean') {
    out.push(String(value));
  } else if (Array.isArray(value)) {
    for (const item of value) textParts(item, depth + 1, out);
  } else if (isRecord(value)) {
    // An object's text is in its text-like keys (a message's body, a block's plain_text), searched in depth.
    for (const [key, item] of Object.entries(value)) {
      if ((typeof item === 'object' && item !== null) || TEXT_KEYS.has(key)) textParts(item, depth + 1, out);
    }
  }
}

/** The searchable text of a field of a record ('' when the field is absent or holds no text). */
export function fieldText(record: Record<string, unknown>, path: string): string {
  const parts: string[] = [];
  for (const value of valuesAtPath(record, path)) textParts(value, 0, parts);
  return normalizeWhitespace(
    parts
      .map((part) => part.trim())
      .filter((part) => part !== '')
      .join('\n\n'),
  );
}

/** Overlap between consecutive passages: an eighth of the window, at most 200 characters. */
export function overlapFor(window: number): number {
  return Math.min(200, Math.floor(window / 8));
}

export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Where to end a passage that starts at `start` and may not pass `hardEnd`: after a sentence, else at a space. */
function breakPoint(text: string, start: number, hardEnd: number, window: number): number {
  const floor = start + Math.floor(window / 2);
  for (let i = hardEnd; i > floor; i -= 1) {
    const previous = text[i - 1];
    if (previous === '\n') return i;
    if ((previous === '.' || previous === '!' || previous === '?') && (i === text.length || /\s/.test(text[i] ?? ''))) return i;
  }
  for (let i = hardEnd; i > floor; i -= 1) if (/\s/.test(text[i] ?? '')) return i;
  return hardEnd;
}

/**
 * Splits normalized text into passages of at most `window` characters; consecutive passages share about
 * overlapFor(window) characters, starting on a word boundary.
 */
export function splitPassages(text: string, window: number, maxPassages = MAX_PASSAGES_PER_FIELD): Passage[] {
  const passages: Passage[] = [];
  const push = (start: number, end: number): void => {
    const raw = text.slice(start, end);
    const lead = raw.length - raw.trimStart().length;
    const passage = raw.trim();
    if (passage === '') return;
    passages.push({ ordinal: passages.length, start: start + lead, text: passage, hash: sha256(passage) });
  };
  if (text.length <= window) {
    push(0, text.length);
    return passages;
  }
  const overlap = overlapFor(window);
  let start = 0;
  while (start < text.length && passages.length < maxPassages) {
    const hardEnd = Math.min(text.length, start + window);
    const end = hardEnd === text.length ? hardEnd : breakPoint(text, start, hardEnd, window);
    push(start, end);
    if (end >= text.length) break;
    // Step back by the overlap, then forward to the start of a word, always past the previous start.
    let next = Math.max(end - overlap, start + 1);
    if (next > 0 && !/\s/.test(text[next - 1] ?? '')) {
      let i = next;
      while (i < end && !/\s/.test(text[i] ?? '')) i += 1;
      next = i < end ? i : end;
    }
    while (next < text.length && /\s/.test(text[next] ?? '')) next += 1;
    start = next;
  }
  return passages;
}

/**
 * The part of a passage, at most `size` characters, around where it matches best: the window with the
 * largest sum of positive word relevance (`wordScore`), snapped to word boundaries. The whole passage
 * when it fits.
 */
export function trimContext(passage: string, size: number | undefined, wordScore: (word: string) => number): string {
  if (size === undefined || passage.length <= size) return passage;
  if (size <= 0) return '';
  const words: Array<{ start: number; end: number; score: number }> = [];
  for (const match of passage.matchAll(/[\p{L}\p{N}]+/gu)) {
    const start = match.index;
    words.push({ start, end: start + match[0].length, score: Math.max(0, wordScore(match[0].normalize('NFKC').toLowerCase())) });
  }
  let bestStart = 0;
  let bestScore = -1;
  // Two pointers over words: each window starts at a word and holds every word ending within `size` characters.
  let right = 0;
  let sum = 0;
  for (let left = 0; left < words.length; left += 1) {
    const from = words[left]!.start;
    while (right < words.length && words[right]!.end - from <= size) {
      sum += words[right]!.score;
      right += 1;
    }
    if (sum > bestScore) {
      bestScore = sum;
      bestStart = from;
    }
    if (right > left) sum -= words[left]!.score;
    else right = left + 1;
  }
  const alnum = (i: number): boolean => /[\p{L}\p{N}]/u.test(passage[i] ?? '');
  let start = bestStart;
  let end = start + size;
  if (end >= passage.length) {
    // The best part is at the end: keep the window full, starting on a word.
    end = passage.length;
    start = passage.length - size;
    while (start < end && alnum(start) && alnum(start - 1)) start += 1;
  } else if (alnum(end) && alnum(end - 1)) {
    // End on a word boundary rather than inside a word.
    let i = end;
    while (i > start && alnum(i - 1)) i -= 1;
    if (i > start) end = i;
  }
  return passage.slice(start, end).trim();
}
