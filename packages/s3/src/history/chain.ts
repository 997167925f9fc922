// A memory file's own record of its history, in its object's metadata: its file id (`memdir-file`)
// and the sequence numbers and times of its newest kept versions (`memdir-vers`), newest first. A
// file object is only ever written by a change that committed, so every version its chain names
// happened: the chain is how a reader tells a version that committed from one whose change lost its
// race or died before its write (read.ts), and how a change knows which of its file's
// versions retention removes, without a listing (prunePlan). A version object keeps the chain its
// change read (its `evidence`), which stays proof after the file moved on, moved away or went.
import type { ChangeRecord } from '@memdir/core';
import { PRUNE_PER_CHANGE, prunable } from '@memdir/core/driver';

/**
 * The most versions a chain names: the default `keepVersions` (20) and a change's pruning
 * (PRUNE_PER_CHANGE) fit, and so does the header in S3's 2 KB of metadata (about 20 bytes each).
 * Versions of a file beyond its newest 24 kept are left to the admin sweep.
 */
export const CHAIN_LIMIT = 24;

/** One version as a chain names it. */
export interface ChainEntry {
  readonly seq: number;
  /** The version's time (ms). */
  readonly at: number;
}

/** The entries of a `memdir-vers` header (`seq.at` in base 36, newest first); malformed ones dropped. */
export function parseChain(header: string | undefined): ChainEntry[] {
  if (!header) return [];
  const entries: ChainEntry[] = [];
  for (const part of header.split(' ')) {
    const [seq, at] = part.split('.');
    const entry = { seq: Number.parseInt(seq ?? '', 36), at: Number.parseInt(at ?? '', 36) };
    if (Number.isSafeInteger(entry.seq) && entry.seq > 0 && Number.isSafeInteger(entry.at))
      entries.push(entry);
  }
  return entries;
}

/** The header of a chain, at most {@link CHAIN_LIMIT} entries. */
export function formatChain(entries: readonly ChainEntry[]): string {
  return entries
    .slice(0, CHAIN_LIMIT)
    .map((entry) => `${entry.seq.toString(36)}.${entry.at.toString(36)}`)
    .join(' ');
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
    chain: all.filter((_, index) => !doomed.has(index)).slice(0, CHAIN_LIMIT),
  };
}
