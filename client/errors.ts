/**
 * Turns the service's error envelope back into Switchyard's one error hierarchy (runtime/errors.ts and
 * src/errors.ts), so a caller of the client catches the same classes the library and the service use.
 */
import {
  AuthenticationError,
  CredentialsError,
  HostedOnlyError,
  PrivateAddressError,
  RateLimitedError,
  UnknownOperationError,
  UpstreamError,
  UpstreamRejectedError,
  UpstreamTimeoutError,
  ValidationError,
  type ErrorIssue,
} from '../runtime/errors.js';
import {
  BadRequestError,
  ConflictError,
  ForbiddenError,
  InternalError,
  PayloadTooLargeError,
  RequestValidationError,
  ResourceNotFoundError,
  SwitchyardError,
  UnauthorizedError,
  UnsupportedMediaTypeError,
  SERVICE_ERRORS,
  type BadRequestCode,
  type ErrorEnvelope,
} from '../src/errors.js';

function isBadRequestCode(code: string): code is BadRequestCode {
  return Object.hasOwn(SERVICE_ERRORS, code) && SERVICE_ERRORS[code as keyof typeof SERVICE_ERRORS].status === 400;
}

function isEnvelope(body: unknown): body is ErrorEnvelope {
  return body !== null && typeof body === 'object' && typeof (body as ErrorEnvelope).message === 'string' && Array.isArray((body as ErrorEnvelope).errors);
}

function issuesOf(envelope: ErrorEnvelope): ErrorIssue[] {
  return envelope.errors
    .filter((e) => e.field !== null)
    .map((e) => ({ field: e.field as string, rule: e.error_code, message: e.message, ...(e.details?.limit !== undefined && { limit: e.details.limit }) }));
}

function retryAfter(headers: Headers): number | undefined {
  const value = Number(headers.get('retry-after'));
  return Number.isFinite(value) && value >= 0 && headers.get('retry-after') !== null ? value : undefined;
}

/** The error a failed response stands for: by the envelope's error code when it names one, else by status. */
export function errorFromResponse(status: number, body: unknown, headers: Headers): SwitchyardError {
  const envelope: ErrorEnvelope = isEnvelope(body) ? body : { message: `Switchyard answered HTTP ${status}.`, errors: [] };
  const issues = issuesOf(envelope);
  const { message } = envelope;
  // Without issues the envelope's single entry carries the error's own code; an unknown entity or action
  // names its field with the code as the rule.
  const code = issues.length === 0 ? envelope.errors[0]?.error_code : issues.every((i) => i.rule === 'unknown_operation') ? 'unknown_operation' : undefined;
  switch (code) {
    case 'validation_failed':
      return new ValidationError(message, issues);
    case 'unknown_operation':
      return new UnknownOperationError(message, { issues });
    case 'invalid_credentials':
      return new CredentialsError(message);
    case 'credentials_rejected':
      return new AuthenticationError(message);
    case 'rate_limited':
      return new RateLimitedError(message, { ...(retryAfter(headers) !== undefined && { retryAfterSeconds: retryAfter(headers) }) });
    case 'upstream_rejected':
      return new UpstreamRejectedError(message);
    case 'upstream_error':
      return new UpstreamError(message);
    case 'upstream_timeout':
      return new UpstreamTimeoutError(message);
    case 'private_address':
      return new PrivateAddressError(message);
    case 'hosted_mode_only':
      return new HostedOnlyError(message);
    default:
      break;
  }
  switch (status) {
    case 400:
      return code !== undefined && isBadRequestCode(code) ? new BadRequestError(message, code) : new ValidationError(message, issues);
    case 401:
      return new UnauthorizedError(message);
    case 403:
      return new ForbiddenError(message, { issues });
    case 404:
      return new ResourceNotFoundError(message, { issues });
    case 409:
      return new ConflictError(message, { issues });
    case 413:
      return new PayloadTooLargeError(message);
    case 415:
      return new UnsupportedMediaTypeError(message);
    case 422:
      return new RequestValidationError(message, issues);
    case 424:
      return new AuthenticationError(message);
    case 429:
      return new RateLimitedError(message, { ...(retryAfter(headers) !== undefined && { retryAfterSeconds: retryAfter(headers) }) });
    case 502:
      return new UpstreamError(message);
    case 504:
      return new UpstreamTimeoutError(message);
    default:
      return new InternalError(message);
  }
}
