#!/usr/bin/env node
// The `memdir` executable: the command line of main.ts on this process, with V8's collector at hand.
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { run } from './main.js';
import { setGarbageCollector } from './memory.js';

// V8's collector, for copy, export and import to stay within a bounded footprint (memory.ts). The
// flag takes effect for contexts made after it is set, hence the new context.
setFlagsFromString('--expose-gc');
setGarbageCollector(runInNewContext('gc') as () => void);

// A reader that stops reading (`memdir export | head -c 100`) ends the run quietly, with the status a
// shell gives a program its broken pipe stopped (128 + SIGPIPE), not a stack trace: whatever the
// command still had to say has nowhere to go.
const EXIT_BROKEN_PIPE = 141;
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(EXIT_BROKEN_PIPE);
  throw error;
});

process.exitCode = await run(process.argv.slice(2));
