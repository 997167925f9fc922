// `pnpm demo`: plays the session of session.ts against the filesystem store in
// examples/quickstart/memory and prints the transcript. Offline; the same output on every run.
import { rm } from 'node:fs/promises';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFsStore } from '@memdir/fs';
import { choosePalette, formatTranscript } from './format.js';
import { session } from './session.js';
import { runSession } from './transcript.js';

// The package folder, whether this runs from dist/ or src/.
const packageDir = fileURLToPath(new URL('..', import.meta.url));
const root = path.join(packageDir, 'memory');

// Start from an empty store so every run prints the same transcript (the folder is git-ignored).
await rm(root, { recursive: true, force: true });

const store = createFsStore({ root });
let entries: Awaited<ReturnType<typeof runSession>>;
try {
  entries = await runSession(store, session);
} finally {
  await store.close();
}

// pnpm sets INIT_CWD to where the user typed the command (the repo root for `pnpm demo`).
const userDir = process.env['INIT_CWD'] ?? process.cwd();
// Show the folder relative to there when it is beneath it, else as an absolute path.
const relative = path.relative(userDir, root);
const shown = relative === '' || relative.startsWith('..') || path.isAbsolute(relative) ? root : relative;
const palette = choosePalette(process.stdout, process.env);
process.stdout.write(
  `${formatTranscript(
    entries,
    {
      storeLabel: `createFsStore({ root: ${JSON.stringify(shown)} })`,
      filesDir: path.join(shown, 'memories'),
      sampleFile: 'archive/checkout-retry.md',
    },
    palette,
  )}\n`,
);
