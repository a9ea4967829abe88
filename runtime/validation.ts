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
    // if/then and anyOf wrappers repeat what their inner errors already say.
    if (error.keyword === 'if' || error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'allOf') continue;
    const field = fieldOf(error);
    const rule = error.keyword === 'additionalProperties' ? 'unknown' : error.keyword;
    const limitKey = LIMIT_PARAM[error.keyword];
    const limit = limitKey === undefined ? undefined : error.params[limitKey];
    const message =
      rule === 'required'
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
  return issues;
}
