// The history in an archive (export --with-history, manifest version 2): what export writes, what
// the system tar makes of it, and hostile or damaged history refused before anything is written.
// Crafted archives are built here byte by byte, not with the module under test.
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { promisify } from 'node:util';
import { createInMemoryDriver, createMemoryStore, type MemoryDriver } from '@memdir/core';
import { afterEach, describe, expect, it } from 'vitest';
import { ArchiveError, MANIFEST_NAME, stageArchive, writeArchive } from '../src/archive.js';
import { tempFolder } from './helpers.js';
import { craftHeader, padded } from './tar-craft.js';

const run = promisify(execFile);
const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

function sha256(content: string | Buffer): string {
  return createHash('sha256').update(content).digest('hex');
}

async function exported(driver: MemoryDriver, history: boolean): Promise<Buffer> {
  const output = new PassThrough();
  const chunks: Buffer[] = [];
  output.on('data', (chunk: Buffer) => chunks.push(chunk));
  await writeArchive(driver, output, { history });
  output.end();
  return Buffer.concat(chunks);
}

async function storeWithHistory(): Promise<MemoryDriver> {
  const driver = createInMemoryDriver();
  const store = createMemoryStore(driver, { actor: { type: 'user', id: 'alice' } });
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'a\n' });
  await store.create({ command: 'create', path: '/memories/a.md', file_text: 'b\n' });
  return driver;
}

/** The staged archive's versions count, or the refusal's message. */
async function stage(archive: Buffer): Promise<number | undefined | string> {
  try {
    const staged = await stageArchive(Readable.from([archive]), { maxFileBytes: 1024 * 1024 });
    await staged.discard();
    return staged.versions;
  } catch (error) {
    expect(error).toBeInstanceOf(ArchiveError);
    return (error as Error).message;
  }
}

/** A valid version line, with `overrides`. */
function line(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({
    id: 'memver_0000000000000001',
    fileId: 'mem_AAAAAAAAAAAAAAAAAAAAAA',
    path: '/memories/a.md',
    previousPath: null,
    operation: 'created',
    sha256: sha256('a\n'),
    size: 2,
    at: 1_700_000_000_000,
    actor: { type: 'user', id: 'alice' },
    command: 'create',
    operationId: 'op_1234567890abcdefghij',
    toolUseId: null,
    restoredFrom: null,
    redactedAt: null,
    content: 'a\n',
    ...overrides,
  });
}

const CHUNK = 'memdir-history/versions-000001.jsonl';

/**
 * An archive of /memories/a.md ("a\n") and history chunks `chunks` (name, body), with a manifest of
 * `version` listing them, unless `manifest` changes it.
 */
function craft(
  chunks: Array<{ name: string; body: string }>,
  version = 2,
  manifest: (manifest: Record<string, unknown>) => void = () => {},
): Buffer {
  const blocks: Buffer[] = [];
  for (const chunk of chunks) {
    const body = Buffer.from(chunk.body);
    blocks.push(craftHeader(chunk.name, body.length, '0'), padded(body));
  }
  const file = Buffer.from('a\n');
  blocks.push(craftHeader('memories/a.md', file.length, '0'), padded(file));
  const body: Record<string, unknown> = {
    format: 'memdir-archive',
    version,
    files: [{ path: '/memories/a.md', size: 2, sha256: sha256(file) }],
    totalBytes: 2,
  };
  if (version !== 1) {
    body['history'] = {
      versions: chunks.reduce((sum, chunk) => sum + chunk.body.split('\n').length - 1, 0),
      chunks: chunks.map((chunk) => ({
        name: chunk.name,
        versions: chunk.body.split('\n').length - 1,
        size: Buffer.byteLength(chunk.body),
        sha256: sha256(chunk.body),
      })),
    };
  }
  manifest(body);
  const text = Buffer.from(JSON.stringify(body));
  blocks.push(craftHeader(MANIFEST_NAME, text.length, '0'), padded(text), Buffer.alloc(1024));
  return Buffer.concat(blocks);
}

