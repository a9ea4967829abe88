import { Ajv } from 'ajv';
import { Ajv2020, type ErrorObject, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { titleKey } from '../../runtime/auth/select-option.js';
import { formatInstant } from '../../runtime/instants.js';
import { getPath } from '../../runtime/paths.js';
import { pathParamNames } from '../../runtime/request.js';
import { templateReferences } from '../../runtime/templates.js';
import { didYouMean } from './authoring-rules.js';
import type { Action, AuthOption, Entity, Manifest, Pagination } from '../generated/manifest.js';
import { derivedDefaults } from '../normalize.js';
import { positionOf, type Diagnostic, type LoadedManifest } from './load.js';
import { manifestSchema, type SchemaNode } from './schema.js';

export { SCHEMA_FILE } from './schema.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;

const compiled = new WeakMap<SchemaNode, ValidateFunction>();

function schemaValidator(schema: SchemaNode): ValidateFunction {
  let validate = compiled.get(schema);
  if (!validate) {
    validate = new Ajv2020({ allErrors: true, strict: false, discriminator: true, verbose: true }).compile(schema);
    compiled.set(schema, validate);
  }
  return validate;
}

function segmentsOf(instancePath: string): string[] {
  return instancePath
    .split('/')
    .slice(1)
    .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function describe(error: ErrorObject): { message: string; rule: string; extra?: string } {
  switch (error.keyword) {
    case 'additionalProperties':
    case 'unevaluatedProperties': {
      const key = String(error.params.additionalProperty ?? error.params.unevaluatedProperty);
      const parent = error.parentSchema as { properties?: Record<string, unknown> } | undefined;
      return { rule: 'unknown-key', message: `unknown key "${key}"${didYouMean(key, Object.keys(parent?.properties ?? {}))}`, extra: key };
    }
    case 'required':
      return { rule: 'missing-key', message: `missing required key "${String(error.params.missingProperty)}"` };
    case 'enum': {
      const allowed = error.params.allowedValues as unknown[];
      const words = allowed.filter((value): value is string => typeof value === 'string');
      const suggestion = typeof error.data === 'string' ? didYouMean(error.data, words) : '';
      return { rule: 'enum', message: `must be one of: ${allowed.join(', ')}${suggestion}` };
    }
    case 'propertyNames':
      return { rule: 'key-name', message: `key "${String(error.params.propertyName)}" is not allowed here` };
    default:
      return { rule: error.keyword, message: error.message ?? 'is invalid' };
  }
}

/** Structural validation against the manifest JSON Schema, one diagnostic per broken rule. */
export function validateAgainstSchema(manifest: LoadedManifest, schema: SchemaNode = manifestSchema()): Diagnostic[] {
  const validate = schemaValidator(schema);
  if (validate(manifest.data)) return [];
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const error of validate.errors ?? []) {
    if (['if', 'anyOf', 'oneOf', 'allOf'].includes(error.keyword)) continue;
    // A discriminator without a known tag value is reported by the enum (or type) of the tag itself.
    if (error.keyword === 'discriminator') continue;
    // An enum failure on a discriminator makes every branch complain; the enum message is enough.
    if (error.keyword === 'propertyNames' && error.params.propertyName === undefined) continue;
    const segments = segmentsOf(error.instancePath);
    const { message, rule, extra } = describe(error);
    const pathSegments = extra === undefined ? segments : [...segments, extra];
    const key = `${pathSegments.join('.')}|${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    const pos = positionOf(manifest, pathSegments, extra !== undefined || error.keyword === 'propertyNames');
    diagnostics.push({ file: manifest.file, ...pos, path: pathSegments.join('.'), rule, message });
  }
  return diagnostics;
}

const PAGINATION_PARAM_KEYS = ['cursor_param', 'token_param', 'page_param', 'offset_param', 'limit_param', 'url_param'] as const;

/** Reports a finding at a manifest path (`atKey`: at the key itself, not its value). */
type Report = (segments: string[], rule: string, message: string, atKey?: boolean) => void;

/** Cross-reference checks the JSON Schema cannot express. Runs only on schema-valid manifests. */
export function checkSemantics(manifest: LoadedManifest): Diagnostic[] {
  const m = manifest.data as Manifest;
  const diagnostics: Diagnostic[] = [];
  const report: Report = (segments, rule, message, atKey = false) =>
    diagnostics.push({ file: manifest.file, ...positionOf(manifest, segments, atKey), path: segments.join('.'), rule, message });

  const carried = carriedByConnector(m);
  const configNames = new Set(Object.keys(m.config ?? {}));
  const checkTemplate = (template: string, segments: string[], credentialSets: Array<{ title: string; fields: Set<string> }>, keptTokens: Set<string>) => {
    for (const ref of templateReferences(template)) {
      if (ref.source === 'config' && !configNames.has(ref.name)) {
        report(segments, 'unknown-config', `template references config "${ref.name}", which config does not declare`);
      } else if (ref.source === 'token' && !keptTokens.has(ref.name)) {
        report(segments, 'unknown-token-value', `template references token "${ref.name}", which no OAuth option keeps`);
      } else if (ref.source === 'credentials') {
        for (const set of credentialSets) {
          if (!set.fields.has(ref.name)) {
            report(segments, 'unknown-auth-field', `template references credentials "${ref.name}", which auth option "${set.title}" does not declare`);
          }
        }
      }
    }
    const stray = template.replace(/\{\{\s*(credentials|config|token)\.[A-Za-z0-9_]+\s*\}\}/g, '');
    if (stray.includes('{{') || stray.includes('}}'))
      report(segments, 'template-syntax', 'malformed template: use {{credentials.X}}, {{config.X}} or {{token.X}}');
  };

  const allOptions = m.auth.map((o) => ({ title: o.option_title, fields: new Set(Object.keys(o.fields)) }));
  const keptTokens = new Set(m.auth.flatMap((o) => (o.type === 'oauth2_refresh' ? (o.keep ?? []) : [])));
  const tokenTemplate = (t: string) => templateReferences(t).some((r) => r.source === 'token');

  const titles = new Set<string>();
  m.auth.forEach((option, index) => {
    const at = ['auth', String(index)];
    // Titles match ignoring case, spaces and punctuation, so two options may not differ only in those.
    if (titles.has(titleKey(option.option_title)))
      report(
        [...at, 'option_title'],
        'duplicate-option',
        `option_title "${option.option_title}" is used twice (titles match ignoring case, spaces and punctuation)`,
      );
    titles.add(titleKey(option.option_title));
    const names = new Map<string, string>(Object.keys(option.fields).map((name) => [name, name]));
    for (const [name, field] of Object.entries(option.fields)) {
      for (const alias of field.aliases ?? []) {
        if (names.has(alias)) {
          report(
            [...at, 'fields', name, 'aliases'],
            'duplicate-field-name',
            `alias "${alias}" of ${name} is already a name of field ${names.get(alias)} of this option`,
          );
        }
        names.set(alias, name);
      }
    }
    const own = [{ title: option.option_title, fields: new Set(Object.keys(option.fields)) }];
    // Only an OAuth option has token values, and never before its token URL has answered.
    const ownKept = new Set(option.type === 'oauth2_refresh' ? (option.keep ?? []) : []);
    const templates = option as Partial<Record<'token' | 'value' | 'username' | 'password' | 'token_url', string>>;
    for (const key of ['token', 'value', 'username', 'password', 'token_url'] as const) {
      const template = templates[key];
      if (template !== undefined) checkTemplate(template, [...at, key], own, key === 'token_url' ? new Set() : ownKept);
    }
    for (const [name, template] of Object.entries(option.headers ?? {})) checkTemplate(template, [...at, 'headers', name], own, ownKept);
    const tokenHeaders = option.type === 'oauth2_refresh' ? (option.token_headers ?? {}) : {};
    for (const [name, template] of Object.entries(tokenHeaders)) checkTemplate(template, [...at, 'token_headers', name], own, new Set());
    if (option.base_url !== undefined) {
      checkTemplate(option.base_url, [...at, 'base_url'], own, ownKept);
      if (templateReferences(option.base_url).some((r) => r.source === 'token') && m.base_url_host_pattern === undefined) {
        report([...at, 'base_url'], 'host-pattern', 'a base_url built from a token value needs base_url_host_pattern');
      }
    }
    if (option.type === 'oauth2_refresh') {
      for (const required of ['client_id', 'client_secret', 'refresh_token']) {
        if (!option.fields[required] || option.fields[required].required === false) {
          report([...at, 'fields'], 'oauth-fields', `an oauth2_refresh option needs the required field "${required}"`);
        }
      }
      if (option.fields.access_token && option.fields.access_token.required !== false) {
        report([...at, 'fields', 'access_token'], 'oauth-fields', 'access_token must be optional (required: false) in an oauth2_refresh option');
      }
    }
    const flow = option.authorization_code;
    if (flow !== undefined) {
      const flowAt = [...at, 'authorization_code'];
      if (option.type === 'oauth2_refresh') {
        for (const key of ['token_url', 'client_auth', 'body_format', 'token_method'] as const) {
          if (flow[key] !== undefined)
            report(
              [...flowAt, key],
              'authorization-fields',
              `${key} belongs to the oauth2_refresh option itself: its code exchange goes where its refresh requests go`,
            );
        }
        for (const key of ['param_names', 'omit_params', 'token_path', 'error_in_body', 'follow_up_exchange'] as const) {
          if (flow[key] !== undefined)
            report(
              [...flowAt, key],
              'authorization-fields',
              `${key} is only for an option that is not oauth2_refresh: an oauth2_refresh option's code exchange is read like its refresh requests (standard names, access_token and refresh_token at the top level)`,
            );
        }
      } else {
        if (flow.token_method === 'GET' && flow.body_format !== 'query') {
          report(
            [...flowAt, 'token_method'],
            'authorization-fields',
            'token_method GET sends no body: add body_format: query (the exchange parameters go in the query string)',
          );
        }
        const exchangeNames = new Map<string, string>();
        for (const standard of ['client_id', 'client_secret', 'code', 'redirect_uri', 'grant_type', 'code_verifier'] as const) {
          const renamed = (flow.param_names as Record<string, string | undefined> | undefined)?.[standard] ?? standard;
          const previous = exchangeNames.get(renamed);
          if (previous !== undefined) {
            report(
              [...flowAt, 'param_names', standard],
              'authorization-fields',
              `param_names sends ${standard} as "${renamed}", the name ${previous} already has: choose another name`,
            );
          }
          exchangeNames.set(renamed, standard);
        }
        const follow = flow.follow_up_exchange;
        if (follow !== undefined) {
          const followAt = [...flowAt, 'follow_up_exchange'];
          const app = ['client_id', 'client_secret'];
          const templates: Array<[string[], string]> = [
            [['url'], follow.url],
            ...Object.entries(follow.params).map(([name, template]): [string[], string] => [['params', name], template]),
          ];
          for (const [segments, template] of templates) {
            for (const ref of templateReferences(template)) {
              if (ref.source === 'config' && !configNames.has(ref.name)) {
                report([...followAt, ...segments], 'unknown-config', `template references config "${ref.name}", which config does not declare`);
              } else if (ref.source === 'credentials' && !app.includes(ref.name)) {
                report(
                  [...followAt, ...segments],
                  'authorization-fields',
                  `follow_up_exchange sees only the OAuth app's credentials (client_id, client_secret), not "${ref.name}"${didYouMean(ref.name, app)}`,
                );
              } else if (ref.source === 'token' && segments[0] === 'url') {
                report([...followAt, 'url'], 'authorization-fields', 'follow_up_exchange url may use only {{config.X}}: send token values as params');
              } else if (ref.source === 'credentials' && segments[0] === 'url') {
                report([...followAt, 'url'], 'authorization-fields', 'follow_up_exchange url may use only {{config.X}}: send the client as params');
              }
            }
            const stray = template.replace(/\{\{\s*(credentials|config|token)\.[A-Za-z0-9_]+\s*\}\}/g, '');
            if (stray.includes('{{') || stray.includes('}}'))
              report([...followAt, ...segments], 'template-syntax', 'malformed template: use {{credentials.X}}, {{config.X}} or {{token.X}}');
          }
          if (!Object.values(follow.params).some((template) => templateReferences(template).some((ref) => ref.source === 'token'))) {
            report(
              [...followAt, 'params'],
              'authorization-fields',
              'follow_up_exchange params send no value of the first answer (e.g. {{token.access_token}}): the request could not trade the token it follows',
            );
          }
        }
        if (flow.token_url === undefined) {
          report(flowAt, 'authorization-fields', 'an authorization_code on an option that is not oauth2_refresh needs token_url (where the code is exchanged)');
        } else {
          checkTemplate(flow.token_url, [...flowAt, 'token_url'], own, new Set());
          if (templateReferences(flow.token_url).some((ref) => ref.source === 'credentials')) {
            report([...flowAt, 'token_url'], 'authorization-fields', 'token_url may use only {{config.X}}: the code is exchanged before any credential exists');
          }
        }
        if (!option.fields.access_token) {
          report(
            [...at, 'fields'],
            'authorization-fields',
            'an option that is not oauth2_refresh and declares authorization_code needs the field "access_token" (the token the exchange returns)',
          );
        }
      }
      checkTemplate(flow.authorization_url, [...at, 'authorization_code', 'authorization_url'], own, new Set());
      if (templateReferences(flow.authorization_url).some((ref) => ref.source === 'credentials')) {
        report(
          [...at, 'authorization_code', 'authorization_url'],
          'authorization-fields',
          'authorization_url may use only {{config.X}}: no credential exists before consent',
        );
      }
      const filled = [
        ...Object.keys(flow.from_callback ?? {}).map((field) => ({ field, key: ['from_callback'] })),
        ...Object.keys(flow.from_token ?? {}).map((field) => ({ field, key: ['from_token'] })),
        ...Object.keys(flow.lookup?.fields ?? {}).map((field) => ({ field, key: ['lookup', 'fields'] })),
      ];
      for (const { field, key } of filled) {
        if (!option.fields[field] || ['client_id', 'client_secret', 'refresh_token', 'access_token'].includes(field)) {
          report(
            [...at, 'authorization_code', ...key, field],
            'authorization-fields',
            `${key.join('.')} may only fill a declared field of the option other than client_id, client_secret, refresh_token and access_token`,
          );
        }
      }
      if (flow.lookup !== undefined) {
        const templates: Array<[string[], string]> = [
          [['url'], flow.lookup.url],
          ...Object.entries(flow.lookup.match ?? {}).map(([name, template]): [string[], string] => [['match', name], template]),
        ];
        for (const [segments, template] of templates) {
          checkTemplate(template, [...at, 'authorization_code', 'lookup', ...segments], own, new Set());
          if (templateReferences(template).some((ref) => ref.source === 'credentials')) {
            report(
              [...at, 'authorization_code', 'lookup', ...segments],
              'authorization-fields',
              'a lookup may use only {{config.X}} templates: the credentials are being made',
            );
          }
        }
      }
      for (const variable of Object.keys(flow.settings_from_token ?? {})) {
        if (!Object.hasOwn(m.config ?? {}, variable)) {
          report(
            [...at, 'authorization_code', 'settings_from_token', variable],
            'authorization-fields',
            `settings_from_token fills config variable "${variable}", which the manifest's config does not declare${didYouMean(variable, Object.keys(m.config ?? {}))}`,
            true,
          );
        }
      }
      for (const [field, source] of Object.entries(flow.from_callback ?? {})) {
        if (source.pattern === undefined) continue;
        try {
          new RegExp(source.pattern);
        } catch {
          report([...at, 'authorization_code', 'from_callback', field, 'pattern'], 'authorization-fields', 'pattern is not a valid regular expression');
        }
      }
    }
  });

  // Patterns the runtime compiles when a connector is made: one that does not compile would fail every connector.
  const checkPattern = (pattern: unknown, at: string[]) => {
    if (typeof pattern !== 'string') return;
    try {
      new RegExp(pattern, 'u');
    } catch (error) {
      report(
        at,
        'regex-syntax',
        `pattern ${JSON.stringify(pattern)} is not a valid regular expression: ${(error as Error).message.replace(/^Invalid regular expression: /, '')}`,
      );
    }
  };
  m.auth.forEach((option, index) => {
    for (const [name, field] of Object.entries(option.fields))
      checkPattern((field as { pattern?: unknown }).pattern, ['auth', String(index), 'fields', name, 'pattern']);
  });
  for (const [name, variable] of Object.entries(m.config ?? {})) checkPattern(variable.pattern, ['config', name, 'pattern']);
  checkPattern(m.base_url_host_pattern, ['base_url_host_pattern']);
  for (const [name, variable] of Object.entries(m.config ?? {})) {
    const { default: value, enum: allowed } = variable as { default?: unknown; enum?: unknown[] };
    if (value !== undefined && Array.isArray(allowed) && !allowed.includes(value))
      report(
        ['config', name, 'default'],
        'config-default',
        `config ${name} default ${JSON.stringify(value)} is not one of its enum: ${allowed.map((v) => JSON.stringify(v)).join(', ')}`,
      );
  }

  checkTemplate(m.base_url, ['base_url'], allOptions, keptTokens);
  if (tokenTemplate(m.base_url) && m.base_url_host_pattern === undefined) {
    report(['base_url'], 'host-pattern', 'a base_url built from a token value needs base_url_host_pattern');
  }
  for (const ref of templateReferences(m.base_url)) {
    if (ref.source === 'config' && m.config?.[ref.name]?.pattern !== undefined && !/^\^.*\$$/.test(m.config[ref.name]?.pattern ?? '')) {
      report(['config', ref.name, 'pattern'], 'anchored-pattern', 'a config variable used in base_url needs a pattern anchored with ^ and $');
    }
  }
  for (const [name, template] of Object.entries(m.headers ?? {})) checkTemplate(template, ['headers', name], allOptions, keptTokens);

  const named = m.pagination ?? {};
  for (const [entityName, entity] of Object.entries(m.entities)) {
    const fieldNames = new Set(Object.keys(entity.record.fields));
    const idFields = [entity.record.id_field ?? 'id'].flat().map((f) => f.split('.')[0] as string);
    for (const idField of entity.record.singleton ? [] : idFields) {
      if (!fieldNames.has(idField)) report(['entities', entityName, 'record'], 'id-field', `record fields do not include the id field "${idField}"`);
    }
    for (const [listKey, list] of [
      ['fields', entity.search?.fields ?? []],
      ['semantic', (entity.search?.semantic ?? []).map((s) => s.field)],
    ] as const) {
      list.forEach((field, i) => {
        if (!fieldNames.has(field.split('.')[0] as string)) {
          report(['entities', entityName, 'search', listKey, String(i)], 'unknown-field', `search field "${field}" is not a record field`);
        }
      });
    }
    for (const [name, source] of Object.entries(entity.search?.derived ?? {})) {
      const at = ['entities', entityName, 'search', 'derived', name];
      const [origin, first] = source.split('.') as [string, string];
      if (fieldNames.has(name)) report(at, 'derived-field', `derived field "${name}" is already a record field; search it directly`, true);
      if (origin === 'record' && !fieldNames.has(first.replace(/\[\]$/, '')))
        report(at, 'unknown-field', `derived "${name}" reads "${source}", whose first segment is not a record field`);
      if (origin === 'params' && !entity.actions.list?.params?.[first])
        report(at, 'unknown-param', `derived "${name}" reads "${source}", which is not a param of ${entityName}.list`);
    }
    for (const [name, path] of Object.entries(entity.search?.metadata ?? {})) {
      if (!fieldNames.has(path.split('.')[0] as string)) {
        report(['entities', entityName, 'search', 'metadata', name], 'unknown-field', `metadata "${name}" reads "${path}", which is not a record field`);
      }
    }
    const fanOut = entity.search?.fan_out;
    if (fanOut) {
      const at = ['entities', entityName, 'search', 'fan_out'];
      const parent = m.entities[fanOut.entity];
      if (!parent)
        report(
          [...at, 'entity'],
          'unknown-entity',
          `fan_out names entity "${fanOut.entity}", which this connector does not declare${didYouMean(fanOut.entity, Object.keys(m.entities))}`,
        );
      else if (!((fanOut.field.split('.')[0] as string) in parent.record.fields))
        report([...at, 'field'], 'unknown-field', `"${fanOut.field}" is not a record field of ${fanOut.entity}`);
      else if (!parent.actions.list) report([...at, 'entity'], 'fan-out-parent', `fan_out parent ${fanOut.entity} has no list action`);
      if (fanOut.incremental_with_parent && parent && !parent.search?.incremental)
        report(
          [...at, 'incremental_with_parent'],
          'incremental-parent',
          `incremental_with_parent follows the change filter of ${fanOut.entity}, which declares none (search.incremental): a sync walks ${fanOut.entity} in full`,
        );
      if (fanOut.incremental_with_parent && entity.search?.incremental)
        report(
          [...at, 'incremental_with_parent'],
          'incremental-parent',
          `${entityName} declares its own change filter (search.incremental): drop incremental_with_parent, or the filter`,
        );
      if (!entity.actions.list?.params?.[fanOut.param])
        report(
          [...at, 'param'],
          'unknown-param',
          `fan_out param "${fanOut.param}" is not a param of ${entityName}.list${didYouMean(fanOut.param, Object.keys(entity.actions.list?.params ?? {}))}`,
        );
    }
    const incremental = entity.search?.incremental;
    if (incremental) {
      const at = ['entities', entityName, 'search', 'incremental'];
      const actionName = incremental.action ?? 'list';
      const action = entity.actions[actionName];
      if (!action) {
        report(at, 'incremental-action', `incremental reads through ${entityName}.${actionName}, which this entity does not declare`);
      } else {
        if ((action.result ?? derivedDefaults.result(actionName)) !== 'many')
          report(at, 'incremental-action', `incremental reads through ${entityName}.${actionName}, which does not return a list of records`);
        const params = Object.keys(action.params ?? {});
        const newestFirst = incremental.newest_first;
        if (newestFirst !== undefined) {
          if (incremental.param !== undefined || incremental.format !== undefined || incremental.template !== undefined)
            report(at, 'incremental-action', 'incremental has newest_first (an order) and a change filter (param, format, template): give one of them');
          checkSentParams([...at, 'newest_first'], 'newest_first', newestFirst, `${entityName}.${actionName}`, action, 'incremental-action', report);
        } else if (incremental.param === undefined || incremental.format === undefined) {
          report(
            at,
            'incremental-action',
            "incremental needs param and format (the vendor's change filter), or newest_first (the params of a newest-first order)",
          );
        }
        if (incremental.param !== undefined && !action.params?.[incremental.param]) {
          report(
            [...at, 'param'],
            'unknown-param',
            `incremental param "${incremental.param}" is not a param of ${entityName}.${actionName}${didYouMean(incremental.param, params)}`,
          );
        }
        const type = incremental.param === undefined ? undefined : action.params?.[incremental.param]?.schema.type;
        if ((type === 'object' || type === 'array') && incremental.template === undefined) {
          report([...at, 'param'], 'incremental-action', `incremental param "${incremental.param}" takes an ${type}: give a template (JSON with {value})`);
        }
        const paramSchema = incremental.param === undefined ? undefined : action.params?.[incremental.param]?.schema;
        if (paramSchema && incremental.format !== undefined && incremental.template === undefined && type !== 'object' && type !== 'array') {
          const sample = formatInstant(SAMPLE_INSTANT, incremental.format, new Date(SAMPLE_INSTANT.getTime() + 3_600_000));
          if (!paramValues().validate(paramSchema, sample))
            report(
              [...at, 'format'],
              'incremental-action',
              `incremental param "${incremental.param}" does not accept the ${incremental.format} value ${JSON.stringify(sample)}: ${paramValues().errorsText(undefined, { dataVar: 'value' })}`,
            );
        }
        if ((type === 'object' || type === 'array') && incremental.template !== undefined) {
          try {
            JSON.parse(incremental.template.replaceAll('{value}', '0').replaceAll('{current}', ''));
          } catch {
            report(
              [...at, 'template'],
              'template-syntax',
              `incremental param "${incremental.param}" takes an ${type}: the template must be JSON once {value} is filled in`,
            );
          }
        }
      }
      const first = incremental.field.split('.')[0] as string;
      if (!fieldNames.has(first)) {
        report(
          [...at, 'field'],
          'unknown-field',
          `incremental field "${incremental.field}" is not a record field of ${entityName}${didYouMean(first, fieldNames)}`,
        );
      }
      if (incremental.template !== undefined) {
        const stray = incremental.template.replace(/\{(value|current)\}/g, '');
        if (/\{[a-z_]+\}/.test(stray)) report([...at, 'template'], 'template-syntax', 'an incremental template knows only {value} and {current}');
      }
      if (incremental.deleted_feed) checkDeletedFeed(entityName, entity, incremental.deleted_feed, report);
    }
    if (entity.search?.removed) checkRemoved(entityName, entity, entity.search.removed, fieldNames, report);
    checkRepeatedLists(entityName, entity, report);
    checkSearchParams(entityName, entity, report);
    checkConfigParams(entityName, entity, m.config ?? {}, report);
    checkConfirmDeletion(entityName, entity, report);
    if (entity.record.singleton) {
      for (const actionName of Object.keys(entity.actions)) {
        if (actionName !== 'get') report(['entities', entityName, 'actions', actionName], 'singleton-action', 'a singleton entity has only get');
      }
    }
    for (const [actionName, action] of Object.entries(entity.actions)) {
      checkAction(entityName, actionName, action, named, report);
      checkCarriedCollisions(entityName, actionName, action, carried, report);
    }
  }
  checkConnectorCheck(m, report);
  checkConnectorHeaders(m, report);
  return diagnostics;
}

