// Namespaces compared the way the filesystem under them compares names. This machine's filesystem
// compares names exactly: the probe says so, and `Team` and `team` are two namespaces with their
// own files. A filesystem that folds case (macOS, Windows) cannot be mounted here, so the rule that
// refuses `team` beside `Team` there is tested with the probe's answer given (namespace-case-folding
// .test.ts runs whole stores that way).
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsStore } from '../src/index.js';
import { probeNameComparison } from '../src/name-probe.js';
import { checkNamespaceFolder, type NamesKnown, sameFolderAs } from '../src/namespace-names.js';
import { tempFolder } from './helpers.js';

const REFUSED_TEAM =
  'Invalid @memdir/fs namespace "team": the filesystem under the store compares names without regard to case, and namespace "Team" is there already, so the two would share one folder; use a name that differs from it by more than case';

describe('namespace names under case folding', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('sameFolderAs: only another name equal but for case, and never a dot name, when the filesystem folds case', () => {
    const names = ['Team', 'team-2', '.drop~team~x1', '.case-probe~ab-a', 'TEAMS'];
    expect(sameFolderAs('team', names, 'folds-case')).toBe('Team');
    expect(sameFolderAs('TEAM', names, 'folds-case')).toBe('Team');
    expect(sameFolderAs('Team', names, 'folds-case')).toBeUndefined();
    expect(sameFolderAs('team-2', names, 'folds-case')).toBeUndefined();
    expect(sameFolderAs('Team-2', names, 'folds-case')).toBe('team-2');
    expect(sameFolderAs('team', names, 'exact')).toBeUndefined();
    expect(sameFolderAs('a.B@c', ['A.b@C'], 'folds-case')).toBe('A.b@C');
  });

  it('the probe of this machine\u2019s filesystem says it compares names exactly, and leaves nothing behind', async () => {
    expect(probeNameComparison(root)).toBe('exact');
    expect(await readdir(root)).toEqual([]);
  });

  it('checkNamespaceFolder: probes once, where there are namespaces, and refuses a name folded into another', async () => {
    const segments = (name: string) => ['namespaces', name];
    const known: NamesKnown = {};
    let probes = 0;
    const folds = () => {
      probes++;
      return 'folds-case' as const;
    };
    // No namespaces folder yet: nothing to share, no probe.
    checkNamespaceFolder(root, segments('team'), known, folds);
    expect(probes).toBe(0);
    await mkdir(join(root, 'namespaces', 'Team'), { recursive: true });
    expect(() => checkNamespaceFolder(root, segments('team'), known, folds)).toThrow(
      new TypeError(REFUSED_TEAM),
    );
    expect(() => checkNamespaceFolder(root, segments('TEAM'), known, folds)).toThrow(TypeError);
    checkNamespaceFolder(root, segments('Team'), known, folds);
    checkNamespaceFolder(root, segments('other'), known, folds);
    expect(probes).toBe(1);
    // Nested namespaces are compared with their siblings only.
    await mkdir(join(root, 'namespaces', 'Team', 'namespaces', 'Sub'), { recursive: true });
    expect(() =>
      checkNamespaceFolder(root, ['namespaces', 'Team', 'namespaces', 'sub'], known, folds),
    ).toThrow(TypeError);
    checkNamespaceFolder(root, ['namespaces', 'Team', 'namespaces', 'team'], known, folds);
    // Where the filesystem compares exactly, both names are namespaces of their own.
    checkNamespaceFolder(root, segments('team'), { comparison: 'exact' });
  });

  it('on this filesystem, Team and team are two namespaces, each with its own files', async () => {
    const upper = createFsStore({ root, namespace: 'Team' });
    const lower = createFsStore({ root, namespace: 'team' });
    try {
      await upper.create({ command: 'create', path: '/memories/a.md', file_text: 'upper' });
      await lower.create({ command: 'create', path: '/memories/a.md', file_text: 'lower' });
      expect(await upper.view({ command: 'view', path: '/memories/a.md' })).toContain('1\tupper');
      expect(await lower.view({ command: 'view', path: '/memories/a.md' })).toContain('1\tlower');
      expect((await readdir(join(root, 'namespaces'))).sort()).toEqual(['Team', 'team']);
    } finally {
      await upper.close();
      await lower.close();
    }
  });
});
