/**
 * The connector check: the one cheap read each manifest declares (`check:`), made with a connector's
 * credentials and config to prove they work. Answers the reference's ConnectorSourceCheckConfigResponse,
 * and turns a failed check at create or update into a clear 4xx (which option, which fields, what the
 * vendor answered; never a credential value).
 */
import { randomUUID } from 'node:crypto';
import {
  AuthenticationError,
  createConnector,
  NotFoundError,
  PrivateAddressError,
  RateLimitedError,
  SwitchyardError,
  UpstreamError,
  UpstreamRejectedError,
  UpstreamTimeoutError,
  type AuthOption,
  type Connector,
  type ConnectorDefinition,
  type TokenRefresh,
} from '../../runtime/index.js';
import type { ServiceContext } from '../service-context.js';
import { ConnectorCheckFailedError, VendorUnreachableError } from '../errors.js';
import { upstreamOptions } from './upstream-options.js';

/** Outcome of one check read. */
export interface CheckOutcome {
  definition: ConnectorDefinition;
  succeeded: boolean;
  /** The vendor's HTTP status when it answered with an error. */
  upstreamStatus?: number;
  /** What went wrong (never a credential value). */
  error?: SwitchyardError;
  /** True when the vendor could not be reached or failed (network, timeout, 5xx, rate limit), not when it refused. */
  unreachable: boolean;
}

/** The reference's ConnectorSourceCheckConfigResponse. */
export interface CheckConfigResponse {
  id: string;
  status: 'succeeded' | 'failed';
  error_message: string | null;
  failure_reason: null | {
    timestamp: number;
    failure_origin: 'source';
    failure_type: 'config_error' | 'transient_error';
    external_message: string;
    internal_message: string | null;
    retryable: boolean;
  };
  entity_check_results: Array<{ entity: string; status: 'succeeded' | 'failed'; status_code: number | null; error_message: string | null }>;
}

/** The vendor could not be reached, timed out, failed (5xx) or asked to slow down: the credentials were not judged. */
function isUnreachable(error: unknown): boolean {
  return error instanceof UpstreamError || error instanceof UpstreamTimeoutError || error instanceof RateLimitedError;
}

/** Makes the manifest's check read with a connector instance. Errors other than the vendor's answer propagate. */
export async function runCheck(connector: Connector): Promise<CheckOutcome> {
  const { definition } = connector;
  const { entity, action, params } = definition.check;
  try {
    await connector.execute(entity, action, params);
    return { definition, succeeded: true, unreachable: false };
  } catch (error) {
    // A host the configuration writes that the service does not call (PrivateAddressError) is the configuration's fault, as a refusal is.
    const judged =
      error instanceof AuthenticationError || error instanceof NotFoundError || error instanceof UpstreamRejectedError || error instanceof PrivateAddressError;
    if (!judged && !isUnreachable(error)) throw error;
    const failure = error as SwitchyardError;
    return {
      definition,
      succeeded: false,
      error: failure,
      unreachable: !judged,
      ...(failure.upstreamStatus !== undefined && { upstreamStatus: failure.upstreamStatus }),
    };
  }
}

export interface UnsavedConnector {
  connector: Connector;
  /** The credentials to store: the given ones, with any access token or rotated refresh token the check obtained. */
  credentialsToStore(): Record<string, string>;
}

/** A connector instance for credentials that are not stored yet (create, update, check before create). */
export function unsavedConnector(
  ctx: ServiceContext,
  definition: ConnectorDefinition,
  option: AuthOption,
  credentials: Record<string, string>,
  config: Record<string, string>,
): UnsavedConnector {
  let refreshed: TokenRefresh | undefined;
  const connector = createConnector(definition.connectorType, {
    credentials: { ...credentials, option_title: option.optionTitle },
    config,
    ...upstreamOptions(ctx, definition.connectorType),
    onTokenRefresh: (refresh) => {
      refreshed = refresh;
    },
  });
  return {
    connector,
    credentialsToStore() {
      // A vendor that rotates refresh tokens has invalidated the given one: the new one must be stored.
      if (refreshed === undefined || !refreshed.rotated) return credentials;
      if (!('access_token' in option.fields)) return { ...credentials, refresh_token: refreshed.refresh_token };
      // The access token needs the values its response carried (instance_url): the next instance reads both.
      return { ...credentials, ...refreshed.keptCredentials, refresh_token: refreshed.refresh_token, access_token: refreshed.access_token };
    },
  };
}

function describeRead(definition: ConnectorDefinition): string {
  return `${definition.check.entity}.${definition.check.action}`;
}

