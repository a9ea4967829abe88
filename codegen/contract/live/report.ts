/** Formats the live conformance results: one line per vendor description, then every finding. */
import type { LiveFinding, LiveSpecResult } from './run.js';

export function findingLine(f: LiveFinding): string {
  return `${f.connector}${f.action !== undefined ? ` ${f.action}` : ''}: [${f.kind}] ${f.message}${f.request !== undefined ? ` (${f.request})` : ''}`;
}

export function specLine(r: LiveSpecResult): string {
  return `${r.spec} (${r.connectors.join(', ')}): ${r.actions} actions, ${r.requests} requests, ${r.findings.length} findings, ${(r.ms / 1000).toFixed(1)} s`;
}

export function formatLiveReport(
  out: { results: readonly LiveSpecResult[]; unnamed: readonly string[]; archived: readonly string[] },
  totalMs: number,
): string {
  const lines: string[] = ['Live conformance against Prism mocks of the vendor OpenAPI descriptions', ''];
  for (const r of out.results) lines.push(specLine(r));
  for (const spec of out.unnamed) lines.push(`${spec}: no manifest names it; not run`);
  for (const spec of out.archived) lines.push(`${spec}: an OpenAPI file inside an archive; no manifest names it`);
  const workarounds = new Map<string, number>();
  for (const r of out.results) for (const [w, n] of r.workarounds) workarounds.set(w, (workarounds.get(w) ?? 0) + n);
  if (workarounds.size > 0) {
    lines.push('', 'Prism limits worked around:');
    for (const [w, n] of workarounds) lines.push(`  ${n}x ${w}`);
  }
  const notes = out.results.flatMap((r) => r.notes);
  if (notes.length > 0) lines.push('', `Not checkable from the vendor description (${notes.length}, not failures):`, ...notes.map(findingLine));
  const waived = out.results.flatMap((r) => r.waived);
  if (waived.length > 0) lines.push('', `Waived (${waived.length}):`, ...waived.map((w) => `${findingLine(w.finding)} — waived: ${w.reason}`));
  const findings = out.results.flatMap((r) => r.findings);
  if (findings.length > 0) lines.push('', `Findings (${findings.length}):`, ...findings.map(findingLine));
  const requests = out.results.reduce((n, r) => n + r.requests, 0);
  lines.push(
    '',
    `${findings.length > 0 ? `contract --live: FAILED (${findings.length} findings)` : 'contract --live: OK'}, ${requests} requests in ${(totalMs / 1000).toFixed(1)} s`,
  );
  return `${lines.join('\n')}\n`;
}
