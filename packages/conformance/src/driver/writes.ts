// The driver group, writes: `write` with its refusals and compare-and-swap, `update`.
import { expect } from 'vitest';
import { type DriverMethods, operationId, type Suite } from '../suite.js';
import { contents, expectRefusal, p, put, seedFiles } from './helpers.js';

export function driverWriteTests(suite: Suite, methods: DriverMethods): void {
  const { test } = suite;

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
}
