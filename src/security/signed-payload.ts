import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * Tamper-evident opaque tokens (pagination cursors): base64url(JSON payload) + "." + base64url(HMAC-SHA256
 * over the scope and the payload). The scope binds a token to where it may be used (an organization, a
 * kind of listing), so a token cannot be moved.
 */

const MAX_TOKEN_LENGTH = 8192;

function mac(key: Uint8Array, scope: string, body: string): Buffer {
  return createHmac('sha256', key).update(`${scope}:${body}`).digest();
}

export function signPayload(key: Uint8Array, scope: string, payload: Record<string, unknown>): string {
  const body = Buffer.from(JSON.stringify(payload)).toString('base64url');
  return `${body}.${mac(key, scope, body).toString('base64url')}`;
}

export type OpenedPayload = { payload: Record<string, unknown> } | { problem: 'malformed' | 'altered' };

/** The payload of a token signed with this key and scope, or what is wrong with it. */
export function openPayload(key: Uint8Array, scope: string, token: string): OpenedPayload {
  const parts = token.split('.');
  if (parts.length !== 2 || token.length > MAX_TOKEN_LENGTH || !parts.every((part) => /^[A-Za-z0-9_-]+$/.test(part))) return { problem: 'malformed' };
  const [body, signature] = parts as [string, string];
  const expected = mac(key, scope, body);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { problem: 'altered' };
  let payload: unknown;
  try {
    payload = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return { problem: 'malformed' };
  }
  if (payload === null || typeof payload !== 'object' || Array.isArray(payload)) return { problem: 'malformed' };
  return { payload: payload as Record<string, unknown> };
}