/** The header an auth option sends its credential in, if it sends it in one. */
function credentialHeaderOf(option: AuthOption): string | undefined {
  if (option.type !== 'api_key') return 'Authorization';
  return option.in === 'header' ? option.name : undefined;
}

/** A connector header that an auth option's credential header replaces on every request (rule auth-param-collision). */
function checkConnectorHeaders(m: Manifest, report: Report): void {
  for (const name of Object.keys(m.headers ?? {})) {
    const option = m.auth.find((candidate) => credentialHeaderOf(candidate)?.toLowerCase() === name.toLowerCase());
    if (option !== undefined)
      report(
        ['headers', name],
        'auth-param-collision',
        `header "${name}" is the one auth option "${option.option_title}" sends its credential in, which replaces this value on every request: remove it`,
        true,
      );
  }
}

/** What a request carries besides its action's params: query params and headers (lowercase) that auth and the connector send, with who sends each. */
interface Carried {
  query: Map<string, string>;
  headers: Map<string, string>;
}

function carriedByConnector(m: Manifest): Carried {
  const carried: Carried = { query: new Map(), headers: new Map() };
  for (const name of Object.keys(m.headers ?? {})) carried.headers.set(name.toLowerCase(), `the connector's header "${name}"`);
  for (const option of m.auth) {
    const who = `auth option "${option.option_title}"`;
    const header = credentialHeaderOf(option);
    if (header !== undefined) carried.headers.set(header.toLowerCase(), who);
    else if (option.type === 'api_key') carried.query.set(option.name, who);
    for (const name of Object.keys(option.headers ?? {})) carried.headers.set(name.toLowerCase(), who);
  }
  return carried;
}

