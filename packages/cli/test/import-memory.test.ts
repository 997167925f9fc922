// `memdir import` in bounded memory: the archive is read as a stream and staged on disk, so the
// process's peak RSS (measured by /usr/bin/time, of the CLI in a child process) grows by less than
// 64 MB over a one-file import, for a hostile archive whose header claims gigabytes and for a valid
// 500 MB archive alike. A refused archive changes nothing, and the staging folder is removed.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, cliEnv, tempFolder, withoutProgress } from './helpers.js';
import { craftHeader, padded } from './tar-craft.js';

const MiB = 1024 * 1024;
/** The most a process may grow, over the one-file import, whatever the archive (issue 21). */
const MAX_GROWTH_KB = 64 * 1024;

let base: string;
let removeBase: () => Promise<void>;
let staging: string;
let baselineKb: number;

beforeAll(async () => {
  ({ path: base, remove: removeBase } = await tempFolder());
  staging = join(base, 'tmp');
  await mkdir(staging);
  baselineKb = (await importMeasured(validArchive(1, 16), 'file:./baseline')).peakKb;
}, 60_000);
afterAll(() => removeBase());

interface Measured {
  code: number | null;
  stderr: string;
  peakKb: number;
  sentBytes: number;
}

/** `memdir import --store URL` with `archive` on stdin, under /usr/bin/time; stdin stops when it exits. */
function importMeasured(archive: AsyncIterable<Buffer>, store: string): Promise<Measured> {
  return new Promise((resolve, reject) => {
    const child = spawn(
      '/usr/bin/time',
      ['-f', 'PEAK_RSS_KB=%M', process.execPath, BIN, 'import', '--store', store],
      {
        cwd: base,
        env: cliEnv({ TMPDIR: staging }),
        stdio: ['pipe', 'ignore', 'pipe'],
      },
    );
    let stderr = '';
    let sentBytes = 0;
    let closed = false;
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.stdin.on('error', () => {});
    child.on('error', reject);
    child.on('close', (code) => {
      closed = true;
      const peak = /PEAK_RSS_KB=(\d+)/.exec(stderr);
      if (!peak) return reject(new Error(`no peak RSS in: ${stderr}`));
      // What /usr/bin/time adds: its measure, and a line for a non-zero exit.
      const own = stderr
        .replace(/PEAK_RSS_KB=\d+\n?/, '')
        .replace(/^Command exited with non-zero status \d+\n/m, '');
      resolve({ code, stderr: own, peakKb: Number(peak[1]), sentBytes });
    });
    void (async () => {
      for await (const chunk of archive) {
        if (closed || child.stdin.destroyed) return;
        sentBytes += chunk.length;
        if (!child.stdin.write(chunk)) {
          await new Promise<void>((done) => {
            const finish = () => {
              child.stdin.off('drain', finish);
              child.off('close', finish);
              done();
            };
            child.stdin.once('drain', finish);
            child.once('close', finish);
          });
        }
      }
      child.stdin.end();
    })().catch(() => {});
  });
}

/** A valid archive, made as `memdir export` makes it, of `count` files of `size` bytes, produced as it is read. */
async function* validArchive(count: number, size: number): AsyncGenerator<Buffer> {
  yield craftHeader('memories/', 0, '5');
  const files: Array<{ path: string; size: number; sha256: string }> = [];
  for (let index = 0; index < count; index++) {
    const content = Buffer.alloc(size, 97 + (index % 26));
    content.write(`file ${index}\n`);
    const name = `memories/f${String(index).padStart(4, '0')}.md`;
    files.push({ path: `/${name}`, size, sha256: createHash('sha256').update(content).digest('hex') });
    yield craftHeader(name, size, '0');
    yield padded(content);
  }
  const manifest = Buffer.from(
    `${JSON.stringify({ format: 'memdir-archive', version: 1, files, totalBytes: count * size }, null, 2)}\n`,
  );
  yield craftHeader('memdir-manifest.json', manifest.length, '0');
  yield padded(manifest);
  yield Buffer.alloc(1024);
}

