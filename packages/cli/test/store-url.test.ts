import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { hostname, userInfo } from 'node:os';
import { join } from 'node:path';
import { databaseUrl, redisUrl, s3Server, startImpostor } from '@memdir/test-support';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { redactStoreUrl } from '../src/store-url.js';
import { runCli, tempFolder } from './helpers.js';

let folder: { path: string; remove: () => Promise<void> };

beforeEach(async () => {
  folder = await tempFolder();
});

afterEach(async () => {
  await folder.remove();
});

function memdir(args: readonly string[]) {
  return runCli(args, { cwd: folder.path });
}

describe('store URLs', () => {
  // With the adapter absent the URL names the package to install: lean.test.ts runs that case from
  // an install without the adapters (this workspace's memdir has them as dev dependencies).
  it('a first-party scheme whose adapter is installed opens through it; a server that does not answer is exit 2', async () => {
    expect(await memdir(['view', '--store', 'redis://127.0.0.1:1'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'memdir: Cannot open store redis://127.0.0.1:1: connect ECONNREFUSED 127.0.0.1:1\n',
    });
  });

  it('a port that takes the connection and never answers: the deadline in plain words, and the command ends', async () => {
    const silent = await startImpostor('silent');
    try {
      const redis = `redis://127.0.0.1:${silent.port}`;
      expect(await memdir(['view', '--store', redis])).toEqual({
        code: 2,
        stdout: '',
        stderr: `memdir: Cannot open store ${redis}: Redis did not answer within 5 seconds\n`,
      });
      const s3 = `s3://${s3Server().bucket}/p?endpoint=http://127.0.0.1:${silent.port}&region=us-east-1&forcePathStyle=true`;
      const { code, stdout, stderr } = await memdir(['view', '--store', s3]);
      expect({ code, stdout }).toEqual({ code: 2, stdout: '' });
      // The request's own timeout or the command's deadline, whichever ends it first; never the
      // SDK's "This operation was aborted". (The endpoint is shown as the CLI scrubs it.)
      const shown = s3.replace(/endpoint=[^&]*/, 'endpoint=***/');
      expect([
        `memdir: Cannot open store ${shown}: The memory store is unavailable: the S3 endpoint did not answer in time. Try again.`,
        `memdir: Cannot open store ${shown}: The memory store is unavailable: it did not answer within 5 seconds. Try again.`,
      ]).toContain(stderr.trimEnd().split('\n').at(-1));
    } finally {
      await silent.close();
    }
  }, 60_000);

  it('a URL whose port reaches another kind of server names it, in one sentence, without the password', async () => {
    const http = await startImpostor('http');
    try {
      expect(await memdir(['view', '--store', `redis://memdir:s3cret@127.0.0.1:${http.port}`])).toEqual({
        code: 2,
        stdout: '',
        stderr: `memdir: Cannot open store redis://memdir:***@127.0.0.1:${http.port}: the server found speaks HTTP, not Redis; check the port\n`,
      });
    } finally {
      await http.close();
    }
    const redisPort = new URL(redisUrl()).port;
    expect(await memdir(['view', '--store', `postgres://app:s3cret@127.0.0.1:${redisPort}/app`])).toEqual({
      code: 2,
      stdout: '',
      stderr: `memdir: Cannot open store postgres://app:***@127.0.0.1:${redisPort}/app: the server found speaks Redis, not PostgreSQL; check the port\n`,
    });
  });

  it("a store that refuses the login is named with the server's own words; MEMDIR_DEBUG adds the stacks", async () => {
    const url = new URL(databaseUrl());
    url.username = 'memdir_nobody';
    url.password = 'not-the-password';
    const shown = `${url.protocol}//memdir_nobody:***@${url.host}${url.pathname}`;
    expect(await memdir(['view', '--store', url.href])).toEqual({
      code: 2,
      stdout: '',
      stderr: `memdir: Cannot open store ${shown}: role "memdir_nobody" does not exist\n`,
    });
    const debug = await runCli(['view', '--store', url.href], {
      cwd: folder.path,
      env: { MEMDIR_DEBUG: '1' },
    });
    expect(debug.code).toBe(2);
    const lines = debug.stderr.split('\n');
    expect(lines[0]).toBe(`memdir: Cannot open store ${shown}: role "memdir_nobody" does not exist`);
    expect(lines[1]).toMatch(
      /^MemoryToolError: The memory store is unavailable: PostgreSQL refused the login\./,
    );
    expect(debug.stderr).toMatch(/\ncaused by: error: role "memdir_nobody" does not exist\n {4}at /);
    expect(debug.stderr).not.toContain('not-the-password');
  });

  it('a command the store fails prints the text the model reads, then the cause for the operator', async () => {
    const adapter = join(folder.path, 'node_modules', 'memdir-store-flaky');
    await mkdir(adapter, { recursive: true });
    await writeFile(
      join(adapter, 'package.json'),
      JSON.stringify({ name: 'memdir-store-flaky', type: 'module', exports: { './cli': './cli.js' } }),
    );
    // The probe's view answers; the command itself fails with a cause that names the URL's secret.
    await writeFile(
      join(adapter, 'cli.js'),
      `export function openStore(url) {
        return {
          async execute(input) {
            if (input.path === '/memories/.memdir-cli-probe') {
              const missing = new Error('The path /memories/.memdir-cli-probe does not exist. Please provide a valid path.');
              throw Object.assign(missing, { name: 'MemoryToolError', code: 'NOT_FOUND' });
            }
            const error = new Error('The memory store is unavailable: the storage backend did not answer in time. Try again.', {
              cause: new Error('read timed out after 1000 ms talking to ' + url),
            });
            throw Object.assign(error, { name: 'MemoryToolError', code: 'BACKEND', reason: 'timeout' });
          },
          async close() {},
        };
      }`,
    );
    expect(await memdir(['view', '/memories', '--store', 'flaky://op:hunter2@db:1/x'])).toEqual({
      code: 1,
      stdout: '',
      stderr:
        'Error: The memory store is unavailable: the storage backend did not answer in time. Try again.\n' +
        'memdir: the store failed (timeout): read timed out after 1000 ms talking to flaky://op:***@db:1/x\n',
    });
  });

  it('never prints the password of a URL', async () => {
    const result = await memdir(['view', '--store', 'redis://user:s3cret@localhost:6379/0']);
    expect(result.code).toBe(2);
    expect(result.stderr).not.toContain('s3cret');
    expect(result.stderr).toContain('redis://user:***@localhost:6379/0');
  });

  it.each([
    [
      `${redisUrl()}?keyprefix=ecorev:`,
      'unknown parameter "keyprefix" (did you mean keyPrefix?)',
      'redis:// URLs (@memdir/redis) take the parameters keyPrefix, db, family, username, password.',
    ],
    [
      `${databaseUrl()}?shema=tenant`,
      'unknown parameter "shema" (did you mean schema?)',
      'postgres:// URLs (@memdir/postgres) take the parameters schema, host, port, user, db, database, ssl, sslmode, sslcert, sslkey, sslrootcert, sslnegotiation, uselibpqcompat, application_name, fallback_application_name, options, client_encoding, encoding, binary, replication, statement_timeout, lock_timeout, idle_in_transaction_session_timeout, query_timeout, password.',
    ],
    [
      `s3://${s3Server().bucket}/p?Region=auto`,
      'unknown parameter "Region" (did you mean region?)',
      's3:// URLs (@memdir/s3) take the parameters region, forcePathStyle, endpoint.',
    ],
    [
      `${redisUrl()}?colour=blue`,
      'unknown parameter "colour"',
      'redis:// URLs (@memdir/redis) take the parameters keyPrefix, db, family, username, password.',
    ],
  ])(
    'a store URL with an unknown parameter is refused, naming the known ones and the nearest (%s)',
    async (url, problem, hint) => {
      const result = await memdir(['view', '--store', url]);
      expect(result).toEqual({
        code: 2,
        stdout: '',
        stderr: `memdir: Invalid store URL ${redactStoreUrl(url)}: ${problem}\n${hint}\n`,
      });
    },
  );

  it('a parameter given twice is refused', async () => {
    const result = await memdir(['view', '--store', `${redisUrl()}?keyPrefix=a:&keyPrefix=b:`]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      `memdir: Invalid store URL ${redisUrl()}?keyPrefix=a:&keyPrefix=b:: the parameter "keyPrefix" is given twice\n`,
    );
  });

  it.each([
    ['redis://:HUN@TER2tail@host:6379/0', 'redis://:***@host:6379/0'],
    [
      'redis://user:p%2Fw@host?keyPrefix=app:&password=x&db=2',
      'redis://user:***@host?keyPrefix=app:&password=***&db=2',
    ],
    [
      'postgres://app@db.example/memdir?schema=t1&sslmode=require&password=x',
      'postgres://app@db.example/memdir?schema=t1&sslmode=require&password=***',
    ],
    ['s3://AK:SK@bucket/p', 's3://***@bucket/p'],
    [
      's3://bucket/p?endpoint=http://AK:SK@127.0.0.1:9000/x?y=1&region=auto',
      's3://bucket/p?endpoint=http://***@127.0.0.1:9000/x?***&region=auto',
    ],
    ['s3://bucket?sessionToken=abc&endpoint=nonsense', 's3://bucket?sessionToken=***&endpoint=***'],
    ['mystore://u:pw@host/x?a=1&b=2#frag', 'mystore://u:***@host/x?a=***&b=***#***'],
    ['redis://:pa/ss@host', 'redis://***'],
    ['postgres://u:12/3@host/db', 'postgres://***'],
    ['file:./memory', 'file:./memory'],
    ['file:./a\u001b[31m', 'file:./a\\x1b[31m'],
    ['pw@host', '***'],
    ['./memory', './memory'],
  ])('redactStoreUrl(%s) is %s', (url, shown) => {
    expect(redactStoreUrl(url)).toBe(shown);
  });

  it('an unknown scheme is an error naming the scheme, with no stack trace', async () => {
    const result = await memdir(['view', '--store', 'ftp://example/memory']);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.split('\n')[0]).toBe(
      'memdir: Unsupported store URL ftp://example/memory: no adapter for the scheme ftp:',
    );
    expect(result.stderr).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it.each([
    ['./memory', 'memdir: Invalid store URL "./memory": expected a URL with a scheme\n'],
    [
      'file:',
      'memdir: Invalid store URL file:: name a folder, e.g. file:./memory or file:///var/lib/memory\n',
    ],
    [
      'memory:somewhere',
      'memdir: Invalid store URL memory:somewhere: the in-memory store takes no location, use memory:\n',
    ],
  ])('a bad URL (%s) is a clear error', async (url, firstLine) => {
    const result = await memdir(['view', '--store', url]);
    expect(result.code).toBe(2);
    expect(result.stdout).toBe('');
    expect(result.stderr.slice(0, result.stderr.indexOf('\n') + 1)).toBe(firstLine);
  });

  it('a file: URL with a host is refused', async () => {
    const result = await memdir(['view', '--store', 'file://server/share']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^memdir: Invalid store URL file:\/\/server\/share: /);
  });

  it('an installed adapter package is found from the working directory and given the URL and options', async () => {
    // A third-party adapter, as npm would install it in the user's project: memdir-store-{scheme}
    // with a ./cli export. This one answers every command with what it was opened with.
    const adapter = join(folder.path, 'node_modules', 'memdir-store-echo');
    await mkdir(adapter, { recursive: true });
    await writeFile(
      join(adapter, 'package.json'),
      JSON.stringify({
        name: 'memdir-store-echo',
        type: 'module',
        exports: { './cli': { import: './cli.js' } },
      }),
    );
    await writeFile(
      join(adapter, 'cli.js'),
      `export function openStore(url, options) {
        return {
          async execute(input) { return JSON.stringify({ url, options, input }); },
          async close() {},
        };
      }`,
    );
    const result = await memdir([
      'delete',
      '/memories/x',
      '--store',
      'echo://h/db',
      '--namespace',
      'n1',
      '--no-overwrite',
    ]);
    expect(result).toEqual({
      code: 0,
      stdout: `${JSON.stringify({
        url: 'echo://h/db',
        // The CLI's changes carry who made them: the person at the keyboard, without --actor.
        options: {
          actor: { type: 'user', id: `${userInfo().username}@${hostname()}` },
          namespace: 'n1',
          overwrite: false,
        },
        input: { command: 'delete', path: '/memories/x' },
      })}\n`,
      stderr: '',
    });
  });

  it("memdir migrate calls the adapter's migrate(url, options) and prints its line; a store without one is a usage error", async () => {
    const adapter = join(folder.path, 'node_modules', 'memdir-store-mig');
    await mkdir(adapter, { recursive: true });
    await writeFile(
      join(adapter, 'package.json'),
      JSON.stringify({ name: 'memdir-store-mig', type: 'module', exports: { './cli': './cli.js' } }),
    );
    await writeFile(
      join(adapter, 'cli.js'),
      `export function openStore() { throw new Error('not used'); }
      export async function migrate(url, options) {
        if (url.includes('fail')) throw new Error('the server said no');
        return 'set up ' + url + ' ' + JSON.stringify(options);
      }`,
    );
    expect(await memdir(['migrate', '--store', 'mig://h/db'])).toEqual({
      code: 0,
      stdout: 'set up mig://h/db {}\n',
      stderr: '',
    });
    const failed = await memdir(['migrate', '--store', 'mig://fail']);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toMatch(/^Error: /);
    expect(await memdir(['migrate', '--store', 'memory:'])).toMatchObject({ code: 2 });
    expect((await memdir(['migrate', '--help'])).stdout).toMatch(/^Usage: memdir migrate --store URL\n/);
  });

  it('memdir migrate on a file: or memory: store says it needs no migration (exit 2), and creates nothing', async () => {
    expect(await memdir(['migrate', '--store', 'file:./x'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: migrate: the store file:./x needs no migration: the filesystem store makes its folders as it writes, and takes over a folder an older release wrote at its first use\n',
    });
    expect(await memdir(['migrate', '--store', 'memory:'])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: migrate: the store memory: needs no migration: the in-memory store lives and dies with the process that opens it\n',
    });
    expect(await readdir(folder.path)).toEqual([]);
  });

  it('an adapter whose opener throws is reported as a store that cannot be opened', async () => {
    const adapter = join(folder.path, 'node_modules', 'memdir-store-down');
    await mkdir(adapter, { recursive: true });
    await writeFile(
      join(adapter, 'package.json'),
      JSON.stringify({ name: 'memdir-store-down', type: 'module', exports: { './cli': './cli.js' } }),
    );
    await writeFile(
      join(adapter, 'cli.js'),
      `export async function openStore() { throw new Error('connection refused by 127.0.0.1:1'); }`,
    );
    expect(await memdir(['view', '--store', 'down://127.0.0.1:1'])).toEqual({
      code: 2,
      stdout: '',
      stderr: 'memdir: Cannot open store down://127.0.0.1:1: connection refused by 127.0.0.1:1\n',
    });
  });

  it('a package without an openStore export is reported as such', async () => {
    const adapter = join(folder.path, 'node_modules', 'memdir-store-empty');
    await mkdir(adapter, { recursive: true });
    await writeFile(
      join(adapter, 'package.json'),
      JSON.stringify({ name: 'memdir-store-empty', type: 'module', exports: { './cli': './cli.js' } }),
    );
    await writeFile(join(adapter, 'cli.js'), 'export const nothing = 1;');
    const result = await memdir(['view', '--store', 'empty://x']);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'memdir: The adapter memdir-store-empty/cli does not export an openStore(url, options) function\n',
    );
  });

  it('an adapter whose store fails its first call exits 2 before the command runs, serve too', async () => {
    // Opening succeeds (a lazy client), but the server is down: the store answers BACKEND.
    const adapter = join(folder.path, 'node_modules', 'memdir-store-lazy');
    await mkdir(adapter, { recursive: true });
    await writeFile(
      join(adapter, 'package.json'),
      JSON.stringify({ name: 'memdir-store-lazy', type: 'module', exports: { './cli': './cli.js' } }),
    );
    await writeFile(
      join(adapter, 'cli.js'),
      `import { writeFileSync } from 'node:fs';
      export function openStore() {
        return {
          async execute(input) {
            if (input.path !== '/memories/.memdir-cli-probe') writeFileSync('ran-' + input.command, '');
            const error = new Error('The memory store is unavailable: connection refused. Try again.');
            Object.assign(error, { name: 'MemoryToolError', code: 'BACKEND' });
            throw error;
          },
          async close() {},
        };
      }`,
    );
    const expected = {
      code: 2,
      stdout: '',
      stderr:
        'memdir: Cannot open store lazy://127.0.0.1:1: The memory store is unavailable: connection refused. Try again.\n',
    };
    expect(await memdir(['create', '/memories/a.md', '-t', 'x', '--store', 'lazy://127.0.0.1:1'])).toEqual(
      expected,
    );
    expect(await memdir(['serve', '--store', 'lazy://127.0.0.1:1'])).toEqual(expected);
    expect(
      await runCli(['exec', '--store', 'lazy://127.0.0.1:1'], {
        cwd: folder.path,
        input: '{"command":"view","path":"/memories"}\n',
      }),
    ).toEqual(expected);
    // No command reached the store.
    expect((await readdir(folder.path)).filter((name) => name.startsWith('ran-'))).toEqual([]);
  });
});

describe('file: stores', () => {
  const EMPTY_LISTING =
    "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:\n0B\t/memories\n";

  it('view of a folder that does not exist creates nothing and says the store is empty', async () => {
    expect(await memdir(['view', '-s', 'file:./nonexistent-dir/sub'])).toEqual({
      code: 0,
      stdout: EMPTY_LISTING,
      stderr:
        'memdir: the store file:./nonexistent-dir/sub is empty: there is no folder ./nonexistent-dir/sub (nothing was created; create writes the first file)\n',
    });
    expect(await readdir(folder.path)).toEqual([]);
  });

  it.each([
    [
      ['view', '/memories/a.md'],
      'Error: The path /memories/a.md does not exist. Please provide a valid path.\n',
    ],
    [
      ['str_replace', '/memories/a.md', '--old', 'x'],
      'Error: The path /memories/a.md does not exist. Please provide a valid path.\n',
    ],
    [
      ['insert', '/memories/a.md', '--line', '0', '-t', 'x'],
      'Error: The path /memories/a.md does not exist. Please provide a valid path.\n',
    ],
    [['delete', '/memories/a.md'], 'Error: The path /memories/a.md does not exist\n'],
    [['rename', '/memories/a.md', '/memories/b.md'], 'Error: The path /memories/a.md does not exist\n'],
  ])('%j on a missing store fails as on an empty one and creates nothing', async (args, error) => {
    const result = await memdir([...args, '-s', 'file:./missing']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `memdir: the store file:./missing is empty: there is no folder ./missing (nothing was created; create writes the first file)\n${error}`,
    });
    expect(await readdir(folder.path)).toEqual([]);
  });

  it('view of a folder without memories/ (or without the namespace) creates nothing', async () => {
    await mkdir(join(folder.path, 'store'));
    const plain = await memdir(['view', '-s', 'file:./store']);
    expect(plain.stdout).toBe(EMPTY_LISTING);
    expect(plain.stderr).toBe(
      'memdir: the store file:./store is empty: ./store has no memories folder (nothing was created; create writes the first file)\n',
    );
    const namespaced = await memdir(['view', '-s', 'file:./store', '--namespace', 'u1']);
    expect(namespaced.stderr).toBe(
      'memdir: the store file:./store is empty: ./store has no namespaces folder (nothing was created; create writes the first file)\n',
    );
    expect(await readdir(join(folder.path, 'store'))).toEqual([]);
  });

  it('create makes the folder, and view then shows it without a note', async () => {
    const created = await memdir(['create', '/memories/a.md', '-t', 'hi', '-s', 'file:./new/store']);
    expect(created).toEqual({
      code: 0,
      stdout: 'File created successfully at: /memories/a.md\n',
      stderr: '',
    });
    const viewed = await memdir(['view', '-s', 'file:./new/store']);
    expect(viewed.stderr).toBe('');
    expect(viewed.stdout).toContain('2B\t/memories/a.md');
  });

  it.each([
    ['view', []],
    ['create', ['/memories/a.md', '-t', 'x']],
    ['delete', ['/memories/a.md']],
    ['exec', []],
    ['serve', []],
  ])('%s on a store URL that names a regular file exits 2 before it runs', async (command, args) => {
    await writeFile(join(folder.path, 'afile'), 'x');
    const result = await memdir([command, ...args, '-s', 'file:./afile']);
    expect(result).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: Cannot open store file:./afile: ./afile is a file, not a folder\n' +
        'A file: store is a folder (its files live in {folder}/memories), e.g. file:./memory.\n',
    });
  });

  it('a regular file above the folder, or in place of memories/, exits 2 naming it', async () => {
    await writeFile(join(folder.path, 'afile'), 'x');
    expect((await memdir(['create', '/memories/a', '-t', 'x', '-s', 'file:./afile/sub'])).stderr).toMatch(
      /^memdir: Cannot open store file:\.\/afile\/sub: \.\/afile is a file, not a folder\n/,
    );
    await mkdir(join(folder.path, 'd'));
    await writeFile(join(folder.path, 'd', 'memories'), 'x');
    const result = await memdir(['view', '-s', 'file:./d']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^memdir: Cannot open store file:\.\/d: \.\/d\/memories is a file, not a folder\n/,
    );
  });
});
