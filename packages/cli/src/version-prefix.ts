// Version ids as a person types them: `memver_0000000000000042` in full, or any prefix of it that
// names one version only (`memver_00000000000000`... as `git` takes a commit). The full id is
// tried first (one read); only an id the store does not know is looked up as a prefix, through
// the history's pages, so a store's own "Version ... does not exist" stays the answer when no
// version starts with it.
import { isMemoryToolError, type MemdirStore } from '@memdir/core';
import { CliUsageError } from './errors.js';

/** Versions read per page while looking for a prefix (the most a store gives at once). */
const PAGE = 1_000;
/** Candidates named when a prefix matches several. */
const SHOWN = 5;

/**
 * The one version id that is `given` or starts with it.
 * @throws CliUsageError (exit 2) when several versions start with `given`, listing a few;
 *   the store's own `NOT_FOUND` when none does.
 */
export async function resolveVersionId(store: MemdirStore, command: string, given: string): Promise<string> {
  try {
    await store.version(given);
    return given;
  } catch (error) {
    if (!isMemoryToolError(error) || error.code !== 'NOT_FOUND') throw error;
    const found: string[] = [];
    for (let cursor: string | undefined; found.length <= SHOWN; ) {
      const page = await store.history({ limit: PAGE, cursor });
      for (const version of page.versions) if (version.id.startsWith(given)) found.push(version.id);
      if (page.next === null || page.next === undefined) break;
      cursor = page.next;
    }
    if (found.length === 1) return found[0]!;
    if (found.length === 0) throw error;
    const listed = found.slice(0, SHOWN).join(', ');
    throw new CliUsageError(
      `${command}: the version id ${JSON.stringify(given)} is ambiguous: ${found.length > SHOWN ? `more than ${SHOWN}` : found.length} versions start with it (${listed}${found.length > SHOWN ? ', ...' : ''})`,
      { hint: 'Type more of the id, or all of it (memdir log lists them).' },
    );
  }
}
