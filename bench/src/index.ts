// `pnpm bench`: the memdir filesystem store against Anthropic's BetaLocalFilesystemMemoryTool.
// Progress on stderr, the Markdown report on stdout.
import { rmdirSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFsStore } from '@memdir/fs';
import { parseBenchArgs, USAGE } from './args.js';
import { type BenchConfig, runBench, VerificationError } from './bench.js';
import { renderReport } from './report.js';
import { listingWorkload, mixedWorkload } from './workloads.js';

let args: ReturnType<typeof parseBenchArgs>;
try {
  args = parseBenchArgs(process.argv.slice(2));
} catch (error) {
  process.stderr.write(`${error instanceof Error ? error.message : String(error)}\n\n${USAGE}\n`);
  process.exit(2);
}
if (args.help) {
  process.stdout.write(`${USAGE}\n`);
  process.exit(0);
}

const packageDir = fileURLToPath(new URL('..', import.meta.url));
const workParent = path.resolve(args.dir ?? path.join(packageDir, '.work'));
const workDir = path.join(workParent, `run-${process.pid}`);

/** Removes the default `bench/.work` too once it is empty (another run may still be using it). */
function removeWorkParent(): void {
  if (args.dir !== undefined) return;
  try {
    rmdirSync(workParent);
  } catch {
    // Not empty, or already gone: leave it.
  }
}

const workloads = [mixedWorkload(), listingWorkload(100, 100)].filter((workload) =>
  args.only.includes(workload.id),
);
// Many short alternating rounds pair up better than a few long ones on a machine whose load drifts
// (other jobs come and go within seconds); the listing's rounds are longer because one reference
// listing of 10,000 files takes about a second.
const timing: BenchConfig['timing'] = args.quick
  ? {
      mixed: { warmupMs: 300, roundMs: 500, minUnits: 1, rounds: 5 },
      listing: { warmupMs: 300, roundMs: 1000, minUnits: 1, rounds: 3 },
    }
  : {
      mixed: { warmupMs: 1000, roundMs: 1000, minUnits: 1, rounds: 15 },
      listing: { warmupMs: 1000, roundMs: 2500, minUnits: 2, rounds: 9 },
    };
if (args.rounds !== undefined) {
  for (const workload of Object.values(timing)) workload.rounds = args.rounds;
}
const config: BenchConfig = {
  timing,
  workloads,
  workDir,
  createMemdirStore: (root) => createFsStore({ root }),
  log: (line) => process.stderr.write(`${line}\n`),
};

// Ctrl-C: remove the work folders (10,000 files each) rather than leave them behind.
process.once('SIGINT', () => {
  rmSync(workDir, { recursive: true, force: true });
  removeWorkParent();
  process.exit(130);
});

const started = performance.now();
try {
  const result = await runBench(config, { byCommand: args.byCommand ? (args.quick ? 100 : 400) : undefined });
  removeWorkParent();
  const seconds = ((performance.now() - started) / 1000).toFixed(0);
  config.log(`Done in ${seconds} s.`);
  process.stdout.write(
    `${renderReport(result, {
      mode: args.quick ? 'quick' : 'full',
      machine: `Node ${process.version}, ${process.platform} ${process.arch}, ${os.availableParallelism()} CPUs, work folder ${path.dirname(workDir)}`,
    })}\n`,
  );
} catch (error) {
  removeWorkParent();
  if (error instanceof VerificationError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
