import type { BenchResult } from './bench.js';
import { formatRate, formatRatio } from './stats.js';

/** What the report says about the run itself. */
export interface RunInfo {
  mode: 'quick' | 'full';
  /** e.g. `Node v20.20.2, linux x64, 2 CPUs` */
  machine: string;
}

/**
 * The Markdown report for stdout: the table (workload | memdir ops/s | reference ops/s | ratio
 * memdir/reference | target | result), the spread of the rounds, and the expected differences.
 */
export function renderReport(bench: BenchResult, info: RunInfo): string {
  const lines = [
    `## memdir bench (${info.mode})`,
    '',
    `${info.machine}. Same workload, same machine, one run: alternating timed rounds per tool (reference, memdir, reference, ...; ${bench.results.map((r) => `${r.workload.id} ${r.rounds.memdir.length}`).join(', ')} rounds each), median ops/s. Both tools fsync file contents.`,
    '',
    '| workload | memdir ops/s | reference ops/s | ratio memdir/reference | target | result |',
    '|---|---:|---:|---:|---:|---|',
  ];
  for (const result of bench.results) {
    const pass = result.ratio >= result.workload.target;
    lines.push(
      `| ${result.workload.title} | ${formatRate(result.median.memdir)} | ${formatRate(result.median.reference)} | ${formatRatio(result.ratio)} | >= ${formatRatio(result.workload.target)} | ${pass ? 'PASS' : 'BELOW'} |`,
    );
  }
  lines.push('', 'Spread of the rounds (min to max ops/s):', '');
  for (const result of bench.results) {
    const spread = (values: number[]) =>
      `${formatRate(Math.min(...values))} to ${formatRate(Math.max(...values))}`;
    lines.push(
      `- ${result.workload.id}: memdir ${spread(result.rounds.memdir)}; reference ${spread(result.rounds.reference)}`,
    );
  }
  if (bench.breakdown) {
    lines.push(
      '',
      `Mean latency per command of the mixed loop (${bench.breakdown.iterations} iterations per tool, microseconds):`,
      '',
      '| command | memdir µs | reference µs | ratio memdir/reference |',
      '|---|---:|---:|---:|',
    );
    for (const row of bench.breakdown.rows) {
      lines.push(
        `| ${row.label} | ${row.micros.memdir.toFixed(0)} | ${row.micros.reference.toFixed(0)} | ${formatRatio(row.micros.memdir / row.micros.reference)} |`,
      );
    }
  }
  if (bench.warnings.length > 0) {
    lines.push('', 'Differences by design (checked before timing, SPEC section 9):', '');
    for (const warning of new Set(bench.warnings)) lines.push(`- ${warning}`);
  }
  return lines.join('\n');
}
