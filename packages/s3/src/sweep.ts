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
//      version listed (no listing of its own: the freeze's If-Match checks the version): a file written or edited since it was found stale is kept; windows of
//      removals until half the call's time is spent (the next call goes on from there)
import { createHash } from 'node:crypto';
import type { DriverSweepOptions } from '@memdir/core';
import { PAGE_SIZE } from './bucket.js';
import type { Call } from './call.js';
import { sweepVersions } from './history/sweep.js';
import { isListedTombstone, listObjects } from './listing.js';
import { opsHeader } from './objects.js';
import type { NamespaceState, Space } from './space.js';
import { removePath } from './structure.js';

/** Removals queued for the lease together (each a journal write, a freeze and a delete). */
const REMOVAL_WINDOW = 32;

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
  // The probe first, as before any change: a server that ignores conditions is refused here too.
  await space.backend.behaviour(call);
  const { expireBefore } = options;
  if (expireBefore === undefined) return pruneHistory(space, options, 0, true, call);
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
  const stale: { key: string; path: string; etag: string; size: number }[] = [];
  let full = false;
  for await (const object of listObjects(bucket, keys.files, { call, startAfter })) {
    const path = keys.pathOf(object.key);
    if (path === undefined || isListedTombstone(object) || object.modified === undefined) continue;
    const read = touched.get(touchedKey(space, path)) ?? 0;
    if (Math.max(object.modified, read) >= expireBefore) continue;
    stale.push({ key: object.key, path, etag: object.etag, size: object.size });
    if (stale.length === batch) {
      full = true;
      break;
    }
  }

  // Removals queue for the lease a window at a time (one lease for the window), and stop once half
  // the call's time is spent, so a batch never runs past its deadline: the next call goes on.
  const quota = totals === null ? undefined : {};
  const halfway = Date.now() + call.left / 2;
  const gone: string[] = [];
  let done = 0;
  while (done < stale.length && (done === 0 || Date.now() < halfway)) {
    const window = stale.slice(done, done + REMOVAL_WINDOW);
    const removed = await Promise.all(
      window.map(({ path, etag, size }) =>
        removePath(space, path, {
          op: options.op,
          call,
          quota,
          onlyVersion: { etag, size },
          // History on: each expiry is recorded as a deletion (history/structure.ts).
          record: options.record,
        }),
      ),
    );
    window.forEach(({ path }, index) => {
      if (removed[index]) gone.push(touchedKey(space, path));
    });
    done += window.length;
  }
  const stopped = full || done < stale.length;
  if (stopped) resumeAt.set(state, { expireBefore, key: stale[done - 1]!.key });
  else resumeAt.delete(state);
  if (gone.length > 0) await bucket.deleteMany(gone, call);
  return pruneHistory(space, options, gone.length, !stopped, call);
}

/** After the expiry of a batch, the versions retention no longer keeps, within what the batch has left. */
async function pruneHistory(
  space: Space,
  options: DriverSweepOptions,
  expired: number,
  expiryDone: boolean,
  call: Call,
): Promise<{ expired: number; pruned: number; done: boolean }> {
  const budget = Math.max(0, Math.floor(options.batch) - expired);
  if (options.retention === undefined && options.record === undefined) {
    return { expired, pruned: 0, done: expiryDone };
  }
  if (budget === 0) return { expired, pruned: 0, done: false };
  const swept = await sweepVersions(space, options.retention, options.now ?? Date.now(), budget, call);
  return { expired, pruned: swept.pruned, done: expiryDone && swept.done };
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
