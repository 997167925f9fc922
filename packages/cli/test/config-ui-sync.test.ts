// The settings of memdir ui ([ui]) and memdir sync ([sync]): the flag, else MEMDIR_<NAME>, else the
// config file, as for serve; shown by memdir config; used by the commands themselves (a sync run
// by the file alone, the inspector listening where the file says); bad values naming their source.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_FLAGS, UI_FLAGS } from '../src/command-flags.js';
import { settingsOf } from '../src/config.js';
import { readConfigText } from '../src/config-file.js';
import { BIN, cliEnv, runCli, tempFolder } from './helpers.js';

let folder: { path: string; remove: () => Promise<void> };
let count = 0;
/** A fresh folder under the test's folder, with `toml` as its memdir.toml. */
async function project(toml?: string): Promise<string> {
  const path = join(folder.path, `p${count++}`);
  await mkdir(path);
  if (toml !== undefined) await writeFile(join(path, 'memdir.toml'), toml);
  return path;
}

const noXdg = () => join(folder.path, 'no-xdg');

/** `memdir ...args` in `cwd`, with no config file of the user's home in the way. */
function memdir(cwd: string, args: string[], env: Record<string, string> = {}) {
  return runCli(args, { cwd, env: { XDG_CONFIG_HOME: noXdg(), ...env } });
}

