// The driver group, reads: capabilities, `read` and `stat`, `list`, `describe` against the reference fold.
import { createHash } from 'node:crypto';
import { foldListing, utf8Length } from '@memdir/core/driver';
import { expect } from 'vitest';
import { capabilityProblem, type DriverMethods, type Suite } from '../suite.js';
import {
  expectedEntries,
  expectListing,
  LOOKED_AT,
  listAll,
  p,
  put,
  seedFiles,
  sortedEntries,
  TREE,
} from './helpers.js';

export function driverReadTests(suite: Suite, methods: DriverMethods): void {
  const { test } = suite;

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

  test('driver: a listed contentMd5 is the MD5 of the file\u2019s UTF-8 bytes as it is now, and only a driver with listsContentMd5 lists one', async () => {
    const driver = await suite.files();
    await seedFiles(driver, TREE);
    const files: Record<string, string> = { ...TREE, 'notes/a.md': 'rewritten \u{1f600}' };
    await put(driver, 'notes/a.md', files['notes/a.md']!);
    const entries = await listAll(driver, '');
    const given = entries.filter((entry) => entry.contentMd5 !== undefined);
    if (suite.capabilities.listsContentMd5 !== true) {
      expect(
        given.map((entry) => entry.path),
        'contentMd5 without capabilities.listsContentMd5',
      ).toEqual([]);
      return;
    }
    expect(given.length, 'listsContentMd5, yet no entry has a contentMd5').toBeGreaterThan(0);
    for (const entry of given) {
      const md5 = createHash('md5').update(files[entry.path]!, 'utf8').digest('hex');
      expect(entry.contentMd5, `contentMd5 of ${JSON.stringify(entry.path)}`).toBe(md5);
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
}