/**
 * A param (or constant_query value) an action sends under a name auth or the connector's headers already send
 * (rule auth-param-collision): a query param would reach the vendor twice, a header would be replaced.
 */
function checkCarriedCollisions(entityName: string, actionName: string, action: Action, carried: Carried, report: Report): void {
  const at = ['entities', entityName, 'actions', actionName];
  for (const [name, param] of Object.entries(action.params ?? {})) {
    const wire = param.wire ?? name;
    const who = param.in === 'query' ? carried.query.get(wire) : param.in === 'header' ? carried.headers.get(wire.toLowerCase()) : undefined;
    if (who !== undefined)
      report(
        [...at, 'params', name],
        'auth-param-collision',
        `${param.in} param "${name}" sends ${param.in} "${wire}", which ${who} sends on every request: remove the param (or rename what it sends with wire)`,
        true,
      );
  }
  for (const name of Object.keys(action.constant_query ?? {})) {
    const who = carried.query.get(name);
    if (who !== undefined)
      report([...at, 'constant_query', name], 'auth-param-collision', `constant_query "${name}" is also sent by ${who} on every request: remove it`, true);
  }
}

/**
 * search.params: sent with every list call of a sync, so each is a param of `list` that accepts the value,
 * and not one the sync fills itself (rule `search-params`).
 */
