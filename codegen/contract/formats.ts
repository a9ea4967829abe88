/**
 * Registry of spec formats and a per-file cache of loaded specs.
 *
 * To add a format (e.g. Facebook's SDK codegen JSON or Salesforce's Postman collection, both
 * shipped as .tar.gz): write a module exporting a `SpecFormat` whose `load(absPath)` returns a
 * `LoadedSpec` with `checkAction`, and add it to `defaultFormats` (and to the manifest
 * schema's vendor_spec.format enum).
 */
import { facebookFormat } from './facebook.js';
import { graphqlFormat } from './graphql.js';
import { openapiFormat } from './openapi.js';
import { postmanFormat } from './postman.js';
import type { LoadedSpec, SpecFormat } from './types.js';

export const defaultFormats: ReadonlyMap<string, SpecFormat> = new Map([openapiFormat, graphqlFormat, facebookFormat, postmanFormat].map((f) => [f.name, f]));

/** Loads each (format, file) once; concurrent callers share the same promise. */
export class SpecCache {
  private readonly cache = new Map<string, Promise<LoadedSpec>>();

  constructor(private readonly formats: ReadonlyMap<string, SpecFormat> = defaultFormats) {}

  hasFormat(name: string): boolean {
    return this.formats.has(name);
  }

  get(format: string, absPath: string): Promise<LoadedSpec> {
    const key = `${format}\u0000${absPath}`;
    let hit = this.cache.get(key);
    if (!hit) {
      const f = this.formats.get(format);
      hit = f ? f.load(absPath) : Promise.reject(new Error(`no checker for format '${format}'`));
      this.cache.set(key, hit);
    }
    return hit;
  }
}
