import type { FastifyInstance } from 'fastify';
import { UnauthorizedError } from '../errors.js';
import type { ServiceMetrics } from '../observability/metrics.js';
import { bearerToken, sameSecret } from '../security/bearer.js';
import { errorResponses } from './shared-schemas.js';

/** GET /metrics: Prometheus text; open unless METRICS_TOKEN is set. */
export function metricsRoutes(metrics: ServiceMetrics) {
  return async function routes(app: FastifyInstance): Promise<void> {
    const token = app.ctx.config.metricsToken;
    app.get(
      '/metrics',
      {
        config: { public: true },
        schema: {
          summary: 'Prometheus metrics: requests, vendor calls, OAuth refreshes, syncs, store pool, event-loop lag',
          description: 'Prometheus text exposition format 0.0.4. Open, unless the service runs with METRICS_TOKEN: then send it as a bearer token.',
          operationId: 'get_metrics',
          tags: ['Meta'],
          // Open, or METRICS_TOKEN when the service sets one.
          security: [{}, { MetricsToken: [] }],
          produces: ['text/plain'],
          response: { 200: { description: 'Prometheus text format', type: 'string' }, ...errorResponses(401) },
        },
      },
      async (request, reply) => {
        if (token !== undefined && !sameSecret(bearerToken(request), token)) {
          throw new UnauthorizedError('Send the metrics token as "Authorization: Bearer <METRICS_TOKEN>".');
        }
        return reply.type(metrics.contentType).send(await metrics.text());
      },
    );
  };
}
