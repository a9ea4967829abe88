/**
 * Cross-origin calls from browsers (CORS_ORIGINS): a web application whose pages call the API, with a scoped
 * token for instance, from an origin listed there. Tokens travel in the Authorization header, never in cookies,
 * so no credentials mode is offered. Without the setting no CORS header is sent and browsers refuse such calls.
 */
import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';
import { CORS_ALLOWED_HEADERS, CORS_EXPOSED_HEADERS, CORS_MAX_AGE_SECONDS, CORS_METHODS } from '../cors-policy.js';

export function registerCors(app: FastifyInstance): void {
  const origins = app.ctx.config.corsOrigins;
  if (origins === undefined) return;
  void app.register(cors, {
    origin: origins === '*' ? '*' : origins,
    methods: CORS_METHODS,
    allowedHeaders: CORS_ALLOWED_HEADERS,
    exposedHeaders: CORS_EXPOSED_HEADERS,
    credentials: false,
    maxAge: CORS_MAX_AGE_SECONDS,
    // An OPTIONS that is no preflight is answered 204 too, not with @fastify/cors's plain-text 400.
    strictPreflight: false,
  });
}
