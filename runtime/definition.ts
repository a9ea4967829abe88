/**
 * The connector definition the runtime executes: a manifest after validation and normalization
 * (every default made explicit). codegen/ produces one per manifest in runtime/generated/.
 *
 * Its shape follows from manifests/schema/manifest.schema.yaml: `Shape` below is generated from the
 * schema (keys camelCased, defaulted keys present). Only what normalization adds beyond the schema's
 * own defaults is written here: names, resolved pagination, record field schemas and derived defaults.
 */
import type * as Shape from './generated/definition-shape.js';

export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export type ParamLocation = Shape.Param['in'];

export interface ParamDefinition extends Shape.Param {
  /** Name on the wire; for body and variables a dot path. Defaults to the param name. */
  wire: string;
}

/**
 * Whether a caller must give the param: a required param whose default the runtime sends when it is
 * omitted (send_default) is filled, not demanded.
 */
export function callerMustGive(param: Shape.Param): boolean {
  return param.required === true && !(param.sendDefault === true && param.schema.default !== undefined);
}

export type Source = Shape.Source;

/** A page with fewer records than the limit ends the walk. */
export type ShortPage = Shape.ShortPage;

export type PaginationDefinition = Shape.Pagination;

export type PaginationStyle = PaginationDefinition['style'];

export type GuardName = Shape.Action['guards'][number]['name'];

export interface ActionDefinition extends Omit<Shape.Action, 'params' | 'pagination' | 'result' | 'idempotent' | 'destructive' | 'readOnly'> {
  name: string;
  params: Record<string, ParamDefinition>;
  result: 'many' | 'one';
  /** A named definition resolved, or the inline one. */
  pagination?: PaginationDefinition;
  idempotent: boolean;
  destructive: boolean;
  /** Changes nothing at the vendor (a read, a search). */
  readOnly: boolean;
}

export interface RecordDefinition extends Omit<Shape.EntityRecord, 'fields'> {
  /** JSON Schema per field, nullability already applied. */
  fields: Record<string, JsonObject>;
}

export type SearchDefinition = Shape.Search;

export interface EntityDefinition extends Omit<Shape.Entity, 'record' | 'actions'> {
  name: string;
  record: RecordDefinition;
  actions: Record<string, ActionDefinition>;
}

export type CredentialField = Shape.CredentialField;

export type AuthOption = Shape.AuthOption;

export type ConfigField = Shape.ConfigField;

/** A 2xx response whose body reports a failure (see the manifest key error_in_body). */
export type ErrorInBody = Shape.ErrorInBody;

export interface ConnectorDefinition extends Omit<Shape.Manifest, 'entities'> {
  entities: Record<string, EntityDefinition>;
}
