// A store the application made read-only (a read-only token of `memdir serve`, a view of the past
// made by `asOf`): `view` runs as usual, every change command is refused before it reaches the
// store, with a clear text for the model.
import { COMMANDS } from './commands/index.js';
import { MemoryToolError } from './errors.js';
import { commandName } from './input.js';
import { readOnly } from './messages.js';
import type { MemoryCallOptions, MemoryStore } from './tool.js';

const CHANGES = ['create', 'str_replace', 'insert', 'delete', 'rename'] as const;

/**
 * `store` with its change commands refused: `create`, `str_replace`, `insert`, `delete` and
 * `rename` (also through `execute`) fail with `READ_ONLY`, the model reading "The memory directory is
 * read-only ({why}): the {command} command was not run." `view` goes to `store`. Input is still
 * checked first, so a malformed call gets its `INVALID_INPUT` as anywhere else. `close()` closes
 * `store`.
 *
 * @param why how it is read-only, in a few words the model can act on ("this token may only read").
 */
export function readOnlyStore(store: MemoryStore, why: string): MemoryStore {
  if (typeof why !== 'string' || why.length === 0) {
    throw new TypeError('readOnlyStore: give a reason, e.g. "this token may only read"');
  }
  // The input is checked as the store would check it, so a malformed call gets its INVALID_INPUT.
  const refuse = async (name: (typeof CHANGES)[number], input: unknown): Promise<never> => {
    COMMANDS[name].parse(input);
    throw new MemoryToolError('READ_ONLY', readOnly(name, why));
  };
  const readonly: MemoryStore = {
    view: (command, call?: MemoryCallOptions) => store.view(command, call),
    create: (input) => refuse('create', input),
    str_replace: (input) => refuse('str_replace', input),
    insert: (input) => refuse('insert', input),
    delete: (input) => refuse('delete', input),
    rename: (input) => refuse('rename', input),
    async execute(input, call) {
      const name = commandName(input);
      if ((CHANGES as readonly string[]).includes(name))
        return refuse(name as (typeof CHANGES)[number], input);
      return store.execute(input, call);
    },
    close: () => store.close(),
    capabilities: store.capabilities,
  };
  return readonly;
}
