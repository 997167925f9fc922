// How a failure reaches the operator: a store call's error as the model would read it, then the
// store's own words; the store URLs of the run, whose secrets are scrubbed from every message; and
// the stack MEMDIR_DEBUG asks for. main.ts and every command that calls a store print through here.
import { memoryErrorText, toMemoryToolError } from '@memdir/core';
import { configuredStoreUrl } from './config-file.js';
import { EXIT_FAILED, operatorCause } from './errors.js';
import { type CliIo, write } from './io.js';
import { scrubSecrets } from './store-url.js';

/**
 * Prints a failed store call the way every command does: the text the model would read (SPEC
 * section 7; a hand-written store's raw error becomes the fixed BACKEND text, MEMDIR_DEBUG shows
 * the original), then the store's own words for the operator, secrets scrubbed.
 * @returns the exit code of a failed command (1).
 */
export async function reportToolError(error: unknown, args: readonly string[], io: CliIo): Promise<number> {
  const toolError = toMemoryToolError(error);
  await write(io.stderr, `${memoryErrorText(toolError)}\n`);
  // The operator also hears why, in the store's words (the model's text above never says).
  const cause = operatorCause(toolError);
  if (cause !== undefined) {
    const urls = storeUrlsOf(args, io);
    await write(io.stderr, scrubSecrets(`memdir: the store failed (${toolError.reason}): ${cause}\n`, urls));
  }
  if (io.env.MEMDIR_DEBUG)
    await write(io.stderr, `${stackOf(toolError === error ? ((error as Error).cause ?? error) : error)}\n`);
  return EXIT_FAILED;
}

/**
 * Every store URL a run may use: the values of --store, --from and --to, $MEMDIR_STORE, and the
 * config file's store.
 */
export function storeUrlsOf(argv: readonly string[], io: CliIo): string[] {
  const urls = [io.env.MEMDIR_STORE ?? ''];
  let configFlag: string | undefined;
  for (let index = 0; index < argv.length; index++) {
    const arg = argv[index]!;
    if (arg === '--config') configFlag = argv[index + 1];
    else if (arg.startsWith('--config=')) configFlag = arg.slice('--config='.length);
    const inline = /^--(?:store|from|to)=(.*)$/s.exec(arg);
    if (inline) urls.push(inline[1]!);
    else if (['--store', '-s', '--from', '--to'].includes(arg)) urls.push(argv[index + 1] ?? '');
    else if (arg.startsWith('-s') && arg.length > 2) urls.push(arg.slice(2));
  }
  urls.push(configuredStoreUrl(configFlag, io) ?? '');
  return urls;
}

/** A stack for MEMDIR_DEBUG, with each cause's under it. */
export function stackOf(error: unknown): string {
  const lines: string[] = [];
  let current: unknown = error;
  for (let depth = 0; depth < 8 && current !== undefined && current !== null; depth++) {
    lines.push(`${depth === 0 ? '' : 'caused by: '}${(current as Error).stack ?? String(current)}`);
    current = (current as { cause?: unknown }).cause;
  }
  return lines.join('\n');
}
