// Keeping long transfers (copy, export, import) within a bounded footprint. V8 frees the buffers of
// finished reads and writes only when it next collects garbage, and it collects on its own only once
// some 64 MB of them have piled up: moving hundreds of megabytes, the process would grow by that
// much and more before giving any back (each byte of a file read from one store and written to
// another leaves several bytes of garbage: buffers, the string, its UTF-8 form for the hash). So the
// transfers ask for a collection every 4 MiB of content they read. Only the `memdir` executable provides the collector (bin.ts); a program that embeds the CLI
// with `run()` keeps its own garbage collection as it is.
import type { MemoryDriver } from '@memdir/core';
import { wrapDriver } from '@memdir/core/driver';

/** Bytes moved between two collections. */
const COLLECT_EVERY_BYTES = 4 * 1024 * 1024;

let collector: (() => void) | undefined;

/** Called once by the executable with V8's `gc`. */
export function setGarbageCollector(collect: () => void): void {
  collector = collect;
}

/**
 * A counter of bytes moved: `moved(n)` asks for a collection each time 4 MiB more have gone by.
 * Does nothing when no collector was set.
 */
export function collectAsBytesMove(): (bytes: number) => void {
  let since = 0;
  return (bytes) => {
    if (collector === undefined) return;
    since += bytes;
    if (since < COLLECT_EVERY_BYTES) return;
    since = 0;
    collector();
  };
}

/**
 * `driver` with every file it reads counted by `moved`: what copy, export and import read is what
 * they move. Every other member is the driver's own.
 */
export function countingReads(driver: MemoryDriver, moved: (bytes: number) => void): MemoryDriver {
  return wrapDriver(driver, {
    async read(path, options) {
      const node = await driver.read(path, options);
      if (node?.kind === 'file') moved(node.content.length);
      return node;
    },
  });
}