describe('the history in an archive', () => {
  it('export writes manifest version 1 without history and version 2 with it; the system tar keeps both', async () => {
    const driver = await storeWithHistory();
    const dir = await tempFolder();
    cleanups.push(dir.remove);
    await writeFile(join(dir.path, 'plain.tar'), await exported(driver, false));
    await writeFile(join(dir.path, 'history.tar'), await exported(driver, true));
    const plain = (await run('tar', ['-tf', 'plain.tar'], { cwd: dir.path })).stdout.trim().split('\n');
    expect(plain).toEqual(['memories/', 'memories/a.md', MANIFEST_NAME]);
    const listed = (await run('tar', ['-tf', 'history.tar'], { cwd: dir.path })).stdout.trim().split('\n');
    expect(listed).toEqual([CHUNK, 'memories/', 'memories/a.md', MANIFEST_NAME]);
    await run('tar', ['-xf', 'history.tar'], { cwd: dir.path });
    const manifest = JSON.parse(await readFile(join(dir.path, MANIFEST_NAME), 'utf8'));
    expect(manifest.version).toBe(2);
    expect(manifest.history.versions).toBe(2);
    expect(manifest.files[0]).toMatchObject({ path: '/memories/a.md', version: 'memver_0000000000000002' });
    expect(manifest.files[0].fileId).toMatch(/^mem_/);
    const lines = (await readFile(join(dir.path, CHUNK), 'utf8'))
      .trim()
      .split('\n')
      .map((text) => JSON.parse(text));
    expect(lines.map((version) => [version.id, version.operation, version.content, version.actor])).toEqual([
      ['memver_0000000000000001', 'created', 'a\n', { type: 'user', id: 'alice' }],
      ['memver_0000000000000002', 'modified', 'b\n', { type: 'user', id: 'alice' }],
    ]);
    // Archived again by the system tar, folders and all, it imports with its history.
    await run('tar', ['-cf', 'again.tar', 'memdir-history', 'memories', MANIFEST_NAME], { cwd: dir.path });
    expect(await stage(await readFile(join(dir.path, 'again.tar')))).toBe(2);
    expect(await stage(await readFile(join(dir.path, 'plain.tar')))).toBeUndefined();
  });

  it('a newer manifest version is refused as the work of a newer memdir', async () => {
    expect(await stage(craft([], 3))).toBe(
      'memdir-manifest.json is of version 3, made by a newer memdir than this one (which reads versions 1 and 2): import it with a newer memdir',
    );
    expect(await stage(craft([], 2, (manifest) => (manifest['version'] = '2')))).toBe(
      'memdir-manifest.json is not a memdir manifest (format memdir-archive, version 1 or 2)',
    );
  });

  it('history chunks the manifest does not vouch for, or that do not match it', async () => {
    const good = { name: CHUNK, body: `${line()}\n` };
    expect(await stage(craft([good]))).toBe(1);
    expect(await stage(craft([good], 1))).toBe(`${CHUNK} is in the archive but not in its manifest`);
    expect(
      await stage(
        craft([good], 2, (manifest) => ((manifest['history'] as { chunks: unknown[] }).chunks = [])),
      ),
    ).toBe('memdir-manifest.json counts 1 versions, and its chunks 0');
    expect(
      await stage(
        craft([good], 2, (manifest) => {
          const history = manifest['history'] as { chunks: Array<{ sha256: string }> };
          history.chunks[0]!.sha256 = sha256('other');
        }),
      ),
    ).toBe(`${CHUNK} does not match its manifest (size or SHA-256): the archive is damaged`);
    const listedOnly = craft([], 2, (manifest) => {
      manifest['history'] = {
        versions: 1,
        chunks: [{ name: CHUNK, versions: 1, size: 1, sha256: sha256('x') }],
      };
    });
    expect(await stage(listedOnly)).toBe(`${CHUNK} is in the manifest but missing from the archive`);
    expect(await stage(craft([{ name: 'memdir-history/../memories/x.md', body: 'x\n' }]))).toBe(
      'the archive holds "memdir-history/../memories/x.md", which is not a part of a memdir history',
    );
  });

  it('a version line that is not what memdir writes is refused, naming the line', async () => {
    const refused = async (body: string) => stage(craft([{ name: CHUNK, body }]));
    const at = `${CHUNK}, line 1`;
    expect(await refused('not json\n')).toBe(`${at} is not a JSON line`);
    expect(await refused(`${line({ path: '/memories/../etc/passwd' })}\n`)).toMatch(
      new RegExp(`^${at}: the path is refused: `),
    );
    expect(await refused(`${line({ path: '/etc/passwd' })}\n`)).toMatch(
      new RegExp(`^${at}: the path is refused: `),
    );
    expect(await refused(`${line({ content: 'b\n' })}\n`)).toBe(
      `${at}: the content does not match its size and SHA-256`,
    );
    expect(await refused(`${line({ id: 'memver_1' })}\n`)).toBe(`${at}: the id is not a memver_ id`);
    expect(await refused(`${line({ actor: { type: 'root', id: 'x' } })}\n`)).toBe(
      `${at}: the actor is not null or { type, id }`,
    );
    expect(await refused(`${line({ redactedAt: 1, path: '/memories/a.md' })}\n`)).toBe(
      `${at}: a redacted version still has a path, content, size or hash`,
    );
    expect(await refused(`${line({ operation: 'renamed' })}\n`)).toBe(
      `${at}: a rename needs its previous path, and only a rename has one`,
    );
    expect(await refused(`${line({ id: 'memver_0000000000000002' })}\n${line()}\n`)).toBe(
      `${CHUNK}, line 2: the version ids are not ascending`,
    );
  });

  it('a version line past the rule every store holds imports to is refused at staging, naming the line', async () => {
    const refused = async (body: string) => stage(craft([{ name: CHUNK, body }]));
    const at = `${CHUNK}, line 1`;
    // An id past the bound broke the target's later ids (memver_10000000000000000, then NaN).
    expect(await refused(`${line({ id: 'memver_9999999999999999' })}\n`)).toBe(
      `${at}: version id memver_9999999999999999 is above memver_1000000000000000, the highest an import may carry (the ids made after it must stay exact)`,
    );
    expect(await refused(`${line({ at: 0 })}\n`)).toBe(
      `${at}: version memver_0000000000000001 has time 0, outside 2000-01-01 to a day past now (milliseconds since the epoch)`,
    );
    expect(await refused(`${line({ at: 8_640_000_000_000_000 })}\n`)).toBe(
      `${at}: version memver_0000000000000001 has time 8640000000000000, outside 2000-01-01 to a day past now (milliseconds since the epoch)`,
    );
    expect(await refused(`${line({ actor: { type: 'user', id: 'a\u001b]0;pwned\u0007' } })}\n`)).toBe(
      `${at}: version memver_0000000000000001 has an actor id "a\\u001b]0;pwned\\u0007": expected 1 to 256 characters without control characters`,
    );
    expect(await refused(`${line({ actor: { type: 'user', id: 'a\u202eb' } })}\n`)).toBe(
      `${at}: version memver_0000000000000001 has an actor id "a\\u202eb": expected 1 to 256 characters without control characters`,
    );
    // The bound itself, at the earliest time, is an archive an import takes.
    expect(await refused(`${line({ id: 'memver_1000000000000000', at: Date.UTC(2000, 0, 1) })}\n`)).toBe(1);
  });

  it('a file id in the manifest that memdir does not make is refused', async () => {
    const archive = craft([{ name: CHUNK, body: `${line()}\n` }], 2, (manifest) => {
      (manifest['files'] as Array<Record<string, unknown>>)[0]!['fileId'] = '../../x';
      (manifest['files'] as Array<Record<string, unknown>>)[0]!['version'] = 'memver_0000000000000001';
    });
    expect(await stage(archive)).toBe(
      '/memories/a.md has a file id or version in the manifest that memdir does not make',
    );
  });
});
