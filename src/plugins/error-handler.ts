import type { FastifyError, FastifyInstance } from 'fastify';
import { RateLimitedError } from '../../runtime/errors.js';
import { issuesFromValidator, type ValidatorError } from '../../runtime/validation.js';
import {
  BadRequestError,
  InternalError,
  PayloadTooLargeError,
  RequestValidationError,
  ResourceNotFoundError,
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
  if (error instanceof SyntaxError || error.statusCode === 400) return new BadRequestError('The request body is not valid JSON.', 'malformed_json');
  return new InternalError('The service failed to handle the request.');
}

/** One error handler and one not-found handler: every failure leaves in the same envelope. */
export function registerErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((raw, request, reply) => {
    const error = raw instanceof SwitchyardError ? raw : fromFastifyError(raw as FastifyError);
    if (error.status === 500) request.log.error({ err: raw }, 'unhandled error');
    if (error instanceof RateLimitedError && error.retryAfterSeconds !== undefined) reply.header('retry-after', String(error.retryAfterSeconds));
    void reply.status(error.status).send(toEnvelope(error));
  });
  app.setNotFoundHandler((request, reply) => {
    const error = new ResourceNotFoundError(`No route ${request.method} ${request.url.split('?')[0]}.`);
    void reply.status(404).send(toEnvelope(error));
  });
}
