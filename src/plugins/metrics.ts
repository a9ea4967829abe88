import type { FastifyInstance } from 'fastify';
import { ServiceMetrics } from '../observability/metrics.js';
import { metricsRoutes } from '../routes/metrics.js';
import type { AbandonedRequestListener } from './request-logging.js';

/**
 * Wires metrics into an app: the request hook (one per answered request), the observer the execute
 * path and the sync report to, and GET /metrics. The route label is the route template, so ids in
 * paths do not multiply the series; paths that match no route share one label.
 */
export function registerMetrics(app: FastifyInstance, onRequestAbandoned: (listener: AbandonedRequestListener) => void): ServiceMetrics {
  const metrics = new ServiceMetrics(app.ctx.store);
  app.ctx.observer = metrics;
  app.addHook('onResponse', (request, reply, done) => {
    metrics.requestAnswered(request.method, request.routeOptions.url ?? 'unmatched', reply.statusCode, reply.elapsedTime / 1000);
    done();
  });
  // A client that closed the connection before its answer is counted as nginx does, 499.
  onRequestAbandoned((request, seconds) => metrics.requestAnswered(request.method, request.routeOptions.url ?? 'unmatched', 499, seconds));
  void app.register(metricsRoutes(metrics));
  return metrics;
}
