import { readFileSync } from 'node:fs';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, DEFAULT_INDEX_BUILD_MEMORY_MB, loadConfig } from '../../src/config.js';
import { fieldText, htmlToText, MAX_PASSAGES_PER_FIELD, overlapFor, splitPassages, trimContext, valuesAtPath } from '../../src/context/semantic/chunking.js';
import { OfflineEmbeddingProvider, OpenAICompatibleEmbeddingProvider, providerFromConfig } from '../../src/context/semantic/providers.js';
import { hnswBuildMemoryKb } from '../../src/context/semantic/index-builds.js';
import { decodeVocabulary, encodeVocabulary, loadVocabulary, tokenize, Vocabulary, VOCABULARY_PATH } from '../../src/context/semantic/vocabulary.js';

const dot = (a: Float32Array, b: Float32Array) => a.reduce((sum, x, i) => sum + x * (b[i] ?? 0), 0);
const norm = (a: Float32Array) => Math.sqrt(dot(a, a));

describe('offline vocabulary', () => {
  it('is the committed 50k-word, 100-dimension, 8-bit file described by vocabulary.json', () => {
    const vocabulary = loadVocabulary();
    const metadata = JSON.parse(readFileSync(new URL('../../src/context/semantic/vocabulary.json', import.meta.url), 'utf8')) as {
      words: number;
      dimensions: number;
      sha256: string;
      bytes: number;
    };
    expect(vocabulary.size).toBe(50_000);
    expect(vocabulary.dimensions).toBe(100);
    expect(metadata).toMatchObject({ words: 50_000, dimensions: 100, sha256: vocabulary.digest, bytes: readFileSync(VOCABULARY_PATH).length });
    expect(metadata.bytes).toBeLessThan(6_000_000);
    for (const word of ['the', 'refund', 'money', 'invoice', 'login', 'csv', 'password']) expect(vocabulary.has(word), word).toBe(true);
  });

  it('encodes and decodes a vocabulary file losslessly, and rejects a damaged one', () => {
    const data = {
      dimensions: 3,
      words: ['alpha', 'beta', 'café'],
      scales: Float32Array.from([0.5, 0.25, 1]),
      vectors: Int8Array.from([1, -2, 3, 127, -127, 0, 5, 6, 7]),
    };
    const file = encodeVocabulary(data);
    const decoded = decodeVocabulary(file);
    expect(decoded.words).toEqual(data.words);
    expect(Array.from(decoded.scales)).toEqual(Array.from(data.scales));
    expect(Array.from(decoded.vectors)).toEqual(Array.from(data.vectors));
    expect(() => decodeVocabulary(file.subarray(0, file.length - 1))).toThrow(/expected/);
    const bad = Buffer.from(file);
    bad.write('XXXX', 0, 'latin1');
    expect(() => decodeVocabulary(bad)).toThrow(/magic/);
    const vocabulary = new Vocabulary(file);
    expect(vocabulary.has('café')).toBe(true);
  });

  it('tokenizes to lower-case runs of letters and digits', () => {
    expect(tokenize('Money-back, PLEASE! Order #XK-4471 (Café)')).toEqual(['money', 'back', 'please', 'order', 'xk', '4471', 'café']);
    expect(tokenize('?!')).toEqual([]);
  });
});

