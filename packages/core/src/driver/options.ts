// Option checks every adapter makes, in one style: `Invalid @memdir/<package> option <name>: ...`.

/** A `TypeError` for option `name` of `@memdir/<pkg>`: `Invalid @memdir/redis option keyPrefix: ...`. */
export function optionError(pkg: string, name: string, detail: string): TypeError {
  return new TypeError(`Invalid @memdir/${pkg} option ${name}: ${detail}`);
}

/**
 * Option `name` as a positive safe integer, or `fallback` when it is undefined.
 * @throws TypeError in the house style otherwise.
 */
export function positiveInteger(pkg: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 1) {
    throw optionError(pkg, name, `expected a positive integer, got ${String(value)}`);
  }
  return value;
}

/**
 * Option `name` as a number greater than 0 (days may be fractional), or `fallback` when undefined.
 * @throws TypeError in the house style otherwise.
 */
export function positiveNumber(pkg: string, name: string, value: unknown, fallback: number): number {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) {
    throw optionError(pkg, name, `expected a number greater than 0, got ${String(value)}`);
  }
  return value;
}
