// The driver group: checks on the bare driver (targets with `createDriver`) of what the engine
// relies on, beyond what the commands show: refusals carry the right code and `path`; `read` tells
// a directory from nothing; `describe` agrees with `read` + `list` + the kit's reference fold and
// honours `limit`; compare-and-swap refuses with CONFLICT; `list` gives every file once; a change
// replayed with its operation id is not applied twice (where `capabilities.replaySafe`).
//
// What the replay checks cannot see: they send the same call twice from here, which is what a
// resent request looks like to a driver that passes the id to its server; they cannot make the
// client library itself resend (an adapter's own fault-injection tests must), nor race a replay
// against the original still in flight, nor see how long the record is kept.
import { expect } from 'vitest';
import { foldListing } from '../driver/index.js';
import { isMemoryToolError, type MemoryToolError, type MemoryToolErrorCode } from '../errors.js';
import { utf8Length } from '../path.js';
import type { DriverEntry, DriverListing, DriverPath, MemoryDriver, WriteExpectation } from '../types.js';
import { capabilityProblem, operationId, type Suite } from './harness.js';

function p(path: string): DriverPath {
  return path as DriverPath;
}

function put(driver: MemoryDriver, path: string, content: string, expect?: WriteExpectation) {
  return driver.write(p(path), content, { op: operationId(), expect });
}

async function seedFiles(driver: MemoryDriver, files: Readonly<Record<string, string>>): Promise<void> {
  for (const [path, content] of Object.entries(files)) await put(driver, path, content);
}

async function listAll(driver: MemoryDriver, dir: string, skipHidden = false): Promise<DriverEntry[]> {
  const entries: DriverEntry[] = [];
  for await (const entry of driver.list(p(dir), { skipHidden })) entries.push(entry);
  return entries;
}

