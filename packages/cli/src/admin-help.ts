// The help of memdir namespaces, usage, drop and sweep.
import { STORE_OPTIONS_HELP } from './help-store.js';

const ADMIN_OUTPUT = `Exit codes: 0 done; 1 the store failed ("Error: {message}" on stderr); 2 a usage or store
problem, or a store with no admin operations ("memdir: {problem}").`;

/** The help of each admin command. */
export const ADMIN_HELP: Record<string, string> = {
  namespaces: `Usage: memdir namespaces [--prefix P] [--json] [options]

The namespaces of the store that hold anything (files or versions), one name a line, in byte order.

      --prefix P           only names that start with P
      --json               the names as one JSON array

${STORE_OPTIONS_HELP}

${ADMIN_OUTPUT}

Example:
  memdir namespaces --store redis://127.0.0.1:6379 --prefix user-`,

  usage: `Usage: memdir usage [--namespace N | --all] [--json] [options]

What a namespace holds: files, bytes (UTF-8, hidden files included), versions kept, and when a file
last changed, from the store's counters (no walk of the files). Without --namespace: the store's
default space (what stores without a namespace use). With --all: every namespace (the default
space first, when it holds anything), one row each.

A table: NAMESPACE FILES BYTES VERSIONS LAST CHANGE (ISO 8601, or - when nothing ever changed).

      --namespace N        the namespace
      --all                every namespace
      --json               one JSON object ({namespace, files, bytes, versions, lastChangeAt}), or
                           with --all an array of them

${STORE_OPTIONS_HELP}

${ADMIN_OUTPUT}

Examples:
  memdir usage --store redis://127.0.0.1:6379 --namespace alice
  memdir usage --store redis://127.0.0.1:6379 --all`,

  drop: `Usage: memdir drop --namespace N [--yes] [options]

Erases a namespace for good: every file, folder and version, and whatever the store keeps for it,
in bounded batches, then checks that nothing is left. Other namespaces are untouched, also those
whose name starts with N. Interrupted (Ctrl-C, a lost connection), run it again: it finishes.
On a terminal it asks first (type the namespace's name); elsewhere (a script, CI) it needs --yes.
Progress on stderr.

      --namespace N        the namespace to erase (required)
  -y, --yes                do not ask

${STORE_OPTIONS_HELP}

${ADMIN_OUTPUT}

Example:
  memdir drop --store redis://127.0.0.1:6379 --namespace user-17 --yes`,

  sweep: `Usage: memdir sweep [--expire-days N] [--json] [options]

The upkeep of the default space and every namespace, in bounded batches: with --expire-days,
files not changed for N days are removed (each recorded as a deletion by actor service:memdir);
then versions beyond the retention (the 20 newest of each file, and 30 days) are pruned. Run it
from cron or a scheduled job. Progress on stderr; at the end one line on stdout:
"Swept N namespaces: E files expired, P versions pruned".

      --expire-days N      remove files not changed for N days (default: nothing expires)
      --json               the report as one JSON object ({namespaces, expired, pruned})

${STORE_OPTIONS_HELP}

${ADMIN_OUTPUT}

Example:
  memdir sweep --store redis://127.0.0.1:6379 --expire-days 90`,
};
