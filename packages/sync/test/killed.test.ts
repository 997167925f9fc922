// Random edits on two folders and by an agent, with sync passes in child processes SIGKILLed at
// random moments: after the final passes everything converges, and every line ever written is in
// a final file or in the store's history, never twice in the final files.
import { spawn } from 'node:child_process';
import { appendFileSync, existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createFsStore } from '@memdir/fs';
import { expect, test } from 'vitest';
import { folderFiles, put, sorted, storeFiles, tempDir } from './helpers.js';

const CHILD = fileURLToPath(new URL('./fixtures/sync-child.mjs', import.meta.url));

/** A small seeded generator, so a failure can be replayed (the seed is in the test name). */
function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function runChild(root: string, dir: string, host: string, killAfterMs: number | null): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CHILD, root, dir, host], { stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const timer = killAfterMs === null ? undefined : setTimeout(() => child.kill('SIGKILL'), killAfterMs);
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0 || signal === 'SIGKILL') resolve();
      else reject(new Error(`sync child failed (${code}): ${stderr}`));
    });
  });
}

const SEED = Number(process.env.MEMDIR_SYNC_SEED ?? 20261206);

test(`SIGKILLed passes converge with nothing lost or doubled (seed ${SEED})`, async () => {
  const rand = random(SEED);
  const root = tempDir();
  const folders = [tempDir(), tempDir()];
  const names = ['a.md', 'b.md', 'notes/c.md', 'notes/d.md', 'e.md'];
  const lines = new Set<string>();
  let n = 0;
  const line = (who: string) => {
    const text = `${who}-${n++}\n`;
    lines.add(text.trimEnd());
    return text;
  };
  {
    await using agent = createFsStore({ root });
    for (let round = 0; round < 14; round++) {
      for (const [i, dir] of folders.entries()) {
        if (rand() < 0.7) {
          const name = names[Math.floor(rand() * names.length)]!;
          if (existsSync(join(dir, name))) appendFileSync(join(dir, name), line(`f${i}`));
          else put(dir, name, line(`f${i}`));
        }
      }
      const name = names[Math.floor(rand() * names.length)]!;
      const path = `/memories/${name}`;
      const current = await agent.records.get(path);
      if (current === null) await agent.create({ command: 'create', path, file_text: line('agent') });
      else if (rand() < 0.2) await agent.delete({ command: 'delete', path });
      else await agent.insert({ command: 'insert', path, insert_line: 0, insert_text: line('agent') });
      const which = Math.floor(rand() * 2);
      const kill = rand() < 0.6 ? Math.floor(rand() * 250) : null;
      await runChild(root, folders[which]!, `host${which}`, kill);
    }
  }
  for (let pass = 0; pass < 3; pass++) {
    for (const [i, dir] of folders.entries()) await runChild(root, dir, `host${i}`, null);
  }
  // What killed passes left half written is gone: the last passes cleared it.
  for (const dir of folders) {
    const state = join(dir, '.memdir-sync');
    expect(readdirSync(state).filter((name) => name !== 'state.json' && name !== 'tmp')).toEqual([]);
    if (existsSync(join(state, 'tmp'))) expect(readdirSync(join(state, 'tmp'))).toEqual([]);
  }
  await using store = createFsStore({ root });
  const final = sorted(await storeFiles(store));
  expect(sorted(folderFiles(folders[0]!))).toEqual(final);
  expect(sorted(folderFiles(folders[1]!))).toEqual(final);
  const kept = new Set<string>();
  const seenFinal = new Map<string, number>();
  for (const text of Object.values(final)) {
    for (const l of text.split('\n').filter(Boolean)) {
      kept.add(l);
      seenFinal.set(l, (seenFinal.get(l) ?? 0) + 1);
    }
  }
  let cursor: string | undefined;
  do {
    const page = await store.history({ limit: 1000, cursor });
    for (const v of page.versions) {
      if (v.sha256 === null) continue;
      const content = (await store.version(v.id)).content;
      for (const l of (content ?? '').split('\n').filter(Boolean)) kept.add(l);
    }
    cursor = page.next ?? undefined;
  } while (cursor);
  const lost = [...lines].filter((l) => !kept.has(l));
  expect(lost).toEqual([]);
  const doubled = [...seenFinal].filter(([, count]) => count > 1);
  expect(doubled).toEqual([]);
}, 240_000);
