/**
 * The memdir conformance suite: registers vitest tests that check a memory store, or a driver under
 * the memdir engine, against SPEC.md byte for byte. An adapter's conformance test is one call:
 *
 * ```ts
 * import { describeMemoryStore } from '@memdir/conformance';
 * import { createFsDriver } from '@memdir/fs';
 *
 * describeMemoryStore({
 *   name: 'fs',
 *   createDriver: (backend) => createFsDriver({ root: join(tmp, backend) }),
 *   destroy: (backend) => rm(join(tmp, backend), { recursive: true, force: true }),
 * });
 * ```
 *
 * The suite reads the capabilities of what it tests and adapts to them; `describeMemoryStore`
 * takes a filter (groups, test names), and each group has its own function (`describeViewTests`,
 * ..., `describeDriverTests`) for debugging one behaviour.
 *
 * The groups, one file each, in the order they run: view.ts, create.ts, str-replace.ts, insert.ts,
 * delete.ts, rename.ts, input.ts (tool input), paths.ts, isolation.ts, concurrency.ts, quota.ts,
 * history.ts (with history-scale.ts), admin.ts, differential.ts, driver/ (checks on the bare
 * driver: reads, writes, structure, namespaces, replays), and records.ts (identity: records, update
 * by id, remove expect). What they share: target.ts (what is
 * tested), suite.ts (what the suite learns of a target, backends and cleanup), assertions.ts,
 * fixtures.ts and history-helpers.ts. runner/ is the `memdir-conformance` command, which runs this
 * suite on a store module without a test setup of its own.
 * @module
 */
// First: core, whose entry gives a clear error on a Node.js older than memdir supports.
import '@memdir/core';
import { describe } from 'vitest';
import { adminTests } from './admin.js';
import { concurrencyTests } from './concurrency.js';
import { createTests } from './create.js';
import { deleteTests } from './delete.js';
import { differentialTests } from './differential.js';
import { driverTests } from './driver/index.js';
import { historyTests } from './history.js';
import { inputTests } from './input.js';
import { insertTests } from './insert.js';
import { isolationTests } from './isolation.js';
import { pathTests } from './paths.js';
import { quotaTests } from './quota.js';
import { recordsTests, removeExpectTests, updateByIdTests } from './records.js';
import { renameTests } from './rename.js';
import { strReplaceTests } from './str-replace.js';
import { countingSuite, createSuite, type NameFilter, probeTarget, type Suite } from './suite.js';
import type { ConformanceTarget } from './target.js';
import { viewTests } from './view.js';

export type { ConformanceTarget } from './target.js';

/** The groups of the suite, in the order they run. Each has its own export (`describeViewTests`...). */
export const CONFORMANCE_GROUPS = [
  'view',
  'create',
  'str_replace',
  'insert',
  'delete',
  'rename',
  'tool input',
  'paths',
  'isolation',
  'concurrency',
  'quota',
  'history',
  'admin',
  'differential',
  'driver',
  'records',
  'update by id',
  'remove expect',
] as const;

/** One group of the suite: the tests of one command, or of one concern. */
export type ConformanceGroup = (typeof CONFORMANCE_GROUPS)[number];

/** Which tests to register: by group, by test name, or both (a test must pass both). */
export interface ConformanceFilter {
  /**
   * Only these groups. `driver` and `admin` run only for targets that give `createDriver`; `quota`,
   * `history` and `admin` only where the capabilities declare `quotas`, `history`, `admin`.
   * @default every group
   */
  groups?: readonly ConformanceGroup[] | undefined;
  /**
   * Only tests whose name (as shown, e.g. `"rename: a missing source is NOT_FOUND ..."`) matches:
   * a RegExp, or a string the name must contain (taken literally).
   * @default every test
   */
  tests?: RegExp | string | undefined;
}

/** The groups that run twice for a driver with `edit`: once through it, once without. */
const EDIT_GROUPS = new Set<ConformanceGroup>(['str_replace', 'insert']);

/** The namespace of the suite's second run, which catches prefix leaks. */
const SUITE_NAMESPACE = 'conformance';