/** `[path, size]` of each entry, sorted by path (duplicates kept, so they show). */
function sortedEntries(entries: readonly DriverEntry[]): Array<[string, number]> {
  return entries
    .map((entry): [string, number] => [entry.path, entry.size])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Every file the driver holds with its content: equal before and after a call that wrote nothing. */
async function contents(driver: MemoryDriver): Promise<Record<string, string | null>> {
  const files: Record<string, string | null> = {};
  for (const [path] of sortedEntries(await listAll(driver, ''))) {
    const node = await driver.read(p(path));
    files[path] = node?.kind === 'file' ? node.content : null;
  }
  return files;
}

/** `files` as `list` must report them: every path with its UTF-8 size, sorted. */
function expectedEntries(files: Readonly<Record<string, string>>, dir = ''): Array<[string, number]> {
  return Object.entries(files)
    .filter(([path]) => dir === '' || path.startsWith(`${dir}/`))
    .map(([path, content]): [string, number] => [path, utf8Length(content)])
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
}

/** Expects `promise` to reject with a driver refusal: a MemoryToolError of `code` whose `path` is `path`. */
async function expectRefusal(
  promise: Promise<unknown>,
  code: MemoryToolErrorCode,
  path: string,
): Promise<void> {
  let result: unknown;
  try {
    result = await promise;
  } catch (error) {
    expect(isMemoryToolError(error), `expected a MemoryToolError refusal, got ${String(error)}`).toBe(true);
    const refusal = error as MemoryToolError;
    expect({ code: refusal.code, path: refusal.path }).toEqual({ code, path });
    return;
  }
  throw new Error(
    `Expected the driver to refuse with ${code} (path ${JSON.stringify(path)}), but the call succeeded with ${JSON.stringify(result)}`,
  );
}

/** A tree with everything a listing must get right, as driver paths. */
const TREE: Readonly<Record<string, string>> = {
  'top.md': 'top',
  'notes/a.md': 'alpha',
  'notes/deep/er/x.md': 'x',
  'notes/deep/y.md': 'yy',
  'notes/.git/HEAD': 'ref: main',
  'notes/node_modules/m/index.js': 'module',
  '.hidden/secret.md': 'secret',
  '.hidden/sub/inner.md': 'inner',
  'node_modules/pkg.md': 'pkg',
  'only-hidden/.keep': 'keep',
  'only-hidden/deep/.x/y.md': 'y',
  // Siblings that share a prefix with the directory `a`.
  'a/x.md': 'ax',
  'a b/x.md': 'a space b',
  'a-b/y.md': 'a-b',
  'ab.md': 'ab',
  // Names whose UTF-16 order (the listing's) differs from UTF-8 byte and code point order.
  'u/\ue000': 'private use',
  'u/\uff5a': 'fullwidth z',
  'u/\u{10000}': 'linear b',
  'u/\u{1f600}': 'grinning',
  'u/z': 'z',
  '\u{1f600}/a.md': 'astral directory',
  '\ue000/b.md': 'private use directory',
  'caf\u00e9/menu.md': 'caf\u00e9 \u{1f600}',
  // Over 64 KiB: a driver that reads in chunks must put them together.
  'big.md': `${'0123456789abcdef'.repeat(4500)}\u00e9`,
};

/** Paths to look at in TREE: files, directories (hidden ones too), missing paths and paths beneath files. */
const LOOKED_AT = [
  '',
  'top.md',
  'big.md',
  'notes',
  'notes/deep',
  'notes/deep/er',
  'notes/.git',
  'notes/.git/HEAD',
  'notes/node_modules',
  '.hidden',
  'node_modules',
  'only-hidden',
  'only-hidden/deep',
  'a',
  'a b',
  'u',
  '\u{1f600}',
  '\ue000',
  'caf\u00e9',
  'caf\u00e9/menu.md',
  'missing',
  'not',
  'ab',
  'a/x',
  'top.md/x',
  'notes/a.md/deeper/x',
  'u/\ue000/x',
];

/** Expects `actual` (from describe with `limit`) to agree with `reference` (the full fold). */
function expectListing(actual: unknown, reference: DriverListing, limit: number, where: string): void {
  expect(actual, where).toMatchObject({ kind: 'directory' });
  const listing = actual as DriverListing;
  expect({ size: listing.size, count: listing.count }, `${where}: size and count`).toEqual({
    size: reference.size,
    count: reference.count,
  });
  const full = new Map(reference.entries.map((entry) => [entry.path, entry]));
  const seen = new Set<string>();
  for (const entry of listing.entries) {
    expect(seen.has(entry.path), `${where}: entry ${JSON.stringify(entry.path)} is given twice`).toBe(false);
    seen.add(entry.path);
    expect(
      { path: entry.path, directory: entry.directory, size: entry.size },
      `${where}: entry ${JSON.stringify(entry.path)}`,
    ).toEqual(full.get(entry.path) ?? 'no such entry in the listing');
  }
  const missing = reference.entries
    .slice(0, limit)
    .filter((entry) => !seen.has(entry.path))
    .map((entry) => entry.path);
  expect(missing, `${where}: entries among the first ${limit} in listing order that are left out`).toEqual(
    [],
  );
}

export function driverTests(suite: Suite): void {
  const { test } = suite;
  const methods = suite.driverMethods;
  if (methods === undefined) return;

  // --- capabilities ------------------------------------------------------------------------------

  test('driver: capabilities are well-formed, on the driver and on its namespaces, and the same on every driver of the backend', async () => {
    const driver = await suite.files();
    for (const [where, capabilities] of [
      ['driver', driver.capabilities],
      ["driver.namespace('x')", driver.namespace('x').capabilities],
      ["driver.namespace('x').namespace('y')", driver.namespace('x').namespace('y').capabilities],
    ] as const) {
      expect(capabilityProblem(capabilities), where).toBeUndefined();
    }
    expect({ ...driver.capabilities }).toEqual({ ...suite.capabilities });
    const other = await suite.files(suite.newBackend());
    expect({ ...other.capabilities }).toEqual({ ...suite.capabilities });
  });

  // --- read, stat --------------------------------------------------------------------------------

  test("driver: read tells a file, a directory and nothing apart ('' is always a directory)", async () => {
    const driver = await suite.files();
    expect(await driver.read(p(''))).toEqual({ kind: 'directory' });
    await seedFiles(driver, TREE);
    for (const path of LOOKED_AT) {
      const node = await driver.read(p(path));
      const where = `read(${JSON.stringify(path)})`;
      if (path in TREE) {
        expect(node, where).toMatchObject({ kind: 'file', content: TREE[path] });
        expect(typeof (node as { version?: unknown }).version, `${where}.version`).toBe('string');
      } else if (Object.keys(TREE).some((file) => path === '' || file.startsWith(`${path}/`))) {
        expect(node, where).toEqual({ kind: 'directory' });
      } else {
        expect(node, where).toBeNull();
      }
    }
  });

  if (methods.stat) {
    test('driver: stat agrees with read for files, directories, hidden directories and missing paths', async () => {
      const driver = await suite.files();
      expect(await driver.stat!(p(''))).toBe('directory');
      await seedFiles(driver, TREE);
      for (const path of LOOKED_AT) {
        const node = await driver.read(p(path));
        expect(await driver.stat!(p(path)), `stat(${JSON.stringify(path)})`).toBe(node?.kind ?? null);
      }
    });
  }

  test('driver: content round-trips exactly through write and read (NUL, BOM, CR, CRLF, U+2028, U+FFFE, NFD, astral, over 64 KiB)', async () => {
    const driver = await suite.files();
    const texts = [
      '',
      'a\u0000b\u0000',
      '\ufeffstarts with a byte-order mark',
      'old mac\rline\r',
      'windows\r\nlines\r\n',
      'line\u2028separator\u2029paragraph',
      'nonchar \ufffe \uffff end',
      'cafe\u0301 (NFD, not NFC)',
      '\u{1f600}\u{10ffff}\u{10000}',
      '\u0001\u001f\u007f\u0085\u009f',
      `${'\u00e9'.repeat(40_000)}\n`,
    ];
    for (const [index, text] of texts.entries()) {
      await put(driver, `texts/${index}`, text);
    }
    for (const [index, text] of texts.entries()) {
      const node = await driver.read(p(`texts/${index}`));
      expect(
        node?.kind === 'file' && node.content === text,
        `texts/${index} reads back ${JSON.stringify(text.slice(0, 40))} exactly`,
      ).toBe(true);
    }
    expect(sortedEntries(await listAll(driver, 'texts'))).toEqual(
      texts
        .map((text, index): [string, number] => [`texts/${index}`, utf8Length(text)])
        .sort(([a], [b]) => (a < b ? -1 : 1)),
    );
  });

  // --- write -------------------------------------------------------------------------------------

  test('driver: write returns the version read reports, and a new one when the content changes', async () => {
    const driver = await suite.files();
    const first = await put(driver, 'v.md', 'one');
    expect(typeof first.version).toBe('string');
    expect(await driver.read(p('v.md'))).toMatchObject({
      kind: 'file',
      content: 'one',
      version: first.version,
    });
    const second = await put(driver, 'v.md', 'two');
    expect(second.version).not.toBe(first.version);
    expect(await driver.read(p('v.md'))).toMatchObject({
      kind: 'file',
      content: 'two',
      version: second.version,
    });
  });

  test('driver: write refuses PATH_CONFLICT with path = the ancestor that is a file, and writes nothing', async () => {
    const driver = await suite.files();
    await seedFiles(driver, { 'f.md': 'f', 'x/y/z.md': 'z' });
    const before = await contents(driver);
    await expectRefusal(put(driver, 'f.md/g', 'x'), 'PATH_CONFLICT', 'f.md');
    await expectRefusal(put(driver, 'f.md/g/h/i', 'x'), 'PATH_CONFLICT', 'f.md');
    await expectRefusal(put(driver, 'x/y/z.md/w/v', 'x'), 'PATH_CONFLICT', 'x/y/z.md');
    await expectRefusal(put(driver, 'x/y/z.md/w', 'x', { absent: true }), 'PATH_CONFLICT', 'x/y/z.md');
    expect(await contents(driver)).toEqual(before);
  });

  test('driver: write refuses PATH_CONFLICT with path = the path when it is a directory (one of hidden files too), and writes nothing', async () => {
    const driver = await suite.files();
    await seedFiles(driver, { 'd/a.md': 'a', 'h/.keep': '', 'deep/er/x.md': 'x' });
    const before = await contents(driver);
    await expectRefusal(put(driver, 'd', 'x'), 'PATH_CONFLICT', 'd');
    await expectRefusal(put(driver, 'h', 'x'), 'PATH_CONFLICT', 'h');
    await expectRefusal(put(driver, 'deep/er', 'x'), 'PATH_CONFLICT', 'deep/er');
    // PATH_CONFLICT outranks CONFLICT: `create` with overwrite: false tells "is a directory" from "already exists" by it.
    await expectRefusal(put(driver, 'd', 'x', { absent: true }), 'PATH_CONFLICT', 'd');
    expect(await contents(driver)).toEqual(before);
  });

  test('driver: write with a { version } that does not hold (changed, or no file) refuses CONFLICT with path, and writes nothing', async () => {
    const driver = await suite.files();
    const old = await put(driver, 'c.md', 'old');
    await put(driver, 'c.md', 'new');
    const before = await contents(driver);
    await expectRefusal(put(driver, 'c.md', 'stale edit', { version: old.version }), 'CONFLICT', 'c.md');
    await expectRefusal(put(driver, 'missing.md', 'x', { version: old.version }), 'CONFLICT', 'missing.md');
    expect(await contents(driver)).toEqual(before);
  });

  test('driver: write with the current { version } replaces the file', async () => {
    const driver = await suite.files();
    await put(driver, 'c.md', 'one');
    const current = await driver.read(p('c.md'));
    expect(current?.kind).toBe('file');
    const written = await put(driver, 'c.md', 'two', { version: (current as { version: string }).version });
    expect(await driver.read(p('c.md'))).toMatchObject({
      kind: 'file',
      content: 'two',
      version: written.version,
    });
  });

  test('driver: write with { absent: true } refuses CONFLICT with path over a file, and writes a missing one', async () => {
    const driver = await suite.files();
    await put(driver, 'e.md', 'exists');
    const before = await contents(driver);
    await expectRefusal(put(driver, 'e.md', 'again', { absent: true }), 'CONFLICT', 'e.md');
    expect(await contents(driver)).toEqual(before);
    await put(driver, 'n/new.md', 'new', { absent: true });
    expect(await driver.read(p('n/new.md'))).toMatchObject({ kind: 'file', content: 'new' });
  });

  test('driver: a write refused with CONFLICT records nothing: the same op with a version that holds is written (a retried compare-and-swap)', async () => {
    const driver = await suite.files();
    const old = await put(driver, 'r.md', 'v1');
    const current = await put(driver, 'r.md', 'v2');
    const op = operationId();
    await expectRefusal(
      driver.write(p('r.md'), 'edit of v1', { op, expect: { version: old.version } }),
      'CONFLICT',
      'r.md',
    );
    await driver.write(p('r.md'), 'edit of v2', { op, expect: { version: current.version } });
    expect(await driver.read(p('r.md'))).toMatchObject({ kind: 'file', content: 'edit of v2' });
  });

  // --- update ------------------------------------------------------------------------------------

  if (methods.update) {
    test("driver: update returns null for nothing and 'directory' for a directory, without calling edit", async () => {
      const driver = await suite.files();
      await seedFiles(driver, { 'd/a.md': 'a', 'f.md': 'f', 'h/.keep': '' });
      const before = await contents(driver);
      let calls = 0;
      const edit = (content: string) => {
        calls++;
        return `${content}!`;
      };
      for (const [path, kind] of [
        ['missing.md', null],
        ['f.md/beneath', null],
        ['d', 'directory'],
        ['h', 'directory'],
      ] as const) {
        expect(
          await driver.update!(p(path), edit, { op: operationId() }),
          `update(${JSON.stringify(path)})`,
        ).toBe(kind);
      }
      expect(calls).toBe(0);
      expect(await contents(driver)).toEqual(before);
    });

    test("driver: update calls edit once with the exact content, writes what it returns, and says 'file'", async () => {
      const driver = await suite.files();
      const text = 'a\r\n\u0000\ufeff\u2028cafe\u0301\u{1f600}';
      await put(driver, 'f.md', text);
      const seen: string[] = [];
      const result = await driver.update!(
        p('f.md'),
        (content) => {
          seen.push(content);
          return `${content}|edited`;
        },
        { op: operationId() },
      );
      expect(result).toBe('file');
      expect(seen.length === 1 && seen[0] === text, 'edit called once with the content as written').toBe(
        true,
      );
      const node = await driver.read(p('f.md'));
      expect(node?.kind === 'file' && node.content === `${text}|edited`).toBe(true);
    });

    test('driver: when edit throws, update rejects with that very error and writes nothing', async () => {
      // The engine keeps what the edit threw (NO_MATCH, TOO_LARGE...) itself; the contract still
      // says the error propagates as is, so a caller of the driver sees its own refusal.
      const driver = await suite.files();
      await put(driver, 'f.md', 'keep me');
      const before = await contents(driver);
      const thrown = new Error('the edit refuses');
      const outcome = await driver.update!(
        p('f.md'),
        () => {
          throw thrown;
        },
        { op: operationId() },
      ).then(
        (value) => ({ resolved: value }),
        (error: unknown) => ({ rejected: error === thrown ? 'the error edit threw' : String(error) }),
      );
      expect(outcome).toEqual({ rejected: 'the error edit threw' });
      expect(await contents(driver)).toEqual(before);
    });
  }

  // --- list --------------------------------------------------------------------------------------

  test('driver: list gives every file beneath the directory exactly once, with its UTF-8 size, and nothing for a missing directory', async () => {
    const driver = await suite.files();
    expect(await listAll(driver, '')).toEqual([]);
    await seedFiles(driver, TREE);
    expect(sortedEntries(await listAll(driver, ''))).toEqual(expectedEntries(TREE));
    for (const dir of [
      'notes',
      'notes/deep',
      '.hidden',
      'node_modules',
      'only-hidden',
      'a',
      'u',
      '\u{1f600}',
      'caf\u00e9',
    ]) {
      expect(sortedEntries(await listAll(driver, dir)), `list(${JSON.stringify(dir)})`).toEqual(
        expectedEntries(TREE, dir),
      );
    }
    for (const dir of ['missing', 'not', 'ab', 'a/x']) {
      expect(await listAll(driver, dir), `list(${JSON.stringify(dir)})`).toEqual([]);
    }
  });

  test('driver: list with skipHidden reports each visible file once and folds to the same listing as a full list', async () => {
    const driver = await suite.files();
    await seedFiles(driver, TREE);
    const all = new Set(Object.keys(TREE));
    for (const dir of ['', 'notes', '.hidden', 'notes/.git', 'node_modules', 'only-hidden', 'u']) {
      const where = `list(${JSON.stringify(dir)}, { skipHidden: true })`;
      const skipping = await listAll(driver, dir, true);
      const full = await listAll(driver, dir);
      const prefix = dir === '' ? '' : `${dir}/`;
      const visible = (path: string) =>
        !path
          .slice(prefix.length)
          .split('/')
          .some((name) => name.startsWith('.') || name === 'node_modules');
      // Every visible file exactly once, with its size.
      expect(sortedEntries(skipping.filter((entry) => visible(entry.path))), where).toEqual(
        expectedEntries(TREE, dir).filter(([path]) => visible(path)),
      );
      // Anything else is a hidden name that is there (a file, or a directory standing for its files).
      for (const entry of skipping.filter((candidate) => !visible(candidate.path))) {
        const segments = entry.path.slice(prefix.length).split('/');
        const hiddenAt = segments.findIndex((name) => name.startsWith('.') || name === 'node_modules');
        const hidden = prefix + segments.slice(0, hiddenAt + 1).join('/');
        expect(
          all.has(hidden) || [...all].some((file) => file.startsWith(`${hidden}/`)),
          `${where}: ${JSON.stringify(entry.path)} is no file and no hidden name there`,
        ).toBe(true);
      }
      expect(foldListing(dir, skipping, Number.MAX_SAFE_INTEGER), where).toEqual(
        foldListing(dir, full, Number.MAX_SAFE_INTEGER),
      );
    }
  });

  // --- describe ----------------------------------------------------------------------------------

  if (methods.describe) {
    test('driver: describe agrees with read, list and foldListing for files, directories, hidden directories and missing paths', async () => {
      const driver = await suite.files();
      expectListing(
        await driver.describe!(p(''), { limit: 100 }),
        foldListing('', [], Number.MAX_SAFE_INTEGER),
        100,
        "describe('') of an empty driver",
      );
      await seedFiles(driver, TREE);
      for (const path of LOOKED_AT) {
        const where = `describe(${JSON.stringify(path)})`;
        const node = await driver.read(p(path));
        const described = await driver.describe!(p(path), { limit: 1000 });
        if (node === null) expect(described, where).toBeNull();
        else if (node.kind === 'file') {
          expect(described, where).toMatchObject({
            kind: 'file',
            content: node.content,
            version: node.version,
          });
        } else {
          const reference = foldListing(path, await listAll(driver, path), Number.MAX_SAFE_INTEGER);
          expectListing(described, reference, 1000, where);
        }
      }
    });

    test('driver: describe honours limit: its entries include the first limit in listing order (UTF-16 order, not UTF-8), and count is all of them', async () => {
      const driver = await suite.files();
      await seedFiles(driver, TREE);
      for (const path of ['', 'u', 'notes', '.hidden']) {
        const reference = foldListing(path, await listAll(driver, path), Number.MAX_SAFE_INTEGER);
        const limits = new Set([1, 2, 3, reference.count - 1, reference.count, reference.count + 1, 10_000]);
        for (let limit = 1; limit <= reference.count; limit++) limits.add(limit);
        for (const limit of [...limits].filter((value) => value >= 1)) {
          const described = await driver.describe!(p(path), { limit });
          expectListing(
            described,
            reference,
            limit,
            `describe(${JSON.stringify(path)}, { limit: ${limit} })`,
          );
        }
      }
    });
  }

  // --- move --------------------------------------------------------------------------------------

  test('driver: move refuses NOT_FOUND with path = the source when nothing is there, before any refusal of the destination', async () => {
    const driver = await suite.files();
    await seedFiles(driver, { 'f.md': 'f', 'taken.md': 't', 'dir/x.md': 'x' });
    const before = await contents(driver);
    await expectRefusal(driver.move(p('ghost'), p('free'), { op: operationId() }), 'NOT_FOUND', 'ghost');
    await expectRefusal(driver.move(p('ghost'), p('taken.md'), { op: operationId() }), 'NOT_FOUND', 'ghost');
    await expectRefusal(driver.move(p('ghost'), p('dir'), { op: operationId() }), 'NOT_FOUND', 'ghost');
    await expectRefusal(driver.move(p('ghost'), p('f.md/x'), { op: operationId() }), 'NOT_FOUND', 'ghost');
    await expectRefusal(driver.move(p('f.md/x'), p('free'), { op: operationId() }), 'NOT_FOUND', 'f.md/x');
    await expectRefusal(driver.move(p('fx'), p('free'), { op: operationId() }), 'NOT_FOUND', 'fx');
    expect(await contents(driver)).toEqual(before);
  });

  test('driver: move refuses PATH_CONFLICT with path = the ancestor of the destination that is a file, and moves nothing', async () => {
    const driver = await suite.files();
    await seedFiles(driver, { 'src.md': 's', 'srcdir/a.md': 'a', 'f.md': 'f', 'x/y/z.md': 'z' });
    const before = await contents(driver);
    await expectRefusal(
      driver.move(p('src.md'), p('f.md/src.md'), { op: operationId() }),
      'PATH_CONFLICT',
      'f.md',
    );
    await expectRefusal(
      driver.move(p('srcdir'), p('f.md/a/b'), { op: operationId() }),
      'PATH_CONFLICT',
      'f.md',
    );
    await expectRefusal(
      driver.move(p('src.md'), p('x/y/z.md/w'), { op: operationId() }),
      'PATH_CONFLICT',
      'x/y/z.md',
    );
    expect(await contents(driver)).toEqual(before);
  });

  test('driver: move refuses ALREADY_EXISTS with path = the destination when a file or a directory is there, and moves nothing', async () => {
    const driver = await suite.files();
    await seedFiles(driver, {
      'src.md': 's',
      'srcdir/a.md': 'a',
      'taken.md': 't',
      'dir/x.md': 'x',
      'hidden-only/.keep': '',
    });
    const before = await contents(driver);
    await expectRefusal(
      driver.move(p('src.md'), p('taken.md'), { op: operationId() }),
      'ALREADY_EXISTS',
      'taken.md',
    );
    await expectRefusal(driver.move(p('src.md'), p('dir'), { op: operationId() }), 'ALREADY_EXISTS', 'dir');
    await expectRefusal(driver.move(p('srcdir'), p('dir'), { op: operationId() }), 'ALREADY_EXISTS', 'dir');
    await expectRefusal(
      driver.move(p('srcdir'), p('hidden-only'), { op: operationId() }),
      'ALREADY_EXISTS',
      'hidden-only',
    );
    await expectRefusal(
      driver.move(p('srcdir'), p('taken.md'), { op: operationId() }),
      'ALREADY_EXISTS',
      'taken.md',
    );
    expect(await contents(driver)).toEqual(before);
  });

  test('driver: move takes a file or a directory with everything beneath it (hidden files too), creates parents, and leaves no directory behind', async () => {
    const driver = await suite.files();
    await seedFiles(driver, {
      'p/only.md': 'only',
      'src/a.md': 'a',
      'src/.hidden': 'h',
      'src/deep/er/b.md': 'b',
      'src-x/keep.md': 'keep',
      'srcfile.md': 'not moved',
    });
    await driver.move(p('p/only.md'), p('q/r/only.md'), { op: operationId() });
    await driver.move(p('src'), p('dst/moved'), { op: operationId() });
    expect(await contents(driver)).toEqual({
      'dst/moved/.hidden': 'h',
      'dst/moved/a.md': 'a',
      'dst/moved/deep/er/b.md': 'b',
      'q/r/only.md': 'only',
      'src-x/keep.md': 'keep',
      'srcfile.md': 'not moved',
    });
    for (const gone of ['p', 'src', 'src/deep']) expect(await driver.read(p(gone)), gone).toBeNull();
  });

  // --- remove ------------------------------------------------------------------------------------

  test('driver: remove takes a file or a whole directory and says true; false when nothing is there (also beneath a file)', async () => {
    const driver = await suite.files();
    await seedFiles(driver, {
      'f.md': 'f',
      'd/a.md': 'a',
      'd/.hidden/x': 'x',
      'd/e/f/g.md': 'g',
      'd b/keep.md': 'space',
      'd-x/keep.md': 'dash',
      'db.md': 'db',
      'lone/deep/only.md': 'o',
    });
    expect(await driver.remove(p('f.md'), { op: operationId() })).toBe(true);
    expect(await driver.remove(p('d'), { op: operationId() })).toBe(true);
    expect(await driver.remove(p('lone/deep/only.md'), { op: operationId() })).toBe(true);
    for (const path of ['f.md', 'd', 'ghost', 'f.md/x', 'db.md/x', 'd b/keep.md/x', 'lone']) {
      expect(await driver.remove(p(path), { op: operationId() }), `remove(${JSON.stringify(path)})`).toBe(
        false,
      );
    }
    expect(await contents(driver)).toEqual({ 'd b/keep.md': 'space', 'd-x/keep.md': 'dash', 'db.md': 'db' });
    for (const gone of ['d', 'd/e', 'lone', 'lone/deep']) expect(await driver.read(p(gone)), gone).toBeNull();
  });

  // --- namespaces ----------------------------------------------------------------------------------

  test('driver: namespaces are disjoint from their parent and from each other, and nest', async () => {
    const driver = await suite.files();
    const spaces: Array<[string, MemoryDriver]> = [
      ['parent', driver],
      ['x', driver.namespace('x')],
      ['y', driver.namespace('y')],
      ['x/y', driver.namespace('x').namespace('y')],
      ['x.y', driver.namespace('x.y')],
    ];
    // Files a driver that joins prefixes carelessly would mix up with those of a namespace.
    const lookalikes: Record<string, Record<string, string>> = {
      parent: {
        'x/same.md': 'parent x/',
        'x:same.md': 'parent x:',
        'namespaces/x/same.md': 'parent namespaces/x/',
      },
      x: { 'y/same.md': 'x y/', 'y:same.md': 'x y:' },
    };
    const own = (name: string): Record<string, string> => ({
      'same.md': `in ${name}`,
      [`only-${name.replace('/', '-')}.md`]: name,
      ...lookalikes[name],
    });
    for (const [name, space] of spaces) await seedFiles(space, own(name));
    for (const [name, space] of spaces) {
      expect(await contents(space), name).toEqual(own(name));
    }
    expect(await driver.namespace('x').remove(p('same.md'), { op: operationId() })).toBe(true);
    expect(await driver.read(p('same.md'))).toMatchObject({ kind: 'file', content: 'in parent' });
    expect(await driver.namespace('x').namespace('y').read(p('same.md'))).toMatchObject({
      kind: 'file',
      content: 'in x/y',
    });
  });

  // --- replays -------------------------------------------------------------------------------------

  if (suite.capabilities.replaySafe === true) {
    test('driver (replaySafe): a write replayed with its op after it succeeded gives the first version and writes nothing, even after another write', async () => {
      const driver = await suite.files();
      const base = await put(driver, 'w.md', 'v1');
      const op = operationId();
      const first = await driver.write(p('w.md'), 'v2', { op, expect: { version: base.version } });
      // Replayed at once: the version it expected is gone, yet the replay is no CONFLICT.
      const again = await driver.write(p('w.md'), 'v2', { op, expect: { version: base.version } });
      expect(again.version).toBe(first.version);
      await put(driver, 'w.md', 'v3 by another writer');
      const late = await driver.write(p('w.md'), 'v2', { op, expect: { version: base.version } });
      expect(late.version).toBe(first.version);
      expect(await driver.read(p('w.md'))).toMatchObject({ kind: 'file', content: 'v3 by another writer' });
      // A write without expectation is not applied twice either.
      const plain = operationId();
      await driver.write(p('w.md'), 'v4', { op: plain });
      await put(driver, 'w.md', 'v5 by another writer');
      await driver.write(p('w.md'), 'v4', { op: plain });
      expect(await driver.read(p('w.md'))).toMatchObject({ kind: 'file', content: 'v5 by another writer' });
    });

    test('driver (replaySafe): a write with { absent: true } replayed with its op is no CONFLICT and writes nothing', async () => {
      const driver = await suite.files();
      const op = operationId();
      const first = await driver.write(p('a.md'), 'created', { op, expect: { absent: true } });
      const again = await driver.write(p('a.md'), 'created', { op, expect: { absent: true } });
      expect(again.version).toBe(first.version);
      await put(driver, 'a.md', 'replaced by another writer');
      await driver.write(p('a.md'), 'created', { op, expect: { absent: true } });
      expect(await driver.read(p('a.md'))).toMatchObject({
        kind: 'file',
        content: 'replaced by another writer',
      });
    });

    test('driver (replaySafe): a remove replayed with its op says true again and removes nothing that came since', async () => {
      const driver = await suite.files();
      await seedFiles(driver, { 'r.md': 'first', 'dir/a.md': 'a' });
      const op = operationId();
      expect(await driver.remove(p('r.md'), { op })).toBe(true);
      expect(await driver.remove(p('r.md'), { op })).toBe(true);
      await put(driver, 'r.md', 'created again');
      expect(await driver.remove(p('r.md'), { op })).toBe(true);
      expect(await driver.read(p('r.md'))).toMatchObject({ kind: 'file', content: 'created again' });
      const dirOp = operationId();
      expect(await driver.remove(p('dir'), { op: dirOp })).toBe(true);
      await put(driver, 'dir/b.md', 'b');
      expect(await driver.remove(p('dir'), { op: dirOp })).toBe(true);
      expect(await contents(driver)).toEqual({ 'dir/b.md': 'b', 'r.md': 'created again' });
    });

    test('driver (replaySafe): a move replayed with its op succeeds again and moves nothing that came since', async () => {
      const driver = await suite.files();
      await seedFiles(driver, { 'from.md': 'moved', 'dir/a.md': 'a' });
      const op = operationId();
      await driver.move(p('from.md'), p('to.md'), { op });
      await driver.move(p('from.md'), p('to.md'), { op });
      await put(driver, 'from.md', 'new at the source');
      await driver.move(p('from.md'), p('to.md'), { op });
      const dirOp = operationId();
      await driver.move(p('dir'), p('moved/dir'), { op: dirOp });
      await put(driver, 'dir/b.md', 'b');
      await driver.move(p('dir'), p('moved/dir'), { op: dirOp });
      expect(await contents(driver)).toEqual({
        'dir/b.md': 'b',
        'from.md': 'new at the source',
        'moved/dir/a.md': 'a',
        'to.md': 'moved',
      });
    });

    if (methods.update) {
      test("driver (replaySafe): an update replayed with its op says 'file' again and does not edit twice", async () => {
        const driver = await suite.files();
        await put(driver, 'u.md', 'count');
        const op = operationId();
        const edit = (content: string) => `${content}+1`;
        expect(await driver.update!(p('u.md'), edit, { op })).toBe('file');
        expect(await driver.update!(p('u.md'), edit, { op })).toBe('file');
        expect(await driver.read(p('u.md'))).toMatchObject({ kind: 'file', content: 'count+1' });
      });
    }
  }
}
