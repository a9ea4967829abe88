/**
 * How request bodies are read: JSON only (Fastify's text/plain parser would hand a route a string, which
 * its schema then refused as "body must be object" instead of 415), and an empty JSON body is no body.
 * Clients that send `Content-Type: application/json` on every request, a DELETE included, were refused
 * with a 400 for a body the route never asked for; a route that needs one still says so (422).
 */
import type { FastifyInstance } from 'fastify';
import { RequestValidationError } from '../errors.js';

/** Whether text is JSON, once Fastify's parser has refused it: then its `__proto__` key was the reason. */
function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'ignore');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, value) => {
      if (error !== null && isJson(text)) {
        const message = 'the key __proto__ is not accepted anywhere in a body';
        done(new RequestValidationError(`Invalid request body: ${message}.`, [{ field: '__proto__', rule: 'unknown', message }]), undefined);
        return;
      }
      done(error, value);
    });
  });
}