describe('offline embedding provider', () => {
  const provider = new OfflineEmbeddingProvider();
  const corpus = [
    'I want a refund for my last order, the product arrived broken.',
    'The shipping address on my account is wrong, please update it.',
    'I forgot my password and the reset email never arrives.',
    'Our team needs more seats on the enterprise license.',
    'Can you add dark mode to the mobile app?',
    'Order XK-4471 was charged twice.',
  ];

  it('returns deterministic unit vectors with a model id naming the vocabulary', async () => {
    const [a, b] = await provider.embed(['Refund my order', 'Refund my order']);
    expect(a).toHaveLength(100);
    expect(norm(a!)).toBeCloseTo(1, 5);
    expect(Array.from(a!)).toEqual(Array.from(b!));
    expect(provider.id).toMatch(/^offline-wordvec-100d-v1-[0-9a-f]{12}$/);
    const [empty] = await provider.embed(['...']);
    expect(Array.from(empty!).every((x) => x === 0)).toBe(true);
  });

  it.each([
    ['money back', 0],
    ['get my money returned', 0],
    ['reimbursement for a damaged item', 0],
    ['change my mailing address', 1],
    ['password recovery', 2],
    ['buy additional user licenses', 3],
    ['feature request: night theme', 4],
    ['what happened to xk-4471?', 5],
  ])('ranks the paraphrase "%s" first', async (prompt, expected) => {
    const vectors = await provider.embed(corpus);
    const [query] = await provider.embed([prompt]);
    const scores = vectors.map((vector) => dot(vector, query!));
    const best = scores.indexOf(Math.max(...scores));
    expect(corpus[best]).toBe(corpus[expected]);
  });

  it('scores a paraphrase well above unrelated text (refund / money back)', async () => {
    const [refund, unrelated, query] = await provider.embed([
      'Customer asks for a refund of the payment.',
      'The dashboard chart uses the wrong colors.',
      'money back',
    ]);
    expect(dot(refund!, query!)).toBeGreaterThan(0.3);
    expect(dot(refund!, query!) - dot(unrelated!, query!)).toBeGreaterThan(0.2);
  });
});

describe('chunking', () => {
  it('reads dot paths through objects and arrays', () => {
    const record = { source: { body: '<p>Hello <b>there</b></p>' }, parts: { list: [{ body: 'first' }, { body: 'second', author: { id: 'u1' } }] } };
    expect(valuesAtPath(record, 'source.body')).toEqual(['<p>Hello <b>there</b></p>']);
    expect(valuesAtPath(record, 'parts.list.body')).toEqual(['first', 'second']);
    expect(fieldText(record, 'source.body')).toBe('Hello there');
    expect(fieldText(record, 'parts.list')).toBe('first\n\nsecond');
    expect(fieldText(record, 'missing')).toBe('');
    expect(fieldText({ title: 42 }, 'title')).toBe('42');
  });

  it('reduces HTML to text', () => {
    expect(htmlToText('<div>A &amp; B</div><script>alert(1)</script><p>C&nbsp;&#39;D&#x27;</p>').replace(/\s+/g, ' ').trim()).toBe("A & B C 'D'");
  });

  it('keeps a text that fits the window as one passage', () => {
    const passages = splitPassages('A short description.', 2048);
    expect(passages).toHaveLength(1);
    expect(passages[0]).toMatchObject({ ordinal: 0, start: 0, text: 'A short description.' });
    expect(passages[0]!.hash).toMatch(/^[0-9a-f]{64}$/);
    expect(splitPassages('', 2048)).toEqual([]);
  });

  it('splits long text into passages that fit the window, overlap, cover every word and end at sentences', () => {
    const sentences = Array.from({ length: 60 }, (_, i) => `Sentence number ${i} talks about topic ${i % 7} in some detail.`);
    const text = sentences.join(' ');
    const window = 256;
    const passages = splitPassages(text, window);
    expect(passages.length).toBeGreaterThan(text.length / window);
    for (const passage of passages) {
      expect(passage.text.length).toBeLessThanOrEqual(window);
      expect(text.slice(passage.start, passage.start + passage.text.length)).toBe(passage.text);
    }
    for (const passage of passages.slice(0, -1)) expect(passage.text.endsWith('.')).toBe(true);
    for (let i = 1; i < passages.length; i += 1) {
      const previous = passages[i - 1]!;
      const overlap = previous.start + previous.text.length - passages[i]!.start;
      expect(overlap).toBeGreaterThan(0);
      expect(overlap).toBeLessThanOrEqual(overlapFor(window));
    }
    const covered = new Set(passages.flatMap((p) => tokenize(p.text)));
    for (const word of tokenize(text)) expect(covered.has(word)).toBe(true);
  });

  it('cuts words only when a word is longer than the window, and stops at the passage cap', () => {
    const long = 'x'.repeat(300);
    const passages = splitPassages(long, 64);
    expect(passages.every((p) => p.text.length <= 64)).toBe(true);
    expect(passages.map((p) => p.text).join('').length).toBeGreaterThanOrEqual(300);
    expect(splitPassages('word '.repeat(100_000), 64).length).toBe(MAX_PASSAGES_PER_FIELD);
  });

  it('trims the context around the best-matching words', async () => {
    const vocabulary = loadVocabulary();
    const passage = `${'The weekly report covers server metrics and deployment notes. '.repeat(4)}The customer wants a refund of the money paid. ${'Other unrelated notes about colors and fonts follow here. '.repeat(4)}`;
    const query = vocabulary.embed('money back');
    const context = trimContext(passage, 60, (word) => vocabulary.wordScore(word, query));
    expect(context.length).toBeLessThanOrEqual(60);
    expect(context).toMatch(/refund|money/);
    expect(passage).toContain(context);
    expect(trimContext('short text', 100, () => 0)).toBe('short text');
    expect(trimContext('short text', undefined, () => 0)).toBe('short text');
  });
});

