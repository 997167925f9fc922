// SPEC section 4.3: replace the one occurrence of `old_str`.

import type { Engine } from '../engine/context.js';
import { editFile } from '../engine/edit.js';
import { findOccurrences, linesOfOffsets } from '../engine/match.js';
import { MemoryToolError } from '../errors.js';
import { invalidInput, optionalText, requireObject, requireString, requireText } from '../input.js';
import { EMPTY_OLD_STR, edited, MAX_MATCH_LINES, multipleMatches, noMatch, numberLine } from '../messages.js';
import type { StrReplaceCommand } from '../types.js';
import type { CommandModule } from './command.js';

type StrReplace = StrReplaceCommand & { new_str: string };

/**
 * The snippet of the new content around the change: lines `max(0, k-2)` to `min(count, k+3)`
 * (exclusive, 0-based), where `k` is the line the replacement starts on.
 */
function snippet(updated: string, startLine: number): string {
  const lines = updated.split('\n');
  const from = Math.max(0, startLine - 2);
  const to = Math.min(lines.length, startLine + 3);
  const shown: string[] = [];
  for (let index = from; index < to; index++) shown.push(numberLine(index + 1, lines[index]!));
  return shown.join('\n');
}

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

  async run(engine: Engine, command) {
    const path = engine.path(command.path);
    const { old_str: oldStr, new_str: newStr } = command;
    return editFile(engine.operation(), path, (content) => {
      const found = findOccurrences(content, oldStr, MAX_MATCH_LINES);
      if (found.count === 0) throw new MemoryToolError('NO_MATCH', noMatch(oldStr, path.memory));
      if (found.count > 1) {
        throw new MemoryToolError(
          'MULTIPLE_MATCHES',
          multipleMatches(oldStr, linesOfOffsets(content, found.offsets), found.count),
        );
      }
      const at = found.offsets[0]!;
      const updated = content.slice(0, at) + newStr + content.slice(at + oldStr.length);
      return { updated, result: edited(snippet(updated, linesOfOffsets(content, [at])[0]! - 1)) };
    });
  },
};
