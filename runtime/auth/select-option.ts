import { own } from '../own.js';
import type { AuthOption } from '../definition.js';
import { CredentialsError } from '../errors.js';

export type Credentials = Record<string, string>;

function requiredFields(option: AuthOption): string[] {
  return Object.entries(option.fields)
    .filter(([, field]) => field.required)
    .map(([name]) => name);
}

function describeOptions(options: AuthOption[]): string {
  return options.map((o) => `"${o.optionTitle}" (requires ${requiredFields(o).join(', ') || 'nothing'})`).join('; ');
}

/**
 * Picks the auth option for a credentials object: by `option_title` when given, else the one option
 * whose required fields are all present and whose fields cover every key given. Errors name keys, never values.
 */
export function selectAuthOption(options: AuthOption[], input: Record<string, unknown>): { option: AuthOption; credentials: Credentials } {
  const { option_title: title, ...rest } = input;
  const provided = Object.keys(rest);
  let option: AuthOption | undefined;
  if (title !== undefined) {
    option = options.find((o) => o.optionTitle === title);
    if (!option) {
      throw new CredentialsError(`credentials.option_title "${String(title)}" is not offered by this connector. Options: ${describeOptions(options)}.`);
    }
  } else {
    const complete = options.filter((o) => requiredFields(o).every((f) => provided.includes(f)));
    const exact = complete.filter((o) => provided.every((k) => Object.hasOwn(o.fields, k)));
    const candidates = exact.length > 0 ? exact : complete;
    if (candidates.length !== 1) {
      const reason = candidates.length === 0 ? 'match no credential option' : 'match several credential options; set credentials.option_title';
      throw new CredentialsError(`The credentials provided (${provided.join(', ') || 'none'}) ${reason}. Options: ${describeOptions(options)}.`);
    }
    option = candidates[0] as AuthOption;
  }
  const credentials: Credentials = {};
  const problems: string[] = [];
  for (const key of provided) {
    const field = own(option.fields, key);
    const value = rest[key];
    if (!field) problems.push(`"${key}" is not a field of option "${option.optionTitle}"`);
    else if (typeof value !== 'string') problems.push(`"${key}" must be a string`);
    else if (field.pattern !== undefined && !new RegExp(field.pattern).test(value)) problems.push(`"${key}" does not match ${field.pattern}`);
    else credentials[key] = value;
  }
  for (const name of requiredFields(option)) {
    if (rest[name] === undefined || rest[name] === '') problems.push(`"${name}" is required by option "${option.optionTitle}"`);
  }
  if (problems.length > 0) throw new CredentialsError(`Invalid credentials: ${problems.join('; ')}.`);
  return { option, credentials };
}
