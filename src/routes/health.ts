import type { FastifyInstance } from 'fastify';
import { sql } from 'kysely';
import { migrations } from '../db/migrations.js';
import { NotReadyError } from '../errors.js';
import { errorResponses } from './shared-schemas.js';

const LATEST_MIGRATION = Math.max(...migrations.map((m) => m.version));
/** A probe must answer quickly even when PostgreSQL hangs: past this the store counts as unreachable. */
const STORE_PROBE_TIMEOUT_MS = 2000;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const healthSchema = {
  type: 'object',
  required: ['status'],
  properties: { status: { type: 'string', enum: ['ok'] } },
  examples: [{ status: 'ok' }],
} as const;

const readySchema = {
  type: 'object',
  required: ['status', 'store', 'schema_version', 'key_id'],
  properties: {
    status: { type: 'string', enum: ['ready'] },
    store: { type: 'string', enum: ['pglite', 'postgres'] },
    schema_version: { type: 'integer' },
    key_id: { type: 'string', description: 'Id of the loaded master key (a digest prefix, not key material).' },
  },
  examples: [{ status: 'ready', store: 'pglite', schema_version: LATEST_MIGRATION, key_id: '0bed3fa710fbb3ae' }],
} as const;

/** Probes for load balancers and orchestrators: unauthenticated, one tiny query at most. */
export default async function healthRoutes(app: FastifyInstance): Promise<void> {
  app.get(
    '/health',
    {
      config: { public: true },
      schema: {
        summary: 'Liveness: the process is up',
        operationId: 'get_health',
        tags: ['Meta'],
        security: [],
        response: { 200: healthSchema },
      },
    },
    async () => ({ status: 'ok' as const }),
  );

  app.get(
    '/ready',
    {
      config: { public: true },
      schema: {
        summary: 'Readiness: the store answers, its migrations are applied and the master key is loaded',
        operationId: 'get_ready',
        tags: ['Meta'],
        security: [],
        response: { 200: readySchema, ...errorResponses(503) },
      },
    },
    async () => {
      const { store, keyring } = app.ctx;
      let version: number;
      try {
        const result = await withTimeout(
          sql<{ version: number | null }>`SELECT max(version) AS version FROM schema_migrations`.execute(store.db),
          STORE_PROBE_TIMEOUT_MS,
        );
        version = Number(result.rows[0]?.version ?? 0);
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        throw new NotReadyError(`Not ready: the ${store.kind === 'pglite' ? 'embedded' : 'PostgreSQL'} store does not answer (${reason}).`);
      }
      if (version < LATEST_MIGRATION)
        throw new NotReadyError(`Not ready: the store's schema is at migration ${version}, this version needs ${LATEST_MIGRATION}.`);
      return { status: 'ready' as const, store: store.kind, schema_version: version, key_id: keyring.currentKeyId };
    },
  );
}
