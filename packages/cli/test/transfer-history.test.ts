// `memdir copy --with-history`, `export --with-history` and `import --with-history` (issue 18), run
// in-process with `run(argv, io)` on every store of this machine that keeps a history: the in-memory
// store (a backend of its own per URL, through a registered scheme), Redis (a key prefix of its own
// per URL), PostgreSQL (a schema of its own per URL) and a folder. Each copy goes from one kind of
// store into the next, so every store is read from and written into; what the target holds is
// compared with the source version by version, field by field, through the drivers.
import { randomBytes } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import {
  createInMemoryDriver,
  createMemoryStore,
  type DriverVersionWithContent,
  type MemdirStore,
  type MemoryDriver,
  storeDriver,
} from '@memdir/core';
import { databaseUrl, redisUrl } from '@memdir/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../src/io.js';
import { run } from '../src/main.js';
import { openStore, registerStoreScheme } from '../src/store-url.js';
import { tempFolder, withoutProgress } from './helpers.js';

const RUN = randomBytes(4).toString('hex');
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

interface Result {
  code: number;
  stdout: Buffer;
  stderr: string;
}

/** Runs `memdir ...args` in this process, with `input` on stdin. */
async function cli(args: string[], input: Buffer = Buffer.alloc(0)): Promise<Result> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  let err = '';
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const io: CliIo = {
    stdin: Readable.from([input]),
    stdout,
    stderr,
    env: { PATH: process.env.PATH },
    cwd: process.cwd(),
  };
  const code = await run(args, io);
  return { code, stdout: Buffer.concat(out), stderr: err };
}

