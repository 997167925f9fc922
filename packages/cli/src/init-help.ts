// The help of memdir init.

export const INIT_HELP = `Usage: memdir init [DIR] [--store URL] [--namespace NAME] [--force] [--json]

Sets memdir up as the memory of Claude Code in the project folder DIR (default: the current
folder), and says what it did:
- DIR/.mcp.json (the project's MCP servers, which Claude Code offers to load) gets a "memdir"
  server that runs "npx -y memdir serve --store URL"; the other servers in it are kept;
- a file: store's folder is made, and listed in DIR/.gitignore when it is inside DIR (memories
  hold what a model read and wrote: share them through a store, not through git);
- a store URL with a password is never written: the server reads it from $MEMDIR_STORE.
Running it again changes nothing. A "memdir" server of another configuration is left as it is
unless --force.

  -s, --store URL          the store the server opens (default: file:./memory, relative to the
                           folder Claude Code starts in)
      --namespace NAME     the namespace it works in (default: the store's default space)
      --force              replace a "memdir" server configured otherwise
      --json               print what was done as one JSON object
  -h, --help               show this help

Examples:
  memdir init
  memdir init ~/code/shop --store postgres://memdir@db.internal/memdir --namespace shop`;
