// The help of `memdir --help` and of every command (COMMAND_HELP): written here, or gathered from
// the *-help.ts files that the history, admin and transfer commands load alone; help-store.ts holds
// the parts every store command's help shares.
import { ADMIN_HELP } from './admin-help.js';
import { COMPLETION_HELP } from './completion-help.js';
import { CONFIG_HELP } from './config-help.js';
import { DEMO_HELP } from './demo-help.js';
import { OUTPUT_HELP, STORE_OPTIONS_HELP } from './help-store.js';
import { HISTORY_HELP } from './history-help.js';
import { INIT_HELP } from './init-help.js';
import { DEFAULT_HTTP_ADDRESS } from './serve-http-options.js';
import { STORES_HELP } from './stores-help.js';
import { SYNC_HELP } from './sync-help.js';
import { COPY_HELP, EXPORT_HELP, IMPORT_HELP } from './transfer-help.js';
import { UI_HELP } from './ui-help.js';

export const TOKEN_HELP = `Usage: memdir token add NAME --namespace NAMESPACE [--read-only] [--tokens FILE]
       memdir token add NAME --stores [--read-only] [--tokens FILE]
       memdir token list [--tokens FILE]
       memdir token remove NAME [--tokens FILE]

The bearer tokens of "memdir serve --http". add makes a new random token, prints it once on
stdout (only its SHA-256 is kept in the file) and records its name, namespace and mode; the
name is what the access log shows and what the store's history records as the author of every
change made with it. list shows the tokens (never the tokens themselves); remove revokes one.
A running server reads the file again on SIGHUP (systemctl reload memdir).

      --namespace NAME   the namespace every call with the token works in (required for add,
                         unless --stores); a memory store's id gives the token that one store
      --stores           a token of the memory stores API (/v1/memory_stores) that may create,
                         list and manage every memory store
      --read-only        changes made with the token fail with a tool error
      --tokens FILE      the tokens file (default: $MEMDIR_TOKENS, else the config file's
                         [serve] tokens, else ./memdir-tokens.json)
  -h, --help             show this help

Example:
  memdir token add alice --namespace alice
  memdir token add team-ci --namespace team --read-only
  memdir token add ops --stores`;

export const MAIN_HELP = `memdir: durable storage for Claude's memory tool (memory_20250818)

Usage: memdir <command> [arguments] [options]

Memory commands (the six commands of the tool):
  view [PATH]                      show a file with line numbers, or a directory listing
  create PATH (--text T | --file F | -)
  str_replace PATH --old X [--new Y]
  insert PATH --line N (--text T | --file F | -)
  delete PATH
  rename OLD_PATH NEW_PATH

Other commands:
  init [DIR]                       make memdir the memory of Claude Code in a project (.mcp.json)
  demo                             watch a scripted session of Claude's memory tool, offline
  exec                             run tool inputs given as JSON lines on stdin
  serve                            serve the store to Claude Desktop, Claude Code... over MCP (stdio)
  serve --http HOST:PORT           serve it to a team over MCP's Streamable HTTP, a namespace per token
  token add NAME --namespace N     make a bearer token for serve --http (also: token list, token remove)
  stores list|create|show|archive|delete   the memory stores API's stores on the store, no server needed
  conformance MODULE               check a custom store module with the conformance suite
  conformance --api URL            check a memory stores API (memdir serve --http or another) with its kit
  copy --from URL --to URL         copy every file of one store to another, and verify it
  export [--store URL] > F.tar     write every file of a store to a tar archive
  import [--store URL] < F.tar     check an archive made by export, then write its files
  sync DIR [--store URL]           keep a folder and the store in step, both ways (--once: one pass)
  ui [--store URL]                 browse the store, its history and diffs in a browser (loopback)
  migrate --store URL              set up a server store's tables before a deploy (postgres://)
  completion bash|zsh|fish         print a script that completes memdir's commands and flags
  config                           show the settings and where each comes from (memdir.toml, env)
  help [COMMAND]                   show the help of a command

History (stores that keep one):
  log [PATH] [--actor ID] [--since TIME]   the versions, newest first (--json: JSON lines)
  show VERSION                     one version: who, when, what, and its content
  diff VERSION [VERSION]           a unified diff: what a version changed, or between two
  restore VERSION [--to PATH]      write a version's content back, as a new version
  redact VERSION                   erase a version's content and path for good
  view PATH --at TIME|VERSION      the memory as it was then

Namespaces (stores with admin operations):
  namespaces [--prefix P]          the namespaces that hold anything
  usage --namespace N | --all      files, bytes, versions and last change, as a table
  drop --namespace N [--yes]       erase a namespace: files, versions, everything
  sweep [--expire-days N]          expiry and version retention over every namespace

Paths start with /memories.

${STORE_OPTIONS_HELP}
  -v, --version            print the version
  (also "memdir COMMAND --help")

${OUTPUT_HELP}

Examples:
  memdir create /memories/notes.md --text "Likes tea"
  memdir view /memories/notes.md --range 1,5
  memdir --store memory: exec < inputs.jsonl
  memdir serve --store file:$HOME/.memdir`;

