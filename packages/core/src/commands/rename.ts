// SPEC section 4.6: move a file or a directory, creating the destination's parents.
import type { Engine } from '../engine/engine.js';
import { isMemoryToolError, MemoryToolError, unexpectedBackendFailure } from '../errors.js';
import { requireObject, requireString } from '../input.js';
import {
  CANNOT_RENAME_ROOT,
  destinationExists,
  moveIntoItself,
  parentIsAFile,
  pathNotFound,
  renamed,
} from '../messages.js';
import { isBeneath, toMemoryPath } from '../path.js';
import type { RenameCommand } from '../tool.js';
import type { CommandModule } from './command.js';

export const rename: CommandModule<RenameCommand> = {
  name: 'rename',

  parse(input) {
    const fields = requireObject(input, 'rename');
    return {
      command: 'rename',
      old_path: requireString(fields, 'old_path', 'rename'),
      new_path: requireString(fields, 'new_path', 'rename'),
    };
  },

  async run(engine: Engine, command, call) {
    const from = engine.path(command.old_path);
    const to = engine.path(command.new_path);
    if (from.driver === '' || to.driver === '')
      throw new MemoryToolError('ROOT_PROTECTED', CANNOT_RENAME_ROOT);
    const operation = engine.operation('rename', call);
    const notFound = () => new MemoryToolError('NOT_FOUND', pathNotFound(from.memory));
    // Onto itself or into itself: the driver is never asked. NOT_FOUND outranks both (SPEC section 1).
    if (to.driver === from.driver || isBeneath(to.driver, from.driver)) {
      if ((await operation.kind(from.driver)) === null) throw notFound();
      if (to.driver === from.driver)
        throw new MemoryToolError('ALREADY_EXISTS', destinationExists(to.memory));
      throw new MemoryToolError('PATH_CONFLICT', moveIntoItself(from.memory));
    }
    try {
      await operation.move(from.driver, to.driver);
    } catch (error) {
      if (!isMemoryToolError(error) || error.path === undefined) throw error;
      if (error.code === 'NOT_FOUND') throw notFound();
      if (error.code === 'ALREADY_EXISTS')
        throw new MemoryToolError('ALREADY_EXISTS', destinationExists(to.memory));
      if (error.code === 'PATH_CONFLICT' && isBeneath(to.driver, error.path)) {
        throw new MemoryToolError('PATH_CONFLICT', parentIsAFile(to.memory, toMemoryPath(error.path)));
      }
      throw unexpectedBackendFailure(error);
    }
    return renamed(from.memory, to.memory);
  },
};
