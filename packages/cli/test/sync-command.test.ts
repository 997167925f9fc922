// `memdir sync`: the built CLI over two folders and one store (a folder store; Redis too when
// REDIS_URL is set), as a user runs it: --once passes, the watch with its signals, and refusals.
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { dirname, join } from 'node:path';
import { createFsStore } from '@memdir/fs';
import { afterEach, describe, expect, test } from 'vitest';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';

const cleanup: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step();
});

async function folder(): Promise<string> {
  const made = await tempFolder();
  cleanup.push(made.remove);
  return made.path;
}

function put(dir: string, rel: string, text: string | Buffer): void {
  mkdirSync(dirname(join(dir, rel)), { recursive: true });
  writeFileSync(join(dir, rel), text);
}

/** Every file of DIR but the state folder, by relative path. */
function files(dir: string): Record<string, string> {
  const out: Record<string, string> = {};
  const visit = (at: string, prefix: string) => {
    for (const entry of readdirSync(at, { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
      if (prefix === '' && entry.name === '.memdir-sync') continue;
      if (entry.isDirectory()) visit(join(at, entry.name), `${prefix}${entry.name}/`);
      else if (entry.isFile()) out[prefix + entry.name] = readFileSync(join(at, entry.name), 'utf8');
    }
  };
  visit(dir, '');
  return out;
}

const once = (dir: string, store: string, ...more: string[]) =>
  runCli(['sync', dir, '--store', store, '--once', '--delete-delay', '0', ...more]);

/** Two folders and a store URL on a fresh backend. */
interface Setup {
  a: string;
  b: string;
  store: string;
  extra: string[];
}

async function fileSetup(): Promise<Setup> {
  return { a: await folder(), b: await folder(), store: `file:${await folder()}`, extra: [] };
}

function twoFolders(name: string, setup: () => Promise<Setup>): void {
  test(`${name}: two folders and an agent through the memory tool converge; one line per pass that changed something`, async () => {
    const { a, b, store, extra } = await setup();
    put(a, 'notes/a.md', 'from a\n');
    put(b, 'b.md', 'from b\n');
    expect(await once(a, store, ...extra)).toEqual({
      code: 0,
      stdout: 'sync: 1 sent, 0 received, 0 deleted, 0 conflicts, 0 skipped\n',
      stderr: '',
    });
    const fromB = await once(b, store, ...extra, '--verbose');
    expect(fromB.code).toBe(0);
    expect(fromB.stdout).toBe(
      'sent b.md\nreceived notes/a.md\nsync: 1 sent, 1 received, 0 deleted, 0 conflicts, 0 skipped\n',
    );
    const agent = await runCli([
      'create',
      '/memories/agent.md',
      '--text',
      'the agent wrote this',
      '--store',
      store,
      ...extra,
    ]);
    expect(agent.code).toBe(0);
    rmSync(join(b, 'notes/a.md'));
    put(b, 'b.md', 'from b, edited\n');
    const json = await once(b, store, ...extra, '--json');
    expect(json.code).toBe(0);
    const pass = JSON.parse(json.stdout);
    expect(pass).toMatchObject({ sent: 1, received: 1, deleted: 1, conflicts: 0, skipped: 0 });
    expect(pass.events.map((e: { kind: string; path: string }) => `${e.kind} ${e.path}`).sort()).toEqual([
      'deleted notes/a.md',
      'received agent.md',
      'sent b.md',
    ]);
    expect((await once(a, store, ...extra)).stdout).toBe(
      'sync: 0 sent, 2 received, 1 deleted, 0 conflicts, 0 skipped\n',
    );
    const expected = { 'agent.md': 'the agent wrote this', 'b.md': 'from b, edited\n' };
    expect(files(a)).toEqual(expected);
    expect(files(b)).toEqual(expected);
    const view = await runCli(['view', '/memories/b.md', '--store', store, ...extra]);
    expect(view.stdout).toContain('from b, edited');
    // Nothing changed: nothing printed.
    expect(await once(a, store, ...extra)).toEqual({ code: 0, stdout: '', stderr: '' });
  });

  test(`${name}: a conflict keeps the store's text everywhere and the local one as a version by memdir-sync@HOST`, async () => {
    const { a, b, store, extra } = await setup();
    put(a, 'c.md', 'first\n');
    await once(a, store, ...extra);
    await once(b, store, ...extra);
    put(a, 'c.md', 'a wins, it was first\n');
    put(b, 'c.md', 'b loses\n');
    await once(a, store, ...extra);
    const lost = await once(b, store, ...extra);
    expect(lost.stdout).toBe('sync: 0 sent, 1 received, 0 deleted, 1 conflicts, 0 skipped\n');
    expect(lost.stderr).toBe('memdir: sync: conflict c.md: the local text is kept in the store history\n');
    expect(files(b)).toEqual({ 'c.md': 'a wins, it was first\n' });
    const log = await runCli(['log', '/memories/c.md', '--json', '--store', store, ...extra]);
    const versions = log.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    const byB = versions.find(
      (v: { sha256: string; actor: { id: string } | null }) =>
        v.actor?.id === `memdir-sync@${hostname()}` && v.sha256 !== versions[0].sha256,
    );
    const shown = await runCli(['show', byB.id, '--json', '--store', store, ...extra]);
    expect(JSON.parse(shown.stdout).content).toBe('b loses\n');
  });
}

describe('memdir sync', () => {
  twoFolders('a folder store', fileSetup);

  test('a file not UTF-8 and a symlink to outside are said once on stderr, and nothing outside DIR is touched', async () => {
    const { a, store } = await fileSetup();
    const outside = await folder();
    put(outside, 'secret.md', 'outside');
    symlinkSync(join(outside, 'secret.md'), join(a, 'link.md'));
    put(a, 'latin1.md', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
    put(a, 'ok.md', 'fine');
    const first = await once(a, store);
    expect(first.stdout).toBe('sync: 1 sent, 0 received, 0 deleted, 0 conflicts, 2 skipped\n');
    expect(first.stderr.split('\n').sort()).toEqual([
      '',
      'memdir: sync: skipped latin1.md: it is not UTF-8 text',
      'memdir: sync: skipped link.md: it is a symbolic link (never followed)',
    ]);
    expect(await once(a, store)).toEqual({ code: 0, stdout: '', stderr: '' });
    await runCli(['create', '/memories/link.md', '--text', 'from the store', '--store', store]);
    await once(a, store);
    expect(files(outside)).toEqual({ 'secret.md': 'outside' });
  });

  test('refusals: DIR bound to another store, a store inside DIR, bad flags; exit 2, nothing written', async () => {
    const { a, store } = await fileSetup();
    put(a, 'a.md', 'a');
    await once(a, store);
    const other = `file:${await folder()}`;
    const bound = await once(a, other);
    expect(bound.code).toBe(2);
    expect(bound.stderr).toMatch(
      /^memdir: sync: .*: the folder is kept in step with file:.*, not this store/,
    );
    expect((await runCli(['view', '--store', other])).stdout).not.toContain('a.md');
    const inside = await once(a, `file:${join(a, 'store')}`);
    expect(inside).toMatchObject({ code: 2 });
    expect(inside.stderr).toBe(
      'memdir: sync: the store folder and DIR overlap: keep the store outside DIR\n',
    );
    expect(readdirSync(a).sort()).toEqual(['.memdir-sync', 'a.md']);
    for (const [flags, message] of [
      [['--deletions', 'sometimes'], '--deletions expects enabled, log-only, disabled, got "sometimes"'],
      [['--interval', '0'], '--interval expects seconds, at least 0.1, got "0"'],
      [['--delete-delay=-1'], '--delete-delay expects a number of seconds, got "-1"'],
    ] as const) {
      const refused = await runCli(['sync', a, '--store', store, ...flags]);
      expect(refused).toMatchObject({ code: 2, stdout: '' });
      expect(refused.stderr).toBe(`memdir: sync: ${message}\n`);
    }
    expect(await runCli(['sync', join(a, 'missing'), '--once'])).toMatchObject({ code: 2 });
  });

  test('watch: a local change and a store change arrive within --interval + 2 s; SIGTERM stops it after the pass', async () => {
    const { a, store } = await fileSetup();
    put(a, 'first.md', 'first');
    const child = spawn(
      process.execPath,
      [BIN, 'sync', a, '--store', store, '--interval', '1', '--delete-delay', '0'],
      { env: cliEnv(), stdio: ['ignore', 'pipe', 'pipe'] },
    );
    const output = collect(child);
    cleanup.push(async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    });
    await until(() => output.stdout.includes('1 sent'), 30_000);
    await using agent = createFsStore({ root: store.slice('file:'.length) });
    put(a, 'local.md', 'made here');
    let since = Date.now();
    await until(async () => (await agent.records.get('/memories/local.md')) !== null, 10_000);
    expect(Date.now() - since).toBeLessThan(3_000);
    since = Date.now();
    await agent.create({ command: 'create', path: '/memories/remote.md', file_text: 'made in the store' });
    await until(() => files(a)['remote.md'] === 'made in the store', 10_000);
    expect(Date.now() - since).toBeLessThan(3_000);
    child.kill('SIGTERM');
    const code = await new Promise<number | null>((resolve) => child.on('exit', (c) => resolve(c)));
    expect(code).toBe(0);
    expect(output.stderr).toBe('');
    expect(output.stdout.split('\n').filter(Boolean)).toEqual([
      'sync: 1 sent, 0 received, 0 deleted, 0 conflicts, 0 skipped',
      'sync: 1 sent, 0 received, 0 deleted, 0 conflicts, 0 skipped',
      'sync: 0 sent, 1 received, 0 deleted, 0 conflicts, 0 skipped',
    ]);
  });

  describe.runIf(process.env.REDIS_URL)('on Redis', () => {
    twoFolders('a Redis store', async () => {
      const namespace = `sync-cli-${randomBytes(4).toString('hex')}`;
      const store = process.env.REDIS_URL!;
      cleanup.push(async () => {
        const dropped = await runCli(['drop', '--store', store, '--namespace', namespace, '--yes']);
        expect(dropped.code).toBe(0);
      });
      return { a: await folder(), b: await folder(), store, extra: ['--namespace', namespace] };
    });
  });
});

function collect(child: ChildProcess): { stdout: string; stderr: string } {
  const output = { stdout: '', stderr: '' };
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    output.stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    output.stderr += chunk;
  });
  return output;
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`not within ${timeoutMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