/** The test files, one per group. */
const GROUPS: Readonly<Record<ConformanceGroup, (suite: Suite) => void>> = {
  view: viewTests,
  create: createTests,
  str_replace: strReplaceTests,
  insert: insertTests,
  delete: deleteTests,
  rename: renameTests,
  'tool input': inputTests,
  paths: pathTests,
  isolation: isolationTests,
  concurrency: concurrencyTests,
  quota: quotaTests,
  history: historyTests,
  admin: adminTests,
  differential: differentialTests,
  driver: driverTests,
  records: recordsTests,
  'update by id': updateByIdTests,
  'remove expect': removeExpectTests,
};

/** The identity groups: they need a driver, and run again with its identity primitives hidden. */
const IDENTITY_GROUPS = new Set<ConformanceGroup>(['records', 'update by id', 'remove expect']);

/** A driver's identity primitives, hidden for the identity groups' pass over the engine's fallbacks. */
const IDENTITY_METHODS = ['readRecord', 'locate', 'listRecords', 'listRecordsBeside', 'updateById'] as const;

function nameFilter(tests: ConformanceFilter['tests']): NameFilter {
  if (tests === undefined) return () => true;
  if (typeof tests === 'string') return (name) => name.includes(tests);
  if (tests instanceof RegExp) {
    // Without g or y, test() keeps no state between names.
    const pattern = new RegExp(tests.source, tests.flags.replace(/[gy]/g, ''));
    return (name) => pattern.test(name);
  }
  throw new TypeError('describeMemoryStore: filter.tests must be a RegExp or a string');
}

function selectedGroups(target: ConformanceTarget, filter: ConformanceFilter): ConformanceGroup[] {
  const groups = filter.groups ?? CONFORMANCE_GROUPS;
  for (const group of groups) {
    if (!(CONFORMANCE_GROUPS as readonly string[]).includes(group)) {
      throw new TypeError(
        `describeMemoryStore: unknown group ${JSON.stringify(group)}; the groups are ${CONFORMANCE_GROUPS.map((name) => JSON.stringify(name)).join(', ')}`,
      );
    }
  }
  // The driver and admin checks need a driver; a store made by `create` has none to look at.
  return CONFORMANCE_GROUPS.filter(
    (group) =>
      groups.includes(group) &&
      ((group !== 'driver' && group !== 'admin' && !IDENTITY_GROUPS.has(group)) ||
        target.createDriver !== undefined),
  );
}

/**
 * Registers the conformance suite for `target` as vitest tests (call it at the top level of a test
 * file). The whole suite runs twice: once with stores that have no namespace, and once with every
 * store under the namespace `conformance` (unless a test sets its own). Each test gets fresh backend
 * names, so tests are independent even against a shared real server; the suite closes every store it
 * opened, calls `check` and then `destroy` for each backend name after each test.
 *
 * Before it registers the tests of a run, the suite opens one store (or driver) on a backend of its
 * own to read its capabilities and, for a driver, which optional methods it has: the tests adapt
 * to them. `filter` keeps some groups, or tests by name; a filter that keeps no test is an error.
 *
 * Tests within one call must run one after another (vitest's default inside a file).
 */
export function describeMemoryStore(target: ConformanceTarget, filter: ConformanceFilter = {}): void {
  if ((target.create === undefined) === (target.createDriver === undefined)) {
    throw new TypeError('describeMemoryStore: give exactly one of `create` and `createDriver`.');
  }
  const edits = target.historyEdits;
  if (edits !== undefined && !(Number.isSafeInteger(edits) && edits >= 1)) {
    throw new TypeError(`describeMemoryStore: historyEdits must be a positive integer, got ${String(edits)}`);
  }
  const keep = nameFilter(filter.tests);
  const groups = selectedGroups(target, filter);
  describe(`memdir conformance: ${target.name}`, () => {
    let keptBefore = 0;
    for (const namespace of [undefined, SUITE_NAMESPACE]) {
      describe(
        namespace === undefined ? 'without a namespace' : `under namespace '${namespace}'`,
        async () => {
          const probe = await probeTarget(target, namespace);
          // Register on a counting stub first, so a filter that keeps nothing says so.
          const counting = countingSuite(probe, namespace, keep);
          // Groups that keep no test for this target (quota, for a driver without quotas) are left
          // out rather than registered empty.
          const kept = groups.filter((group) => {
            const before = counting.names.length;
            GROUPS[group](counting.suite);
            return counting.names.length > before;
          });
          if (counting.names.length === 0) {
            // The admin group and the heavy history tests run only once, without a namespace.
            if (keptBefore > 0) return;
            throw new Error(
              `describeMemoryStore: the filter keeps no test of ${target.name} (groups: ${groups.join(', ') || 'none that apply'}; tests: ${String(filter.tests ?? 'all')})`,
            );
          }
          keptBefore += counting.names.length;
          const suite = createSuite(target, namespace, probe, keep);
          for (const group of kept) describe(group, () => GROUPS[group](suite));
          // A driver with `edit` keeps the engine's other path for custom wrappers and fallbacks:
          // the edit groups run again without it (read, then compare-and-swap, or `update`).
          if (probe.driverMethods?.edit) {
            const without = createSuite(target, namespace, probe, keep, ['edit']);
            for (const group of kept.filter((name) => EDIT_GROUPS.has(name))) {
              describe(`${group} (without edit)`, () => GROUPS[group](without));
            }
          }
          // A driver with identity primitives keeps the engine's fallbacks honest for custom drivers.
          if (probe.driverMethods?.records) {
            const hidden = {
              ...probe,
              capabilities: { ...probe.capabilities, records: false, updateById: false, removeExpect: false },
            };
            const without = createSuite(target, namespace, hidden, keep, [...IDENTITY_METHODS]);
            for (const group of kept.filter((name) => IDENTITY_GROUPS.has(name))) {
              describe(`${group} (engine fallbacks)`, () => GROUPS[group](without));
            }
          }
        },
      );
    }
  });
}

