/**
 * Switchyard as a library (open-source mode): execute operations against a vendor API with
 * credentials you supply. `createConnector('jira', { credentials, config }).execute('issues', 'get', {...})`.
 */
import { Connector, type ConnectorModule, type ConnectorOptions } from './connector.js';
import { UnknownOperationError } from './errors.js';
import { connectorModules } from './generated/index.js';
import { readSkillDocs, type SkillDocs } from './skill-docs.js';

export function connectorTypes(): string[] {
  return Object.keys(connectorModules);
}

/** The skill docs of a connector type, read from its generated docs/connectors/<type>.md; undefined for an unknown type. */
export async function loadSkillDocs(connectorType: string): Promise<SkillDocs | undefined> {
  const module = Object.hasOwn(connectorModules, connectorType) ? connectorModules[connectorType] : undefined;
  return module === undefined ? undefined : readSkillDocs(module.definition);
}

/** The generated module of a connector type, found by connector_type or one of its aliases (e.g. Airbyte's clickup-api). */
export function findConnectorModule(name: string): ConnectorModule | undefined {
  if (Object.hasOwn(connectorModules, name)) return connectorModules[name];
  return Object.values(connectorModules).find((module) => module.definition.aliases?.includes(name));
}

export function createConnector(connectorType: string, options: ConnectorOptions): Connector {
  const module = findConnectorModule(connectorType);
  if (!module) throw new UnknownOperationError(`Unknown connector type "${connectorType}". Known types: ${connectorTypes().join(', ')}.`);
  return new Connector(module, options);
}

export { withOrigin } from './auth/oauth2.js';
export { Connector, type ConnectorModule, type ConnectorOptions, type ExecuteOptions, type ExecuteResult } from './connector.js';
export type { StoredTokens, TokenRefresh, TokenRefreshHandler, TokenRefreshLock } from './auth/oauth2.js';
export { limitDescription, limitPlan, pageSizeParam, UNIVERSAL_LIMIT, type LimitPlan } from './params.js';
export type * from './definition.js';
export { callerMustGive } from './definition.js';
export * from './errors.js';
export { connectorModules } from './generated/index.js';
export * from './generated/index.js';
export { markdownToBlocks, type SkillDocs, type SkillSection, type ContentBlock } from './skill-docs.js';
