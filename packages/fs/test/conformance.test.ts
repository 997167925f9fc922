import { mkdtempSync, rmSync } from 'node:fs';
import { lstat, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMemoryStore } from '@memdir/conformance';
import { afterAll } from 'vitest';
import { createFsDriver, createFsStore } from '../src/index.js';

// One folder per backend name: two stores opened with the same name share a folder, as two
// processes pointed at one root would.
const base = mkdtempSync(join(tmpdir(), 'memdir-fs-conformance-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

async function exists(path: string): Promise<boolean> {
  return lstat(path).then(
    () => true,
    () => false,
  );
}

/** The folders beneath `dir` (not `dir` itself) that hold nothing, as paths relative to `root`. */
async function emptyFolders(dir: string, root: string): Promise<string[]> {
  const found: string[] = [];
  for (const entry of await readdir(dir, { withFileTypes: true })) {
    if (!entry.isDirectory()) continue;
    const child = join(dir, entry.name);
    if ((await readdir(child)).length === 0) found.push(child.slice(root.length + 1));
    else found.push(...(await emptyFolders(child, root)));
  }
  return found;
}

/**
 * What the fs store promises about its folder once every store on it is closed (README "Layout"):
 * no lock left behind (an idle holder lets go within a few milliseconds), no temporary file or
 * trash of this process, and no emptied folder under `memories` (SPEC section 3), in the folder
 * itself and in every namespace beneath `namespaces/`, at any depth.
 */
async function checkFolder(folder: string): Promise<void> {
  if (!(await exists(folder))) return;
  const lock = join(folder, '.memdir', 'lock');
  for (let waited = 0; (await exists(lock)) && waited < 2_000; waited += 10) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  const problems: string[] = [];
  if (await exists(lock)) problems.push('the lock is still held 2 s after every store was closed');
  if (await exists(`${lock}.waiting`)) problems.push('a waiting marker was left behind');
  const tmp = join(folder, '.memdir', 'tmp');
  const leftovers = (await exists(tmp)) ? await readdir(tmp) : [];
  if (leftovers.length > 0)
    problems.push(`temporary files were left in .memdir/tmp: ${leftovers.join(', ')}`);
  const memories = join(folder, 'memories');
  const empty = (await exists(memories)) ? await emptyFolders(memories, folder) : [];
  if (empty.length > 0) problems.push(`emptied folders were left: ${empty.join(', ')}`);
  if (problems.length > 0) throw new Error(`fs folder ${folder}: ${problems.join('; ')}`);
  const namespaces = join(folder, 'namespaces');
  if (await exists(namespaces)) {
    for (const name of await readdir(namespaces)) await checkFolder(join(namespaces, name));
  }
}

const destroy = (backend: string) => rm(join(base, backend), { recursive: true, force: true });
const check = (backend: string) => checkFolder(join(base, backend));

// The whole suite on the driver, so the driver group checks the real filesystem driver too. The
// retention test makes 1,000 edits here, not 10,000 (each edit is an fsynced file and a synced
// history line: 10,000 would take half a minute of the CI budget); retention.test.ts checks the
// 10,000-edit rule on the history file itself.
//
// Commands get 30 s, not the default 5 s: CI runs this suite on Node 22 and 24 beside npm installs
// and other suites on two cores, where one fsync can stall for seconds. The deadline itself is
// tested in deadline.test.ts, lock.test.ts and reasons.test.ts.
const storeOptions = { timeoutMs: 30_000 };
describeMemoryStore({
  name: 'fs',
  createDriver: (backend) => createFsDriver({ root: join(base, backend) }),
  check,
  destroy,
  historyEdits: 1_000,
  storeOptions,
});

// With createDriver the stores of one backend share one driver. Here each store gets its own, as
// separate processes on one folder would: the lock, the concurrency and the namespace layout are
// exercised between driver instances, through createFsStore and its options.
describeMemoryStore(
  {
    name: 'fs, one createFsStore per store',
    create: (options, backend) => createFsStore({ ...options, root: join(base, backend) }),
    check,
    destroy,
    storeOptions,
  },
  { groups: ['concurrency', 'isolation', 'create'] },
);
