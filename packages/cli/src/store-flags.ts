// The store flags every store command takes (--store, --namespace, the limits, --verbose, --actor),
// as `parseArgs` options. Apart from store-command.ts so that the settings (settings.ts) can name
// them without importing what opens a store.
import type { ParseArgsConfig } from 'node:util';

/** The store options every store command takes. */
export const STORE_OPTIONS = {
  store: { type: 'string', short: 's' },
  namespace: { type: 'string' },
  overwrite: { type: 'boolean' },
  'no-overwrite': { type: 'boolean' },
  'max-file-bytes': { type: 'string' },
  'max-view-chars': { type: 'string' },
  verbose: { type: 'boolean' },
  actor: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
} satisfies NonNullable<ParseArgsConfig['options']>;
