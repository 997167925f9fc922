// SPEC section 4.4: insert a line after `insert_line`.

import { editFile } from '../engine/edit.js';
import type { Engine } from '../engine/engine.js';
import { requireInteger, requireObject, requireString, requireText } from '../input.js';
import type { InsertCommand } from '../tool.js';
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

  async run(engine: Engine, command, call) {
    const path = engine.path(command.path);
    const text = command.insert_text.endsWith('\n') ? command.insert_text.slice(0, -1) : command.insert_text;
    return editFile(engine.operation('insert', call), path, {
      kind: 'insert',
      line: command.insert_line,
      text,
    });
  },
};
