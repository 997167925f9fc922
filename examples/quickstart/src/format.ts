import type { TranscriptEntry } from './transcript.js';

/** ANSI styles, or no-ops when colour is off. */
export interface Palette {
  bold(text: string): string;
  dim(text: string): string;
  cyan(text: string): string;
  green(text: string): string;
  red(text: string): string;
}

const plain: Palette = {
  bold: (text) => text,
  dim: (text) => text,
  cyan: (text) => text,
  green: (text) => text,
  red: (text) => text,
};

const ansi = (open: number, close: number) => (text: string) => `\u001b[${open}m${text}\u001b[${close}m`;

const coloured: Palette = {
  bold: ansi(1, 22),
  dim: ansi(2, 22),
  cyan: ansi(36, 39),
  green: ansi(32, 39),
  red: ansi(31, 39),
};

/**
 * Colour only on a terminal, and never when `NO_COLOR` is set (https://no-color.org) or
 * `FORCE_COLOR=0`, so piped output and logs stay plain text.
 */
export function choosePalette(stream: { isTTY?: boolean }, env: NodeJS.ProcessEnv): Palette {
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return plain;
  if (env['FORCE_COLOR'] === '0') return plain;
  if (env['FORCE_COLOR'] !== undefined) return coloured;
  return stream.isTTY ? coloured : plain;
}

/** The gutter in front of each line of a tool result, so the exact text stands apart. */
const GUTTER = '  │ ';

/**
 * Renders one call for a terminal: the caption, the tool input as compact JSON (as in a
 * `tool_use` block) and the tool result, each of its lines behind a gutter. The result text itself
 * is printed unchanged (TABs included), so what is between the gutters is byte for byte what the
 * model reads.
 */
export function formatEntry(
  entry: TranscriptEntry,
  index: number,
  count: number,
  palette: Palette = plain,
): string {
  const { step, content, isError } = entry;
  const label = isError ? palette.red('tool_result (is_error: true)') : palette.green('tool_result');
  const lines = [
    palette.bold(`[${index + 1}/${count}] ${step.caption}`),
    `${palette.cyan('tool_use')}  ${JSON.stringify(step.input)}`,
    label,
    ...content.split('\n').map((line) => palette.dim(GUTTER) + line),
  ];
  return lines.join('\n');
}

/** What the demo prints around the calls. */
export interface TranscriptFrame {
  /** How the store was made, e.g. `createFsStore({ root: "examples/quickstart/memory" })`. */
  storeLabel: string;
  /** The folder that holds the memory files (`{root}/memories`), as the user should type it. */
  filesDir: string;
  /** A file of the final tree worth opening, relative to `filesDir`. */
  sampleFile: string;
}

/** The whole printed transcript: a header, every call, and where the files are on disk. */
export function formatTranscript(
  entries: readonly TranscriptEntry[],
  frame: TranscriptFrame,
  palette: Palette = plain,
): string {
  const header = [
    palette.bold("memdir quickstart: a session of Claude's memory tool (memory_20250818)"),
    `Store: ${frame.storeLabel}`,
    palette.dim('Each call shows the tool input Claude sends and the exact tool_result text it reads back.'),
  ].join('\n');
  const calls = entries.map((entry, index) => formatEntry(entry, index, entries.length, palette));
  const footer = [
    palette.bold(`The memory files are on disk in ${frame.filesDir}/`),
    `Try: cat ${frame.filesDir}/${frame.sampleFile}`,
  ].join('\n');
  return [header, ...calls, footer].join('\n\n');
}
