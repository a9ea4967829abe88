/**
 * Embedding providers: the offline default (word vectors committed in vocabulary.bin, no network) and
 * any OpenAI-compatible endpoint (POST {EMBEDDINGS_URL}/embeddings {model, input}). Every vector a
 * provider returns is a unit vector, so cosine similarity is a dot product.
 */
import { UpstreamError, UpstreamTimeoutError } from '../../../runtime/index.js';
import type { ServiceConfig } from '../../config.js';
import { loadVocabulary, normalize, OFFLINE_ALGORITHM_VERSION, type Vocabulary } from './vocabulary.js';

export interface EmbeddingProvider {
  /**
   * Identifies the model that makes the vectors; stored with each passage. A passage stored with another
   * id is embedded again (switching provider or model re-embeds).
   */
  readonly id: string;
  /** Unit vectors, one per text, in order. Texts are never empty. */
  embed(texts: string[]): Promise<Float32Array[]>;
}

/** The default provider: SIF-weighted mean of 8-bit word vectors (see vocabulary.ts); works right after `npm start`. */
export class OfflineEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  readonly vocabulary: Vocabulary;

  constructor(vocabulary: Vocabulary = loadVocabulary()) {
    this.vocabulary = vocabulary;
    this.id = `offline-wordvec-${vocabulary.dimensions}d-v${OFFLINE_ALGORITHM_VERSION}-${vocabulary.digest.slice(0, 12)}`;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.vocabulary.embed(text));
  }
}

export interface OpenAICompatibleOptions {
  /** Base URL; the provider posts to `${url}/embeddings`. */
  url: string;
  model: string;
  /** Sent as `Authorization: Bearer …`; never logged or returned. */
  apiKey?: string;
  /** Inputs per request. */
  batchSize?: number;
  timeoutMs?: number;
  /** Extra attempts on 429 and 5xx answers and network failures. */
  retries?: number;
}

interface EmbeddingsResponse {
  data: Array<{ index?: number; embedding: number[] }>;
}

function isEmbeddingsResponse(value: unknown): value is EmbeddingsResponse {
  if (value === null || typeof value !== 'object' || !('data' in value) || !Array.isArray(value.data)) return false;
  return value.data.every(
    (item: unknown) =>
      item !== null &&
      typeof item === 'object' &&
      'embedding' in item &&
      Array.isArray(item.embedding) &&
      item.embedding.every((x: unknown) => typeof x === 'number'),
  );
}

const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/** Any server speaking the OpenAI embeddings API (OpenAI, Azure-style gateways, Ollama, vLLM, LiteLLM...). */
export class OpenAICompatibleEmbeddingProvider implements EmbeddingProvider {
  readonly id: string;
  private readonly endpoint: string;
  private readonly batchSize: number;
  private readonly timeoutMs: number;
  private readonly retries: number;

  constructor(private readonly options: OpenAICompatibleOptions) {
    this.id = `openai-compatible:${options.model}`;
    this.endpoint = `${options.url.replace(/\/+$/, '')}/embeddings`;
    this.batchSize = options.batchSize ?? 64;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.retries = options.retries ?? 2;
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const out: Float32Array[] = [];
    for (let i = 0; i < texts.length; i += this.batchSize) out.push(...(await this.request(texts.slice(i, i + this.batchSize))));
    return out;
  }

  private async request(input: string[]): Promise<Float32Array[]> {
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: 'application/json' };
    if (this.options.apiKey) headers.authorization = `Bearer ${this.options.apiKey}`;
    const body = JSON.stringify({ model: this.options.model, input });
    for (let attempt = 0; ; attempt += 1) {
      let response: Response;
      try {
        response = await fetch(this.endpoint, { method: 'POST', headers, body, signal: AbortSignal.timeout(this.timeoutMs) });
      } catch (error) {
        if (attempt < this.retries) {
          await sleep(250 * 2 ** attempt);
          continue;
        }
        if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
          throw new UpstreamTimeoutError(`The embeddings endpoint did not answer within ${this.timeoutMs} ms.`);
        }
        throw new UpstreamError('The embeddings endpoint could not be reached.');
      }
      if ((response.status === 429 || response.status >= 500) && attempt < this.retries) {
        await response.body?.cancel();
        const retryAfter = Number(response.headers.get('retry-after'));
        await sleep(Number.isFinite(retryAfter) && retryAfter > 0 ? Math.min(retryAfter, 10) * 1000 : 250 * 2 ** attempt);
        continue;
      }
      const text = await response.text();
      if (!response.ok) {
        // The vendor's message helps (wrong model name, bad key) and holds no secret of ours.
        let detail = '';
        try {
          const parsed: unknown = JSON.parse(text);
          if (parsed && typeof parsed === 'object' && 'error' in parsed) {
            const error = parsed.error;
            const message = error && typeof error === 'object' && 'message' in error ? error.message : error;
            if (typeof message === 'string') detail = `: ${message.slice(0, 300)}`;
          }
        } catch {
          // not JSON
        }
        throw new UpstreamError(`The embeddings endpoint answered ${response.status}${detail}.`, { upstreamStatus: response.status });
      }
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new UpstreamError('The embeddings endpoint answered with a body that is not JSON.');
      }
      if (!isEmbeddingsResponse(parsed) || parsed.data.length !== input.length) {
        throw new UpstreamError(`The embeddings endpoint answered without one embedding per input (${input.length} sent).`);
      }
      const ordered = [...parsed.data].sort((a, b) => (a.index ?? 0) - (b.index ?? 0));
      const dims = ordered[0]?.embedding.length ?? 0;
      if (dims === 0 || ordered.some((item) => item.embedding.length !== dims))
        throw new UpstreamError('The embeddings endpoint answered with vectors of different or zero lengths.');
      return ordered.map((item) => normalize(Float32Array.from(item.embedding)));
    }
  }
}

/** The provider the settings ask for: EMBEDDINGS_URL (with EMBEDDINGS_MODEL, EMBEDDINGS_API_KEY) or the offline default. */
export function providerFromConfig(config: ServiceConfig): EmbeddingProvider {
  const embeddings = config.embeddings;
  if (embeddings) {
    return new OpenAICompatibleEmbeddingProvider({
      url: embeddings.url,
      model: embeddings.model,
      ...(embeddings.apiKey !== undefined && { apiKey: embeddings.apiKey }),
    });
  }
  return new OfflineEmbeddingProvider();
}
