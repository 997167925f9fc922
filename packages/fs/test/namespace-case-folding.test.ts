// Whole stores on a filesystem taken to fold case, as macOS's and Windows's do by default: the
// probe's answer is given (this machine's filesystem compares names exactly, and none that folds
// case can be mounted here), the rest runs as it would there. `team` beside `Team` is refused with
// a TypeError before anything is made; `Team` itself, and other names, open as before.
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { createFsAdmin, createFsDriver, createFsStore } from '../src/index.js';
import { tempFolder } from './helpers.js';

vi.mock('../src/name-probe.js', () => ({ probeNameComparison: () => 'folds-case' }));

const REFUSED_TEAM =
  'Invalid @memdir/fs namespace "team": the filesystem under the store compares names without regard to case, and namespace "Team" is there already, so the two would share one folder; use a name that differs from it by more than case';

describe('a filesystem that folds case', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('a store of namespace team beside Team is refused, by every way in; Team and others open as before', async () => {
    const upper = createFsStore({ root, namespace: 'Team' });
    await upper.create({ command: 'create', path: '/memories/a.md', file_text: 'upper' });
    expect(() => createFsStore({ root, namespace: 'team' })).toThrow(new TypeError(REFUSED_TEAM));
    const driver = createFsDriver({ root });
    expect(() => driver.namespace('team')).toThrow(new TypeError(REFUSED_TEAM));
    expect(() => driver.namespace('TEAM')).toThrow(TypeError);
    const again = driver.namespace('Team');
    const other = driver.namespace('team-b');
    await again.close();
    await other.close();
    await driver.close();
    // Nothing was made for the refused names.
    expect((await readdir(join(root, 'namespaces'))).sort()).toEqual(['Team']);
    expect(await upper.view({ command: 'view', path: '/memories/a.md' })).toContain('1\tupper');
    await upper.close();
  });

  it('the admin refuses the folded name too, and lists the one namespace', async () => {
    const upper = createFsStore({ root, namespace: 'Team' });
    await upper.create({ command: 'create', path: '/memories/a.md', file_text: 'upper' });
    await upper.close();
    const admin = createFsAdmin({ root });
    try {
      await expect(admin.usage('team')).rejects.toThrow(REFUSED_TEAM);
      expect((await admin.listNamespaces()).namespaces).toEqual(['Team']);
    } finally {
      await admin.close();
    }
  });
});
