// Tool input comes from a model and is untrusted (SPEC section 1). The readers here check one field
// each, at the door; each command's `parse` (in commands/) is built from them, and the code below
// the parsers works with the types as declared.
import { MemoryToolError } from './errors.js';
import {
  fieldNotAnInteger,
  fieldNotAString,
  fieldNotWellFormed,
  inputNotAnObject,
  notAnObject,
  unknownCommand,
} from './messages.js';
import { hasLoneSurrogate } from './path.js';
import { MEMORY_COMMANDS, type MemoryCommandName } from './tool.js';

/** The fields of a tool input. */
export type Fields = Record<string, unknown>;

export function invalidInput(message: string): MemoryToolError {
  return new MemoryToolError('INVALID_INPUT', message);
}

/** The input as an object of fields, or `INVALID_INPUT`. */
export function requireObject(input: unknown, command: string): Fields {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidInput(notAnObject(command, input));
  }
  return input as Fields;
}

export function requireString(fields: Fields, name: string, command: string): string {
  const value = fields[name];
  if (typeof value !== 'string') throw invalidInput(fieldNotAString(command, name, value));
  return value;
}

/**
 * A text the store would write or match (`file_text`, `old_str`, `new_str`, `insert_text`): a
 * string that UTF-8 can hold, so no unpaired surrogate (SPEC section 1).
 */
export function requireText(fields: Fields, name: string, command: string): string {
  const value = requireString(fields, name, command);
  if (hasLoneSurrogate(value)) throw invalidInput(fieldNotWellFormed(command, name));
  return value;
}

/** An optional text field: `undefined` when omitted or `null`. */
export function optionalText(fields: Fields, name: string, command: string): string | undefined {
  const value = fields[name];
  if (value === undefined || value === null) return undefined;
  return requireText(fields, name, command);
}

export function requireInteger(fields: Fields, name: string, command: string): number {
  const value = fields[name];
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    throw invalidInput(fieldNotAnInteger(command, name, value));
  }
  return value;
}

/** The command name of a raw tool input, or an `INVALID_INPUT` error naming what is wrong. */
export function commandName(input: unknown): MemoryCommandName {
  if (typeof input !== 'object' || input === null || Array.isArray(input)) {
    throw invalidInput(inputNotAnObject(input));
  }
  const command = (input as Fields)['command'];
  if (typeof command !== 'string' || !(MEMORY_COMMANDS as readonly string[]).includes(command)) {
    throw invalidInput(unknownCommand(command, MEMORY_COMMANDS));
  }
  return command as MemoryCommandName;
}
