/**
 * Sample params for one action, built from the manifest: every required param (and the first of an
 * at_least_one_of group) gets a value its manifest schema accepts. Where the vendor description offers
 * an example or a schema for the same parameter, a value from it is preferred when the manifest schema
 * accepts it too, so that sample ids have the vendor's shape (an integer id, a UUID).
 */
import { Ajv, type ValidateFunction } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { ActionDefinition, JsonObject, ParamDefinition } from '../../../runtime/definition.js';
import { firstSegment, resolveRef } from '../openapi.js';
import { isRecord } from '../types.js';

type Obj = Record<string, unknown>;

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
const ajv = addFormats(new Ajv({ strict: false, allErrors: false }));
const compiled = new WeakMap<object, ValidateFunction>();

function accepts(schema: JsonObject, value: unknown): boolean {
  let validate = compiled.get(schema);
  if (!validate) {
    try {
      validate = ajv.compile(schema);
    } catch {
      return false;
    }
    compiled.set(schema, validate);
  }
  return validate(value);
}

const FORMAT_SAMPLES: Record<string, string> = {
  date: '2026-01-15',
  'date-time': '2026-01-15T10:00:00Z',
  email: 'ada@example.com',
  uri: 'https://example.com/a',
  url: 'https://example.com/a',
  uuid: '3fa85f64-5717-4562-b3fc-2c963f66afa6',
};

/** Strings tried for a `pattern` without an example: dates, numbers, ids. */
const PATTERN_CANDIDATES = ['2026-01-15', '20260115', '2026-01-15T10:00:00Z', '12345', '3fa85f64-5717-4562-b3fc-2c963f66afa6', 'sample', 'SAMPLE-1', 'ABC-1'];

/**
 * A value for a JSON Schema (manifest or vendor; `doc` resolves the vendor's $refs). With `all`,
 * objects get every declared property (a response body), else only the required ones (a request).
 */
export function sampleFromSchema(schemaIn: unknown, doc: Obj = {}, depth = 0, all = false): unknown {
  const schema = resolveRef(doc, schemaIn);
  if (!isRecord(schema) || depth > (all ? 6 : 8)) return 'sample';
  if (schema['const'] !== undefined) return schema['const'];
  if (schema['example'] !== undefined) return schema['example'];
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0];
  if (schema['default'] !== undefined) return schema['default'];
  if (Array.isArray(schema['enum']) && schema['enum'].length > 0) return schema['enum'].find((v) => v !== null) ?? null;
  for (const key of ['allOf', 'oneOf', 'anyOf']) {
    const parts = schema[key];
    if (Array.isArray(parts) && parts.length > 0) {
      if (key !== 'allOf') return sampleFromSchema(parts.find((p) => !(isRecord(p) && p['type'] === 'null')) ?? parts[0], doc, depth + 1, all);
      const merged: Obj = {};
      for (const part of parts) {
        const value = sampleFromSchema(part, doc, depth + 1, all);
        if (isRecord(value)) Object.assign(merged, value);
        else return value;
      }
      return merged;
    }
  }
  const types = [schema['type']].flat().filter((t) => t !== 'null');
  const type = types[0] ?? (isRecord(schema['properties']) ? 'object' : 'string');
  switch (type) {
    case 'integer':
    case 'number': {
      const min =
        typeof schema['minimum'] === 'number' ? schema['minimum'] : typeof schema['exclusiveMinimum'] === 'number' ? schema['exclusiveMinimum'] + 1 : 1;
      const max = typeof schema['maximum'] === 'number' ? schema['maximum'] : Number.POSITIVE_INFINITY;
      return Math.min(Math.max(min, 1), max);
    }
    case 'boolean':
      return true;
    case 'array': {
      const count = typeof schema['minItems'] === 'number' ? Math.max(1, schema['minItems']) : 1;
      return Array.from({ length: count }, () => sampleFromSchema(schema['items'], doc, depth + 1, all));
    }
    case 'object': {
      const out: Obj = {};
      const props = isRecord(schema['properties']) ? schema['properties'] : {};
      const required = Array.isArray(schema['required']) ? (schema['required'] as string[]) : [];
      for (const name of all ? Object.keys(props) : required) out[name] = sampleFromSchema(props[name], doc, depth + 1, all);
      return out;
    }
    default: {
      const format = typeof schema['format'] === 'string' ? FORMAT_SAMPLES[schema['format']] : undefined;
      if (format !== undefined) return format;
      if (typeof schema['pattern'] === 'string') {
        const pattern = new RegExp(schema['pattern'], 'u');
        const hit = PATTERN_CANDIDATES.find((c) => pattern.test(c));
        if (hit !== undefined) return hit;
      }
      const min = typeof schema['minLength'] === 'number' ? schema['minLength'] : 1;
      const max = typeof schema['maxLength'] === 'number' ? schema['maxLength'] : 64;
      return 'sample12345'.padEnd(min, 'x').slice(0, Math.max(max, 1));
    }
  }
}

function okMedia(doc: Obj, operation: Obj): Obj | undefined {
  const responses = isRecord(operation['responses']) ? operation['responses'] : {};
  const ok = Object.keys(responses)
    .sort()
    .find((code) => /^2/.test(code));
  const response = ok === undefined ? undefined : resolveRef(doc, responses[ok]);
  const content = isRecord(response) && isRecord(response['content']) ? response['content'] : {};
  const media = Object.entries(content).find(([type]) => /json|\*\/\*/i.test(type))?.[1];
  return isRecord(media) ? media : undefined;
}

