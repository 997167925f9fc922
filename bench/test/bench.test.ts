import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createInMemoryStore } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  type BenchConfig,
  measureCommands,
  measureWorkload,
  runBench,
  VerificationError,
  verifyAgreement,
} from '../src/bench.js';
import { renderReport } from '../src/report.js';
import { listingWorkload, mixedIteration, mixedWorkload } from '../src/workloads.js';

let workDir: string;
const lines: string[] = [];

function config(overrides: Partial<BenchConfig> = {}): BenchConfig {
  const quick = { warmupMs: 1, roundMs: 1, minUnits: 1, rounds: 2 };
  return {
    timing: { mixed: quick, listing: quick },
    workloads: [mixedWorkload(), listingWorkload(3, 4)],
    workDir,
    createMemdirStore: (root) => createFsStore({ root }),
    log: (line) => lines.push(line),
    ...overrides,
  };
}

beforeEach(async () => {
  workDir = await mkdtemp(path.join(os.tmpdir(), 'memdir-bench-test-'));
  lines.length = 0;
});

afterEach(async () => {
  await rm(workDir, { recursive: true, force: true });
});

describe('the mixed loop', () => {
  it('uses each of the six commands, with a directory view and a file view', () => {
    const commands = mixedIteration(7);
    expect(commands.map((command) => command.command)).toEqual([
      'create',
      'view',
      'str_replace',
      'insert',
      'view',
      'rename',
      'delete',
    ]);
    // A new file each iteration: the reference refuses create on an existing file.
    expect(mixedIteration(8)[0]).not.toEqual(commands[0]);
  });
});

describe('verifyAgreement', () => {
  it('finds the filesystem store and the reference agree, apart from what SPEC section 9 allows', async () => {
    const warnings = await verifyAgreement(config());
    expect(warnings.length).toBeGreaterThan(0);
    for (const warning of warnings) expect(warning).toContain('directory size(s) differ');
  });

  it('fails when the stores disagree (a store that does not read the folder)', async () => {
    await expect(verifyAgreement(config({ createMemdirStore: () => createInMemoryStore() }))).rejects.toThrow(
      VerificationError,
    );
  });
});

describe('measureWorkload', () => {
  it('times alternating rounds of both tools and takes the medians', async () => {
    const warnings: string[] = [];
    for (const workload of [mixedWorkload(), listingWorkload(3, 4)]) {
      const result = await measureWorkload(workload, config(), warnings);
      expect(result.rounds.memdir).toHaveLength(2);
      expect(result.rounds.reference).toHaveLength(2);
      expect(result.median.memdir).toBeGreaterThan(0);
      expect(result.ratio).toBeCloseTo(result.median.memdir / result.median.reference);
    }
    // Rounds alternate: reference first, then memdir.
    const rounds = lines.filter((line) => line.includes('round 1/2'));
    expect(rounds[0]).toContain('reference');
    expect(rounds[1]).toContain('memdir');
  });
});

describe('measureCommands', () => {
  it('gives a mean latency for each call of the mixed loop, for both tools', async () => {
    const breakdown = await measureCommands(config(), 20);
    expect(breakdown.rows.map((row) => row.label)).toEqual([
      'create',
      'view file',
      'str_replace',
      'insert',
      'view small dir',
      'rename',
      'delete',
    ]);
    for (const row of breakdown.rows) {
      expect(row.micros.memdir).toBeGreaterThan(0);
      expect(row.micros.reference).toBeGreaterThan(0);
    }
  });
});

describe('runBench', () => {
  it('reports a table row per workload with PASS or BELOW, and removes its work folder', async () => {
    const benchDir = path.join(workDir, 'run');
    const result = await runBench(config({ workDir: benchDir }));
    const report = renderReport(result, { mode: 'quick', machine: 'test machine' });
    expect(report).toContain(
      '| workload | memdir ops/s | reference ops/s | ratio memdir/reference | target | result |',
    );
    expect(report).toMatch(/\| mixed: .* \| >= 1\.00x \| (PASS|BELOW) \|/);
    expect(report).toMatch(
      /\| listing: view \/memories of 12 files in 3 dirs \| .* \| >= 10\.00x \| (PASS|BELOW) \|/,
    );
    expect(await readdir(workDir)).toEqual([]);
  });
});
