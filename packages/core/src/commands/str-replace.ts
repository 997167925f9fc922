// SPEC section 4.3: replace the one occurrence of `old_str`.

import { editFile } from '../engine/edit.js';
import type { Engine } from '../engine/engine.js';
import { invalidInput, optionalText, requireObject, requireString, requireText } from '../input.js';
import { EMPTY_OLD_STR } from '../messages.js';
import type { StrReplaceCommand } from '../tool.js';
import type { CommandModule } from './command.js';

type StrReplace = StrReplaceCommand & { new_str: string };

export const strReplace: CommandModule<StrReplace> = {
  name: 'str_replace',

  parse(input) {
    const fields = requireObject(input, 'str_replace');
    const path = requireString(fields, 'path', 'str_replace');
    const oldStr = requireText(fields, 'old_str', 'str_replace');
    const newStr = optionalText(fields, 'new_str', 'str_replace') ?? '';
    if (oldStr === '') throw invalidInput(EMPTY_OLD_STR);
    return { command: 'str_replace', path, old_str: oldStr, new_str: newStr };
  },

  async run(engine: Engine, command, call) {
    const path = engine.path(command.path);
    return editFile(engine.operation('str_replace', call), path, {
      kind: 'str_replace',
      oldStr: command.old_str,
      newStr: command.new_str,
    });
  },
};
