/**
 * The one error hierarchy of Switchyard. Every error carries a stable code and the HTTP status the
 * hosted service answers with; the service maps errors in one place from these two fields.
 * Messages never contain credential values: they are built from names, never from secrets.
 */

export interface ErrorIssue {
  /** Param or field path, dot notation. */
  field: string;
  /** The rule that failed: required, type, maximum, enum, unknown, guard name... */
  rule: string;
  message: string;
  /** The limit or allowed values, where the rule has one. */
  limit?: unknown;
}

export abstract class SwitchyardError extends Error {
  abstract readonly code: string;
  abstract readonly status: number;
  readonly upstreamStatus?: number;
  readonly issues: ErrorIssue[];

  constructor(message: string, options: { upstreamStatus?: number; issues?: ErrorIssue[]; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = new.target.name;
    this.upstreamStatus = options.upstreamStatus;
    this.issues = options.issues ?? [];
  }
}

/** One entry of an error catalogue: the HTTP status the hosted service answers with, and what the code means. */
export interface ErrorSpec {
  status: number;
  meaning: string;
}

/**
 * Every error code the runtime raises, declared once. The service adds its own (src/errors.ts) and
 * docs/api-reference.md lists both; a test fails when they differ. Retired codes are never reused.
 */
export const RUNTIME_ERRORS = {
  validation_failed: {
    status: 400,
    meaning: 'Params or connector settings break a declared rule; nothing was sent to the vendor. errors[] has one item per problem.',
  },
  unknown_operation: { status: 400, meaning: 'Unknown connector type, entity or action; the message lists the valid ones.' },
  invalid_credentials: { status: 400, meaning: 'Credentials are missing, malformed, or match no auth option of the connector.' },
  hosted_mode_only: { status: 400, meaning: 'The action exists only in the hosted service (context_store_search called through the library).' },
  credentials_rejected: { status: 424, meaning: 'The vendor refused the stored credentials (HTTP 401/403, or a failed OAuth refresh).' },
  not_found: { status: 404, meaning: 'No such resource: a Switchyard resource the caller cannot see, or one the vendor answered 404 for.' },
  rate_limited: { status: 429, meaning: "The vendor's rate limit was reached after the retries; Retry-After carries its delay when it gave one." },
  upstream_rejected: { status: 400, meaning: 'The vendor rejected the request as invalid (HTTP 400/409/422, or a failure reported in a 2xx body).' },
  upstream_error: {
    status: 502,
    meaning: 'The vendor failed (5xx after the retries), could not be reached, or answered with a body that is not what the action expects.',
  },
  upstream_timeout: { status: 504, meaning: 'The vendor did not answer within the timeout.' },
  private_address: {
    status: 400,
    meaning:
      "The vendor host the connector's settings give is, or resolves to, an address of the service's own machine or network, which it does not call; nothing was sent.",
  },
  generated_code_missing: {
    status: 500,
    meaning: 'This deployment lacks generated code for the action (npm run generate was not run after a manifest changed).',
  },
} as const satisfies Record<string, ErrorSpec>;

export type RuntimeErrorCode = keyof typeof RUNTIME_ERRORS;

/**
 * The class codedError returns, typed explicitly so the emitted declarations do not inline Error's
 * constructor statics (which name @types/node's NodeJS.CallSite and break consumers without @types/node).
 */
export type CodedErrorClass<C extends string> = abstract new (
  message: string,
  options?: { upstreamStatus?: number; issues?: ErrorIssue[]; cause?: unknown },
) => SwitchyardError & { readonly code: C; readonly status: number };

/** The base class of an error with one catalogue code: its code and status come from the catalogue entry. */
export function codedError<const C extends string>(catalogue: Readonly<Record<C, ErrorSpec>>, code: C): CodedErrorClass<C> {
  abstract class CodedError extends SwitchyardError {
    readonly code: C = code;
    readonly status: number = catalogue[code].status;
  }
  return CodedError;
}

/** Params or config that break a declared rule; nothing was sent upstream. */
export class ValidationError extends codedError(RUNTIME_ERRORS, 'validation_failed') {
  constructor(message: string, issues: ErrorIssue[]) {
    super(message, { issues });
  }
}

/** Unknown connector type, entity or action. */
export class UnknownOperationError extends codedError(RUNTIME_ERRORS, 'unknown_operation') {}

/** Credentials missing, malformed, or not matching any auth option (caller side). */
export class CredentialsError extends codedError(RUNTIME_ERRORS, 'invalid_credentials') {}

/** The vendor refused the credentials (upstream 401/403, or a failed token refresh). */
export class AuthenticationError extends codedError(RUNTIME_ERRORS, 'credentials_rejected') {}

/** A resource that does not exist for the caller: in Switchyard (connector, workspace, route...) or at the vendor. */
export class NotFoundError extends codedError(RUNTIME_ERRORS, 'not_found') {}

export class RateLimitedError extends codedError(RUNTIME_ERRORS, 'rate_limited') {
  /** Seconds the vendor asked to wait, when it said. */
  readonly retryAfterSeconds?: number;
  constructor(message: string, options: { upstreamStatus?: number; retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The vendor rejected the request as invalid (upstream 400/409/422). */
export class UpstreamRejectedError extends codedError(RUNTIME_ERRORS, 'upstream_rejected') {}

/** Upstream 5xx, unparseable body, or a protocol surprise. */
export class UpstreamError extends codedError(RUNTIME_ERRORS, 'upstream_error') {}

/**
 * The vendor host the connector's configuration writes is localhost or is or resolves to an address of this
 * machine or its private network, refused (ConnectorOptions.privateAddresses): nothing was sent.
 */
export class PrivateAddressError extends codedError(RUNTIME_ERRORS, 'private_address') {}

export class UpstreamTimeoutError extends codedError(RUNTIME_ERRORS, 'upstream_timeout') {}

/** An action that exists only in hosted mode, called in library mode. */
export class HostedOnlyError extends codedError(RUNTIME_ERRORS, 'hosted_mode_only') {}

/** Generated code (a params validator) this action needs is missing: a deployment fault, not the vendor's. */
export class GeneratedCodeMissingError extends codedError(RUNTIME_ERRORS, 'generated_code_missing') {}
