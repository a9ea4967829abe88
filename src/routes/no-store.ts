import type { FastifyReply } from 'fastify';

/** A response carrying a token or a secret: no cache, shared or private, may keep it (RFC 6749 section 5.1). */
export function keepOutOfCaches(reply: FastifyReply): void {
  void reply.header('cache-control', 'no-store').header('pragma', 'no-cache');
}
