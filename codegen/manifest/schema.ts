/**
 * The manifest JSON Schema (manifests/schema/manifest.schema.yaml) as data: loading, reference resolution,
 * and the one pass that turns a validated manifest into the runtime's shape (defaults applied, keys renamed).
 * Three annotations steer that pass; they are documented in the schema's own description:
 * - `default`: the value used when the key is absent;
 * - `x-generator-only`: read by the generator, not part of the runtime definition;
 * - `x-keep-key-names`: this object (and everything inside it) keeps the manifest's key names in the runtime.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

export const SCHEMA_FILE = fileURLToPath(new URL('../../manifests/schema/manifest.schema.yaml', import.meta.url));

export interface SchemaNode {
  $ref?: string;
  type?: string | string[];
  const?: unknown;
  enum?: unknown[];
  title?: string;
  description?: string;
  examples?: unknown[];
  default?: unknown;
  properties?: Record<string, SchemaNode>;
  required?: string[];
  additionalProperties?: SchemaNode | boolean;
  items?: SchemaNode;
  allOf?: SchemaNode[];
  anyOf?: SchemaNode[];
  oneOf?: SchemaNode[];
  discriminator?: { propertyName: string };
  $defs?: Record<string, SchemaNode>;
  'x-generator-only'?: boolean;
  'x-keep-key-names'?: boolean;
  'x-derived-default'?: string;
  [keyword: string]: unknown;
}

let cached: SchemaNode | undefined;

/** The committed schema, parsed once. */
export function manifestSchema(): SchemaNode {
  cached ??= parse(readFileSync(SCHEMA_FILE, 'utf8')) as SchemaNode;
  return cached;
}

/** The definition a `#/$defs/name` reference points at. */
export function resolveRef(root: SchemaNode, node: SchemaNode): SchemaNode {
  if (node.$ref === undefined) return node;
  const name = /^#\/\$defs\/([A-Za-z0-9_]+)$/.exec(node.$ref)?.[1];
  const target = name === undefined ? undefined : root.$defs?.[name];
  if (!target) throw new Error(`manifest schema: unresolvable reference ${node.$ref}`);
  // Keywords beside a $ref (description, default) belong to the referring node and win.
  const { $ref: _ref, ...siblings } = node;
  return { ...resolveRef(root, target), ...siblings };
}

/** snake_case -> camelCase, the runtime's naming. */
export function camelCase(key: string): string {
  return key.replace(/_([a-z0-9])/g, (_match, letter: string) => letter.toUpperCase());
}

/** Properties of a node including those it takes from allOf members. */
export function ownProperties(root: SchemaNode, node: SchemaNode): { properties: Record<string, SchemaNode>; required: string[] } {
  let properties: Record<string, SchemaNode> = {};
  let required: string[] = [];
  for (const member of node.allOf ?? []) {
    const inherited = ownProperties(root, resolveRef(root, member));
    properties = { ...properties, ...inherited.properties };
    required = [...required, ...inherited.required];
  }
  return { properties: { ...properties, ...node.properties }, required: [...required, ...(node.required ?? [])] };
}

/** The oneOf branch a discriminated value belongs to (undefined when the node has no discriminator). */
export function discriminatedBranch(root: SchemaNode, node: SchemaNode, value: unknown): SchemaNode | undefined {
  const tag = node.discriminator?.propertyName;
  if (tag === undefined || !isObject(value)) return undefined;
  return (node.oneOf ?? [])
    .map((branch) => resolveRef(root, branch))
    .find((branch) => {
      const property = ownProperties(root, branch).properties[tag];
      return property?.const === value[tag] || (property?.enum ?? []).includes(value[tag]);
    });
}

/** The oneOf branch a plain (non-discriminated) value matches by JSON type, e.g. "name" vs an inline object. */
function branchByType(root: SchemaNode, node: SchemaNode, value: unknown): SchemaNode | undefined {
  return (node.oneOf ?? []).map((branch) => resolveRef(root, branch)).find((branch) => jsonTypeMatches(root, branch, value));
}

function jsonTypeMatches(root: SchemaNode, node: SchemaNode, value: unknown): boolean {
  if (node.const !== undefined) return node.const === value;
  if (node.enum !== undefined) return node.enum.includes(value);
  if (node.oneOf !== undefined && node.discriminator === undefined) return branchByType(root, node, value) !== undefined;
  const types = node.type === undefined ? (node.properties || node.discriminator ? ['object'] : []) : [node.type].flat();
  if (types.length === 0) return true;
  return types.some((type) =>
    type === 'object'
      ? isObject(value)
      : type === 'array'
        ? Array.isArray(value)
        : type === 'integer'
          ? Number.isInteger(value)
          : type === 'null'
            ? value === null
            : typeof value === type,
  );
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const clone = <T>(value: T): T => structuredClone(value);

/**
 * The one pass from a schema-valid manifest to the runtime's shape: every absent key with a schema
 * `default` gets it, keys the schema declares become camelCase (unless `x-keep-key-names`), keys of
 * free-form maps (entity names, param names, headers) stay as written, and `x-generator-only` keys go.
 */
export function applySchema(value: unknown, node: SchemaNode, root: SchemaNode = manifestSchema(), keepNames = false): unknown {
  const schema = resolveRef(root, node);
  const keep = keepNames || schema['x-keep-key-names'] === true;
  if (schema.oneOf !== undefined) {
    const branch = schema.discriminator ? discriminatedBranch(root, schema, value) : branchByType(root, schema, value);
    return branch === undefined ? value : applySchema(value, branch, root, keep);
  }
  if (Array.isArray(value)) return schema.items === undefined ? value : value.map((item) => applySchema(item, schema.items as SchemaNode, root, keep));
  if (!isObject(value)) return value;
  const { properties } = ownProperties(root, schema);
  const extra = isObject(schema.additionalProperties) ? (schema.additionalProperties as SchemaNode) : undefined;
  if (Object.keys(properties).length === 0 && extra === undefined) return value;
  const out: Record<string, unknown> = {};
  for (const [key, property] of Object.entries(properties)) {
    const resolved = resolveRef(root, property);
    if (resolved['x-generator-only'] === true) continue;
    const present = value[key] !== undefined ? value[key] : resolved.default !== undefined ? clone(resolved.default) : undefined;
    if (present !== undefined) out[keep ? key : camelCase(key)] = applySchema(present, property, root, keep);
  }
  if (extra !== undefined) {
    for (const [key, item] of Object.entries(value)) {
      if (!(key in properties)) out[key] = applySchema(item, extra, root, keep);
    }
  }
  return out;
}
