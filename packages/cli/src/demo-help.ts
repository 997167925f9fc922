// The help of memdir demo.

export const DEMO_HELP = `Usage: memdir demo [--keep]
       memdir demo --store URL [--namespace NAME] [--force]

Plays a scripted session of Claude's memory tool (memory_20250818) against a real store, offline
and without an API key: Claude checks its memory, records a task, ticks items off, makes a
mistake (a str_replace whose old_str is not unique), reads the error and recovers, then archives
its note and deletes a scratch file. Each call prints the tool input Claude sends and, behind the
gutter ("  │ "), the exact tool_result text it reads back, byte for byte the engine's; then the
files the store holds at the end. Colours and escaped control characters on a terminal only.

By default the store is a new temporary folder (a file: store), removed at the end. A store
given by --store, $MEMDIR_STORE or the config file's store is used instead, but only when it
(or its namespace) holds no file: the demo writes and deletes files. Its files stay there.

      --keep               keep the temporary folder, and say where it is
  -s, --store URL          play it in this store (file:./demo, memory:, redis://...) instead
      --namespace NAME     play it in this namespace of the store
      --force              play it in a store that holds files; it still refuses one where a
                           file it writes already is (it replaces or deletes none of yours)
      --config FILE        the config file (see "memdir config --help")
  -h, --help               show this help

Examples:
  memdir demo
  memdir demo --keep
  memdir demo --store file:./demo-memory
  npx -y memdir demo | less`;
