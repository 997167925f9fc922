// `pnpm bench`: every section of the report (sections/index.ts), measured in one run.
// Progress on stderr, the Markdown report on stdout.
import { mkdirSync, rmdirSync, rmSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { parseBenchArgs, USAGE } from './args.js';
import { VerificationError } from './bench.js';
import { benchSections } from './sections/index.js';

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
mkdirSync(workDir, { recursive: true });

/** Removes the default `bench/.work` too once it is empty (another run may still be using it). */
function removeWorkParent(): void {
  if (args.dir !== undefined) return;
  try {
    rmdirSync(workParent);
  } catch {
    // Not empty, or already gone: leave it.
  }
}

const sections = benchSections(args);
const unknown = args.sections.filter((id) => !sections.some((section) => section.id === id));
if (unknown.length > 0) {
  process.stderr.write(
    `Unknown --section ${unknown.join(', ')}: choose from ${sections.map((section) => section.id).join(', ')}\n`,
  );
  process.exit(2);
}
const selected = sections.filter(
  (section) => args.sections.length === 0 || args.sections.includes(section.id),
);
const log = (line: string) => process.stderr.write(`${line}\n`);

// Ctrl-C: remove the work folders (10,000 files each) rather than leave them behind.
process.once('SIGINT', () => {
  rmSync(workDir, { recursive: true, force: true });
  removeWorkParent();
  process.exit(130);
});

const started = performance.now();
try {
  const reports: string[] = [];
  for (const section of selected) {
    log(`--- ${section.id}: ${section.summary}`);
    reports.push(await section.run({ quick: args.quick, workDir, log }));
  }
  rmSync(workDir, { recursive: true, force: true });
  removeWorkParent();
  log(`Done in ${((performance.now() - started) / 1000).toFixed(0)} s.`);
  process.stdout.write(`${reports.join('\n\n')}\n`);
} catch (error) {
  rmSync(workDir, { recursive: true, force: true });
  removeWorkParent();
  if (error instanceof VerificationError) {
    process.stderr.write(`${error.message}\n`);
    process.exit(1);
  }
  throw error;
}
