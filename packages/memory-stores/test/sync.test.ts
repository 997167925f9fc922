// `memdir sync` of two folders through one store of a memory stores API (a real memdir server on
// the filesystem store): edits on both sides and by a program using the API meet, a delete reaches
// the other side, and a change made on both sides keeps the losing text beside the file (the API
// store has no memdir history to keep it in).

import { execFile } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiServer, BIN, childEnv, startApiServer } from './api-server.js';

const execute = promisify(execFile);
let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer(`file:${mkdtempSync(join(tmpdir(), 'memdir-memstore-sync-'))}`);
}, 60_000);
afterAll(() => server?.stop());

const folder = () => mkdtempSync(join(tmpdir(), 'memdir-memstore-folder-'));

function put(dir: string, path: string, text: string): void {
  mkdirSync(dirname(join(dir, path)), { recursive: true });
  writeFileSync(join(dir, path), text);
}

/** Every file of `dir` but the sync state, by relative path. */
function files(dir: string, prefix = ''): Record<string, string> {
  const found: Record<string, string> = {};
  for (const name of readdirSync(join(dir, prefix)).sort()) {
    if (prefix === '' && name === '.memdir-sync') continue;
    const path = prefix === '' ? name : `${prefix}/${name}`;
    if (statSync(join(dir, path)).isDirectory()) Object.assign(found, files(dir, path));
    else found[path] = readFileSync(join(dir, path), 'utf8');
  }
  return found;
}

/** One pass of `memdir sync DIR --once` on store `id`, as machine `host`. */
async function pass(dir: string, id: string): Promise<string> {
  const { stdout, stderr } = await execute(
    process.execPath,
    [BIN, 'sync', dir, '--store', server.url(id), '--once', '--delete-delay', '0'],
    { env: childEnv({ MEMDIR_MEMORY_STORES_KEY: server.key }), timeout: 60_000 },
  );
  expect(stderr + stdout).not.toContain(server.key);
  return stdout;
}

async function storeFiles(id: string): Promise<Record<string, string>> {
  const found: Record<string, string> = {};
  for await (const item of server.client.beta.memoryStores.memories.list(id, { view: 'full', limit: 20 })) {
    if (item.type === 'memory') found[item.path.slice(1)] = item.content ?? '';
  }
  return found;
}

describe('memdir sync through a memory stores API', { timeout: 120_000 }, () => {
  it('edits in two folders and through the API converge in both folders and the store', async () => {
    const id = await server.newStore('sync-edits');
    const a = folder();
    const b = folder();
    put(a, 'notes/a.md', 'from a');
    put(b, 'b.md', 'from b');
    await server.client.beta.memoryStores.memories.create(id, {
      path: '/agent.md',
      content: 'agent wrote\n',
    });
    for (let round = 0; round < 2; round++) {
      await pass(a, id);
      await pass(b, id);
    }
    put(a, 'notes/a.md', 'from a, edited');
    put(b, 'b.md', 'from b, edited');
    const [agent] = (
      await server.client.beta.memoryStores.memories.list(id, { path_prefix: '/' })
    ).data.filter((item) => item.path === '/agent.md');
    await server.client.beta.memoryStores.memories.update(agent!.type === 'memory' ? agent!.id : '', {
      memory_store_id: id,
      content: 'the agent wrote\n',
    });
    expect(await pass(a, id)).toContain('sync: 1 sent, 1 received, 0 deleted, 0 conflicts');
    await pass(b, id);
    await pass(a, id);
    const expected = {
      'agent.md': 'the agent wrote\n',
      'b.md': 'from b, edited',
      'notes/a.md': 'from a, edited',
    };
    expect(files(a)).toEqual(expected);
    expect(files(b)).toEqual(expected);
    expect(await storeFiles(id)).toEqual(expected);
    expect(await pass(a, id)).toBe('');
  });

  it('a delete in one folder reaches the store and the other folder', async () => {
    const id = await server.newStore('sync-delete');
    const a = folder();
    const b = folder();
    put(a, 'x.md', 'x');
    put(a, 'y.md', 'y');
    await pass(a, id);
    await pass(b, id);
    rmSync(join(a, 'x.md'));
    expect(await pass(a, id)).toContain('1 deleted');
    await pass(b, id);
    expect(files(b)).toEqual({ 'y.md': 'y' });
    expect(await storeFiles(id)).toEqual({ 'y.md': 'y' });
  });

  it('a change on both sides: the store wins, the losing text is kept as NAME.conflict-HOST-TIME.md', async () => {
    const id = await server.newStore('sync-conflict');
    const a = folder();
    const b = folder();
    put(a, 'c.md', 'base');
    await pass(a, id);
    await pass(b, id);
    put(a, 'c.md', 'edit on a');
    put(b, 'c.md', 'edit on b');
    await pass(a, id);
    expect(await pass(b, id)).toMatch(/\b1 conflicts?\b/);
    await pass(b, id);
    await pass(a, id);
    const held = files(a);
    expect(held['c.md']).toBe('edit on a');
    const kept = Object.keys(held).filter((name) => /^c\.conflict-.*\.md$/.test(name));
    expect(kept).toHaveLength(1);
    expect(held[kept[0]!]).toBe('edit on b');
    expect(files(b)).toEqual(held);
    expect(await storeFiles(id)).toEqual(held);
  });
});
