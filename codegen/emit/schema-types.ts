/**
 * TypeScript types emitted from the manifest JSON Schema, in two shapes:
 * - authoring: the manifest as written (keys as in YAML, optional unless required);
 * - runtime: after `applySchema` (camelCase keys unless `x-keep-key-names`, keys with a default always
 *   present, `x-generator-only` keys gone). runtime/definition.ts builds the connector definition on it.
 */
import { camelCase, resolveRef, type SchemaNode } from '../manifest/schema.js';
import { GENERATED_HEADER } from './header.js';

type Shape = 'authoring' | 'runtime';

interface Context {
  root: SchemaNode;
  shape: Shape;
  keepNames: boolean;
  indent: string;
}

export function pascal(name: string): string {
  return name
    .split(/[^A-Za-z0-9]+/)
    .filter(Boolean)
    .map((part) => part[0]!.toUpperCase() + part.slice(1))
    .join('');
}

const literal = (value: unknown): string => (typeof value === 'string' ? `'${value.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(value));

/** Greedy word wrap so generated comments stay readable. */
function wrap(text: string, width = 100): string[] {
  const lines: string[] = [];
  for (const paragraph of text.split('\n')) {
    let line = '';
    for (const word of paragraph.split(/\s+/).filter(Boolean)) {
      if (line !== '' && line.length + word.length + 1 > width) {
        lines.push(line);
        line = word;
      } else line = line === '' ? word : `${line} ${word}`;
    }
    lines.push(line);
  }
  return lines;
}

function docComment(node: SchemaNode, indent: string): string[] {
  const text = [
    node.description?.trim(),
    node.default !== undefined ? `@default ${JSON.stringify(node.default)}` : undefined,
    node['x-derived-default'] ? `@default ${node['x-derived-default']}` : undefined,
  ]
    .filter((line): line is string => line !== undefined && line !== '')
    .join('\n')
    .replace(/\*\//g, '*\\/');
  if (text === '') return [];
  const lines = wrap(text);
  if (lines.length === 1) return [`${indent}/** ${lines[0]} */`];
  return [`${indent}/**`, ...lines.map((line) => `${indent} * ${line}`.trimEnd()), `${indent} */`];
}

function refName(ref: string): string {
  return pascal(ref.replace('#/$defs/', ''));
}

function typeOf(node: SchemaNode, ctx: Context): string {
  if (node.$ref !== undefined) return refName(node.$ref);
  if (node.const !== undefined) return literal(node.const);
  if (node.enum !== undefined) return node.enum.map(literal).join(' | ');
  if (node.oneOf !== undefined) return node.oneOf.map((branch) => typeOf(branch, ctx)).join(' | ');
  const types = node.type === undefined ? (node.properties || node.allOf ? ['object'] : []) : [node.type].flat();
  if (types.length === 0) return 'JsonValue';
  const rendered = types.map((type) => {
    switch (type) {
      case 'string':
        return 'string';
      case 'integer':
      case 'number':
        return 'number';
      case 'boolean':
        return 'boolean';
      case 'null':
        return 'null';
      case 'array':
        return node.items === undefined ? 'JsonValue[]' : `Array<${typeOf(node.items, ctx)}>`;
      default:
        return objectType(node, ctx);
    }
  });
  return rendered.join(' | ');
}

function objectType(node: SchemaNode, ctx: Context): string {
  const keep = ctx.keepNames || node['x-keep-key-names'] === true;
  const properties = node.properties ?? {};
  const extra = typeof node.additionalProperties === 'object' ? node.additionalProperties : undefined;
  const bases = (node.allOf ?? []).map((member) => typeOf(member, ctx));
  if (Object.keys(properties).length === 0 && bases.length === 0) {
    return extra === undefined ? 'JsonObject' : `Record<string, ${typeOf(extra, { ...ctx, keepNames: keep })}>`;
  }
  const body = members(node, { ...ctx, keepNames: keep, indent: `${ctx.indent}  ` });
  const literalType = `{\n${body.join('\n')}\n${ctx.indent}}`;
  return [...bases, literalType].join(' & ');
}

function members(node: SchemaNode, ctx: Context): string[] {
  const required = new Set(node.required ?? []);
  const lines: string[] = [];
  for (const [key, property] of Object.entries(node.properties ?? {})) {
    const resolved = resolveRef(ctx.root, property);
    if (ctx.shape === 'runtime' && resolved['x-generator-only'] === true) continue;
    const always = required.has(key) || (ctx.shape === 'runtime' && resolved.default !== undefined);
    const name = ctx.shape === 'runtime' && !ctx.keepNames ? camelCase(key) : key;
    const safeName = /^[A-Za-z_$][\w$]*$/.test(name) ? name : literal(name);
    lines.push(...docComment({ description: property.description, default: resolved.default, 'x-derived-default': resolved['x-derived-default'] }, ctx.indent));
    lines.push(`${ctx.indent}${safeName}${always ? '' : '?'}: ${typeOf(property, ctx)};`);
  }
  return lines;
}

function declaration(name: string, node: SchemaNode, ctx: Context): string {
  const doc = docComment({ description: node.description ?? node.title }, '');
  const keep = node['x-keep-key-names'] === true;
  const inner = { ...ctx, keepNames: keep, indent: '' };
  const hasOwnShape = node.properties !== undefined && node.oneOf === undefined;
  let text: string;
  if (hasOwnShape && (node.type === 'object' || node.type === undefined)) {
    const bases = (node.allOf ?? []).map((member) => typeOf(member, inner));
    const body = members(node, { ...inner, indent: '  ' });
    const extra = typeof node.additionalProperties === 'object' ? [`  [key: string]: ${typeOf(node.additionalProperties, inner)};`] : [];
    text = `export interface ${name}${bases.length > 0 ? ` extends ${bases.join(', ')}` : ''} {\n${[...body, ...extra].join('\n')}\n}`;
  } else {
    text = `export type ${name} = ${typeOf(node, inner)};`;
  }
  return [...doc, text].join('\n');
}

/** The generated module for one shape: a type per `$defs` entry plus `Manifest` for the root. */
export function emitSchemaTypes(root: SchemaNode, shape: Shape): string {
  const ctx: Context = { root, shape, keepNames: false, indent: '' };
  const purpose =
    shape === 'authoring'
      ? '// The manifest as written, from manifests/schema/manifest.schema.yaml.'
      : '// The manifest after defaults and naming (codegen/manifest/schema.ts applySchema), from manifests/schema/manifest.schema.yaml.';
  const blocks = [
    `${GENERATED_HEADER}${purpose}\n\ntype JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };\ntype JsonObject = { [key: string]: JsonValue };`,
    declaration('Manifest', root, ctx),
  ];
  for (const [name, node] of Object.entries(root.$defs ?? {})) {
    if (shape === 'runtime' && node['x-generator-only'] === true) continue;
    blocks.push(declaration(pascal(name), node, ctx));
  }
  return `${blocks.join('\n\n')}\n`;
}
