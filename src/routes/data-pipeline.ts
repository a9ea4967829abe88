import type { FastifyInstance } from 'fastify';
import { NotImplementedError } from '../errors.js';
import { errorResponses } from './shared-schemas.js';

/**
 * Operations of Airbyte's Agent API that belong to Airbyte's data-pipeline product (destinations and
 * the connections that replicate into them). Switchyard calls vendors directly and has neither, so each
 * answers 501 in the error envelope saying so, instead of a bare "no route".
 */
const DATA_PIPELINE_OPERATIONS = [
  ['GET', '/api/v1/integrations/definitions/destinations', 'destination definitions'],
  ['GET', '/api/v1/integrations/definitions/destinations/:id', 'destination definitions'],
  ['GET', '/api/v1/integrations/templates/connections', 'connection templates'],
  ['POST', '/api/v1/integrations/templates/connections', 'connection templates'],
  ['POST', '/api/v1/integrations/templates/connections/cron/describe', 'connection templates'],
  ['GET', '/api/v1/integrations/templates/connections/:id', 'connection templates'],
  ['PATCH', '/api/v1/integrations/templates/connections/:id', 'connection templates'],
  ['DELETE', '/api/v1/integrations/templates/connections/:id', 'connection templates'],
] as const;

export default async function dataPipelineRoutes(app: FastifyInstance): Promise<void> {
  for (const [method, url, what] of DATA_PIPELINE_OPERATIONS) {
    app.route({
      method,
      url,
      schema: {
        summary: `Not offered: ${what} belong to Airbyte's data-pipeline product`,
        description: `Answers 501. Switchyard executes operations against vendors directly; it has no destinations and no replication connections, so it has no ${what}.`,
        tags: ['Not offered'],
        response: errorResponses(401, 403, 501),
      },
      handler: async () => {
        throw new NotImplementedError(
          `${what[0]?.toUpperCase()}${what.slice(1)} belong to Airbyte's data-pipeline product (destinations and the connections that replicate into them). ` +
            'Switchyard executes operations against vendors directly and offers no destinations or connections; use POST /api/v1/integrations/connectors/{id}/execute.',
        );
      },
    });
  }
}
