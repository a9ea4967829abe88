/**
 * Errors of the hosted service. They extend the runtime's SwitchyardError, so the whole product has
 * one hierarchy, and every error reaches the client through toEnvelope() in one error handler.
 */
import { SwitchyardError, type ErrorIssue } from '../runtime/errors.js';

export { SwitchyardError };

/** Missing, invalid or expired application token; wrong client credentials. */
export class UnauthorizedError extends SwitchyardError {
  readonly code = 'unauthorized';
  readonly status = 401;
}

/** Authenticated, but not allowed: another organization, an inactive workspace. */
export class ForbiddenError extends SwitchyardError {
  readonly code = 'forbidden';
  readonly status = 403;
}

/** A Switchyard resource (connector, workspace, definition, skill, route) that does not exist for the caller. */
export class ResourceNotFoundError extends SwitchyardError {
  readonly code = 'not_found';
  readonly status = 404;
}

/** The request is well-formed JSON but breaks the endpoint's schema (missing, wrong type, unknown fields). */
export class RequestValidationError extends SwitchyardError {
  readonly code = 'invalid_request';
  readonly status = 422;
  constructor(message: string, issues: ErrorIssue[]) {
    super(message, { issues });
  }
}

/** A request that cannot be served as asked (ambiguous organization, credentials matching no option...). */
export class BadRequestError extends SwitchyardError {
  readonly code: string;
  readonly status = 400;
  constructor(message: string, code = 'bad_request', issues: ErrorIssue[] = []) {
    super(message, { issues });
    this.code = code;
  }
}

export class ConflictError extends SwitchyardError {
  readonly code = 'conflict';
  readonly status = 409;
}

export class PayloadTooLargeError extends SwitchyardError {
  readonly code = 'payload_too_large';
  readonly status = 413;
}

export class UnsupportedMediaTypeError extends SwitchyardError {
  readonly code = 'unsupported_media_type';
  readonly status = 415;
}

/** The connector check's read was refused by the vendor (credentials or config wrong); nothing was stored. */
export class ConnectorCheckFailedError extends SwitchyardError {
  readonly code = 'connector_check_failed';
  readonly status = 400;
  constructor(message: string, issues: ErrorIssue[], upstreamStatus?: number) {
    super(message, { issues, ...(upstreamStatus !== undefined && { upstreamStatus }) });
  }
}

/** The vendor could not be reached (network, timeout, 5xx, rate limit) for the connector check; nothing was stored. */
export class VendorUnreachableError extends SwitchyardError {
  readonly code = 'vendor_unreachable';
  readonly status = 424;
  constructor(message: string, issues: ErrorIssue[]) {
    super(message, { issues });
  }
}

/** An operation of the reference API that belongs to a product Switchyard is not (Airbyte's data pipelines). */
export class NotImplementedError extends SwitchyardError {
  readonly code = 'not_implemented';
  readonly status = 501;
}

export class InternalError extends SwitchyardError {
  readonly code = 'internal_error';
  readonly status = 500;
}

/** The reference service's ApiErrorResponse. */
export interface ErrorEnvelope {
  message: string;
  errors: Array<{ field: string | null; message: string; error_code: string; details?: Record<string, unknown> }>;
}

/** The one mapping from an error to the response body. */
export function toEnvelope(error: SwitchyardError): ErrorEnvelope {
  const errors =
    error.issues.length > 0
      ? error.issues.map((issue) => ({
          field: issue.field,
          message: issue.message,
          error_code: issue.rule,
          ...(issue.limit !== undefined && { details: { limit: issue.limit } }),
        }))
      : [{ field: null, message: error.message, error_code: error.code }];
  return { message: error.message, errors };
}
