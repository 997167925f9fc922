// The suite's checks must be able to fail. This runs it, in a vitest of its own, against targets
// with one deliberate bug each (test/fixtures/conformance), and checks that the tests named for
// that bug fail, with a message that says what is wrong, while the others pass; and that the
// filter, the check hook and the capability checks behave as documented.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createInMemoryDriver } from '@memdir/core';
import { beforeAll, describe, expect, it } from 'vitest';
import { describeMemoryStore } from '../src/index.js';

const FIXTURES = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'conformance');

interface TestResult {
  /** The describe blocks: `memdir conformance: {name}`, the run, the group. */
  ancestorTitles: string[];
  title: string;
  status: string;
  failureMessages: string[];
}

interface FileResult {
  name: string;
  status: string;
  message: string;
  assertionResults: TestResult[];
}

let files: FileResult[] = [];

beforeAll(async () => {
  const folder = await mkdtemp(join(tmpdir(), 'memdir-conformance-meta-'));
  try {
    const report = join(folder, 'report.json');
    const vitest = join(dirname(createRequire(import.meta.url).resolve('vitest/package.json')), 'vitest.mjs');
    // A clean environment: the variables of this vitest worker would confuse the inner one.
    const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('VITEST')));
    await new Promise<void>((resolve, reject) => {
      execFile(
        process.execPath,
        [
          vitest,
          'run',
          '--config',
          join(FIXTURES, 'vitest.config.ts'),
          '--reporter=json',
          `--outputFile=${report}`,
        ],
        { cwd: FIXTURES, env, maxBuffer: 64 * 1024 * 1024 },
        // The fixtures fail on purpose: a non-zero exit is expected, a missing report is not.
        (error, _stdout, stderr) =>
          readFile(report, 'utf8').then(
            (text) => {
              files = (JSON.parse(text) as { testResults: FileResult[] }).testResults;
              resolve();
            },
            () => reject(new Error(`the fixture run wrote no report: ${error?.message ?? ''}\n${stderr}`)),
          ),
      );
    });
  } finally {
    await rm(folder, { recursive: true, force: true });
  }
}, 180_000);

function file(name: string): FileResult {
  const found = files.find((candidate) => candidate.name.endsWith(`/${name}`));
  if (!found)
    throw new Error(`no result for ${name}: ${files.map((candidate) => candidate.name).join(', ')}`);
  return found;
}

/** The tests of one target (`memdir conformance: {name}`) in a fixture file. */
function testsOf(fixture: string, target: string): TestResult[] {
  const tests = file(fixture).assertionResults.filter(
    (test) => test.ancestorTitles[0] === `memdir conformance: ${target}`,
  );
  expect(tests.length, `tests of ${target}`).toBeGreaterThan(0);
  return tests;
}

/** `run > title` of each failed test. */
function failed(tests: readonly TestResult[]): string[] {
  return tests
    .filter((test) => test.status === 'failed')
    .map((test) => `${test.ancestorTitles[1]} > ${test.title}`);
}

function passed(tests: readonly TestResult[]): string[] {
  return tests
    .filter((test) => test.status === 'passed')
    .map((test) => `${test.ancestorTitles[1]} > ${test.title}`);
}

const RUNS = ['without a namespace', "under namespace 'conformance'"];

/** `title` in both runs. */
function inBothRuns(...titles: string[]): string[] {
  return RUNS.flatMap((run) => titles.map((title) => `${run} > ${title}`));
}

