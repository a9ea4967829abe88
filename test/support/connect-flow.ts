/**
 * What the connect-flow suites do as the end user's browser and the application would: post the
 * connect page's forms, register the application's OAuth app with a source template, start a consent.
 */
import { expect } from 'vitest';
import { connectorModules } from '../../runtime/index.js';
import type { Tenant } from './service.js';

/** A form post as the browser sends it, redirects left to the test. */
export function formPost(fields: Record<string, string>): RequestInit {
  return { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString(), redirect: 'manual' };
}

/** An HTML attribute's value, entities of `&` decoded. */
export function attribute(html: string, name: string): string | undefined {
  return new RegExp(`${name}="([^"]*)"`).exec(html)?.[1]?.replace(/&amp;/g, '&');
}

/** Registers the application's OAuth app for a connector type and a source template for it; returns the template id. */
export async function consentTemplate(
  tenant: Tenant,
  connectorType: string,
  app: { client_id: string; client_secret: string },
  config: Record<string, string>,
): Promise<string> {
  const registered = await tenant.api.put('/api/v1/oauth/credentials', { connector_type: connectorType, configuration: app });
  expect(registered.status, JSON.stringify(registered.body)).toBe(200);
  const created = await tenant.api.post<{ id: string }>('/api/v1/integrations/templates/sources', {
    actor_definition_id: connectorModules[connectorType]?.definition.definitionId,
    partial_default_config: config,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.id;
}

/** Posts the connect page's consent form and returns the vendor URL the browser is sent to. */
export async function startConsentAt(serviceUrl: string, fields: Record<string, string>): Promise<URL> {
  const response = await fetch(`${serviceUrl}/connect/oauth/start`, formPost(fields));
  expect(response.status, await response.clone().text()).toBe(303);
  return new URL(response.headers.get('location') ?? '');
}
