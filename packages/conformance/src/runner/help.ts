// What `memdir-conformance --help` prints. The memdir CLI keeps its own text for `memdir
// conformance` (its help must print when this package is not installed), written the same way.

/** The help of the runner, for a command named `command`. */
export function conformanceHelp(command: string): string {
  return `Usage: ${command} MODULE [options]
       ${command} --api URL [--token TOKEN] [--memdir] [options]

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
  ${command} ./my-store.ts --property-runs 50
  MEMDIR_API_TOKEN=... ${command} --api http://127.0.0.1:8080 --memdir`;
}
