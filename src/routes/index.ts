import type { FastifyInstance } from 'fastify';
import connectorsRoutes from './connectors.js';
import definitionsRoutes from './definitions.js';
import executeRoutes from './execute.js';
import inspectRoutes from './inspect.js';
import mcpRoutes from '../mcp/http.js';
import openapiRoutes from './openapi.js';
import skillsRoutes from './skills.js';
import syncRoutes from './sync.js';
import tokenRoutes from './token.js';
import workspacesRoutes from './workspaces.js';

/** Every route module of the API, registered in one place. */
export function registerRoutes(app: FastifyInstance): void {
  for (const routes of [tokenRoutes, definitionsRoutes, connectorsRoutes, executeRoutes, inspectRoutes, skillsRoutes, workspacesRoutes, syncRoutes, mcpRoutes, openapiRoutes]) {
    void app.register(routes);
  }
}