function checkSearchParams(entityName: string, entity: Entity, report: Report): void {
  const search = entity.search ?? {};
  if (search.params === undefined) return;
  const at = ['entities', entityName, 'search', 'params'];
  const list = entity.actions.list;
  if (!list) {
    report(at, 'search-params', `params are sent with ${entityName}.list, which this entity does not declare`);
    return;
  }
  const filled = new Map<string, string>();
  if (search.fan_out) filled.set(search.fan_out.param, 'the fan_out param');
  if (search.each !== undefined) filled.set(search.each, 'the each param');
  if (search.window) for (const end of [search.window.from, search.window.to]) filled.set(end.split('.')[0] as string, 'a window end');
  for (const param of Object.keys(search.config_params ?? {})) filled.set(param, 'a config param');
  if (search.incremental?.param !== undefined) filled.set(search.incremental.param, "the change filter's param");
  checkSentParams(at, 'search', search.params, `${entityName}.list`, list, 'search-params', report, filled);
}

/**
 * Params the sync sends as the manifest writes them (newest_first, search.params, removed.incremental_params):
 * each a param of the action (rule `unknown-param`, with a suggestion), not one the sync fills itself
 * (`filled`: the param and its role), whose schema accepts the value (`rule`).
 */
function checkSentParams(
  at: string[],
  label: string,
  values: Record<string, unknown>,
  actionLabel: string,
  action: Action,
  rule: string,
  report: Report,
  filled: Map<string, string> = new Map(),
): void {
  const declared = action.params ?? {};
  for (const [name, value] of Object.entries(values)) {
    const param = declared[name];
    const role = filled.get(name);
    if (!param)
      report([...at, name], 'unknown-param', `${label} param "${name}" is not a param of ${actionLabel}${didYouMean(name, Object.keys(declared))}`, true);
    else if (role !== undefined) report([...at, name], rule, `${label} param "${name}" is ${role}, which the sync fills itself`, true);
    else if (!paramValues().validate(param.schema, value))
      report([...at, name], rule, `${label} param "${name}" ${paramValues().errorsText(undefined, { dataVar: 'value' })}`);
  }
}

