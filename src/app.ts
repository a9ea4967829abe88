import { Ajv, type ValidateFunction } from 'ajv';
import { uuidv7 } from 'uuidv7';
import addFormatsModule from 'ajv-formats';
import swagger from '@fastify/swagger';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import type { LoggerOptions } from 'pino';
import type { ServiceContext } from './service-context.js';
import { registerAuthentication } from './plugins/authentication.js';
import { registerCors } from './plugins/cors.js';
import { registerRequestLogging } from './plugins/request-logging.js';
import { registerShutdownAnswer } from './plugins/shutdown.js';
import { frameworkErrorOptions, registerErrorHandling } from './plugins/error-handler.js';
import { registerInputCharacterRules } from './plugins/input-characters.js';
import { registerJsonBody } from './plugins/json-body.js';
import { registerMetrics } from './plugins/metrics.js';
import { requestLogValue } from './observability/request-log.js';
import { registerRoutes } from './routes/index.js';
import { swaggerOptions } from './routes/openapi-document.js';
import { registerRequestAcceptance } from './routes/request-acceptance.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

/** Bodies are checked strictly (no coercion, no silent removal); query and path values arrive as text and are coerced. */
function validators(): { body: Ajv; text: Ajv } {
  const body = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: false, removeAdditional: false, useDefaults: false }));
  const text = addFormats(new Ajv({ allErrors: true, strict: false, coerceTypes: 'array', removeAdditional: false, useDefaults: true }));
  return { body, text };
}

/** TRUST_PROXY as Fastify takes it: the addresses themselves, or a hop count as the proxy-addr function it stands for. */
function trustedProxies(setting: number | string[]): string[] | ((address: string, hop: number) => boolean) {
  return typeof setting === 'number' ? (_address, hop) => hop < setting : setting;
}

/** The HTTP app over a composed service (src/composition.ts); it logs through the service's logger. */
export function buildApp(ctx: ServiceContext): FastifyInstance {
  const app = Fastify({
    loggerInstance: ctx.log,
    bodyLimit: ctx.config.bodyLimitBytes,
    // Stopping: answered in the error envelope by registerShutdownAnswer instead.
    return503OnClosing: false,
    // One line per request when it is answered (registerRequestLogging), with a unique id across restarts.
    logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => uuidv7(),
    ...(ctx.config.trustProxy !== undefined && { trustProxy: trustedProxies(ctx.config.trustProxy) }),
    ...frameworkErrorOptions,
  });
  const { body, text } = validators();
  app.setValidatorCompiler(({ schema, httpPart }) => {
    const compiled: ValidateFunction = (httpPart === 'body' ? body : text).compile(schema);
    return compiled;
  });
  app.decorate('ctx', ctx);
  registerErrorHandling(app);
  registerShutdownAnswer(app);
  const onRequestAbandoned = registerRequestLogging(app);
  registerCors(app);
  registerJsonBody(app);
  registerAuthentication(app);
  registerInputCharacterRules(app);
  registerRequestAcceptance(app);
  void app.register(swagger, swaggerOptions());
  registerMetrics(app, onRequestAbandoned);
  registerRoutes(app);
  return app;
}

/** pino settings for the service: credentials and tokens never reach a log line. */
export function loggerOptions(level: string): LoggerOptions {
  return {
    level,
    // The request serializer logs no header; these paths guard a log line that carries a raw request's headers.
    redact: { paths: ['req.headers.authorization', 'req.headers.cookie', 'req.headers["x-api-key"]'], censor: '[redacted]' },
    serializers: { req: requestLogValue },
  };
}
