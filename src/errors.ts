/**
 * Errors of the hosted service. They extend the runtime's SwitchyardError, so the whole product has
 * one hierarchy, and every error reaches the client through toEnvelope() in one error handler.
 */
import { codedError, NotFoundError, RUNTIME_ERRORS, SwitchyardError, type ErrorIssue, type ErrorSpec } from '../runtime/errors.js';

export { SwitchyardError };

/**
 * Every error code the service adds to the runtime's (runtime/errors.ts), declared once. Retired codes are
 * never reused. docs/api-reference.md#error-codes lists API_ERRORS; test/service/error-catalogue.test.ts
 * fails when the two differ.
 */
export const SERVICE_ERRORS = {
  unauthorized: { status: 401, meaning: 'No, invalid or expired application token; wrong client credentials.' },
  forbidden: { status: 403, meaning: "Authenticated but not allowed: another organization, an inactive workspace's connector." },
  invalid_request: {
    status: 422,
    meaning: "The request breaks the endpoint's schema (missing, wrong-typed or unknown fields); errors[] names each field and rule.",
  },
  conflict: { status: 409, meaning: 'The request collides with current state: a taken workspace name, a sync already running, a service stopping.' },
  payload_too_large: { status: 413, meaning: 'The request body is over BODY_LIMIT_BYTES.' },
  unsupported_media_type: { status: 415, meaning: 'The request body is not JSON.' },
  internal_error: { status: 500, meaning: 'The service failed to handle the request; the log has the cause.' },
  malformed_json: { status: 400, meaning: 'The body is declared JSON but is empty or not valid JSON.' },
  organization_required: { status: 400, meaning: 'The client belongs to several organizations and the token request names none.' },
  unknown_definition: { status: 400, meaning: 'definition_id names no connector kind of the catalog.' },
  unknown_connector_type: { status: 400, meaning: 'connector_type names no connector kind of the catalog.' },
  connector_type_unavailable: { status: 400, meaning: 'The connector is of a kind this deployment no longer offers.' },
  default_workspace: { status: 400, meaning: 'The default workspace cannot be renamed or deleted.' },
  invalid_cursor: { status: 400, meaning: 'A paging cursor this service did not issue, or issued for another query.' },
  unknown_entity: { status: 400, meaning: 'The entity is not one of the connector kind.' },
  entity_not_syncable: { status: 400, meaning: 'The entity cannot be synchronized into the context store.' },
  nothing_to_sync: { status: 400, meaning: 'The connector kind has no entity the context store can synchronize.' },
  context_store_not_ready: { status: 400, meaning: 'Context store search on an entity without a complete sync.' },
  invalid_semantic_field: { status: 400, meaning: 'Semantic search on a field the entity does not index by meaning.' },
  invalid_character: {
    status: 400,
    meaning:
      'A NUL anywhere in the input, an unpaired surrogate in the body, or a control character in a name or a path or query value; errors[] names the field.',
  },
  malformed_url: { status: 400, meaning: 'The request path is not valid percent-encoded UTF-8.' },
  path_too_long: { status: 400, meaning: 'A path segment is over 1,000 characters.' },
  malformed_request: { status: 400, meaning: 'The request line or headers are not well-formed HTTP.' },
  unknown_method: { status: 400, meaning: 'The request method is not an HTTP method this service knows.' },
  method_not_allowed: { status: 405, meaning: 'A path this service serves, asked with a method it does not answer there (Allow lists them); CONNECT.' },
  request_timeout: { status: 408, meaning: 'The request was not received in time.' },
  headers_too_large: { status: 431, meaning: 'The request headers are larger than the server accepts.' },
  store_unavailable: { status: 503, meaning: 'The store (PostgreSQL) cannot be reached right now; retry after Retry-After seconds.' },
  not_ready: { status: 503, meaning: 'GET /ready: the store does not answer or its migrations are not applied yet.' },
  operator_unauthorized: { status: 401, meaning: 'An admin route without the operator credential (application tokens are not accepted there).' },
  connector_check_failed: {
    status: 400,
    meaning: "The vendor refused the connector check's read: wrong credentials or settings; nothing was stored (?check=false skips the check).",
  },
  vendor_unreachable: {
    status: 424,
    meaning: 'The connector check could not reach the vendor (network, timeout, 5xx, rate limit); nothing was stored (?check=false skips the check).',
  },
  not_implemented: {
    status: 501,
    meaning: "An Airbyte Agent API operation of Airbyte's data-pipeline product (destinations, connection templates), which Switchyard does not offer.",
  },
  scoped_token_required: { status: 400, meaning: 'The call needs a scoped token and was made with an application token.' },
  invalid_query: { status: 400, meaning: 'A search query without any word (letters or digits).' },
  oauth_not_supported: { status: 400, meaning: 'The connector kind has no OAuth consent flow (manifest key authorization_code), so it takes no OAuth app.' },
  oauth_app_missing: {
    status: 400,
    meaning: "OAuth consent on the connect page without the organization's OAuth app for that kind (PUT /api/v1/oauth/credentials).",
  },
  unsupported_option: { status: 400, meaning: 'The connect page was asked for a credential option the connector kind does not offer there.' },
  invalid_state: { status: 400, meaning: 'An OAuth redirect whose state is missing, altered or not issued by this service.' },
  expired_state: { status: 400, meaning: 'An OAuth redirect whose consent was already used or has expired (10 minutes).' },
  consent_refused: { status: 400, meaning: 'The vendor did not grant access (the end user denied it, or no code came back).' },
  token_exchange_failed: { status: 400, meaning: 'The vendor could not be reached or refused to exchange the authorization code.' },
  no_refresh_token: { status: 400, meaning: 'The vendor granted access without a refresh token, so the connection could not be kept.' },
  resource_not_granted: {
    status: 400,
    meaning: 'The vendor granted access, but not to the account or site the settings name (e.g. the Jira site), so the connection could not be made.',
  },
  no_access_token: { status: 400, meaning: 'The vendor granted access without an access token, so the connection could not be made.' },
  workspace_gone: { status: 400, meaning: 'The workspace a connect link was made for no longer exists.' },
  client_closed_request: {
    status: 499,
    meaning: "The client closed the connection before the answer (nginx's 499): the vendor call was stopped. Seen only in logs and metrics.",
  },
  shutting_down: { status: 503, meaning: 'The service is stopping; send the request again (to another process) after Retry-After seconds.' },
  starting: {
    status: 503,
    meaning: 'The service is starting (opening the store, applying its migrations); send the request again after Retry-After seconds.',
  },
  too_many_attempts: {
    status: 429,
    meaning: 'Too many failed token requests from this address within a minute; retry after Retry-After seconds.',
  },
} as const satisfies Record<string, ErrorSpec>;

