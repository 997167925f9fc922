// Several processes on one bucket prefix, as serverless workers would be: concurrent edits, racing
// creates, a file and a folder racing for one name, and a process killed (SIGKILL) in the middle of
// a rename or a delete, whose half-done change the next store finishes.
import { execFile, spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { GetObjectCommand, ListObjectsV2Command, PutObjectCommand } from '@aws-sdk/client-s3';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { createS3Store } from '../src/index.js';
import {
  bucket,
  clearPrefix,
  keysUnder,
  leftovers,
  rawClient,
  server,
  storeOptions,
  uniquePrefix,
} from './helpers.js';

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

function newPrefix(label: string): string {
  const prefix = uniquePrefix(label);
  prefixes.push(prefix);
  return prefix;
}

function payload(prefix: string, commands: unknown[], store: object = {}, extra: object = {}): string {
  return JSON.stringify({
    store: { store: { bucket, prefix, ...store }, clientConfig: server.clientConfig },
    commands,
    ...extra,
  });
}

/** Runs tool inputs concurrently in another Node.js process. */
function runWorker(prefix: string, commands: unknown[], store: object = {}): Promise<Result[]> {
  return new Promise((resolve, reject) => {
    execFile(
      process.execPath,
      [WORKER, payload(prefix, commands, store)],
      { maxBuffer: 64 << 20 },
      (error, stdout, stderr) => {
        if (error) reject(new Error(`worker failed: ${stderr || error.message}`));
        else resolve(JSON.parse(stdout) as Result[]);
      },
    );
  });
}

/**
 * Starts a process that runs `commands` and, once it has sent `count` requests of `kind`, holds
 * every later request forever; once the ones sent are answered, kills it with SIGKILL.
 */
/**
 * Runs `commands` in a worker until its `count`-th request of `kind` has been answered, then kills
 * it with SIGKILL. Resolves to false, after the kill, when the server failed that request (the
 * state the test wants was not reached; the caller seeds a new prefix and tries again).
 */
async function killMidway(
  prefix: string,
  commands: unknown[],
  kind: string,
  count: number,
): Promise<boolean> {
  const child = spawn(
    process.execPath,
    [
      WORKER,
      payload(prefix, commands, { leaseTtlMs: 3_000, timeoutMs: 60_000 }, { holdAfter: { kind, count } }),
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let output = '';
  let errors = '';
  child.stderr.on('data', (chunk) => {
    errors += chunk;
  });
  const applied = await new Promise<boolean>((resolve, reject) => {
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('held-unapplied')) resolve(false);
      else if (output.includes('held\n')) resolve(true);
      if (output.includes('finished')) reject(new Error('the worker finished before it was held'));
    });
    child.on('exit', (code, signal) =>
      reject(new Error(`worker exited early (${code ?? signal}): ${errors}`)),
    );
  });
  const exited = new Promise((resolve) => child.on('exit', resolve));
  child.kill('SIGKILL');
  await exited;
  return applied;
}

/** {@link killMidway} on a freshly seeded prefix, until the held request was applied (3 tries). */
async function killMidwaySeeded(
  label: string,
  files: Record<string, string>,
  commands: unknown[],
  kind: string,
  count: number,
): Promise<string> {
  for (let attempt = 1; ; attempt++) {
    const prefix = newPrefix(label);
    await seed(prefix, files);
    if (await killMidway(prefix, commands, kind, count)) return prefix;
    if (attempt === 3) throw new Error(`the server failed the ${kind} request held after, 3 times`);
  }
}

/** Every object under `prefix` with its size. */
async function objectsWithSizes(prefix: string): Promise<Array<{ key: string; size: number }>> {
  const reply = await admin.send(new ListObjectsV2Command({ Bucket: bucket, Prefix: prefix }));
  return (reply.Contents ?? []).map((item) => ({ key: item.Key!, size: item.Size ?? 0 }));
}

async function readKey(key: string): Promise<string> {
  const reply = await admin.send(new GetObjectCommand({ Bucket: bucket, Key: key }));
  return reply.Body!.transformToString();
}

