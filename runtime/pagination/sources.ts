import { getPath } from '../paths.js';

/** What a pagination source (`body.x`, `headers.x`, `next.x`) is read from. */
export interface PageView {
  body: unknown;
  headers: Headers;
  next?: Record<string, unknown>;
}

export function readSource(source: string, view: PageView): unknown {
  const [root, ...rest] = source.split('.');
  const path = rest.join('.');
  if (root === 'body') return getPath(view.body, path);
  if (root === 'headers') return view.headers.get(path) ?? undefined;
  return view.next === undefined ? undefined : getPath(view.next, path);
}

export function readString(source: string | undefined, view: PageView): string | undefined {
  if (source === undefined) return undefined;
  const value = readSource(source, view);
  if (value === undefined || value === null || value === '') return undefined;
  return typeof value === 'string' ? value : String(value);
}

export function readBoolean(source: string | undefined, view: PageView): boolean | undefined {
  if (source === undefined) return undefined;
  const value = readSource(source, view);
  if (typeof value === 'boolean') return value;
  if (value === 'true') return true;
  if (value === 'false') return false;
  return undefined;
}

/** True for true, "true" or a non-empty string other than "false" (a next URL's presence); false otherwise. */
export function readTruthy(source: string, view: PageView): boolean {
  const value = readSource(source, view);
  if (typeof value === 'boolean') return value;
  if (typeof value === 'string') return value !== '' && value !== 'false';
  return false;
}

export function readNumber(source: string | undefined, view: PageView): number | undefined {
  if (source === undefined) return undefined;
  const value = readSource(source, view);
  const number = typeof value === 'number' ? value : typeof value === 'string' && value !== '' ? Number(value) : NaN;
  return Number.isFinite(number) ? number : undefined;
}
