// TEMPORARY until core's readOnlyStore lands on main.
import { type MemoryStore, MemoryToolError } from '@memdir/core';
export function readOnlyStore(store: MemoryStore, reason: string): MemoryStore {
  const execute = async (input: unknown, options?: unknown) => {
    const command = (input as { command?: unknown } | null)?.command;
    if (
      command !== 'view' &&
      typeof command === 'string' &&
      ['create', 'str_replace', 'insert', 'delete', 'rename'].includes(command)
    ) {
      throw new MemoryToolError('INVALID_INPUT' as never, `This memory is read-only: ${reason}.`);
    }
    return (store.execute as (i: unknown, o?: unknown) => Promise<string>)(input, options);
  };
  const one = (c: unknown) => execute(c);
  return {
    view: one,
    create: one,
    str_replace: one,
    insert: one,
    delete: one,
    rename: one,
    execute,
    close: () => store.close(),
  } as MemoryStore;
}
