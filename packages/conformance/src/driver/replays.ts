// The driver group, replays of an operation id (capabilities.replaySafe).
import { expect } from 'vitest';
import { type DriverMethods, operationId, type Suite } from '../suite.js';
import { contents, p, put, seedFiles } from './helpers.js';

export function driverReplayTests(suite: Suite, methods: DriverMethods): void {
  const { test } = suite;

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
