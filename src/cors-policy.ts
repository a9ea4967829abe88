/**
 * What cross-origin callers may do (CORS_ORIGINS), told by the app's CORS plugin (src/plugins/cors.ts) and by
 * the port while the service starts (src/starting-port.ts), so a browser page reads the same answer from both.
 */
import type { ServiceConfig } from './config.js';

export const CORS_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'];
/** The API's headers, and those of MCP's Streamable HTTP at /mcp. */
export const CORS_ALLOWED_HEADERS = ['authorization', 'content-type', 'x-organization-id', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'];
export const CORS_EXPOSED_HEADERS = ['retry-after', 'www-authenticate', 'content-type', 'mcp-session-id'];
export const CORS_MAX_AGE_SECONDS = 600;

/** The Access-Control-Allow-Origin value for a request from `origin`: `*`, the origin itself when listed, or none. */
export function allowedOrigin(origins: ServiceConfig['corsOrigins'], origin: string | undefined): string | undefined {
  if (origins === undefined || origin === undefined) return undefined;
  if (origins === '*') return '*';
  return origins.includes(origin) ? origin : undefined;
}
