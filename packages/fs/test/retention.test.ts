// The retention rule at full scale: 10,000 edits of one file with keepVersions 3 and keepDays 0
// leave at most 3 versions. The conformance target makes 1,000 edits through the store (each an
// fsynced file under the lock: 10,000 would take half a minute of CI); here the history file
// itself takes all 10,000, recorded as the driver records a change (the same recorder, the same
// pruning in the change's own group, the same rewrite once pruning left the file mostly dead), and
// a fresh reader of the file, as another process would be, finds what the writer's index holds.
import { createHash } from 'node:crypto';
import { mkdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openTrusted } from '../src/dir.js';
import { HistoryLog } from '../src/history/log.js';
import { Recorder } from '../src/history/recorder.js';
import { Temp } from '../src/temp.js';
import { tempFolder } from './helpers.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');
const EDITS = 10_000;

describe('retention at scale', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it(`${EDITS.toLocaleString('en-US')} edits of one file with keepVersions 3 and keepDays 0 leave at most 3 versions, in the writer and in a fresh reader, and the file stays small`, async () => {
    await mkdir(join(root, '.memdir', 'tmp'), { recursive: true });
    const memdir = await openTrusted(join(root, '.memdir'));
    const tmp = await openTrusted(join(root, '.memdir', 'tmp'));
    const log = new HistoryLog(memdir);
    const record = { actor: null, command: 'create', toolUseId: null, keepVersions: 3, keepDays: 0 } as const;
    let fileId = '';
    let largest = 0;
    let rewrites = 0;
    for (let index = 0; index < EDITS; index++) {
      await log.refresh();
      const recorder = new Recorder(log, record, `op-${String(index).padStart(22, '0')}`);
      const operation = index === 0 ? 'created' : 'modified';
      recorder.before([{ path: 'hot.md', operation, content: `edit ${index}` }]);
      recorder.happened();
      expect(recorder.finish()).toBe(true);
      fileId ||= recorder.last!.fileId;
      expect(recorder.last!.fileId).toBe(fileId);
      if (log.wasteful) {
        await log.rewrite(new Temp(tmp, `rewrite-${index}`));
        rewrites++;
      }
      expect(log.index.versionsOf(fileId).length).toBeLessThanOrEqual(3);
      if (index % 100 === 0) largest = Math.max(largest, (await stat(log.path)).size);
    }
    // Pruning left most of the file dead more than once, and each rewrite dropped it.
    expect(rewrites).toBeGreaterThan(2);
    expect(largest).toBeLessThan(1024 * 1024);

    const fresh = new HistoryLog(memdir);
    await fresh.refresh();
    const { versions } = fresh.index.list({ limit: 1_000 });
    expect(versions.length).toBeGreaterThanOrEqual(1);
    expect(versions.length).toBeLessThanOrEqual(3);
    expect(versions[0]).toMatchObject({ operation: 'modified', fileId, sha256: sha(`edit ${EDITS - 1}`) });
    expect(fresh.read(versions[0]!.id)!.content).toBe(`edit ${EDITS - 1}`);
    expect(versions.map((version) => version.id)).toEqual(
      log.index.list({ limit: 1_000 }).versions.map((version) => version.id),
    );
    // Ids are never reused: the newest is the 10,000th.
    expect(versions[0]!.id).toBe(`memver_${String(EDITS).padStart(16, '0')}`);
    fresh.close();
    log.close();
    memdir.close();
    tmp.close();
  }, 120_000);
});
