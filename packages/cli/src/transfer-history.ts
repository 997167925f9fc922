// `--with-history` of `memdir copy`, `export` and `import`: which side must keep a history, and how
// core's refusals of a history copy read on the command line.
import { isMemoryToolError, type MemoryDriver } from '@memdir/core';
import { CliUsageError } from './errors.js';
import { redactStoreUrl } from './store-url.js';

/**
 * Refuses, with a usage error before anything is read or written, a `--with-history` whose source
 * keeps no history (`from`) or whose target cannot take one (`into`: it needs `importVersions`).
 * @throws CliUsageError
 */
export function requireHistory(
  command: 'copy' | 'export' | 'import',
  role: 'from' | 'into',
  url: string,
  driver: MemoryDriver,
): void {
  const hint = {
    hint: `Run it without --with-history to ${command} the files alone; the memdir README ("History") lists the stores that keep one.`,
  };
  if (driver.capabilities.history !== true) {
    throw new CliUsageError(
      `${command} --with-history: the ${role === 'from' ? 'source' : 'target'} store ${redactStoreUrl(url)} keeps no history (its driver does not declare capabilities.history)`,
      hint,
    );
  }
  if (role === 'into' && typeof driver.importVersions !== 'function') {
    throw new CliUsageError(
      `${command} --with-history: the target store ${redactStoreUrl(url)} keeps a history but cannot take one from elsewhere (its driver has no importVersions)`,
      hint,
    );
  }
}

/**
 * Core's refusal of a history copy (`CONFLICT`: the target has a history of its own, or gained
 * versions during the copy; `UNSUPPORTED`), in the CLI's words without core's prefix; undefined for
 * any other error.
 */
export function historyRefusal(error: unknown): string | undefined {
  // Only the history's copy lets these codes out of copyStore (a file's CONFLICT is retried there).
  if (!isMemoryToolError(error) || (error.code !== 'CONFLICT' && error.code !== 'UNSUPPORTED'))
    return undefined;
  return error.message.replace(/^copyStore withHistory: /, '').replace(/\.$/, '');
}