/** A sample the generator formats an instant param with, to check it against the param's schema. */
const SAMPLE_INSTANT = new Date('2024-05-01T09:30:00Z');

/** search.config_params: required params of `list` given by config variables (rule `config-params`). */
function checkConfigParams(entityName: string, entity: Entity, config: NonNullable<Manifest['config']>, report: Report): void {
  const search = entity.search ?? {};
  const list = entity.actions.list;
  const params = list?.params ?? {};
  for (const [param, variable] of Object.entries(search.config_params ?? {})) {
    const at = ['entities', entityName, 'search', 'config_params', param];
    if (!list) report(at, 'config-params', `config_params fill params of ${entityName}.list, which this entity does not declare`, true);
    else if (!params[param])
      report(at, 'unknown-param', `config param "${param}" is not a param of ${entityName}.list${didYouMean(param, Object.keys(params))}`, true);
    else if (param === search.fan_out?.param || param === search.each)
      report(at, 'config-params', `config param "${param}" is also the ${param === search.each ? 'each' : 'fan_out'} param`, true);
    if (!Object.hasOwn(config, variable))
      report(
        at,
        'config-params',
        `config param "${param}" names config variable "${variable}", which the manifest's config does not declare${didYouMean(variable, Object.keys(config))}`,
      );
  }
}

