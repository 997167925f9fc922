import type { MemoryDriver } from '@memdir/core';

/** The calls a driver received, by method, as {@link countingDriver} records them. */
export class CallLog {
  readonly calls: string[] = [];

  /** Forgets the calls so far. */
  reset(): void {
    this.calls.length = 0;
  }

  /** How many calls since the last reset. */
  get count(): number {
    return this.calls.length;
  }
}

const METHODS = ['read', 'stat', 'describe', 'write', 'update', 'list', 'remove', 'move'] as const;

/**
 * `driver`, with every call of the contract recorded in `log` (namespaced drivers included). Only the
 * methods the driver has are present, so the engine takes the same paths as on the bare driver.
 */
export function countingDriver(driver: MemoryDriver, log: CallLog): MemoryDriver {
  const counted: Record<string, unknown> = {
    capabilities: driver.capabilities,
    namespace: (name: string) => countingDriver(driver.namespace(name), log),
    close: () => driver.close(),
  };
  for (const method of METHODS) {
    const original = driver[method] as ((...args: unknown[]) => unknown) | undefined;
    if (original === undefined) continue;
    counted[method] = (...args: unknown[]) => {
      log.calls.push(method);
      return original.apply(driver, args);
    };
  }
  return counted as unknown as MemoryDriver;
}
