// The driver group, structure: `move` and `remove` with their refusals and literal names.
import { expect } from 'vitest';
import { operationId, type Suite } from '../suite.js';
import { contents, expectRefusal, p, seedFiles } from './helpers.js';

export function driverStructureTests(suite: Suite): void {
  const { test } = suite;

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
}
