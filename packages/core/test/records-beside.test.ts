// `records.listBeside`: a page of one store and a record of another, in one driver call where the
// driver reads both at once (`listRecordsBeside`), else as `list` and `get` side by side.
import { describe, expect, it } from 'vitest';
import { wrapDriver } from '../src/driver/index.js';
import {
  createInMemoryDriver,
  createMemoryStore,
  type DriverRecordBeside,
  type DriverRecordQuery,
  type MemoryDriver,
} from '../src/index.js';

/** An in-memory driver whose `listRecordsBeside` is `beside` (or absent), counting its calls. */
function withBeside(answer: 'both' | 'null' | 'absent') {
  const calls: { query: DriverRecordQuery; beside: DriverRecordBeside }[] = [];
  const root = createInMemoryDriver();
  const wrap = (driver: MemoryDriver): MemoryDriver =>
    wrapDriver(driver, {
      namespace: (name: string) => wrap(driver.namespace(name)),
      listRecordsBeside:
        answer === 'absent'
          ? undefined
          : async (query, beside, options) => {
              calls.push({ query, beside });
              if (answer === 'null') return null;
              const [page, record] = await Promise.all([
                driver.listRecords!(query, options),
                beside.driver.readRecord!(beside.path, { ...options, content: beside.content }),
              ]);
              return { page, record };
            },
    });
  return { driver: wrap(root), calls };
}

async function fixture(answer: 'both' | 'null' | 'absent') {
  const { driver, calls } = withBeside(answer);
  const mine = createMemoryStore(driver, { namespace: 'mine' });
  const registry = createMemoryStore(driver, { namespace: 'registry' });
  await mine.records.create('/memories/a.md', 'a');
  await mine.records.create('/memories/b/c.md', 'c');
  await registry.records.create('/memories/stores/x.json', '{"id":"x"}');
  return { mine, registry, calls };
}

describe('records.listBeside', () => {
  it("reads in one driver call when the driver can: the other driver, the path in the driver's form", async () => {
    const { mine, registry, calls } = await fixture('both');
    const both = await mine.records.listBeside(
      { limit: 1 },
      { store: registry, path: '/memories/stores/x.json', content: true },
    );
    expect(calls).toHaveLength(1);
    expect(calls[0]!.beside.path).toBe('stores/x.json');
    expect(calls[0]!.beside.driver).toBe(registry.driver);
    expect(both.page).toEqual(await mine.records.list({ limit: 1 }));
    expect(both.record).toEqual(await registry.records.get('/memories/stores/x.json', { content: true }));
    const next = await mine.records.listBeside(
      { limit: 1, cursor: both.page.next! },
      { store: registry, path: '/memories/stores/x.json' },
    );
    expect(next.page.items.map((item) => item.path)).toEqual(['/memories/b/c.md']);
    expect(next.record?.content).toBeUndefined();
  });

  it('makes the two calls when the driver answers null, or has no listRecordsBeside', async () => {
    for (const answer of ['null', 'absent'] as const) {
      const { mine, registry, calls } = await fixture(answer);
      const both = await mine.records.listBeside(
        {},
        { store: registry, path: '/memories/stores/x.json', content: true },
      );
      expect(calls).toHaveLength(answer === 'null' ? 1 : 0);
      expect(both.page.items.map((item) => item.path)).toEqual(['/memories/a.md', '/memories/b/c.md']);
      expect(both.record?.content).toBe('{"id":"x"}');
    }
  });

  it('gives null for no file at the path, and refuses a bad query or path as INVALID_INPUT', async () => {
    const { mine, registry } = await fixture('both');
    expect(
      (await mine.records.listBeside({}, { store: registry, path: '/memories/none' })).record,
    ).toBeNull();
    await expect(
      mine.records.listBeside({ limit: 0 }, { store: registry, path: '/memories/stores/x.json' }),
    ).rejects.toMatchObject({ code: 'INVALID_INPUT' });
    await expect(mine.records.listBeside({}, { store: registry, path: '/elsewhere' })).rejects.toMatchObject({
      code: 'INVALID_PATH',
    });
  });
});
