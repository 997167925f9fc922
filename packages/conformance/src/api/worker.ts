// The kit's `worker` group: Anthropic's own sync worker, `SessionMemoryStores` from the SDK, unchanged,
// mirroring a store into a folder and back: download, local edits and new files up, remote writes and
// deletes down, local deletes at `finish()`, a file over the limit refused while the rest syncs, both
// sides changed (the server's version stays), and a response lost on the way (through a fault proxy)
// settled on the next sync. The worker never logs "memory sync failed".
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { SessionMemoryStores } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import { expect, it } from 'vitest';
import { startFaultProxy } from './fault-proxy.js';
import type { ApiKit } from './target.js';

/** More than the hosted API's (and memdir's default) 102,400 bytes per memory, less than a request body. */
const OVER_THE_LIMIT = 150_000;

interface Mirror {
  /** The folder the store is mirrored into. */
  root: string;
  /** One sync now: `syncAll`, the SDK's own tests' deterministic driver (`syncIfDue` waits 5 s at least). */
  syncNow(): Promise<void>;
  finish(): Promise<void>;
  /** What the worker logged at warn or error level, in order. */
  warnings: string[];
}

/** Downloads `storeId` with a worker whose client talks to `baseUrl`; the mirror is gone after `use`. */
async function withMirror(
  kit: ApiKit,
  storeId: string,
  use: (mirror: Mirror) => Promise<void>,
  baseUrl = kit.connection().baseUrl,
): Promise<void> {
  const createToken = kit.target.createToken;
  const token =
    createToken === undefined
      ? kit.connection().token
      : await createToken({ name: `sync-${storeId}`, store: storeId });
  const workdir = await mkdtemp(join(tmpdir(), 'memdir-api-sync-'));
  const root = join(workdir, 'mnt');
  const warnings: string[] = [];
  const logger = {
    error: (message: string) => warnings.push(message),
    warn: (message: string) => warnings.push(message),
    info: () => {},
    debug: () => {},
  };
  const client = new Anthropic({ baseURL: baseUrl, apiKey: token, maxRetries: 0, logger, logLevel: 'warn' });
  const sync = new SessionMemoryStores(client, { workdir });
  try {
    await sync.download({
      resources: [
        {
          type: 'memory_store',
          memory_store_id: storeId,
          mount_path: root,
          name: 'synced',
          access: 'read_write',
        },
      ],
    } as never);
    await use({
      root,
      syncNow: () => (sync as unknown as { syncAll(final: boolean): Promise<void> }).syncAll(false),
      finish: () => sync.finish(),
      warnings,
    });
    expect(warnings).not.toContain('memory sync failed');
  } finally {
    await sync.dispose();
    await rm(workdir, { recursive: true, force: true });
  }
}

