/**
 * Characters no input may carry, refused before any route runs, with a 400 naming the field:
 * - NUL (U+0000) anywhere, in a key or a value of the path, the query or the body: PostgreSQL text
 *   cannot hold it, and no vendor API expects it;
 * - an unpaired surrogate (a lone \uD800-\uDFFF escape in the JSON body): it is no character, PostgreSQL
 *   cannot store or compare it, and UTF-8 cannot carry it to a vendor;
 * - any control character (U+0000-U+001F, U+007F) in the path and the query, and in the body fields
 *   that name things (`name`, `*_name`, `entity`, `action`, `connector_type`): names are shown on one
 *   line and compared as typed. Free text elsewhere (a note, a message body) may hold newlines and tabs.
 */
import type { FastifyInstance } from 'fastify';
import { BadRequestError } from '../errors.js';

const CONTROL = /[\u0000-\u001f\u007f]/;
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;
const NAME_FIELDS = new Set(['name', 'entity', 'action', 'connector_type']);

function isNameField(key: string): boolean {
  return NAME_FIELDS.has(key) || key.endsWith('_name');
}

function refuse(field: string, nul: boolean): never {
  const what = nul ? 'a NUL character (U+0000)' : 'a control character (U+0000-U+001F or U+007F)';
  const message = `${field} must not contain ${what}`;
  throw new BadRequestError(`Invalid request: ${message}.`, 'invalid_character', [{ field, rule: nul ? 'nul_character' : 'control_character', message }]);
}

function refuseSurrogate(field: string): never {
  const message = `${field} must not contain an unpaired surrogate (a lone \\uD800-\\uDFFF escape, which is no character)`;
  throw new BadRequestError(`Invalid request: ${message}.`, 'invalid_character', [{ field, rule: 'unpaired_surrogate', message }]);
}

/** Every string (and key) of a parsed body, walked without recursion (a body may nest deeply). */
function checkBody(body: unknown): void {
  const stack: Array<{ path: string; value: unknown; depth: number }> = [{ path: '', value: body, depth: 0 }];
  while (stack.length > 0) {
    const { path, value, depth } = stack.pop() as { path: string; value: unknown; depth: number };
    if (typeof value === 'string') {
      if (value.includes('\u0000')) refuse(path || 'body', true);
      if (LONE_SURROGATE.test(value)) refuseSurrogate(path || 'body');
      const key = path.slice(path.lastIndexOf('.') + 1);
      if (depth === 1 && isNameField(key) && CONTROL.test(value)) refuse(path, false);
    } else if (value !== null && typeof value === 'object') {
      for (const [key, child] of Object.entries(value)) {
        const childPath = path === '' ? key : `${path}.${key}`;
        if (key.includes('\u0000')) refuse(childPath, true);
        if (LONE_SURROGATE.test(key)) refuseSurrogate(childPath);
        stack.push({ path: childPath, value: child, depth: depth + 1 });
      }
    }
  }
}

function checkFlat(values: unknown, prefix: string): void {
  if (values === null || typeof values !== 'object') return;
  for (const [key, value] of Object.entries(values)) {
    const field = `${prefix}${key}`;
    if (CONTROL.test(key)) refuse(field, key.includes('\u0000'));
    for (const item of Array.isArray(value) ? value : [value]) {
      if (typeof item === 'string' && CONTROL.test(item)) refuse(field, item.includes('\u0000'));
    }
  }
}

export function registerInputCharacterRules(app: FastifyInstance): void {
  // A callback hook (a throw is the request's error): an async one costs a promise per request.
  app.addHook('preValidation', (request, _reply, done) => {
    checkFlat(request.params, '');
    checkFlat(request.query, '');
    checkBody(request.body);
    done();
  });
}
