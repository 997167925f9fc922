// `memdir conformance MODULE`: an alias of `memdir-conformance`, the runner of @memdir/conformance.
// That package is an optional peer of memdir, like the vitest and fast-check it runs on: `npx memdir
// serve` (what an MCP configuration runs) would otherwise install a test runner, a bundler and native
// binaries. It is found at the moment `conformance` is asked for, in the user's project first (as
// store adapters are), else beside memdir.
import { pathToFileURL } from 'node:url';
import { CliUsageError, EXIT_OK } from './errors.js';
import { COMMAND_HELP } from './help.js';
import { type CliIo, write } from './io.js';
import { resolveFromDirectory } from './store-url.js';

type Runner = typeof import('@memdir/conformance/runner');

const RUNNER = '@memdir/conformance';

/** Runs `memdir conformance` with `args`; the runner's usage errors become the CLI's (exit 2). */
export async function runConformance(args: string[], io: CliIo): Promise<number> {
  const runner = await loadRunner(io.cwd);
  if (runner === undefined) {
    if (args.includes('--help') || args.includes('-h')) {
      await write(io.stdout, `${COMMAND_HELP.conformance}\n`);
      return EXIT_OK;
    }
    throw new CliUsageError(
      'conformance needs @memdir/conformance, vitest and fast-check, which memdir does not install (the store commands and memdir serve do not need a test runner)',
      {
        hint:
          'Install them next to memdir in your project: npm install --save-dev memdir @memdir/conformance vitest fast-check\n' +
          'or run it once with: npx -p memdir -p @memdir/conformance -p vitest -p fast-check memdir conformance ./my-store.ts',
      },
    );
  }
  const command = { name: 'memdir conformance', installs: ['memdir'], help: COMMAND_HELP.conformance! };
  try {
    return await runner.runConformance(args, io, command);
  } catch (error) {
    if (!(error instanceof runner.ConformanceUsageError)) throw error;
    throw new CliUsageError(error.message, error.hint === undefined ? {} : { hint: error.hint });
  }
}

async function loadRunner(cwd: string): Promise<Runner | undefined> {
  try {
    const local = resolveFromDirectory(RUNNER, './runner', cwd);
    return (await import(local === undefined ? `${RUNNER}/runner` : pathToFileURL(local).href)) as Runner;
  } catch (error) {
    if ((error as { code?: unknown }).code === 'ERR_MODULE_NOT_FOUND') return undefined;
    throw error;
  }
}
