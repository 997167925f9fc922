// Finding `old_str` in a file (SPEC section 4.3), in time linear in the file and `old_str`, however
// many times and however it overlaps itself: a 1 MiB file of `a` searched for `a` has a million
// occurrences, and a long run of `a` searched for a slightly shorter run would take quadratic time
// with repeated `indexOf`.

/** Where `needle` occurs in `haystack`: how often, and the offsets of the first few. */
export interface Occurrences {
  /** Every occurrence, overlapping ones included (`aa` occurs twice in `aaa`). */
  readonly count: number;
  /** The offsets of the first `keep` occurrences, ascending. */
  readonly offsets: readonly number[];
}

/** Finds `needle` (non-empty) in `haystack`, keeping the offsets of the first `keep` occurrences. */
export function findOccurrences(haystack: string, needle: string, keep: number): Occurrences {
  const first = haystack.indexOf(needle);
  if (first === -1) return { count: 0, offsets: [] };
  const second = haystack.indexOf(needle, first + 1);
  if (second === -1) return { count: 1, offsets: [first] };
  return countAll(haystack, needle, first, keep);
}

/** Knuth-Morris-Pratt from `start` (an occurrence): every overlapping occurrence, in one pass. */
function countAll(haystack: string, needle: string, start: number, keep: number): Occurrences {
  const m = needle.length;
  // failure[i]: the length of the longest proper border of needle[0..i].
  const failure = new Int32Array(m);
  for (let i = 1, k = 0; i < m; i++) {
    while (k > 0 && needle.charCodeAt(i) !== needle.charCodeAt(k)) k = failure[k - 1]!;
    if (needle.charCodeAt(i) === needle.charCodeAt(k)) k++;
    failure[i] = k;
  }
  const offsets: number[] = [];
  let count = 0;
  for (let i = start, k = 0; i < haystack.length; i++) {
    const code = haystack.charCodeAt(i);
    while (k > 0 && code !== needle.charCodeAt(k)) k = failure[k - 1]!;
    if (code === needle.charCodeAt(k)) k++;
    if (k === m) {
      if (offsets.length < keep) offsets.push(i - m + 1);
      count++;
      k = failure[k - 1]!;
    }
  }
  return { count, offsets };
}

/** The 1-based line of each offset in `content` (offsets ascending), in one pass over the text. */
export function linesOfOffsets(content: string, offsets: readonly number[]): number[] {
  const lines: number[] = [];
  let line = 1;
  let newline = content.indexOf('\n');
  for (const offset of offsets) {
    while (newline !== -1 && newline < offset) {
      line++;
      newline = content.indexOf('\n', newline + 1);
    }
    lines.push(line);
  }
  return lines;
}
