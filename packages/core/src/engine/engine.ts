// The engine's side of one store: its driver, its checked options and how a path the model sent
// becomes the paths a command holds. Every command starts here (`engine.operation(...)`), and the
// driver calls it then makes go through the gate in `operation.ts`.
import type { ChangeRecord, DriverCapabilities, MemoryDriver } from '../driver/contract.js';
import { type DriverPath, type MemoryPath, normalizeMemoryPath, toDriverPath } from '../path.js';
import type { EngineOptions } from '../store-options.js';
import type { PathShown } from '../telemetry.js';
import type { MemoryCallOptions } from '../tool.js';
import { closedError, Operation, type OperationHost } from './operation.js';
import { Watchdog } from './watchdog.js';

/** A path as a command holds it: the normalised memory path (for messages) and the driver's form. */
export interface CommandPath {
  readonly memory: MemoryPath;
  readonly driver: DriverPath;
}

/** The engine's view of one store: options, paths, and the driver calls of each command. */
export class Engine implements OperationHost {
  readonly capabilities: DriverCapabilities;
  readonly watchdog = new Watchdog();
  #closed = false;

  /** What the driver is, for telemetry. */
  readonly identity: { readonly kind: string; readonly id: string };

  constructor(
    readonly driver: MemoryDriver,
    readonly options: EngineOptions,
    /** Closes what the store made (a namespaced driver, or the driver it owns). */
    readonly release: () => Promise<void>,
    /** How telemetry shows a path: not at all unless the application opted in. */
    readonly showPath: PathShown = () => undefined,
  ) {
    this.capabilities = driver.capabilities;
    this.identity = driver.identity ?? { kind: 'custom', id: 'custom' };
  }

  /** Checks and normalises a path the model sent (SPEC section 2, with the driver's own limit). */
  path(input: string): CommandPath {
    const memory = normalizeMemoryPath(input, { maxPathBytes: this.capabilities.maxPathBytes });
    return { memory, driver: toDriverPath(memory) };
  }

  /** A new command's driver calls, all under one deadline and one operation id. */
  operation(command: ChangeRecord['command'], call?: MemoryCallOptions): Operation {
    if (this.#closed) throw closedError();
    return new Operation(this, command, call);
  }

  get closed(): boolean {
    return this.#closed;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    await this.release();
  }
}
