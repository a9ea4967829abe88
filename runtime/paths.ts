/** Reads and writes values at dot paths in plain JSON objects. */

export function getPath(root: unknown, path: string | undefined): unknown {
  if (path === undefined || path === '') return root;
  let current: unknown = root;
  for (const key of path.split('.')) {
    if (current === null || typeof current !== 'object') return undefined;
    current = (current as Record<string, unknown>)[key];
  }
  return current;
}

export function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const keys = path.split('.');
  let current = root;
  for (const key of keys.slice(0, -1)) {
    const next = current[key];
    if (next === null || typeof next !== 'object' || Array.isArray(next)) {
      const created: Record<string, unknown> = {};
      current[key] = created;
      current = created;
    } else {
      current = next as Record<string, unknown>;
    }
  }
  current[keys[keys.length - 1] as string] = value;
}
