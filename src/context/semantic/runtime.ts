/**
 * The embedding provider of a service: chosen from its settings (EMBEDDINGS_URL... or the offline
 * default) the first time it is needed, kept per ServiceContext (two services in one process, as in
 * tests, each have their own). Tests replace it with setEmbeddingProvider.
 */
import type { ServiceContext } from '../../service-context.js';
import { providerFromConfig, type EmbeddingProvider } from './providers.js';

const providers = new WeakMap<ServiceContext, EmbeddingProvider>();

export function embeddingProvider(ctx: ServiceContext): EmbeddingProvider {
  let provider = providers.get(ctx);
  if (!provider) {
    provider = providerFromConfig(ctx.config);
    providers.set(ctx, provider);
  }
  return provider;
}

/** Uses another provider from now on (its id differs: reconcile() re-embeds what the old one made). */
export function setEmbeddingProvider(ctx: ServiceContext, provider: EmbeddingProvider): void {
  providers.set(ctx, provider);
}
