// Driver calls per command (issue 13's goals): on a server, each driver call is at least one round
// trip, so this is what the engine costs before any adapter is involved.
import { mkdtemp, rm } from 'node:fs/promises';
import path from 'node:path';
import { createInMemoryDriver, createMemoryStore, type MemoryDriver } from '@memdir/core';
import { createFsDriver } from '@memdir/fs';
import { COMMAND_CASES, COMMAND_SEED } from '../command-cases.js';
import { CallLog, countingDriver } from '../counting-driver.js';
import type { BenchSection } from './section.js';

/** The calls each case costs on `driver`, in order (each case runs once, on the state the previous left). */
async function callsPerCommand(driver: MemoryDriver): Promise<number[]> {
  const log = new CallLog();
  const store = createMemoryStore(countingDriver(driver, log));
  try {
    for (const command of COMMAND_SEED) await store.execute(command);
    const counts: number[] = [];
    for (const { command } of COMMAND_CASES) {
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
        COMMAND_CASES.forEach((testCase, index) => {
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
