// memdir export / import archives: standard tar that `tar` reads, and hostile archives refused
// before anything is written. Crafted archives are built here byte by byte (not with the module
// under test), so a refusal is checked against what a real attacker could send.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createInMemoryDriver, createMemoryStore, type MemoryDriver } from '@memdir/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveError, MANIFEST_NAME, readArchive, writeArchive } from '../src/archive.js';
import { tempFolder } from './helpers.js';

const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function folder(): Promise<string> {
  const created = await tempFolder();
  cleanups.push(created.remove);
  return created.path;
}

const FILES: Record<string, string> = {
  '/memories/notes.md': '# Notes\n',
  '/memories/.hidden/secret.md': 'hidden',
  '/memories/nul.bin': 'a\u0000b',
  '/memories/crlf.txt': 'one\r\ntwo\r\n',
  '/memories/nfd-e\u0301.md': 'e\u0301',
  [`/memories/${'long-name-'.repeat(12)}/${'x'.repeat(120)}.md`]: 'a long path',
  '/memories/caf\u00e9/\u{1f600}.md': 'unicode names',
};

/** The files as the store holds them: paths in NFC (the protocol normalises paths, never content). */
const STORED = Object.fromEntries(
  Object.entries(FILES).map(([path, content]) => [path.normalize('NFC'), content]),
);

async function storeWith(files: Record<string, string>): Promise<MemoryDriver> {
  const driver = createInMemoryDriver();
  const store = createMemoryStore(driver);
  for (const [path, file_text] of Object.entries(files))
    await store.create({ command: 'create', path, file_text });
  return driver;
}

async function exportToBuffer(driver: MemoryDriver): Promise<Buffer> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeArchive(driver, output);
  output.end();
  return Buffer.concat(chunks);
}

// --- a tar writer for crafted archives, independent of src/archive.ts ------------------------

function craftHeader(
  name: string,
  size: number,
  type: string,
  options: { linkname?: string; checksum?: number } = {},
) {
  const block = Buffer.alloc(512);
  block.write(name, 0, 100, 'utf8');
  block.write('0000644\0', 100, 8, 'ascii');
  block.write('0000000\0', 108, 8, 'ascii');
  block.write('0000000\0', 116, 8, 'ascii');
  block.write(`${size.toString(8).padStart(11, '0')}\0`, 124, 12, 'ascii');
  block.write('00000000000\0', 136, 12, 'ascii');
  block.write('        ', 148, 8, 'ascii');
  block.write(type, 156, 1, 'ascii');
  if (options.linkname) block.write(options.linkname, 157, 100, 'utf8');
  block.write('ustar\u000000', 257, 8, 'ascii');
  let sum = 0;
  for (const byte of block) sum += byte;
  block.write(`${(options.checksum ?? sum).toString(8).padStart(6, '0')}\0 `, 148, 8, 'ascii');
  return block;
}

function padded(content: Buffer): Buffer {
  const rest = content.length % 512;
  return rest === 0 ? content : Buffer.concat([content, Buffer.alloc(512 - rest)]);
}

type Entry = {
  name: string;
  content?: string | Buffer;
  type?: string;
  linkname?: string;
  size?: number;
  checksum?: number;
};

