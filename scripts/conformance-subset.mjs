// A short subset of the conformance suite, for the checks that run it many times over (each peer
// range end in check-peer-ranges.mjs, each Node.js release in check-runtimes.mjs): a test or two for
// each kind of call a driver makes to its client (plain and conditional writes, compare-and-swap
// edits, folder moves and deletes, listings, racing writers), named by the start of their names.

/** The tests, by the start of their names. */
export const CONFORMANCE_SUBSET = [
  'create: a new file reports',
  'create: content round-trips exactly',
  'create: with overwrite: false an existing file is ALREADY_EXISTS',
  'str_replace: success shows lines',
  'insert: insert_line k inserts after line k',
  'delete: a file reports',
  'delete: a directory is deleted with everything beneath it',
  'rename: a file reports',
  'rename: a directory moves with everything beneath it',
  'view: each directory line is followed by its own children',
  'view: a directory size is the total of the visible files beneath it',
  'concurrency: 10 racing creates with overwrite: false have exactly one winner',
  'concurrency: concurrent str_replaces of distinct tokens from two stores all apply',
];

/** The suite's groups those tests are in. */
export const CONFORMANCE_SUBSET_GROUPS = [
  ...new Set(CONFORMANCE_SUBSET.map((name) => name.slice(0, name.indexOf(':')))),
];

/** A regular expression source matching those names from their start. */
export function subsetPattern(anchor = '^') {
  const escaped = CONFORMANCE_SUBSET.map((name) => name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'));
  return `${anchor}(${escaped.join('|')})`;
}