/** One header claiming `claimed` bytes (in the ustar field, or in a PAX record), then filler up to 1 GiB. */
async function* hugeHeader(claimed: number, pax: boolean): AsyncGenerator<Buffer> {
  if (pax) {
    const record = `${`size=${claimed}\n`.length + 3} size=${claimed}\n`;
    yield craftHeader('PaxHeader/huge.bin', Buffer.byteLength(record), 'x');
    yield padded(Buffer.from(record));
    yield craftHeader('memories/huge.bin', 0, '0');
  } else {
    yield craftHeader('memories/huge.bin', claimed, '0');
  }
  const filler = Buffer.alloc(MiB, 0x61);
  for (let sent = 0; sent < 1024 * MiB; sent += MiB) yield filler;
}

describe('memdir import in bounded memory', () => {
  it.each([
    ['an 8 GB size in the header', 8_000_000_000, false],
    ['a 10 GB size in a PAX record', 10_000_000_000, true],
  ])(
    '%s is refused as soon as it is read, in flat memory, writing nothing',
    async (_, claimed, pax) => {
      const result = await importMeasured(hugeHeader(claimed, pax), 'file:./target-huge');
      expect(result.code).toBe(1);
      expect(result.stderr).toBe(
        `memdir: import refused: /memories/huge.bin is ${claimed} bytes, over the store's limit of 1048576 bytes per file. Nothing was written.\n`,
      );
      // Refused from the header: it did not read on through the gigabyte of filler.
      expect(result.sentBytes).toBeLessThan(64 * MiB);
      expect(result.peakKb - baselineKb).toBeLessThan(MAX_GROWTH_KB);
      expect(await readdir(base)).not.toContain('target-huge');
      expect(await readdir(staging)).toEqual([]);
    },
    60_000,
  );

  it('a valid 500 MB archive is imported and verified in bounded memory', async () => {
    const result = await importMeasured(validArchive(500, MiB), 'file:./target-big');
    expect(result.stderr).toMatch(
      /: 500 files \(500\.0 MiB\): 500 copied, 0 already identical, 0 not copied/,
    );
    expect(result.stderr).toContain(
      'memdir: verified: every file is in the target with the same size and SHA-256',
    );
    expect(result.code).toBe(0);
    expect(result.peakKb - baselineKb).toBeLessThan(MAX_GROWTH_KB);
    expect((await stat(join(base, 'target-big', 'memories', 'f0499.md'))).size).toBe(MiB);
    expect(await readdir(staging)).toEqual([]);
    console.log(`peak RSS: one-file import ${baselineKb} KB, 500 MB import ${result.peakKb} KB`);
  }, 300_000);

  it('an archive refused at its manifest, after every file was staged, changes nothing and leaves no staging', async () => {
    async function* lying(): AsyncGenerator<Buffer> {
      for await (const chunk of validArchive(200, 64 * 1024)) {
        // The manifest's last hash is wrong.
        const text = chunk.toString('latin1');
        yield text.includes('"sha256"')
          ? Buffer.from(text.replace(/"[0-9a-f]{64}"\n(\s*\}\s*\],)/, `"${'0'.repeat(64)}"\n$1`), 'latin1')
          : chunk;
      }
    }
    const result = await importMeasured(lying(), 'file:./target-lying');
    expect(result.code).toBe(1);
    // The progress of reading and checking the archive (shown once it takes a second), then the refusal.
    expect(withoutProgress(result.stderr)).toBe(
      'memdir: import refused: /memories/f0199.md does not match its manifest (size or SHA-256): the archive is damaged. Nothing was written.\n',
    );
    expect(await readdir(base)).not.toContain('target-lying');
    expect(await readdir(staging)).toEqual([]);
  }, 60_000);
});
