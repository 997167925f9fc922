// What the operator's terminal is shown of text a model wrote. File content goes to stdout as the
// model wrote it, and a terminal acts on control characters: an escape sequence in a memory file
// could recolour, retitle or rewrite the screen, or answer back through the terminal. Shown on a
// terminal, every control character but tab and newline is written as an escape (`\x1b`), as `git`
// and `ls` do; piped or with `--raw`, the bytes are left alone.
import type { Writable } from 'node:stream';

/** True when `stream` is a terminal (a TTY), where control characters would act. */
export function isTerminal(stream: Writable): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/**
 * `text` with every C0 control character but tab and newline, DEL and every C1 control character
 * written as an escape: `\x1b`, `\x7f`, `\u009b`.
 */
export function escapeControls(text: string): string {
  return text.replace(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g, (character) => {
    const code = character.charCodeAt(0);
    return code < 0x80
      ? `\\x${code.toString(16).padStart(2, '0')}`
      : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
