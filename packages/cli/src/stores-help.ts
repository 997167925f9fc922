// The help of memdir stores.

export const STORES_HELP = `Usage: memdir stores list [--include-archived] [--store URL] [--json]
       memdir stores create NAME [--description TEXT] [--metadata KEY=VALUE ...] [--store URL] [--json]
       memdir stores show ID [--store URL] [--json]
       memdir stores archive ID [--store URL] [--json]
       memdir stores delete ID [--yes] [--store URL] [--json]

The memory stores of the memory stores API (/v1/memory_stores, what "memdir serve --http" serves)
on the store at URL, without a server: list them (newest first), create one, show one, archive one
(from then on it is read-only, to the API and to the memory tool), or delete one (its memories and
versions are erased for good: confirmed on a terminal, --yes elsewhere). A store's memories are the
files of the namespace named by its id ("memdir view --namespace ID" shows them).

  -s, --store URL            the store (default: $MEMDIR_STORE, else file:./memory)
      --description TEXT     create: the store's description
      --metadata KEY=VALUE   create: a metadata pair (repeat for more, at most 16)
      --include-archived     list: archived stores too
      --yes                  delete: do not ask
      --json                 print the API's objects as JSON, one per line
  -h, --help                 show this help

Examples:
  memdir stores create "Support agent" --metadata team=support --store postgres://db/memdir
  memdir stores list --store postgres://db/memdir`;
