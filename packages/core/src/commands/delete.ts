// SPEC section 4.5: delete a file, or a directory with everything beneath it.
import type { Engine } from '../engine/engine.js';
import { MemoryToolError } from '../errors.js';
import { requireObject, requireString } from '../input.js';
import { CANNOT_DELETE_ROOT, deleted, pathNotFound } from '../messages.js';
import type { DeleteCommand } from '../tool.js';
import type { CommandModule } from './command.js';

export const del: CommandModule<DeleteCommand> = {
  name: 'delete',

  parse(input) {
    const fields = requireObject(input, 'delete');
    return { command: 'delete', path: requireString(fields, 'path', 'delete') };
  },

  async run(engine: Engine, command, call) {
    const path = engine.path(command.path);
    if (path.driver === '') throw new MemoryToolError('ROOT_PROTECTED', CANNOT_DELETE_ROOT);
    if (!(await engine.operation('delete', call).remove(path.driver))) {
      throw new MemoryToolError('NOT_FOUND', pathNotFound(path.memory));
    }
    return deleted(path.memory);
  },
};
