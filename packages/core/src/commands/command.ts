// The shape every command module has (`view.ts`, `create.ts`...): the check of its input and its
// run on the engine, so `index.ts` can list the six and the store dispatch on the name.
import type { Engine } from '../engine/engine.js';
import type { MemoryCallOptions, MemoryCommand } from '../tool.js';

/**
 * One command of the memory tool, in one module: how its input is checked (at the door, SPEC
 * section 1), how it runs on the driver, and which texts it answers with.
 */
export interface CommandModule<C extends MemoryCommand> {
  readonly name: C['command'];
  /** Checks an untrusted tool input and returns it typed; `INVALID_INPUT` otherwise. */
  parse(input: unknown): C;
  /** Runs a checked command and resolves to the text the model reads. */
  run(engine: Engine, command: C, call?: MemoryCallOptions): Promise<string>;
}