async function seed(prefix: string, files: Record<string, string>): Promise<void> {
  const entries = Object.entries(files);
  for (let start = 0; start < entries.length; start += 200) {
    await Promise.all(
      entries
        .slice(start, start + 200)
        .map(([path, content]) =>
          admin.send(
            new PutObjectCommand({ Bucket: bucket, Key: `${prefix}/memories/${path}`, Body: content }),
          ),
        ),
    );
  }
}

describe('several processes on one prefix', () => {
  it('4 processes x 250 concurrent inserts into one file leave 1000 lines, none twice', async () => {
    const prefix = newPrefix('inserts');
    const store = createS3Store(storeOptions(prefix));
    await store.create({ command: 'create', path: '/memories/log.md', file_text: '# log' });
    const inserts = (who: string) =>
      Array.from({ length: 250 }, (_, index) => ({
        command: 'insert',
        path: '/memories/log.md',
        insert_line: 1,
        insert_text: `${who}-${index}\n`,
      }));
    // Group commit under contention, without history: with it, each round a process loses writes its
    // group's versions again, and 250 edits at once per process pass the 5 s deadline (history's
    // 4 x 250 inserts run one after another per store in the conformance group).
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((who) => runWorker(prefix, inserts(who), { history: false })),
    );
    for (const result of results.flat())
      expect(result).toEqual({ ok: 'The file /memories/log.md has been edited.' });
    const view = await store.view({ command: 'view', path: '/memories/log.md', view_range: [1, -1] });
    await store.close();
    const lines = view
      .split('\n')
      .slice(1)
      .map((line) => line.slice(7));
    expect(lines[0]).toBe('# log');
    expect(lines.slice(1).sort()).toEqual(
      ['a', 'b', 'c', 'd'].flatMap((who) => inserts(who).map((command) => command.insert_text.trim())).sort(),
    );
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  }, 180_000);

  it('racing creates with overwrite: false in 4 processes and this one have exactly one winner', async () => {
    const prefix = newPrefix('claims');
    const creates = (who: string) =>
      Array.from({ length: 5 }, (_, index) => ({
        command: 'create',
        path: '/memories/claim.md',
        file_text: `${who}-${index}`,
      }));
    const strict = { overwrite: false };
    const store = createS3Store({ ...storeOptions(prefix), ...strict });
    const [others, here] = await Promise.all([
      Promise.all(['a', 'b', 'c', 'd'].map((who) => runWorker(prefix, creates(who), strict))),
      Promise.allSettled(creates('e').map((command) => store.execute(command))),
    ]);
    const results: Result[] = [
      ...others.flat(),
      ...here.map((result) =>
        result.status === 'fulfilled'
          ? { ok: result.value }
          : { code: (result.reason as Result).code, error: (result.reason as Error).message },
      ),
    ];
    expect(results.filter((result) => result.ok !== undefined)).toEqual([
      { ok: 'File created successfully at: /memories/claim.md' },
    ]);
    for (const result of results.filter((candidate) => candidate.ok === undefined)) {
      expect(result).toEqual({ code: 'ALREADY_EXISTS', error: 'File /memories/claim.md already exists' });
    }
    expect(await store.view({ command: 'view', path: '/memories/claim.md' })).toMatch(/\t[a-e]-[0-4]$/);
    await store.close();
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  }, 120_000);

  it('4 processes x 25 racing creates of the same 25 new files all resolve within the default 5 s deadline: one winner each', async () => {
    const prefix = newPrefix('race-25');
    const creates = (who: string) =>
      Array.from({ length: 25 }, (_, index) => ({
        command: 'create',
        path: `/memories/race/f${String(index).padStart(2, '0')}.md`,
        file_text: who,
      }));
    const results = await Promise.all(
      ['a', 'b', 'c', 'd'].map((who) => runWorker(prefix, creates(who), { overwrite: false })),
    );
    for (let index = 0; index < 25; index++) {
      const path = `/memories/race/f${String(index).padStart(2, '0')}.md`;
      const outcomes = results.map((worker) => worker[index]!);
      expect(
        outcomes.filter((outcome) => outcome.ok !== undefined),
        path,
      ).toEqual([{ ok: `File created successfully at: ${path}` }]);
      for (const outcome of outcomes.filter((candidate) => candidate.ok === undefined)) {
        expect(outcome).toEqual({ code: 'ALREADY_EXISTS', error: `File ${path} already exists` });
      }
    }
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  }, 120_000);

  it('4 processes racing to fill a namespace never pass its quota, by bytes or by files', async () => {
    const prefix = newPrefix('quota');
    const quota = { maxBytes: 600, maxFiles: 30 };
    const store = createS3Store({ ...storeOptions(prefix), quota });
    await store.create({ command: 'create', path: '/memories/log.md', file_text: 'log' });
    const work = (who: string) =>
      Array.from({ length: 30 }, (_, index) =>
        index % 2 === 0
          ? {
              command: 'create',
              path: `/memories/${who}/f${index}.md`,
              file_text: `${who}${index}`.padEnd(20, '.'),
            }
          : { command: 'insert', path: '/memories/log.md', insert_line: 1, insert_text: `${who}-${index}` },
      );
    const results = (
      await Promise.all(
        ['a', 'b', 'c', 'd'].map((who) => runWorker(prefix, work(who), { quota, timeoutMs: 30_000 })),
      )
    ).flat();
    for (const result of results) {
      if (result.ok === undefined) expect(result.code, result.error).toBe('QUOTA_EXCEEDED');
    }
    expect(results.some((result) => result.code === 'QUOTA_EXCEEDED')).toBe(true);
    // What the bucket holds, counted by hand.
    const objects = await objectsWithSizes(`${prefix}/memories/`);
    const bytes = objects.reduce((sum, object) => sum + object.size, 0);
    expect(bytes).toBeLessThanOrEqual(quota.maxBytes);
    expect(objects.length).toBeLessThanOrEqual(quota.maxFiles);
    // Every accepted change is there, and the totals never count less than that.
    const accepted = results.filter((result) => result.ok !== undefined).length;
    expect(accepted).toBeGreaterThan(10);
    const totals = JSON.parse(await readKey(`${prefix}/.memdir/totals`)) as { bytes: number; files: number };
    expect(totals.bytes).toBeGreaterThanOrEqual(bytes);
    expect(totals.files).toBeGreaterThanOrEqual(objects.length);
    await store.close();
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  }, 120_000);

  it('a file and a folder racing for one name: never both', async () => {
    const prefix = newPrefix('file-or-folder');
    const names = Array.from({ length: 12 }, (_, index) => `n${index}`);
    const asFile = names.map((name) => ({ command: 'create', path: `/memories/${name}`, file_text: 'file' }));
    const asFolder = names.map((name) => ({
      command: 'create',
      path: `/memories/${name}/child.md`,
      file_text: 'child',
    }));
    // What is asserted is the outcome, not a speed: room for a loaded machine.
    const patient = { timeoutMs: 30_000 };
    const [files1, folders1, files2, folders2] = await Promise.all([
      runWorker(prefix, asFile, patient),
      runWorker(prefix, asFolder, patient),
      runWorker(prefix, asFile, patient),
      runWorker(prefix, asFolder, patient),
    ]);
    const keys = new Set(await keysUnder(admin, `${prefix}/memories/`));
    for (const [index, name] of names.entries()) {
      const file = keys.has(`${prefix}/memories/${name}`);
      const folder = keys.has(`${prefix}/memories/${name}/child.md`);
      expect(file !== folder, `${name}: file ${file}, folder ${folder}`).toBe(true);
      const fileWon = [files1[index]!, files2[index]!].some((result) => result.ok !== undefined);
      const folderWon = [folders1[index]!, folders2[index]!].some((result) => result.ok !== undefined);
      expect({ fileWon, folderWon }).toEqual({ fileWon: file, folderWon: folder });
      for (const result of [files1[index]!, files2[index]!, folders1[index]!, folders2[index]!]) {
        if (result.ok === undefined) expect(result.code).toBe('PATH_CONFLICT');
      }
    }
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
  }, 120_000);
});

