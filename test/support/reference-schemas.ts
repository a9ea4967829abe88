/**
 * Validates response bodies against the reference service's OpenAPI components
 * (shared/reference/airbyte-agent-api/app_public.json), so a shape drift from the reference fails a test.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;
/** REFERENCE_OPENAPI, else <repo>/../shared/reference/airbyte-agent-api/app_public.json (as the contract check finds vendor specs). */
const REFERENCE = process.env.REFERENCE_OPENAPI || fileURLToPath(new URL('../../../shared/reference/airbyte-agent-api/app_public.json', import.meta.url));

let ajv: Ajv | undefined;

function compiler(): Ajv {
  if (ajv) return ajv;
  const document = JSON.parse(readFileSync(REFERENCE, 'utf8')) as { components: unknown };
  ajv = addFormats(new Ajv({ allErrors: true, strict: false }));
  ajv.addSchema({ $id: 'reference', components: document.components });
  return ajv;
}

/** The validation errors of `value` against the reference component `name` (empty when it conforms). */
export function referenceErrors(name: string, value: unknown): string[] {
  const validate = compiler().getSchema(`reference#/components/schemas/${name}`);
  if (!validate) throw new Error(`The reference has no component ${name}.`);
  return validate(value) ? [] : (validate.errors ?? []).map((error) => `${error.instancePath || '/'} ${error.message ?? ''}`);
}

export function referenceAvailable(): boolean {
  try {
    readFileSync(REFERENCE);
    return true;
  } catch {
    return false;
  }
}