describe('the conformance suite fails a driver for its bug, and for nothing else', () => {
  it('refusals without path fail the refusal checks, which say the path is missing', () => {
    const tests = testsOf('drivers.fixture.ts', 'refusals without path');
    expect(failed(tests)).toEqual(
      expect.arrayContaining(
        inBothRuns(
          'driver: write refuses PATH_CONFLICT with path = the ancestor that is a file, and writes nothing',
          'driver: write with { absent: true } refuses CONFLICT with path over a file, and writes a missing one',
        ),
      ),
    );
    const refusal = tests.find((test) =>
      test.title.startsWith('driver: write refuses PATH_CONFLICT with path = the ancestor'),
    )!;
    expect(refusal.failureMessages[0]).toContain("path: 'f.md'");
    expect(passed(tests)).toEqual(
      expect.arrayContaining(
        inBothRuns(
          'driver: list gives every file beneath the directory exactly once, with its UTF-8 size, and nothing for a missing directory',
        ),
      ),
    );
  });

  it('a describe that cuts its listing in UTF-8 byte order fails the limit check and the UTF-16 truncation views, not the others', () => {
    const tests = testsOf('drivers.fixture.ts', 'describe in byte order');
    expect(failed(tests).sort()).toEqual(
      inBothRuns(
        'driver: describe honours limit: its entries include the first limit in listing order (UTF-16 order, not UTF-8), and count is all of them',
        'view: listing truncation keeps UTF-16 order when names mix U+E000-U+FFFF with astral characters (U+1F600 before U+E000)',
        'view: listing truncation keeps UTF-16 order at depth 2 too (the cut falls between astral and U+E000-U+FFFF names)',
      ).sort(),
    );
    expect(passed(tests).length).toBeGreaterThan(80);
  });

  it('a driver that claims replaySafe but records nothing fails each replay check', () => {
    const tests = testsOf('drivers.fixture.ts', 'replay unsafe');
    expect(failed(tests).sort()).toEqual(
      inBothRuns(
        'driver (replaySafe): a write replayed with its op after it succeeded gives the first version and writes nothing, even after another write',
        'driver (replaySafe): a write with { absent: true } replayed with its op is no CONFLICT and writes nothing',
        'driver (replaySafe): a remove replayed with its op says true again and removes nothing that came since',
        'driver (replaySafe): a move replayed with its op succeeds again and moves nothing that came since',
      ).sort(),
    );
  });

  it('a driver that records refused calls too fails the retried compare-and-swap check', () => {
    const tests = testsOf('drivers.fixture.ts', 'records refusals');
    expect(failed(tests)).toEqual(
      inBothRuns(
        'driver: a write refused with CONFLICT records nothing: the same op with a version that holds is written (a retried compare-and-swap)',
      ),
    );
  });

  it('a list that gives files twice fails the list checks', () => {
    const tests = testsOf('drivers.fixture.ts', 'lists twice');
    expect(failed(tests)).toEqual(
      expect.arrayContaining(
        inBothRuns(
          'driver: list gives every file beneath the directory exactly once, with its UTF-8 size, and nothing for a missing directory',
          'driver: list with skipHidden reports each visible file once and folds to the same listing as a full list',
        ),
      ),
    );
  });

  it('a listing whose contentMd5 goes stale when a file is rewritten fails the contentMd5 check alone, naming the file', () => {
    const tests = testsOf('drivers.fixture.ts', 'stale md5');
    const title =
      'driver: a listed contentMd5 is the MD5 of the file\u2019s UTF-8 bytes as it is now, and only a driver with listsContentMd5 lists one';
    expect(failed(tests)).toEqual(inBothRuns(title));
    const [failure] = tests.filter((test) => test.status === 'failed');
    expect(failure!.failureMessages.join('\n')).toContain('contentMd5 of "notes/a.md"');
  });

  it('a read that cannot tell a directory from nothing fails the read check, naming the path', () => {
    const tests = testsOf('drivers.fixture.ts', 'read hides directories');
    expect(failed(tests)).toEqual(
      expect.arrayContaining(
        inBothRuns("driver: read tells a file, a directory and nothing apart ('' is always a directory)"),
      ),
    );
    const read = tests.find((test) => test.title.startsWith('driver: read tells'))!;
    expect(read.failureMessages[0]).toContain('read("notes")');
  });
});

describe('the history and admin groups fail a driver for its bug', () => {
  const FIRST = RUNS[0]!;
  const cases: Array<[target: string, failing: string[]]> = [
    [
      'versions oldest first',
      inBothRuns(
        'history: filters by path (a folder is its subtree), file id, operation and time, and pages with a cursor',
      ),
    ],
    [
      'tree of now',
      inBothRuns(
        'history: asOf a version id or a time shows the tree as it was then, and every change command is READ_ONLY',
      ),
    ],
    [
      'restore unchecked',
      inBothRuns(
        'history: restore writes a version back as a new restored version; with expectSha256 that does not hold it is CONFLICT and changes nothing',
      ),
    ],
    [
      'prune nothing',
      [
        `${FIRST} > history: retention: 10,000 edits of one file with keepVersions 3 and keepDays 0 leave at most 3 versions, the newest matching the file`,
      ],
    ],
    [
      'drops by prefix',
      [
        `${FIRST} > admin: dropNamespace erases files, folders, hidden files and versions in batches, resumes a started drop, and touches no neighbour, not even names that start with its own`,
      ],
    ],
    [
      'reads never touch',
      [
        `${FIRST} > admin: with refreshOnRead a file read lately is not expired; a read without it does not count`,
      ],
    ],
  ];
  for (const [target, failing] of cases) {
    it(`${target}: ${failing.length} failing`, () => {
      const tests = testsOf('history.fixture.ts', target);
      expect(failed(tests)).toEqual(failing);
    });
  }
});

