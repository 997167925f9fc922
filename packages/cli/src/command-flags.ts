// The own flags of `memdir ui` and `memdir sync` that are settings (settings.ts: each is also
// MEMDIR_<NAME> and a key of the config file's [ui] or [sync] table), as `parseArgs` options. Apart
// from the commands so that the settings can name them without importing what the commands load
// (the server, @memdir/sync), as store-flags.ts is for the store flags.
import type { ParseArgsConfig } from 'node:util';

/** `memdir ui`'s flags besides the store's. */
export const UI_FLAGS = {
  listen: { type: 'string' },
} satisfies NonNullable<ParseArgsConfig['options']>;

/** `memdir sync`'s flags besides the store's (`--json`, one run's output, is no setting). */
export const SYNC_FLAGS = {
  once: { type: 'boolean' },
  interval: { type: 'string' },
  'delete-delay': { type: 'string' },
  deletions: { type: 'string' },
  'read-only': { type: 'boolean' },
} satisfies NonNullable<ParseArgsConfig['options']>;
