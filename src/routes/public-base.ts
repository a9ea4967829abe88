import type { FastifyRequest } from 'fastify';

/**
 * The service's URL as its clients reach it, for the links it answers (the connect page, a list's next page):
 * PUBLIC_URL when set (behind a proxy, where the request's own scheme and host are the proxy's), else the
 * request's scheme and Host header.
 */
export function publicBase(request: FastifyRequest): string {
  return request.server.ctx.config.publicUrl ?? `${request.protocol}://${request.host}`;
}
