import { mkdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import type { MemoryCommand } from '@memdir/core';
import {
  type Contender,
  type ContenderName,
  type MemdirStoreFactory,
  memdirContender,
  referenceContender,
  resultText,
} from './contenders.js';
import { median } from './stats.js';
import { smallTree, writeTree } from './tree.js';
import { type Comparison, compareExact, compareListing } from './verify.js';
import { LISTING_PATH, MIXED_DIRECTORY, MIXED_SETUP, mixedIteration, type Workload } from './workloads.js';

/** How long and how often each workload is timed. */
export interface Timing {
  /** Untimed warm-up per tool before the first round (JIT, page cache, thread pool). */
  warmupMs: number;
  /** The least time of one round; a round always ends on a whole unit. */
  roundMs: number;
  /** The least units of one round, for workloads whose unit is slow (a 10,000-file listing). */
  minUnits: number;
  /** Timed rounds per tool; the table shows the median round. */
  rounds: number;
}

export interface BenchConfig {
  /** Timing per workload id. */
  timing: Record<Workload['id'], Timing>;
  workloads: readonly Workload[];
  /** A folder the bench may fill and remove. */
  workDir: string;
  createMemdirStore: MemdirStoreFactory;
  /** Progress lines (stderr). */
  log: (line: string) => void;
}

export interface WorkloadResult {
  workload: Workload;
  /** ops/s of each round, in the order run. */
  rounds: Record<ContenderName, number[]>;
  median: Record<ContenderName, number>;
  /** memdir / reference, of the medians. */
  ratio: number;
}

/** Mean latency of each command of the mixed loop, per tool (`--by-command`). */
export interface CommandBreakdown {
  /** One row per call of {@link mixedIteration}, in its order: `create`, `view file`, ... */
  rows: { label: string; micros: Record<ContenderName, number> }[];
  iterations: number;
}

export interface BenchResult {
  results: WorkloadResult[];
  breakdown?: CommandBreakdown | undefined;
  /** Differences between the tools that SPEC section 9 makes on purpose. */
  warnings: string[];
}

/** Thrown when the tools disagree where SPEC.md says they agree: the timings would compare different work. */
export class VerificationError extends Error {
  override readonly name = 'VerificationError';
}

async function makeContenders(dir: string, config: BenchConfig): Promise<Record<ContenderName, Contender>> {
  const reference = await referenceContender(path.join(dir, 'reference'));
  await mkdir(path.join(dir, 'memdir'), { recursive: true });
  const memdir = memdirContender(path.join(dir, 'memdir'), config.createMemdirStore);
  return { memdir, reference };
}

async function closeAll(contenders: Record<ContenderName, Contender>): Promise<void> {
  await Promise.all([contenders.memdir.close(), contenders.reference.close()]);
}

/** Records one comparison: warnings for what SPEC section 9 allows, an error for anything else. */
function record(what: string, comparison: Comparison, warnings: string[], problems: string[]): void {
  for (const note of comparison.expected) warnings.push(`${what}: ${note}`);
  for (const note of comparison.unexpected) problems.push(`${what}: ${note}`);
}

/**
 * Checks, before anything is timed, that both tools return the same text for the same work: a
 * listing of a small tree, and each command of one mixed iteration. Differences SPEC section 9
 * makes on purpose come back as warnings; any other difference throws {@link VerificationError}.
 */
export async function verifyAgreement(config: BenchConfig): Promise<string[]> {
  const warnings: string[] = [];
  const problems: string[] = [];
  const dir = path.join(config.workDir, 'verify');
  const tools = await makeContenders(dir, config);
  try {
    // The small tree, written into each tool's folder the way the tool itself lays files out.
    for (const tool of [tools.reference, tools.memdir]) {
      await writeTree(path.join(tool.base, 'memories', 'tree'), smallTree());
    }
    const view = { command: 'view', path: '/memories/tree' } as const;
    record(
      'view /memories/tree (small tree)',
      compareListing(await resultText(tools.memdir, view), await resultText(tools.reference, view)),
      warnings,
      problems,
    );

    for (const command of MIXED_SETUP) {
      record(
        command.command,
        compareExact(await resultText(tools.memdir, command), await resultText(tools.reference, command)),
        warnings,
        problems,
      );
    }
    for (const command of mixedIteration(0)) {
      const ours = await resultText(tools.memdir, command);
      const theirs = await resultText(tools.reference, command);
      const isListing = command.command === 'view' && command.path === MIXED_DIRECTORY;
      record(
        `mixed ${command.command}${isListing ? ` ${MIXED_DIRECTORY}` : ''}`,
        isListing ? compareListing(ours, theirs) : compareExact(ours, theirs),
        warnings,
        problems,
      );
    }
  } finally {
    await closeAll(tools);
    await rm(dir, { recursive: true, force: true });
  }
  if (problems.length > 0) {
    throw new VerificationError(
      `The two tools disagree where SPEC.md says they agree, so their timings would not be comparable:\n- ${problems.join('\n- ')}`,
    );
  }
  return warnings;
}

/** Runs units until at least `timing.roundMs` passed and `timing.minUnits` ran; resolves to ops/s. */
async function timeRound(
  workload: Workload,
  tool: Contender,
  roundMs: number,
  minUnits: number,
): Promise<number> {
  // Collect the garbage of the previous round (the other tool's) before the clock starts, when
  // node runs with --expose-gc (the bench's start script does).
  (globalThis as { gc?: () => void }).gc?.();
  let ops = 0;
  let units = 0;
  const start = performance.now();
  let elapsed = 0;
  while (elapsed < roundMs || units < minUnits) {
    ops += await workload.unit(tool);
    units++;
    elapsed = performance.now() - start;
  }
  return ops / (elapsed / 1000);
}

/**
 * Measures one workload: prepares each tool's own folder, checks that a large listing agrees (where
 * the workload is a listing), warms both up, then alternates timed rounds (reference, memdir,
 * reference, memdir, ...) so that a noisy neighbour slows both alike, and takes the median of each.
 */
export async function measureWorkload(
  workload: Workload,
  config: BenchConfig,
  warnings: string[],
): Promise<WorkloadResult> {
  const { log } = config;
  const timing = config.timing[workload.id];
  const dir = path.join(config.workDir, workload.id);
  const tools = await makeContenders(dir, config);
  try {
    const prepareStart = performance.now();
    await workload.prepare(tools.reference);
    await workload.prepare(tools.memdir);
    log(
      `[${workload.id}] prepared both folders in ${((performance.now() - prepareStart) / 1000).toFixed(1)} s`,
    );

    if (workload.id === 'listing') {
      const view = { command: 'view', path: LISTING_PATH } as const;
      const problems: string[] = [];
      record(
        `view ${LISTING_PATH} (large tree)`,
        compareListing(await resultText(tools.memdir, view), await resultText(tools.reference, view)),
        warnings,
        problems,
      );
      if (problems.length > 0)
        throw new VerificationError(`The large listings disagree:\n- ${problems.join('\n- ')}`);
    }

    for (const tool of [tools.reference, tools.memdir]) {
      const rate = await timeRound(workload, tool, timing.warmupMs, timing.minUnits);
      log(`[${workload.id}] warm-up ${tool.name}: ${rate.toFixed(1)} ops/s`);
    }

    const rounds: Record<ContenderName, number[]> = { memdir: [], reference: [] };
    for (let round = 1; round <= timing.rounds; round++) {
      for (const tool of [tools.reference, tools.memdir]) {
        const rate = await timeRound(workload, tool, timing.roundMs, timing.minUnits);
        rounds[tool.name].push(rate);
        log(
          `[${workload.id}] round ${round}/${timing.rounds} ${tool.name.padEnd(9)} ${rate.toFixed(1)} ops/s`,
        );
      }
    }
    const medians = { memdir: median(rounds.memdir), reference: median(rounds.reference) };
    return { workload, rounds, median: medians, ratio: medians.memdir / medians.reference };
  } finally {
    await closeAll(tools);
    await rm(dir, { recursive: true, force: true });
  }
}

/** A row label for a command of the mixed loop. */
function commandLabel(command: MemoryCommand): string {
  if (command.command !== 'view') return command.command;
  return command.path === MIXED_DIRECTORY ? 'view small dir' : 'view file';
}

/**
 * Times each command of the mixed loop on its own, to show where a difference comes from. Blocks
 * of iterations alternate between the tools, like the rounds. Not part of the table.
 */
export async function measureCommands(config: BenchConfig, iterations: number): Promise<CommandBreakdown> {
  const dir = path.join(config.workDir, 'by-command');
  const tools = await makeContenders(dir, config);
  const labels = mixedIteration(0).map(commandLabel);
  const totals: Record<ContenderName, number[]> = {
    memdir: labels.map(() => 0),
    reference: labels.map(() => 0),
  };
  const block = 20;
  try {
    for (const tool of [tools.reference, tools.memdir]) {
      for (const command of MIXED_SETUP) await tool.run(command);
    }
    for (let start = -block; start < iterations; start += block) {
      for (const tool of [tools.reference, tools.memdir]) {
        for (let k = start; k < start + block; k++) {
          // The first block (negative k) warms up and is not counted.
          const commands = mixedIteration(k + block);
          for (const [index, command] of commands.entries()) {
            const began = performance.now();
            await tool.run(command);
            if (k >= 0) totals[tool.name][index]! += performance.now() - began;
          }
        }
      }
    }
  } finally {
    await closeAll(tools);
    await rm(dir, { recursive: true, force: true });
  }
  const counted = Math.ceil(iterations / block) * block;
  return {
    iterations: counted,
    rows: labels.map((label, index) => ({
      label,
      micros: {
        memdir: (totals.memdir[index]! / counted) * 1000,
        reference: (totals.reference[index]! / counted) * 1000,
      },
    })),
  };
}

/** The whole bench: verification, then each workload in turn. Removes `workDir` when done. */
export async function runBench(
  config: BenchConfig,
  options: { byCommand?: number } = {},
): Promise<BenchResult> {
  await mkdir(config.workDir, { recursive: true });
  try {
    config.log('Checking that both tools return the same text for the same work...');
    const warnings = await verifyAgreement(config);
    const results: WorkloadResult[] = [];
    for (const workload of config.workloads) results.push(await measureWorkload(workload, config, warnings));
    let breakdown: CommandBreakdown | undefined;
    if (options.byCommand) {
      config.log(
        `[by-command] timing each command of the mixed loop over ${options.byCommand} iterations per tool...`,
      );
      breakdown = await measureCommands(config, options.byCommand);
    }
    return { results, warnings, breakdown };
  } finally {
    await rm(config.workDir, { recursive: true, force: true });
  }
}