describe('OpenAI-compatible provider', () => {
  const URL_BASE = 'https://embeddings.example.test/v1';
  beforeAll(() => {
    nock.disableNetConnect();
  });
  afterEach(() => {
    nock.cleanAll();
  });
  afterAll(() => {
    nock.enableNetConnect();
  });

  it('posts {model, input} with the bearer key and returns unit vectors in input order', async () => {
    let authorization: string | undefined;
    const scope = nock(URL_BASE)
      .post('/embeddings', { model: 'text-embedding-3-small', input: ['first text', 'second text'] })
      .reply(function reply() {
        authorization = this.req.headers.authorization;
        return [
          200,
          {
            object: 'list',
            data: [
              { index: 1, embedding: [0, 3, 4] },
              { index: 0, embedding: [2, 0, 0] },
            ],
            model: 'text-embedding-3-small',
          },
        ];
      });
    const provider = new OpenAICompatibleEmbeddingProvider({ url: `${URL_BASE}/`, model: 'text-embedding-3-small', apiKey: 'sk-secret-key-123' });
    const vectors = await provider.embed(['first text', 'second text']);
    expect(scope.isDone()).toBe(true);
    expect(authorization).toBe('Bearer sk-secret-key-123');
    expect(Array.from(vectors[0]!)).toEqual([1, 0, 0]);
    expect(Array.from(vectors[1]!).map((x) => Math.round(x * 1000) / 1000)).toEqual([0, 0.6, 0.8]);
    expect(provider.id).toBe('openai-compatible:text-embedding-3-small');
  });

  it('sends no Authorization header without a key, batches inputs, retries a 5xx', async () => {
    const seen: Array<string | undefined> = [];
    nock(URL_BASE)
      .post('/embeddings')
      .reply(503, { error: { message: 'busy' } });
    nock(URL_BASE)
      .post('/embeddings', { model: 'm', input: ['a', 'b'] })
      .reply(function reply() {
        seen.push(this.req.headers.authorization);
        return [
          200,
          {
            data: [
              { index: 0, embedding: [1, 0] },
              { index: 1, embedding: [0, 1] },
            ],
          },
        ];
      });
    nock(URL_BASE)
      .post('/embeddings', { model: 'm', input: ['c'] })
      .reply(200, { data: [{ index: 0, embedding: [1, 1] }] });
    const provider = new OpenAICompatibleEmbeddingProvider({ url: URL_BASE, model: 'm', batchSize: 2, retries: 1 });
    const vectors = await provider.embed(['a', 'b', 'c']);
    expect(vectors).toHaveLength(3);
    expect(seen).toEqual([undefined]);
    expect(nock.isDone()).toBe(true);
  });

  it('reports a rejected request without the key, and a malformed answer', async () => {
    nock(URL_BASE)
      .post('/embeddings')
      .reply(401, { error: { message: 'Incorrect API key provided' } });
    const provider = new OpenAICompatibleEmbeddingProvider({ url: URL_BASE, model: 'm', apiKey: 'sk-secret-key-123', retries: 0 });
    const error = (await provider.embed(['a']).then(
      () => new Error('resolved'),
      (e: unknown) => e as Error,
    )) as Error & { status?: number };
    expect(error.status).toBe(502);
    expect(error.message).toContain('401');
    expect(error.message).toContain('Incorrect API key');
    expect(error.message).not.toContain('sk-secret-key-123');
    nock(URL_BASE).post('/embeddings').reply(200, { data: [] });
    await expect(provider.embed(['a'])).rejects.toThrow(/one embedding per input/);
  });

  it('is chosen by EMBEDDINGS_URL / EMBEDDINGS_MODEL / EMBEDDINGS_API_KEY, else the offline provider', () => {
    const config = loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:9999/v1/', EMBEDDINGS_MODEL: 'nomic-embed-text', EMBEDDINGS_API_KEY: 'k' });
    expect(config.embeddings).toEqual({ url: 'http://127.0.0.1:9999/v1', model: 'nomic-embed-text', apiKey: 'k' });
    expect(providerFromConfig(config).id).toBe('openai-compatible:nomic-embed-text');
    expect(providerFromConfig(loadConfig({})).id).toMatch(/^offline-/);
    expect(() => loadConfig({ EMBEDDINGS_URL: 'http://127.0.0.1:9999' })).toThrow(ConfigError);
    expect(() => loadConfig({ EMBEDDINGS_MODEL: 'x' })).toThrow(/EMBEDDINGS_URL/);
    expect(() => loadConfig({ EMBEDDINGS_URL: 'ftp://x', EMBEDDINGS_MODEL: 'x' })).toThrow(/http/);
  });
});

