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
  invalid_request: { status: 422, meaning: "The request breaks the endpoint's schema (missing, wrong-typed or unknown fields); errors[] names each field and rule." },
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

export class PayloadTooLargeError extends codedError(SERVICE_ERRORS, 'payload_too_large') {}

export class UnsupportedMediaTypeError extends codedError(SERVICE_ERRORS, 'unsupported_media_type') {}

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
          field: issue.field,
          message: issue.message,
          error_code: issue.rule,
          ...(issue.limit !== undefined && { details: { limit: issue.limit } }),
        }))
      : [{ field: null, message: error.message, error_code: error.code }];
  return { message: error.message, errors };
}
