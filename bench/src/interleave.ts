// Latency of two or more sides measured operation by operation, interleaved, so that a neighbour
// loading the shared machine for a moment slows every side alike (the Redis, history and tenants
// sections).
import { performance } from 'node:perf_hooks';
import { median } from './stats.js';

export interface Latency {
  /** Median of the per-operation latencies, µs. */
  p50: number;
  /** Mean, µs. */
  mean: number;
}

export function latency(samples: number[]): Latency {
  return {
    p50: median(samples) * 1000,
    mean: (samples.reduce((sum, value) => sum + value, 0) / samples.length) * 1000,
  };
}

/**
 * Times the two sides operation by operation, interleaved (a, b, b, a, a, b...), so that a
 * neighbour loading the machine for a moment slows both alike; `before` runs untimed at the start
 * of each round, for both sides.
 */
export async function compare<S extends string>(
  sides: Record<S, (index: number) => Promise<unknown>>,
  rounds: number,
  count: number,
  before?: (side: S) => Promise<void>,
): Promise<Record<S, Latency>> {
  const names = Object.keys(sides) as S[];
  const samples = Object.fromEntries(names.map((name) => [name, [] as number[]])) as Record<S, number[]>;
  for (let round = -1; round < rounds; round++) {
    for (const side of names) await before?.(side);
    globalThis.gc?.();
    for (let index = 0; index < count; index++) {
      // Each operation, the order of the sides turns by one.
      for (let turn = 0; turn < names.length; turn++) {
        const side = names[(index + round + 1 + turn) % names.length]!;
        const started = performance.now();
        await sides[side](index);
        // The first round warms up every side and is not counted.
        if (round >= 0) samples[side].push(performance.now() - started);
      }
    }
  }
  return Object.fromEntries(names.map((name) => [name, latency(samples[name])])) as Record<S, Latency>;
}