/** A body for the operation's first 2xx JSON response, from its schema (every property). */
export function responseSample(doc: Obj, operation: Obj): unknown {
  const media = okMedia(doc, operation);
  return media ? sampleFromSchema(media['schema'], doc, 0, true) : {};
}

/** The vendor's own example of the operation's first 2xx JSON response, if it gives one. */
export function responseExample(doc: Obj, operation: Obj): unknown {
  const example = rawResponseExample(doc, operation);
  // Atlassian writes its examples as JSON text inside a string.
  if (typeof example === 'string' && /^\s*[[{]/.test(example)) {
    try {
      return JSON.parse(example) as unknown;
    } catch {
      return example;
    }
  }
  return example;
}

function rawResponseExample(doc: Obj, operation: Obj): unknown {
  const media = okMedia(doc, operation);
  if (!media) return undefined;
  if (media['example'] !== undefined) return media['example'];
  if (isRecord(media['examples'])) {
    for (const e of Object.values(media['examples'])) {
      const value = resolveRef(doc, e);
      if (isRecord(value) && value['value'] !== undefined) return value['value'];
    }
  }
  const schema = resolveRef(doc, media['schema']);
  if (!isRecord(schema)) return undefined;
  if (schema['example'] !== undefined) return schema['example'];
  if (Array.isArray(schema['examples']) && schema['examples'].length > 0) return schema['examples'][0];
  const x = schema['x-examples'];
  return isRecord(x) ? Object.values(x)[0] : undefined;
}

/** What the vendor description says about one parameter of the operation, if anything. */
export interface VendorParamLookup {
  (param: ParamDefinition): { example?: unknown; schema?: unknown; doc: Obj } | undefined;
}

/** The vendor's parameter and body-property schemas of one OpenAPI operation. */
export function vendorLookup(doc: Obj, pathItem: Obj, operation: Obj): VendorParamLookup {
  const params: Obj[] = [];
  for (const list of [pathItem['parameters'], operation['parameters']]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = resolveRef(doc, raw);
      if (isRecord(p)) params.push(p);
    }
  }
  const body = resolveRef(doc, operation['requestBody']);
  const content = isRecord(body) && isRecord(body['content']) ? body['content'] : {};
  const media = Object.entries(content).find(([type]) => /json/i.test(type))?.[1];
  const bodySchema = resolveRef(doc, isRecord(media) ? media['schema'] : undefined);
  const bodyProps = isRecord(bodySchema) && isRecord(bodySchema['properties']) ? bodySchema['properties'] : {};
  return (param) => {
    if (param.in === 'body') {
      const wire = firstSegment(param.wire);
      if (wire !== param.wire || bodyProps[wire] === undefined) return undefined;
      return { schema: bodyProps[wire], doc };
    }
    const spec = params.find(
      (p) => p['in'] === param.in && (param.in === 'header' ? String(p['name']).toLowerCase() === param.wire.toLowerCase() : p['name'] === param.wire),
    );
    if (!spec) return undefined;
    const examples = isRecord(spec['examples'])
      ? Object.values(spec['examples']).map((e) => (isRecord(resolveRef(doc, e)) ? (resolveRef(doc, e) as Obj)['value'] : undefined))
      : [];
    return { example: spec['example'] ?? examples.find((e) => e !== undefined), schema: spec['schema'], doc };
  };
}

/** A value the manifest schema accepts, preferring the vendor's; undefined when nothing fits. */
export function sampleParam(param: ParamDefinition, vendor: ReturnType<VendorParamLookup>): unknown {
  const candidates: unknown[] = [];
  if (vendor?.example !== undefined) candidates.push(vendor.example);
  if (vendor?.schema !== undefined) candidates.push(sampleFromSchema(vendor.schema, vendor.doc));
  candidates.push(sampleFromSchema(param.schema));
  for (const candidate of candidates) {
    if (accepts(param.schema, candidate)) return candidate;
    // A vendor integer id where the manifest takes a string id (or the reverse) is the same id.
    if (typeof candidate === 'number' && accepts(param.schema, String(candidate))) return String(candidate);
    if (typeof candidate === 'string' && /^\d+$/.test(candidate) && accepts(param.schema, Number(candidate))) return Number(candidate);
  }
  return undefined;
}

/** The params to send: required ones, the first of an at_least_one_of group and guarded ones (from their schema's examples). */
export function sampleParams(action: ActionDefinition, vendor: VendorParamLookup): { params: Record<string, unknown>; missing: string[] } {
  const names = Object.entries(action.params)
    .filter(([, p]) => p.required)
    .map(([name]) => name);
  const first = action.atLeastOneOf?.[0];
  for (const name of [first, ...action.guards.map((g) => g.param)]) if (name !== undefined && !names.includes(name)) names.push(name);
  // A write whose body params are all optional still sends one: an empty body proves nothing.
  const bodyParams = Object.entries(action.params)
    .filter(([, p]) => p.in === 'body')
    .map(([name]) => name);
  if (action.method !== 'GET' && action.method !== 'DELETE' && bodyParams.length > 0 && !names.some((n) => bodyParams.includes(n)))
    names.push(bodyParams[0] as string);
  const params: Record<string, unknown> = {};
  const missing: string[] = [];
  for (const name of names) {
    const param = action.params[name] as ParamDefinition;
    const value = sampleParam(param, vendor(param));
    if (value === undefined) missing.push(name);
    else params[name] = value;
  }
  return { params, missing };
}
