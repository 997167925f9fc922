/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) throw new RangeError('median of no values');
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** An ops/s figure for the table: three significant digits, thousands separated (`12,300`, `45.6`). */
export function formatRate(opsPerSecond: number): string {
  if (!Number.isFinite(opsPerSecond)) return String(opsPerSecond);
  const digits = opsPerSecond >= 100 ? 0 : opsPerSecond >= 10 ? 1 : 2;
  const rounded = Number(opsPerSecond.toPrecision(3));
  return rounded.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

/** A ratio as the table prints it: `1.23x`. */
export function formatRatio(ratio: number): string {
  return `${ratio.toFixed(2)}x`;
}
