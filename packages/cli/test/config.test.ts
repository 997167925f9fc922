// The settings: a flag, else its MEMDIR_ variable, else the config file (memdir.toml), with the file
// found by its rule, checked key by key, and never quoted where it may hold a secret; `memdir
// config` showing each setting's source; `memdir serve` configured by the file alone; the [ui] and
// [sync] tables, used by memdir ui and memdir sync.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { databaseUrl } from '@memdir/test-support';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SYNC_FLAGS, UI_FLAGS } from '../src/command-flags.js';
import { settingsOf } from '../src/config.js';
import { readConfigText } from '../src/config-file.js';
import { HTTP_FLAGS } from '../src/serve-http-options.js';
import { SETTINGS } from '../src/settings.js';
import { STORE_OPTIONS } from '../src/store-flags.js';
import { BIN, cliEnv, runCli, tempFolder, untilOutput } from './helpers.js';
import { httpClient, startHttpServer, textOf } from './http-server.js';

let folder: { path: string; remove: () => Promise<void> };
/** A fresh folder under the test's folder, as a project would be. */
let count = 0;
async function project(toml?: string): Promise<string> {
  const path = join(folder.path, `p${count++}`);
  await mkdir(path);
  if (toml !== undefined) await writeFile(join(path, 'memdir.toml'), toml);
  return path;
}

/** `memdir ...args` in `cwd`, with no config file of the user's home in the way. */
function memdir(cwd: string, args: string[], env: Record<string, string> = {}) {
  return runCli(args, { cwd, env: { XDG_CONFIG_HOME: join(folder.path, 'no-xdg'), ...env } });
}

async function configJson(cwd: string, args: string[] = [], env: Record<string, string> = {}) {
  const result = await memdir(cwd, ['config', '--json', ...args], env);
  expect(result.stderr).toBe('');
  expect(result.code).toBe(0);
  return JSON.parse(result.stdout) as {
    file: string | null;
    settings: { name: string; value: unknown; from: string; source: string }[];
  };
}

beforeAll(async () => {
  folder = await tempFolder();
});

afterAll(async () => {
  await folder?.remove();
});