/**
 * search.confirm_deletion: the sweep reads a missed record by its id alone, so the action is a GET of the
 * entity taking the id in `param` and no other required param, and the records are stored under one id
 * field (rule `confirm-deletion`).
 */
function checkConfirmDeletion(entityName: string, entity: Entity, report: Report): void {
  const confirm = entity.search?.confirm_deletion;
  if (confirm === undefined) return;
  const at = ['entities', entityName, 'search', 'confirm_deletion'];
  const actionNames = Object.keys(entity.actions);
  const action = entity.actions[confirm.action];
  if (!action) {
    report(
      [...at, 'action'],
      'confirm-deletion',
      `confirm_deletion action "${confirm.action}" is not an action of ${entityName}${didYouMean(confirm.action, actionNames)}`,
    );
    return;
  }
  if (action.method !== 'GET')
    report(
      [...at, 'action'],
      'confirm-deletion',
      `confirm_deletion action ${entityName}.${confirm.action} is a ${action.method}: the sweep only reads (a GET)`,
    );
  const params = action.params ?? {};
  if (!params[confirm.param]) {
    report(
      [...at, 'param'],
      'confirm-deletion',
      `confirm_deletion param "${confirm.param}" is not a param of ${entityName}.${confirm.action}${didYouMean(confirm.param, Object.keys(params))}`,
    );
    return;
  }
  const others = Object.entries(params)
    .filter(([name, param]) => name !== confirm.param && param.required === true && param.schema.default === undefined)
    .map(([name]) => name);
  if (others.length > 0)
    report(
      [...at, 'action'],
      'confirm-deletion',
      `${entityName}.${confirm.action} also requires ${others.join(', ')}: the sweep knows only the record id (in "${confirm.param}")`,
    );
  const composite = compositeId(entity);
  if (composite)
    report(at, 'confirm-deletion', `${entityName} records are stored under a composite id (${composite}): confirm_deletion reads a record by one id`);
}

/** The fields of the entity's composite id, joined, or undefined when its records are stored under one id field. */
function compositeId(entity: Entity): string | undefined {
  return Array.isArray(entity.record.id_field) ? entity.record.id_field.join(', ') : undefined;
}

/** search.each and search.window: the params a sync fills to list the entity several times (rules `each`, `window`). */
function checkRepeatedLists(entityName: string, entity: Entity, report: Report): void {
  const search = entity.search ?? {};
  const list = entity.actions.list;
  const params = list?.params ?? {};
  const names = Object.keys(params);
  if (search.each !== undefined) {
    const at = ['entities', entityName, 'search', 'each'];
    const param = params[search.each];
    if (!list) report(at, 'each', `each lists ${entityName} once per value, but ${entityName} has no list action`);
    else if (!param) report(at, 'unknown-param', `each param "${search.each}" is not a param of ${entityName}.list${didYouMean(search.each, names)}`);
    else if (!Array.isArray(param.schema.enum) || param.schema.enum.length === 0)
      report(at, 'each', `each param "${search.each}" has no enum in its schema: the sync lists once per enum value`);
    else if (search.fan_out?.param === search.each) report(at, 'each', `each param "${search.each}" is also the fan_out param`);
  }
  const window = search.window;
  if (window === undefined) return;
  const at = ['entities', entityName, 'search', 'window'];
  if (!list) {
    report(at, 'window', `window fills params of ${entityName}.list, which this entity does not declare`);
    return;
  }
  if ((window.start === undefined) === (window.lookback_days === undefined))
    report(at, 'window', 'window needs exactly one of start (the earliest instant asked for) and lookback_days (a rolling range)');
  // The window fills list's params; a change filter read through another action (api_search) does without it.
  if (search.incremental !== undefined && (search.incremental.action ?? 'list') === 'list')
    report(
      at,
      'window',
      'a window is walked in full by every sync: give search.window, or search.incremental through an action without the window (action: api_search), not both on list',
    );
  if (window.start !== undefined && Date.parse(window.start) >= Date.now())
    report([...at, 'start'], 'window', `window start ${window.start} is not in the past: a sync would ask for nothing and sweep every record`);
  if (window.from === window.to) report([...at, 'to'], 'window', `window from and to are the same param "${window.from}"`);
  for (const end of ['from', 'to'] as const) {
    const path = window[end];
    const head = path.split('.')[0] as string;
    if (!params[head]) {
      report([...at, end], 'unknown-param', `window ${end} "${head}" is not a param of ${entityName}.list${didYouMean(head, names)}`);
      continue;
    }
    if (path !== head && params[head]?.schema.type !== 'object') {
      report([...at, end], 'window', `window ${end} "${path}" is a dot path, but param "${head}" is not an object`);
      continue;
    }
    // The param's schema, or for a dot path the schema of that field of the object param.
    const schema = getPath(
      params,
      [
        head,
        'schema',
        ...path
          .split('.')
          .slice(1)
          .flatMap((field) => ['properties', field]),
      ].join('.'),
    );
    const sample = formatInstant(SAMPLE_INSTANT, window.format, SAMPLE_INSTANT);
    if (schema !== null && typeof schema === 'object' && !paramValues().validate(schema, sample))
      report(
        [...at, 'format'],
        'window',
        `window ${end} "${path}" does not accept the ${window.format} value ${JSON.stringify(sample)}: ${paramValues().errorsText(undefined, { dataVar: 'value' })}`,
      );
  }
}

