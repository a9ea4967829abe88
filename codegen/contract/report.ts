/**
 * Formats contract results: a table (connector | spec | actions checked | mismatches | waived),
 * then one line per unwaived mismatch (`connector entity.action: what (where)`), then the
 * waived ones with their reasons.
 */
import { subjectOf, type ConnectorResult, type Mismatch } from './types.js';

export const NO_SPEC = 'no vendor description (cites docs)';

export function mismatchLine(connector: string, m: Mismatch): string {
  return `${connector} ${subjectOf(m)}: ${m.message} (${m.where})`;
}

function table(rows: string[][]): string[] {
  const widths = rows[0]?.map((_, i) => Math.max(...rows.map((r) => (r[i] ?? '').length))) ?? [];
  const line = (r: string[]): string =>
    r
      .map((c, i) => c.padEnd(widths[i] ?? 0))
      .join(' | ')
      .trimEnd();
  const [head, ...body] = rows;
  if (!head) return [];
  return [line(head), widths.map((w) => '-'.repeat(w)).join('-|-'), ...body.map(line)];
}

export function formatReport(results: readonly ConnectorResult[]): string {
  const rows: string[][] = [['connector', 'spec', 'actions checked', 'mismatches', 'waived']];
  for (const r of results) {
    const loadError = r.unwaived.find((m) => m.entity === undefined);
    if (r.spec === undefined && !loadError) {
      rows.push([r.connector, NO_SPEC, '-', '-', '-']);
    } else {
      const spec = r.spec === undefined ? '?' : `${r.spec}${r.format ? ` (${r.format})` : ''}`;
      rows.push([r.connector, spec, String(r.actionsChecked), String(r.unwaived.length), String(r.waived.length)]);
    }
  }
  const out = table(rows);
  if (results.length === 0) out.push('', 'no manifests found');
  const mismatches = results.flatMap((r) => r.unwaived.map((m) => mismatchLine(r.connector, m)));
  const waived = results.flatMap((r) => r.waived.map((w) => `${mismatchLine(r.connector, w.mismatch)} — waived: ${w.waiver.reason}`));
  if (mismatches.length > 0) out.push('', `Mismatches (${mismatches.length}):`, ...mismatches);
  if (waived.length > 0) out.push('', `Waived (${waived.length}):`, ...waived);
  out.push('', mismatches.length > 0 ? `contract: FAILED (${mismatches.length} unwaived)` : 'contract: OK');
  return `${out.join('\n')}\n`;
}

/** 1 when any unwaived mismatch (this includes missing/unreadable spec files and stale waivers). */
export function exitCodeFor(results: readonly ConnectorResult[]): 0 | 1 {
  return results.some((r) => r.unwaived.length > 0) ? 1 : 0;
}
