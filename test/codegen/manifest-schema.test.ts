import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import { emitSchemaTypes } from '../../codegen/emit/schema-types.js';
import { applySchema, manifestSchema, resolveRef, type SchemaNode } from '../../codegen/manifest/schema.js';
import { loadDefinitions } from '../../codegen/pipeline.js';

// The schema is the single source of truth for the manifest format: it must load, document every key,
// and be the only thing to edit (besides the code that uses a key, and a test) when a key is added.

const schema = manifestSchema();

/** JSON pointer of every property declared anywhere in the schema. */
function propertyPointers(node: unknown, pointer = ''): string[] {
  if (Array.isArray(node)) return node.flatMap((item, i) => propertyPointers(item, `${pointer}/${i}`));
  if (typeof node !== 'object' || node === null) return [];
  return Object.entries(node).flatMap(([key, value]) => {
    if (key === 'examples' || key === 'default') return [];
    const here = `${pointer}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const own = key === 'properties' && typeof value === 'object' && value !== null ? Object.keys(value).map((name) => `${here}/${name}`) : [];
    return [...own, ...propertyPointers(value, here)];
  });
}

const at = (pointer: string): SchemaNode =>
  pointer
    .split('/')
    .slice(1)
    .reduce((node: Record<string, unknown>, key) => node[key] as Record<string, unknown>, schema as Record<string, unknown>) as SchemaNode;

describe('manifests/schema/manifest.schema.yaml', () => {
  it('loads and compiles (a broken edit fails here, by name, not as hundreds of unrelated failures)', () => {
    expect(() => new Ajv2020({ strict: false, discriminator: true }).compile(schema)).not.toThrow();
  });

  const pointers = propertyPointers(schema);

  it('finds the keys (sanity check of the walk)', () => {
    expect(pointers).toEqual(
      expect.arrayContaining([
        '/properties/connector_type',
        '/$defs/auth_common/properties/option_title',
        '/$defs/pagination_next_url/properties/short_page_ends',
      ]),
    );
    expect(pointers.length).toBeGreaterThan(150);
  });

  const ajv = new Ajv2020({ strict: false, discriminator: true });
  ajv.addSchema(schema as object);

  it.each(pointers)('documents %s with a title and valid examples', (pointer) => {
    const node = at(pointer);
    expect(node.title, `${pointer} needs a title`).toEqual(expect.any(String));
    expect(node.examples, `${pointer} needs examples`).toEqual(expect.arrayContaining([expect.anything()]));
    const validate = ajv.getSchema(`${schema.$id}#${pointer}`);
    for (const example of node.examples ?? [])
      expect(validate?.(example), `${pointer} example ${JSON.stringify(example)}: ${ajv.errorsText(validate?.errors)}`).toBe(true);
  });

  it('declares each variant once: the discriminator enum lists exactly the oneOf branches', () => {
    for (const [name, tag] of [
      ['pagination', 'style'],
      ['auth_option', 'type'],
    ] as const) {
      const node = schema.$defs?.[name] as SchemaNode;
      const branchValues = (node.oneOf ?? []).flatMap((branch) => {
        const property = resolveRef(schema, branch).properties?.[tag];
        return property?.const !== undefined ? [property.const] : (property?.enum ?? []);
      });
      expect(new Set(branchValues), name).toEqual(new Set(node.properties?.[tag]?.enum));
      expect(branchValues, `${name}: a value in two branches`).toHaveLength(new Set(branchValues).size);
    }
  });

  it('applies every default in one pass and names keys for the runtime', () => {
    const shaped = applySchema(
      { type: 'oauth2_refresh', option_title: 'OAuth', token_url: 'https://x.example/token', fields: { client_id: { description: 'id' } } },
      schema.$defs?.auth_option as SchemaNode,
    ) as Record<string, unknown>;
    expect(shaped).toEqual({
      type: 'oauth2_refresh',
      optionTitle: 'OAuth',
      tokenUrl: 'https://x.example/token',
      fields: { client_id: { description: 'id', required: true, secret: true } },
      headers: {},
      clientAuth: 'body',
      bodyFormat: 'form',
      scheme: 'Bearer',
      extraTokenParams: {},
      tokenHeaders: {},
      keep: [],
    });
    const pagination = applySchema({ style: 'link_header', cursor_param: 'cursor', block: { next: 'headers.link' } }, schema.$defs?.pagination as SchemaNode);
    expect(pagination).toEqual({ style: 'link_header', cursor_param: 'cursor', block: { next: 'headers.link' }, rel: 'next' });
  });
});