describe('precedence: the flag, else MEMDIR_<NAME>, else memdir.toml', () => {
  it('a file limit from the file, overridden by the environment, overridden by the flag', async () => {
    const cwd = await project('store = "memory:"\nmax-file-bytes = 3\n');
    const create = ['create', '/memories/a.md', '--text', 'hello'];
    const fromFile = await memdir(cwd, create);
    expect(fromFile).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: File /memories/a.md would be 5 bytes, over the limit of 3 bytes. Nothing was written.\n',
    });
    const fromEnv = await memdir(cwd, create, { MEMDIR_MAX_FILE_BYTES: '100' });
    expect(fromEnv).toEqual({
      code: 0,
      stdout: 'File created successfully at: /memories/a.md\n',
      stderr: '',
    });
    const fromFlag = await memdir(cwd, [...create, '--max-file-bytes', '4'], {
      MEMDIR_MAX_FILE_BYTES: '100',
    });
    expect(fromFlag.code).toBe(1);
    expect(fromFlag.stderr).toMatch(/over the limit of 4 bytes/);
  });

  it('memdir config shows each value and where it came from', async () => {
    const cwd = await project(
      'namespace = "from-file"\nactor = "service:file"\nverbose = true\n[serve]\nrate = 5\nburst = 9\nallowed-host = ["a.example", "b.example"]\n',
    );
    const shown = await configJson(cwd, ['--burst', '11'], {
      MEMDIR_NAMESPACE: 'from-env',
      MEMDIR_RATE: '7.5',
      MEMDIR_OVERWRITE: 'false',
    });
    expect(shown).toEqual({
      file: join(cwd, 'memdir.toml'),
      settings: [
        { name: 'namespace', value: 'from-env', from: 'env', source: '$MEMDIR_NAMESPACE' },
        { name: 'overwrite', value: false, from: 'env', source: '$MEMDIR_OVERWRITE' },
        { name: 'verbose', value: true, from: 'file', source: join(cwd, 'memdir.toml') },
        { name: 'actor', value: 'service:file', from: 'file', source: join(cwd, 'memdir.toml') },
        { name: 'rate', value: '7.5', from: 'env', source: '$MEMDIR_RATE' },
        { name: 'burst', value: '11', from: 'flag', source: '--burst' },
        {
          name: 'allowed-host',
          value: ['a.example', 'b.example'],
          from: 'file',
          source: join(cwd, 'memdir.toml'),
        },
      ],
    });
    const text = await memdir(cwd, ['config', '--rate', '3']);
    expect(text.code).toBe(0);
    expect(text.stdout).toBe(
      `config file: ${join(cwd, 'memdir.toml')}\n` +
        'SETTING       VALUE                 FROM\n' +
        `namespace     from-file             ${join(cwd, 'memdir.toml')}\n` +
        `verbose       true                  ${join(cwd, 'memdir.toml')}\n` +
        `actor         service:file          ${join(cwd, 'memdir.toml')}\n` +
        'rate          3                     --rate\n' +
        `burst         9                     ${join(cwd, 'memdir.toml')}\n` +
        `allowed-host  a.example, b.example  ${join(cwd, 'memdir.toml')}\n`,
    );
  });

  it('the namespace of the file is the one a command works in; --namespace wins', async () => {
    const cwd = await project('store = "file:./memory"\nnamespace = "team"\n');
    expect((await memdir(cwd, ['create', '/memories/n.md', '--text', 'team note'])).code).toBe(0);
    expect((await memdir(cwd, ['view', '/memories/n.md', '--namespace', 'other'])).code).toBe(1);
    const viewed = await memdir(cwd, ['view', '/memories/n.md'], { MEMDIR_NAMESPACE: '' });
    expect(viewed.stdout).toBe(
      "Here's the content of /memories/n.md with line numbers:\n     1\tteam note\n",
    );
  });

  it('a list from the environment is comma-separated; a boolean is true, false, 1 or 0', async () => {
    const cwd = await project();
    const shown = await configJson(cwd, [], {
      MEMDIR_ALLOWED_ORIGIN: 'https://a.example, https://b.example',
      MEMDIR_VERBOSE: '1',
    });
    expect(shown).toEqual({
      file: null,
      settings: [
        { name: 'verbose', value: true, from: 'env', source: '$MEMDIR_VERBOSE' },
        {
          name: 'allowed-origin',
          value: ['https://a.example', 'https://b.example'],
          from: 'env',
          source: '$MEMDIR_ALLOWED_ORIGIN',
        },
      ],
    });
    expect(await memdir(cwd, ['config'], { MEMDIR_VERBOSE: 'maybe' })).toEqual({
      code: 2,
      stdout: '',
      stderr: 'memdir: MEMDIR_VERBOSE expects true or false, got "maybe"\n',
    });
    expect((await memdir(cwd, ['view'], { MEMDIR_MAX_VIEW_CHARS: '-3' })).stderr).toBe(
      'memdir: MEMDIR_MAX_VIEW_CHARS expects a positive whole number, got "-3"\n',
    );
  });

  it('a setting applies only where the flag is the same: log --actor filters, the store actor does not', () => {
    const names = (options: Record<string, unknown>) =>
      settingsOf(options as Parameters<typeof settingsOf>[0]).map((setting) => setting.name);
    expect(names({ ...STORE_OPTIONS, actor: { type: 'string' } })).not.toContain('actor');
    expect(names({ ...STORE_OPTIONS })).toContain('actor');
    expect(names({ store: STORE_OPTIONS.store, overwrite: STORE_OPTIONS.overwrite })).toEqual(['store']);
    expect(names({ ...STORE_OPTIONS, ...HTTP_FLAGS, ...UI_FLAGS, ...SYNC_FLAGS })).toEqual(
      SETTINGS.map((setting) => setting.name),
    );
  });
});

