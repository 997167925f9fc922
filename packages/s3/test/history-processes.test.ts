// One version per confirmed change, with history on, when several processes edit one file at once
// (issue 29): each process's edits go out as group commits, and a group of more edits than a file's
// chain names must still leave every one of them visible.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { DriverPath, MemoryHistory, MemoryStore, MemoryVersion } from '@memdir/core';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Driver, createS3Store } from '../src/index.js';
import { bucket, clearPrefix, rawClient, server, storeOptions, uniquePrefix } from './helpers.js';

const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));
const admin = rawClient();
const prefixes: string[] = [];
afterEach(async () => {
  for (const prefix of prefixes.splice(0)) await clearPrefix(admin, `${prefix}/`);
});
afterAll(() => admin.destroy());

interface Result {
  ok?: string;
  code?: string;
  error?: string;
}

function runWorker(prefix: string, commands: unknown[], store: object): Promise<Result[]> {
  const payload = JSON.stringify({
    store: { store: { bucket, prefix, ...store }, clientConfig: server.clientConfig },
    commands,
  });
  return new Promise((resolve, reject) => {
    execFile(process.execPath, [WORKER, payload], { maxBuffer: 64 << 20 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`worker failed: ${stderr || error.message}`));
      else resolve(JSON.parse(stdout) as Result[]);
    });
  });
}

const sha = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

async function allVersions(store: MemoryHistory, path: string): Promise<MemoryVersion[]> {
  const versions: MemoryVersion[] = [];
  let cursor: string | undefined;
  for (;;) {
    const page = await store.history({ path, limit: 1_000, cursor });
    versions.push(...page.versions);
    if (page.next === null) return versions;
    cursor = page.next;
  }
}

describe('history with several processes (issue 29)', () => {
  it('4 processes x 100 concurrent inserts into one file: one version per confirmed insert, distinct hashes, the newest the content', async () => {
    const prefix = uniquePrefix('history-inserts');
    prefixes.push(prefix);
    const options = {
      history: { keepVersions: 1_000, keepDays: 30 },
      timeoutMs: 60_000,
      maxViewChars: 100_000,
    };
    const store = createS3Store({ ...storeOptions(prefix), ...options }) as MemoryStore & MemoryHistory;
    await store.create({ command: 'create', path: '/memories/log.md', file_text: 'base' });
    const inserts = (who: string) =>
      Array.from({ length: 100 }, (_, index) => ({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: 0,
        insert_text: `${who}-${index}`,
      }));
    const results = (
      await Promise.all(['a', 'b', 'c', 'd'].map((who) => runWorker(prefix, inserts(who), options)))
    ).flat();
    const confirmed = results.filter((result) => result.ok !== undefined).length;
    for (const result of results) {
      if (result.ok === undefined) expect(result.code, result.error).toBe('UNAVAILABLE');
    }
    expect(confirmed).toBeGreaterThan(300);
    const view = await store.view({ command: 'view', path: '/memories/log.md' });
    const content = view
      .split('\n')
      .slice(1)
      .map((line) => line.replace(/^ *\d+\t/, ''))
      .join('\n');
    expect(content.split('\n')).toHaveLength(confirmed + 1);
    const versions = await allVersions(store, '/memories/log.md');
    await store.close();
    const modified = versions.filter((version) => version.operation === 'modified');
    expect(modified).toHaveLength(confirmed);
    expect(versions).toHaveLength(confirmed + 1);
    expect(new Set(versions.map((version) => version.sha256)).size).toBe(versions.length);
    expect(versions[0]!.sha256).toBe(sha(content));
    // The file's record names that newest version (identity).
    const driver = createS3Driver(storeOptions(prefix));
    const record = await driver.readRecord!('log.md' as DriverPath);
    await driver.close();
    expect(record).toMatchObject({
      sha256: sha(content),
      versionId: versions[0]!.id,
      fileId: versions[0]!.fileId,
    });
  }, 240_000);
});
