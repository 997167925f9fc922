// `update` (a read-modify-write the engine runs when `edit` is hidden) through the kit's EditQueue:
// the edits of one file that arrive while a write of it is in flight go together in the next round,
// one read (with the namespace's bytes and which of the batch's op ids are already recorded) and one
// write whose expected version is the one read, carrying every applied edit's op id. A lost
// compare-and-swap reads again; each edit gets its own outcome.
import type { DriverCallOptions, DriverPath } from '@memdir/core';
import {
  ancestors,
  type EditBatch,
  EditQueue,
  judgeQuota,
  refuseQuota,
  utf8Length,
} from '@memdir/core/driver';
import type { Backend } from './backend.js';
import { recordParam } from './history.js';
import { lockWait, subtree } from './sql.js';

/** The key of a file in the queue: namespace chain and path. */
export function fileKey(ns: string, path: DriverPath): string {
  return `${ns}\u0000${path}`;
}

/** The queue of one backend's edits, by file. */
export function editQueue(backend: Backend): EditQueue {
  return new EditQueue((key, batch) => commit(backend, key, batch));
}

/** The options a round of a batch runs under: the latest deadline of its edits, the first's stats. */
function roundOptions(batch: EditBatch): DriverCallOptions {
  const members = batch.members;
  const deadline = Math.max(...members.map((member) => member.options.deadline ?? Date.now() + 5_000));
  return { deadline, stats: members[0]?.options.stats };
}

/** Runs one batch to its end: every edit resolved or rejected, or left to the queue to fail. */
async function commit(backend: Backend, key: string, batch: EditBatch): Promise<void> {
  const split = key.indexOf('\u0000');
  const ns = key.slice(0, split);
  const path = key.slice(split + 1) as DriverPath;
  const { sql } = backend;
  for (;;) {
    batch.refill();
    if (batch.settled) return;
    const options = roundOptions(batch);
    const [row] = await backend.run(
      { text: sql.batchRead, values: [ns, path, ...subtree(path), batch.ops], binary: true },
      false,
      options,
    );
    const [content, version, replayed, bytes, directory] = row ?? [];
    if (content === null || content === undefined || version === null || version === undefined) {
      batch.missing(directory === 'd' ? 'directory' : null);
      return;
    }
    batch.resolveReplayed(replayed ? replayed.split(',') : []);
    if (batch.settled) return;
    // Each edit judged against its own store's quota, on the bytes as this read saw them.
    const read = Number(bytes ?? 0);
    let total = read;
    let limited = false;
    const result = batch.apply(content, (before, after, member) => {
      const addedBytes = utf8Length(after) - utf8Length(before);
      const breach = judgeQuota(member.options.quota, { bytes: total, files: 0, addedBytes, newFile: false });
      if (breach) return refuseQuota(path, breach);
      limited ||= member.options.quota?.maxBytes !== undefined;
      total += addedBytes;
      return null;
    });
    if (result.applied.length === 0) {
      batch.settle();
      return;
    }
    // The write refuses when the namespace grew since the read (the quotas were judged on less):
    // the next round reads and judges again.
    const [written] = await backend.run(
      {
        text: sql.write,
        values: [
          ns,
          path,
          Buffer.from(result.content, 'utf8'),
          version,
          result.applied[0],
          ancestors(path),
          limited && total > read ? total : null,
          null,
          lockWait(options),
          result.applied.slice(1),
          // One write for the batch: one version, with the first edit's record.
          recordParam(
            batch.members.find((member) => member.options.op === result.applied[0])?.options.record,
          ),
          null,
        ],
      },
      true,
      options,
    );
    const outcome = written?.[0] ?? '';
    if (outcome.startsWith('v')) {
      batch.settle();
      return;
    }
    // 'c', 'p', 'q': the file changed or the namespace grew since the read; read again.
    if (outcome !== 'c' && !outcome.startsWith('p') && !outcome.startsWith('q')) {
      throw new Error(`memdir: write_v2 answered ${JSON.stringify(outcome.slice(0, 1))} to an edit batch`);
    }
  }
}
