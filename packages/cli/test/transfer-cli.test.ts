// memdir copy / export / import as a user runs them: the built CLI in a child process.
import { spawn } from 'node:child_process';
import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFsStore } from '@memdir/fs';
import { afterEach, describe, expect, it } from 'vitest';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';
import { craftHeader } from './tar-craft.js';

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup();
});

async function folder(): Promise<string> {
  const created = await tempFolder();
  cleanups.push(created.remove);
  return created.path;
}

async function countFiles(dir: string): Promise<number> {
  let count = 0;
  for (const entry of await readdir(dir, { withFileTypes: true, recursive: true }).catch(() => [])) {
    if (entry.isFile()) count++;
  }
  return count;
}

describe('memdir copy, export, import (the built CLI)', () => {
  it('copy interrupted by SIGINT exits 130; run again, it finishes with every file once, verified', async () => {
    const base = await folder();
    const source = createFsStore({ root: join(base, 'a') });
    for (let index = 0; index < 400; index++) {
      await source.create({
        command: 'create',
        path: `/memories/d${index % 20}/f${index}.md`,
        file_text: `file ${index}\n`,
      });
    }
    await source.close();
    const child = spawn(
      process.execPath,
      [BIN, 'copy', '--from', 'file:./a', '--to', 'file:./b', '--concurrency', '4'],
      {
        cwd: base,
        env: cliEnv(),
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // SIGINT once some files are in the target, as a person pressing Ctrl-C would.
    const started = Date.now();
    while ((await countFiles(join(base, 'b', 'memories'))) < 20 && Date.now() - started < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('memdir: stopping after the files in flight');
    expect(stderr).toContain('memdir: interrupted: run the same command again to resume');
    const copiedFirst = await countFiles(join(base, 'b', 'memories'));
    expect(copiedFirst).toBeLessThan(400);
    const again = await runCli(['copy', '--from', 'file:./a', '--to', 'file:./b'], { cwd: base });
    expect(again.code).toBe(0);
    expect(again.stderr).toMatch(/: 400 files \(.*\): \d+ copied, \d+ already identical, 0 not copied/);
    expect(again.stderr).toContain(
      'memdir: verified: every file is in the target with the same size and SHA-256',
    );
    expect(await countFiles(join(base, 'b', 'memories'))).toBe(400);
  }, 60_000);

  it('export | tar -t lists memories/ and the manifest; import of it restores the files', async () => {
    const base = await folder();
    const source = createFsStore({ root: join(base, 'a') });
    await source.create({ command: 'create', path: '/memories/notes.md', file_text: 'tea\n' });
    await source.create({ command: 'create', path: '/memories/.archive/old.md', file_text: 'old\n' });
    await source.close();
    const exported = await new Promise<Buffer>((resolve, reject) => {
      const child = spawn(process.execPath, [BIN, 'export', '--store', 'file:./a'], {
        cwd: base,
        env: cliEnv(),
      });
      const chunks: Buffer[] = [];
      child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
      child.on('error', reject);
      child.on('close', (code) =>
        code === 0 ? resolve(Buffer.concat(chunks)) : reject(new Error(`exit ${code}`)),
      );
    });
    await writeFile(join(base, 'memory.tar'), exported);
    const listed = await new Promise<string>((resolve) => {
      const tar = spawn('tar', ['-tf', 'memory.tar'], { cwd: base });
      let out = '';
      tar.stdout.setEncoding('utf8').on('data', (chunk: string) => {
        out += chunk;
      });
      tar.on('close', () => resolve(out));
    });
    expect(listed.trim().split('\n').sort()).toEqual(
      [
        'memdir-manifest.json',
        'memories/',
        'memories/.archive/',
        'memories/.archive/old.md',
        'memories/notes.md',
      ].sort(),
    );
    // The archive is binary: it goes in through a shell redirection, as a user would give it.
    const viaFile = await new Promise<{ code: number | null; stderr: string }>((resolve) => {
      const child = spawn(
        'sh',
        ['-c', `"${process.execPath}" "${BIN}" import --store file:./d < memory.tar`],
        {
          cwd: base,
          env: cliEnv(),
        },
      );
      let err = '';
      child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
        err += chunk;
      });
      child.on('close', (code) => resolve({ code, stderr: err }));
    });
    expect(viaFile.code).toBe(0);
    expect(viaFile.stderr).toContain('2 copied');
    const view = await runCli(['view', '/memories/notes.md', '--store', 'file:./d'], { cwd: base });
    expect(view.stdout).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     1\ttea\n     2\t\n",
    );
  }, 60_000);

  it.each(['0', '257', 'many', '1.5', ''])(
    '--concurrency %j is a usage error (exit 2) before any store opens',
    async (value) => {
      const base = await folder();
      for (const args of [
        ['copy', '--from', 'file:./a', '--to', 'file:./b'],
        ['import', '--store', 'file:./b'],
        ['export', '--store', 'file:./a'],
      ]) {
        const result = await runCli([...args, '--concurrency', value], { cwd: base });
        expect(result.code).toBe(2);
        expect(result.stderr).toBe(
          `memdir: --concurrency expects an integer from 1 to 256, got ${JSON.stringify(value)}\n`,
        );
      }
      expect(await readdir(base)).toEqual([]);
    },
  );

  it('--concurrency 1 and 64 copy every file once, verified; an export is the same bytes at any concurrency', async () => {
    const base = await folder();
    const source = createFsStore({ root: join(base, 'a') });
    for (let index = 0; index < 120; index++) {
      await source.create({
        command: 'create',
        path: `/memories/d${index % 6}/f${index}.md`,
        file_text: `file ${index}\n`,
      });
    }
    await source.close();
    for (const concurrency of ['1', '64']) {
      const result = await runCli(
        ['copy', '--from', 'file:./a', '--to', `file:./c${concurrency}`, '--concurrency', concurrency],
        { cwd: base },
      );
      expect(result.code).toBe(0);
      expect(result.stderr).toContain(': 120 files (');
      expect(result.stderr).toContain(
        'memdir: verified: every file is in the target with the same size and SHA-256',
      );
      expect(await countFiles(join(base, `c${concurrency}`, 'memories'))).toBe(120);
    }
    const exports = await Promise.all(
      ['1', '64'].map(
        (concurrency) =>
          new Promise<Buffer>((resolve, reject) => {
            const child = spawn(
              process.execPath,
              [BIN, 'export', '--store', 'file:./a', '--concurrency', concurrency],
              { cwd: base, env: cliEnv() },
            );
            const chunks: Buffer[] = [];
            child.stdout.on('data', (chunk: Buffer) => chunks.push(chunk));
            child.on('error', reject);
            child.on('close', () => resolve(Buffer.concat(chunks)));
          }),
      ),
    );
    expect(exports[0]!.length).toBeGreaterThan(120 * 512);
    expect(exports[1]!.equals(exports[0]!)).toBe(true);
  }, 60_000);

  it('import stopped by SIGINT while it reads the archive exits 130, writes nothing and leaves no staging', async () => {
    const base = await folder();
    const staging = join(base, 'tmp');
    await mkdir(staging);
    const child = spawn(process.execPath, [BIN, 'import', '--store', 'file:./target'], {
      cwd: base,
      env: cliEnv({ TMPDIR: staging }),
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
    // The child is stopped with part of what was sent still in the pipe: that write then fails with
    // EPIPE on this side, which is expected, not a failure of the test.
    child.stdin.on('error', () => {});
    // The start of an archive: a file of 1 MiB announced, half of it sent, and the rest never comes.
    child.stdin.write(craftHeader('memories/slow.md', 1024 * 1024, '0'));
    child.stdin.write(Buffer.alloc(512 * 1024, 0x61));
    const started = Date.now();
    while ((await readdir(staging)).length === 0 && Date.now() - started < 20_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(await readdir(staging)).toHaveLength(1);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('memdir: import stopped while reading the archive. Nothing was written.\n');
    expect(await readdir(staging)).toEqual([]);
    expect(await readdir(base)).toEqual(['tmp']);
  }, 60_000);

  it('a mistyped source folder is a usage error (exit 2), and creates nothing', async () => {
    const base = await folder();
    const result = await runCli(['copy', '--from', 'file:./nope', '--to', 'file:./b'], { cwd: base });
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('memdir: The source store file:./nope does not exist');
    expect(await readdir(base)).toEqual([]);
  });

  it('copy --namespace from a store whose files are in the default space says where they are, once prefixed', async () => {
    const base = await folder();
    const source = createFsStore({ root: join(base, 'src') });
    await source.create({ command: 'create', path: '/memories/a.md', file_text: 'seed' });
    await source.close();
    const result = await runCli(
      ['copy', '--from', 'file:./src', '--to', 'file:./dst', '--namespace', 'seed'],
      {
        cwd: base,
      },
    );
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: The source store file:./src has no namespace seed (./src has no namespaces folder); its files are in the default space: leave out --namespace, or give --namespace :seed to copy them into namespace seed of the target\n',
    });
    const other = createFsStore({ root: join(base, 'src'), namespace: 'team' });
    await other.create({ command: 'create', path: '/memories/b.md', file_text: 'team' });
    await other.close();
    const named = await runCli(
      ['copy', '--from', 'file:./src', '--to', 'file:./dst', '--namespace', 'seed'],
      {
        cwd: base,
      },
    );
    expect(named.stderr).toBe(
      'memdir: The source store file:./src has no namespace seed (./src has no namespaces/seed folder); its files are in the default space: leave out --namespace, or give --namespace :seed to copy them into namespace seed of the target\n',
    );
    expect(await readdir(base)).toEqual(['src']);
  });

  it('copy from an empty namespace says there was nothing to copy, and exits 0', async () => {
    const base = await folder();
    const result = await runCli(['copy', '--from', 'memory:', '--to', 'file:./dst', '--namespace', 'empty'], {
      cwd: base,
    });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain(
      '\nmemdir: nothing to copy: namespace empty of the source store holds no files\n',
    );
  });

  it('memdir --help lists copy, export and import; each has its own help', async () => {
    const help = await runCli(['--help']);
    for (const command of ['copy --from URL --to URL', 'export [--store URL]', 'import [--store URL]']) {
      expect(help.stdout).toContain(command);
    }
    const copy = await runCli(['copy', '--help']);
    expect(copy.code).toBe(0);
    expect(copy.stdout.startsWith('Usage: memdir copy --from URL --to URL')).toBe(true);
  });
});
