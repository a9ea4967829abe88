/**
 * One log line per request, when it is answered: the request (URL redacted and cut), its route, status,
 * time, the organization and connector it was for and its error code, so a 502 is traced from the log
 * alone. Answers the vendor failed (5xx: upstream errors, timeouts, store outages) are warnings; probes
 * (/health, /ready, /metrics) that succeed are debug, so a scraper does not fill the log.
 */
import type { FastifyInstance, FastifyRequest } from 'fastify';

const PROBES = new Set(['/health', '/ready', '/metrics']);

/** The fields of a request's line. */
function answered(request: FastifyRequest, status: number, ms: number, errorCode: string | undefined): Record<string, unknown> {
  const route = request.routeOptions.url;
  const params = request.params as Record<string, unknown> | undefined;
  const connectorId = route?.includes('/connectors/:id') ? params?.id : undefined;
  return {
    req: request,
    route: route ?? null,
    status,
    response_time_ms: Math.round(ms),
    ...(request.principal?.organizationId !== undefined && { organization_id: request.principal.organizationId }),
    ...(typeof connectorId === 'string' && { connector_id: connectorId }),
    ...(errorCode !== undefined && { error_code: errorCode }),
  };
}

/** Told of a request whose client closed the connection before its answer (`seconds` since it came in). */
export type AbandonedRequestListener = (request: FastifyRequest, seconds: number) => void;

/**
 * Logs each request when answered, and returns how to be told of every request whose client went away before
 * its answer: Fastify's onResponse never comes for those (no answer was finished), so the connection's close is
 * their one hook (metrics count them as nginx's 499).
 */
export function registerRequestLogging(app: FastifyInstance): (listener: AbandonedRequestListener) => void {
  const listeners: AbandonedRequestListener[] = [
    (request, seconds) => request.log.info(answered(request, 499, seconds * 1000, 'client_closed_request'), 'request answered'),
  ];
  app.decorateRequest('errorCode', undefined);
  app.addHook('onRequest', (request, reply, done) => {
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      for (const listener of listeners) listener(request, reply.elapsedTime / 1000);
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const status = reply.statusCode;
    const route = request.routeOptions.url;
    const level = status >= 500 || status === 429 ? 'warn' : route !== undefined && PROBES.has(route) && status < 400 ? 'debug' : 'info';
    request.log[level](answered(request, status, reply.elapsedTime, request.errorCode), 'request answered');
    done();
  });
  return (listener) => {
    listeners.push(listener);
  };
}
