/** How two tools' results for one command compare. */
export interface Comparison {
  /** True when the texts are byte for byte the same. */
  identical: boolean;
  /** Differences SPEC section 9 makes on purpose (e.g. directory sizes); reported as warnings. */
  expected: string[];
  /** Any other difference: one of the tools does not do what SPEC.md says they agree on. */
  unexpected: string[];
}

const TRUNCATION_NOTICE =
  /^\[Listing truncated: \d+ of \d+ entries shown\. View a subdirectory to see the rest\.\]$/;

/** Compares two result texts that SPEC.md says are identical. */
export function compareExact(memdir: string, reference: string): Comparison {
  if (memdir === reference) return { identical: true, expected: [], unexpected: [] };
  return {
    identical: false,
    expected: [],
    unexpected: [`memdir returned ${JSON.stringify(memdir)}, the reference ${JSON.stringify(reference)}`],
  };
}

/**
 * Compares two directory listings. They must agree on the header and, line by line, on every path
 * and on every file size. Directory sizes differ by design (SPEC section 9: memdir shows the total
 * of the visible files beneath, the reference the folder's inode size), and so does a listing
 * memdir truncates at `maxViewChars` (the reference has no limit): then memdir's lines must be the
 * first lines of the reference's.
 */
export function compareListing(memdir: string, reference: string): Comparison {
  if (memdir === reference) return { identical: true, expected: [], unexpected: [] };
  const expected: string[] = [];
  const unexpected: string[] = [];
  const ours = memdir.split('\n');
  const theirs = reference.split('\n');
  if (ours[0] !== theirs[0])
    unexpected.push(`headers differ: ${JSON.stringify(ours[0])} vs ${JSON.stringify(theirs[0])}`);

  let entries = ours.slice(1);
  const notice = entries.at(-1);
  if (notice !== undefined && TRUNCATION_NOTICE.test(notice)) {
    entries = entries.slice(0, -1);
    expected.push(
      `memdir truncates the listing at maxViewChars (${entries.length - 1} of ${theirs.length - 2} entries shown); the reference returns all of it (SPEC section 9)`,
    );
  } else if (entries.length !== theirs.length - 1) {
    unexpected.push(`memdir lists ${entries.length} lines, the reference ${theirs.length - 1}`);
  }

  let directorySizes = 0;
  const count = Math.min(entries.length, theirs.length - 1);
  for (let index = 0; index < count; index++) {
    const [ourSize, ourPath] = entries[index]!.split('\t');
    const [theirSize, theirPath] = theirs[index + 1]!.split('\t');
    if (ourPath !== theirPath) {
      unexpected.push(
        `line ${index + 2}: memdir lists ${JSON.stringify(ourPath)}, the reference ${JSON.stringify(theirPath)}`,
      );
      continue;
    }
    if (ourSize === theirSize) continue;
    // The first entry line is the viewed directory itself; the others that end in `/` are folders.
    if (index === 0 || ourPath!.endsWith('/')) directorySizes++;
    else unexpected.push(`${ourPath}: memdir says ${ourSize}, the reference ${theirSize}`);
  }
  if (directorySizes > 0) {
    expected.push(
      `${directorySizes} directory size(s) differ: memdir shows the total of the visible files beneath, the reference the folder's own size (SPEC section 9)`,
    );
  }
  return { identical: false, expected, unexpected };
}
