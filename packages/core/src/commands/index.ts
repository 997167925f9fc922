// The six commands, by name: `execute` is a lookup in this table.
import type { Engine } from '../engine/engine.js';
import { commandName } from '../input.js';
import type { MemoryCallOptions, MemoryCommand, MemoryCommandName } from '../tool.js';
import type { CommandModule } from './command.js';
import { create } from './create.js';
import { del } from './delete.js';
import { insert } from './insert.js';
import { rename } from './rename.js';
import { strReplace } from './str-replace.js';
import { view } from './view.js';

type Table = { [Name in MemoryCommandName]: CommandModule<Extract<MemoryCommand, { command: Name }>> };

export const COMMANDS: Table = {
  view,
  create,
  str_replace: strReplace,
  insert,
  delete: del,
  rename,
};

/** Checks a whole raw tool input and returns it typed (`INVALID_INPUT` otherwise). */
export function parseCommand(input: unknown): MemoryCommand {
  return COMMANDS[commandName(input)].parse(input);
}

/** Runs an already parsed command. */
export function runCommand(
  engine: Engine,
  command: MemoryCommand,
  call?: MemoryCallOptions,
): Promise<string> {
  const module = COMMANDS[command.command] as CommandModule<MemoryCommand>;
  return module.run(engine, command, call);
}
