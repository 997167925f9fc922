import { describe, expect, it } from 'vitest';
import { COMMANDS, parseCommand } from '../src/commands/index.js';
import { isMemoryToolError } from '../src/index.js';
import { commandName } from '../src/input.js';

const parseInsert = (input: unknown) => COMMANDS.insert.parse(input);
const parseStrReplace = (input: unknown) => COMMANDS.str_replace.parse(input);
const parseView = (input: unknown) => COMMANDS.view.parse(input);

function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    if (isMemoryToolError(error)) return { code: error.code, message: error.message };
    throw error;
  }
  throw new Error('expected an INVALID_INPUT error');
}

describe('tool input checks (SPEC section 1)', () => {
  it('names the unknown command and the expected ones', () => {
    expect(failure(() => commandName({ command: 'move' }))).toEqual({
      code: 'INVALID_INPUT',
      message:
        'Unknown memory command `move`. Expected one of: view, create, str_replace, insert, delete, rename.',
    });
    expect(failure(() => commandName(null)).code).toBe('INVALID_INPUT');
    expect(failure(() => commandName({ command: 'hasOwnProperty' })).code).toBe('INVALID_INPUT');
  });

  it('says which field is missing or ill-typed, and what it got', () => {
    expect(failure(() => parseCommand({ command: 'create', path: '/memories/a' }))).toEqual({
      code: 'INVALID_INPUT',
      message: 'Invalid input for the `create` command: `file_text` must be a string, got nothing.',
    });
    expect(
      failure(() => parseInsert({ path: '/memories/a', insert_line: '1', insert_text: 'x' })).message,
    ).toBe('Invalid input for the `insert` command: `insert_line` must be an integer, got the string "1".');
    expect(
      failure(() => parseInsert({ path: '/memories/a', insert_line: 1.5, insert_text: 'x' })).message,
    ).toBe('Invalid input for the `insert` command: `insert_line` must be an integer, got the number 1.5.');
  });

  it('treats every integer as an integer, however large (the line check rejects it later)', () => {
    expect(parseInsert({ path: '/memories/a', insert_line: 1e20, insert_text: 'x' }).insert_line).toBe(1e20);
    expect(parseView({ path: '/memories/a', view_range: [1, 1e20] }).view_range).toEqual([1, 1e20]);
  });

  it('counts null optional fields as omitted', () => {
    expect(parseView({ path: '/memories/a', view_range: null })).toEqual({
      command: 'view',
      path: '/memories/a',
    });
    expect(parseStrReplace({ path: '/memories/a', old_str: 'x', new_str: null }).new_str).toBe('');
    expect(parseStrReplace({ path: '/memories/a', old_str: 'x' }).new_str).toBe('');
  });

  it('checks the shape of view_range before anything else', () => {
    for (const view_range of [[1], [1, 2, 3], ['1', 2], [1.5, 2], [0, 1], [3, 2], [1, -2], 'x', {}]) {
      expect(failure(() => parseView({ path: 'not even a path', view_range })).code).toBe('INVALID_INPUT');
    }
    expect(parseView({ path: '/memories/a', view_range: [2, -1] }).view_range).toEqual([2, -1]);
    expect(parseView({ path: '/memories/a', view_range: [2, 2] }).view_range).toEqual([2, 2]);
  });

  it('refuses an empty old_str with the SPEC message', () => {
    expect(failure(() => parseStrReplace({ path: '/memories/a', old_str: '' }))).toEqual({
      code: 'INVALID_INPUT',
      message: 'No replacement was performed, old_str must not be empty.',
    });
  });

  it('ignores fields a command does not use', () => {
    expect(parseCommand({ command: 'delete', path: '/memories/a', file_text: 5, view_range: 'x' })).toEqual({
      command: 'delete',
      path: '/memories/a',
    });
  });
});
