import type { AuthOption } from '../definition.js';
import { CredentialsError, type ErrorIssue } from '../errors.js';

export type Credentials = Record<string, string>;

/** A credential travels in an HTTP header or query, which cannot carry a line break or another control character (a tab aside). */
const LINE_BREAK = /[\r\n]/;
const CONTROL_CHARACTER = /[\u0000-\u0008\u000b-\u001f\u007f]/;

/** A title reduced to what identifies it: "OAuth 2.0 Authentication", "oauth2.0-authentication" and "OAuth20Authentication" are one title. */
export function titleKey(title: string): string {
  return title.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '');
}

/** The options a credentials.option_title selects: by their own title or one of their title aliases. */
export function optionsForTitle(options: AuthOption[], title: string): AuthOption[] {
  const wanted = titleKey(title);
  return options.filter((o) => [o.optionTitle, ...(o.titleAliases ?? [])].some((t) => titleKey(t) === wanted));
}

/** The field of the option a key given by the client fills: the field of that name, else the field that lists it as an alias. */
export function fieldForKey(option: AuthOption, key: string): string | undefined {
  if (Object.hasOwn(option.fields, key)) return key;
  return Object.entries(option.fields).find(([, field]) => field.aliases?.includes(key))?.[0];
}

/** Whether a credential field's pattern (if it has one) accepts the text. */
export function fieldAccepts(field: AuthOption['fields'][string], text: string): boolean {
  return field.pattern === undefined || new RegExp(field.pattern).test(text);
}

function requiredFields(option: AuthOption): string[] {
  return Object.entries(option.fields)
    .filter(([, field]) => field.required)
    .map(([name]) => name);
}

function describeOptions(options: AuthOption[]): string {
  return options.map((o) => `"${o.optionTitle}" (requires ${requiredFields(o).join(', ') || 'nothing'})`).join('; ');
}

/**
 * A credential value as text: strings as given, numbers and booleans in their string form (a client may
 * send an account id as 123456); anything else is not a credential value.
 */
function textOf(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if ((typeof value === 'number' && Number.isFinite(value)) || typeof value === 'boolean') return String(value);
  return undefined;
}

/** Whether every required field of the option is given (under its name or an alias), and whether every key given is one of its fields. */
function keysFit(option: AuthOption, keys: string[]): { complete: boolean; exact: boolean } {
  const filled = new Set(keys.map((k) => fieldForKey(option, k)).filter((f): f is string => f !== undefined));
  return { complete: requiredFields(option).every((f) => filled.has(f)), exact: keys.every((k) => fieldForKey(option, k) !== undefined) };
}

/** Among several options, the one the keys given fit: complete, and exact when several are complete. */
function pickByFields(candidates: AuthOption[], keys: string[], all: AuthOption[]): AuthOption {
  const complete = candidates.filter((o) => keysFit(o, keys).complete);
  const exact = complete.filter((o) => keysFit(o, keys).exact);
  const chosen = exact.length > 0 ? exact : complete;
  if (chosen.length !== 1) {
    const reason = chosen.length === 0 ? 'match no credential option' : 'match several credential options; set credentials.option_title';
    throw new CredentialsError(`The credentials provided (${keys.join(', ') || 'none'}) ${reason}. Options: ${describeOptions(all)}.`);
  }
  return chosen[0] as AuthOption;
}

/**
 * Picks the auth option for a credentials object and returns its credentials under the option's own
 * field names. `option_title` (matched ignoring case, spaces and punctuation, title aliases included)
 * narrows the options; where several remain, or none was named, the one option whose required fields
 * are all present and whose fields cover every key given wins. Keys may be field aliases; null means
 * absent; numbers and booleans count as their string form. Errors name keys, never values.
 */
export function selectAuthOption(options: AuthOption[], input: Record<string, unknown>): { option: AuthOption; credentials: Credentials } {
  const { option_title: title, ...rest } = input;
  const given = Object.entries(rest).filter(([, value]) => value !== null && value !== undefined);
  const keys = given.map(([key]) => key);
  let option: AuthOption;
  if (title !== undefined && title !== null) {
    const titled = typeof title === 'string' ? optionsForTitle(options, title) : [];
    if (titled.length === 0) {
      const shown = typeof title === 'string' ? `"${title}"` : `of type ${typeof title}`;
      throw new CredentialsError(`credentials.option_title ${shown} is not offered by this connector. Options: ${describeOptions(options)}.`);
    }
    option = titled.length === 1 ? (titled[0] as AuthOption) : pickByFields(titled, keys, options);
  } else {
    option = options.length === 1 ? (options[0] as AuthOption) : pickByFields(options, keys, options);
  }

  const credentials: Credentials = {};
  const givenAs = new Map<string, string>();
  const issues: ErrorIssue[] = [];
  const problem = (key: string, rule: string, message: string, limit?: unknown) =>
    issues.push({ field: `credentials.${key}`, rule, message, ...(limit !== undefined && { limit }) });
  for (const [key, value] of given) {
    const name = fieldForKey(option, key);
    const field = name === undefined ? undefined : option.fields[name];
    const text = textOf(value);
    if (name === undefined || !field) problem(key, 'unknown', `"${key}" is not a field of option "${option.optionTitle}"`);
    else if (givenAs.has(name)) problem(key, 'duplicate', `"${givenAs.get(name)}" and "${key}" both give "${name}"; send one`);
    else if (text === undefined) problem(key, 'type', `"${key}" must be a string`, 'string');
    else if (!fieldAccepts(field, text)) problem(key, 'pattern', `"${key}" does not match ${field.pattern}`, field.pattern);
    else if (LINE_BREAK.test(text)) problem(key, 'line_break', `"${key}" contains a line break, which an HTTP header or query cannot carry`);
    else if (CONTROL_CHARACTER.test(text))
      problem(key, 'control_character', `"${key}" contains a control character, which an HTTP header or query cannot carry`);
    else credentials[name] = text;
    if (name !== undefined && !givenAs.has(name)) givenAs.set(name, key);
  }
  for (const name of requiredFields(option)) {
    if (!givenAs.has(name) || credentials[name] === '') {
      const aliases = option.fields[name]?.aliases ?? [];
      problem(
        name,
        'required',
        `"${name}"${aliases.length > 0 ? ` (or ${aliases.map((a) => `"${a}"`).join(', ')})` : ''} is required by option "${option.optionTitle}"`,
      );
    }
  }
  if (issues.length > 0) throw new CredentialsError(`Invalid credentials: ${issues.map((i) => i.message).join('; ')}.`, { issues });
  return { option, credentials };
}
