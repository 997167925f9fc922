// Progress of long work (copy, export, import) on stderr: on a terminal, one line redrawn in place
// with a bar, the files and bytes done, the rate and the time left; otherwise (a log, CI) a plain
// line every few seconds, so the output stays readable when redirected.
//
// Kept over cli-progress (3.12.0, its latest, of June 2024) or listr2 (issue 35): the bar, the rate
// and the time left are a few lines here, and what matters is around them: the plain line off a
// terminal (`memdir: phase: counts (50%), 3s left`, one every 2 s, which logs and CI read and tests
// assert), phases that end the redrawn line and start a new one, a count shown without a bar while
// the total is not known (an archive being read), and the pace set by files, not bytes. cli-progress
// draws its own bar format and, off a terminal, either nothing or the same bar again. The escape
// code of the redraw is Node's own (readline's clearLine).
import { clearLine } from 'node:readline';
import type { Writable } from 'node:stream';

/** Replaces the line the cursor is on with `line` (Node's readline clears it: no escape codes by hand). */
export function redrawLine(stream: Writable, line: string): void {
  stream.write('\r');
  clearLine(stream, 0);
  stream.write(line);
}

/** Where the work stands. */
export interface ProgressState {
  /** What is being done: `copy`, `verify`, `export`... */
  phase: string;
  /**
   * What `files` and `totalFiles` count; bytes are shown with files only.
   * @default 'files'
   */
  unit?: 'files' | 'versions';
  files: number;
  /** NaN while the total is not known: the count is shown alone, without a bar. */
  totalFiles: number;
  bytes: number;
  totalBytes: number;
}

/** Formats a byte count for people: `512 B`, `1.5 KiB`, `12.3 MiB`. */
export function humanBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit++;
  }
  return unit === 0 ? `${value} B` : `${value.toFixed(1)} ${units[unit]}`;
}

function duration(seconds: number): string {
  if (!Number.isFinite(seconds)) return '?';
  const whole = Math.max(0, Math.round(seconds));
  const minutes = Math.floor(whole / 60);
  return minutes > 0 ? `${minutes}m${String(whole % 60).padStart(2, '0')}s` : `${whole}s`;
}

/** A progress reporter on `stream`; `tty` picks the redrawn bar over plain lines. */
export class ProgressReporter {
  readonly #stream: Writable;
  readonly #tty: boolean;
  readonly #started = Date.now();
  #phaseStarted = Date.now();
  #phase = '';
  #lastLine = 0;
  #drawn = false;

  constructor(stream: Writable, options: { tty: boolean; intervalMs?: number }) {
    this.#stream = stream;
    this.#tty = options.tty;
    this.#interval = options.intervalMs ?? (options.tty ? 100 : 2000);
  }

  readonly #interval: number;

  /** Reports `state`; lines are rate-limited unless `force` (the end of a phase). */
  update(state: ProgressState, force = false): void {
    const now = Date.now();
    if (state.phase !== this.#phase) {
      if (this.#drawn && this.#tty) this.#stream.write('\n');
      this.#drawn = false;
      this.#phase = state.phase;
      this.#phaseStarted = now;
      this.#lastLine = 0;
    }
    if (!force && now - this.#lastLine < this.#interval) return;
    this.#lastLine = now;
    const seconds = Math.max((now - this.#phaseStarted) / 1000, 0.001);
    const fraction = state.totalFiles > 0 ? state.files / state.totalFiles : 1;
    // Files, not bytes, set the pace of small files (each is a few round trips whatever its size);
    // no estimate before a second has passed.
    const left =
      fraction >= 1
        ? '0s'
        : seconds < 1 || fraction === 0
          ? '?'
          : duration((seconds / fraction) * (1 - fraction));
    const unit = state.unit ?? 'files';
    const rate =
      seconds < 1 ? '' : `, ${Math.round(state.files / seconds).toLocaleString('en-US')} ${unit}/s`;
    const bytes = unit === 'files' ? `, ${humanBytes(state.bytes)}/${humanBytes(state.totalBytes)}` : '';
    if (Number.isNaN(state.totalFiles)) {
      const line = `${state.phase}: ${state.files.toLocaleString('en-US')} ${unit}${rate}`;
      if (this.#tty) {
        redrawLine(this.#stream, line);
        this.#drawn = true;
      } else this.#stream.write(`memdir: ${line}\n`);
      return;
    }
    const counts = `${state.files.toLocaleString('en-US')}/${state.totalFiles.toLocaleString('en-US')} ${unit}${bytes}${rate}`;
    if (this.#tty) {
      const width = 24;
      const filled = Math.round(Math.min(1, fraction) * width);
      const bar = `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}]`;
      const line = `${state.phase.padEnd(7)} ${bar} ${(fraction * 100).toFixed(0).padStart(3)}%  ${counts}, ${left} left`;
      redrawLine(this.#stream, line);
      this.#drawn = true;
    } else {
      this.#stream.write(
        `memdir: ${state.phase}: ${counts} (${(fraction * 100).toFixed(0)}%), ${left} left\n`,
      );
    }
  }

  /** Ends the redrawn line, if any; the time since the reporter was made. */
  finish(): string {
    if (this.#drawn && this.#tty) this.#stream.write('\n');
    this.#drawn = false;
    return duration((Date.now() - this.#started) / 1000);
  }
}
