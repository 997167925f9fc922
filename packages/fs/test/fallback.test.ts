// The store where names cannot be reached through folder handles (no /proc: macOS, the BSDs):
// forced here on Linux. It must still behave exactly as the spec says, and refuse every link that
// is in place before a command runs (it cannot promise that against a concurrent swap; see the
// README). Each test file runs in its own module graph, so the setting stays in this file.
import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMemoryStore } from '@memdir/conformance';
import { afterAll, describe, expect, it } from 'vitest';
import { describeLinks } from './link-cases.js';

process.env['MEMDIR_FS_NO_PROCFS'] = '1';
const { createFsStore } = await import('../src/index.js');
const { handlesAreExact } = await import('../src/dir.js');

describe('the portable mode', () => {
  it('is in force in this file', () => {
    expect(handlesAreExact()).toBe(false);
  });
});

describeLinks(createFsStore);

const base = mkdtempSync(join(tmpdir(), 'memdir-fs-portable-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describeMemoryStore({
  name: 'fs (portable mode)',
  create: (options, backend) => createFsStore({ ...options, root: join(base, backend) }),
  destroy: (backend) => rm(join(base, backend), { recursive: true, force: true }),
  // History is the same code in both modes: conformance.test.ts and retention.test.ts carry the
  // heavy retention checks; here it only has to hold through the portable lookups.
  historyEdits: 200,
});