describe('the check hook, the filter and the capabilities', () => {
  it('a check that throws fails each test with its message', () => {
    const tests = testsOf('failing-check.fixture.ts', 'failing check');
    expect(failed(tests)).toEqual(inBothRuns('delete: deleting twice is NOT_FOUND the second time'));
    for (const test of tests) {
      expect(test.failureMessages[0]).toMatch(/^Error: the index of mdc_\w+ is out of step with its files/);
    }
  });

  it('groups and a RegExp keep only the matching tests of those groups', () => {
    const tests = testsOf('filters.fixture.ts', 'groups and a pattern');
    expect(failed(tests)).toEqual([]);
    expect(new Set(tests.map((test) => test.ancestorTitles[2]))).toEqual(new Set(['delete', 'rename']));
    for (const test of tests) expect(test.title).toMatch(/missing/);
    expect(tests.length).toBeGreaterThanOrEqual(8);
  });

  it('a one-group function with a string keeps the tests whose name contains it, taken literally', () => {
    const tests = testsOf('filters.fixture.ts', 'one group, a literal string');
    expect(
      tests.map((test) => `${test.ancestorTitles[1]} > ${test.ancestorTitles[2]} > ${test.title}`),
    ).toEqual(
      RUNS.map(
        (run) =>
          `${run} > rename > rename: a missing source to /memories is ROOT_PROTECTED (it outranks NOT_FOUND)`,
      ),
    );
    expect(failed(tests)).toEqual([]);
  });

  it('a filter that keeps no test fails the file with a message that says so', () => {
    expect(file('keeps-nothing.fixture.ts').status).toBe('failed');
    expect(file('keeps-nothing.fixture.ts').message).toContain(
      'describeMemoryStore: the filter keeps no test of keeps nothing',
    );
  });

  it('malformed capabilities fail the file before any test, naming the field', () => {
    expect(file('malformed-capabilities.fixture.ts').message).toContain(
      `memdir conformance: malformed capabilities: the driver's capabilities.atomicRename must be a boolean, got "yes"`,
    );
  });

  it('a store that reports other capabilities than the first one fails its tests', () => {
    const tests = testsOf('unstable-capabilities.fixture.ts', 'unstable capabilities');
    expect(failed(tests)).toEqual(
      inBothRuns('delete: deleting twice is NOT_FOUND the second time').slice(0, 1),
    );
    expect(tests[0]!.failureMessages[0]).toContain('every store of one target must report the same');
  });

  it("the target's capabilities apply to a store that reports none, and are ignored for one that reports its own", () => {
    const handWritten = testsOf('fallback.fixture.ts', 'hand-written store').map((test) => test.title);
    expect(handWritten).toEqual(
      expect.arrayContaining([
        'concurrency: a listing during a directory rename shows every file in at least one place (atomicRename: false)',
        "paths: a path of exactly 400 bytes after normalisation (the store's limit) is allowed, and one of 401 bytes is INVALID_PATH",
      ]),
    );
    const reporting = testsOf('fallback.fixture.ts', 'store reporting its capabilities').map(
      (test) => test.title,
    );
    expect(reporting).toEqual(
      expect.arrayContaining([
        'concurrency: a listing during a directory rename shows every file in the old place or every file in the new place',
        "paths: a path of exactly 1024 bytes after normalisation (the store's limit) is allowed, and one of 1025 bytes is INVALID_PATH",
      ]),
    );
    expect(reporting.join('\n')).not.toContain('atomicRename: false');
    expect(failed(testsOf('fallback.fixture.ts', 'hand-written store'))).toEqual([]);
    expect(failed(testsOf('fallback.fixture.ts', 'store reporting its capabilities'))).toEqual([]);
  });

  it('an unknown group, a filter of the wrong type, or a target with both factories is a TypeError at once', () => {
    const target = { name: 'x', createDriver: () => createInMemoryDriver() };
    expect(() => describeMemoryStore(target, { groups: ['views' as never] })).toThrow(
      new TypeError(
        'describeMemoryStore: unknown group "views"; the groups are "view", "create", "str_replace", "insert", "delete", "rename", "tool input", "paths", "isolation", "concurrency", "quota", "history", "admin", "differential", "driver", "records", "update by id", "remove expect"',
      ),
    );
    expect(() => describeMemoryStore(target, { tests: 5 as never })).toThrow(TypeError);
    expect(() => describeMemoryStore({ ...target, create: () => createInMemoryDriver() as never })).toThrow(
      'describeMemoryStore: give exactly one of `create` and `createDriver`.',
    );
  });
});
