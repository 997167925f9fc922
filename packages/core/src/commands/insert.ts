// SPEC section 4.4: insert a line after `insert_line`.
import type { Engine } from '../engine/context.js';
import { editFile } from '../engine/edit.js';
import { MemoryToolError } from '../errors.js';
import { requireInteger, requireObject, requireString, requireText } from '../input.js';
import { inserted, invalidInsertLine } from '../messages.js';
import type { InsertCommand } from '../types.js';
import type { CommandModule } from './command.js';

export const insert: CommandModule<InsertCommand> = {
  name: 'insert',

  parse(input) {
    const fields = requireObject(input, 'insert');
    return {
      command: 'insert',
      path: requireString(fields, 'path', 'insert'),
      insert_line: requireInteger(fields, 'insert_line', 'insert'),
      insert_text: requireText(fields, 'insert_text', 'insert'),
    };
  },

  async run(engine: Engine, command) {
    const path = engine.path(command.path);
    const line = command.insert_line;
    const text = command.insert_text.endsWith('\n') ? command.insert_text.slice(0, -1) : command.insert_text;
    return editFile(engine.operation(), path, (content) => {
      const lines = content.split('\n');
      if (line < 0 || line > lines.length) {
        throw new MemoryToolError('INVALID_LINE', invalidInsertLine(line, lines.length));
      }
      lines.splice(line, 0, text);
      return { updated: lines.join('\n'), result: inserted(path.memory) };
    });
  },
};