describe('adding a manifest key', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });

  const MANIFEST = `connector_type: acme
display_name: Acme
definition_id: 0b7e2c44-5d7a-4e55-9b1a-6c3f0e9d2a11
icon_url: https://acme.example/icon.png
support_level: community
category: testing
description: A connector used by the schema tests.
docs:
  - { title: Acme API, url: "https://acme.example/docs" }
base_url: https://acme.example/api
auth:
  - { type: bearer, option_title: Token, token: "{{credentials.token}}", fields: { token: { description: API token } } }
check: { entity: widgets, action: list, doc: "https://acme.example/docs" }
entities:
  widgets:
    description: Widgets.
    record: { fields: { id: integer } }
    actions:
      list: { method: GET, path: /widgets, records_path: $ }
      get:
        method: GET
        path: /widgets/{id}
        timeout_seconds: 5
        params: { id: { in: path, required: true, schema: { type: integer } } }
`;

  function definitionsWith(schemaToUse: SchemaNode) {
    const dir = mkdtempSync(path.join(tmpdir(), 'schema-key-'));
    dirs.push(dir);
    writeFileSync(path.join(dir, 'acme.yaml'), MANIFEST);
    return loadDefinitions(dir, schemaToUse);
  }

  // A new key is three hand-written edits: its schema entry (this clone stands for it), the one runtime
  // place that reads it, and its mention in docs/manifest-guide.md (test/docs/manifest-guide.test.ts fails
  // until then). Nothing else is edited: validation, the default, the runtime's camelCase name and both
  // generated type modules follow from the schema entry alone, as the tests below show.
  const extended = structuredClone(schema);
  (extended.$defs?.action?.properties as Record<string, SchemaNode>).timeout_seconds = {
    title: 'Timeout seconds',
    description: 'How long one request may take.',
    type: 'integer',
    minimum: 1,
    default: 30,
    examples: [10],
  };

  it('is refused while the schema does not declare it', () => {
    expect(definitionsWith(schema).diagnostics).toEqual([
      expect.objectContaining({ rule: 'unknown-key', path: 'entities.widgets.actions.get.timeout_seconds' }),
    ]);
  });

  it('flows from the schema alone into validation, the normalized definition (default included) and both generated type modules', () => {
    const { definitions, diagnostics } = definitionsWith(extended);
    expect(diagnostics).toEqual([]);
    const actions = definitions[0]?.entities.widgets?.actions as unknown as Record<string, { timeoutSeconds?: number }>;
    expect(actions.get?.timeoutSeconds).toBe(5);
    expect(actions.list?.timeoutSeconds).toBe(30);
    expect(emitSchemaTypes(extended, 'authoring')).toMatch(/How long one request may take\.\n.*@default 30\n.*\n {2}timeout_seconds\?: number;/);
    expect(emitSchemaTypes(extended, 'runtime')).toMatch(/How long one request may take\.\n.*@default 30\n.*\n {2}timeoutSeconds: number;/);
    const broken = MANIFEST.replace('timeout_seconds: 5', 'timeout_seconds: 0');
    writeFileSync(path.join(dirs.at(-1) as string, 'acme.yaml'), broken);
    expect(loadDefinitions(dirs.at(-1) as string, extended).diagnostics).toEqual([
      expect.objectContaining({ rule: 'minimum', path: 'entities.widgets.actions.get.timeout_seconds' }),
    ]);
  });
});
