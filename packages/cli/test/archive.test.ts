// memdir export / import archives: standard tar that `tar` reads, and hostile archives refused
// before anything is written. Crafted archives are built here byte by byte (not with the module
// under test), so a refusal is checked against what a real attacker could send.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, readFile, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createInMemoryDriver, createMemoryStore, type DriverPath, type MemoryDriver } from '@memdir/core';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ArchiveError,
  type ArchiveLimits,
  MANIFEST_NAME,
  stageArchive,
  writeArchive,
} from '../src/archive.js';
import { tempFolder } from './helpers.js';
import { craftHeader, padded } from './tar-craft.js';

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

/** The files of an archive as `import` stages them (by memory path), the staging folder removed after. */
async function readArchive(input: Readable, limits: ArchiveLimits): Promise<{ files: Map<string, string> }> {
  const staged = await stageArchive(input, limits);
  try {
    const files = new Map<string, string>();
    for await (const entry of staged.driver.list('' as DriverPath)) {
      const node = await staged.driver.read(entry.path);
      if (node?.kind === 'file') files.set(`/memories/${entry.path}`, node.content);
    }
    return { files };
  } finally {
    await staged.discard();
  }
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

  it.each(['gnu', 'pax'])(
    'an export with long and non-ASCII names, archived again by the system tar (--format %s), imports',
    async (format) => {
      const dir = await folder();
      await writeFile(join(dir, 'memory.tar'), await exportToBuffer(await storeWith(FILES)));
      await run('tar', ['-xf', 'memory.tar'], { cwd: dir });
      await run('tar', ['--format', format, '-cf', 'again.tar', 'memories', MANIFEST_NAME], { cwd: dir });
      const contents = await readArchive(Readable.from([await readFile(join(dir, 'again.tar'))]), {
        maxFileBytes: 100,
      });
      expect(Object.fromEntries(contents.files)).toEqual(STORED);
    },
  );
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

  it.each([
    ['7', 'a contiguous file'],
    ['S', 'an entry of a type import does not know'],
    ['V', 'an entry of a type import does not know'],
  ])('an entry of type %s (%s)', async (type, what) => {
    const refused = await refusal(craft([{ name: 'memories/x', type, content: 'x' }]));
    expect(refused).toBe(
      type === '7'
        ? `the archive holds ${what} ("memories/x"); import takes regular files only`
        : `the archive holds ${what} ("memories/x")`,
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
    // Cut inside a header, and an input that is not a tar archive at all.
    expect(await refusal(whole.subarray(0, 100))).toBe(
      'the archive has no end marker: it is cut short or not a tar archive',
    );
    expect(await refusal(Buffer.from('{"not":"a tar"}\n'.repeat(100)))).toBe(
      "the archive is damaged: a header's checksum is wrong (at byte 0)",
    );
    expect(await refusal(Buffer.alloc(0))).toBe(
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

describe('memdir import checks what it stages, without holding it', () => {
  const file = (path: string, content: string) => ({
    path,
    size: Buffer.byteLength(content),
    sha256: createHash('sha256').update(content).digest('hex'),
  });

  it('entries are checked several at a time, but an archive with many faults is refused for the first, in manifest order', async () => {
    const names = Array.from({ length: 40 }, (_, index) => `/memories/f${String(index).padStart(2, '0')}.md`);
    const archive = (files: unknown[]) =>
      craft(
        names.map((name) => ({ name: name.slice(1), content: `content of ${name}` })),
        {
          format: 'memdir-archive',
          version: 1,
          files,
          totalBytes: names.reduce((sum, name) => sum + Buffer.byteLength(`content of ${name}`), 0),
        },
      );
    const good = names.map((name) => file(name, `content of ${name}`));
    const damaged = (index: number) => ({ ...good[index]!, sha256: '0'.repeat(64) });
    // A damaged file before a path listed twice within the same few entries: the damage first.
    expect(
      await refusal(archive([...good.slice(0, 5), damaged(5), good[6], good[6], ...good.slice(7)])),
    ).toBe('/memories/f05.md does not match its manifest (size or SHA-256): the archive is damaged');
    // The path listed twice first, the damage after it.
    expect(await refusal(archive([...good.slice(0, 6), good[5], damaged(6), ...good.slice(7)]))).toBe(
      '/memories/f05.md is listed twice in the manifest',
    );
    // A damaged file, then an entry without its size and hash: the manifest's shape is checked
    // whole before any file is.
    expect(
      await refusal(
        archive([damaged(0), ...good.slice(1, 10), { path: '/memories/f10.md' }, ...good.slice(11)]),
      ),
    ).toBe('memdir-manifest.json has an entry without a path, a size and a SHA-256');
    // Two damaged files far apart: the first.
    expect(
      await refusal(archive([...good.slice(0, 30), damaged(30), ...good.slice(31, 39), damaged(39)])),
    ).toBe('/memories/f30.md does not match its manifest (size or SHA-256): the archive is damaged');
    // The whole archive, untouched, goes through.
    const { files } = await readArchive(Readable.from([archive(good)]), { maxFileBytes: 1024 * 1024 });
    expect([...files.keys()]).toEqual(names);
  });

  it('a file the manifest lists twice, a manifest whose format comes after its files', async () => {
    const twice = craft(
      [
        { name: 'memories/a.md', content: 'a' },
        { name: 'memories/b.md', content: 'b' },
      ],
      {
        format: 'memdir-archive',
        version: 1,
        files: [file('/memories/a.md', 'a'), file('/memories/a.md', 'a')],
        totalBytes: 2,
      },
    );
    expect(await refusal(twice)).toBe('/memories/a.md is listed twice in the manifest');
    const late = Buffer.from(
      JSON.stringify({
        files: [file('/memories/a.md', 'a')],
        totalBytes: 1,
        version: 1,
        format: 'memdir-archive',
      }),
    );
    const archive = Buffer.concat([
      craftHeader('memories/a.md', 1, '0'),
      padded(Buffer.from('a')),
      craftHeader(MANIFEST_NAME, late.length, '0'),
      padded(late),
      Buffer.alloc(1024),
    ]);
    const contents = await readArchive(Readable.from([archive]), { maxFileBytes: 10 });
    expect(Object.fromEntries(contents.files)).toEqual({ '/memories/a.md': 'a' });
    const wrongFormat = craft([{ name: 'memories/a.md', content: 'a' }], {
      files: [file('/memories/a.md', 'a')],
      format: 'tar',
      version: 1,
    });
    expect(await refusal(wrongFormat)).toBe(
      'memdir-manifest.json is not a memdir manifest (format memdir-archive, version 1 or 2)',
    );
  });

  it('a file in the archive the manifest does not list, and a manifest that is not JSON', async () => {
    const extra = craft(
      [
        { name: 'memories/a.md', content: 'a' },
        { name: 'memories/b.md', content: 'b' },
      ],
      {
        format: 'memdir-archive',
        version: 1,
        files: [file('/memories/a.md', 'a')],
        totalBytes: 1,
      },
    );
    expect(await refusal(extra)).toBe('/memories/b.md is in the archive but not in its manifest');
    const notJson = Buffer.from('{"format":"memdir-archive","files":[');
    expect(
      await refusal(
        Buffer.concat([craftHeader(MANIFEST_NAME, notJson.length, '0'), padded(notJson), Buffer.alloc(1024)]),
      ),
    ).toBe('memdir-manifest.json is not valid JSON');
  });

  it('a folder entry where a file is, or below one; a file where a folder entry is', async () => {
    expect(
      await refusal(
        craft([
          { name: 'memories/a', content: 'file' },
          { name: 'memories/a/', type: '5' },
        ]),
      ),
    ).toBe('/memories/a is both a file and a directory in the archive');
    expect(
      await refusal(
        craft([
          { name: 'memories/a', content: 'file' },
          { name: 'memories/a/b/', type: '5' },
        ]),
      ),
    ).toBe('/memories/a is a file in the archive, and also a folder of /memories/a/b');
    expect(
      await refusal(
        craft([
          { name: 'memories/a/', type: '5' },
          { name: 'memories/a', content: 'file' },
        ]),
      ),
    ).toBe('/memories/a is both a file and a directory in the archive');
    expect(
      await refusal(
        craft([
          { name: 'memories/a/b', content: 'below' },
          { name: 'memories/a', content: 'file' },
        ]),
      ),
    ).toBe('/memories/a is a file in the archive, and also a folder of /memories/a/b');
  });

  it('content cut anywhere, however the input is split: a character split between pieces is still UTF-8', async () => {
    const text = 'caf\u00e9 \u{1f600} \u4e2d\u6587 end';
    const archive = craft([{ name: 'memories/u.md', content: text }]);
    for (const size of [1, 2, 3, 5, 7, 511, 513]) {
      const pieces: Buffer[] = [];
      for (let at = 0; at < archive.length; at += size) pieces.push(archive.subarray(at, at + size));
      const contents = await readArchive(Readable.from(pieces), { maxFileBytes: 100 });
      expect(contents.files.get('/memories/u.md')).toBe(text);
    }
    const cut = craft([{ name: 'memories/u.md', content: Buffer.from([0x61, 0xf0, 0x9f, 0x98]) }]);
    expect(await refusal(cut)).toBe('/memories/u.md is not UTF-8 text');
    const surrogate = craft([{ name: 'memories/s.md', content: Buffer.from([0xed, 0xa0, 0x80]) }]);
    expect(await refusal(surrogate)).toBe('/memories/s.md is not UTF-8 text');
  });

  it('export reads ahead but writes in path order: the archive is the same at any concurrency', async () => {
    const many: Record<string, string> = {};
    for (let index = 0; index < 60; index++) many[`/memories/d${index % 7}/f${index}.md`] = `file ${index}\n`;
    const driver = await storeWith(many);
    const archives: Buffer[] = [];
    for (const concurrency of [1, 4, 32]) {
      const output = new PassThrough();
      const chunks: Buffer[] = [];
      output.on('data', (chunk: Buffer) => chunks.push(chunk));
      await writeArchive(driver, output, { concurrency });
      output.end();
      archives.push(Buffer.concat(chunks));
    }
    expect(archives[1]!.equals(archives[0]!)).toBe(true);
    expect(archives[2]!.equals(archives[0]!)).toBe(true);
  });
});
