/**
 * Shared types of the contract checker (`npm run contract`).
 *
 * The checker compares connector manifests (manifests/*.yaml) with the vendor's own API
 * description (shared/vendor-specs). Each spec format lives in its own module behind the
 * small `SpecFormat` interface (see formats.ts), so new formats can be added without touching
 * the rest.
 */

export type ParamLocation = 'path' | 'query' | 'body' | 'header' | 'variables';

export interface ParamDef {
  readonly in: string;
  readonly wire?: string | undefined;
  readonly required?: boolean | undefined;
}

export interface ActionDef {
  readonly method: string;
  readonly path: string;
  readonly params: Readonly<Record<string, ParamDef>>;
  readonly additional_params?: string | undefined;
  readonly constant_body?: Readonly<Record<string, unknown>> | undefined;
  readonly graphql?: { readonly document: string } | undefined;
}

/** One action of a manifest, addressed as `entity.action`. */
export interface ActionRef {
  readonly entity: string;
  /** The action's name, or for a request of the sync that is no action, where the manifest declares it (`search.incremental.deleted_feed`). */
  readonly action: string;
  readonly def: ActionDef;
  /** A request only the context store's sync sends (a deleted feed): checked against the spec, not executed by the live check. */
  readonly syncOnly?: boolean;
}

export interface Waiver {
  readonly action: string;
  readonly param?: string | undefined;
  readonly reason: string;
}

/** A finding of the live check accepted on purpose (vendor_spec.live_waivers). */
export interface LiveWaiver {
  readonly action: string;
  readonly kind: string;
  readonly reason: string;
}

export interface VendorSpecRef {
  readonly format: string;
  readonly file: string;
  readonly path_prefix?: string | undefined;
  readonly waivers: readonly Waiver[];
  readonly live_waivers?: readonly LiveWaiver[] | undefined;
}

/** The parts of a manifest the checker needs. */
export interface Manifest {
  readonly connector: string;
  /** Manifest file (absolute or as given). */
  readonly file: string;
  readonly base_url: string;
  readonly vendor_spec?: VendorSpecRef | undefined;
  readonly actions: readonly ActionRef[];
}

export type MismatchKind =
  | 'path_missing'
  | 'method_missing'
  | 'path_param_template'
  | 'param_missing'
  | 'param_location'
  | 'body_missing'
  | 'graphql_document_missing'
  | 'graphql_parse'
  | 'graphql_invalid'
  | 'variable_undeclared'
  | 'variable_unfed'
  | 'stale_waiver'
  | 'spec_missing'
  | 'spec_unreadable'
  | 'unsupported_format'
  | 'manifest_unreadable';

/**
 * One disagreement between a manifest and its vendor description.
 * `entity`/`action` are absent for connector-level problems (missing spec file, ...).
 * `param` is the manifest param name (or constant_body key / GraphQL variable) it concerns;
 * `wire` its wire name when different. Waivers match on either.
 */
export interface Mismatch {
  readonly kind: MismatchKind;
  readonly entity?: string | undefined;
  readonly action?: string | undefined;
  readonly param?: string | undefined;
  readonly wire?: string | undefined;
  /** What is wrong, e.g. "query param 'foo' not in spec". */
  readonly message: string;
  /** Where it was looked for, e.g. "GET /users/{user_id}". */
  readonly where: string;
}

export interface WaivedMismatch {
  readonly mismatch: Mismatch;
  readonly waiver: Waiver;
}

/** Input of one per-action check. */
export interface ActionCheckInput {
  readonly action: ActionRef;
  /** Manifest base_url (may contain {{...}} templates). */
  readonly baseUrl: string;
  readonly pathPrefix?: string | undefined;
}

/** A loaded, ready-to-query vendor description. */
export interface LoadedSpec {
  readonly format: string;
  checkAction(input: ActionCheckInput): Mismatch[];
}

/** A spec format module: knows how to load one vendor description file. */
export interface SpecFormat {
  readonly name: string;
  load(absPath: string): Promise<LoadedSpec>;
}

/** Result for one manifest. */
export interface ConnectorResult {
  readonly connector: string;
  readonly file: string;
  /** Spec file relative to the vendor-specs folder; undefined when the manifest has no vendor_spec. */
  readonly spec?: string | undefined;
  readonly format?: string | undefined;
  readonly actionsChecked: number;
  /** Mismatches not covered by a waiver (including stale waivers and load errors). */
  readonly unwaived: readonly Mismatch[];
  readonly waived: readonly WaivedMismatch[];
}

export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function subjectOf(m: Mismatch): string {
  return m.entity !== undefined && m.action !== undefined ? `${m.entity}.${m.action}` : 'vendor_spec';
}
