// Namespaces compared the way the filesystem under them compares names. A namespace is the folder
// `namespaces/{name}`; on the default filesystems of macOS (APFS) and Windows (NTFS) names are
// compared without regard to case, so `Team` and `team` would be one folder and two tenants would
// share their files. Namespace names are ASCII (core's rule), so case is the only folding that
// can join two of them. Where the filesystem folds case (a probe file, once per root and process),
// a namespace whose name differs only in case from one already there is refused.
import * as fs from 'node:fs';
import { join } from 'node:path';
import { type NameComparison, probeNameComparison } from './name-probe.js';

export type { NameComparison } from './name-probe.js';

/**
 * The name among `names` (a folder's entries) that is not `name` but names the same folder under
 * `comparison`, if any. Dot names (a probe, a dropped namespace being removed) are no namespace.
 */
export function sameFolderAs(
  name: string,
  names: readonly string[],
  comparison: NameComparison,
): string | undefined {
  if (comparison === 'exact') return undefined;
  const folded = name.toLowerCase();
  return names.find((other) => other !== name && !other.startsWith('.') && other.toLowerCase() === folded);
}

/** The refusal of namespace `name`, which would share the folder of namespace `other`. */
export function namespaceCollision(name: string, other: string): TypeError {
  return new TypeError(
    `Invalid @memdir/fs namespace ${JSON.stringify(name)}: the filesystem under the store compares names without regard to case, and namespace ${JSON.stringify(other)} is there already, so the two would share one folder; use a name that differs from it by more than case`,
  );
}

/** What a driver and its namespaces learnt of the filesystem under their root (one probe). */
export interface NamesKnown {
  comparison?: NameComparison | undefined;
}

/**
 * Checks namespace folder `segments` (`[..., 'namespaces', name]`) under `root` against the
 * namespaces beside it, probing the filesystem the first time there are any.
 * @throws TypeError when the filesystem folds case and another namespace's name differs from this
 *   one's only in case.
 */
export function checkNamespaceFolder(
  root: string,
  segments: readonly string[],
  known: NamesKnown,
  probe: (dir: string) => NameComparison = probeNameComparison,
): void {
  const parent = join(root, ...segments.slice(0, -1));
  const name = segments[segments.length - 1]!;
  if (known.comparison === undefined) {
    // No namespaces folder yet: nothing to share a folder with, and nowhere to probe.
    if (!fs.lstatSync(parent, { throwIfNoEntry: false })?.isDirectory()) return;
    known.comparison = probe(parent);
  }
  if (known.comparison === 'exact') return;
  let names: string[];
  try {
    names = fs.readdirSync(parent);
  } catch {
    return;
  }
  const other = sameFolderAs(name, names, known.comparison);
  if (other !== undefined) throw namespaceCollision(name, other);
}
