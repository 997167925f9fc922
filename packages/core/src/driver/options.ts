// Option checks every adapter makes, in one style: `Invalid @memdir/<package> option <name>: ...`.
import type { MemoryStoreOptions } from '../types.js';

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

/** The options of every store (SPEC section 3 and memdir's own), as `splitStoreOptions` sorts them. */
export const STORE_OPTION_NAMES = [
  'namespace',
  'overwrite',
  'maxFileBytes',
  'maxViewChars',
  'timeoutMs',
  'quota',
  'history',
  'expire',
  'actor',
  'logger',
  'telemetry',
] as const satisfies readonly (keyof MemoryStoreOptions)[];

/** Store options the driver needs as well as the engine. */
const SHARED_WITH_DRIVER = new Set<string>(['logger', 'telemetry']);

/**
 * Splits an adapter store's options (`createRedisStore({ url, namespace, ... })`) into the engine's
 * and the driver's, so an adapter never lists the store options again. `logger` and `telemetry`
 * go to both.
 */
export function splitStoreOptions<T extends MemoryStoreOptions>(
  options: T,
): { store: MemoryStoreOptions; driver: Omit<T, Exclude<keyof MemoryStoreOptions, 'logger' | 'telemetry'>> } {
  const store: Record<string, unknown> = {};
  const driver: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(options)) {
    const isStore = (STORE_OPTION_NAMES as readonly string[]).includes(name);
    if (isStore) store[name] = value;
    if (!isStore || SHARED_WITH_DRIVER.has(name)) driver[name] = value;
  }
  return { store: store as MemoryStoreOptions, driver: driver as never };
}
