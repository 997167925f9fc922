import { mkdtempSync, rmSync } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeMemoryStore } from '@memdir/core/conformance';
import { afterAll } from 'vitest';
import { createFsStore } from '../src/index.js';

// One folder per backend name: two stores opened with the same name share a folder, as two
// processes pointed at one root would.
const base = mkdtempSync(join(tmpdir(), 'memdir-fs-conformance-'));
afterAll(() => rmSync(base, { recursive: true, force: true }));

describeMemoryStore({
  name: 'fs',
  create: (options, backend) => createFsStore({ ...options, root: join(base, backend) }),
  destroy: (backend) => rm(join(base, backend), { recursive: true, force: true }),
});
