// How `memdir demo` (and examples/quickstart) prints a session: each call's caption, the tool input
// as compact JSON (as in a `tool_use` block), and the tool result behind a gutter, each of its lines
// byte for byte what the model reads; then the files the session left. Colours only when asked (on a
// terminal without $NO_COLOR); on a terminal, what a store gave back is shown with its control
// characters escaped (terminal.ts), since a store that was not empty may hold what a model wrote.
import type { DemoEntry } from './demo-session.js';
import { escapeControls } from './terminal.js';

/** How the text is shown: coloured, and with control characters escaped (both: a terminal). */
export interface DemoLook {
  colour: boolean;
  escape: boolean;
}

/** Plain text, the exact bytes: what a pipe or a file gets. */
export const PLAIN_LOOK: DemoLook = { colour: false, escape: false };

/** The gutter in front of each line of a tool result or a file, so the exact text stands apart. */
export const GUTTER = '  │ ';

const SGR = { bold: [1, 22], dim: [2, 22], cyan: [36, 39], green: [32, 39], red: [31, 39] } as const;

function paint(look: DemoLook, style: keyof typeof SGR, text: string): string {
  if (!look.colour) return text;
  const [open, close] = SGR[style];
  return `\u001b[${open}m${text}\u001b[${close}m`;
}

/** `text` behind the gutter, a line each (a final newline makes no empty line). */
function behindGutter(text: string, look: DemoLook): string[] {
  const shown = look.escape ? escapeControls(text) : text;
  const lines = shown.split('\n');
  if (lines.length > 1 && lines.at(-1) === '') lines.pop();
  return lines.map((line) => paint(look, 'dim', GUTTER) + line);
}

/** One call: `[3/12] caption`, `tool_use  {...}`, `tool_result` and the result behind the gutter. */
export function formatDemoEntry(entry: DemoEntry, index: number, count: number, look = PLAIN_LOOK): string {
  const { step, content, isError } = entry;
  const label = isError
    ? paint(look, 'red', 'tool_result (is_error: true)')
    : paint(look, 'green', 'tool_result');
  return [
    paint(look, 'bold', `[${index + 1}/${count}] ${step.caption}`),
    `${paint(look, 'cyan', 'tool_use')}  ${JSON.stringify(step.input)}`,
    label,
    // The result text is split on newlines only: TABs and a final newline stay as they are.
    ...content
      .split('\n')
      .map((line) => paint(look, 'dim', GUTTER) + (look.escape ? escapeControls(line) : line)),
  ].join('\n');
}

/** A file the session left, as the demo prints it. */
export interface DemoFile {
  path: string;
  content: string;
}

/** What the demo prints around the calls. */
export interface DemoFrame {
  /** The store, as it may be shown (no secret): `file:/tmp/memdir-demo-x (a temporary folder ...)`. */
  store: string;
  /** The files in the store at the end, or undefined when the store cannot list them. */
  files: readonly DemoFile[] | undefined;
  /** Lines said last: where the files are, or that the folder is gone. */
  footer: readonly string[];
}

/** The whole transcript: a header, every call, the files left and the footer. */
export function formatDemo(entries: readonly DemoEntry[], frame: DemoFrame, look = PLAIN_LOOK): string {
  const header = [
    paint(look, 'bold', "memdir demo: a scripted session of Claude's memory tool (memory_20250818), offline"),
    `Store: ${look.escape ? escapeControls(frame.store) : frame.store}`,
    paint(
      look,
      'dim',
      'Each call shows the tool input Claude sends and, behind the gutter, the exact tool_result text it reads back.',
    ),
  ].join('\n');
  const calls = entries.map((entry, index) => formatDemoEntry(entry, index, entries.length, look));
  const parts = [header, ...calls];
  if (frame.files !== undefined) {
    const count = `${frame.files.length} file${frame.files.length === 1 ? '' : 's'}`;
    parts.push(
      [
        paint(look, 'bold', `The store holds ${count} at the end:`),
        ...frame.files.flatMap((file) => [
          `${paint(look, 'cyan', look.escape ? escapeControls(file.path) : file.path)} (${Buffer.byteLength(file.content)} bytes)`,
          ...behindGutter(file.content, look),
        ]),
      ].join('\n'),
    );
  }
  if (frame.footer.length > 0) parts.push(frame.footer.join('\n'));
  return `${parts.join('\n\n')}\n`;
}
