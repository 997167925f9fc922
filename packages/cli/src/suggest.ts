// "Did you mean": the word of a list nearest to a mistyped one (a flag, a command, a config key).
// The distance is written here (about 20 lines): the well-kept packages (leven, fastest-levenshtein)
// count a swap of two neighbours (`veiw`) as two edits, where it is the commonest typo and one here.

/** The edit distance of two words (insertions, deletions, substitutions, and swaps of neighbours). */
function distance(a: string, b: string): number {
  const rows = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) rows[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let best = Math.min(rows[i - 1]![j]! + 1, rows[i]![j - 1]! + 1, rows[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, rows[i - 2]![j - 2]! + 1);
      rows[i]![j] = best;
    }
  }
  return rows[a.length]![b.length]!;
}

/** The candidate nearest to `word` (at most 2 edits, 1 for words of 4 letters or fewer), if any. */
export function nearest(word: string, candidates: readonly string[]): string | undefined {
  const limit = word.replace(/^-+/, '').length <= 4 ? 1 : 2;
  let found: { candidate: string; edits: number } | undefined;
  for (const candidate of candidates) {
    const edits = distance(word, candidate);
    if (edits <= limit && (found === undefined || edits < found.edits)) found = { candidate, edits };
  }
  return found?.candidate;
}
