// The base every driver extends (abstract-level's pattern): the public method checks, the driver's
// own method receives only what passed. So no driver, ours or a user's, can be handed a namespace
// name like '..', '' or 'a/b' that might reach outside its space.
import { validateNamespace } from '../namespace.js';
import type { DriverPath } from '../path.js';
import type { DriverCapabilities } from './capabilities.js';
import type {
  DriverCallOptions,
  DriverChangeOptions,
  DriverDirectory,
  DriverEntry,
  DriverFile,
  DriverListOptions,
  DriverWriteOptions,
  MemoryDriver,
} from './contract.js';

/**
 * The base class of a memdir driver: implement `openNamespace` (and the contract's other methods);
 * `namespace(name)` checks the name by the one rule of core (1-128 characters from
 * `A-Z a-z 0-9 . _ - @ + =`, not starting with `.`) before `openNamespace` sees it, throwing a
 * `TypeError` otherwise.
 */
export abstract class AbstractMemoryDriver implements MemoryDriver {
  abstract readonly capabilities: DriverCapabilities;

  namespace(name: string): MemoryDriver {
    return this.openNamespace(validateNamespace(name));
  }

  /**
   * The driver over namespace `name` below this one: `name` is valid (never empty, never `.` or
   * `..`, no `/`), so it can be joined into keys, paths or rows as it is, once escaped for the
   * backend's own syntax if that needs it.
   */
  protected abstract openNamespace(name: string): MemoryDriver;

  abstract read(path: DriverPath, options?: DriverCallOptions): Promise<DriverFile | DriverDirectory | null>;
  abstract write(
    path: DriverPath,
    content: string,
    options: DriverWriteOptions,
  ): Promise<{ version: string }>;
  abstract list(dir: DriverPath, options?: DriverListOptions): AsyncIterable<DriverEntry>;
  abstract remove(path: DriverPath, options: DriverChangeOptions): Promise<boolean>;
  abstract move(from: DriverPath, to: DriverPath, options: DriverChangeOptions): Promise<void>;
  abstract close(): Promise<void>;
}

/**
 * A driver that behaves like `driver` except for `overrides`: each property given replaces the
 * driver's (`undefined` hides an optional method, so the engine takes its fallback). For tests and
 * instrumentation: drivers are classes, whose methods an object spread (`{ ...driver }`) would not
 * copy. `namespace` is the driver's own unless overridden (the namespaced driver is not wrapped).
 */
export function wrapDriver(driver: MemoryDriver, overrides: Partial<MemoryDriver>): MemoryDriver {
  return new Proxy(driver, {
    get(target, property) {
      if (Object.hasOwn(overrides, property)) return (overrides as Record<PropertyKey, unknown>)[property];
      const value = Reflect.get(target, property, target);
      return typeof value === 'function' && property !== 'constructor' ? value.bind(target) : value;
    },
    has(target, property) {
      if (Object.hasOwn(overrides, property))
        return (overrides as Record<PropertyKey, unknown>)[property] !== undefined;
      return Reflect.has(target, property);
    },
  });
}
