/**
 * Cross-origin calls from browsers (CORS_ORIGINS): a web application whose pages call the API, with a scoped
 * token for instance, from an origin listed there. Tokens travel in the Authorization header, never in cookies,
 * so no credentials mode is offered. Without the setting no CORS header is sent and browsers refuse such calls.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

export function registerCors(app: FastifyInstance): void {
  const origins = app.ctx.config.corsOrigins;
  if (origins === undefined) return;
  void app.register(cors, {
    origin: origins === '*' ? '*' : origins,
    methods: ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE'],
    // The API's headers, and those of MCP's Streamable HTTP at /mcp.
    allowedHeaders: ['authorization', 'content-type', 'x-organization-id', 'accept', 'mcp-protocol-version', 'mcp-session-id', 'last-event-id'],
    exposedHeaders: ['retry-after', 'www-authenticate', 'content-type', 'mcp-session-id'],
    credentials: false,
    maxAge: 600,
    // An OPTIONS that is no preflight is answered 204 too, not with @fastify/cors's plain-text 400.
    strictPreflight: false,
  });
}
