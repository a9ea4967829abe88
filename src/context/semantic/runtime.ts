/**
 * The embedding provider of a service: chosen from its settings (EMBEDDINGS_URL... or the offline
 * default) by the composition root, kept on the ServiceContext (two services in one process, as in
 * tests, each have their own).
 */
import type { ServiceContext } from '../../service-context.js';
import type { EmbeddingProvider } from './providers.js';

export function embeddingProvider(ctx: ServiceContext): EmbeddingProvider {
  return ctx.embeddings.provider;
}

/** Uses another provider from now on (its id differs: reconcile() re-embeds what the old one made). */
export function setEmbeddingProvider(ctx: ServiceContext, provider: EmbeddingProvider): void {
  ctx.embeddings.provider = provider;
}
