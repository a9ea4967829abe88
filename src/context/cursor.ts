/**
 * Opaque, tamper-evident cursors for context store search: base64url(JSON payload) + "." +
 * base64url(HMAC-SHA256 of the payload), keyed with keyring.derive('context-cursor'). A cursor names
 * the position after the last result (keyset values, not an offset), so paging stays stable while new
 * records arrive; it also carries a fingerprint of the search it belongs to, so it cannot be replayed
 * against another query, entity or connector. A master key rotation invalidates outstanding cursors.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { Keyring } from '../security/keyring.js';
import { BadRequestError } from '../errors.js';

export const CURSOR_PURPOSE = 'context-cursor';
export const MAX_CURSOR_LENGTH = 8192;

function mac(keyring: Keyring, payload: string): Buffer {
  return createHmac('sha256', keyring.derive(CURSOR_PURPOSE)).update(payload).digest();
}

/** JSON with object keys sorted at every level, so equal queries give equal fingerprints. */
function canonical(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  if (Array.isArray(value)) return `[${value.map(canonical).join(',')}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(',')}}`;
}

/** A short hash identifying what a cursor may be used with (connector, entity, mode, filter, sort...). */
export function searchFingerprint(parts: Record<string, unknown>): string {
  return createHash('sha256').update(canonical(parts)).digest('base64url').slice(0, 22);
}

export function signCursor(keyring: Keyring, payload: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(keyring, body).toString('base64url')}`;
}

function invalid(message: string): BadRequestError {
  return new BadRequestError(message, 'invalid_cursor', [{ field: 'cursor', rule: 'invalid_cursor', message }]);
}

/**
 * The payload of a cursor this service signed for this search, or a 400 `invalid_cursor` for a
 * cursor that was altered, signed with another key, or issued for another search.
 */
export function openCursor(keyring: Keyring, cursor: string, fingerprint: string): Record<string, unknown> {
  const [body, signature, extra] = cursor.split('.');
  if (body === undefined || signature === undefined || extra !== undefined || body === '' || cursor.length > MAX_CURSOR_LENGTH) {
    throw invalid('cursor is not a cursor this service issued: pass meta.cursor from the previous response unchanged.');
  }
  const expected = mac(keyring, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    throw invalid('cursor failed its integrity check (altered, or issued before a key rotation): pass meta.cursor from the previous response unchanged, or start again without a cursor.');
  }
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    throw invalid('cursor is not a cursor this service issued.');
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) throw invalid('cursor is not a cursor this service issued.');
  const record = payload as Record<string, unknown>;
  if (record.f !== fingerprint) {
    throw invalid('cursor belongs to another search: a cursor only continues the search (connector, entity, filter, sort) that returned it.');
  }
  return record;
}
