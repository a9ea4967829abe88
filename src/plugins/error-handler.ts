import { STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import type { FastifyBaseLogger, FastifyError, FastifyInstance, FastifyReply, FastifyRequest, FastifyServerOptions } from 'fastify';
import findMyWay, { type HTTPMethod } from 'find-my-way';
import { isStoreUnavailable } from '../db/store-errors.js';
import { issuesFromValidator, type ValidatorError } from '../../runtime/validation.js';
import {
  BadRequestError,
  HeadersTooLargeError,
  InternalError,
  MethodNotAllowedError,
  RequestTimeoutError,
  PayloadTooLargeError,
  RequestValidationError,
  ResourceNotFoundError,
  StoreUnavailableError,
  SwitchyardError,
  toEnvelope,
  UnsupportedMediaTypeError,
} from '../errors.js';

const PART_NAMES: Record<string, string> = { body: 'body', querystring: 'query', params: 'path', headers: 'header' };

/** Turns Fastify's own errors (schema validation, body parsing) into the service's hierarchy. */
function fromFastifyError(error: FastifyError): SwitchyardError {
  if (error.validation) {
    const part = PART_NAMES[error.validationContext ?? 'body'] ?? 'body';
    const issues = issuesFromValidator(error.validation as unknown as ValidatorError[], `the request ${part}`).map((issue) => ({
      ...issue,
      message: issue.field === '' ? issue.message : `${part} ${issue.message}`,
    }));
    return new RequestValidationError(`Invalid request ${part}: ${issues.map((i) => i.message).join('; ')}.`, issues);
  }
  switch (error.code) {
    case 'FST_ERR_CTP_BODY_TOO_LARGE':
      return new PayloadTooLargeError('The request body is larger than this service accepts.');
    case 'FST_ERR_CTP_INVALID_MEDIA_TYPE':
      return new UnsupportedMediaTypeError('Send the request body as JSON (Content-Type: application/json).');
    case 'FST_ERR_CTP_EMPTY_JSON_BODY':
      return new BadRequestError('The request has Content-Type application/json but an empty body.', 'malformed_json');
    case 'FST_ERR_CTP_INVALID_JSON_BODY':
      return new BadRequestError('The request body is not valid JSON.', 'malformed_json');
    default:
      break;
  }
  if (isStoreUnavailable(error)) return new StoreUnavailableError('The store is unreachable right now; retry shortly.');
  if (error instanceof SyntaxError || error.statusCode === 400) return new BadRequestError('The request body is not valid JSON.', 'malformed_json');
  return new InternalError('The service failed to handle the request.');
}

/** The envelope as a whole raw HTTP/1.1 response, for errors answered before Fastify has a request (a bad request line, oversized headers, CONNECT). */
function rawResponse(status: number, error: SwitchyardError, extraHeaders = ''): string {
  const body = JSON.stringify(toEnvelope(error));
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? 'Error'}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\n${extraHeaders}Connection: close\r\n\r\n${body}`;
}

/** Errors Node's HTTP parser reports before a request exists: answered in the envelope, then the connection is closed. */
function clientErrorHandler(error: NodeJS.ErrnoException, socket: Duplex): void {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  let answer: SwitchyardError;
  if (error.code === 'HPE_HEADER_OVERFLOW') {
    answer = new HeadersTooLargeError('The request headers are larger than this service accepts.');
  } else if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    answer = new RequestTimeoutError('The request was not received in time.');
  } else if (error.code === 'HPE_INVALID_METHOD') {
    answer = new BadRequestError('The request method is not an HTTP method this service knows.', 'unknown_method');
  } else {
    answer = new BadRequestError('The request is not well-formed HTTP (request line or headers).', 'malformed_request');
  }
  if (socket.writable) socket.write(rawResponse(answer.status, answer));
  socket.destroy();
}

/** Errors Fastify's router reports (bad percent-encoding in the path...): answered in the envelope. */
function frameworkErrors(error: FastifyError, _request: FastifyRequest, reply: FastifyReply): void {
  const answer =
    error.code === 'FST_ERR_BAD_URL'
      ? new BadRequestError('The request path is not valid percent-encoded text.', 'malformed_url', [
          { field: 'path', rule: 'url_encoding', message: 'the path must be valid percent-encoded UTF-8' },
        ])
      : error.code === 'FST_ERR_MAX_PARAM_LENGTH'
        ? new BadRequestError(`A path segment is longer than ${MAX_PARAM_LENGTH} characters.`, 'path_too_long', [
            { field: 'path', rule: 'maxLength', message: `path segments are at most ${MAX_PARAM_LENGTH} characters`, limit: MAX_PARAM_LENGTH },
          ])
        : new BadRequestError('The request cannot be routed.', 'malformed_request');
  void reply.status(answer.status).send(toEnvelope(answer));
}

/** Longest path parameter routed; a longer one is a 400 in the envelope. */
export const MAX_PARAM_LENGTH = 1_000;

/** Fastify options that route framework-level errors into the envelope (router limits go in routerOptions since Fastify 5.x, FSTDEP022). */
export const frameworkErrorOptions: Pick<FastifyServerOptions, 'frameworkErrors' | 'clientErrorHandler' | 'routerOptions'> = {
  frameworkErrors,
  clientErrorHandler,
  routerOptions: { maxParamLength: MAX_PARAM_LENGTH },
};

const ROUTED_METHODS: HTTPMethod[] = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS'];

/**
 * A store outage in the log: its first refusal with the cause, then at most one line every 10 s with how many
 * requests were refused since the last (each request's own line carries its error code), not a stack per request.
 */
export class OutageLog {
  private lastLine = 0;
  private refusedSince = 0;

  refused(log: FastifyBaseLogger, cause: unknown, now = Date.now()): void {
    this.refusedSince += 1;
    if (now - this.lastLine < 10_000) return;
    // A refusal a minute or more after the last line begins a new outage, told with its cause.
    const first = now - this.lastLine >= 60_000;
    log.warn(
      first ? { err: cause } : { err: (cause as Error).message, refused: this.refusedSince },
      first ? 'store unavailable' : 'store still unavailable; requests refused since the last line',
    );
    this.lastLine = now;
    this.refusedSince = 0;
  }
}

/** One error handler and one not-found handler: every failure leaves in the same envelope. */
export function registerErrorHandling(app: FastifyInstance): void {
  const outage = new OutageLog();
  // Which methods each path answers, so a known path with another method is a 405 with Allow.
  const routes = findMyWay();
  app.addHook('onRoute', (route) => {
    // A catch-all (CORS preflights: OPTIONS *) says nothing of which paths exist.
    if (route.url === '*' || route.url === '/*') return;
    for (const method of [route.method].flat()) {
      if (ROUTED_METHODS.includes(method as HTTPMethod)) routes.on(method as HTTPMethod, route.url, () => undefined);
    }
  });
  // CONNECT is not a request for this service: Node hands it over as a tunnel, which must still be answered.
  app.server.on('connect', (_request: unknown, socket: Duplex) => {
    socket.on('error', () => undefined);
    socket.end(rawResponse(405, new MethodNotAllowedError('CONNECT is not a method this service answers.'), 'Allow: GET, HEAD, POST, PUT, PATCH, DELETE\r\n'));
  });
  app.setErrorHandler((raw, request, reply) => {
    const error = raw instanceof SwitchyardError ? raw : fromFastifyError(raw as FastifyError);
    request.errorCode = error.code;
    if (error.status === 500) request.log.error({ err: raw }, 'unhandled error');
    if (error instanceof StoreUnavailableError) outage.refused(request.log, raw);
    const retryAfter = (error as { retryAfterSeconds?: number }).retryAfterSeconds;
    if (retryAfter !== undefined && (error.status === 429 || error.status === 503)) reply.header('retry-after', String(retryAfter));
    // RFC 6750 section 3: a 401 names the scheme, and says invalid_token when a token was sent.
    if (error.status === 401) {
      const bearerSent = /^bearer\s/i.test(request.headers.authorization ?? '');
      reply.header('www-authenticate', `Bearer realm="switchyard"${bearerSent ? ', error="invalid_token"' : ''}`);
    }
    void reply.status(error.status).send(toEnvelope(error));
  });
  app.setNotFoundHandler((request, reply) => {
    const path = request.url.split('?')[0] ?? '/';
    const allowed = ROUTED_METHODS.filter((method) => method !== request.method && routes.find(method, path) !== null);
    // With CORS_ORIGINS set, every path also answers OPTIONS (preflights, through the catch-all route).
    if (allowed.length > 0 && app.ctx.config.corsOrigins !== undefined && !allowed.includes('OPTIONS')) allowed.push('OPTIONS');
    if (allowed.length > 0) {
      const error = new MethodNotAllowedError(`${request.method} is not allowed on ${path}. Allowed: ${allowed.join(', ')}.`);
      request.errorCode = error.code;
      void reply.status(405).header('allow', allowed.join(', ')).send(toEnvelope(error));
      return;
    }
    const error = new ResourceNotFoundError(`No route ${request.method} ${path}.`);
    request.errorCode = error.code;
    void reply.status(404).send(toEnvelope(error));
  });
}
