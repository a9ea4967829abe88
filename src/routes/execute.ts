import type { FastifyInstance } from 'fastify';
import { ClientClosedRequestError } from '../errors.js';
import { executeOperation } from '../services/execution.js';
import { errorResponses, idParamsSchema } from './shared-schemas.js';
import type { ExecuteRequest } from '../api-shapes.js';

const fieldPaths = {
  type: ['array', 'null'],
  maxItems: 500,
  items: { type: 'string', minLength: 1, maxLength: 500 },
} as const;

export default async function executeRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Params: { id: string }; Body: ExecuteRequest }>(
    '/api/v1/integrations/connectors/:id/execute',
    {
      config: { scopedAccess: 'connector' },
      schema: {
        summary: "Execute an operation (entity, action, params) with the connector's stored credentials",
        description:
          'Runs one operation against the vendor. `result` holds the records (an array for list and api_search, an object otherwise); ' +
          '`connector_metadata` holds the native pagination keys of the connector kind and, when there is a next page, `next_params`: ' +
          'the params to merge into the next call. Vendor failures map to 424 (credentials refused), 404, 429 (with Retry-After), 502 and 504.',
        tags: ['Connectors'],
        params: idParamsSchema,
        body: {
          type: 'object',
          required: ['entity', 'action'],
          additionalProperties: false,
          properties: {
            entity: { type: 'string', minLength: 1, maxLength: 200, description: 'Entity name, lowercase snake case (see inspect).' },
            action: { type: 'string', minLength: 1, maxLength: 200, description: 'Action name: list, get, create, update, delete, api_search...' },
            params: {
              type: ['object', 'null'],
              additionalProperties: true,
              description:
                'Action parameters; omit (or null) for actions without required parameters. Actions returning many records also take `limit` (see inspect). Scalars may be given as text ("1001" for an integer).',
            },
            select_fields: { ...fieldPaths, description: 'Dot paths to keep in each returned record. Takes priority over exclude_fields.' },
            exclude_fields: { ...fieldPaths, description: 'Dot paths to remove from each returned record. Ignored when select_fields is given.' },
            skip_truncation: { type: 'boolean', description: 'Accepted for compatibility; Switchyard never truncates fields.' },
            intent: { type: ['string', 'null'], maxLength: 512, description: 'Optional short reason for the action; accepted and not stored.' },
          },
        },
        response: {
          200: {
            type: 'object',
            required: ['status', 'result', 'connector_metadata', 'execution_metadata'],
            properties: {
              status: { type: 'string', enum: ['success'] },
              result: { description: 'The records: an array for list and api_search, an object for the other actions.' },
              connector_metadata: {
                type: 'object',
                additionalProperties: true,
                description:
                  "The connector kind's native pagination keys (null when the vendor omitted one) and next_params when there is a next page; {} for actions that do not paginate.",
                properties: { next_params: { type: 'object', additionalProperties: true } },
              },
              execution_metadata: {
                type: 'object',
                required: ['connector_instance_id', 'execution_time_ms'],
                properties: { connector_instance_id: { type: 'string' }, execution_time_ms: { type: 'integer' } },
              },
            },
          },
          ...errorResponses(400, 401, 403, 404, 413, 415, 422, 424, 429, 502, 504),
        },
      },
    },
    async (request, reply) => {
      // A client that goes away before its answer stops the vendor call, its retries and its waits.
      const gone = new AbortController();
      const onClose = () => {
        if (!reply.raw.writableFinished)
          gone.abort(new ClientClosedRequestError('The client closed the connection before the answer; the vendor call was stopped.'));
      };
      reply.raw.once('close', onClose);
      try {
        return await executeOperation(app.ctx, request.principal.organizationId, request.params.id, request.body, gone.signal);
      } finally {
        reply.raw.off('close', onClose);
      }
    },
  );
}