describe('where the file is found', () => {
  it('--config FILE, else $MEMDIR_CONFIG, else ./memdir.toml, else $XDG_CONFIG_HOME/memdir/config.toml', async () => {
    const cwd = await project('namespace = "here"\n');
    const xdg = join(folder.path, 'xdg');
    await mkdir(join(xdg, 'memdir'), { recursive: true });
    await writeFile(join(xdg, 'memdir', 'config.toml'), 'namespace = "xdg"\n');
    await writeFile(join(cwd, 'named.toml'), 'namespace = "named"\n');
    await writeFile(join(cwd, 'env.toml'), 'namespace = "env"\n');
    const namespace = async (args: string[], env: Record<string, string>, at = cwd) =>
      (await configJson(at, args, { XDG_CONFIG_HOME: xdg, ...env })).settings.find(
        (s) => s.name === 'namespace',
      )?.value;
    expect(await namespace(['--config', 'named.toml'], { MEMDIR_CONFIG: 'env.toml' })).toBe('named');
    expect(await namespace([], { MEMDIR_CONFIG: 'env.toml' })).toBe('env');
    expect(await namespace([], {})).toBe('here');
    expect(await namespace([], {}, await project())).toBe('xdg');
    // --config goes anywhere on the line, like --store.
    const viewed = await memdir(cwd, ['--config', 'named.toml', 'config', '--json']);
    expect(JSON.parse(viewed.stdout).file).toBe(join(cwd, 'named.toml'));
  });

  it('a file named by --config or $MEMDIR_CONFIG must exist', async () => {
    const cwd = await project();
    const hint =
      'Give an existing file, or none: the config file is looked for as --config FILE, else $MEMDIR_CONFIG, else ./memdir.toml, else $XDG_CONFIG_HOME/memdir/config.toml (~/.config/memdir/config.toml).\n';
    expect(await memdir(cwd, ['view', '--config', 'nope.toml'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `memdir: config file ${join(cwd, 'nope.toml')} (from --config) does not exist\n${hint}`,
    });
    expect((await memdir(cwd, ['view'], { MEMDIR_CONFIG: 'gone.toml' })).stderr).toBe(
      `memdir: config file ${join(cwd, 'gone.toml')} (from MEMDIR_CONFIG) does not exist\n${hint}`,
    );
  });
});

describe('a bad file stops every command, naming the file and what is wrong', () => {
  it('an unknown key, with the key meant', async () => {
    const cwd = await project('stor = "memory:"\n');
    const file = join(cwd, 'memdir.toml');
    expect(await memdir(cwd, ['view'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `memdir: config file ${file}: unknown key "stor"\nDid you mean "store"?\n`,
    });
    await writeFile(file, 'rate = 5\n');
    expect((await memdir(cwd, ['view'])).stderr).toBe(
      `memdir: config file ${file}: unknown key "rate"\nDid you mean "serve.rate", in the [serve] table?\n`,
    );
    await writeFile(file, '[serve]\nallowed-hosts = ["a.example"]\n');
    expect((await memdir(cwd, ['serve'])).stderr).toBe(
      `memdir: config file ${file}: unknown key "serve.allowed-hosts"\nDid you mean "serve.allowed-host"?\n`,
    );
    await writeFile(file, '[server]\nrate = 5\n');
    expect((await memdir(cwd, ['view'])).stderr).toBe(
      `memdir: config file ${file}: unknown key "server"\nDid you mean the [serve] table?\n`,
    );
    await writeFile(file, 'colour = "blue"\n');
    expect((await memdir(cwd, ['view'])).stderr).toBe(
      `memdir: config file ${file}: unknown key "colour"\nRun "memdir config --help" for the settings, their types and the file's tables.\n`,
    );
  });

  it('a value of the wrong type', async () => {
    const cwd = await project('[serve]\nrate = "fast"\n');
    const file = join(cwd, 'memdir.toml');
    const help = `Run "memdir config --help" for the settings, their types and the file's tables.\n`;
    expect(await memdir(cwd, ['view'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `memdir: config file ${file}: serve.rate expects a positive number, got a string\n${help}`,
    });
    for (const [text, problem] of [
      ['max-file-bytes = 1.5', 'max-file-bytes expects a positive whole number, got the number 1.5'],
      ['max-file-bytes = 0', 'max-file-bytes expects a positive whole number, got the number 0'],
      ['verbose = "yes"', 'verbose expects true or false, got a string'],
      ['store = 5', 'store expects a non-empty string, got the number 5'],
      ['store = ""', 'store expects a non-empty string, got an empty string'],
      ['serve = 1', 'serve must be a table ([serve])'],
      ['[serve]\nallowed-host = [1]', 'serve.allowed-host expects a string or a list of strings, got a list'],
      ['[serve]\nhttp = 1979-05-27', 'serve.http expects a non-empty string, got a date'],
    ]) {
      await writeFile(file, `${text}\n`);
      expect((await memdir(cwd, ['view'])).stderr).toBe(`memdir: config file ${file}: ${problem}\n${help}`);
    }
  });

  it('malformed TOML: the line and column, never the text', async () => {
    const cwd = await project('store = "memory:"\n\nnamespace = "a" "b"\n');
    const file = join(cwd, 'memdir.toml');
    expect(await memdir(cwd, ['view'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `memdir: config file ${file}: line 3, column 17: not valid TOML: each key-value declaration must be followed by an end-of-line\nSee https://toml.io for the syntax.\n`,
    });
    // An unclosed string holding a password: where it is, not what it holds.
    await writeFile(file, 'store = "redis://:PWSECRET1@localhost:6379\n');
    const result = await memdir(cwd, ['view']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      new RegExp(`^memdir: config file ${file}: line 1, column \\d+: not valid TOML: `),
    );
    expect(result.stderr).not.toContain('PWSECRET1');
  });
});

describe('a secret in the file is never printed', () => {
  it('memdir config and a failing store show the URL without its password', async () => {
    // A PostgreSQL URL whose port nothing listens on: the store fails to open, and says so.
    const url = new URL(databaseUrl());
    url.password = 'PWSECRET2';
    url.port = '1';
    const cwd = await project(`store = "${url.href}"\nverbose = true\n`);
    const shown = await memdir(cwd, ['config']);
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(`store    postgres://${url.username}:***@${url.host}${url.pathname}`);
    const failed = await memdir(cwd, ['view']);
    expect(failed.code).toBe(2);
    expect(failed.stderr).toMatch(/^memdir: /);
    for (const output of [shown.stdout, shown.stderr, failed.stdout, failed.stderr])
      expect(output).not.toContain('PWSECRET2');
  });
});

describe('memdir serve configured by the file alone', () => {
  it('listens where [serve] http says, with the tokens file it names, and answers /healthz', async () => {
    const cwd = await project(
      'store = "file:./memory"\nactor = "service:test"\n[serve]\nhttp = "127.0.0.1:0"\ntokens = "secrets/tokens.json"\nrate = 50\n',
    );
    await mkdir(join(cwd, 'secrets'));
    // memdir token writes the file the config names.
    const added = await memdir(cwd, ['token', 'add', 'alice', '--namespace', 'alice']);
    expect(added.stderr).toContain(`to ${join(cwd, 'secrets', 'tokens.json')}\n`);
    const token = added.stdout.trim();
    const server = await startHttpServer([], { cwd, address: false, env: { XDG_CONFIG_HOME: folder.path } });
    try {
      const health = await fetch(`${server.origin}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({ status: 'ok' });
      const client = await httpClient(server, token);
      const created = await client.callTool({
        name: 'memory',
        arguments: { command: 'create', path: '/memories/a.md', file_text: 'from the file' },
      });
      expect(textOf(created)).toBe('File created successfully at: /memories/a.md');
      await client.close();
    } finally {
      expect(await server.stop()).toBe(0);
    }
    expect(server.stderr()).toMatch(/serving file:\.\/memory over MCP on http:\/\/127\.0\.0\.1:\d+\/mcp/);
  });

  it('without http in the file, memdir serve serves stdio and leaves the [serve] settings to --http', async () => {
    const cwd = await project('store = "memory:"\n[serve]\nrate = 50\n');
    const served = await memdir(cwd, ['serve'], {});
    expect(served).toEqual({
      code: 0,
      stdout: '',
      stderr: 'memdir: serving memory: over MCP on stdio (tool "memory")\n',
    });
  });

  it('a namespace from the environment or the file does not go with --http, and says where it came from', async () => {
    const cwd = await project('store = "memory:"\nnamespace = "team"\n[serve]\nhttp = "127.0.0.1:0"\n');
    expect((await memdir(cwd, ['serve'])).stderr).toBe(
      `memdir: serve: the namespace of ${join(cwd, 'memdir.toml')} does not go with --http: each token has its own namespace\n` +
        `--http was given by ${join(cwd, 'memdir.toml')} (serve.http).\n` +
        'Give a token its namespace with: memdir token add NAME --namespace NAMESPACE\n',
    );
    expect((await memdir(cwd, ['serve'], { MEMDIR_NAMESPACE: 'x' })).stderr).toMatch(
      /^memdir: serve: the namespace of \$MEMDIR_NAMESPACE does not go with --http/,
    );
  });
});

describe('a value the flag check refuses says where it came from', () => {
  it("the file or the variable that gave it, after the flag's own message", async () => {
    const cwd = await project('[serve]\nhttp = "nowhere"\n');
    expect(await memdir(cwd, ['serve'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: serve: --http expects HOST:PORT (e.g. 127.0.0.1:8787, 0.0.0.0:8787, [::1]:8787), got "nowhere"\n' +
        `--http was given by ${join(cwd, 'memdir.toml')} (serve.http).\n`,
    });
    const origin = await memdir(await project(), ['serve', '--http', '127.0.0.1:0'], {
      MEMDIR_ALLOWED_ORIGIN: 'https://a.example/',
    });
    expect(origin.code).toBe(2);
    expect(origin.stderr).toMatch(
      /^memdir: serve: --allowed-origin expects an origin .*\n--allowed-origin was given by \$MEMDIR_ALLOWED_ORIGIN\.\n$/,
    );
  });
});

describe('readConfigText', () => {
  it('reads every setting of its table, as its flag would give it', () => {
    const read = readConfigText(
      '/x/memdir.toml',
      'store = "memory:"\noverwrite = false\n[serve]\nrate = 2.5\nburst = 3\nallowed-origin = "https://a.example"\n',
    );
    expect(Object.fromEntries([...read.values].map(([setting, value]) => [setting.name, value]))).toEqual({
      store: 'memory:',
      overwrite: false,
      rate: '2.5',
      burst: '3',
      'allowed-origin': ['https://a.example'],
    });
  });
});

// The settings of memdir ui ([ui]) and memdir sync ([sync]), as those of serve.

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

const SYNC_TOML =
  'store = "file:./store"\n[sync]\nonce = true\ninterval = 5\ndelete-delay = 0\ndeletions = "log-only"\nread-only = true\n';

describe('[sync] and [ui]: the flag, else MEMDIR_<NAME>, else memdir.toml', () => {
  it('memdir config shows each sync and ui setting and where it came from', async () => {
    const cwd = await project(`${SYNC_TOML}[ui]\nlisten = "127.0.0.1:7000"\n`);
    const file = join(cwd, 'memdir.toml');
    expect(
      (
        await configJson(cwd, ['--interval', '1'], {
          MEMDIR_DELETE_DELAY: '2.5',
          MEMDIR_LISTEN: '127.0.0.1:7001',
        })
      ).settings,
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
        env: cliEnv({ XDG_CONFIG_HOME: join(folder.path, 'no-xdg'), ...env }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
      try {
        const stderr = await untilOutput(child.stderr, 'one-time token');
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
