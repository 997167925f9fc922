// A memory file's conditional PUT with its versions (history/write.ts): the versions are written
// first, then the file, then they are settled by the PUT's outcome, and what was written is
// remembered (known.ts). A create under the lease (structure.ts) and a write over a known version
// without it (write.ts) both write this way.
import type { ChangeRecord, DriverVersion } from '@memdir/core';
import { utf8Length } from '@memdir/core/driver';
import type { Call } from './call.js';
import { type Parent, versionContent, type WriteShape } from './history/write.js';
import type { Refused } from './objects.js';
import type { Space } from './space.js';

/** What a versioned PUT needs of its change (see structure.ts `ChangeContext`). */
export interface VersionedChange {
  readonly op: string;
  readonly call: Call;
  readonly record?: ChangeRecord | undefined;
  readonly shape?: WriteShape | undefined;
  readonly recorded?: DriverVersion[] | undefined;
}

/** A refused PUT: `settle` its versions once it is known whether this call's own write landed. */
export interface RefusedPut extends Refused {
  settle(landed: boolean): Promise<void>;
}

/**
 * Writes `content` at `path` over `parent` (null: a new file) under `condition`, with the versions
 * `change` records.
 * @returns the new version, or the refusal, whose versions wait for {@link RefusedPut.settle}.
 */
export async function putVersioned(
  space: Space,
  path: string,
  content: string,
  parent: Parent | null,
  condition: { readonly ifMatch: string } | { readonly ifNoneMatch: true },
  ops: string,
  change: VersionedChange,
): Promise<string | RefusedPut> {
  const { op, call } = change;
  const { bucket, known } = space.backend;
  const key = space.keys.file(path);
  const versioned = await versionContent(
    space,
    path,
    parent,
    [{ record: change.record, op, content }],
    change.shape ?? {},
    call,
  );
  const written = await bucket.put(key, content, { ...condition, ops, file: versioned.file }, call);
  const recorded = () => change.recorded?.push(...versioned.drafted.map((entry) => entry.version));
  if (typeof written === 'string') {
    await versioned.settle(true);
    recorded();
    known.remember(key, {
      etag: written,
      size: utf8Length(content),
      ops: ops.split(' '),
      ...versioned.file,
    });
    return written;
  }
  return {
    ...written,
    settle: async (landed) => {
      await versioned.settle(landed);
      if (landed) recorded();
    },
  };
}
