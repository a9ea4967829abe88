/**
 * Projection of stored records onto field paths (the entity's searchable fields, or the `fields` a
 * search asks for): the nesting of each path is kept, arrays are walked element by element, and a
 * path the record does not have is left out rather than invented as null.
 */

type PathTree = Map<string, PathTree | true>;

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

function pick(value: unknown, tree: PathTree): unknown {
  if (Array.isArray(value)) return value.map((item) => pick(item, tree));
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const out: Record<string, unknown> = {};
  for (const [key, sub] of tree) {
    if (!Object.hasOwn(record, key)) continue;
    out[key] = sub === true ? record[key] : pick(record[key], sub);
  }
  return out;
}

/** The record reduced to the given dot paths. */
export function projectFields(record: Record<string, unknown>, fields: readonly string[]): Record<string, unknown> {
  return pick(record, pathTree(fields)) as Record<string, unknown>;
}
