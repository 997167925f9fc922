// The conformance suite on a memdir server over the filesystem store.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { memoryStoresConformance } from './conformance-suite.js';

memoryStoresConformance('fs', () => `file:${mkdtempSync(join(tmpdir(), 'memdir-memstore-fs-'))}`);