type Catalogue = typeof RUNTIME_ERRORS & typeof SERVICE_ERRORS;
export type ApiErrorCode = keyof Catalogue;

/** Everything the API can answer: the runtime's codes and the service's, which never overlap. */
export const API_ERRORS: Readonly<Record<ApiErrorCode, ErrorSpec>> = { ...RUNTIME_ERRORS, ...SERVICE_ERRORS };
const disjoint: [keyof typeof RUNTIME_ERRORS & keyof typeof SERVICE_ERRORS] extends [never] ? true : false = true;
void disjoint;

/** Missing, invalid or expired application token; wrong client credentials. */
export class UnauthorizedError extends codedError(SERVICE_ERRORS, 'unauthorized') {}

/** Authenticated, but not allowed: another organization, an inactive workspace. */
export class ForbiddenError extends codedError(SERVICE_ERRORS, 'forbidden') {}

/** One class answers not_found, whether Switchyard or the vendor lacks the resource; the message says which. */
export { NotFoundError as ResourceNotFoundError };

/** The request is well-formed JSON but breaks the endpoint's schema (missing, wrong type, unknown fields). */
export class RequestValidationError extends codedError(SERVICE_ERRORS, 'invalid_request') {
  constructor(message: string, issues: ErrorIssue[]) {
    super(message, { issues });
  }
}

