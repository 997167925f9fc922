import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempFolder } from './helpers.js';

const run = promisify(execFile);
const fixture = (name: string) => fileURLToPath(new URL(`./fixtures/${name}`, import.meta.url));
const STORE = fileURLToPath(new URL('../dist/index.js', import.meta.url));

interface AttackReport {
  swaps: number;
  commands: Record<string, { run: number; succeeded: number; refused: number; leaked: number }>;
  refusals: Record<string, number>;
  violations: Record<string, number>;
  outside: { added: number; removed: number; changed: number };
  insideFolderIntact: boolean;
}

// A local process swaps `memories/d` (a real folder) with a link to a folder outside, about 150,000
// times a second, while every kind of command runs through /memories/d. Wave 1's store, run the
// same way (`node test/fixtures/swap-attack.mjs <its dist/index.js> ...`), read, listed, wrote,
// moved and deleted outside in every command kind within these seconds.
describe('a process swapping a folder for a link while commands run', () => {
  let work: string;
  let cleanup: () => Promise<void>;
  let swapper: string;
  beforeAll(async () => {
    ({ path: work, cleanup } = await tempFolder('memdir-swap-'));
    swapper = join(work, 'swapper');
    await run('gcc', ['-O2', '-Wall', '-o', swapper, fixture('swapper.c')]);
  });
  afterAll(() => cleanup());

  it('never lets a command read, list, write, move or delete outside the memory folder', async () => {
    const { stdout } = await run(
      process.execPath,
      [fixture('swap-attack.mjs'), STORE, swapper, join(work, 'attack'), '6'],
      { maxBuffer: 16 * 1024 * 1024, timeout: 120_000 },
    );
    const report = JSON.parse(stdout) as AttackReport;
    // The attack really ran: the folder was swapped all along, and commands met the link.
    expect(report.swaps).toBeGreaterThan(10_000);
    expect(
      report.refusals['INVALID_PATH: Path would escape /memories directory via symlink'],
    ).toBeGreaterThan(0);
    for (const [kind, counts] of Object.entries(report.commands)) {
      expect(counts.run, kind).toBeGreaterThanOrEqual(10);
      expect(counts.succeeded, kind).toBeGreaterThan(0);
    }
    expect(report.violations).toEqual(
      Object.fromEntries(Object.keys(report.violations).map((key) => [key, 0])),
    );
    expect(report.outside).toEqual({ added: 0, removed: 0, changed: 0 });
    expect(report.insideFolderIntact).toBe(true);
    // Refusals name the link, or say what the command found in the folder it opened; no other failure.
    for (const refusal of Object.keys(report.refusals)) {
      expect(refusal).toMatch(/^(INVALID_PATH: Path would escape|NOT_FOUND: )/);
    }
  }, 180_000);
});
