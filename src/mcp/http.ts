/**
 * Streamable HTTP MCP at /mcp on the service (stateless: one server per POST, JSON responses).
 * Authenticated like every API route (application or scoped token); the session sees the token's
 * organization, limited to the principal's workspace when it carries one.
 *
 * Query settings: action_tools=true (one tool per entity/action), allow=<connector>:<entity>.<action>,...
 */
import type { FastifyInstance } from 'fastify';
import { ValidationError } from '../../runtime/errors.js';
import { RequestValidationError } from '../errors.js';
import { errorResponses } from '../routes/shared-schemas.js';
import { parseAllowList } from './options.js';
import { ServiceBackend, scopeOf } from './service-backend.js';

interface McpQuery {
  action_tools?: boolean;
  allow?: string;
}

const METHOD_NOT_ALLOWED = {
  message: 'This MCP endpoint is stateless: send JSON-RPC messages with POST /mcp (no server-initiated stream, no sessions).',
  errors: [{ field: null, message: 'Use POST.', error_code: 'method_not_allowed' }],
};

export default async function mcpRoutes(app: FastifyInstance): Promise<void> {
  app.post<{ Querystring: McpQuery; Body: unknown }>(
    '/mcp',
    {
      schema: {
        summary: 'Model Context Protocol (Streamable HTTP): Switchyard tools for AI agents',
        description:
          'JSON-RPC over Streamable HTTP, stateless, JSON responses. Tools are derived from the connector manifests; skill docs are resources. See README, "MCP".',
        tags: ['MCP'],
        querystring: {
          type: 'object',
          additionalProperties: false,
          properties: {
            action_tools: { type: 'boolean', description: 'Also expose one tool per entity/action of every connector.' },
            allow: {
              type: 'string',
              maxLength: 4000,
              description: 'Comma-separated <connector type or id>:<entity>.<action> (or entity.*): one tool each, and execute limited to them.',
            },
          },
        },
        response: {
          200: { description: 'The JSON-RPC response.', type: 'object', additionalProperties: true },
          202: { description: 'A notification or response was accepted (no body).', type: 'null' },
          ...errorResponses(401, 403, 413, 415, 422),
        },
      },
    },
    async (request, reply) => {
      let allow;
      try {
        allow = request.query.allow === undefined ? undefined : parseAllowList([request.query.allow]);
      } catch (error) {
        if (error instanceof ValidationError)
          throw new RequestValidationError(
            error.message,
            error.issues.map((i) => ({ ...i, field: `query.${i.field}` })),
          );
        throw error;
      }
      // Loaded on the first request, not at start: the MCP SDK takes about as long to load as the rest of the service.
      const [{ StreamableHTTPServerTransport }, { SwitchyardMcp }] = await Promise.all([
        import('@modelcontextprotocol/sdk/server/streamableHttp.js'),
        import('./server.js'),
      ]);
      const mcp = new SwitchyardMcp(new ServiceBackend(app.ctx, scopeOf(request.principal)), {
        ...(request.query.action_tools === true && { actionTools: true }),
        ...(allow !== undefined && { allow }),
      });
      const server = mcp.server();
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on('close', () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(request.raw, reply.raw, request.body);
    },
  );

  for (const method of ['GET', 'DELETE'] as const) {
    app.route({
      method,
      url: '/mcp',
      schema: { hide: true },
      handler: async (_request, reply) => reply.status(405).header('allow', 'POST').send(METHOD_NOT_ALLOWED),
    });
  }
}
