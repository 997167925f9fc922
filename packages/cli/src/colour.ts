// Colours for people at a terminal, through Node's own `util.styleText` (no escape codes written by
// hand), and the one rule for when to use them: `NO_COLOR` (any non-empty value) turns them off,
// `FORCE_COLOR` (other than `0` or `false`) turns them on off a terminal, and otherwise only a
// terminal gets them. The decision is memdir's (styleText is told not to look at process.stdout
// itself), so it follows the stream and the environment a command was given.
import type { Writable } from 'node:stream';
import { styleText } from 'node:util';
import { isTerminal } from './terminal.js';

/** A style of `util.styleText`: `red`, `bold`, `cyan`... */
export type Style = Parameters<typeof styleText>[0];

/** Whether text written to `stream` gets colours, given the command's environment `env`. */
export function wantsColour(stream: Writable, env: Readonly<Record<string, string | undefined>>): boolean {
  if (env.NO_COLOR) return false;
  const forced = env.FORCE_COLOR;
  if (forced !== undefined && forced !== '') return forced !== '0' && forced !== 'false';
  return isTerminal(stream);
}

/** `text` in `style` (the caller has decided that colours are wanted). */
export function paint(style: Style, text: string): string {
  return styleText(style, text, { validateStream: false });
}
