// --verbose: the store's reports on stderr, never on stdout, never with a path, content or password.
import { join } from 'node:path';
import { databaseUrl } from '@memdir/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './helpers.js';

let folder: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  folder = await tempFolder();
});

afterEach(async () => {
  await folder.remove();
});

describe('--verbose', () => {
  it("prints the fs store's reports on stderr; stdout is the result alone", async () => {
    const store = `file:${join(folder.path, 'store')}`;
    const result = await runCli(
      ['create', '/memories/secret-plan.md', '-t', 'the launch code', '--verbose', '-s', store],
      {
        cwd: folder.path,
      },
    );
    expect(result.code).toBe(0);
    expect(result.stdout).toBe('File created successfully at: /memories/secret-plan.md\n');
    expect(result.stderr).toMatch(
      /^memdir: info: fs: totals recounted \{"package":"@memdir\/fs","cause":"[a-z-]+","fileCount":0,"byteCount":0,"tookMs":\d+\}\n$/,
    );
    const quiet = await runCli(['view', '/memories', '-s', store], { cwd: folder.path });
    expect(quiet.stderr).toBe('');
  });

  it('prints what PostgreSQL setup reports, and nothing of the URL, its password or the content', async () => {
    const url = new URL(databaseUrl());
    url.password = 'pw-never-printed';
    url.searchParams.set('schema', `verbose_${process.pid}`);
    const result = await runCli(
      ['create', '/memories/notes.md', '-t', 'private words', '--verbose', '--store', url.href],
      { cwd: folder.path },
    );
    expect(result.code).toBe(0);
    expect(result.stderr).toMatch(/^memdir: info: postgres: setup: /m);
    for (const line of result.stderr.trimEnd().split('\n'))
      expect(line).toMatch(/^memdir: (debug|info|warn|error): /);
    for (const secret of ['pw-never-printed', 'notes', 'private words', url.host]) {
      expect(result.stderr).not.toContain(secret);
    }
    await runCli(['delete', '/memories/notes.md', '--store', url.href], { cwd: folder.path });
  });

  it('is an option of copy, export and import too', async () => {
    const store = `file:${join(folder.path, 'store')}`;
    await runCli(['create', '/memories/a.md', '-t', 'a', '-s', store], { cwd: folder.path });
    const copy = await runCli(['copy', '--from', store, '--to', 'memory:', '--verbose'], {
      cwd: folder.path,
    });
    expect(copy.code).toBe(0);
    const help = await runCli(['export', '--help'], { cwd: folder.path });
    expect(help.stdout).toContain('--verbose');
  });
});
