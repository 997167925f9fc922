// The change commands the history section measures (issue 18): each one repeatable any number of
// times on one store, the n-th run changing what the (n-1)-th left, so that the same command can be
// timed thousands of times with history on and off alike.
import type { MemoryStore } from '@memdir/core';

export interface ChangeCase {
  readonly label: string;
  /** Makes what the first run needs (untimed, once per store). */
  setup(store: MemoryStore): Promise<void>;
  /** Makes what runs `from` to `from + count - 1` need (untimed, before each round). */
  before?(store: MemoryStore, from: number, count: number): Promise<void>;
  /** The n-th run of the command. */
  run(store: MemoryStore, n: number): Promise<unknown>;
}

export const CHANGE_CASES: readonly ChangeCase[] = [
  {
    label: 'create a new file',
    setup: async () => {},
    run: (store, n) =>
      store.create({ command: 'create', path: `/memories/new/f${n}.md`, file_text: `new ${n}\n` }),
  },
  {
    label: 'create over a file',
    setup: async (store) =>
      void (await store.create({ command: 'create', path: '/memories/replace.md', file_text: 'v\n' })),
    run: (store, n) =>
      store.create({ command: 'create', path: '/memories/replace.md', file_text: `v${n}\n` }),
  },
  {
    label: 'str_replace',
    setup: async (store) =>
      void (await store.create({
        command: 'create',
        path: '/memories/edit.md',
        file_text: 'head\ntoken-0\ntail\n',
      })),
    run: (store, n) =>
      store.str_replace({
        command: 'str_replace',
        path: '/memories/edit.md',
        old_str: `token-${n}`,
        new_str: `token-${n + 1}`,
      }),
  },
  {
    label: 'insert',
    setup: async (store) =>
      void (await store.create({ command: 'create', path: '/memories/insert.md', file_text: 'head\n' })),
    run: (store, n) =>
      store.insert({
        command: 'insert',
        path: '/memories/insert.md',
        insert_line: 1,
        insert_text: `line ${n}`,
      }),
  },
  {
    label: 'delete a file',
    setup: async () => {},
    before: async (store, from, count) => {
      for (let n = from; n < from + count; n++) {
        await store.create({ command: 'create', path: `/memories/del/f${n}.md`, file_text: `gone ${n}\n` });
      }
    },
    run: (store, n) => store.delete({ command: 'delete', path: `/memories/del/f${n}.md` }),
  },
  {
    label: 'rename a file',
    setup: async (store) =>
      void (await store.create({ command: 'create', path: '/memories/ren/a0.md', file_text: 'moving\n' })),
    run: (store, n) =>
      store.rename({
        command: 'rename',
        old_path: `/memories/ren/a${n}.md`,
        new_path: `/memories/ren/a${n + 1}.md`,
      }),
  },
];
