// The filesystem store against Anthropic's BetaLocalFilesystemMemoryTool (wave 1's bench): the
// mixed loop and the 10,000-file listing, alternating timed rounds, median ops/s.
import os from 'node:os';
import path from 'node:path';
import { createFsStore } from '@memdir/fs';
import type { BenchArgs } from '../args.js';
import { type BenchConfig, runBench } from '../bench.js';
import { renderReport } from '../report.js';
import { listingWorkload, mixedWorkload } from '../workloads.js';
import type { BenchSection } from './section.js';

/**
 * The timing of the fs workloads against the reference (also the history section's mixed loop).
 * Many short alternating rounds pair up better than a few long ones on a machine whose load drifts
 * (other jobs come and go within seconds); the listing's rounds are longer because one reference
 * listing of 10,000 files takes about a second.
 */
export function fsTiming(quick: boolean, rounds: number | undefined): BenchConfig['timing'] {
  const timing: BenchConfig['timing'] = quick
    ? {
        mixed: { warmupMs: 300, roundMs: 500, minUnits: 1, rounds: 5 },
        listing: { warmupMs: 300, roundMs: 1000, minUnits: 1, rounds: 3 },
      }
    : {
        mixed: { warmupMs: 1000, roundMs: 1000, minUnits: 1, rounds: 15 },
        listing: { warmupMs: 1000, roundMs: 2500, minUnits: 2, rounds: 9 },
      };
  if (rounds !== undefined) {
    for (const workload of Object.values(timing)) workload.rounds = rounds;
  }
  return timing;
}

export function fsReferenceSection(args: BenchArgs): BenchSection {
  return {
    id: 'fs',
    summary:
      "the filesystem store against Anthropic's BetaLocalFilesystemMemoryTool (mixed loop, 10,000-file listing)",
    async run(context) {
      const workloads = [mixedWorkload(), listingWorkload(100, 100)].filter((workload) =>
        args.only.includes(workload.id),
      );
      const timing = fsTiming(args.quick, args.rounds);
      const config: BenchConfig = {
        timing,
        workloads,
        workDir: path.join(context.workDir, 'fs'),
        createMemdirStore: (root) => createFsStore({ root }),
        log: (line) => context.log(line),
      };
      const result = await runBench(config, {
        byCommand: args.byCommand ? (args.quick ? 100 : 400) : undefined,
      });
      return renderReport(result, {
        mode: args.quick ? 'quick' : 'full',
        machine: `Node ${process.version}, ${process.platform} ${process.arch}, ${os.availableParallelism()} CPUs, work folder ${path.dirname(context.workDir)}`,
      });
    },
  };
}
