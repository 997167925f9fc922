// The driver group, namespaces: disjoint, nested, and checked by core on every driver.

import type { MemoryDriver } from '@memdir/core';
import { expect } from 'vitest';
import { operationId, type Suite } from '../suite.js';
import { contents, p, seedFiles } from './helpers.js';

export function driverNamespaceTests(suite: Suite): void {
  const { test } = suite;

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
}

/** Names no driver may accept: each could reach outside a namespace if joined into a key or path. */
const INVALID_NAMESPACES: ReadonlyArray<readonly [label: string, name: string]> = [
  ['empty', ''],
  ['.', '.'],
  ['..', '..'],
  ['a slash', 'a/b'],
  ['an escape', '../x'],
  ['129 characters', 'n'.repeat(129)],
  ['a leading dot', '.hidden'],
  ['a backslash', 'a\\b'],
  ['a NUL', 'a\u0000b'],
  ['a colon', 'a:b'],
  ['braces', '{a}'],
];

export function driverNamespaceRuleTests(suite: Suite): void {
  const { test } = suite;

  test("driver: namespace('') , '.', '..', 'a/b', '../x', a 129-character name and other invalid names throw TypeError, on the driver and its namespaces", async () => {
    const driver = await suite.files();
    for (const where of [driver, driver.namespace('ok')]) {
      for (const [label, name] of INVALID_NAMESPACES) {
        expect(() => where.namespace(name), label).toThrow(TypeError);
      }
    }
    // The longest valid name is fine.
    expect(() => driver.namespace('n'.repeat(128))).not.toThrow();
  });

  test("driver: namespaces 'a' and 'a.b', 'a' and 'ab', 'a' and 'a-b' are disjoint", async () => {
    const driver = await suite.files();
    const names = ['a', 'a.b', 'ab', 'a-b', 'a_b'];
    for (const name of names) {
      await driver.namespace(name).write(p('same.md'), `in ${name}`, { op: operationId() });
      await driver.namespace(name).write(p(`only-${name}.md`), name, { op: operationId() });
    }
    for (const name of names) {
      expect(await contents(driver.namespace(name)), name).toEqual({
        'same.md': `in ${name}`,
        [`only-${name}.md`]: name,
      });
    }
  });
}
