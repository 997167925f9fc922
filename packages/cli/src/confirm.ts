// Questions to the person at the terminal before a change that cannot be undone (`drop`, `redact`):
// asked only when both stdin and stderr are terminals, answered by typing the name of what goes.
import { createInterface } from 'node:readline';
import { type CliIo, write } from './io.js';
import { isTerminal } from './terminal.js';

/** True when a person can be asked: stdin and stderr are both terminals. */
export function canAsk(io: CliIo): boolean {
  return isTerminal(io.stderr) && (io.stdin as { isTTY?: boolean }).isTTY === true;
}

/** Asks on the terminal; true when the answer is `expected` (an end of input is a no). */
export async function confirmed(io: CliIo, question: string, expected: string): Promise<boolean> {
  await write(io.stderr, question);
  // Listened to at once: a line that came before a listener would be lost.
  const lines = createInterface({ input: io.stdin, terminal: false });
  const answer = await new Promise<string | undefined>((resolve) => {
    lines.once('line', resolve);
    lines.once('close', () => resolve(undefined));
  });
  lines.close();
  return answer?.trim() === expected;
}
