/**
 * The progress display of `switchyard sync`: one line per entity on stderr with a bar, records, pages
 * and rate, redrawn in place on a terminal; plain lines (start, a heartbeat every few seconds, end)
 * when stderr is not a terminal (CI logs, pipes).
 */
import type { SyncPhase, SyncProgress } from './engine.js';

export interface ProgressStream {
  isTTY?: boolean;
  columns?: number;
  write(text: string): unknown;
}

const BAR_WIDTH = 12;

function grouped(value: number): string {
  return Math.round(value).toLocaleString('en-US');
}

/** Records per second, or "-" before there is enough time to tell. */
export function formatRate(records: number, elapsedMs: number): string {
  if (elapsedMs < 200) return '- rec/s';
  const rate = records / (elapsedMs / 1000);
  return `${rate >= 100 ? grouped(rate) : rate.toFixed(1)} rec/s`;
}

export function formatDuration(ms: number): string {
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`;
  const minutes = Math.floor(ms / 60_000);
  const seconds = Math.floor((ms % 60_000) / 1000);
  return `${minutes}m${String(seconds).padStart(2, '0')}s`;
}

/** The bar: full when done, `!` when failed, a block moving with each page while running (the total is unknown). */
export function formatBar(phase: SyncPhase, pages: number): string {
  switch (phase) {
    case 'ready':
      return `[${'#'.repeat(BAR_WIDTH)}]`;
    case 'failed':
      return `[${'!'.repeat(BAR_WIDTH)}]`;
    case 'skipped':
    case 'queued':
      return `[${' '.repeat(BAR_WIDTH)}]`;
    case 'running': {
      const block = 3;
      const span = BAR_WIDTH - block;
      const step = pages % (2 * span);
      const at = step <= span ? step : 2 * span - step;
      return `[${' '.repeat(at)}${'='.repeat(block)}${' '.repeat(span - at)}]`;
    }
  }
}

function details(progress: SyncProgress): string {
  const extra: string[] = [];
  // Full walks are the default and go unmentioned; an incremental one says so (it reads only changes).
  if (progress.mode === 'incremental') extra.push('incremental');
  if (progress.phase === 'ready' || progress.changed > 0) extra.push(`${grouped(progress.changed)} changed`);
  if (progress.deleted > 0) extra.push(`${grouped(progress.deleted)} deleted`);
  return extra.length > 0 ? ` (${extra.join(', ')})` : '';
}

/** The terminal line of one entity: name, bar, phase, records, pages, rate, time. */
export function formatProgressLine(progress: SyncProgress, nameWidth: number): string {
  const counts = `${grouped(progress.records)} records  ${grouped(progress.pages)} pages  ${formatRate(progress.records, progress.elapsedMs)}  ${formatDuration(progress.elapsedMs)}`;
  const tail = progress.reason !== undefined && (progress.phase === 'failed' || progress.phase === 'skipped') ? `  ${progress.reason}` : details(progress);
  return `${progress.entity.padEnd(nameWidth)}  ${formatBar(progress.phase, progress.pages)}  ${progress.phase.padEnd(8)}${progress.phase === 'queued' ? '' : `  ${counts}${tail}`}`.trimEnd();
}

/** The plain (non-terminal) line of one entity. */
export function formatPlainLine(progress: SyncProgress): string {
  const counts = `${grouped(progress.records)} records, ${grouped(progress.pages)} pages, ${formatRate(progress.records, progress.elapsedMs)}, ${formatDuration(progress.elapsedMs)}`;
  switch (progress.phase) {
    case 'queued':
      return `sync ${progress.entity}: queued`;
    case 'running':
      return `sync ${progress.entity}: running, ${counts}${details(progress)}`;
    case 'ready':
      return `sync ${progress.entity}: ready, ${counts}${details(progress)}`;
    case 'failed':
      return `sync ${progress.entity}: failed after ${counts}: ${progress.reason ?? 'unknown error'}`;
    case 'skipped':
      return `sync ${progress.entity}: skipped: ${progress.reason ?? ''}`.trimEnd();
  }
}

function truncate(line: string, columns: number | undefined): string {
  if (columns === undefined || columns < 20 || line.length < columns) return line;
  return `${line.slice(0, columns - 2)}…`;
}

/**
 * Shows the progress of several entities. On a terminal the block of lines is redrawn in place (at most
 * every `redrawMs`, and at every phase change); otherwise each phase change prints a line, and a
 * running entity prints one every `heartbeatMs`.
 */
export class ProgressDisplay {
  private readonly order: string[] = [];
  private readonly latest = new Map<string, SyncProgress>();
  private readonly lastPlain = new Map<string, number>();
  private drawnLines = 0;
  private lastDraw = 0;

  constructor(
    private readonly stream: ProgressStream,
    private readonly options: { now?: () => number; redrawMs?: number; heartbeatMs?: number } = {},
  ) {}

  private now(): number {
    return (this.options.now ?? Date.now)();
  }

  update(progress: SyncProgress): void {
    const previous = this.latest.get(progress.entity);
    if (!previous) this.order.push(progress.entity);
    this.latest.set(progress.entity, progress);
    const phaseChanged = previous?.phase !== progress.phase;
    if (this.stream.isTTY) {
      if (phaseChanged || this.now() - this.lastDraw >= (this.options.redrawMs ?? 100)) this.draw();
      return;
    }
    const last = this.lastPlain.get(progress.entity);
    const heartbeat = this.options.heartbeatMs ?? 5_000;
    if (phaseChanged || (progress.phase === 'running' && (last === undefined || this.now() - last >= heartbeat))) {
      this.lastPlain.set(progress.entity, this.now());
      this.stream.write(`${formatPlainLine(progress)}\n`);
    }
  }

  /** Draws the final state (terminal). */
  finish(): void {
    if (this.stream.isTTY && this.order.length > 0) this.draw();
  }

  private draw(): void {
    this.lastDraw = this.now();
    const width = Math.max(...this.order.map((name) => name.length));
    let text = this.drawnLines > 0 ? `\x1b[${this.drawnLines}A` : '';
    for (const name of this.order) {
      const progress = this.latest.get(name);
      if (progress) text += `\r\x1b[2K${truncate(formatProgressLine(progress, width), this.stream.columns)}\n`;
    }
    this.drawnLines = this.order.length;
    this.stream.write(text);
  }
}
