import path from 'node:path';
import { fileURLToPath } from 'node:url';
import type { ConnectorDefinition } from '../runtime/definition.js';
import { emitDefinition } from './emit/definition.js';
import { emitConnectorTypes, emitRegistry, emitTypesIndex } from './emit/registry.js';
import { skillDocsMarkdown } from './emit/skill-docs.js';
import { emitTypes } from './emit/types.js';
import { emitValidators } from './emit/validators.js';
import { loadManifest, manifestFiles, type Diagnostic } from './manifest/load.js';
import type { Manifest } from './generated/manifest.js';
import { emitSchemaTypes } from './emit/schema-types.js';
import { manifestSchema, type SchemaNode } from './manifest/schema.js';
import { checkAuthoringMistakes } from './manifest/authoring-rules.js';
import { checkSemantics, validateAgainstSchema } from './manifest/validate.js';
import { normalize } from './normalize.js';

export const REPO_ROOT = fileURLToPath(new URL('..', import.meta.url));
export const MANIFESTS_DIR = path.join(REPO_ROOT, 'manifests');
/** Folders whose whole content is generated (stale files in them are removed / reported). */
export const GENERATED_DIRS = ['runtime/generated', 'docs/connectors', 'codegen/generated'];

export interface Stage1Result {
  definitions: ConnectorDefinition[];
  diagnostics: Diagnostic[];
}

/** Stage 1: load every manifest, validate it (schema, then cross-references), normalize it. */
export function loadDefinitions(dir = MANIFESTS_DIR, schema: SchemaNode = manifestSchema()): Stage1Result {
  const diagnostics: Diagnostic[] = [];
  const definitions: ConnectorDefinition[] = [];
  const types = new Map<string, string>();
  const ids = new Map<string, string>();
  for (const file of manifestFiles(dir)) {
    const relative = path.relative(REPO_ROOT, file) || file;
    const loaded = loadManifest(file);
    diagnostics.push(...loaded.diagnostics.map((d) => ({ ...d, file: relative })));
    if (!loaded.manifest) continue;
    const manifest = { ...loaded.manifest, file: relative };
    const structural = validateAgainstSchema(manifest, schema);
    diagnostics.push(...structural);
    if (structural.length > 0) continue;
    const semantic = [...checkSemantics(manifest), ...checkAuthoringMistakes(manifest)];
    diagnostics.push(...semantic);
    if (semantic.length > 0) continue;
    const raw = manifest.data as Manifest;
    const expectedName = `${raw.connector_type}.yaml`;
    const problem = (rule: string, message: string) => diagnostics.push({ file: relative, line: 1, column: 1, path: 'connector_type', rule, message });
    if (path.basename(file) !== expectedName) problem('file-name', `the file must be named ${expectedName}`);
    for (const name of [raw.connector_type, ...(raw.aliases ?? [])]) {
      if (types.has(name)) problem('duplicate-connector', `connector type name "${name}" also used by ${types.get(name)}`);
      types.set(name, relative);
    }
    if (ids.has(raw.definition_id)) problem('duplicate-definition-id', `definition_id also used by ${ids.get(raw.definition_id)}`);
    ids.set(raw.definition_id, relative);
    definitions.push(normalize(raw, schema));
  }
  return { definitions, diagnostics };
}

/** Stage 2: every generated file's path (relative to the repo) and content. Pure and deterministic. */
export function emitAll(definitions: ConnectorDefinition[], schema: SchemaNode = manifestSchema()): Map<string, string> {
  const files = new Map<string, string>();
  files.set('codegen/generated/manifest.ts', emitSchemaTypes(schema, 'authoring'));
  files.set('runtime/generated/definition-shape.ts', emitSchemaTypes(schema, 'runtime'));
  for (const d of definitions) {
    const dir = `runtime/generated/${d.connectorType}`;
    files.set(`${dir}/definition.ts`, emitDefinition(d));
    files.set(`${dir}/validators.js`, emitValidators(d));
    files.set(`${dir}/types.ts`, emitTypes(d));
    files.set(`docs/connectors/${d.connectorType}.md`, skillDocsMarkdown(d));
  }
  files.set('runtime/generated/index.ts', emitRegistry(definitions));
  files.set('runtime/generated/types.ts', emitTypesIndex(definitions));
  files.set('runtime/generated/connector-types.ts', emitConnectorTypes(definitions));
  return files;
}
