// The tool input of a memory command (view, create, str_replace, insert, delete, rename) from its
// flags and arguments, checked as far as the command line can: the engine judges the rest, with the
// texts the model gets.
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { expectPositionals, type Options, str, unknownCommand, type Values } from './args.js';
import { CliUsageError } from './errors.js';
import { type CliIo, readAll } from './io.js';

/** `--text` or `--file`: where `create` and `insert` take their text. */
export const TEXT_SOURCE = {
  text: { type: 'string', short: 't' },
  file: { type: 'string', short: 'f' },
} satisfies Options;

/** Parses an integer flag; the engine judges its range (so the model-facing error texts apply). */
function numberFlag(command: string, flag: string, value: string): number {
  const number = Number(value.trim());
  if (value.trim() === '' || !Number.isFinite(number)) {
    throw new CliUsageError(`${command}: --${flag} expects a number, got ${JSON.stringify(value)}`);
  }
  return number;
}

/** The text of `--text`, `--file` or `-` (stdin): exactly one of them. */
async function textSource(
  command: string,
  values: Values,
  positionals: string[],
  io: CliIo,
): Promise<string> {
  const text = str(values, 'text');
  const file = str(values, 'file');
  if (positionals.length > 1 && positionals[1] !== '-') {
    throw new CliUsageError(`${command}: unexpected argument ${JSON.stringify(positionals[1])}`, {
      hint: `Run "memdir ${command} --help" for usage.`,
    });
  }
  const dash = positionals[1] === '-';
  const given = [text !== undefined, file !== undefined, dash].filter(Boolean).length;
  if (given !== 1) {
    throw new CliUsageError(
      `${command}: give the text with exactly one of --text TEXT, --file FILE, or - (stdin)`,
      { hint: `Run "memdir ${command} --help" for usage.` },
    );
  }
  if (text !== undefined) return text;
  if (dash || file === '-') return readAll(io.stdin);
  try {
    return await readFile(resolve(io.cwd, file!), 'utf8');
  } catch (error) {
    throw new CliUsageError(`${command}: cannot read ${file}: ${(error as Error).message}`);
  }
}

/** The tool input for a memory command, from its flags. */
export async function toolInput(
  command: string,
  values: Values,
  positionals: string[],
  io: CliIo,
): Promise<object> {
  switch (command) {
    case 'view': {
      expectPositionals(command, positionals, 0, 1);
      const input: { command: 'view'; path: string; view_range?: number[] } = {
        command,
        path: positionals[0] ?? '/memories',
      };
      const range = str(values, 'range');
      if (range !== undefined) {
        const parts = range.split(',');
        if (parts.length !== 2) {
          throw new CliUsageError(
            `view: --range expects START,END (e.g. 1,5 or 3,-1), got ${JSON.stringify(range)}`,
          );
        }
        input.view_range = parts.map((part) => numberFlag(command, 'range', part));
      }
      return input;
    }
    case 'create': {
      expectPositionals(command, positionals, 1, 2);
      return { command, path: positionals[0], file_text: await textSource(command, values, positionals, io) };
    }
    case 'str_replace': {
      expectPositionals(command, positionals, 1, 1);
      const oldStr = str(values, 'old');
      if (oldStr === undefined) {
        throw new CliUsageError('str_replace: --old TEXT is required', {
          hint: 'Run "memdir str_replace --help" for usage.',
        });
      }
      return { command, path: positionals[0], old_str: oldStr, new_str: str(values, 'new') };
    }
    case 'insert': {
      expectPositionals(command, positionals, 1, 2);
      const line = str(values, 'line');
      if (line === undefined) {
        throw new CliUsageError('insert: --line N is required', {
          hint: 'Run "memdir insert --help" for usage.',
        });
      }
      return {
        command,
        path: positionals[0],
        insert_line: numberFlag(command, 'line', line),
        insert_text: await textSource(command, values, positionals, io),
      };
    }
    case 'delete':
      expectPositionals(command, positionals, 1, 1);
      return { command, path: positionals[0] };
    case 'rename':
      expectPositionals(command, positionals, 2, 2);
      return { command, old_path: positionals[0], new_path: positionals[1] };
    default:
      throw unknownCommand(command);
  }
}
