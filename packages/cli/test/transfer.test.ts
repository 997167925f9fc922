// memdir copy, export and import, run in this process on filesystem stores in temporary folders.
import { mkdir, readdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { createFsStore } from '@memdir/fs';
import { afterEach, describe, expect, it } from 'vitest';
import type { CliIo } from '../src/io.js';
import {
  concurrencyInto,
  DEFAULT_CONCURRENCY,
  DEFAULT_SERVER_TARGET_CONCURRENCY,
  EXIT_INTERRUPTED,
  runCopy,
  runExport,
  runImport,
} from '../src/transfer.js';
import { tempFolder } from './helpers.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function folder(): Promise<string> {
  const created = await tempFolder();
  cleanups.push(created.remove);
  return created.path;
}

/** An io whose streams are captured; `stdin` is `input`. */
function captured(cwd: string, input: Buffer = Buffer.alloc(0)) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const out: Buffer[] = [];
  let err = '';
  stdout.on('data', (chunk: Buffer) => out.push(chunk));
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const io: CliIo = { stdin: Readable.from([input]), stdout, stderr, env: {}, cwd };
  return { io, stdout: () => Buffer.concat(out), stderr: () => err };
}

const FILES: Record<string, string> = {
  '/memories/notes.md': '# Notes\n',
  '/memories/.hidden/secret.md': 'hidden',
  '/memories/node_modules/x.js': 'x',
  '/memories/nul.bin': 'a\u0000b',
  '/memories/crlf.txt': 'one\r\ntwo\r\n',
  '/memories/caf\u00e9/\u{1f600}.md': 'e\u0301',
};

async function seed(root: string, files: Record<string, string>, namespace?: string): Promise<void> {
  const store = createFsStore({ root, ...(namespace ? { namespace } : {}) });
  for (const [path, file_text] of Object.entries(files))
    await store.create({ command: 'create', path, file_text });
  await store.close();
}

/** Every file under `dir`, by path relative to it. */
async function tree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  const walk = async (at: string, prefix: string) => {
    for (const entry of await readdir(at, { withFileTypes: true }).catch(() => [])) {
      const path = `${prefix}${entry.name}`;
      if (entry.isDirectory()) await walk(join(at, entry.name), `${path}/`);
      else files[path] = await readFile(join(at, entry.name), 'utf8');
    }
  };
  await walk(dir, '');
  return files;
}

describe('the default --concurrency, by the target', () => {
  it.each([
    ['redis://127.0.0.1:6379', DEFAULT_SERVER_TARGET_CONCURRENCY],
    ['rediss://cache.example:6380', DEFAULT_SERVER_TARGET_CONCURRENCY],
    ['postgres://user@db/memdir', DEFAULT_SERVER_TARGET_CONCURRENCY],
    ['PostgreSQL://user@db/memdir', DEFAULT_SERVER_TARGET_CONCURRENCY],
    ['s3://bucket/prefix', DEFAULT_CONCURRENCY],
    ['file:./memory', DEFAULT_CONCURRENCY],
    ['memory:', DEFAULT_CONCURRENCY],
    ['dynamo://table', DEFAULT_CONCURRENCY],
  ])('%s: %i', (target, expected) => {
    expect(concurrencyInto(target)).toBe(expected);
  });
});

