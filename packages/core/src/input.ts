// Tool input comes from a model and is untrusted (SPEC section 1). Everything is checked here, at
// the door; the commands below this point work with the types as declared.
import { MemoryToolError } from './errors.js';
import {
  type CreateCommand,
  type DeleteCommand,
  type InsertCommand,
  MEMORY_COMMANDS,
  type MemoryCommand,
  type MemoryCommandName,
  type RenameCommand,
  type StrReplaceCommand,
  type ViewCommand,
} from './types.js';

function invalidInput(message: string): MemoryToolError {
  return new MemoryToolError('INVALID_INPUT', message);
}

function describe(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value)}`;
  if (typeof value === 'number') return `the number ${value}`;
  return `a ${typeof value}`;
}

type Fields = Record<string, unknown>;

function requireObject(input: unknown, command: string): Fields {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidInput(
      `Invalid input for the \`${command}\` command: expected an object, got ${describe(input)}.`,
    );
  }
  return input as Fields;
}

function requireString(fields: Fields, name: string, command: string): string {
  const value = fields[name];
  if (typeof value !== 'string') {
    throw invalidInput(
      `Invalid input for the \`${command}\` command: \`${name}\` must be a string, got ${describe(value)}.`,
    );
  }
  return value;
}

function optionalString(fields: Fields, name: string, command: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  return requireString(fields, name, command);
}

function requireInteger(fields: Fields, name: string, command: string): number {
  const value = fields[name];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw invalidInput(
      `Invalid input for the \`${command}\` command: \`${name}\` must be an integer, got ${describe(value)}.`,
    );
  }
  return value;
}

/** Renders a view_range as the model sent it, for messages. */
function showRange(value: unknown): string {
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * Checks `view_range` as far as its shape allows (SPEC section 4.1): two integers, `start >= 1`,
 * and `end >= start` unless `end` is -1. Whether `start` lies in the file is checked later.
 */
function viewRange(fields: Fields): [number, number] | undefined {
  const value = fields['view_range'];
  if (value === undefined || value === null) return undefined;
  if (
    !Array.isArray(value) ||
    value.length !== 2 ||
    !value.every((item) => typeof item === 'number' && Number.isInteger(item))
  ) {
    throw invalidInput(
      `Invalid \`view_range\` parameter: ${showRange(value)}. It should be a list of two integers [start, end].`,
    );
  }
  const [start, end] = value as [number, number];
  if (start < 1) {
    throw invalidInput(
      `Invalid \`view_range\` parameter: [${start}, ${end}]. Its first element \`${start}\` should be at least 1.`,
    );
  }
  if (end !== -1 && end < start) {
    throw invalidInput(
      `Invalid \`view_range\` parameter: [${start}, ${end}]. Its second element \`${end}\` should be larger or equal than its first \`${start}\`, or -1 to view to the end of the file.`,
    );
  }
  return [start, end];
}

export function parseView(input: unknown): ViewCommand {
  const fields = requireObject(input, 'view');
  const path = requireString(fields, 'path', 'view');
  const range = viewRange(fields);
  return range ? { command: 'view', path, view_range: range } : { command: 'view', path };
}

export function parseCreate(input: unknown): CreateCommand {
  const fields = requireObject(input, 'create');
  return {
    command: 'create',
    path: requireString(fields, 'path', 'create'),
    file_text: requireString(fields, 'file_text', 'create'),
  };
}

export function parseStrReplace(input: unknown): StrReplaceCommand & { new_str: string } {
  const fields = requireObject(input, 'str_replace');
  const path = requireString(fields, 'path', 'str_replace');
  const oldStr = requireString(fields, 'old_str', 'str_replace');
  const newStr = optionalString(fields, 'new_str', 'str_replace') ?? '';
  if (oldStr === '') throw invalidInput('No replacement was performed, old_str must not be empty.');
  return { command: 'str_replace', path, old_str: oldStr, new_str: newStr };
}

export function parseInsert(input: unknown): InsertCommand {
  const fields = requireObject(input, 'insert');
  return {
    command: 'insert',
    path: requireString(fields, 'path', 'insert'),
    insert_line: requireInteger(fields, 'insert_line', 'insert'),
    insert_text: requireString(fields, 'insert_text', 'insert'),
  };
}

export function parseDelete(input: unknown): DeleteCommand {
  const fields = requireObject(input, 'delete');
  return { command: 'delete', path: requireString(fields, 'path', 'delete') };
}

export function parseRename(input: unknown): RenameCommand {
  const fields = requireObject(input, 'rename');
  return {
    command: 'rename',
    old_path: requireString(fields, 'old_path', 'rename'),
    new_path: requireString(fields, 'new_path', 'rename'),
  };
}

/** The command name of a raw tool input, or an `INVALID_INPUT` error naming what is wrong. */
export function commandName(input: unknown): MemoryCommandName {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidInput(
      `Invalid memory tool input: expected an object with a \`command\` field, got ${describe(input)}.`,
    );
  }
  const command = (input as Fields)['command'];
  if (typeof command !== 'string' || !(MEMORY_COMMANDS as readonly string[]).includes(command)) {
    throw invalidInput(
      `Unknown memory command ${typeof command === 'string' ? `\`${command}\`` : describe(command)}. Expected one of: ${MEMORY_COMMANDS.join(', ')}.`,
    );
  }
  return command as MemoryCommandName;
}

/** Checks a whole raw tool input and returns it typed. */
export function parseCommand(input: unknown): MemoryCommand {
  switch (commandName(input)) {
    case 'view':
      return parseView(input);
    case 'create':
      return parseCreate(input);
    case 'str_replace':
      return parseStrReplace(input);
    case 'insert':
      return parseInsert(input);
    case 'delete':
      return parseDelete(input);
    case 'rename':
      return parseRename(input);
  }
}
