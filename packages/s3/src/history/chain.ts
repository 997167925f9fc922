// A memory file's own record of its history, in its object's metadata: its file id (`memdir-file`)
// and the sequence numbers and times of its newest kept versions (`memdir-vers`), newest first.
// A run of consecutive versions with one time (a group of edits committed by one PUT) is one entry
// `seq.at.n`: a chain names every version of its change, however many edits the group had. A
// file object is only ever written by a change that committed, so every version its chain names
// happened: the chain is how a reader tells a version that committed from one whose change lost its
// race or died before its write (read.ts), and how a change knows which of its file's
// versions retention removes, without a listing (prunePlan). A version object keeps the chain its
// change read (its `evidence`), which stays proof after the file moved on, moved away or went.
import type { ChangeRecord } from '@memdir/core';
import { PRUNE_PER_CHANGE, prunable } from '@memdir/core/driver';

/**
 * The most entries (runs of versions) a chain has: the default `keepVersions` (20) and a change's
 * pruning (PRUNE_PER_CHANGE) fit, and so does the header in S3's 2 KB of metadata (about 25 bytes
 * each). Versions of a file beyond its newest 24 runs kept are left to the admin sweep.
 */
export const CHAIN_LIMIT = 24;
/** The longest run one entry names (a group of edits is far shorter): bounds what a header expands to. */
const MAX_RUN = 10_000;

/** One version as a chain names it. */
export interface ChainEntry {
  readonly seq: number;
  /** The version's time (ms). */
  readonly at: number;
}

/**
 * The entries of a `memdir-vers` header (`seq.at`, or `seq.at.n` for the run seq, seq-1, ...
 * seq-n+1 with one time, in base 36, newest first); malformed ones dropped.
 */
export function parseChain(header: string | undefined): ChainEntry[] {
  if (!header) return [];
  const entries: ChainEntry[] = [];
  for (const part of header.split(' ')) {
    const [seq, at, run] = part.split('.');
    const entry = { seq: Number.parseInt(seq ?? '', 36), at: Number.parseInt(at ?? '', 36) };
    if (!(Number.isSafeInteger(entry.seq) && entry.seq > 0 && Number.isSafeInteger(entry.at))) continue;
    const length = run === undefined ? 1 : Number.parseInt(run, 36);
    if (!Number.isSafeInteger(length) || length < 1) continue;
    for (let index = 0; index < Math.min(length, MAX_RUN, entry.seq); index++)
      entries.push({ seq: entry.seq - index, at: entry.at });
  }
  return entries;
}

/** The runs of a chain: consecutive versions (seq going down by one) with one time. */
function runsOf(entries: readonly ChainEntry[]): { head: ChainEntry; length: number }[] {
  const runs: { head: ChainEntry; length: number }[] = [];
  for (const entry of entries) {
    const last = runs.at(-1);
    if (
      last &&
      last.head.at === entry.at &&
      last.head.seq - last.length === entry.seq &&
      last.length < MAX_RUN
    )
      last.length++;
    else runs.push({ head: entry, length: 1 });
  }
  return runs;
}

/** The entries of a chain's first {@link CHAIN_LIMIT} runs: what its header names. */
export function cutChain(entries: readonly ChainEntry[]): ChainEntry[] {
  const runs = runsOf(entries).slice(0, CHAIN_LIMIT);
  return entries.slice(
    0,
    runs.reduce((sum, run) => sum + run.length, 0),
  );
}

/** The header of a chain, at most {@link CHAIN_LIMIT} entries (runs). */
export function formatChain(entries: readonly ChainEntry[]): string {
  return runsOf(entries)
    .slice(0, CHAIN_LIMIT)
    .map(({ head, length }) => {
      const entry = `${head.seq.toString(36)}.${head.at.toString(36)}`;
      return length === 1 ? entry : `${entry}.${length.toString(36)}`;
    })
    .join(' ');
}

/** True when a header was cut at {@link CHAIN_LIMIT}: versions older than it names may have happened. */
export function chainIsFull(header: string | undefined): boolean {
  return header !== undefined && header !== '' && header.split(' ').length >= CHAIN_LIMIT;
}

/**
 * What retention does to a file that gets `added` (newest first) on top of `chain`: the versions it
 * removes (at most PRUNE_PER_CHANGE per version added, oldest first, the kit's `prunable`) and the
 * chain the file carries afterwards.
 */
export function prunePlan(
  added: readonly ChainEntry[],
  chain: readonly ChainEntry[],
  record: Pick<ChangeRecord, 'keepVersions' | 'keepDays'>,
  now: number,
): { pruned: number[]; chain: ChainEntry[] } {
  const all = [...added, ...chain];
  const doomed = new Set(prunable(all, record, now, PRUNE_PER_CHANGE * Math.max(1, added.length)));
  return {
    pruned: all.filter((_, index) => doomed.has(index)).map((entry) => entry.seq),
    chain: cutChain(all.filter((_, index) => !doomed.has(index))),
  };
}
