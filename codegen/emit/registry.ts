import type { ConnectorDefinition } from '../../runtime/definition.js';
import { GENERATED_HEADER } from './header.js';
import { pascalCase } from './types.js';

function camel(type: string): string {
  const p = pascalCase(type);
  return p[0]!.toLowerCase() + p.slice(1);
}

/** runtime/generated/index.ts: every connector's definition, validators and facade (skill docs are docs/connectors/<type>.md, read at run time). */
export function emitRegistry(definitions: ConnectorDefinition[]): string {
  const lines = [
    GENERATED_HEADER.trimEnd(),
    `import type { ConnectorModule } from '../connector.js';`,
    `import type { CompiledValidator } from '../validation.js';`,
  ];
  for (const d of definitions) {
    const name = camel(d.connectorType);
    lines.push(`import { definition as ${name}Definition } from './${d.connectorType}/definition.js';`);
    lines.push(`import * as ${name}Validators from './${d.connectorType}/validators.js';`);
  }
  lines.push('');
  for (const d of definitions) lines.push(`export { ${camel(d.connectorType)}Facade } from './${d.connectorType}/types.js';`);
  lines.push(`export type * from './types.js';`);
  lines.push('');
  lines.push('export const connectorModules: Readonly<Record<string, ConnectorModule>> = {');
  for (const d of definitions) {
    const name = camel(d.connectorType);
    lines.push(
      `  ${JSON.stringify(d.connectorType)}: { definition: ${name}Definition, validators: ${name}Validators as unknown as Record<string, CompiledValidator> },`,
    );
  }
  lines.push('};');
  return `${lines.join('\n')}\n`;
}

/**
 * runtime/generated/connector-types.ts: the connector types alone, for what checks a name without loading
 * every connector (the service's settings, read by each `switchyard admin` command).
 */
export function emitConnectorTypes(definitions: ConnectorDefinition[]): string {
  const names = definitions.map((d) => `  ${JSON.stringify(d.connectorType)},`);
  return `${GENERATED_HEADER.trimEnd()}

/** Every connector type of the catalog, in the order of connectorModules. */
export const CONNECTOR_TYPES: readonly string[] = [
${names.join('\n')}
];
`;
}

/** runtime/generated/types.ts: re-exports every connector's params and record types, and maps each connector type to its operations. */
export function emitTypesIndex(definitions: ConnectorDefinition[]): string {
  const reexports = definitions.map((d) => `export type * from './${d.connectorType}/types.js';`);
  const imports = definitions.map(
    (d) => `import type { ${pascalCase(d.connectorType)}Operations, ${pascalCase(d.connectorType)}Records } from './${d.connectorType}/types.js';`,
  );
  const map = (suffix: string) => definitions.map((d) => `  ${JSON.stringify(d.connectorType)}: ${pascalCase(d.connectorType)}${suffix};`).join('\n');
  return (
    `${GENERATED_HEADER}${[...imports, ...reexports].join('\n')}\n\n` +
    `/** Every connector type's entities and actions, each with its params, data and pagination types. */\nexport interface ConnectorOperations {\n${map('Operations')}\n}\n\n` +
    `/** Every connector type's record type per entity. */\nexport interface ConnectorRecords {\n${map('Records')}\n}\n`
  );
}
