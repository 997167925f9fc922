#!/usr/bin/env node
// `memdir-conformance MODULE [options]`: the conformance suite on a store module, from a shell.
// A usage problem prints `conformance: ...` and its hint on stderr, exit 2.
import { EXIT_USAGE, runConformance } from './run.js';
import { ConformanceUsageError } from './usage-error.js';

try {
  process.exitCode = await runConformance(process.argv.slice(2), {
    stdout: process.stdout,
    stderr: process.stderr,
    cwd: process.cwd(),
  });
} catch (error) {
  if (!(error instanceof ConformanceUsageError)) throw error;
  process.stderr.write(`${error.message}\n${error.hint === undefined ? '' : `${error.hint}\n`}`);
  process.exitCode = EXIT_USAGE;
}