type Incremental = NonNullable<NonNullable<Manifest['entities'][string]['search']>['incremental']>;
type DeletedFeed = NonNullable<Incremental['deleted_feed']>;

type Removed = NonNullable<NonNullable<Manifest['entities'][string]['search']>['removed']>;

/**
 * search.removed: the field that marks an archived or trashed record is a record field; the params that
 * make the vendor list such records are sent by the incremental walk with its change filter, so they need
 * one, and are params of its action (not the filter's own) that accept the values (rule `removed`).
 */
function checkRemoved(entityName: string, entity: Entity, removed: Removed, fieldNames: Set<string>, report: Report): void {
  const at = ['entities', entityName, 'search', 'removed'];
  const first = removed.field.split('.')[0] as string;
  if (!fieldNames.has(first))
    report([...at, 'field'], 'removed', `removed field "${removed.field}" is not a record field of ${entityName}${didYouMean(first, fieldNames)}`);
  if (removed.incremental_params === undefined) return;
  const incremental = entity.search?.incremental;
  if (!incremental) {
    report(
      [...at, 'incremental_params'],
      'removed',
      'removed incremental_params are sent by incremental walks: declare search.incremental, or drop them',
      true,
    );
    return;
  }
  const actionName = incremental.action ?? 'list';
  const action = entity.actions[actionName];
  const filled = new Map(incremental.param === undefined ? [] : [[incremental.param, "the change filter's param"]]);
  // Without the action, rule incremental-action has said so.
  if (action)
    checkSentParams([...at, 'incremental_params'], 'removed', removed.incremental_params, `${entityName}.${actionName}`, action, 'removed', report, filled);
}

/**
 * incremental.deleted_feed is a GET of a fixed path with the range's two ends as query params, read once per sync:
 * for an entity without fan_out whose records are stored under one id field.
 */
function checkDeletedFeed(entityName: string, entity: Entity, feed: DeletedFeed, report: Report): void {
  const at = ['entities', entityName, 'search', 'incremental', 'deleted_feed'];
  const fanOut = entity.search?.fan_out;
  if (fanOut) report(at, 'deleted-feed', `${entityName} is read once per ${fanOut.entity} (fan_out): a deleted feed is read once per sync, for root entities`);
  const composite = compositeId(entity);
  if (composite) report(at, 'deleted-feed', `${entityName} records are stored under a composite id (${composite}): a deleted feed names records by one id`);
  if (/[{}]/.test(feed.path))
    report([...at, 'path'], 'deleted-feed', `deleted_feed path "${feed.path}" has a template: the sync sends only ${feed.from} and ${feed.to}`);
  if (feed.from === feed.to) report([...at, 'to'], 'deleted-feed', `deleted_feed from and to are the same param "${feed.from}"`);
}

let paramSchemaAjv: Ajv | undefined;

/**
 * A param's schema as the generated validators compile it (draft-07), strictly: an unknown keyword (minLenght),
 * a keyword of the wrong type (maxLength: "200", required: true), an invalid regular expression, an unknown
 * format or a $ref to nothing is reported here at the schema's line (rule `param-schema`), not as a stack trace
 * from the emit stage or a keyword silently ignored. A default the schema refuses (rule `param-default`) would
 * be sent as it is.
 */
function checkParamSchema(at: string[], name: string, schema: unknown, report: Report): void {
  paramSchemaAjv ??= addFormats(
    new Ajv({ allErrors: true, strict: true, strictTypes: false, strictTuples: false, strictRequired: false, keywords: ['example'] }),
  ) as unknown as Ajv;
  let validate: ValidateFunction;
  try {
    validate = paramSchemaAjv.compile(schema as object);
  } catch (error) {
    const text = (error as Error).message.replace(/^schema is invalid: /, '').replace(/\s+/g, ' ');
    report(at, 'param-schema', `param "${name}" has a schema the validators cannot compile: ${text}`);
    return;
  }
  const value = (schema as { default?: unknown }).default;
  if (value !== undefined && !validate(value)) {
    report(
      [...at, 'default'],
      'param-default',
      `param "${name}" default ${JSON.stringify(value)} is refused by its own schema: ${paramSchemaAjv.errorsText(validate.errors, { dataVar: 'default' })}`,
    );
  }
}

let paramValueAjv: Ajv2020 | undefined;

/** Checks param values against their declared schemas (check.params, incremental.newest_first, the formatted instants of incremental and window). */
function paramValues(): Ajv2020 {
  paramValueAjv ??= addFormats(new Ajv2020({ strict: false, allErrors: true }));
  return paramValueAjv;
}

/** check names a read-only action of this manifest, with declared params whose values its schemas accept. */
function checkConnectorCheck(m: Manifest, report: Report): void {
  const { entity: entityName, action: actionName, params = {} } = m.check;
  const entity = m.entities[entityName];
  if (!entity) {
    report(['check', 'entity'], 'unknown-entity', `check names entity "${entityName}", which this connector does not declare`);
    return;
  }
  const action = entity.actions[actionName];
  if (!action) {
    report(['check', 'action'], 'unknown-action', `check names action "${actionName}", which entity ${entityName} does not declare`);
    return;
  }
  const readOnly = action.graphql ? !/^\s*mutation\b/.test(action.graphql.document) : action.method === 'GET';
  if (!readOnly || action.destructive === true) {
    report(
      ['check', 'action'],
      'check-read-only',
      `check must call a read (GET or a GraphQL query): ${entityName}.${actionName} is ${action.graphql ? 'a mutation' : action.method}`,
    );
  }
  const declared: NonNullable<Action['params']> = action.params ?? {};
  const ajv = paramValues();
  for (const [name, value] of Object.entries(params)) {
    const param = declared[name];
    if (!param) {
      report(['check', 'params', name], 'unknown-param', `check param "${name}" is not a param of ${entityName}.${actionName}`, true);
    } else if (!ajv.validate(param.schema, value)) {
      report(['check', 'params', name], 'check-params', `check param "${name}" ${ajv.errorsText(ajv.errors, { dataVar: 'value' })}`);
    }
  }
  for (const [name, param] of Object.entries(declared)) {
    if (param.required && params[name] === undefined && param.schema.default === undefined) {
      report(['check', 'params'], 'check-params', `check must give the required param "${name}" of ${entityName}.${actionName}`);
    }
  }
}

