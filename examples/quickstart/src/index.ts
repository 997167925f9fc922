// `pnpm demo`: the session `memdir demo` plays (the CLI publishes it: DEMO_SESSION, playDemoSession
// and formatDemo from the `memdir` package), played here through the library against the
// filesystem store in examples/quickstart/memory, which stays for you to open. Offline; the same
// output on every run.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFsStore } from '@memdir/fs';
import { DEMO_SESSION, formatDemo, playDemoSession } from 'memdir';

// The package folder, whether this runs from dist/ or src/.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const root = path.join(packageDir, 'memory');

// Start from an empty store so every run prints the same transcript (the folder is git-ignored).
await rm(root, { recursive: true, force: true });

const store = createFsStore({ root });
let entries: Awaited<ReturnType<typeof playDemoSession>>;
try {
  entries = await playDemoSession(store, DEMO_SESSION);
} finally {
  await store.close();
}

// pnpm sets INIT_CWD to where the user typed the command (the repo root for `pnpm demo`).
const userDir = process.env['INIT_CWD'] ?? process.cwd();
// Show the folder relative to there when it is beneath it, else as an absolute path.
const relative = path.relative(userDir, root);
const shown = relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? root : relative;
const terminal = process.stdout.isTTY === true;
const files = path.join(shown, 'memories');
process.stdout.write(
  formatDemo(
    entries,
    {
      store: `createFsStore({ root: ${JSON.stringify(shown)} })`,
      files: undefined,
      footer: [
        `The memory files are on disk in ${files}/`,
        `Try: cat ${path.join(files, 'archive', 'checkout-retry.md')}`,
      ],
    },
    { colour: terminal && !process.env['NO_COLOR'], escape: terminal },
  ),
);
