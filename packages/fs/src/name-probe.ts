// The probe of how a filesystem compares names (namespace-names.ts uses it), in a module of its own
// so that a test on a filesystem that compares names exactly can stand in one that folds case.
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import { join } from 'node:path';
import { FILE_MODE, O_CREAT, O_EXCL, O_NOFOLLOW, O_WRONLY } from './sys.js';

/** How a folder's filesystem compares names: exactly (Linux), or folding case (macOS, Windows). */
export type NameComparison = 'exact' | 'folds-case';

/**
 * Probes the filesystem of folder `dir`: makes a file of a lowercase name there (a dot name, which
 * no namespace has and every listing skips), looks it up in uppercase, and removes it. A folder
 * where no file can be made (read-only) is taken to fold case: the stricter answer.
 */
export function probeNameComparison(dir: string): NameComparison {
  const stem = `.case-probe~${randomBytes(6).toString('hex')}`;
  const lower = join(dir, `${stem}-a`);
  try {
    fs.closeSync(fs.openSync(lower, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, FILE_MODE));
  } catch {
    return 'folds-case';
  }
  try {
    const upper = join(dir, `${stem.toUpperCase()}-A`);
    return fs.lstatSync(upper, { throwIfNoEntry: false }) === undefined ? 'exact' : 'folds-case';
  } finally {
    fs.rmSync(lower, { force: true });
  }
}
