/**
 * How request bodies are read: JSON only (Fastify's text/plain parser would hand a route a string, which
 * its schema then refused as "body must be object" instead of 415), and an empty JSON body is no body.
 * Clients that send `Content-Type: application/json` on every request, a DELETE included, were refused
 * with a 400 for a body the route never asked for; a route that needs one still says so (422).
 */
import type { FastifyInstance } from 'fastify';
import { RequestValidationError } from '../errors.js';

/**
 * Where a body holds a key that could reach an object's prototype (`__proto__`, or `constructor` holding
 * `prototype`), which Fastify's parser refuses without saying where; undefined when the text is not JSON.
 */
function prototypeKeyPath(text: string): string | undefined {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return undefined;
  }
  const stack: Array<{ path: string; value: unknown }> = [{ path: '', value }];
  while (stack.length > 0) {
    const { path, value: current } = stack.pop() as { path: string; value: unknown };
    if (current === null || typeof current !== 'object') continue;
    for (const [key, child] of Object.entries(current)) {
      const childPath = path === '' ? key : `${path}.${key}`;
      if (key === '__proto__') return childPath;
      if (key === 'constructor' && child !== null && typeof child === 'object' && Object.hasOwn(child, 'prototype')) return childPath;
      stack.push({ path: childPath, value: child });
    }
  }
  return undefined;
}

export function registerJsonBody(app: FastifyInstance): void {
  const parseJson = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser(['application/json', 'text/plain']);
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    const text = typeof body === 'string' ? body : body.toString('utf8');
    if (text.trim() === '') {
      done(null, undefined);
      return;
    }
    parseJson(request, text, (error, value) => {
      const field = error === null ? undefined : prototypeKeyPath(text);
      if (field !== undefined) {
        const message = `the key ${field.slice(field.lastIndexOf('.') + 1)} at ${field} is not accepted in a body (it could reach an object's prototype)`;
        done(new RequestValidationError(`Invalid request body: ${message}.`, [{ field, rule: 'unknown', message }]), undefined);
        return;
      }
      done(error, value);
    });
  });
}
