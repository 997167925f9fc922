// The README's example, run as written (see scripts/readme-example.mjs) against a real memdir
// server's memory stores API: it must print exactly what its comments say.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runReadmeExample } from '../../../scripts/readme-example.mjs';
import { type ApiServer, startApiServer } from './api-server.js';

const PACKAGE = new URL('..', import.meta.url);
let server: ApiServer;

beforeAll(async () => {
  server = await startApiServer(`file:${mkdtempSync(join(tmpdir(), 'memdir-memstore-readme-'))}`);
}, 60_000);
afterAll(() => server?.stop());

describe('README example', () => {
  it('prints what its comments say', async () => {
    const run = await runReadmeExample({
      readme: new URL('README.md', PACKAGE),
      packageDir: PACKAGE,
      env: {
        MEMDIR_MEMORY_STORES_KEY: server.key,
        MEMORY_STORES_BASE_URL: server.origin,
        MEMORY_STORE_ID: await server.newStore('readme'),
      },
    });
    expect(run.exitCode, run.stderr).toBe(0);
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe(run.example.expectedOutput);
  });
});
