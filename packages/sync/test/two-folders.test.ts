// Two folders on the in-memory and filesystem stores (test/servers.test.ts: Redis and PostgreSQL).
import { createInMemoryStore } from '@memdir/core';
import { createFsStore } from '@memdir/fs';
import { tempDir } from './helpers.js';
import { type StoreCase, twoFolderSuite } from './two-folders-suite.js';

const cases: StoreCase[] = [
  { name: 'in-memory', open: async (history) => createInMemoryStore(history ? {} : { history: false }) },
  {
    name: 'fs',
    open: async (history) => createFsStore({ root: tempDir(), ...(history ? {} : { history: false }) }),
  },
];

for (const c of cases) twoFolderSuite(c);