function checkAction(entityName: string, actionName: string, action: Action, named: Record<string, Pagination>, report: Report): void {
  const at = ['entities', entityName, 'actions', actionName];
  const params = action.params ?? {};
  const paths: Array<[string[], string]> = [
    [[...at, 'path'], action.path],
    ...(action.alternative_paths ?? []).map((path, index): [string[], string] => [[...at, 'alternative_paths', String(index)], path]),
  ];
  for (const [segments, path] of paths) {
    for (const name of pathParamNames(path)) {
      const param = Object.entries(params).find(([p, def]) => def.in === 'path' && (def.wire ?? p) === name);
      if (!param) report(segments, 'undeclared-path-param', `path template names {${name}}, which no param with in: path declares`);
    }
  }
  const templateNames = paths.flatMap(([, path]) => pathParamNames(path));
  const inEveryPath = (name: string) => paths.every(([, path]) => pathParamNames(path).includes(name));
  const wires = new Map<string, string>();
  for (const [name, param] of Object.entries(params)) {
    const wire = `${param.in}:${param.wire ?? name}`;
    if (wires.has(wire)) {
      report(
        [...at, 'params', name],
        'duplicate-param',
        `param "${name}" is declared twice: "${wires.get(wire)}" already sends ${param.in} "${param.wire ?? name}"`,
        true,
      );
    }
    wires.set(wire, name);
    if (param.in === 'path') {
      if (!templateNames.includes(param.wire ?? name))
        report([...at, 'params', name], 'unused-path-param', `path param "${name}" does not appear in the path template`, true);
      else if (inEveryPath(param.wire ?? name) && !param.required)
        report([...at, 'params', name], 'path-param-required', `path param "${name}" must be required: true`, true);
      else if (!inEveryPath(param.wire ?? name) && param.required)
        report(
          [...at, 'params', name],
          'path-param-required',
          `path param "${name}" is missing from some of the action's paths, so it cannot be required: name it in at_least_one_of instead`,
          true,
        );
    }
    if (param.in === 'variables' && !action.graphql)
      report([...at, 'params', name], 'variables-without-graphql', 'params with in: variables need a graphql document', true);
    if (param.in === 'body' && action.graphql)
      report([...at, 'params', name], 'body-with-graphql', 'a graphql action sends params as variables, not body', true);
    if (param.send_default && param.schema.default === undefined) report([...at, 'params', name], 'send-default', 'send_default needs schema.default', true);
    checkParamSchema([...at, 'params', name, 'schema'], name, param.schema, report);
  }
  const namedBy = new Map<string, string>(Object.keys(params).map((name) => [name, name]));
  for (const [name, param] of Object.entries(params)) {
    for (const [index, alias] of (param.aliases ?? []).entries()) {
      const holder = namedBy.get(alias);
      if (holder !== undefined) {
        const what = holder === alias ? `the param "${alias}"` : `an alias of "${holder}"`;
        report(
          [...at, 'params', name, 'aliases', String(index)],
          'param-aliases',
          holder === name
            ? `"${alias}" is already the name of this param`
            : `alias "${alias}" of "${name}" is already ${what}: a caller's value could not say which param it is`,
          true,
        );
      }
      namedBy.set(alias, name);
    }
  }
  if (action.graphql && action.method !== 'POST') report([...at, 'method'], 'graphql-method', 'a graphql action must use POST');
  const result = action.result ?? derivedDefaults.result(actionName);
  if (result === 'one' && action.record_item_path !== undefined)
    report([...at, 'record_item_path'], 'result-shape', 'record_item_path applies to each record of a list; use record_path for one record');
  if (result === 'one' && action.records_path !== undefined)
    report([...at, 'records_path'], 'result-shape', 'records_path is for actions returning many records; use record_path');
  if (result === 'many' && action.records_path !== undefined && action.record_path !== undefined)
    report([...at, 'record_path'], 'result-shape', 'a list reads its records at records_path, or its one record at record_path, not both');
  if (result === 'one' && action.response_fields !== undefined)
    report([...at, 'response_fields'], 'result-shape', 'response_fields adds fields to each record of a list; a single record is the answer itself');
  for (const key of ['at_least_one_of', 'at_most_one_of'] as const) {
    for (const name of action[key] ?? []) {
      if (!(name in params))
        report([...at, key], 'unknown-param', `${key} names "${name}", which is not a param of this action${didYouMean(name, Object.keys(params))}`);
    }
  }
  for (const name of Object.keys(action.constant_query ?? {})) {
    if (Object.entries(params).some(([p, def]) => def.in === 'query' && (def.wire ?? p) === name)) {
      report([...at, 'constant_query', name], 'duplicate-param', `constant_query "${name}" is also sent by a declared query param`, true);
    }
  }
  for (const guard of action.guards ?? []) {
    if (!(guard.param in params))
      report(
        [...at, 'guards'],
        'unknown-param',
        `guard ${guard.name} names param "${guard.param}", which is not declared${didYouMean(guard.param, Object.keys(params))}`,
      );
  }
  if (action.pagination !== undefined) {
    const pagination = typeof action.pagination === 'string' ? named[action.pagination] : action.pagination;
    if (!pagination) {
      report(
        [...at, 'pagination'],
        'unknown-pagination',
        `pagination "${String(action.pagination)}" is not defined under the top-level pagination key${didYouMean(String(action.pagination), Object.keys(named))}`,
      );
      return;
    }
    const shortPage = 'short_page_ends' in pagination ? pagination.short_page_ends : undefined;
    const paramKeys = pagination as Partial<Record<(typeof PAGINATION_PARAM_KEYS)[number], string>>;
    const paramRefs: Array<readonly [string, unknown]> = [
      ...PAGINATION_PARAM_KEYS.map((key) => [key, paramKeys[key]] as const),
      ['short_page_ends.limit_param', shortPage?.limit_param] as const,
    ];
    for (const [key, param] of paramRefs) {
      if (typeof param === 'string' && !(param in params)) {
        report([...at, 'pagination'], 'unknown-param', `pagination ${key} "${param}" is not a param of this action${didYouMean(param, Object.keys(params))}`);
      }
    }
  }
}