/** A test name filter for the one-group functions (`describeViewTests`...). */
export type ConformanceTestFilter = Pick<ConformanceFilter, 'tests'>;

function oneGroup(group: ConformanceGroup) {
  return (target: ConformanceTarget, filter: ConformanceTestFilter = {}): void =>
    describeMemoryStore(target, { tests: filter.tests, groups: [group] });
}

/** The `view` group alone (SPEC 4.1 and 5): listings, sizes, files, `view_range`, truncation. */
export const describeViewTests = oneGroup('view');
/** The `create` group alone (SPEC 4.2): results, overwrite, conflicts, `maxFileBytes`, exact content. */
export const describeCreateTests = oneGroup('create');
/** The `str_replace` group alone (SPEC 4.3): snippets, matching, the 100-line cap of MULTIPLE_MATCHES. */
export const describeStrReplaceTests = oneGroup('str_replace');
/** The `insert` group alone (SPEC 4.4). */
export const describeInsertTests = oneGroup('insert');
/** The `delete` group alone (SPEC 4.5), with literal names. */
export const describeDeleteTests = oneGroup('delete');
/** The `rename` group alone (SPEC 4.6), with the error order across both paths. */
export const describeRenameTests = oneGroup('rename');
/** The `tool input` group alone (SPEC 1 and 7): untrusted input, lone surrogates, bounded messages. */
export const describeToolInputTests = oneGroup('tool input');
/** The `paths` group alone (SPEC 2 and 8): normalisation, invalid and hostile paths, lengths. */
export const describePathTests = oneGroup('paths');
/** The `isolation` group alone (SPEC 3 and 8): namespaces on one backend. */
export const describeIsolationTests = oneGroup('isolation');
/** The `concurrency` group alone (SPEC 6): two stores on one backend. */
export const describeConcurrencyTests = oneGroup('concurrency');
/** The `quota` group alone (SPEC 3): quotas, for stores whose capabilities declare `quotas`. */
export const describeQuotaTests = oneGroup('quota');
/**
 * The `history` group alone (docs/history.md): versions, ids across renames, attribution, filters,
 * restore, redaction, `asOf`, retention under 10,000 edits, four writers into one file, and
 * `importVersions` where the driver has it. For stores whose capabilities declare `history`.
 */
export const describeHistoryTests = oneGroup('history');
/**
 * The `admin` group alone: `createMemoryAdmin` over the driver (list, usage, drop, sweep with a
 * moved clock, refreshOnRead, retention). For drivers whose capabilities declare `admin`; run once,
 * without a namespace.
 */
export const describeAdminTests = oneGroup('admin');
/** The `differential` group alone: random command sequences against the in-memory reference. */
export const describeDifferentialTests = oneGroup('differential');
/**
 * The `driver` group alone: checks on the bare driver that the engine relies on (refusals and their
 * `path`, `read`, `describe` against the reference fold, compare-and-swap, `list`, replays of an
 * operation id where `capabilities.replaySafe`). Needs a target with `createDriver`.
 */
export const describeDriverTests = oneGroup('driver');
