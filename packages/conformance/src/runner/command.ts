// Who runs the suite and where it writes: the standalone `memdir-conformance`, or the memdir CLI's
// `memdir conformance`, which names itself in hints and progress lines and prints its own help.
import type { Writable } from 'node:stream';
import { conformanceHelp } from './help.js';

/** The process surroundings a run uses (the memdir CLI's own io fits), so it can be embedded and tested. */
export interface RunnerIo {
  stdout: Writable;
  stderr: Writable;
  cwd: string;
}

/**
 * How the command that runs the suite presents itself: `memdir-conformance` on its own, `memdir
 * conformance` in the memdir CLI.
 */
export interface RunnerCommand {
  /** As the user types it, in hints and progress lines. */
  name: string;
  /** The packages to install beside vitest and fast-check, in the hint when they are missing. */
  installs: readonly string[];
  /** What `--help` prints. */
  help: string;
}

/** The standalone command. */
export const STANDALONE: RunnerCommand = {
  name: 'memdir-conformance',
  installs: ['@memdir/conformance'],
  help: conformanceHelp('memdir-conformance'),
};