export function workerTests(kit: ApiKit): void {
  it("worker: Anthropic's SessionMemoryStores downloads, uploads, pulls, deletes both ways and finishes", async () => {
    const store = await kit.createStore('synced');
    const memories = kit.admin().beta.memoryStores.memories;
    const a = await memories.create(store.id, { path: '/a.md', content: 'first' });
    await memories.create(store.id, { path: '/notes/b.md', content: 'second' });
    await withMirror(kit, store.id, async ({ root, syncNow, finish, warnings }) => {
      expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('first');
      expect(await readFile(join(root, 'notes/b.md'), 'utf8')).toBe('second');
      // A local edit and a new local file go up.
      await writeFile(join(root, 'a.md'), 'edited here');
      await writeFile(join(root, 'c.md'), 'new here');
      await syncNow();
      expect((await memories.retrieve(a.id, { memory_store_id: store.id })).content).toBe('edited here');
      const listed = await memories.list(store.id, { view: 'full' });
      expect(listed.data.map((item) => [item.path, (item as { content: string }).content])).toEqual([
        ['/a.md', 'edited here'],
        ['/c.md', 'new here'],
        ['/notes/b.md', 'second'],
      ]);
      // A remote write comes down.
      await memories.update(a.id, { memory_store_id: store.id, content: 'edited there' });
      await syncNow();
      expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('edited there');
      // A remote delete removes the file; a local delete reaches the server at finish().
      const c = listed.data.find((item) => item.path === '/c.md') as { id: string };
      await memories.delete(c.id, { memory_store_id: store.id });
      await syncNow();
      await expect(readFile(join(root, 'c.md'), 'utf8')).rejects.toThrow(/ENOENT/);
      await rm(join(root, 'notes/b.md'));
      await finish();
      const left = await memories.list(store.id);
      expect(left.data.map((item) => item.path)).toEqual(['/a.md']);
      expect(warnings).toEqual([]);
    });
  });

  it('worker: a file over the limit is refused while the rest syncs, and goes up once it fits', async () => {
    const store = await kit.createStore('large');
    const memories = kit.admin().beta.memoryStores.memories;
    await withMirror(kit, store.id, async ({ root, syncNow, warnings }) => {
      await writeFile(join(root, 'large.md'), 'x'.repeat(OVER_THE_LIMIT));
      await writeFile(join(root, 'small.md'), 'fits');
      await syncNow();
      const listed = await memories.list(store.id, { view: 'full' });
      expect(listed.data.map((item) => [item.path, (item as { content: string }).content])).toEqual([
        ['/small.md', 'fits'],
      ]);
      expect(warnings).toEqual([
        'the server rejected this memory file, so it stays un-synced until its content changes',
      ]);
      // Refused once, not resent while it stays the same; the other files keep syncing.
      await writeFile(join(root, 'small.md'), 'fits, edited');
      await syncNow();
      expect(warnings).toHaveLength(1);
      expect(await readFile(join(root, 'large.md'), 'utf8')).toHaveLength(OVER_THE_LIMIT);
      await writeFile(join(root, 'large.md'), 'smaller now');
      await syncNow();
      const after = await memories.list(store.id, { view: 'full' });
      expect(after.data.map((item) => [item.path, (item as { content: string }).content])).toEqual([
        ['/large.md', 'smaller now'],
        ['/small.md', 'fits, edited'],
      ]);
      expect(warnings).toHaveLength(1);
    });
  });

  it("worker: a memory changed on both sides keeps the server's version, locally too", async () => {
    const store = await kit.createStore('both');
    const memories = kit.admin().beta.memoryStores.memories;
    const a = await memories.create(store.id, { path: '/a.md', content: 'base' });
    await withMirror(kit, store.id, async ({ root, syncNow, warnings }) => {
      await writeFile(join(root, 'a.md'), 'edited here');
      const there = await memories.update(a.id, { memory_store_id: store.id, content: 'edited there' });
      await syncNow();
      expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('edited there');
      const kept = await memories.retrieve(a.id, { memory_store_id: store.id });
      expect(kept.content).toBe('edited there');
      expect(kept.memory_version_id).toBe(there.memory_version_id);
      expect(warnings).toEqual(['memory changed both locally and remotely; keeping the remote version']);
      // Settled: the next sync changes nothing on either side.
      await syncNow();
      expect((await memories.retrieve(a.id, { memory_store_id: store.id })).memory_version_id).toBe(
        there.memory_version_id,
      );
      expect(warnings).toHaveLength(1);
    });
  });

  it('worker: a sync that finds nothing changed reads basic listings only and moves no content', async () => {
    const store = await kit.createStore('quiet');
    const memories = kit.admin().beta.memoryStores.memories;
    const count = 150;
    for (let index = 0; index < count; index++) {
      await memories.create(store.id, {
        path: `/m/${String(index).padStart(3, '0')}.md`,
        content: `memory ${index}`,
      });
    }
    const proxy = await startFaultProxy(kit.connection().baseUrl);
    try {
      await withMirror(
        kit,
        store.id,
        async ({ root, syncNow, warnings }) => {
          expect(await readFile(join(root, 'm/149.md'), 'utf8')).toBe('memory 149');
          await syncNow();
          proxy.clear();
          await syncNow();
          const requests = proxy.requests();
          // Listing pages of `view=basic` (no content), nothing else: no retrieve, no full page, no write.
          expect(requests.length).toBeGreaterThanOrEqual(2);
          for (const request of requests) {
            expect(request).toMatch(new RegExp(`^GET /v1/memory_stores/${store.id}/memories\\?`));
            expect(new URLSearchParams(request.slice(request.indexOf('?') + 1)).get('view')).not.toBe('full');
          }
          expect(warnings).toEqual([]);
        },
        proxy.origin,
      );
    } finally {
      await proxy.close();
    }
  });

  it('worker: an upload whose response is lost on the way is settled on the next sync, with no second version', async () => {
    const store = await kit.createStore('lost');
    const { memories, memoryVersions } = kit.admin().beta.memoryStores;
    const a = await memories.create(store.id, { path: '/a.md', content: 'base' });
    const proxy = await startFaultProxy(kit.connection().baseUrl);
    try {
      await withMirror(
        kit,
        store.id,
        async ({ root, syncNow, warnings }) => {
          await writeFile(join(root, 'a.md'), 'edited here');
          proxy.dropNextResponse((method, path) => method === 'POST' && path.includes(`/memories/${a.id}`));
          await syncNow();
          expect(proxy.dropped()).toBe(1);
          // The server saved the edit; the worker never heard.
          expect((await memories.retrieve(a.id, { memory_store_id: store.id })).content).toBe('edited here');
          expect(warnings).toEqual(['failed to upload memory']);
          await syncNow();
          await syncNow();
          expect(await readFile(join(root, 'a.md'), 'utf8')).toBe('edited here');
          const versions = await memoryVersions.list(store.id, { memory_id: a.id });
          expect(versions.data.map((version) => version.operation)).toEqual(['modified', 'created']);
          // The listing showed the hash sent: no conflict seen, nothing sent again.
          expect(warnings).toEqual(['failed to upload memory']);
        },
        proxy.origin,
      );
    } finally {
      await proxy.close();
    }
  });
}
