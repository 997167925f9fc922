import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInMemoryDriver, createMemoryStore } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CallLog, countingDriver } from '../src/counting-driver.js';
import { driverCallsSection } from '../src/sections/driver-calls.js';

let workDir: string;
beforeEach(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'memdir-bench-calls-'));
});
afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('the driver-calls section', () => {
  it('counts each call the engine makes, namespaced drivers included', async () => {
    const log = new CallLog();
    const store = createMemoryStore(countingDriver(createInMemoryDriver(), log), { namespace: 'n' });
    await store.create({ command: 'create', path: '/memories/a', file_text: 'x' });
    await store.insert({ command: 'insert', path: '/memories/a', insert_line: 0, insert_text: 'y' });
    await store.view({ command: 'view', path: '/memories' });
    expect(log.calls).toEqual(['write', 'read', 'write', 'describe']);
  });

  it('reports every command for the in-memory and fs drivers, all within the contract v2 goals', async () => {
    const report = await driverCallsSection().run({ quick: true, workDir, log: () => {} });
    const rows = report.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| command'));
    expect(rows.map((row) => row.split(' | ')[0]!.slice(2))).toEqual([
      'view a file',
      'view a directory',
      'view /memories',
      'view a missing path',
      'create a new file',
      'create over a file',
      'str_replace',
      'insert',
      'rename a file',
      'rename a directory',
      'delete a file',
      'delete a directory',
    ]);
    for (const row of rows) expect(row.endsWith('| PASS |')).toBe(true);
  });
});