describe('memdir copy', () => {
  it('copies every file between two folders, verifies them, and says so', async () => {
    const base = await folder();
    await seed(join(base, 'a'), FILES);
    const run = captured(base);
    expect(await runCopy(['--from', 'file:./a', '--to', 'file:./b'], run.io)).toBe(0);
    expect(await tree(join(base, 'b', 'memories'))).toEqual(await tree(join(base, 'a', 'memories')));
    expect(run.stderr()).toMatch(
      /memdir: copy file:\.\/a to file:\.\/b: 6 files \(\d+ B\): 6 copied, 0 already identical, 0 not copied, in \d+s\nmemdir: verified: every file is in the target with the same size and SHA-256\n$/,
    );
    const again = captured(base);
    expect(await runCopy(['--from', 'file:./a', '--to', 'file:./b'], again.io)).toBe(0);
    expect(again.stderr()).toContain(': 0 copied, 6 already identical, 0 not copied');
  });

  it('maps namespaces with --namespace A:B, and a file with other content is reported (exit 1) unless --overwrite', async () => {
    const base = await folder();
    await seed(join(base, 'a'), { '/memories/x.md': 'new' }, 'alice');
    await seed(join(base, 'b'), { '/memories/x.md': 'old' }, 'bob');
    const first = captured(base);
    expect(
      await runCopy(['--from', 'file:./a', '--to', 'file:./b', '--namespace', 'alice:bob'], first.io),
    ).toBe(1);
    expect(first.stderr()).toContain(
      '  not copied: /memories/x.md: the target has this file with other content (use overwrite to replace it)',
    );
    expect(await readFile(join(base, 'b', 'namespaces', 'bob', 'memories', 'x.md'), 'utf8')).toBe('old');
    const forced = captured(base);
    expect(
      await runCopy(
        ['--from', 'file:./a', '--to', 'file:./b', '--namespace', 'alice:bob', '--overwrite'],
        forced.io,
      ),
    ).toBe(0);
    expect(await readFile(join(base, 'b', 'namespaces', 'bob', 'memories', 'x.md'), 'utf8')).toBe('new');
  });

  it("keeps the target's file limit: every file over it is reported by path and size, none written (exit 1)", async () => {
    const base = await folder();
    const source = createFsStore({ root: join(base, 'a'), maxFileBytes: 8 * 1024 * 1024 });
    await source.create({
      command: 'create',
      path: '/memories/big.md',
      file_text: 'x'.repeat(3 * 1024 * 1024),
    });
    for (let index = 0; index < 25; index++) {
      await source.create({
        command: 'create',
        path: `/memories/over/f${String(index).padStart(2, '0')}.md`,
        file_text: 'y'.repeat(101),
      });
    }
    await source.create({ command: 'create', path: '/memories/small.md', file_text: 'fits' });
    await source.close();
    const run = captured(base);
    expect(await runCopy(['--from', 'file:./a', '--to', 'file:./b', '--max-file-bytes', '100'], run.io)).toBe(
      1,
    );
    const lines = run.stderr().split('\n');
    expect(lines).toContain(
      "  not copied: /memories/big.md: it is 3145728 bytes, over the target's limit of 100 bytes per file",
    );
    for (let index = 0; index < 25; index++) {
      expect(lines).toContain(
        `  not copied: /memories/over/f${String(index).padStart(2, '0')}.md: it is 101 bytes, over the target's limit of 100 bytes per file`,
      );
    }
    expect(run.stderr()).toContain(': 27 files (3.0 MiB): 1 copied, 0 already identical, 26 not copied');
    expect(run.stderr()).toContain('memdir: not everything was copied and verified (see above)');
    expect(await tree(join(base, 'b', 'memories'))).toEqual({ 'small.md': 'fits' });
    // Without --max-file-bytes the target's limit is the default, 1 MiB.
    const defaults = captured(base);
    expect(await runCopy(['--from', 'file:./a', '--to', 'file:./c'], defaults.io)).toBe(1);
    expect(defaults.stderr()).toContain(
      "  not copied: /memories/big.md: it is 3145728 bytes, over the target's limit of 1048576 bytes per file",
    );
    expect(Object.keys(await tree(join(base, 'c', 'memories')))).not.toContain('big.md');
  });

  it('--dry-run writes nothing', async () => {
    const base = await folder();
    await seed(join(base, 'a'), FILES);
    const run = captured(base);
    expect(await runCopy(['--from', 'file:./a', '--to', 'file:./b', '--dry-run'], run.io)).toBe(0);
    expect(run.stderr()).toContain('6 would copy');
    expect(run.stderr()).toContain('memdir: dry run: nothing was written');
    expect(await tree(join(base, 'b', 'memories'))).toEqual({});
  });

  it('stopped by its signal (Ctrl-C), it exits 130 and says how to resume; run again it finishes', async () => {
    const base = await folder();
    const many: Record<string, string> = {};
    for (let index = 0; index < 300; index++) many[`/memories/d${index % 10}/f${index}.md`] = `file ${index}`;
    await seed(join(base, 'a'), many);
    const run = captured(base);
    const copying = runCopy(['--from', 'file:./a', '--to', 'file:./b'], run.io);
    // Ctrl-C once the copy is under way.
    const started = Date.now();
    while (
      !Object.hasOwn(await tree(join(base, 'b', 'memories')), 'd0/f0.md') &&
      Date.now() - started < 10_000
    ) {
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    process.emit('SIGINT', 'SIGINT');
    expect(await copying).toBe(EXIT_INTERRUPTED);
    expect(run.stderr()).toContain('memdir: interrupted: run the same command again to resume');
    const again = captured(base);
    expect(await runCopy(['--from', 'file:./a', '--to', 'file:./b'], again.io)).toBe(0);
    expect(Object.keys(await tree(join(base, 'b', 'memories')))).toHaveLength(300);
  });
});

describe('memdir export and import', () => {
  it('export to a tar archive, import it elsewhere: the same files, verified', async () => {
    const base = await folder();
    await seed(join(base, 'a'), FILES);
    const exported = captured(base);
    expect(await runExport(['--store', 'file:./a'], exported.io)).toBe(0);
    expect(exported.stderr()).toMatch(/^memdir: exported 6 files \(\d+ B\) from file:\.\/a in \d+s\n$/m);
    const imported = captured(base, exported.stdout());
    expect(await runImport(['--store', 'file:./c', '--namespace', 'restored'], imported.io)).toBe(0);
    expect(imported.stderr()).toContain('memdir: verified: every file is in the target');
    expect(await tree(join(base, 'c', 'namespaces', 'restored', 'memories'))).toEqual(
      await tree(join(base, 'a', 'memories')),
    );
  });

  it('import refuses a hostile archive with the reason, and writes nothing', async () => {
    const base = await folder();
    const header = Buffer.alloc(512);
    header.write('memories/../../etc/x', 0, 100);
    header.write('0000644\0', 100);
    header.write(`${'1'.padStart(11, '0')}\0`, 124);
    header.write('        ', 148);
    header.write('0', 156);
    header.write('ustar\u000000', 257);
    let sum = 0;
    for (const byte of header) sum += byte;
    header.write(`${sum.toString(8).padStart(6, '0')}\0 `, 148);
    const archive = Buffer.concat([header, Buffer.alloc(512 * 3)]);
    const run = captured(base, archive);
    expect(await runImport(['--store', 'file:./target'], run.io)).toBe(1);
    expect(run.stderr()).toBe(
      'memdir: import refused: the archive holds a path that climbs out with .. ("memories/../../etc/x"). Nothing was written.\n',
    );
    await expect(readdir(join(base, 'target'))).rejects.toThrow();
  });

  it('export refuses to write the archive to a terminal', async () => {
    const base = await folder();
    await mkdir(join(base, 'a'));
    const run = captured(base);
    Object.assign(run.io.stdout, { isTTY: true });
    await expect(runExport(['--store', 'file:./a'], run.io)).rejects.toThrow(
      'export writes a tar archive to stdout, which is a terminal',
    );
    await writeFile(join(base, 'unused'), '');
  });
});