describe('a process killed in the middle of a change (SIGKILL)', () => {
  // The killed process's lease lasts 3 s: the next store waits that long, then takes it over and
  // finishes the change its journal names before making its own.
  const repairingStore = (prefix: string) => createS3Store({ ...storeOptions(prefix), timeoutMs: 20_000 });
  const folder = Object.fromEntries(
    Array.from({ length: 40 }, (_, index) => [
      `big/f${String(index).padStart(2, '0')}.md`,
      `content ${index}`,
    ]),
  );

  async function expectMoved(prefix: string, from: string, to: string, files: Record<string, string>) {
    const store = repairingStore(prefix);
    await store.create({ command: 'create', path: '/memories/after.md', file_text: 'after' });
    for (const [path, content] of Object.entries(files)) {
      const moved = `/memories/${to}${path.slice(from.length)}`;
      expect(await store.view({ command: 'view', path: moved })).toBe(
        `Here's the content of ${moved} with line numbers:\n     1\t${content}`,
      );
    }
    expect(
      (await keysUnder(admin, `${prefix}/memories/${from}`)).filter((key) => !key.includes(`/${to}`)),
    ).toEqual([]);
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
    await store.close();
  }

  it('after some copies of a folder rename: the next store finishes the rename', async () => {
    const prefix = await killMidwaySeeded(
      'killed-copying',
      folder,
      [{ command: 'rename', old_path: '/memories/big', new_path: '/memories/moved' }],
      'COPY',
      10,
    );
    // Both copies, never neither: every file is at the source or the destination, or both.
    const keys = new Set(await keysUnder(admin, `${prefix}/memories/`));
    for (const path of Object.keys(folder)) {
      expect(
        keys.has(`${prefix}/memories/${path}`) || keys.has(`${prefix}/memories/moved${path.slice(3)}`),
      ).toBe(true);
    }
    expect(keys.size).toBeGreaterThan(40);
    await expectMoved(prefix, 'big', 'moved', folder);
  }, 60_000);

  it('after some sources of a folder rename were frozen: the next store finishes the rename', async () => {
    const prefix = await killMidwaySeeded(
      'killed-frozen',
      folder,
      [{ command: 'rename', old_path: '/memories/big', new_path: '/memories/moved' }],
      'TOMBSTONE',
      5,
    );
    await expectMoved(prefix, 'big', 'moved', folder);
  }, 60_000);

  it("after a file's copy: the next store finishes the rename", async () => {
    const prefix = await killMidwaySeeded(
      'killed-file',
      { 'one.md': 'only one' },
      [{ command: 'rename', old_path: '/memories/one.md', new_path: '/memories/two.md' }],
      'COPY',
      1,
    );
    await expectMoved(prefix, 'one.md', 'two.md', { 'one.md': 'only one' });
  }, 60_000);

  it('after the first of several DeleteObjects of a folder delete: the next store finishes the delete', async () => {
    const many = Object.fromEntries(Array.from({ length: 1500 }, (_, index) => [`gone/${index}.md`, 'x']));
    const prefix = await killMidwaySeeded(
      'killed-delete',
      { ...many, 'kept.md': 'kept' },
      [{ command: 'delete', path: '/memories/gone' }],
      'DELETE-MANY',
      1,
    );
    const left = await keysUnder(admin, `${prefix}/memories/gone/`);
    expect(left.length).toBeGreaterThan(0);
    expect(left.length).toBeLessThan(1500);
    const store = repairingStore(prefix);
    await store.create({ command: 'create', path: '/memories/after.md', file_text: 'after' });
    expect(await keysUnder(admin, `${prefix}/memories/`)).toEqual(
      [`${prefix}/memories/after.md`, `${prefix}/memories/kept.md`].sort(),
    );
    expect(await leftovers(admin, `${prefix}/`)).toEqual([]);
    await store.close();
  }, 120_000);
});
