// The commands every section counts round trips (or driver calls) for, each with its goal from
// issues 8, 9 and 13: run once each, in this order, on a store seeded with COMMAND_SEED (each case
// runs on the state the previous one left).
import type { MemoryCommand } from '@memdir/core';

export const COMMAND_SEED: MemoryCommand[] = [
  { command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta\ngamma' },
  { command: 'create', path: '/memories/notes/b.md', file_text: 'b' },
  { command: 'create', path: '/memories/notes/deep/c.md', file_text: 'c' },
  { command: 'create', path: '/memories/top.md', file_text: 'top' },
];

/** One measured command: what it is, and the most round trips (or driver calls) it may cost. */
export interface CommandCase {
  label: string;
  command: MemoryCommand;
  goal: number;
}

export const COMMAND_CASES: CommandCase[] = [
  { label: 'view a file', command: { command: 'view', path: '/memories/notes/a.md' }, goal: 1 },
  { label: 'view a directory', command: { command: 'view', path: '/memories/notes' }, goal: 1 },
  { label: 'view /memories', command: { command: 'view', path: '/memories' }, goal: 1 },
  { label: 'view a missing path', command: { command: 'view', path: '/memories/missing.md' }, goal: 1 },
  {
    label: 'create a new file',
    command: { command: 'create', path: '/memories/new/x.md', file_text: 'x' },
    goal: 1,
  },
  {
    label: 'create over a file',
    command: { command: 'create', path: '/memories/top.md', file_text: 'y' },
    goal: 1,
  },
  {
    label: 'str_replace',
    command: { command: 'str_replace', path: '/memories/notes/a.md', old_str: 'beta', new_str: 'BETA' },
    goal: 2,
  },
  {
    label: 'insert',
    command: { command: 'insert', path: '/memories/notes/a.md', insert_line: 1, insert_text: 'one' },
    goal: 2,
  },
  {
    label: 'rename a file',
    command: { command: 'rename', old_path: '/memories/notes/b.md', new_path: '/memories/b.md' },
    goal: 1,
  },
  {
    label: 'rename a directory',
    command: { command: 'rename', old_path: '/memories/notes/deep', new_path: '/memories/moved' },
    goal: 1,
  },
  { label: 'delete a file', command: { command: 'delete', path: '/memories/new/x.md' }, goal: 1 },
  { label: 'delete a directory', command: { command: 'delete', path: '/memories/moved' }, goal: 1 },
];
