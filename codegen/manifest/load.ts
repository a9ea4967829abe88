import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { LineCounter, parseDocument, isMap, isPair, isScalar, type Document, type Node } from 'yaml';

export interface Diagnostic {
  file: string;
  line: number;
  column: number;
  /** Dot path inside the manifest. */
  path: string;
  rule: string;
  message: string;
}

export function formatDiagnostic(d: Diagnostic): string {
  return `${d.file}:${d.line}:${d.column}: ${d.path || '(root)'}: ${d.message} [${d.rule}]`;
}

export interface LoadedManifest {
  file: string;
  document: Document;
  lines: LineCounter;
  data: unknown;
}

export function manifestFiles(dir: string): string[] {
  return readdirSync(dir)
    .filter((name) => name.endsWith('.yaml') || name.endsWith('.yml'))
    .sort()
    .map((name) => path.join(dir, name));
}

/** Parses one manifest keeping node positions; YAML syntax errors (duplicate keys included) become diagnostics. */
export function loadManifest(file: string, text = readFileSync(file, 'utf8')): { manifest?: LoadedManifest; diagnostics: Diagnostic[] } {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, uniqueKeys: true, prettyErrors: false, merge: true });
  const diagnostics = document.errors.map((error) => {
    const pos = lines.linePos(error.pos[0]);
    const duplicate = error.code === 'DUPLICATE_KEY';
    return {
      file,
      line: pos.line,
      column: pos.col,
      path: '',
      rule: duplicate ? 'duplicate-key' : 'yaml-syntax',
      message: duplicate ? `a key is declared twice: ${error.message.split('\n')[0]}` : (error.message.split('\n')[0] ?? 'YAML syntax error'),
    };
  });
  if (diagnostics.length > 0) return { diagnostics };
  try {
    return { manifest: { file, document, lines, data: document.toJS() }, diagnostics: [] };
  } catch (error) {
    // An alias (*name) whose anchor (&name) is not set before it surfaces only when the document is read.
    const said = (error as Error).message.split('\n')[0] ?? 'YAML error';
    const alias = /alias[^:]*: (\S+)/.exec(said)?.[1];
    const at = alias === undefined ? -1 : text.search(new RegExp(`\\*${alias.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w-])`));
    const pos = lines.linePos(Math.max(0, at));
    const message =
      alias === undefined ? said : `alias *${alias} has no anchor &${alias} before it (anchors are set by &name on an earlier node of the same file)`;
    return { diagnostics: [{ file, line: pos.line, column: pos.col, path: '', rule: 'yaml-syntax', message }] };
  }
}

/** Line and column of the node at a path (of the key itself when `atKey`), falling back to the closest ancestor. */
export function positionOf(manifest: LoadedManifest, segments: string[], atKey = false): { line: number; column: number } {
  let node: Node | null = manifest.document.contents as Node | null;
  let best = node?.range?.[0] ?? 0;
  for (const [index, segment] of segments.entries()) {
    if (!isMap(node) && !(node && 'items' in node)) break;
    let next: Node | null = null;
    let keyOffset: number | undefined;
    if (isMap(node)) {
      const pair = node.items.find((item) => isPair(item) && isScalar(item.key) && String(item.key.value) === segment);
      if (pair && isPair(pair)) {
        next = pair.value as Node | null;
        keyOffset = (pair.key as Node).range?.[0];
      }
    } else {
      const item = (node as { items: unknown[] }).items[Number(segment)];
      next = (item as Node | undefined) ?? null;
    }
    if (next === null && keyOffset === undefined) break;
    const last = index === segments.length - 1;
    best = (last && atKey && keyOffset !== undefined ? keyOffset : (next?.range?.[0] ?? keyOffset)) ?? best;
    node = next;
  }
  const pos = manifest.lines.linePos(best);
  return { line: pos.line, column: pos.col };
}
