/**
 * Requests that reach the service once it is stopping (on a kept-alive connection, or pipelined) are answered
 * 503 shutting_down in the error envelope with Retry-After, and the connection is closed: Fastify's own answer
 * (return503OnClosing) has neither.
 */
import type { FastifyInstance } from 'fastify';
import { ShuttingDownError } from '../errors.js';

export function registerShutdownAnswer(app: FastifyInstance): void {
  let stopping = false;
  app.addHook('preClose', (done) => {
    stopping = true;
    done();
  });
  app.addHook('onRequest', (_request, reply, done) => {
    if (!stopping) return done();
    reply.header('connection', 'close');
    done(new ShuttingDownError('The service is stopping; send the request again (to another process) in a moment.'));
  });
}
