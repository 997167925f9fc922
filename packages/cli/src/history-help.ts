// The help of memdir log, show, diff, restore and redact.
import { STORE_OPTIONS_HELP } from './help-store.js';

const HISTORY_OUTPUT = `Exit codes: 0 done; 1 the store refused ("Error: {message}" on stderr: an unknown version,
a redacted one); 2 a usage or store problem, or a store that keeps no history ("memdir: {problem}").
TIME is an ISO 8601 time: 2026-12-01, 2026-12-01T09:30:00Z. VERSION is a version id (memver_...),
as log shows them, or the start of one that no other version shares (several: a usage error).`;

/** The help of each history command. */
export const HISTORY_HELP: Record<string, string> = {
  log: `Usage: memdir log [PATH] [--actor ID] [--since TIME] [--until TIME] [--limit N] [--json] [options]

The versions of the store's files, newest first: every change (create, edit, rename, delete,
restore) made a version, with when, who (the actor) and what. PATH narrows to a file or a folder
(versions whose path, or path before a rename, is at or beneath it).

One line per version, in aligned columns: VERSION TIME OPERATION ACTOR BYTES PATH (a rename shows
OLD -> NEW; a redacted version shows "(redacted)"). No content is shown.

      --actor ID           only versions made by this actor id (a token's name under serve --http)
      --since TIME         only versions made at or after TIME (ISO 8601, or 30m, 2h, 7d ago,
                           today, yesterday)
      --until TIME         only versions made at or before TIME
  -n, --limit N            at most N versions (default: all)
      --json               one JSON object per version and line, as the library's store.history()
                           gives them (id, fileId, path, previousPath, operation, sha256, size,
                           createdAt, actor, command, operationId, toolUseId, restoredFrom, redactedAt)

${STORE_OPTIONS_HELP}

${HISTORY_OUTPUT}

Examples:
  memdir log --store redis://127.0.0.1:6379 --namespace alice
  memdir log /memories/notes.md --since 2026-12-01 --json`,

  show: `Usage: memdir show VERSION [--json] [--raw] [options]

One version: what it records ("name: value" lines: version, file, operation, path, time, actor,
command, bytes, sha256...), then a blank line and the file's content after the change (none for a
deletion or a redacted version). Piped, the content is the bytes as stored; on a terminal, control
characters are shown escaped, as view does.

      --json               the version as one JSON object, its content included
      --raw                print control characters as stored, on a terminal too

${STORE_OPTIONS_HELP}

${HISTORY_OUTPUT}

Example:
  memdir show memver_0000000000000042`,

  diff: `Usage: memdir diff VERSION [VERSION] [--raw] [options]

A unified diff (as diff -u and git show it, 3 lines of context) of a file's content. With one
version: what that version's change did, from the version of the same file before it (or from
nothing, /dev/null, for the first). With two: from the first to the second, of any files. Nothing
is printed when the contents are the same. Coloured on a terminal, or anywhere with $FORCE_COLOR
set; never with $NO_COLOR set.

      --raw                print control characters as stored, on a terminal too

${STORE_OPTIONS_HELP}

${HISTORY_OUTPUT}

Examples:
  memdir diff memver_0000000000000042
  memdir diff memver_0000000000000040 memver_0000000000000042 | less -R`,

  restore: `Usage: memdir restore VERSION [--to PATH] [options]

Writes a version's content back, at its own path or at PATH, as a new "restored" version (so a
restore can itself be undone). A deleted file comes back as the same file (its file id). Prints
"Restored VERSION to PATH as NEW_VERSION".

      --to PATH            where the content goes (default: the version's own path)

${STORE_OPTIONS_HELP}

${HISTORY_OUTPUT}

Example:
  memdir restore memver_0000000000000042 --to /memories/notes-before.md`,

  redact: `Usage: memdir redact VERSION [options]

Erases a version's content, path, size and hash for good (what a model must not have kept), and
keeps the rest: its id, time, actor and operation, and when it was redacted. The file itself, as it
is now, is not changed: delete or edit it too if it still holds the text. On a terminal it asks you
to type the version id first; scripts (no terminal) are not asked.

  -y, --yes                erase without asking

${STORE_OPTIONS_HELP}

${HISTORY_OUTPUT}

Example:
  memdir redact memver_0000000000000042`,
};
