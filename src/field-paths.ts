/**
 * Selecting and removing dot paths in JSON records (execute's select_fields / exclude_fields, the
 * context store's `fields`): the nesting of each path is kept, arrays are walked element by element,
 * and a path the record does not have is left out rather than invented as null.
 */

type PathTree = Map<string, PathTree | true>;

/** Dot paths as a tree; a path that ends at a node covers everything under it. */
function pathTree(paths: readonly string[]): PathTree {
  const root: PathTree = new Map();
  for (const path of paths) {
    const segments = path.split('.').filter((segment) => segment !== '');
    let node = root;
    for (const [index, segment] of segments.entries()) {
      const existing = node.get(segment);
      if (existing === true) break;
      if (index === segments.length - 1) {
        node.set(segment, true);
        break;
      }
      const child: PathTree = existing ?? new Map();
      node.set(segment, child);
      node = child;
    }
  }
  return root;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value);
}

function pick(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((item) => pick(item, tree));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    if (!Object.hasOwn(value, key)) continue;
    out[key] = sub === true ? value[key] : pick(value[key], sub);
  }
  return out;
}

function omit(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((item) => omit(item, tree));
  if (!isObject(value)) return value;
  const out: Record<string, unknown> = { ...value };
  for (const [key, sub] of tree) {
    if (!Object.hasOwn(out, key)) continue;
    if (sub === true) delete out[key];
    else out[key] = omit(out[key], sub);
  }
  return out;
}

/** The value (a record, or a list of them) reduced to the given dot paths. */
export function selectPaths(value: unknown, paths: readonly string[]): unknown {
  return pick(value, pathTree(paths));
}

/** The value (a record, or a list of them) without the given dot paths. */
export function excludePaths(value: unknown, paths: readonly string[]): unknown {
  return omit(value, pathTree(paths));
}
