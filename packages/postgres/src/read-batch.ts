// Reads of one namespace that arrive while several are in flight go together in the next call: one
// statement that looks up every path of the batch by primary key (and, for a path with no file,
// whether files lie beneath it), from one snapshot. Each read is answered as if it had been sent
// alone at that moment, which lies within the time every one of them was waiting (a copy's
// verification reading 10,000 files back, an export, parallel tool calls). The first few reads in
// flight are sent alone at once, as before: a lone read gets no later answer than it did. The line
// itself is batcher.ts's.
import type { DriverCallOptions, DriverDirectory, DriverFile, DriverPath } from '@memdir/core';
import type { Backend, Row } from './backend.js';
import { Batcher } from './batcher.js';
import { subtree } from './sql.js';

/** Calls of one namespace's reads in flight at once: reads alone, or batches. */
const MAX_IN_FLIGHT = 4;
/** Reads in one call, at most. */
const MAX_BATCH = 128;

type Node = DriverFile | DriverDirectory | null;

interface Read {
  readonly path: DriverPath;
  readonly options: DriverCallOptions | undefined;
}

/** A read's answer from its row: kind ('f', 'd' or null), content, version. */
function nodeOf(row: Row | undefined): Node {
  if (!row || row[0] === null) return null;
  if (row[0] === 'd') return { kind: 'directory' };
  return { kind: 'file', content: row[1]!, version: row[2]! };
}

/** The reads of one namespace (one driver instance). */
export class ReadBatcher {
  readonly #line: Batcher<Read, Node>;

  constructor(backend: Backend, ns: string) {
    this.#line = new Batcher<Read, Node>({
      maxInFlight: MAX_IN_FLIGHT,
      maxBatch: MAX_BATCH,
      async single({ path, options }) {
        const [row] = await backend.run(
          { text: backend.sql.read, values: [ns, path, ...subtree(path)], binary: true },
          false,
          options,
        );
        return nodeOf(row);
      },
      many: (reads, options) =>
        backend.run(
          { text: backend.sql.readMany, values: [ns, reads.map((read) => read.path)], binary: true },
          false,
          options,
        ),
      answer: (_read, row) => nodeOf(row),
    });
  }

  /** Reads one path (not the root): alone when few reads are in flight, else in the next batch. */
  read(path: DriverPath, options: DriverCallOptions | undefined): Promise<Node> {
    return this.#line.run({ path, options });
  }
}