function withPeriod(text: string): string {
  return /[.!?)]$/.test(text) ? text : `${text}.`;
}

/** The check's message for a failed outcome, naming the option and its fields (never their values). */
function failureMessage(outcome: CheckOutcome, optionTitle: string): string {
  const { definition } = outcome;
  const option = definition.auth.find((o) => o.optionTitle === optionTitle);
  const fields = option === undefined ? '' : ` (fields ${Object.keys(option.fields).join(', ')})`;
  const vendor = outcome.error === undefined ? '' : ` ${withPeriod(outcome.error.message)}`;
  if (outcome.unreachable) {
    return `The connector check could not reach ${definition.displayName} (${describeRead(definition)}), so the credentials of option "${optionTitle}" were not verified.${vendor}`;
  }
  const configNames = Object.keys(definition.config);
  if (outcome.error instanceof PrivateAddressError) {
    return `The replication_config (${configNames.join(', ')}) points ${definition.displayName} at a host this service does not call.${vendor}`;
  }
  const what =
    outcome.error instanceof AuthenticationError || configNames.length === 0
      ? 'the credentials'
      : `the credentials or the replication_config (${configNames.join(', ')})`;
  return `${definition.displayName} refused ${what} of option "${optionTitle}"${fields} at the connector check (${describeRead(definition)}).${vendor}`;
}

export function checkResponse(id: string, outcome: CheckOutcome, optionTitle: string): CheckConfigResponse {
  const entity = outcome.definition.check.entity;
  if (outcome.succeeded) {
    return {
      id,
      status: 'succeeded',
      error_message: null,
      failure_reason: null,
      entity_check_results: [{ entity, status: 'succeeded', status_code: 200, error_message: null }],
    };
  }
  const message = failureMessage(outcome, optionTitle);
  return {
    id,
    status: 'failed',
    error_message: message,
    failure_reason: {
      timestamp: Date.now(),
      failure_origin: 'source',
      failure_type: outcome.unreachable ? 'transient_error' : 'config_error',
      external_message: message,
      internal_message: outcome.error?.code ?? null,
      retryable: outcome.unreachable,
    },
    entity_check_results: [{ entity, status: 'failed', status_code: outcome.upstreamStatus ?? null, error_message: outcome.error?.message ?? message }],
  };
}

/** At create or update: a failed check refuses the request (400 refused, 424 unreachable), nothing is stored. */
export function assertCheckSucceeded(outcome: CheckOutcome, optionTitle: string): void {
  if (outcome.succeeded) return;
  const message = failureMessage(outcome, optionTitle);
  // The issue says what to do about it to anyone (the connect page shows it to end users); the message adds
  // the API's way around the check.
  if (outcome.unreachable) {
    const problem = `${message} Retry later.`;
    throw new VendorUnreachableError(`${problem.slice(0, -1)}, or skip the check with the query parameter check=false.`, [
      { field: 'check', rule: 'vendor_unreachable', message: problem },
    ]);
  }
  if (outcome.error instanceof PrivateAddressError) {
    // Skipping the check would store a connector that no call can use: the way out is another host, or the operator's setting.
    // Raised as itself, so the request's log line carries the code the client reads (private_address).
    throw new PrivateAddressError(
      `${message} Give the vendor's public host, or have the operator allow private addresses (UPSTREAM_PRIVATE_ADDRESSES=allow).`,
      { issues: [{ field: 'replication_config', rule: 'private_address', message: `${message} Give the vendor's public host.` }] },
    );
  }
  const problem = `${message} Fix them.`;
  const field = outcome.error instanceof AuthenticationError || Object.keys(outcome.definition.config).length === 0 ? 'credentials' : 'replication_config';
  throw new ConnectorCheckFailedError(
    `${problem.slice(0, -1)}, or skip the check with the query parameter check=false.`,
    [{ field, rule: 'rejected_by_vendor', message: problem }],
    outcome.upstreamStatus,
  );
}

/**
 * At create or update with check=false: a host the configuration writes that the service refuses to call
 * by itself (localhost, a private IP address) is refused as the check would refuse it, and nothing is
 * stored. A name that resolves to such an address is refused at the connector's first call.
 */
export function refuseInternalConfiguredHost(connector: Connector, optionTitle: string): void {
  try {
    connector.assertConfiguredHostsCallable();
  } catch (error) {
    if (!(error instanceof PrivateAddressError)) throw error;
    assertCheckSucceeded({ definition: connector.definition, succeeded: false, error, unreachable: false }, optionTitle);
  }
}

/** A new id for a check that is not about a stored connector. */
export function checkRunId(): string {
  return randomUUID();
}