/** The service's 400 codes: a request that cannot be served as asked. */
export type BadRequestCode = { [K in keyof typeof SERVICE_ERRORS]: (typeof SERVICE_ERRORS)[K]['status'] extends 400 ? K : never }[keyof typeof SERVICE_ERRORS];

/** A request that cannot be served as asked (ambiguous organization, a cursor not issued here...), by catalogue code. */
export class BadRequestError extends SwitchyardError {
  readonly code: BadRequestCode;
  readonly status = 400;
  constructor(message: string, code: BadRequestCode, issues: ErrorIssue[] = []) {
    super(message, { issues });
    this.code = code;
  }
}

export class ConflictError extends codedError(SERVICE_ERRORS, 'conflict') {}

/** The client went away before its answer: the vendor call (and its retries) was stopped. */
export class ClientClosedRequestError extends codedError(SERVICE_ERRORS, 'client_closed_request') {}

/** A request that reached a service already stopping. */
export class ShuttingDownError extends codedError(SERVICE_ERRORS, 'shutting_down') {
  readonly retryAfterSeconds = 1;
}

/** A source that keeps failing to sign in, refused before its secret is hashed. */
export class TooManyAttemptsError extends codedError(SERVICE_ERRORS, 'too_many_attempts') {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/** A path this service serves, asked with a method it does not answer there. */
export class MethodNotAllowedError extends codedError(SERVICE_ERRORS, 'method_not_allowed') {}

/** The request was not received in time (answered before a route runs). */
export class RequestTimeoutError extends codedError(SERVICE_ERRORS, 'request_timeout') {}

/** The request headers are larger than the server accepts (answered before a route runs). */
export class HeadersTooLargeError extends codedError(SERVICE_ERRORS, 'headers_too_large') {}

export class PayloadTooLargeError extends codedError(SERVICE_ERRORS, 'payload_too_large') {}

export class UnsupportedMediaTypeError extends codedError(SERVICE_ERRORS, 'unsupported_media_type') {}

/** The connector check's read was refused by the vendor (credentials or config wrong); nothing was stored. */
export class ConnectorCheckFailedError extends codedError(SERVICE_ERRORS, 'connector_check_failed') {
  constructor(message: string, issues: ErrorIssue[], upstreamStatus?: number) {
    super(message, { issues, ...(upstreamStatus !== undefined && { upstreamStatus }) });
  }
}

/** The vendor could not be reached (network, timeout, 5xx, rate limit) for the connector check; nothing was stored. */
export class VendorUnreachableError extends codedError(SERVICE_ERRORS, 'vendor_unreachable') {
  constructor(message: string, issues: ErrorIssue[]) {
    super(message, { issues });
  }
}

/** An operation of the reference API that belongs to a product Switchyard is not (Airbyte's data pipelines). */
export class NotImplementedError extends codedError(SERVICE_ERRORS, 'not_implemented') {}

export class InternalError extends codedError(SERVICE_ERRORS, 'internal_error') {}

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
          // '' is the body (or query) as a whole: no field to name
          field: issue.field === '' ? null : issue.field,
          message: issue.message,
          error_code: issue.rule,
          ...(issue.limit !== undefined && { details: { limit: issue.limit } }),
        }))
      : [{ field: null, message: error.message, error_code: error.code }];
  return { message: error.message, errors };
}

/** The store (PGlite or PostgreSQL) cannot be reached right now; the client may retry after Retry-After seconds. */
export class StoreUnavailableError extends codedError(SERVICE_ERRORS, 'store_unavailable') {
  readonly retryAfterSeconds = 5;
}

/** A request that came while the service starts (src/starting-port.ts); the client may retry after Retry-After seconds. */
export class StartingError extends codedError(SERVICE_ERRORS, 'starting') {
  readonly retryAfterSeconds = 5;
}

/** GET /ready: the service is up but cannot serve yet (store, migrations or master key). */
export class NotReadyError extends codedError(SERVICE_ERRORS, 'not_ready') {
  readonly retryAfterSeconds = 5;
}

/** Missing or wrong operator credential on an admin route (application tokens are not accepted there). */
export class OperatorUnauthorizedError extends codedError(SERVICE_ERRORS, 'operator_unauthorized') {}