async function configJson(cwd: string, args: string[] = [], env: Record<string, string> = {}) {
  const result = await memdir(cwd, ['config', '--json', ...args], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return (
    JSON.parse(result.stdout) as {
      settings: { name: string; value: unknown; from: string; source: string }[];
    }
  ).settings;
}

/** A free loopback port. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

beforeAll(async () => {
  folder = await tempFolder();
});

afterAll(async () => {
  await folder?.remove();
});

const SYNC_TOML =
  'store = "file:./store"\n[sync]\nonce = true\ninterval = 5\ndelete-delay = 0\ndeletions = "log-only"\nread-only = true\n';

describe('[sync] and [ui]: the flag, else MEMDIR_<NAME>, else memdir.toml', () => {
  it('memdir config shows each sync and ui setting and where it came from', async () => {
    const cwd = await project(`${SYNC_TOML}[ui]\nlisten = "127.0.0.1:7000"\n`);
    const file = join(cwd, 'memdir.toml');
    expect(
      await configJson(cwd, ['--interval', '1'], {
        MEMDIR_DELETE_DELAY: '2.5',
        MEMDIR_LISTEN: '127.0.0.1:7001',
      }),
    ).toEqual([
      { name: 'store', value: 'file:./store', from: 'file', source: file },
      { name: 'listen', value: '127.0.0.1:7001', from: 'env', source: '$MEMDIR_LISTEN' },
      { name: 'once', value: true, from: 'file', source: file },
      { name: 'interval', value: '1', from: 'flag', source: '--interval' },
      { name: 'delete-delay', value: '2.5', from: 'env', source: '$MEMDIR_DELETE_DELAY' },
      { name: 'deletions', value: 'log-only', from: 'file', source: file },
      { name: 'read-only', value: true, from: 'file', source: file },
    ]);
    const table = await memdir(cwd, ['config'], { MEMDIR_READ_ONLY: 'false' });
    expect(table.stdout).toBe(
      [
        `config file: ${file}`,
        'SETTING       VALUE           FROM',
        `store         file:./store    ${file}`,
        `listen        127.0.0.1:7000  ${file}`,
        `once          true            ${file}`,
        `interval      5               ${file}`,
        `delete-delay  0               ${file}`,
        `deletions     log-only        ${file}`,
        'read-only     false           $MEMDIR_READ_ONLY',
        '',
      ].join('\n'),
    );
  });

  it('memdir sync runs as the file says: one pass, read-only; the environment wins over the file', async () => {
    const cwd = await project(SYNC_TOML);
    const dir = join(cwd, 'notes');
    await mkdir(dir);
    await writeFile(join(dir, 'local.md'), 'written here\n');
    // once = true: one pass, then exit (without it, sync would watch until a signal);
    // read-only = true: nothing is sent to the store.
    const pulled = await memdir(cwd, ['sync', 'notes']);
    expect(pulled).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(existsSync(join(cwd, 'store', 'memories', 'local.md'))).toBe(false);
    // MEMDIR_READ_ONLY=0 wins over the file: the file is sent.
    const sent = await memdir(cwd, ['sync', 'notes'], { MEMDIR_READ_ONLY: '0' });
    expect(sent).toEqual({
      code: 0,
      stdout: 'sync: 1 sent, 0 received, 0 deleted, 0 conflicts, 0 skipped\n',
      stderr: '',
    });
    expect(existsSync(join(cwd, 'store', 'memories', 'local.md'))).toBe(true);
  });

  it('memdir ui listens where [ui] listen says; $MEMDIR_LISTEN wins over it', async () => {
    const [fromFile, fromEnv] = [await freePort(), await freePort()];
    const cwd = await project(`store = "memory:"\n[ui]\nlisten = "127.0.0.1:${fromFile}"\n`);
    for (const [env, port] of [
      [{}, fromFile],
      [{ MEMDIR_LISTEN: `127.0.0.1:${fromEnv}` }, fromEnv],
    ] as const) {
      const child = spawn(process.execPath, [BIN, 'ui'], {
        cwd,
        env: cliEnv({ XDG_CONFIG_HOME: noXdg(), ...env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      let stderr = '';
      try {
        await new Promise<void>((resolve, reject) => {
          const timer = setTimeout(() => reject(new Error(`no token within 15 s:\n${stderr}`)), 15_000);
          child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
            stderr += chunk;
            if (stderr.includes('one-time token')) {
              clearTimeout(timer);
              resolve();
            }
          });
        });
        expect(stderr).toContain(`memdir: the inspector of memory: is on http://127.0.0.1:${port}/ui\n`);
        expect((await fetch(`http://127.0.0.1:${port}/ui`, { redirect: 'manual' })).status).toBeLessThan(500);
      } finally {
        child.kill('SIGTERM');
      }
      expect(await exited).toBe(0);
    }
  });
});

describe('a bad ui or sync value says where it came from', () => {
  it('a listen address off loopback, from the file', async () => {
    const cwd = await project('store = "memory:"\n[ui]\nlisten = "0.0.0.0:8080"\n');
    expect(await memdir(cwd, ['ui'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: ui: --listen must be on loopback (127.0.0.1, ::1, localhost), got 0.0.0.0\n' +
        `--listen was given by ${join(cwd, 'memdir.toml')} (ui.listen).\n` +
        'For a team, use memdir serve --http with a tokens file: it serves the inspector at /ui.\n',
    });
    expect(await memdir(cwd, ['ui'], { MEMDIR_LISTEN: 'here' })).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: ui: --listen expects HOST:PORT on loopback (e.g. 127.0.0.1:8080, [::1]:8080), got "here"\n' +
        '--listen was given by $MEMDIR_LISTEN.\n',
    });
  });

  it('a deletions mode or an interval the command refuses, from the environment or the file', async () => {
    const cwd = await project('store = "memory:"\n[sync]\ndeletions = "sometimes"\n');
    await mkdir(join(cwd, 'notes'));
    expect(await memdir(cwd, ['sync', 'notes', '--once'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: sync: --deletions expects enabled, log-only, disabled, got "sometimes"\n' +
        `--deletions was given by ${join(cwd, 'memdir.toml')} (sync.deletions).\n`,
    });
    expect(
      await memdir(cwd, ['sync', 'notes', '--once', '--deletions', 'enabled'], { MEMDIR_INTERVAL: '0' }),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: sync: --interval expects seconds, at least 0.1, got "0"\n--interval was given by $MEMDIR_INTERVAL.\n',
    });
    expect(await memdir(cwd, ['sync', 'notes'], { MEMDIR_DELETE_DELAY: 'soon' })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'memdir: MEMDIR_DELETE_DELAY expects a number of seconds, 0 or more, got "soon"\n',
    });
  });

  it('a key in the wrong table, or a table misspelt, with the one meant', async () => {
    const cwd = await project('once = true\n');
    const file = join(cwd, 'memdir.toml');
    expect((await memdir(cwd, ['view'])).stderr).toBe(
      `memdir: config file ${file}: unknown key "once"\nDid you mean "sync.once", in the [sync] table?\n`,
    );
    await writeFile(file, '[sync]\nlisten = "127.0.0.1:1"\n');
    expect((await memdir(cwd, ['view'])).stderr).toBe(
      `memdir: config file ${file}: unknown key "sync.listen"\nDid you mean "ui.listen", in the [ui] table?\n`,
    );
    await writeFile(file, '[synk]\nonce = true\n');
    expect((await memdir(cwd, ['view'])).stderr).toBe(
      `memdir: config file ${file}: unknown key "synk"\nDid you mean the [sync] table?\n`,
    );
    await writeFile(file, 'sync = 5\n');
    expect((await memdir(cwd, ['view'])).stderr).toBe(
      `memdir: config file ${file}: sync must be a table ([sync])\nRun "memdir config --help" for the settings, their types and the file's tables.\n`,
    );
  });
});

describe('readConfigText and settingsOf for [ui] and [sync]', () => {
  it('reads every key of the two tables as its flag would give it; 0 seconds is a delay', () => {
    const read = readConfigText(
      '/x/memdir.toml',
      '[ui]\nlisten = "[::1]:9000"\n[sync]\nonce = false\ninterval = 0.5\ndelete-delay = 0\ndeletions = "disabled"\nread-only = true\n',
    );
    expect(Object.fromEntries([...read.values].map(([setting, value]) => [setting.name, value]))).toEqual({
      listen: '[::1]:9000',
      once: false,
      interval: '0.5',
      'delete-delay': '0',
      deletions: 'disabled',
      'read-only': true,
    });
    expect(() => readConfigText('/x/memdir.toml', '[sync]\ndelete-delay = -1\n')).toThrow(
      'config file /x/memdir.toml: sync.delete-delay expects a number of seconds, 0 or more, got the number -1',
    );
  });

  it('the settings apply to ui and sync only: another --once or --listen is not filled in', () => {
    const names = (options: Record<string, unknown>) =>
      settingsOf(options as Parameters<typeof settingsOf>[0]).map((setting) => setting.name);
    expect(names({ ...UI_FLAGS })).toEqual(['listen']);
    expect(names({ ...SYNC_FLAGS })).toEqual(['once', 'interval', 'delete-delay', 'deletions', 'read-only']);
    expect(names({ once: { type: 'boolean' }, listen: { type: 'string' } })).toEqual([]);
  });
});
