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

/** Params or config that break a declared rule; nothing was sent upstream. */
export class ValidationError extends SwitchyardError {
  readonly code = 'validation_failed';
  readonly status = 400;
  constructor(message: string, issues: ErrorIssue[]) {
    super(message, { issues });
  }
}

/** Unknown connector type, entity or action. */
export class UnknownOperationError extends SwitchyardError {
  readonly code = 'unknown_operation';
  readonly status = 400;
}

/** Credentials missing, malformed, or not matching any auth option (caller side). */
export class CredentialsError extends SwitchyardError {
  readonly code = 'invalid_credentials';
  readonly status = 400;
}

/** The vendor refused the credentials (upstream 401/403, or a failed token refresh). */
export class AuthenticationError extends SwitchyardError {
  readonly code = 'credentials_rejected';
  readonly status = 424;
}

export class NotFoundError extends SwitchyardError {
  readonly code = 'not_found';
  readonly status = 404;
}

export class RateLimitedError extends SwitchyardError {
  readonly code = 'rate_limited';
  readonly status = 429;
  /** Seconds the vendor asked to wait, when it said. */
  readonly retryAfterSeconds?: number;
  constructor(message: string, options: { upstreamStatus?: number; retryAfterSeconds?: number } = {}) {
    super(message, options);
    this.retryAfterSeconds = options.retryAfterSeconds;
  }
}

/** The vendor rejected the request as invalid (upstream 400/409/422). */
export class UpstreamRejectedError extends SwitchyardError {
  readonly code = 'upstream_rejected';
  readonly status = 400;
}

/** Upstream 5xx, unparseable body, or a protocol surprise. */
export class UpstreamError extends SwitchyardError {
  readonly code = 'upstream_error';
  readonly status = 502;
}

export class UpstreamTimeoutError extends SwitchyardError {
  readonly code = 'upstream_timeout';
  readonly status = 504;
}

/** An action that exists only in hosted mode, called in library mode. */
export class HostedOnlyError extends SwitchyardError {
  readonly code = 'hosted_mode_only';
  readonly status = 400;
}
