// The file chain (history/chain.ts) and retention's plan on it, without a server: what lets a change
// prune its file in its own step. The bound "10,000 edits with keepDays 0 leave at most keepVersions
// versions" follows from one step, checked here for every length up to and past the chain's limit;
// history-retention.test.ts checks it against radosgw with fewer edits.
import { PRUNE_PER_CHANGE } from '@memdir/core/driver';
import { describe, expect, it } from 'vitest';
import { CHAIN_LIMIT, type ChainEntry, formatChain, parseChain, prunePlan } from '../src/history/chain.js';
import { fileMetadata, opsHeader } from '../src/objects.js';

const DAY_MS = 86_400_000;

describe('the chain of a file', () => {
  it('round-trips through its header, newest first, cut at the limit', () => {
    const entries = Array.from({ length: 30 }, (_, index) => ({
      seq: 9_000_000_000_000 - index,
      at: 1_800_000_000_000 + index,
    }));
    expect(parseChain(formatChain(entries))).toEqual(entries.slice(0, CHAIN_LIMIT));
    expect(parseChain('')).toEqual([]);
    expect(parseChain('zz.1 bad !.? 1.1')).toEqual([
      { seq: Number.parseInt('zz', 36), at: 1 },
      { seq: 1, at: 1 },
    ]);
  });

  it("fits in S3's 2 KB of user metadata beside the longest operation ids a write keeps and the record", () => {
    // The largest ids and times a chain can hold (sequence numbers of 16 digits), each entry a
    // run of versions.
    const entries = Array.from({ length: CHAIN_LIMIT }, (_, run) =>
      Array.from({ length: 1_000 }, (_, index) => ({
        seq: 9_007_199_254_740_991 - run * 2_000 - index,
        at: 4_102_444_800_000 - run,
      })),
    ).flat();
    const chain = formatChain(entries);
    expect(chain.split(' ')).toHaveLength(CHAIN_LIMIT);
    const record = {
      sha256: 'f'.repeat(64),
      createdAt: 4_102_444_800_000,
      changedAt: 4_102_444_800_000,
      versionSeq: 9_007_199_254_740_991,
    };
    const metadata = {
      'memdir-op': opsHeader(Array.from({ length: 100 }, (_, index) => `${'x'.repeat(30)}${index}`)),
      'memdir-source': 'f'.repeat(32),
      ...fileMetadata({ fileId: `mem_${'A'.repeat(22)}`, chain, record }),
    };
    const bytes = Object.entries(metadata).reduce((sum, [key, value]) => sum + key.length + value.length, 0);
    expect(bytes).toBeLessThanOrEqual(2_048);
  });
});

describe("retention's plan for one change", () => {
  const now = 1_800_000_000_000;

  /** Edits one after another, each applying its plan: the chain the file ends with, and what was pruned. */
  function edit(times: number, retention: { keepVersions: number; keepDays: number }, spacingMs = 1) {
    let chain: ChainEntry[] = [];
    let pruned = 0;
    for (let seq = 1; seq <= times; seq++) {
      const at = now - (times - seq) * spacingMs;
      const plan = prunePlan([{ seq, at }], chain, retention, at);
      expect(plan.pruned.length).toBeLessThanOrEqual(PRUNE_PER_CHANGE);
      pruned += plan.pruned.length;
      chain = plan.chain;
    }
    return { chain, pruned };
  }

  it('10,000 edits with keepDays 0 keep the newest keepVersions, for keepVersions up to what a chain holds', () => {
    for (const keepVersions of [1, 3, 20, CHAIN_LIMIT - 1]) {
      const { chain, pruned } = edit(10_000, { keepVersions, keepDays: 0 });
      expect(chain.map((entry) => entry.seq)).toEqual(
        Array.from({ length: keepVersions }, (_, index) => 10_000 - index),
      );
      expect(pruned).toBe(10_000 - keepVersions);
    }
  });

  it('keeps versions younger than keepDays whatever their number, and prunes them once they age', () => {
    const young = edit(50, { keepVersions: 3, keepDays: 30 }, DAY_MS / 100);
    expect(young.pruned).toBe(0);
    expect(young.chain).toHaveLength(CHAIN_LIMIT);
    // A month later, the next change removes PRUNE_PER_CHANGE of them, oldest first.
    const later = now + 31 * DAY_MS;
    const plan = prunePlan([{ seq: 51, at: later }], young.chain, { keepVersions: 3, keepDays: 30 }, later);
    expect(plan.pruned).toEqual(young.chain.slice(-PRUNE_PER_CHANGE).map((entry) => entry.seq));
  });

  it('never prunes the new version, and a group of edits prunes for each of them', () => {
    const chain = Array.from({ length: 10 }, (_, index) => ({ seq: 10 - index, at: now - 1000 }));
    const added = [
      { seq: 12, at: now },
      { seq: 11, at: now },
    ];
    const plan = prunePlan(added, chain, { keepVersions: 1, keepDays: 0 }, now);
    expect(plan.pruned).toHaveLength(2 * PRUNE_PER_CHANGE);
    expect(plan.chain[0]).toEqual({ seq: 12, at: now });
  });
});

describe('runs of versions in a chain (issue 29)', () => {
  const at = 1_800_000_000_000;

  it('a group of edits committed together is one entry, however long, and every version of it is named', () => {
    const group = Array.from({ length: 100 }, (_, index) => ({ seq: 500 - index, at }));
    const older = Array.from({ length: 30 }, (_, index) => ({ seq: 399 - index, at: at - 1 - index }));
    const header = formatChain([...group, ...older]);
    expect(header.split(' ')).toHaveLength(CHAIN_LIMIT);
    expect(header.split(' ')[0]).toBe(`${(500).toString(36)}.${at.toString(36)}.${(100).toString(36)}`);
    expect(parseChain(header)).toEqual([...group, ...older.slice(0, CHAIN_LIMIT - 1)]);
  });

  it("a plan keeps a change's whole group on top of the chain", () => {
    const added = Array.from({ length: 60 }, (_, index) => ({ seq: 100 - index, at }));
    const chain = Array.from({ length: 30 }, (_, index) => ({ seq: 40 - index, at: at - 10 - index }));
    const plan = prunePlan(added, chain, { keepVersions: 1_000, keepDays: 30 }, at);
    expect(plan.pruned).toEqual([]);
    expect(plan.chain).toEqual([...added, ...chain.slice(0, CHAIN_LIMIT - 1)]);
    expect(parseChain(formatChain(plan.chain))).toEqual(plan.chain);
  });

  it('a run in a malformed or hostile header is bounded', () => {
    expect(parseChain('3.1.5')).toEqual([
      { seq: 3, at: 1 },
      { seq: 2, at: 1 },
      { seq: 1, at: 1 },
    ]);
    expect(parseChain('zzzzzzz.1.zzzzzz')).toHaveLength(10_000);
    expect(parseChain('5.1.0 5.1.!')).toEqual([]);
  });
});