describe('memory of an index build', () => {
  it("asks for what pgvector's graph of the passages holds (~1.2 kB a 100-dimension passage, a quarter more), at most the cap", () => {
    // 64 MB, PostgreSQL's default, held 58 145 passages of 100 dimensions: 150 000 need about 180 MB.
    expect(hnswBuildMemoryKb(58_145, 100, 1024)).toBeGreaterThan(64 * 1024);
    expect(hnswBuildMemoryKb(150_000, 100, 1024)).toBe(Math.ceil((150_000 * 1200 * 1.25) / 1024));
    expect(hnswBuildMemoryKb(150_000, 1536, 1024)).toBe(1024 * 1024);
    expect(hnswBuildMemoryKb(150_000, 1536, 4096)).toBe(Math.ceil((150_000 * (4 * 1536 + 800) * 1.25) / 1024));
    expect(hnswBuildMemoryKb(0, 100, 1024)).toBe(0);
  });

  it('is capped by SEMANTIC_INDEX_BUILD_MEMORY_MB (default 1024, 64..65536)', () => {
    expect(loadConfig({}).semanticIndexBuildMemoryMb).toBe(DEFAULT_INDEX_BUILD_MEMORY_MB);
    expect(DEFAULT_INDEX_BUILD_MEMORY_MB).toBe(1024);
    expect(loadConfig({ SEMANTIC_INDEX_BUILD_MEMORY_MB: '4096' }).semanticIndexBuildMemoryMb).toBe(4096);
    for (const bad of ['32', '100000', '1.5', 'lots']) {
      expect(() => loadConfig({ SEMANTIC_INDEX_BUILD_MEMORY_MB: bad })).toThrow('SEMANTIC_INDEX_BUILD_MEMORY_MB must be an integer from 64 to 65536.');
    }
  });
});
