/**
 * The composition root: the one place that builds the service's parts in order, starts their background
 * work and stops everything in reverse. Everything else receives the parts through the ServiceContext.
 */
import { observerOf } from './observability/observer.js';
import type { FastifyBaseLogger } from 'fastify';
import { pino } from 'pino';
import { providerFromConfig, type EmbeddingProvider } from './context/semantic/providers.js';
import { SyncService, type SyncServiceOptions } from './context/sync/service.js';
import type { ServiceBase, ServiceContext } from './service-context.js';
import { ConnectorCache } from './services/connector-cache.js';
import { SkillLibrary } from './services/skill-library.js';
import { TableStatistics } from './db/statistics.js';
import { caseFoldingAdvice } from './db/text-folding.js';
import { VectorIndexes } from './context/semantic/vector-store.js';

export interface ComposeOptions {
  /** Defaults to a silent logger (tests, the CLI). */
  log?: FastifyBaseLogger;
  /** Sync settings: page retries, the job queue's (tests shorten the delays). */
  sync?: SyncServiceOptions;
  /** Replaces the provider the settings choose (benchmarks, tests). */
  embeddings?: EmbeddingProvider;
  /** close() closes the store too, last (the server's root opened it for the service). */
  ownStore?: boolean;
}

export interface ComposedService {
  ctx: ServiceContext;
  /**
   * Starts the background work: the sync queue's workers and due checks, then semantic indexing (it embeds what
   * syncs write). Says once what the operator can fix about the store (caseFoldingAdvice).
   */
  startBackground(): Promise<void>;
  /** Hands a part built outside (the HTTP app) to close(), which closes it before everything created earlier. */
  adopt(close: () => Promise<void>): void;
  /** Stops what was started and closes the parts, in the reverse order of their creation. Idempotent. */
  close(): Promise<void>;
}

/** Builds the parts over a store, a keyring and settings. The store stays its opener's to close unless `ownStore`. */
export function composeService(base: ServiceBase, options: ComposeOptions = {}): ComposedService {
  const log = options.log ?? pino({ level: 'silent' });
  const closers: Array<() => Promise<void>> = [];
  if (options.ownStore) closers.push(() => base.store.close());
  const ctx = {
    ...base,
    log,
    observers: [],
    embeddings: { provider: options.embeddings ?? providerFromConfig(base.config) },
    statistics: new TableStatistics(base.store.db),
    vectors: new VectorIndexes(base.store.db, base.store.kind, base.config.semanticIndexBuildMemoryMb),
    skills: new SkillLibrary(),
  } as Omit<ServiceContext, 'connectors' | 'syncs'> as ServiceContext;
  // Analyses started by syncs finish before the store closes (closers run in reverse), and index builds stop.
  closers.push(() => ctx.statistics.settle());
  closers.push(() => ctx.vectors.stop());
  ctx.connectors = new ConnectorCache({
    store: base.store,
    keyring: base.keyring,
    config: base.config,
    ...(base.config.connectorCacheMaxEntries !== undefined && { maxEntries: base.config.connectorCacheMaxEntries }),
    log,
    tokenRefreshed: (connectorType, rotated) => observerOf(ctx).tokenRefreshed(connectorType, rotated),
  });
  closers.push(async () => ctx.connectors.close());
  ctx.syncs = new SyncService(ctx, log, options.sync);
  // The sync queue stops (running syncs record "interrupted", their jobs are retried elsewhere) before the store closes.
  closers.push(() => ctx.syncs.close());

  let closing: Promise<void> | undefined;
  return {
    ctx,
    async startBackground() {
      // The sync queue's workers and due checks (stopped by ctx.syncs.close() above, after the indexer).
      await ctx.syncs.startScheduling();
      // Imported on demand: start-up does not wait for it (the app has loaded the runtime already).
      const { startSemanticIndexing } = await import('./context/semantic/indexer.js');
      const semantic = startSemanticIndexing(ctx, log);
      closers.push(() => semantic.stop());
      const advice = await caseFoldingAdvice(ctx.store.db).catch(() => undefined);
      if (advice !== undefined) log.warn({ store: ctx.store.kind }, advice);
    },
    adopt(close) {
      closers.push(close);
    },
    close() {
      closing ??= (async () => {
        let failure: unknown;
        for (const close of closers.reverse()) {
          try {
            await close();
          } catch (error) {
            failure ??= error;
          }
        }
        if (failure !== undefined) throw failure;
      })();
      return closing;
    },
  };
}
