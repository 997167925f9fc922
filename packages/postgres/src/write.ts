// The driver's changes other than `write` (batched, write-batch.ts) and `update` (batched edits,
// batch.ts): `edit` applied by `edit_v2` where the bytes are, `remove` and `move`, each one function
// call (one round trip, one transaction) that also records the change's version (history).
import type {
  DriverChangeOptions,
  DriverEdit,
  DriverEditOptions,
  DriverEditOutcome,
  DriverPath,
  DriverRemoveOptions,
} from '@memdir/core';
import { ancestors, refuseConflict } from '@memdir/core/driver';
import type { Space } from './backend.js';
import { recordParam } from './history.js';
import { editOutcome, moveOutcome } from './outcomes.js';
import { lockWait } from './sql.js';

/**
 * `str_replace` and `insert` as data, applied by `edit_v2` where the bytes are: one round trip,
 * and no retry, whoever else edits the file (its row lock orders them).
 */
export async function edit(
  { backend, ns }: Space,
  path: DriverPath,
  edit: DriverEdit,
  options: DriverEditOptions,
): Promise<DriverEditOutcome> {
  const replace = edit.kind === 'str_replace';
  const [row] = await backend.run(
    {
      text: backend.sql.edit,
      values: [
        ns,
        path,
        edit.kind,
        replace ? Buffer.from(edit.oldStr, 'utf8') : null,
        Buffer.from(replace ? edit.newStr : edit.text, 'utf8'),
        replace ? null : edit.line,
        options.maxFileBytes,
        options.quota?.maxBytes ?? null,
        options.op,
        lockWait(options),
        recordParam(options.record),
        options.touch === true,
      ],
      binary: true,
    },
    true,
    options,
  );
  return editOutcome(row);
}

/** `MemoryDriver.remove`: with `expect`, the file must match it (else CONFLICT, nothing removed). */
export async function remove(
  { backend, ns }: Space,
  path: DriverPath,
  options: DriverRemoveOptions,
): Promise<boolean> {
  const { expect } = options;
  const [row] = await backend.run(
    {
      text: backend.sql.remove,
      values: [
        ns,
        path,
        options.op,
        lockWait(options),
        recordParam(options.record),
        expect?.fileId ?? null,
        expect?.sha256 ?? null,
      ],
    },
    true,
    options,
  );
  if (row?.[0] === 'c') throw refuseConflict(path);
  return row?.[0] === 't';
}

/** `MemoryDriver.move`: atomic, in one function call. */
export async function move(
  { backend, ns }: Space,
  from: DriverPath,
  to: DriverPath,
  options: DriverChangeOptions,
): Promise<void> {
  const [row] = await backend.run(
    {
      text: backend.sql.move,
      values: [ns, from, to, options.op, ancestors(to), lockWait(options), recordParam(options.record)],
    },
    true,
    options,
  );
  moveOutcome(from, to, row?.[0]);
}
