import { describe, expect, it } from 'vitest';
import { compareExact, compareListing } from '../src/verify.js';

const header =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";
const listing = (...lines: string[]) => [header, ...lines].join('\n');

describe('compareListing', () => {
  it('accepts identical listings', () => {
    const text = listing('6B\t/memories', '6B\t/memories/a.md');
    expect(compareListing(text, text)).toEqual({ identical: true, expected: [], unexpected: [] });
  });

  it('reports differing directory sizes as expected (SPEC section 9), not as a failure', () => {
    const result = compareListing(
      listing('9B\t/memories', '3B\t/memories/d/', '3B\t/memories/d/a.md', '6B\t/memories/b.md'),
      listing('4K\t/memories', '4K\t/memories/d/', '3B\t/memories/d/a.md', '6B\t/memories/b.md'),
    );
    expect(result.identical).toBe(false);
    expect(result.unexpected).toEqual([]);
    expect(result.expected).toHaveLength(1);
    expect(result.expected[0]).toContain('2 directory size(s) differ');
  });

  it('reports a differing file size, a differing path and a different count as unexpected', () => {
    expect(
      compareListing(
        listing('4K\t/memories', '7B\t/memories/a.md'),
        listing('4K\t/memories', '6B\t/memories/a.md'),
      ).unexpected,
    ).toEqual(['/memories/a.md: memdir says 7B, the reference 6B']);
    expect(
      compareListing(
        listing('4K\t/memories', '6B\t/memories/b.md'),
        listing('4K\t/memories', '6B\t/memories/a.md'),
      ).unexpected,
    ).toEqual(['line 3: memdir lists "/memories/b.md", the reference "/memories/a.md"']);
    expect(
      compareListing(listing('4K\t/memories'), listing('4K\t/memories', '6B\t/memories/a.md')).unexpected,
    ).toEqual(['memdir lists 1 lines, the reference 2']);
  });

  it('accepts a truncated listing whose lines start the full one, as an expected difference', () => {
    const result = compareListing(
      listing(
        '12B\t/memories',
        '6B\t/memories/a.md',
        '[Listing truncated: 1 of 2 entries shown. View a subdirectory to see the rest.]',
      ),
      listing('4K\t/memories', '6B\t/memories/a.md', '6B\t/memories/b.md'),
    );
    expect(result.unexpected).toEqual([]);
    expect(result.expected[0]).toContain('(1 of 2 entries shown)');
  });

  it('reports different headers as unexpected', () => {
    expect(compareListing('x\n4K\t/memories', 'y\n4K\t/memories').unexpected).toEqual([
      'headers differ: "x" vs "y"',
    ]);
  });
});

describe('compareExact', () => {
  it('accepts equal texts and reports any difference as unexpected', () => {
    expect(compareExact('a', 'a').identical).toBe(true);
    expect(compareExact('a', 'b').unexpected).toEqual(['memdir returned "a", the reference "b"']);
  });
});
