import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';

// The modes both tools give what they create (owner only), so the trees match what the tools
// would have written themselves.
const DIR_MODE = 0o700;
const FILE_MODE = 0o600;

/** How many writes run at once while building a tree: enough to keep the thread pool busy. */
const CONCURRENCY = 32;

/**
 * Writes `files` (paths relative to `memoriesDir`, `/`-separated) straight to disk, bypassing
 * both tools: building a 10,000-file tree through either tool would take longer than the
 * measurement itself, and the measurement is only of reading it.
 */
export async function writeTree(memoriesDir: string, files: ReadonlyMap<string, string>): Promise<void> {
  const dirs = new Set<string>([memoriesDir]);
  for (const relative of files.keys()) dirs.add(path.dirname(path.join(memoriesDir, relative)));
  // Parents sort before their children, so each mkdir finds its parent in place.
  for (const dir of [...dirs].sort()) await mkdir(dir, { recursive: true, mode: DIR_MODE });
  const queue = [...files];
  const worker = async () => {
    for (let next = queue.pop(); next; next = queue.pop()) {
      const [relative, content] = next;
      await writeFile(path.join(memoriesDir, relative), content, { mode: FILE_MODE });
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

/**
 * The large tree: `dirs` folders of `filesPerDir` small files each, at depth 2 under `/memories`
 * (`d042/f017.md`). Sizes vary a little so the listing is not one repeated size.
 */
export function largeTree(dirs: number, filesPerDir: number): Map<string, string> {
  const files = new Map<string, string>();
  const pad = (n: number) => String(n).padStart(3, '0');
  for (let d = 0; d < dirs; d++) {
    for (let f = 0; f < filesPerDir; f++) {
      files.set(`d${pad(d)}/f${pad(f)}.md`, `Note ${d}/${f}: ${'x'.repeat((d * 7 + f * 13) % 97)}\n`);
    }
  }
  return files;
}

/**
 * A small tree that exercises what a listing must get right: sort order (`Zeta.md` before
 * `alpha.md`), hidden names and `node_modules` left out, and a folder at depth 2 listed but not
 * opened.
 */
export function smallTree(): Map<string, string> {
  return new Map([
    ['alpha.md', 'alpha\n'],
    ['Zeta.md', 'Zeta comes before alpha in UTF-16 order\n'],
    ['.hidden.md', 'never listed\n'],
    ['node_modules/pkg/index.md', 'never listed\n'],
    ['projects/a.md', 'a\n'],
    ['projects/b.md', 'bb\nbb\n'],
    ['projects/.draft.md', 'hidden inside a visible folder\n'],
    ['projects/deep/c.md', 'listed as projects/deep/, not opened\n'],
    ['team/alice.md', '# Alice\nPrefers async reviews.\n'],
  ]);
}
