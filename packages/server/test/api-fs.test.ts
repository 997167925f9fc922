// The memory stores API on the filesystem store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiSuite } from './api-suite.js';

apiSuite('fs', () => `file:${mkdtempSync(join(tmpdir(), 'memdir-api-fs-'))}`);
