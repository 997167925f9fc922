// Driver calls per command (issue 13's goals): on a server, each driver call is at least one round
// trip, so this is what the engine costs before any adapter is involved.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInMemoryDriver, createMemoryStore, type MemoryCommand, type MemoryDriver } from '@memdir/core';
import { createFsDriver } from '@memdir/fs';
import { CallLog, countingDriver } from '../counting-driver.js';
import type { BenchSection } from './section.js';

/** One measured command: what it is, how to run it, the goal. */
interface Case {
  label: string;
  command: MemoryCommand;
  goal: number;
}

const SEED: MemoryCommand[] = [
  { command: 'create', path: '/memories/notes/a.md', file_text: 'alpha\nbeta\ngamma' },
  { command: 'create', path: '/memories/notes/b.md', file_text: 'b' },
  { command: 'create', path: '/memories/notes/deep/c.md', file_text: 'c' },
  { command: 'create', path: '/memories/top.md', file_text: 'top' },
];

const CASES: Case[] = [
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
    label: 'rename a directory',
    command: { command: 'rename', old_path: '/memories/notes/deep', new_path: '/memories/moved' },
    goal: 1,
  },
  { label: 'delete a file', command: { command: 'delete', path: '/memories/new/x.md' }, goal: 1 },
  { label: 'delete a directory', command: { command: 'delete', path: '/memories/moved' }, goal: 1 },
];

/** The calls each case costs on `driver`, in order (each case runs once, on the state the previous left). */
async function callsPerCommand(driver: MemoryDriver): Promise<number[]> {
  const log = new CallLog();
  const store = createMemoryStore(countingDriver(driver, log));
  try {
    for (const command of SEED) await store.execute(command);
    const counts: number[] = [];
    for (const { command } of CASES) {
      log.reset();
      await store.execute(command).catch(() => {});
      counts.push(log.count);
    }
    return counts;
  } finally {
    await store.close();
  }
}

export function driverCallsSection(): BenchSection {
  return {
    id: 'calls',
    summary: 'driver calls per command for the in-memory and filesystem drivers (contract v2 goals)',
    async run(context) {
      const folder = await mkdtemp(path.join(context.workDir, 'calls-'));
      try {
        context.log('[calls] counting driver calls per command (in-memory, fs)');
        const memory = await callsPerCommand(createInMemoryDriver());
        const fs = await callsPerCommand(createFsDriver({ root: folder }));
        const lines = [
          '## Driver calls per command',
          '',
          'Calls the engine makes to the driver for each command (each is at least one round trip on a server).',
          '',
          '| command | in-memory | fs | goal | result |',
          '|---|---:|---:|---:|---|',
        ];
        CASES.forEach((testCase, index) => {
          const pass = memory[index]! <= testCase.goal && fs[index]! <= testCase.goal;
          lines.push(
            `| ${testCase.label} | ${memory[index]} | ${fs[index]} | ${testCase.goal === 1 ? '1' : `<= ${testCase.goal}`} | ${pass ? 'PASS' : 'ABOVE'} |`,
          );
        });
        return lines.join('\n');
      } finally {
        await rm(folder, { recursive: true, force: true });
      }
    },
  };
}
