/**
 * One log line per request, when it is answered: the request (URL redacted and cut), its route, status,
 * time, the organization and connector it was for and its error code, so a 502 is traced from the log
 * alone. Answers the vendor failed (5xx: upstream errors, timeouts, store outages) are warnings; probes
 * (/health, /ready, /metrics) that succeed are debug, so a scraper does not fill the log.
 */
import type { FastifyInstance } from 'fastify';

const PROBES = new Set(['/health', '/ready', '/metrics']);

export function registerRequestLogging(app: FastifyInstance): void {
  app.decorateRequest('errorCode', undefined);
  app.decorateRequest('startedAt', 0);
  app.addHook('onRequest', (request, reply, done) => {
    request.startedAt = performance.now();
    // A client that closes the connection before its answer gets no onResponse (no answer was finished): its line
    // is written when the connection closes, as nginx's 499.
    reply.raw.once('close', () => {
      if (reply.raw.writableFinished) return;
      const route = request.routeOptions.url;
      const params = request.params as Record<string, unknown> | undefined;
      const connectorId = route?.includes('/connectors/:id') ? params?.id : undefined;
      request.log.info(
        {
          req: request,
          route: route ?? null,
          status: 499,
          response_time_ms: Math.round(performance.now() - request.startedAt),
          ...(request.principal?.organizationId !== undefined && { organization_id: request.principal.organizationId }),
          ...(typeof connectorId === 'string' && { connector_id: connectorId }),
          error_code: 'client_closed_request',
        },
        'request answered',
      );
    });
    done();
  });
  app.addHook('onResponse', (request, reply, done) => {
    const route = request.routeOptions.url;
    const status = reply.statusCode;
    const level = status >= 500 || status === 429 ? 'warn' : route !== undefined && PROBES.has(route) && status < 400 ? 'debug' : 'info';
    const params = request.params as Record<string, unknown> | undefined;
    const connectorId = route?.includes('/connectors/:id') ? params?.id : undefined;
    request.log[level](
      {
        req: request,
        route: route ?? null,
        status,
        response_time_ms: Math.round(reply.elapsedTime),
        ...(request.principal?.organizationId !== undefined && { organization_id: request.principal.organizationId }),
        ...(typeof connectorId === 'string' && { connector_id: connectorId }),
        ...(request.errorCode !== undefined && { error_code: request.errorCode }),
      },
      'request answered',
    );
    done();
  });
}
