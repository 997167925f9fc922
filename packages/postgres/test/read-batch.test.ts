// Reads of one namespace that arrive while several are in flight go together in one statement
// (read-batch.ts). Each gets what it would get sent alone: a file with its content and version, a
// directory for a path with files beneath it, nothing for a path with neither; in the namespace it
// was asked in, whatever the names hold. Reads that record their time (refreshOnRead) go alone.
import type { DriverPath } from '@memdir/core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPostgresDriver, type PostgresDriver } from '../src/index.js';
import { countingPool, dropSchema, freshSchema, testPool } from './helpers.js';

const admin = testPool();
const schema = freshSchema('mdt_reads');
/** The statements the driver sent, by kind: a lone read, a batch of reads, anything else. */
const sent = { read: 0, readMany: 0, other: 0 };
let driver: PostgresDriver;

beforeAll(async () => {
  // A pool whose connections count what the driver sends (the real server answers every one).
  const pool = countingPool(
    (text) => {
      if (text.includes('CROSS JOIN LATERAL')) sent.readMany++;
      else if (text.startsWith(`SELECT 'f' AS kind, content, version FROM`)) sent.read++;
      else sent.other++;
    },
    { max: 8 },
  );
  driver = createPostgresDriver({ pool, schema });
  await driver.setup();
});
afterAll(async () => {
  await driver.close();
  await dropSchema(admin, schema);
  await admin.end();
});

const op = () => globalThis.crypto.randomUUID().replaceAll('-', '');
const path = (text: string) => text as DriverPath;

function reset(): void {
  Object.assign(sent, { read: 0, readMany: 0, other: 0 });
}

/** Every read at once; each answer as kind:content, 'directory' or 'null'. */
async function readAll(paths: readonly string[], ns = driver as ReturnType<PostgresDriver['namespace']>) {
  const nodes = await Promise.all(paths.map((file) => ns.read(path(file))));
  return nodes.map((node) =>
    node === null ? 'null' : node.kind === 'directory' ? 'directory' : `file:${node.content}`,
  );
}

describe('concurrent reads of one namespace', () => {
  it('200 reads at once: files, directories and nothing, each answered as alone, in far fewer statements', async () => {
    const names = [
      'plain.md',
      'a/b/c.md',
      '100%_done[1].md',
      'it\'s "quoted" {x} *?.md',
      'dir with space/é/名前.md',
      'astral/\u{1f600}.md',
      'bmp/\ue000.md',
      'node_modules/x.md',
      '.hidden/y.md',
      'ab/c.md',
      'ab0.md',
      'ab.md',
    ];
    for (const [index, name] of names.entries()) {
      await driver.write(path(name), `content ${index}\u0000\r\n`, { op: op() });
    }
    const expected = new Map<string, string>();
    for (const [index, name] of names.entries()) expected.set(name, `file:content ${index}\u0000\r\n`);
    for (const directory of [
      'a',
      'a/b',
      'dir with space',
      'dir with space/é',
      'astral',
      'bmp',
      'node_modules',
      '.hidden',
      'ab',
    ]) {
      expected.set(directory, 'directory');
    }
    for (const missing of [
      'missing.md',
      'a/b/c.md/under',
      'a/missing',
      'a/b/c',
      'ab/c',
      'abc',
      '100%',
      '100%_done[1]',
      'astral/\u{1f600}',
      'a_',
      'ab.md/x',
    ]) {
      expected.set(missing, 'null');
    }
    const asked = Array.from({ length: 200 }, (_, index) => [...expected.keys()][index % expected.size]!);
    reset();
    expect(await readAll(asked)).toEqual(asked.map((name) => expected.get(name)));
    // The first few alone, the rest in batches of up to 128.
    expect(sent.readMany).toBeGreaterThan(0);
    expect(sent.read + sent.readMany).toBeLessThan(20);
    expect(sent.other).toBe(0);
  });

  it('a batch reads its own namespace only', async () => {
    const left = driver.namespace('left');
    const right = driver.namespace('right');
    await left.write(path('same.md'), 'left\n', { op: op() });
    await right.write(path('same.md'), 'right\n', { op: op() });
    await right.write(path('only-right/x.md'), 'x\n', { op: op() });
    reset();
    const [fromLeft, fromRight] = await Promise.all([
      readAll(
        Array.from({ length: 40 }, (_, index) => (index % 2 ? 'same.md' : 'only-right')),
        left,
      ),
      readAll(
        Array.from({ length: 40 }, (_, index) => (index % 2 ? 'same.md' : 'only-right')),
        right,
      ),
    ]);
    expect(fromLeft).toEqual(Array.from({ length: 40 }, (_, index) => (index % 2 ? 'file:left\n' : 'null')));
    expect(fromRight).toEqual(
      Array.from({ length: 40 }, (_, index) => (index % 2 ? 'file:right\n' : 'directory')),
    );
    expect(sent.readMany).toBeGreaterThan(0);
  });

  it('a read sees a write that ended before it began, in a batch too', async () => {
    const paths = Array.from({ length: 60 }, (_, index) => `seen/f${index}.md`);
    for (const file of paths) await driver.write(path(file), 'one\n', { op: op() });
    const first = await readAll(paths);
    expect(first).toEqual(paths.map(() => 'file:one\n'));
    await Promise.all(paths.map((file) => driver.write(path(file), 'two\n', { op: op() })));
    reset();
    expect(await readAll(paths)).toEqual(paths.map(() => 'file:two\n'));
    expect(sent.readMany).toBeGreaterThan(0);
  });

  it('reads that record their time go alone, each', async () => {
    await driver.write(path('touched.md'), 't\n', { op: op() });
    reset();
    const nodes = await Promise.all(
      Array.from({ length: 20 }, () => driver.read(path('touched.md'), { touch: true })),
    );
    expect(nodes.every((node) => node?.kind === 'file' && node.content === 't\n')).toBe(true);
    expect(sent.readMany).toBe(0);
    expect(sent.other).toBe(20);
  });
});
