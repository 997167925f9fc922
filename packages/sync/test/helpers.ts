import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import type { MemdirStore } from '@memdir/core';
import { afterEach } from 'vitest';

const made: string[] = [];
afterEach(() => {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
});

export function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'memdir-sync-'));
  made.push(dir);
  return dir;
}

export function put(dir: string, rel: string, text: string | Buffer): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** Every file of DIR but the state folder, by relative path. */
export function folderFiles(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (folder: string, prefix: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      if (prefix === '' && entry.name === '.memdir-sync') continue;
      if (entry.isDirectory()) visit(join(folder, entry.name), `${prefix}${entry.name}/`);
      else if (entry.isFile()) out[prefix + entry.name] = readFileSync(join(folder, entry.name), 'utf8');
    }
  };
  visit(dir, '');
  return out;
}

/** Every file of the store, by path relative to /memories. */
export async function storeFiles(store: MemdirStore): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  let cursor: string | undefined;
  do {
    const page = await store.records.list({ limit: 1000, cursor });
    for (const item of page.items) {
      if (item.kind !== 'file') continue;
      const full = await store.records.get(item.path, { content: true });
      if (full?.content !== undefined) out[item.path.slice('/memories/'.length)] = full.content;
    }
    cursor = page.next ?? undefined;
  } while (cursor);
  return out;
}

/** The sorted object (for equal comparisons). */
export function sorted(files: Record<string, string>): Record<string, string> {
  return Object.fromEntries(Object.entries(files).sort(([a], [b]) => (a < b ? -1 : 1)));
}
