import type { FastifyInstance } from 'fastify';
import adminRoutes from './admin.js';
import connectRoutes from './connect.js';
import connectorsRoutes from './connectors.js';
import dataPipelineRoutes from './data-pipeline.js';
import definitionsRoutes from './definitions.js';
import executeRoutes from './execute.js';
import healthRoutes from './health.js';
import inspectRoutes from './inspect.js';
import oauthCredentialsRoutes from './oauth-credentials.js';
import mcpRoutes from '../mcp/http.js';
import openapiRoutes from './openapi.js';
import skillsRoutes from './skills.js';
import sourceTemplatesRoutes from './source-templates.js';
import syncRoutes from './sync.js';
import tokenRoutes from './token.js';
import workspacesRoutes from './workspaces.js';

/** Every route module of the API, registered in one place. */
export function registerRoutes(app: FastifyInstance): void {
  for (const routes of [
    healthRoutes,
    adminRoutes,
    tokenRoutes,
    definitionsRoutes,
    connectorsRoutes,
    executeRoutes,
    inspectRoutes,
    skillsRoutes,
    workspacesRoutes,
    syncRoutes,
    dataPipelineRoutes,
    mcpRoutes,
    openapiRoutes,
  ]) {
    void app.register(routes);
  }
  // The connect flow: source templates, organizations' OAuth apps, widget tokens and the hosted connect page.
  for (const routes of [sourceTemplatesRoutes, oauthCredentialsRoutes, connectRoutes]) void app.register(routes);
}
