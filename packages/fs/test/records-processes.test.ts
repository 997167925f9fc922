// Records and versions across processes and crashes: one version per change when 4 processes
// insert into one file, and records that agree with the files after processes are killed mid-change.
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { DriverPath, DriverRecord, DriverVersion } from '@memdir/core';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createFsDriver, createFsStore } from '../src/index.js';
import { runInWorker, startChurn, tempFolder, type WorkerOptions } from './helpers.js';

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Every record, page after page. */
async function allRecords(driver: ReturnType<typeof createFsDriver>): Promise<DriverRecord[]> {
  const out: DriverRecord[] = [];
  let after: string | null = null;
  do {
    const page: Awaited<ReturnType<typeof driver.listRecords>> = await driver.listRecords({
      limit: 100,
      after,
    });
    out.push(...(page.items as DriverRecord[]));
    after = page.next;
  } while (after !== null);
  return out;
}

/** The records file as written (what the locked recovery left), by path. */
async function recordsOnDisk(root: string): Promise<Map<string, { i: string; h: string; s: number }>> {
  const text = await readFile(join(root, '.memdir', 'records'), 'utf8');
  const records = new Map<string, { i: string; h: string; s: number }>();
  let pending: [string, { i: string; h: string; s: number } | null][] | undefined;
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const parsed = JSON.parse(line);
    const set = (path: string, record: { i: string; h: string; s: number } | null) => {
      if (record === null) records.delete(path);
      else records.set(path, record);
    };
    if (parsed.k) set(parsed.k[0], parsed.k[1]);
    if (parsed.u) for (const [path, record] of parsed.u) set(path, record);
    if (parsed.g) pending = parsed.g;
    if (parsed.c && pending) {
      for (const [path, record] of pending) if (record === null) set(path, null);
      for (const [path, record] of pending) if (record !== null) set(path, record);
    }
    if (parsed.c || parsed.a) pending = undefined;
  }
  expect(pending, 'a group is left pending').toBeUndefined();
  return records;
}

/** Whether the records file ends in a group a killed process left pending. */
async function leftPending(root: string): Promise<boolean> {
  const text = await readFile(join(root, '.memdir', 'records'), 'utf8').catch(() => '');
  const lines = text.split('\n').filter((line) => line !== '');
  for (let index = lines.length - 1; index >= 0; index--) {
    let parsed: Record<string, unknown>;
    try {
      parsed = JSON.parse(lines[index]!);
    } catch {
      continue;
    }
    if (parsed.c || parsed.a) return false;
    if (parsed.g) return true;
  }
  return false;
}

describe('records across processes', () => {
  let root: string;
  let cleanup: () => Promise<void>;
  beforeEach(async () => {
    ({ path: root, cleanup } = await tempFolder());
  });
  afterEach(() => cleanup());

  it('4 processes x 100 concurrent inserts into one file: one version per insert, the newest the file', async () => {
    const store = createFsStore({ root, history: { keepVersions: 1000, keepDays: 30 } });
    await store.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
    await store.close();
    const inserts = (who: number) =>
      Array.from({ length: 100 }, (_, index) => ({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: 1,
        insert_text: `${who}-${index}\n`,
      }));
    const options = {
      history: { keepVersions: 1000, keepDays: 30 },
      startAt: Date.now() + 1_500,
    } as WorkerOptions;
    const results = (
      await Promise.all([0, 1, 2, 3].map((who) => runInWorker(root, inserts(who), options)))
    ).flat();
    const confirmed = results.filter((result) => result.ok === 'The file /memories/log.md has been edited.');
    expect(confirmed).toHaveLength(400);

    const driver = createFsDriver({ root });
    const record = (await driver.readRecord('log.md' as DriverPath, { content: true }))!;
    const versions: DriverVersion[] = [];
    let cursor: string | undefined;
    for (;;) {
      const page = await driver.listVersions({ fileId: record.fileId, limit: 1000, cursor });
      versions.push(...page.versions);
      if (page.next === null) break;
      cursor = page.next;
    }
    const modified = versions.filter((version) => version.operation === 'modified');
    expect(modified).toHaveLength(confirmed.length);
    expect(versions).toHaveLength(confirmed.length + 1);
    expect(new Set(versions.map((version) => version.sha256)).size).toBe(versions.length);
    const content = await readFile(join(root, 'memories', 'log.md'), 'utf8');
    expect(content.split('\n')).toHaveLength(401);
    expect(record.content).toBe(content);
    expect(record.sha256).toBe(sha(content));
    expect(record.versionId).toBe(versions[0]!.id);
    expect((await driver.readVersion(versions[0]!.id))!.content).toBe(content);
    await driver.close();
  }, 120_000);

  it('processes killed with SIGKILL mid-change leave records the next locked call makes agree with the files', async () => {
    let pendingSeen = 0;
    for (let round = 0; round < 40 && (round < 8 || pendingSeen < 1); round++) {
      const churn = startChurn(root, 0, 0, 'churn-sizes');
      await churn.ready;
      await new Promise((resolve) => setTimeout(resolve, 30 + Math.random() * 150));
      churn.child.kill('SIGKILL');
      await churn.exited;

      if (await leftPending(root)) pendingSeen++;
      const driver = createFsDriver({ root });
      // One locked call settles what the dead process left; the records file must then agree with
      // every file without any look at the files refreshing it.
      await driver.usage();
      const onDisk = await recordsOnDisk(root);
      const records = await allRecords(driver);
      expect([...onDisk.keys()].sort()).toEqual(records.map((record) => record.path).sort());
      for (const record of records) {
        const content = await readFile(join(root, 'memories', record.path), 'utf8');
        expect(record.sha256, record.path).toBe(sha(content));
        expect(onDisk.get(record.path), record.path).toMatchObject({ i: record.fileId, h: record.sha256 });
        // The history (on in the worker's store) agrees: the version holding the content is the file's.
        if (record.versionId !== null) {
          const version = (await driver.readVersion(record.versionId))!;
          expect(version).toMatchObject({ fileId: record.fileId, sha256: record.sha256 });
        }
      }
      expect(new Set(records.map((record) => record.fileId)).size).toBe(records.length);
      await driver.close();
    }
    // At least one kill fell between a change's records and its commit (most fall elsewhere).
    expect(pendingSeen).toBeGreaterThanOrEqual(1);
  }, 240_000);
});
