// Expiry on S3: a file's last change is its object's Last-Modified (every write, edit and move
// writes the object anew), and a read that refreshes expiry (`touch`) writes a small marker,
// `.memdir/touched/{hash of the path}`, whose Last-Modified is the read's time. Listings carry both
// to the millisecond (HEAD only to the second), so a sweep judges them from listings alone:
//
//   1. the markers, listed (usually none: one request); markers older than `expireBefore` can keep
//      no file and are deleted
//   2. the files, listed from where the last call of the same sweep stopped, and the stale ones
//      (changed and touched before `expireBefore`) taken, at most `batch`
//   3. each removed through the driver's own remove path, under the lease, frozen first over the
//      version listed: a file written or edited since it was found stale is kept
import { createHash } from 'node:crypto';
import type { DriverSweepOptions } from '@memdir/core';
import type { NamespaceState, Space } from './backend.js';
import { PAGE_SIZE } from './bucket.js';
import type { Call } from './call.js';
import { isListedTombstone, listObjects } from './listing.js';
import { opsHeader } from './objects.js';
import { removePath } from './structure.js';

/**
 * Where the last call of a sweep stopped because its batch was full, per namespace and expiry time:
 * the next call of the same sweep goes on from there (what lies before was judged already, and
 * files only get younger). A new sweep (another `expireBefore`), or another process, starts over.
 */
const resumeAt = new WeakMap<NamespaceState, { readonly expireBefore: number; readonly key: string }>();

/** The marker of a touched read of driver path `path`: fixed length, whatever the path's. */
export function touchedKey(space: Space, path: string): string {
  return space.keys.touched + createHash('sha256').update(path).digest('hex').slice(0, 32);
}

/**
 * Records that the file at `path` was read now (expiry with `refreshOnRead`): one PUT, sent beside
 * the read. A marker of a path that holds no file keeps nothing alive and is swept once old.
 */
export async function touch(space: Space, path: string, call: Call): Promise<void> {
  try {
    await space.backend.bucket.put(touchedKey(space, path), '', { ops: opsHeader('touch') }, call);
  } catch (error) {
    // The read itself answers as usual: a lost marker only lets the file expire by its last change.
    call.log.warn('a read was not recorded for expiry', { reason: (error as { reason?: unknown }).reason });
  }
}

/** One batch of expiry in the namespace of `space` (see the top of this file and the driver contract). */
export async function sweepSpace(
  space: Space,
  options: DriverSweepOptions,
  call: Call,
): Promise<{ expired: number; pruned: number; done: boolean }> {
  const { expireBefore } = options;
  if (expireBefore === undefined) return { expired: 0, pruned: 0, done: true };
  const { backend, keys } = space;
  const { bucket } = backend;
  const state = backend.namespace(keys);

  const [touched, totals] = await Promise.all([
    touchedReads(space, expireBefore, call),
    // A namespace whose quota totals are kept gets the bytes of its expired files back.
    bucket.head(keys.totals, call),
  ]);
  const batch = Math.max(1, Math.floor(options.batch));
  const resume = resumeAt.get(state);
  const startAfter = resume?.expireBefore === expireBefore ? resume.key : undefined;
  const stale: { path: string; etag: string }[] = [];
  let stoppedAt: string | undefined;
  for await (const object of listObjects(bucket, keys.files, { call, startAfter })) {
    const path = keys.pathOf(object.key);
    if (path === undefined || isListedTombstone(object) || object.modified === undefined) continue;
    const read = touched.get(touchedKey(space, path)) ?? 0;
    if (Math.max(object.modified, read) >= expireBefore) continue;
    stale.push({ path, etag: object.etag });
    if (stale.length === batch) {
      stoppedAt = object.key;
      break;
    }
  }
  if (stoppedAt === undefined) resumeAt.delete(state);
  else resumeAt.set(state, { expireBefore, key: stoppedAt });

  const quota = totals === null ? undefined : {};
  const removed = await Promise.all(
    stale.map(({ path, etag }) =>
      removePath(space, path, { op: options.op, call, quota, onlyVersion: etag }),
    ),
  );
  const gone = stale.filter((_, index) => removed[index]).map(({ path }) => touchedKey(space, path));
  if (gone.length > 0) await bucket.deleteMany(gone, call);
  return { expired: gone.length, pruned: 0, done: stoppedAt === undefined };
}

/**
 * The touched-read markers of the namespace by key, with their times; up to a page of those older
 * than `expireBefore` (they can keep no file alive) is deleted on the way.
 */
async function touchedReads(space: Space, expireBefore: number, call: Call): Promise<Map<string, number>> {
  const { bucket } = space.backend;
  const times = new Map<string, number>();
  const old: string[] = [];
  for await (const object of listObjects(bucket, space.keys.touched, { call })) {
    const at = object.modified ?? 0;
    if (at < expireBefore && old.length < PAGE_SIZE) old.push(object.key);
    else times.set(object.key, at);
  }
  if (old.length > 0) await bucket.deleteMany(old, call);
  return times;
}
