/**
 * Switchyard as a library (open-source mode): execute operations against a vendor API with
 * credentials you supply. `createConnector('jira', { credentials, config }).execute('issues', 'get', {...})`.
 */
import { Connector, type ConnectorOptions } from './connector.js';
import { UnknownOperationError } from './errors.js';
import { connectorModules, skillDocsLoaders } from './generated/index.js';
import type { SkillDocs } from './skill-docs.js';

export function connectorTypes(): string[] {
  return Object.keys(connectorModules);
}

/** The generated skill docs of a connector type, loaded on first use; undefined for an unknown type. */
export async function loadSkillDocs(connectorType: string): Promise<SkillDocs | undefined> {
  const load = Object.hasOwn(skillDocsLoaders, connectorType) ? skillDocsLoaders[connectorType] : undefined;
  return load === undefined ? undefined : load();
}

export function createConnector(connectorType: string, options: ConnectorOptions): Connector {
  const module = connectorModules[connectorType];
  if (!module) throw new UnknownOperationError(`Unknown connector type "${connectorType}". Known types: ${connectorTypes().join(', ')}.`);
  return new Connector(module, options);
}

export { withOrigin } from './auth/oauth2.js';
export { Connector, type ConnectorModule, type ConnectorOptions, type ExecuteResult } from './connector.js';
export type { TokenRefresh } from './auth/oauth2.js';
export type * from './definition.js';
export * from './errors.js';
export { connectorModules } from './generated/index.js';
export * from './generated/index.js';
export type { SkillDocs, SkillSection, ContentBlock } from './skill-docs.js';
