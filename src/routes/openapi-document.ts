/**
 * How Switchyard describes itself in OpenAPI (GET /api/v1/openapi.json): the document settings and a
 * transform that gives every operation an operationId and its security requirement, so route modules
 * only declare their schemas.
 */
import type { FastifyDynamicSwaggerOptions } from '@fastify/swagger';

/** Methods as the reference service names its operations: create_*, update_*, delete_*, get_* / list_*. */
const VERBS: Record<string, string> = { POST: 'create', PUT: 'update', PATCH: 'update', DELETE: 'delete' };

/** GET routes without a trailing path parameter that still return one thing (the reference names them get_*). */
const SINGLE_RESOURCES = new Set([
  'skills/docs',
  'workspaces/stats',
  'integrations/connectors/:id/inspect',
  'integrations/connectors/:id/sync',
  'openapi.json',
  'health',
  'ready',
  'metrics',
  'admin/key-rotation',
]);

/** Routes that live at the root by design (probes and metrics), not aliases of /api/v1 routes. */
const ROOT_ROUTES = new Set(['health', 'ready', 'metrics']);

/** The operationId of a route, the reference service's way: `POST /api/v1/integrations/connectors/:id/execute` -> create_integrations_connectors_id_execute. */
export function operationIdOf(method: string, url: string): string {
  const path = url.replace(/^\/api\/v1\//, '').replace(/^\//, '');
  const segments = path.split('/').filter((s) => s !== '');
  const name = segments.map((s) => s.replace(/^:/, '').replace(/[^A-Za-z0-9]+/g, '_')).join('_');
  const upper = method.toUpperCase();
  let verb = VERBS[upper];
  if (verb === undefined) verb = segments.at(-1)?.startsWith(':') || SINGLE_RESOURCES.has(path) ? 'get' : 'list';
  // An alias outside /api/v1 (e.g. /skills/docs) gets its own id.
  const alias = !url.startsWith('/api/v1/') && !ROOT_ROUTES.has(path);
  return `${verb}_${name}${alias ? '_unversioned' : ''}`;
}

/** Request and answer examples of the calls every client starts with. */
const EXAMPLES: Record<string, { body?: unknown; response?: unknown }> = {
  create_account_applications_token: {
    body: { client_id: 'ad249990-4f7c-4a0e-9d1f-6b1f0a3c2e11', client_secret: 'sy_ZCzjexampleexampleexample' },
    response: {
      access_token: 'eyJhbGciOiJIUzI1NiJ9.example.signature',
      token_type: 'bearer',
      expires_in: 900,
      organization_id: '79659cf6-1867-4ee2-b4b2-2fd6a0ce17c7',
    },
  },
  create_integrations_connectors_id_execute: {
    body: { entity: 'users', action: 'list', params: { per_page: 2 } },
    response: {
      status: 'success',
      result: [{ id: 3230547, first_name: 'Jim', last_name: 'Allen' }],
      connector_metadata: { next_params: { page: 2, per_page: 2 } },
      execution_metadata: { connector_instance_id: 'eab2d27d-ab69-4e62-a383-56d340f0bfd5', execution_time_ms: 182 },
    },
  },
  create_integrations_connectors: {
    body: { workspace_name: 'default', connector_type: 'harvest', name: 'Harvest', credentials: { api_token: 'YOUR_HARVEST_PAT', account_id: '123456' } },
  },
};

type Schema = Record<string, unknown>;

function withExample(schema: unknown, example: unknown): unknown {
  if (example === undefined || schema === null || typeof schema !== 'object') return schema;
  return { ...(schema as Schema), examples: [example] };
}

export function swaggerOptions(): FastifyDynamicSwaggerOptions {
  return {
    openapi: {
      openapi: '3.1.0',
      info: {
        title: 'Switchyard API',
        version: '1.0.0',
        description: 'Connectors to third-party APIs with stored credentials, and one execute call for every operation.',
        license: { name: 'MIT', identifier: 'MIT' },
      },
      // The served document names the address it was fetched from (see openapi.ts); this is the default of `npm start`.
      servers: [{ url: 'http://127.0.0.1:8080', description: 'A local Switchyard (npm start)' }],
      components: {
        securitySchemes: {
          HTTPBearer: { type: 'http', scheme: 'bearer', description: 'An application token from POST /api/v1/account/applications/token.' },
          OperatorToken: {
            type: 'http',
            scheme: 'bearer',
            description: 'The operator credential (SWITCHYARD_OPERATOR_TOKEN, or DATA_DIR/operator.token created on first start); only for /api/v1/admin.',
          },
          MetricsToken: { type: 'http', scheme: 'bearer', description: 'METRICS_TOKEN, when the service sets one.' },
        },
      },
      security: [{ HTTPBearer: [] }],
    },
    transform({ schema, url, route }) {
      const own = (schema ?? {}) as Schema;
      const operationId = typeof own.operationId === 'string' ? own.operationId : operationIdOf([route.method].flat()[0] ?? 'GET', url);
      let security = own.security;
      if (security === undefined) {
        if (route.config?.public) security = [];
        else if (url.startsWith('/api/v1/admin')) security = [{ OperatorToken: [] }];
        else security = [{ HTTPBearer: [] }];
      }
      const example = EXAMPLES[operationId];
      const transformed: Schema = { ...own, operationId, security };
      if (example?.body !== undefined && own.body !== undefined) transformed.body = withExample(own.body, example.body);
      const responses = own.response as Record<string, unknown> | undefined;
      if (example?.response !== undefined && responses?.[200] !== undefined)
        transformed.response = { ...responses, 200: withExample(responses[200], example.response) };
      return { schema: transformed as never, url };
    },
  };
}