/** `driver` declaring no history, as a driver without one does. */
function withoutHistory(driver: MemoryDriver): MemoryDriver {
  return new Proxy(driver, {
    get(target, key) {
      if (key === 'capabilities') return { atomicRename: true };
      if (key === 'namespace') return (name: string) => withoutHistory(target.namespace(name));
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

function memoryScheme(driver: MemoryDriver): string {
  const scheme = `clihist${randomBytes(3).toString('hex')}`;
  registerStoreScheme(scheme, (_url, options) => createMemoryStore(driver, options));
  return `${scheme}:`;
}

/** A URL of a fresh, empty store of each kind that keeps a history. */
const STORES: Record<string, () => Promise<string>> = {
  memory: async () => memoryScheme(createInMemoryDriver()),
  redis: async () => {
    const url = `${redisUrl()}?keyPrefix=memdir-cli-hist-${RUN}-${randomBytes(3).toString('hex')}`;
    cleanup.push(async () => void (await cli(['drop', '--store', url, '--namespace', 'alice', '--yes'])));
    return url;
  },
  postgres: async () => {
    const schema = `memdir_cli_hist_${RUN}_${randomBytes(3).toString('hex')}`;
    const url = new URL(databaseUrl());
    url.searchParams.set('schema', schema);
    cleanup.push(async () => {
      const client = new pg.Client({ connectionString: databaseUrl() });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    });
    return url.toString();
  },
  file: async () => {
    const folder = await tempFolder();
    cleanup.push(folder.remove);
    return `file:${folder.path}`;
  },
};
const KINDS = Object.keys(STORES);
/** The kind each kind is copied into: the next one, round the list. */
const nextKind = (kind: string) => KINDS[(KINDS.indexOf(kind) + 1) % KINDS.length]!;

const NS = ['--namespace', 'alice'];

/** Opens the store at `url` (namespace alice) for `body`, then closes it. */
async function withStore<T>(url: string, body: (store: MemdirStore, driver: MemoryDriver) => Promise<T>) {
  const store = (await openStore(url, { namespace: 'alice' })) as MemdirStore;
  try {
    return await body(store, storeDriver(store)!);
  } finally {
    await store.close();
  }
}

/**
 * A history with every operation, two actors and tool call ids, a folder rename (two versions of
 * one operation), a restore of a deleted file and a redaction.
 */
async function seed(url: string): Promise<void> {
  await withStore(url, async (store) => {
    const alice = { actor: { type: 'user' as const, id: 'alice' }, toolUseId: 'toolu_01' };
    const agent = { actor: { type: 'session' as const, id: 'sess_42' }, toolUseId: 'toolu_02' };
    await store.execute({ command: 'create', path: '/memories/notes.md', file_text: 'one\ntwo\n' }, alice);
    await store.execute(
      { command: 'str_replace', path: '/memories/notes.md', old_str: 'two', new_str: 'three' },
      agent,
    );
    await store.execute(
      { command: 'insert', path: '/memories/notes.md', insert_line: 0, insert_text: 'zero' },
      agent,
    );
    await store.execute({ command: 'create', path: '/memories/d/a.md', file_text: 'a\n' }, alice);
    await store.execute(
      { command: 'create', path: '/memories/d/b.md', file_text: 'caf\u00e9 \u{1f600}\n' },
      alice,
    );
    await store.execute({ command: 'rename', old_path: '/memories/d', new_path: '/memories/e' }, agent);
    await store.execute({ command: 'create', path: '/memories/gone.md', file_text: 'secret\n' }, alice);
    await store.execute({ command: 'delete', path: '/memories/gone.md' }, agent);
    const page = await store.history({ limit: 100 });
    const created = page.versions.find(
      (version) => version.path === '/memories/gone.md' && version.operation === 'created',
    )!;
    await store.restore(created.id, { path: '/memories/back.md' });
    await store.redact(created.id);
  });
}

/** Every version of the store at `url`, oldest first, with its content, as its driver has it. */
async function versionsOf(url: string): Promise<DriverVersionWithContent[]> {
  return withStore(url, async (_store, driver) => {
    const ids: string[] = [];
    for (let cursor: string | undefined; ; ) {
      const page = await driver.listVersions!({ limit: 1000, cursor });
      ids.push(...page.versions.map((version) => version.id));
      if (page.next === null) break;
      cursor = page.next;
    }
    const versions: DriverVersionWithContent[] = [];
    for (const id of ids.reverse()) versions.push((await driver.readVersion!(id))!);
    return versions;
  });
}

/** The files of the store at `url` with their ids: path, file id, content. */
async function filesOf(url: string): Promise<Array<{ path: string; fileId: string; content: string }>> {
  return withStore(url, async (_store, driver) => {
    const versions = await driver.listVersions!({ limit: 1 });
    const tree = await driver.treeAt!({ version: versions.versions[0]!.id });
    const files = [];
    for (const entry of tree) {
      const node = await driver.read(entry.path);
      files.push({
        path: entry.path,
        fileId: entry.fileId,
        content: node?.kind === 'file' ? node.content : '',
      });
    }
    return files.sort((a, b) => (a.path < b.path ? -1 : 1));
  });
}

function ok(result: Result): Result {
  expect({ code: result.code, error: result.code === 0 ? '' : result.stderr }).toEqual({
    code: 0,
    error: '',
  });
  return result;
}

describe.each(KINDS)('--with-history from %s', (kind) => {
  it(`copy into ${nextKind(kind)}, and export + import into ${kind}: every version as it was, ids, actors, operations and times`, async () => {
    const from = await STORES[kind]!();
    await seed(from);
    const source = await versionsOf(from);
    expect(source.map((version) => version.operation)).toEqual([
      'created',
      'modified',
      'modified',
      'created',
      'created',
      'renamed',
      'renamed',
      'created',
      'deleted',
      'restored',
    ]);
    expect(source[7]!.redactedAt).not.toBeNull();
    expect(source[1]!.actor).toEqual({ type: 'session', id: 'sess_42' });
    const files = await filesOf(from);

    // copy, into a store of the next kind.
    const copied = await STORES[nextKind(kind)]!();
    const copy = ok(await cli(['copy', '--from', from, '--to', copied, ...NS, '--with-history']));
    expect(copy.stderr).toContain('memdir: history: 10 versions copied, with their ids, times and actors\n');
    expect(copy.stderr).toContain('memdir: verified: every file is in the target');
    expect(await versionsOf(copied)).toEqual(source);
    expect(await filesOf(copied)).toEqual(files);

    // Run again: the history is there already and the files identical; nothing changes.
    const again = ok(await cli(['copy', '--from', from, '--to', copied, ...NS, '--with-history']));
    expect(again.stderr).toContain(': 0 copied, 4 already identical, 0 not copied');
    expect(again.stderr).toContain('memdir: history: 0 versions copied');
    expect(await versionsOf(copied)).toEqual(source);

    // A change in the target continues the history: the next id, the same file id.
    await withStore(copied, (store) =>
      store.execute({
        command: 'str_replace',
        path: '/memories/notes.md',
        old_str: 'zero',
        new_str: 'naught',
      }),
    );
    const continued = (await versionsOf(copied)).at(-1)!;
    expect(continued.id > source.at(-1)!.id).toBe(true);
    expect(continued.fileId).toBe(source[0]!.fileId);

    // export, then import into a fresh store of the same kind.
    const exported = ok(await cli(['export', '--store', from, ...NS, '--with-history']));
    expect(exported.stderr).toMatch(/exported 4 files \(.*\) and 10 versions of history from /);
    const imported = await STORES[kind]!();
    const imports = ok(await cli(['import', '--store', imported, ...NS, '--with-history'], exported.stdout));
    expect(imports.stderr).toContain('memdir: history: 10 versions copied');
    expect(await versionsOf(imported)).toEqual(source);
    expect(await filesOf(imported)).toEqual(files);
    // Resumable: the same import again copies nothing more.
    const reimport = ok(await cli(['import', '--store', imported, ...NS, '--with-history'], exported.stdout));
    expect(reimport.stderr).toContain('memdir: history: 0 versions copied');
    expect(await versionsOf(imported)).toEqual(source);

    // Without the flag, as before: the files alone, each recorded by the target as a new `created`
    // version of command import, with file ids of its own.
    const plain = await STORES[kind]!();
    const plainCopy = ok(await cli(['copy', '--from', from, '--to', plain, ...NS]));
    expect(plainCopy.stderr).not.toContain('history');
    const recorded = await versionsOf(plain);
    expect(recorded.map((version) => [version.operation, version.command])).toEqual(
      files.map(() => ['created', 'import']),
    );
    const plainFiles = await filesOf(plain);
    expect(plainFiles.map(({ path, content }) => ({ path, content }))).toEqual(
      files.map(({ path, content }) => ({ path, content })),
    );
    for (const file of plainFiles) expect(files.map((each) => each.fileId)).not.toContain(file.fileId);

    // A target with a history of its own is refused, and keeps it.
    const refused = await cli(['copy', '--from', from, '--to', plain, ...NS, '--with-history']);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(
      'the history was not copied: the target has a history of its own; copy into a store with no versions yet\n',
    );
    expect(await versionsOf(plain)).toEqual(recorded);
    const importRefused = await cli(['import', '--store', plain, ...NS, '--with-history'], exported.stdout);
    expect(importRefused.code).toBe(1);
    expect(importRefused.stderr).toContain('the history was not copied: the target has a history of its own');
  }, 120_000);
});

describe('--with-history refusals and archive versions', () => {
  it('a source or target without history is a usage error (exit 2), nothing written', async () => {
    const plain = memoryScheme(withoutHistory(createInMemoryDriver()));
    const kept = memoryScheme(createInMemoryDriver());
    ok(await cli(['create', '/memories/a.md', '--text', 'a', '--store', plain]));
    ok(await cli(['create', '/memories/a.md', '--text', 'a', '--store', kept]));
    const fromPlain = await cli([
      'copy',
      '--from',
      plain,
      '--to',
      memoryScheme(createInMemoryDriver()),
      '--with-history',
    ]);
    expect(fromPlain.code).toBe(2);
    expect(fromPlain.stderr).toBe(
      `memdir: copy --with-history: the source store ${plain} keeps no history (its driver does not declare capabilities.history)\nRun it without --with-history to copy the files alone; the memdir README ("History") lists the stores that keep one.\n`,
    );
    const empty = withoutHistory(createInMemoryDriver());
    const intoPlain = await cli(['copy', '--from', kept, '--to', memoryScheme(empty), '--with-history']);
    expect(intoPlain.code).toBe(2);
    expect(intoPlain.stderr).toContain('the target store');
    expect(intoPlain.stderr).toContain('keeps no history (its driver does not declare capabilities.history)');
    const listed: string[] = [];
    for await (const entry of empty.list('' as never)) listed.push(entry.path);
    expect(listed).toEqual([]);
    const exportPlain = await cli(['export', '--store', plain, '--with-history']);
    expect(exportPlain.code).toBe(2);
    expect(exportPlain.stdout.length).toBe(0);
    expect(exportPlain.stderr).toContain('export --with-history: the source store');

    // An archive with history into a store without one.
    const archive = ok(await cli(['export', '--store', kept, '--with-history'])).stdout;
    const importPlain = await cli(['import', '--store', memoryScheme(empty), '--with-history'], archive);
    expect(importPlain.code).toBe(2);
    expect(importPlain.stderr).toContain('import --with-history: the target store');

    // An archive without history, imported --with-history.
    const filesOnly = ok(await cli(['export', '--store', kept])).stdout;
    const noHistory = await cli(
      ['import', '--store', memoryScheme(createInMemoryDriver()), '--with-history'],
      filesOnly,
    );
    expect(noHistory.code).toBe(2);
    expect(withoutProgress(noHistory.stderr)).toBe(
      'memdir: import --with-history: the archive holds no history (it was exported without --with-history)\nRun it without --with-history to import the files alone.\n',
    );
    // Imported without the flag, an archive with history says what it left out.
    const leftOut = ok(await cli(['import', '--store', memoryScheme(createInMemoryDriver())], archive));
    expect(leftOut.stderr).toContain(
      'memdir: the archive also holds 1 version of history, left out (--with-history imports them)\n',
    );
  });
});
