// SPEC section 4.2: write a whole file, creating its parents.
import type { CommandPath, Engine } from '../engine/engine.js';
import type { Operation } from '../engine/operation.js';
import { isMemoryToolError, MemoryToolError, unexpectedBackendFailure } from '../errors.js';
import { requireObject, requireString, requireText } from '../input.js';
import { created, fileAlreadyExists, isADirectory, parentIsAFile, tooLarge } from '../messages.js';
import { driverAncestors, isBeneath, toMemoryPath, utf8Length } from '../path.js';
import type { CreateCommand } from '../tool.js';
import type { CommandModule } from './command.js';

/**
 * Before `TOO_LARGE`, which SPEC section 1 reports last, every other error that applies: the path
 * is a directory, a parent is a file, or the file exists and may not be replaced. Only a refused
 * command pays for these calls.
 */
async function refuseTooLarge(operation: Operation, path: CommandPath, bytes: number): Promise<never> {
  const { overwrite, maxFileBytes } = operation.engine.options;
  const kind = await operation.kind(path.driver);
  if (kind === 'directory') throw new MemoryToolError('PATH_CONFLICT', isADirectory(path.memory));
  if (kind === 'file' && !overwrite)
    throw new MemoryToolError('ALREADY_EXISTS', fileAlreadyExists(path.memory));
  if (kind === null) {
    // The deepest ancestor that exists settles it: a directory has no file above it.
    for (const ancestor of driverAncestors(path.driver).reverse()) {
      const above = await operation.kind(ancestor);
      if (above === 'file') {
        throw new MemoryToolError('PATH_CONFLICT', parentIsAFile(path.memory, toMemoryPath(ancestor)));
      }
      if (above === 'directory') break;
    }
  }
  throw new MemoryToolError('TOO_LARGE', tooLarge(path.memory, bytes, maxFileBytes));
}

export const create: CommandModule<CreateCommand> = {
  name: 'create',

  parse(input) {
    const fields = requireObject(input, 'create');
    return {
      command: 'create',
      path: requireString(fields, 'path', 'create'),
      file_text: requireText(fields, 'file_text', 'create'),
    };
  },

  async run(engine: Engine, command, call) {
    const path = engine.path(command.path);
    if (path.driver === '') throw new MemoryToolError('PATH_CONFLICT', isADirectory(path.memory));
    const { overwrite, maxFileBytes } = engine.options;
    const operation = engine.operation('create', call);
    const bytes = utf8Length(command.file_text);
    if (bytes > maxFileBytes) await refuseTooLarge(operation, path, bytes);
    try {
      await operation.write(
        path.driver,
        command.file_text,
        overwrite ? undefined : { absent: true },
        overwrite ? ['PATH_CONFLICT'] : ['PATH_CONFLICT', 'CONFLICT'],
      );
    } catch (error) {
      if (!isMemoryToolError(error) || error.path === undefined) throw error;
      if (error.code === 'CONFLICT')
        throw new MemoryToolError('ALREADY_EXISTS', fileAlreadyExists(path.memory));
      if (error.code === 'PATH_CONFLICT') {
        if (error.path === path.driver) throw new MemoryToolError('PATH_CONFLICT', isADirectory(path.memory));
        if (isBeneath(path.driver, error.path)) {
          throw new MemoryToolError('PATH_CONFLICT', parentIsAFile(path.memory, toMemoryPath(error.path)));
        }
        throw unexpectedBackendFailure(error);
      }
      throw error;
    }
    return created(path.memory);
  },
};
