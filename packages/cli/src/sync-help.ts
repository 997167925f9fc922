// The help of memdir sync.

export const SYNC_HELP = `Usage: memdir sync DIR --store URL [--namespace NS] [--once] [--interval SECONDS]
                  [--delete-delay SECONDS] [--deletions enabled|log-only|disabled] [--read-only]
                  [--verbose] [--json]

Keeps the folder DIR and the store in step, both ways, until SIGINT or SIGTERM (which stop it
after the pass under way; a second one at once): DIR/notes.md is /memories/notes.md. A pass runs at once, every
--interval seconds, and soon after a change in DIR. DIR/.memdir-sync/ holds what both sides last
agreed on and binds DIR to this store and namespace: a folder bound to another is refused.
When both sides changed a file, the store's text wins and the local one is kept: as a version in
the store's history (by memdir-sync@HOST), or beside the file as NAME.conflict-HOST-TIME.md.
Symlinks, special files, text that is not UTF-8 and files over --max-file-bytes are skipped, with
one message each until they change. Nothing outside DIR is read or written.

      --once                   one pass, then exit (for cron and scripts)
      --interval SECONDS       seconds between passes (default: 15)
      --delete-delay SECONDS   a file deleted in DIR must stay missing this long, and be missing
                               again at a re-check, before it is deleted from the store (default: 30)
      --deletions MODE         enabled (default); log-only: report deletes in DIR, send none;
                               disabled: download deleted files again
      --read-only              pull only: nothing is written to the store
      --verbose                one line per file sent, received or deleted (and the store's reports
                               on stderr)
      --json                   one JSON object per pass that changed something: the counts and
                               each file's event
  -s, --store URL              the store (default: $MEMDIR_STORE, else file:./memory); not inside DIR
      --namespace NAME         keep to this namespace of the store
      --max-file-bytes N       largest file synced (default: 1048576, as the store)
  -h, --help                   show this help
  Each of these but --json is also MEMDIR_<NAME> (MEMDIR_INTERVAL, MEMDIR_READ_ONLY=1) and a key
  of the config file: once, interval, delete-delay, deletions and read-only in its [sync] table,
  the store's at the top; a flag wins over the environment, the environment over the file
  ("memdir config --help").

Output: one line per pass that changed something, on stdout:
  sync: 2 sent, 1 received, 0 deleted, 1 conflicts, 0 skipped
Skipped files, conflicts and failures of one file are said on stderr ("memdir: sync: ...").
Exit codes: 0 done (or stopped by a signal); 1 a pass with a failed file (--once), or a store that
failed; 2 a usage problem, a store that does not answer, DIR bound to another store, or another
memdir sync's pass on DIR still running after 30 s (passes on one folder never overlap).

Example:
  memdir sync ~/.claude/memory --store postgres://memdir@db.internal/memdir --namespace team`;
