import type { ErrorIssue } from './errors.js';

/** The shape of an ajv error object, as produced by the generated standalone validators. */
export interface ValidatorError {
  instancePath: string;
  keyword: string;
  params: Record<string, unknown>;
  message?: string;
}

export type CompiledValidator = ((data: unknown) => boolean) & { errors?: ValidatorError[] | null };

function fieldOf(error: ValidatorError): string {
  const base = error.instancePath
    .split('/')
    .slice(1)
    .map((segment) => segment.replace(/~1/g, '/').replace(/~0/g, '~'))
    .join('.');
  const child = (error.params.missingProperty ?? error.params.additionalProperty) as string | undefined;
  return child === undefined ? base : base === '' ? child : `${base}.${child}`;
}

const LIMIT_PARAM: Record<string, string> = {
  maximum: 'limit',
  minimum: 'limit',
  exclusiveMaximum: 'limit',
  exclusiveMinimum: 'limit',
  maxLength: 'limit',
  minLength: 'limit',
  maxItems: 'limit',
  minItems: 'limit',
  maxProperties: 'limit',
  minProperties: 'limit',
  enum: 'allowedValues',
  type: 'type',
  pattern: 'pattern',
  const: 'allowedValue',
};

/** Turns validator errors into issues naming the field, the rule and its limit. */
export function issuesFromValidator(errors: ValidatorError[], rootName = 'params'): ErrorIssue[] {
  const issues: ErrorIssue[] = [];
  const seen = new Set<string>();
  for (const error of errors) {
    // if/then and anyOf wrappers repeat what their inner errors already say; a oneOf matched by
    // several branches has no inner errors, so it is reported itself.
    const ambiguous = error.keyword === 'oneOf' && Array.isArray(error.params.passingSchemas);
    if (!ambiguous && (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'allOf')) continue;
    const field = fieldOf(error);
    const rule = error.keyword === 'additionalProperties' ? 'unknown' : error.keyword;
    const limitKey = LIMIT_PARAM[error.keyword];
    const limit = limitKey === undefined ? undefined : error.params[limitKey];
    const message = ambiguous
      ? `${field || rootName} matches more than one of the allowed shapes; give exactly one`
      : rule === 'required'
        ? `${field} is required`
        : rule === 'unknown'
          ? `${field} is not a known parameter`
          : rule === 'enum'
            ? `${field} must be one of ${(limit as unknown[]).map((v) => JSON.stringify(v)).join(', ')}`
            : `${field || rootName} ${error.message ?? 'is invalid'}`;
    const key = `${field}|${rule}`;
    if (seen.has(key)) continue;
    seen.add(key);
    issues.push(limit === undefined ? { field, rule, message } : { field, rule, message, limit });
  }
  // A failed validation always yields at least one issue, even when every error was a wrapper.
  if (issues.length === 0 && errors.length > 0) {
    const first = errors[0] as ValidatorError;
    issues.push({ field: fieldOf(first), rule: first.keyword, message: `${fieldOf(first) || rootName} ${first.message ?? 'is invalid'}` });
  }
  return issues;
}

/** How deeply params may nest objects and arrays: far beyond any vendor's body, short of a stack overflow. */
export const MAX_PARAMS_DEPTH = 64;

/**
 * The first place where `params` nests deeper than MAX_PARAMS_DEPTH, as an issue, or undefined. Walked
 * without recursion: the value may be nested thousands deep.
 */
export function depthIssue(params: Record<string, unknown>): ErrorIssue | undefined {
  const stack: Array<{ value: unknown; path: string; depth: number }> = [{ value: params, path: '', depth: 0 }];
  while (stack.length > 0) {
    const { value, path, depth } = stack.pop() as { value: unknown; path: string; depth: number };
    if (value === null || typeof value !== 'object') continue;
    if (depth > MAX_PARAMS_DEPTH) {
      return { field: path, rule: 'max_depth', message: `${path} nests objects and arrays more than ${MAX_PARAMS_DEPTH} deep`, limit: MAX_PARAMS_DEPTH };
    }
    const entries: Array<[string, unknown]> = Array.isArray(value) ? value.map((item, index) => [`[${index}]`, item]) : Object.entries(value);
    for (const [key, item] of entries)
      stack.push({ value: item, path: key.startsWith('[') ? `${path}${key}` : path === '' ? key : `${path}.${key}`, depth: depth + 1 });
  }
  return undefined;
}
