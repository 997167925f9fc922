// The options, events and summary of a sync pass.

/** What a pass did to one file. */
export interface SyncEvent {
  readonly kind:
    | 'sent'
    | 'received'
    | 'deleted'
    | 'conflict'
    | 'skipped'
    | 'delete-logged'
    | 'emptied'
    | 'error';
  /** Relative to DIR (`notes/a.md` is `/memories/notes/a.md`). */
  readonly path: string;
  readonly detail?: string | undefined;
}

/** What a pass did: counts, and each file's event. */
export interface SyncSummary {
  sent: number;
  received: number;
  deleted: number;
  conflicts: number;
  /** Files skipped for the first time (or since they changed). */
  skipped: number;
  events: SyncEvent[];
  durationMs?: number;
}

export interface SyncOptions {
  /** Who the store is (its URL without credentials): DIR is bound to it, and refused to any other. */
  storeId: string;
  /** The namespace, part of the binding. @default null */
  namespace?: string | null | undefined;
  /** Seconds a file must stay missing, and be missing again at a re-check, before its delete is sent. @default 30 */
  deleteDelay?: number | undefined;
  /** Whether local deletes reach the store: `log-only` reports them, `disabled` downloads the file again. @default 'enabled' */
  deletions?: 'enabled' | 'log-only' | 'disabled' | undefined;
  /** Pull only: nothing is written to the store. @default false */
  readOnly?: boolean | undefined;
  /** Files larger than this many bytes are skipped. @default 1048576 (the store's default maxFileBytes) */
  maxFileBytes?: number | undefined;
  /** The machine's name, in conflict file names and the actor of versions. @default os.hostname() */
  host?: string | undefined;
  /** Each file's event as it happens (--verbose, --json). */
  onEvent?: ((event: SyncEvent) => void) | undefined;
  /** The clock (tests). @default Date.now */
  now?: (() => number) | undefined;
}

/** One line for a pass that changed something, or null when it changed nothing. */
export function formatSummary(summary: SyncSummary): string | null {
  const { sent, received, deleted, conflicts, skipped } = summary;
  if (sent + received + deleted + conflicts + skipped === 0) return null;
  return `sync: ${sent} sent, ${received} received, ${deleted} deleted, ${conflicts} conflicts, ${skipped} skipped`;
}
