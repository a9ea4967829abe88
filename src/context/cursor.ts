/**
 * Opaque, tamper-evident cursors for context store search: base64url(JSON payload) + "." +
 * base64url(HMAC-SHA256 of the payload), keyed with keyring.derive('context-cursor'). A cursor names
 * the position after the last result (keyset values, not an offset), so paging stays stable while new
 * records arrive; it also carries a fingerprint of the search it belongs to, so it cannot be replayed
 * against another query, entity or connector. A master key rotation invalidates outstanding cursors.
 */
import { createHash } from 'node:crypto';
import type { Keyring } from '../security/keyring.js';
import { openPayload, signPayload } from '../security/signed-payload.js';
import { BadRequestError } from '../errors.js';

export const CURSOR_PURPOSE = 'context-cursor';
/** Longest cursor accepted as a param (the signed payload itself is checked by openCursor). */
export const MAX_CURSOR_LENGTH = 8192;

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
  return signPayload(keyring.derive(CURSOR_PURPOSE), 'context', payload);
}

function invalid(message: string): BadRequestError {
  return new BadRequestError(message, 'invalid_cursor', [{ field: 'cursor', rule: 'invalid_cursor', message }]);
}

/**
 * The payload of a cursor this service signed for this search, or a 400 `invalid_cursor` for a
 * cursor that was altered, signed with another key, or issued for another search.
 */
export function openCursor(keyring: Keyring, cursor: string, fingerprint: string): Record<string, unknown> {
  const opened = openPayload(keyring.derive(CURSOR_PURPOSE), 'context', cursor);
  if ('problem' in opened) {
    throw invalid(
      opened.problem === 'altered'
        ? 'cursor failed its integrity check (altered, or issued before a key rotation): pass meta.cursor from the previous response unchanged, or start again without a cursor.'
        : 'cursor is not a cursor this service issued: pass meta.cursor from the previous response unchanged.',
    );
  }
  const payload = opened.payload;
  const record = payload;
  if (record.f !== fingerprint) {
    throw invalid('cursor belongs to another search: a cursor only continues the search (connector, entity, filter, sort) that returned it.');
  }
  return record;
}
