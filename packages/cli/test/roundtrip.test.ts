// The round trip of issue 12: a tree of awkward files copied fs -> Redis -> PostgreSQL -> S3 -> fs
// with `memdir copy`, against the real servers, comes back byte for byte.
import { randomBytes } from 'node:crypto';
import { readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { type DriverPath, storeDriver } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { databaseUrl, redisUrl, s3Server } from '@memdir/test-support';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../src/io.js';
import { openStore } from '../src/store-url.js';
import { runCopy } from '../src/transfer.js';
import { tempFolder } from './helpers.js';

const FILES: Record<string, string> = {
  '/memories/notes.md': '# Notes\n- likes green tea\n',
  '/memories/.hidden/secret.md': 'hidden files travel too',
  '/memories/node_modules/pkg/index.js': 'module.exports = 42;\n',
  '/memories/a/b/c/deep.md': 'three levels down',
  '/memories/nul.bin': 'a\u0000b\u0000\u0000c',
  '/memories/crlf.txt': 'one\r\ntwo\r\n\r\n',
  '/memories/bom.txt': '\ufeffwith a byte-order mark',
  '/memories/unnormalised.md': 'cafe\u0301 and caf\u00e9 stay as written, \u212b too',
  '/memories/separators.txt': 'line\u2028separator\u2029paragraph \ufffe\uffff',
  '/memories/astral/\u{1f600}.md': '\u{1f600}\ue000\u{10ffff}',
  '/memories/wild_%*?[]{}\'":.md': 'a name full of wildcards',
  '/memories/empty.md': '',
  '/memories/big.md': 'x'.repeat(200_000),
};

let base: string;
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

function io(cwd: string) {
  let err = '';
  const stderr = new PassThrough();
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const value: CliIo = { stdin: Readable.from([]), stdout: new PassThrough(), stderr, env: process.env, cwd };
  return { io: value, stderr: () => err };
}

/** Every file under `dir`, as bytes, by relative path. */
async function tree(dir: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {};
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true })) {
    if (!entry.isFile()) continue;
    const full = join(entry.parentPath, entry.name);
    files[full.slice(dir.length + 1)] = (await readFile(full)).toString('hex');
  }
  return files;
}

describe('memdir copy through every backend', () => {
  it('fs -> Redis -> PostgreSQL -> S3 -> fs gives byte-identical files', async () => {
    const folder = await tempFolder();
    cleanup.push(folder.remove);
    base = folder.path;
    const source = createFsStore({ root: join(base, 'start') });
    for (const [path, file_text] of Object.entries(FILES))
      await source.create({ command: 'create', path, file_text });
    await source.close();

    const run = randomBytes(4).toString('hex');
    const namespace = `roundtrip-${run}`;
    const { bucket, clientConfig } = s3Server();
    const endpoint = encodeURIComponent(String(clientConfig.endpoint));
    const hops = [
      'file:./start',
      redisUrl(),
      databaseUrl(),
      `s3://${bucket}/roundtrip-${run}?endpoint=${endpoint}&region=${clientConfig.region}&forcePathStyle=true`,
      'file:./end',
    ];
    // Leave nothing on the servers (they may be a contributor's own).
    for (const url of hops.slice(1, -1)) {
      cleanup.push(async () => {
        const store = await openStore(url, { namespace }, { cwd: base });
        const driver = storeDriver(store)!;
        const tops = new Set<string>();
        for await (const entry of driver.list('' as DriverPath)) tops.add(entry.path.split('/')[0]!);
        for (const top of tops) await driver.remove(top as DriverPath, { op: `cleanup-${run}-${top}` });
        await store.close();
      });
    }
    for (let hop = 0; hop + 1 < hops.length; hop++) {
      const from = hops[hop]!;
      const to = hops[hop + 1]!;
      // The servers hold the files under a namespace of this run; the folders hold them plainly.
      const mapping = `${from.startsWith('file:') ? '' : namespace}:${to.startsWith('file:') ? '' : namespace}`;
      const copy = io(base);
      const code = await runCopy(['--from', from, '--to', to, '--namespace', mapping], copy.io);
      expect({ hop: `${from} -> ${to}`, code, stderr: copy.stderr() }).toMatchObject({ code: 0 });
      expect(copy.stderr()).toContain(`: ${Object.keys(FILES).length} files (`);
      // S3 lists each object's MD5 (its ETag): the copy into it verifies from one listing.
      expect(copy.stderr()).toContain(
        `memdir: verified: every file is in the target with the same size and ${to.startsWith('s3:') ? "MD5 (from the target's listing)" : 'SHA-256'}\n`,
      );
    }
    const start = await tree(join(base, 'start', 'memories'));
    expect(Object.keys(start)).toHaveLength(Object.keys(FILES).length);
    expect(await tree(join(base, 'end', 'memories'))).toEqual(start);
  }, 120_000);
});