/** A tar archive of `entries`, with a correct manifest of its regular files unless `manifest` is given. */
function craft(entries: Entry[], manifest?: unknown): Buffer {
  const blocks: Buffer[] = [];
  const files: Array<{ path: string; size: number; sha256: string }> = [];
  for (const entry of entries) {
    const content =
      typeof entry.content === 'string' ? Buffer.from(entry.content) : (entry.content ?? Buffer.alloc(0));
    const type = entry.type ?? '0';
    blocks.push(craftHeader(entry.name, entry.size ?? content.length, type, entry));
    blocks.push(padded(content));
    if (type === '0' && entry.name.startsWith('memories/')) {
      files.push({
        path: `/${entry.name}`,
        size: content.length,
        sha256: createHash('sha256').update(content).digest('hex'),
      });
    }
  }
  const body = Buffer.from(
    JSON.stringify(manifest ?? { format: 'memdir-archive', version: 1, files, totalBytes: 0 }),
  );
  blocks.push(craftHeader(MANIFEST_NAME, body.length, '0'), padded(body), Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

async function refusal(archive: Buffer | Readable, maxFileBytes = 1024 * 1024): Promise<string> {
  try {
    await readArchive(archive instanceof Readable ? archive : Readable.from([archive]), { maxFileBytes });
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    return (error as Error).message;
  }
  throw new Error('the archive was accepted');
}

describe('memdir export archives', () => {
  it('are tar archives the system tar lists and extracts into memories/, byte for byte', async () => {
    const archive = await exportToBuffer(await storeWith(FILES));
    const dir = await folder();
    await writeFile(join(dir, 'memory.tar'), archive);
    const { stdout } = await run('tar', ['-tf', 'memory.tar'], { cwd: dir });
    const listed = stdout.trim().split('\n');
    expect(listed[0]).toBe('memories/');
    expect(listed.at(-1)).toBe(MANIFEST_NAME);
    await run('tar', ['-xf', 'memory.tar'], { cwd: dir });
    for (const [path, content] of Object.entries(STORED)) {
      expect(await readFile(join(dir, path.slice(1)), 'utf8')).toBe(content);
    }
    const manifest = JSON.parse(await readFile(join(dir, MANIFEST_NAME), 'utf8'));
    expect(manifest.files.map((file: { path: string }) => file.path).sort()).toEqual(
      Object.keys(STORED).sort(),
    );
  });

  it('read back, give every file as it was', async () => {
    const contents = await readArchive(Readable.from([await exportToBuffer(await storeWith(FILES))]), {
      maxFileBytes: 1024 * 1024,
    });
    expect(Object.fromEntries(contents.files)).toEqual(STORED);
  });

  it('an archive the system tar made from an export, with its manifest, imports', async () => {
    const dir = await folder();
    await writeFile(
      join(dir, 'memory.tar'),
      await exportToBuffer(await storeWith({ '/memories/a.md': 'a' })),
    );
    await run('tar', ['-xf', 'memory.tar'], { cwd: dir });
    await run('tar', ['-cf', 'again.tar', 'memories', MANIFEST_NAME], { cwd: dir });
    const contents = await readArchive(Readable.from([await readFile(join(dir, 'again.tar'))]), {
      maxFileBytes: 100,
    });
    expect(Object.fromEntries(contents.files)).toEqual({ '/memories/a.md': 'a' });
  });
});

describe('memdir import refuses hostile or damaged archives', () => {
  it('a path that climbs out with ..', async () => {
    expect(await refusal(craft([{ name: 'memories/../../etc/passwd', content: 'x' }]))).toBe(
      'the archive holds a path that climbs out with .. ("memories/../../etc/passwd")',
    );
  });

  it('an absolute path', async () => {
    expect(await refusal(craft([{ name: '/etc/cron.d/evil', content: 'x' }]))).toBe(
      'the archive holds an absolute path ("/etc/cron.d/evil")',
    );
  });

  it('a file outside memories/', async () => {
    expect(await refusal(craft([{ name: 'elsewhere/a.md', content: 'x' }]))).toBe(
      'the archive holds "elsewhere/a.md", outside memories/',
    );
  });

  it('a symbolic link, made by the system tar', async () => {
    const dir = await folder();
    await mkdir(join(dir, 'memories'));
    await symlink('/etc/passwd', join(dir, 'memories', 'passwd'));
    await run('tar', ['-cf', 'links.tar', 'memories'], { cwd: dir });
    expect(await refusal(await readFile(join(dir, 'links.tar')))).toBe(
      'the archive holds a symbolic link ("memories/passwd"); import takes regular files only',
    );
  });

  it.each([
    ['1', 'a hard link'],
    ['3', 'a character device'],
    ['4', 'a block device'],
    ['6', 'a FIFO'],
  ])('an entry of type %s (%s)', async (type, what) => {
    expect(await refusal(craft([{ name: 'memories/x', type, linkname: '/etc/shadow' }]))).toBe(
      `the archive holds ${what} ("memories/x"); import takes regular files only`,
    );
  });

  it('a 10 GB size header is refused from the header, without reading on', async () => {
    const header = craftHeader('memories/huge.bin', 10 * 1024 ** 3, '0');
    expect(await refusal(Buffer.concat([header, Buffer.alloc(4096)]))).toBe(
      "/memories/huge.bin is 10737418240 bytes, over the store's limit of 1048576 bytes per file",
    );
  });

  it('a name the protocol refuses (percent-encoding, backslash, control characters)', async () => {
    expect(await refusal(craft([{ name: 'memories/%2e%2e/x', content: 'x' }]))).toMatch(
      /^the archive holds a path memdir refuses: Path \/memories\/%2e%2e\/x contains the percent-encoded sequence %2e/,
    );
    expect(await refusal(craft([{ name: 'memories/a\\b', content: 'x' }]))).toMatch(
      /^the archive holds a path memdir refuses:/,
    );
  });

  it('a damaged header, a cut archive, no end marker', async () => {
    expect(await refusal(craft([{ name: 'memories/a.md', content: 'x', checksum: 1 }]))).toBe(
      "the archive is damaged: a header's checksum is wrong (at byte 0)",
    );
    const whole = craft([{ name: 'memories/a.md', content: 'x'.repeat(2000) }]);
    expect(await refusal(whole.subarray(0, 1024))).toBe(
      'the archive ends inside /memories/a.md: it is cut short',
    );
    expect(await refusal(whole.subarray(0, whole.length - 1024))).toBe(
      'the archive has no end marker: it is cut short or not a tar archive',
    );
  });

  it('no manifest, or a manifest that does not match', async () => {
    const plain = Buffer.concat([
      craftHeader('memories/a.md', 1, '0'),
      padded(Buffer.from('a')),
      Buffer.alloc(1024),
    ]);
    expect(await refusal(plain)).toBe(
      'the archive has no memdir-manifest.json: import only takes archives made by memdir export',
    );
    const lying = craft([{ name: 'memories/a.md', content: 'a' }], {
      format: 'memdir-archive',
      version: 1,
      files: [{ path: '/memories/a.md', size: 1, sha256: '0'.repeat(64) }],
      totalBytes: 1,
    });
    expect(await refusal(lying)).toBe(
      '/memories/a.md does not match its manifest (size or SHA-256): the archive is damaged',
    );
    const missing = craft([], {
      format: 'memdir-archive',
      version: 1,
      files: [{ path: '/memories/gone.md', size: 1, sha256: '0'.repeat(64) }],
      totalBytes: 1,
    });
    expect(await refusal(missing)).toBe('/memories/gone.md is in the manifest but missing from the archive');
  });

  it('content that is not UTF-8, a path that is a file and a folder, a path twice', async () => {
    expect(
      await refusal(craft([{ name: 'memories/bad.bin', content: Buffer.from([0xff, 0xfe, 0x00]) }])),
    ).toBe('/memories/bad.bin is not UTF-8 text');
    expect(
      await refusal(
        craft([
          { name: 'memories/a', content: 'file' },
          { name: 'memories/a/b', content: 'under a file' },
        ]),
      ),
    ).toBe('/memories/a is a file in the archive, and also a folder of /memories/a/b');
    expect(
      await refusal(
        craft([
          { name: 'memories/a', content: '1' },
          { name: 'memories/a', content: '2' },
        ]),
      ),
    ).toBe('/memories/a appears twice in the archive');
  });
});
