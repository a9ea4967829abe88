import { guardsConfiguredHost } from '../../runtime/connector.js';
import type { ConnectorOptions } from '../../runtime/index.js';
import type { ServiceConfig } from '../config.js';

/**
 * The service's upstream settings for a connector of this type: base URL and OAuth server overrides, timeout,
 * retries, body cap, and whether a host the connector's configuration writes may be an internal address.
 */
export function upstreamOptions(
  ctx: { config: ServiceConfig },
  connectorType: string,
): Pick<ConnectorOptions, 'baseUrl' | 'http' | 'oauthServerUrl' | 'privateAddresses'> {
  const { config } = ctx;
  const baseUrl = config.upstreamBaseUrls[connectorType];
  const oauthServerUrl = config.oauthServerUrls?.[connectorType];
  const http = {
    ...(config.upstreamTimeoutMs !== undefined && { timeoutMs: config.upstreamTimeoutMs }),
    ...(config.upstreamRetries !== undefined && { retries: config.upstreamRetries }),
    ...(config.upstreamMaxResponseBytes !== undefined && { maxResponseBytes: config.upstreamMaxResponseBytes }),
  };
  return {
    ...(baseUrl !== undefined && { baseUrl }),
    ...(oauthServerUrl !== undefined && { oauthServerUrl }),
    http,
    privateAddresses: config.upstreamPrivateAddresses ?? 'refuse',
  };
}

/**
 * Whether a request the service sends itself to a URL written by `template` (an OAuth token URL) connects to
 * public addresses only: the connector's settings write its host, the operator refuses private addresses
 * (UPSTREAM_PRIVATE_ADDRESSES) and no OAUTH_SERVER_URLS override replaces it. The runtime decides the same for
 * the requests of a connector (ConnectorOptions.privateAddresses).
 */
export function publicAddressesOnly(ctx: { config: ServiceConfig }, connectorType: string, template: string): boolean {
  const { config } = ctx;
  return guardsConfiguredHost(config.upstreamPrivateAddresses ?? 'refuse', template, config.oauthServerUrls?.[connectorType] !== undefined);
}
