// `memdir view` on a terminal: what a model wrote is shown with its control characters escaped, so
// an escape sequence in a memory file cannot act on the operator's terminal. `script` (util-linux)
// runs the CLI on a pseudo-terminal, as a person would; piped, the bytes are exact.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { createFsStore } from '@memdir/fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { escapeControls } from '../src/terminal.js';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';

const exec = promisify(execFile);
let folder: { path: string; remove: () => Promise<void> };
let store: string;

const HOSTILE =
  'title \u001b]0;owned\u0007 red \u001b[31mRED\u001b[0m clear \u001b[2J\ttab\r\nbell \u0007 del \u007f csi \u009b1m\n';

beforeAll(async () => {
  folder = await tempFolder();
  store = `file:${join(folder.path, 'memory')}`;
  const fs = createFsStore({ root: join(folder.path, 'memory') });
  await fs.create({ command: 'create', path: '/memories/hostile.md', file_text: HOSTILE });
  await fs.create({ command: 'create', path: '/memories/name\u009b2J.md', file_text: 'x' });
  await fs.close();
});
afterAll(() => folder.remove());

/** `memdir ...args` on a pseudo-terminal; the terminal's CR LF line ends are turned back into LF. */
async function onTerminal(args: string[]): Promise<string> {
  const quoted = [process.execPath, BIN, ...args].map((arg) => `'${arg.replaceAll("'", "'\\''")}'`).join(' ');
  const { stdout } = await exec('script', ['-qec', quoted, '/dev/null'], { env: cliEnv(), encoding: 'utf8' });
  return stdout.replaceAll('\r\n', '\n');
}

const numbered = (content: string) =>
  content
    .split('\n')
    .map((line, index) => `${String(index + 1).padStart(6)}\t${line}`)
    .join('\n');

describe('memdir view on a terminal', () => {
  it('shows control characters other than tab and newline escaped (\\x1b), in content and in names', async () => {
    const shown = await onTerminal(['view', '/memories/hostile.md', '--store', store]);
    expect(shown).toBe(
      `Here's the content of /memories/hostile.md with line numbers:\n${numbered(escapeControls(HOSTILE))}\n`,
    );
    expect(shown).toContain('red \\x1b[31mRED\\x1b[0m clear \\x1b[2J\ttab\\x0d\n');
    expect(shown).toContain('csi \\u009b1m');
    expect(shown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
    const listing = await onTerminal(['view', '--store', store]);
    expect(listing).toContain('/memories/name\\u009b2J.md');
    expect(listing).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/);
  });

  it('--raw prints the content as stored', async () => {
    const shown = await onTerminal(['view', '/memories/hostile.md', '--raw', '--store', store]);
    expect(shown).toBe(
      `Here's the content of /memories/hostile.md with line numbers:\n${numbered(HOSTILE)}\n`,
    );
  });

  it('piped, the output is byte-exact', async () => {
    const piped = await runCli(['view', '/memories/hostile.md', '--store', store]);
    expect(piped.code).toBe(0);
    expect(piped.stdout).toBe(
      `Here's the content of /memories/hostile.md with line numbers:\n${numbered(HOSTILE)}\n`,
    );
  });
});
