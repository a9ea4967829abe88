import { guardsConfiguredHost } from '../../runtime/connector.js';
import { withOrigin, type ConnectorOptions } from '../../runtime/index.js';
import { renderTemplate, type TemplateContext } from '../../runtime/templates.js';
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
 * A URL the service calls itself during a sign-in (an OAuth token URL, a credential lookup): `template`
 * rendered, with the OAUTH_SERVER_URLS override's origin, and whether it connects to public addresses only:
 * the connector's settings write its host, the operator refuses private addresses (UPSTREAM_PRIVATE_ADDRESSES)
 * and no override replaces it. The runtime decides the same for the requests of a connector.
 */
export function signInUrl(
  ctx: { config: ServiceConfig },
  connectorType: string,
  template: string,
  context: TemplateContext,
): { url: string; publicAddressesOnly: boolean } {
  const { oauthServerUrl, privateAddresses } = upstreamOptions(ctx, connectorType);
  return {
    url: withOrigin(renderTemplate(template, context), oauthServerUrl),
    publicAddressesOnly: guardsConfiguredHost(privateAddresses, template, oauthServerUrl !== undefined),
  };
}
