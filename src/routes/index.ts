import type { FastifyInstance } from 'fastify';
import openapiRoutes from './openapi.js';
import tokenRoutes from './token.js';

/** Every route module of the API, registered in one place. */
export function registerRoutes(app: FastifyInstance): void {
  void app.register(tokenRoutes);
  void app.register(openapiRoutes);
}
