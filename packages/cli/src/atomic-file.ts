// A file replaced whole or not at all: written beside its place under a temporary name, synced, then
// renamed over it, so a reader (a server reloading its tokens, Claude Code reading .mcp.json) sees
// the old file or the new one, never half of one.
import { randomBytes } from 'node:crypto';
import { open, rename, rm } from 'node:fs/promises';

/** Writes `text` to `path` through a temporary file beside it and one rename; `mode` for a new file. */
export async function writeFileAtomically(path: string, text: string, mode = 0o666): Promise<void> {
  const temporary = `${path}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`;
  const handle = await open(temporary, 'wx', mode);
  try {
    await handle.writeFile(text, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temporary, path);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}
