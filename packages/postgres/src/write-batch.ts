// Concurrent writes of one namespace take turns on the server anyway: a new path holds the
// namespace's advisory lock, and every change the totals row, until its commit. So the writes that
// arrive while others of the namespace are in flight go together in the next call: one statement
// that runs write_v4 for each, in the order they came, in one transaction — the lock taken once, one
// commit and one round trip for all of them (a copy of 10,000 files, an agent's parallel tool
// calls). Each write gets its own outcome, as if it had been sent alone right after the one before.
// A lone write is sent at once, as before. The line itself is batcher.ts's.
import type { DriverPath, DriverWriteOptions } from '@memdir/core';
import { ancestors, utf8Length } from '@memdir/core/driver';
import type { Backend } from './backend.js';
import { Batcher } from './batcher.js';
import { recordParam } from './history.js';
import { type Written, writeOutcome } from './outcomes.js';
import { lockWait } from './sql.js';

/** Calls of one namespace's writes in flight at once: one running, one on its way. */
const MAX_IN_FLIGHT = 2;
/** Writes in one call, at most. */
const MAX_BATCH = 64;
/** Content bytes in one call, at most (a larger file goes alone). */
const MAX_BATCH_BYTES = 4 << 20;

interface Write {
  readonly path: DriverPath;
  readonly content: string;
  readonly bytes: number;
  readonly options: DriverWriteOptions;
}

/** The writes of one namespace (one driver instance). */
export class WriteBatcher {
  readonly #line: Batcher<Write, Written>;

  constructor(backend: Backend, ns: string) {
    this.#line = new Batcher<Write, Written>({
      maxInFlight: MAX_IN_FLIGHT,
      maxBatch: MAX_BATCH,
      maxWeight: MAX_BATCH_BYTES,
      weight: (write) => write.bytes,
      async single({ path, content, options }) {
        const { quota } = options;
        const [row] = await backend.run(
          {
            text: backend.sql.write,
            values: [
              ns,
              path,
              Buffer.from(content, 'utf8'),
              expected(options),
              options.op,
              ancestors(path),
              quota?.maxBytes ?? null,
              quota?.maxFiles ?? null,
              lockWait(options),
              [],
              recordParam(options.record),
              options.fileId ?? null,
            ],
          },
          true,
          options,
        );
        return writeOutcome(path, row?.[0]);
      },
      many: (writes, options) =>
        backend.run(
          {
            text: backend.sql.writeMany,
            values: [
              ns,
              writes.map((write) => write.path),
              writes.map((write) => Buffer.from(write.content, 'utf8')),
              writes.map((write) => expected(write.options)),
              writes.map((write) => write.options.op),
              writes.map((write) => write.options.quota?.maxBytes ?? null),
              writes.map((write) => write.options.quota?.maxFiles ?? null),
              writes.map((write) => recordParam(write.options.record)),
              writes.map((write) => write.options.fileId ?? null),
              lockWait(options),
            ],
          },
          true,
          options,
        ),
      answer: (write, row) => writeOutcome(write.path, row?.[0]),
      // Nothing of the batch is known to be applied (one transaction: all or nothing).
      failed: (error, writes) =>
        backend.log.warn('a batch of writes failed; sending each alone', {
          writes,
          reason: (error as { reason?: unknown }).reason,
        }),
    });
  }

  /** Writes one file: alone when nothing else of the namespace is in flight, else in the next batch. */
  write(path: DriverPath, content: string, options: DriverWriteOptions): Promise<Written> {
    return this.#line.run({ path, content, bytes: utf8Length(content), options });
  }
}

/** write_v4's p_expect: NULL creates or replaces, '' requires no file, else the version required. */
function expected(options: DriverWriteOptions): string | null {
  const { expect } = options;
  return expect === undefined ? null : 'absent' in expect ? '' : expect.version;
}
