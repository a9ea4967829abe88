/**
 * A record's own value for a key that comes from input, never an inherited one: `toString`,
 * `constructor` or `__proto__` as an entity, action, param or field name is simply unknown.
 */
export function own<T>(record: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(record, key) ? record[key] : undefined;
}
