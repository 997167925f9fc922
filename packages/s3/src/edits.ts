// Read-modify-write of one file (`str_replace`, `insert`) as a group commit. Edits of one file that
// arrive while a write of it is in flight wait, then go together: one GET, each edit applied in
// turn to the content the previous one left, one PUT If-Match. When the PUT loses to another
// writer (another process), the whole group starts over on the new content.
//
// A compare-and-swap per edit would make n concurrent edits of one file cost O(n^2) requests, and
// most would run out of time; grouped, each process keeps one write of a file in flight, so n edits
// from p processes cost about n/p rounds at worst, and usually a few.
import { storeUnavailable } from '@memdir/core/driver';
import { type ObjectContent, opsHeader } from './bucket.js';
import { anythingBeneath, isLiveFile, type Space } from './structure.js';

/** Edits in one write: bounded so that all their operation ids fit in the object's metadata. */
const MAX_GROUP = 40;
const MAX_BACKOFF_MS = 25;
/** A group that other writers keep beating gives up after this long (the engine's deadline is shorter). */
const GIVE_UP_MS = 30_000;

const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** A file's content: UTF-8, a byte-order mark kept as the character it is (SPEC section 3). */
export function decodeContent(object: ObjectContent): string {
  return decoder.decode(object.bytes);
}

/** True for a move's stand-in, whether its metadata or its bytes say so (0xFF is never UTF-8). */
export function isTombstone(object: ObjectContent): boolean {
  return object.tombstone || object.bytes[0] === 0xff;
}

interface PendingEdit {
  readonly edit: (content: string) => string;
  readonly op: string;
  readonly signal: AbortSignal | undefined;
  resolve(kind: 'file' | 'directory' | null): void;
  reject(error: unknown): void;
}

interface EditQueue {
  pending: PendingEdit[];
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Applies `edit` to the file at `path` atomically (see the top of this file).
 * @returns `'file'` once written, or what is there when no file is: `'directory'` or null.
 */
export function updateFile(
  space: Space,
  path: string,
  edit: (content: string) => string,
  op: string,
  signal: AbortSignal | undefined,
): Promise<'file' | 'directory' | null> {
  const key = space.keys.file(path);
  const queues = space.context.edits as Map<string, EditQueue>;
  return new Promise((resolve, reject) => {
    const member: PendingEdit = { edit, op, signal, resolve, reject };
    const queue = queues.get(key);
    if (queue) {
      queue.pending.push(member);
      return;
    }
    const started: EditQueue = { pending: [member] };
    queues.set(key, started);
    void drain(space, path, key, started, queues);
  });
}

async function drain(
  space: Space,
  path: string,
  key: string,
  queue: EditQueue,
  queues: Map<string, EditQueue>,
): Promise<void> {
  try {
    while (queue.pending.length > 0) await commit(space, path, key, queue);
  } finally {
    queues.delete(key);
  }
}

/**
 * Runs one group to the end, taking in edits that arrive while it retries; settles every member,
 * never throws.
 */
async function commit(space: Space, path: string, key: string, queue: EditQueue): Promise<void> {
  const { context } = space;
  const { bucket, carried } = context;
  let members: PendingEdit[] = [];
  const giveUpAt = Date.now() + GIVE_UP_MS;
  try {
    await context.behaviour(undefined);
    for (let round = 0; ; round++) {
      members.push(...queue.pending.splice(0, MAX_GROUP - members.length));
      // A member whose deadline passed has been answered by the engine already.
      members = members.filter((member) => {
        if (!member.signal?.aborted) return true;
        member.reject(member.signal.reason);
        return false;
      });
      if (members.length === 0) return;
      const file = await bucket.get(key, undefined);
      if (file === null || isTombstone(file)) {
        const kind = (await anythingBeneath(space, path, undefined)) ? 'directory' : null;
        for (const member of members) member.resolve(kind);
        return;
      }
      // An edit whose id the file carries was written already (its reply was lost, and it came again).
      members = members.filter((member) => {
        if (!file.ops.includes(member.op)) return true;
        member.resolve('file');
        return false;
      });
      if (members.length === 0) return;
      let content = decodeContent(file);
      const outcomes = members.map((member) => {
        try {
          content = member.edit(content);
          return { member, error: undefined, applied: true };
        } catch (error) {
          return { member, error, applied: false };
        }
      });
      const settle = () => {
        for (const { member, error, applied } of outcomes) {
          if (applied) member.resolve('file');
          else member.reject(error);
        }
      };
      // No edit changed anything: each refusal was judged on content that is really there.
      if (!outcomes.some((outcome) => outcome.applied)) {
        settle();
        return;
      }
      // Every edit's id goes in the metadata, so a resent PUT or a replayed edit is recognised.
      const applied = outcomes.filter((outcome) => outcome.applied).map((outcome) => outcome.member.op);
      const ops = opsHeader(applied, file.ops);
      const written = await bucket.put(key, content, { ifMatch: file.etag, ops }, undefined);
      if (typeof written === 'string') {
        carried.remember(key, written, ops.split(' '));
        settle();
        return;
      }
      if (written.resent) {
        const now = await bucket.head(key, undefined);
        if (isLiveFile(now) && now.ops.includes(applied[0]!)) {
          settle();
          return;
        }
      }
      if (Date.now() >= giveUpAt) throw storeUnavailable('other writers kept changing the file');
      await sleep(Math.random() * Math.min(MAX_BACKOFF_MS, 2 ** round));
    }
  } catch (error) {
    for (const member of members) member.reject(error);
  }
}