export const COMMAND_HELP: Record<string, string> = {
  migrate: `Usage: memdir migrate --store URL

Sets up what the store at URL needs on its server (for postgres://: the schema, tables and
functions, which the store would otherwise create before its first command). Safe to run while
other processes use the store. Prints one line saying what was set up.

  -s, --store URL   the store (default: $MEMDIR_STORE); its adapter must offer migrate
  -h, --help        show this help`,
  view: `Usage: memdir view [PATH] [--range START,END] [--raw] [--at TIME|VERSION] [options]

Shows a file with line numbers, or a directory with its entries two levels deep.
PATH defaults to /memories. On a terminal, control characters other than tab and newline (what a
model may have written: escape sequences) are shown escaped, as \\x1b; piped, the output is the
bytes as stored.

  -r, --range START,END    only lines START to END (1-based, inclusive); END -1 reads to the end
      --raw                print control characters as stored, on a terminal too
      --at TIME|VERSION    the memory as it was at TIME (ISO 8601) or right after VERSION
                           (memver_...), from the store's history; read-only

${STORE_OPTIONS_HELP}

${OUTPUT_HELP}

Examples:
  memdir view
  memdir view /memories/notes.md --range 3,-1`,

  create: `Usage: memdir create PATH (--text TEXT | --file FILE | -) [options]

Writes a file, creating its directories (and replacing an existing file unless --no-overwrite).

  -t, --text TEXT          the content
  -f, --file FILE          read the content from FILE ("-" for stdin)
  -                        read the content from stdin

${STORE_OPTIONS_HELP}

${OUTPUT_HELP}

Examples:
  memdir create /memories/notes.md --text "Likes tea"
  memdir create /memories/plan.md --file plan.md
  echo "Likes tea" | memdir create /memories/notes.md -`,

  str_replace: `Usage: memdir str_replace PATH --old OLD [--new NEW] [options]

Replaces the one occurrence of OLD in the file with NEW (without --new, deletes OLD).
It fails when OLD occurs zero or several times.

  -o, --old TEXT           the text to replace (verbatim, may span lines)
  -n, --new TEXT           the replacement (default: empty)

${STORE_OPTIONS_HELP}

${OUTPUT_HELP}

Example:
  memdir str_replace /memories/notes.md --old "Likes tea" --new "Likes coffee"`,

  insert: `Usage: memdir insert PATH --line N (--text TEXT | --file FILE | -) [options]

Inserts the text as new line(s) after line N (0 inserts at the top).

  -l, --line N             the line to insert after
  -t, --text TEXT          the text to insert
  -f, --file FILE          read the text from FILE ("-" for stdin)
  -                        read the text from stdin

${STORE_OPTIONS_HELP}

${OUTPUT_HELP}

Example:
  memdir insert /memories/notes.md --line 0 --text "# Notes"`,

  delete: `Usage: memdir delete PATH [options]

Deletes a file, or a directory with everything beneath it.

${STORE_OPTIONS_HELP}

${OUTPUT_HELP}

Example:
  memdir delete /memories/old`,

  rename: `Usage: memdir rename OLD_PATH NEW_PATH [options]

Moves a file or a directory; it never overwrites an existing destination.

${STORE_OPTIONS_HELP}

${OUTPUT_HELP}

Example:
  memdir rename /memories/draft.md /memories/notes/final.md`,

  exec: `Usage: memdir exec [options] < inputs.jsonl

Runs tool inputs, one JSON object per line on stdin, in order, exactly as the model would send
them ({"command":"view","path":"/memories"}). Blank lines are skipped. For each input, one JSON
line on stdout:
  {"ok":true,"text":"<the result the model reads>"}
  {"ok":false,"code":"NOT_FOUND","text":"Error: <message>"}
"text" is always exactly what the model reads (send a failure with is_error: true).
A line that is not JSON gives {"ok":false,"code":"INVALID_INPUT",...}. Every line runs even when
an earlier one failed; the exit code is 1 when any failed, else 0.

${STORE_OPTIONS_HELP}

Example:
  printf '%s\\n' '{"command":"create","path":"/memories/a.md","file_text":"hi"}' \\
    '{"command":"view","path":"/memories/a.md"}' | memdir --store memory: exec`,

  serve: `Usage: memdir serve [options]
       memdir serve --http [HOST:PORT] [--tokens FILE] [options]

Serves the store over the Model Context Protocol, as one tool named "memory" that takes the six
commands of the memory tool. Results are the protocol's texts; failures are isError results with
the text "Error: {message}". Logs go to stderr only.

Without --http: on stdin/stdout, for one client.

With --http: over MCP's Streamable HTTP at http://HOST:PORT/mcp, for many clients. Every request
carries "Authorization: Bearer TOKEN" (or "X-Api-Key: TOKEN"); the token decides the namespace and
whether changes are allowed (make tokens with "memdir token add"). GET /healthz says the process
is up, GET /readyz whether the store answers; GET /metrics is Prometheus text. Nothing lives in one process: several
processes behind a round-robin load balancer serve one store. SIGHUP reloads the tokens file;
SIGTERM finishes the requests in flight, then stops. One access log line per request on stderr
(token name, command, outcome, time, client address; never a path or content).
      --http HOST:PORT           listen there (default: ${DEFAULT_HTTP_ADDRESS}); beyond loopback,
                                 put TLS in front (a reverse proxy)
      --tokens FILE              the tokens file (default: $MEMDIR_TOKENS, else ./memdir-tokens.json)
      --rate N                   calls per second per token, on average: a request is one, a
                                 batch of n tool calls n (default: 20)
      --burst N                  calls per token at once before --rate applies (default: 60)
      --max-inflight N           calls answered at once, all tokens (default: 256; then 503)
      --max-inflight-per-token N calls answered at once per token (default: 32; then 429)
      --session-idle SECONDS     end a session idle this long, in this process (default: 1800)
      --shutdown-grace SECONDS   how long SIGTERM waits for requests in flight (default: 10)
      --allowed-host HOST        answer only requests whose Host is HOST (repeat for more; with
                                 or without :PORT; default: any Host)
      --allowed-origin ORIGIN    let browsers at ORIGIN (https://app.example.com) call (repeat for
                                 more; default: a request with an Origin header gets 403)
      --quota-bytes N            each token's namespace holds at most N bytes (default: no quota)
      --quota-files N            each token's namespace holds at most N files (default: no quota)
      --store-max-memories N     each memory store of the API (/v1/memory_stores) holds at most N
                                 memories (default: 2000)
      --store-max-bytes N        ... at most N bytes (default: 104857600, 100 MB)
      --store-max-memory-bytes N ... and N bytes per memory (default: 102400); these are the
                                 store namespace's quota and file limit, for the memory tool too
      --max-connections N        connections open at once; past it the longest idle one is
                                 closed (default: 512)
      --headers-timeout SECONDS  a request's headers must arrive within this (default: 10)
      --request-timeout SECONDS  a whole request must arrive within this (default: 120)
      --write-timeout SECONDS    cut a connection whose response does not move for this long,
                                 as when the client does not read it (default: 30)
  Each of these is also MEMDIR_<NAME> (MEMDIR_RATE=50) and a key of the config file's [serve]
  table (rate = 50), so a server can be configured by a file or the environment alone: "http"
  there makes "memdir serve" serve over HTTP ("memdir config --help").

${STORE_OPTIONS_HELP}
  (--namespace is not taken with --http: each token has its namespace.)

Claude Code:     claude mcp add memdir -- npx -y memdir serve --store file:$HOME/.memdir
                 claude mcp add --transport http memdir http://HOST:8787/mcp \\
                   --header "Authorization: Bearer TOKEN"
Claude Desktop:  {"mcpServers":{"memdir":{"command":"npx","args":["-y","memdir","serve",
                  "--store","file:/Users/me/.memdir"]}}}`,

  token: TOKEN_HELP,

  conformance: `Usage: memdir conformance MODULE [options]
       memdir conformance --api URL [--token TOKEN] [--memdir] [options]

Runs memdir's conformance suite (every string and error of the spec, hostile paths, namespaces,
concurrency, a differential property test against the in-memory store) on your store, with no
test setup of your own, and prints a pass/fail report. MODULE is a .js, .mjs or .ts file that
exports (as named exports, or as properties of its default export):
  createStore(options, backend)  a MemoryStore with these options over the backend named
                                 backend (same name, same data; or: create)
  createDriver(backend)          instead: a MemoryDriver, run under the memdir engine
  destroy(backend)               optional: remove a backend's data after each test
  capabilities                   optional: e.g. { atomicRename: false }
  name                           optional: the name in the report
A default export that is a function is taken as createStore.

With --api, it runs the conformance kit of Anthropic's memory stores API (/v1/memory_stores) instead,
with Anthropic's SDK (@anthropic-ai/sdk 1.17.0), against the server at URL (the SDK's baseURL, e.g.
http://127.0.0.1:8080). It creates, changes and deletes stores of its own, and deletes every store it
made at the end.
      --api URL            the API's base URL
      --token TOKEN        a token that may create and delete memory stores (default: the
                           MEMDIR_API_TOKEN environment variable, which keeps it out of the
                           process list; never printed)
      --memdir             the server is memdir: also check memdir's extensions and exact messages

  -n, --name NAME          the name in the report (default: the module's name, else its file name)
      --property-runs N    runs of the property test (default: the suite's)
      --timeout MS         timeout of each test in milliseconds (default: the suite's)
  -t, --filter PATTERN     only tests whose name matches PATTERN (a regular expression)
      --verbose            list every test, not only the failing ones
  -h, --help               show this help

Exit code: 0 when every test passed, 1 when one failed, 2 when the module (or the API) could not
be tested.

Example:
  memdir conformance ./my-store.ts --property-runs 50
  MEMDIR_API_TOKEN=... memdir conformance --api http://127.0.0.1:8080 --memdir`,
};

COMMAND_HELP['str-replace'] = COMMAND_HELP.str_replace!;
COMMAND_HELP.copy = COPY_HELP;
COMMAND_HELP.export = EXPORT_HELP;
COMMAND_HELP.import = IMPORT_HELP;
COMMAND_HELP.sync = SYNC_HELP;
COMMAND_HELP.init = INIT_HELP;
COMMAND_HELP.demo = DEMO_HELP;
COMMAND_HELP.completion = COMPLETION_HELP;
COMMAND_HELP.config = CONFIG_HELP;
COMMAND_HELP.stores = STORES_HELP;
COMMAND_HELP.ui = UI_HELP;
Object.assign(COMMAND_HELP, HISTORY_HELP, ADMIN_HELP);
