// `memdir log`, `show`, `diff`, `restore`, `redact` and `view --at` (issue 18) and `memdir
// namespaces`, `usage`, `drop` and `sweep` (issue 19), run in-process with `run(argv, io)` on every
// store this machine has: the in-memory store (one backend shared by the runs of a test, through a
// registered scheme), Redis (a key prefix of its own per test, so listing and sweeping see only this
// test's keys), PostgreSQL (a schema of its own per test) and a folder; the namespace commands also on
// S3 (a key prefix of its own per test). A store whose driver declares history (or admin) runs the whole
// scenario; one that does not must refuse with a usage error naming what is missing.
import { randomBytes } from 'node:crypto';
import { hostname, userInfo } from 'node:os';
import { PassThrough, Readable } from 'node:stream';
import { createInMemoryDriver, createMemoryStore, type MemoryDriver, storeDriver } from '@memdir/core';
import { databaseUrl, redisUrl, s3Server } from '@memdir/test-support';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import type { CliIo } from '../src/io.js';
import { run } from '../src/main.js';
import { openStore, registerStoreScheme } from '../src/store-url.js';
import { tempFolder } from './helpers.js';

const DAY_MS = 86_400_000;
const RUN = randomBytes(4).toString('hex');
const cleanup: Array<() => Promise<void>> = [];
afterAll(async () => {
  for (const step of cleanup.reverse()) await step();
});

interface Result {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `memdir ...args` in this process; `tty` makes stdin and stderr terminals (drop's question). */
async function cli(
  args: string[],
  options: { input?: string; tty?: boolean; ttyOut?: boolean; env?: Record<string, string> } = {},
): Promise<Result> {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const stdin = Readable.from(options.input === undefined ? [] : [options.input]);
  if (options.tty) {
    Object.assign(stdin, { isTTY: true });
    Object.assign(stderr, { isTTY: true });
  }
  if (options.ttyOut) Object.assign(stdout, { isTTY: true });
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => {
    out += chunk.toString('utf8');
  });
  stderr.on('data', (chunk: Buffer) => {
    err += chunk.toString('utf8');
  });
  const io: CliIo = {
    stdin,
    stdout,
    stderr,
    env: { PATH: process.env.PATH, ...options.env },
    cwd: process.cwd(),
  };
  const code = await run(args, io);
  return { code, stdout: out, stderr: err };
}

/** `driver` declaring neither history nor admin, as a driver without them does. */
function withoutHistory(driver: MemoryDriver): MemoryDriver {
  return new Proxy(driver, {
    get(target, key) {
      if (key === 'capabilities') return { atomicRename: true };
      if (key === 'namespace') return (name: string) => withoutHistory(target.namespace(name));
      const value = Reflect.get(target, key, target);
      return typeof value === 'function' ? value.bind(target) : value;
    },
  });
}

const PLAIN = 'a driver without history or admin';

/** A store URL on a fresh, empty backend of each kind. */
const TARGETS: Record<string, () => Promise<string>> = {
  // What every command must refuse with a usage error naming the missing capability.
  [PLAIN]: async () => {
    const scheme = `cliplain${randomBytes(3).toString('hex')}`;
    const driver = withoutHistory(createInMemoryDriver());
    registerStoreScheme(scheme, (_url, options) => createMemoryStore(driver, options));
    return `${scheme}:`;
  },
  // The files look 3 days old: the backend's clock is 3 days behind (expiry judges by this machine's).
  memory: async () => {
    const scheme = `clitest${randomBytes(3).toString('hex')}`;
    const driver: MemoryDriver = createInMemoryDriver({ now: () => Date.now() - 3 * DAY_MS });
    registerStoreScheme(scheme, (_url, options) => createMemoryStore(driver, options));
    return `${scheme}:`;
  },
  redis: async () => {
    const url = `${redisUrl()}?keyPrefix=memdir-cli-test-${RUN}-${randomBytes(3).toString('hex')}`;
    cleanup.push(async () => {
      // Leave nothing on the server: every namespace of this prefix, dropped.
      await cli(['sweep', '--store', url]);
      const listed = await cli(['namespaces', '--store', url]);
      for (const name of listed.stdout.split('\n').filter(Boolean))
        await cli(['drop', '--store', url, '--namespace', name, '--yes']);
    });
    return url;
  },
  // A schema of its own per test, dropped at the end.
  postgres: async () => {
    const schema = `memdir_cli_test_${RUN}_${randomBytes(3).toString('hex')}`;
    const url = new URL(databaseUrl());
    url.searchParams.set('schema', schema);
    cleanup.push(async () => {
      const client = new pg.Client({ connectionString: databaseUrl() });
      await client.connect();
      try {
        await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
      } finally {
        await client.end();
      }
    });
    return url.toString();
  },
  file: async () => {
    const folder = await tempFolder();
    cleanup.push(folder.remove);
    return `file:${folder.path}`;
  },
};

/**
 * The stores of the namespace commands: those above, and S3 (a key prefix of its own per test,
 * every namespace dropped at the end), whose driver has admin but no history yet.
 */
const ADMIN_TARGETS: Record<string, () => Promise<string>> = {
  ...TARGETS,
  s3: async () => {
    const { bucket, clientConfig } = s3Server();
    const endpoint = encodeURIComponent(String(clientConfig.endpoint));
    const url = `s3://${bucket}/memdir-cli-test-${RUN}-${randomBytes(3).toString('hex')}?endpoint=${endpoint}&region=${clientConfig.region}&forcePathStyle=true`;
    cleanup.push(async () => {
      const listed = await cli(['namespaces', '--store', url]);
      for (const name of listed.stdout.split('\n').filter(Boolean))
        await cli(['drop', '--store', url, '--namespace', name, '--yes']);
    });
    return url;
  },
};

/** What the store at `url`'s driver declares. */
async function capabilitiesOf(url: string): Promise<{ history: boolean; admin: boolean }> {
  const store = await openStore(url, {});
  try {
    return {
      history: store.capabilities?.history === true,
      admin: storeDriver(store)?.capabilities.admin === true,
    };
  } finally {
    await store.close();
  }
}

function ok(result: Result): Result {
  expect({ code: result.code, stderr: result.stderr }).toEqual({ code: 0, stderr: '' });
  return result;
}

describe.each(Object.keys(TARGETS))('history commands on %s', (target) => {
  it('log, show, diff, view --at, restore and redact', async () => {
    const url = await TARGETS[target]!();
    const s = ['--store', url, '--namespace', 'alice'];
    ok(await cli(['create', '/memories/notes.md', '--text', 'one\ntwo\nfour\n', ...s]));
    ok(await cli(['str_replace', '/memories/notes.md', '--old', 'two', '--new', 'three', ...s]));
    ok(await cli(['rename', '/memories/notes.md', '/memories/final.md', ...s]));

    const { history } = await capabilitiesOf(url);
    // Every store of this machine keeps a history; the hand-made driver is the one without.
    expect(history).toBe(target !== PLAIN);
    if (!history) {
      for (const args of [['log'], ['show', 'memver_1'], ['view', '/memories', '--at', '2026-01-01']]) {
        const refused = await cli([...args, ...s]);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(
          'keeps no history (its driver does not declare capabilities.history)',
        );
      }
      return;
    }

    const json = ok(await cli(['log', '--json', ...s]));
    const versions = json.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(versions.map((version) => version.operation)).toEqual(['renamed', 'modified', 'created']);
    const [renamed, modified, created] = versions;
    expect(renamed).toMatchObject({ path: '/memories/final.md', previousPath: '/memories/notes.md' });

    // The table: a header, one row a version, every column starting at the same place.
    const table = ok(await cli(['log', ...s]))
      .stdout.split('\n')
      .filter(Boolean);
    expect(table).toHaveLength(4);
    expect(table[0]).toMatch(/^VERSION +TIME +OPERATION +ACTOR +BYTES +PATH$/);
    for (const column of ['TIME', 'OPERATION', 'ACTOR', 'PATH']) {
      const at = table[0]!.indexOf(column);
      for (const row of table.slice(1)) expect(row[at - 1]).toBe(' ');
    }
    expect(table[1]).toContain(`${renamed.id}  ${renamed.createdAt}  renamed`);
    expect(table[1]!.endsWith('/memories/notes.md -> /memories/final.md')).toBe(true);
    // Made through the CLI without --actor: by the user running it.
    const user = `user:${userInfo().username}@${hostname()}`.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    expect(table[3]).toMatch(new RegExp(`^${created.id} .* created +${user} +13  /memories/notes.md$`));

    // Filters: a path, an actor, a time.
    expect(ok(await cli(['log', '/memories/final.md', '--json', ...s])).stdout.split('\n')).toHaveLength(2);
    const none = await cli(['log', '--actor', 'nobody', ...s]);
    expect(none).toEqual({ code: 0, stdout: '', stderr: 'memdir: log: no versions\n' });
    expect(ok(await cli(['log', '--since', '2999-01-01', '--json', ...s])).stdout).toBe('');
    expect(
      ok(await cli(['log', '--limit', '2', '--json', ...s]))
        .stdout.trim()
        .split('\n'),
    ).toHaveLength(2);

    const shown = ok(await cli(['show', created.id, ...s])).stdout;
    expect(shown).toContain(`version:       ${created.id}\n`);
    expect(shown).toContain('operation:     created\n');
    expect(shown).toContain('path:          /memories/notes.md\n');
    expect(shown.endsWith('\n\none\ntwo\nfour\n')).toBe(true);
    expect(JSON.parse(ok(await cli(['show', modified.id, '--json', ...s])).stdout)).toMatchObject({
      id: modified.id,
      content: 'one\nthree\nfour\n',
    });

    const change = [
      `--- /memories/notes.md\t${created.id}`,
      `+++ /memories/notes.md\t${modified.id}`,
      '@@ -1,3 +1,3 @@',
      ' one',
      '-two',
      '+three',
      ' four',
      '',
    ].join('\n');
    expect(ok(await cli(['diff', modified.id, ...s])).stdout).toBe(change);
    expect(ok(await cli(['diff', created.id, modified.id, ...s])).stdout).toBe(change);
    expect(ok(await cli(['diff', created.id, ...s])).stdout).toBe(
      `--- /dev/null\n+++ /memories/notes.md\t${created.id}\n@@ -0,0 +1,3 @@\n+one\n+two\n+four\n`,
    );
    expect(ok(await cli(['diff', renamed.id, ...s])).stdout).toBe('');

    // The past, read-only, rendered as view renders the present.
    const then = ok(await cli(['view', '/memories/notes.md', '--at', created.id, ...s])).stdout;
    expect(then).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     1\tone\n     2\ttwo\n     3\tfour\n     4\t\n",
    );
    const past = await cli(['view', '/memories', '--at', new Date(Date.now() + DAY_MS).toISOString(), ...s]);
    expect(past.code).toBe(0);
    expect(past.stdout).toContain('/memories/final.md');
    const gone = await cli(['view', '/memories/final.md', '--at', created.id, ...s]);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toMatch(/^Error: The path \/memories\/final.md does not exist/);

    const restored = ok(await cli(['restore', created.id, '--to', '/memories/back.md', ...s])).stdout;
    expect(restored).toMatch(new RegExp(`^Restored ${created.id} to /memories/back.md as memver_\\w+\n$`));
    expect(ok(await cli(['view', '/memories/back.md', ...s])).stdout).toContain('     2\ttwo\n');

    // On a terminal: asked first, and a wrong answer erases nothing.
    const declined = await cli(['redact', modified.id, ...s], { tty: true, input: 'yes\n' });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain(
      `This erases the content, path, size and hash of ${modified.id} for good`,
    );
    expect(declined.stderr).toContain('memdir: redact: not confirmed; nothing was erased');
    expect(ok(await cli(['show', modified.id, '--json', ...s])).stdout).toContain('"redactedAt":null');
    const typed = await cli(['redact', modified.id, ...s], { tty: true, input: `${modified.id}\n` });
    expect(typed.code).toBe(0);
    expect(typed.stdout).toMatch(/^Redacted /);
    expect(ok(await cli(['redact', modified.id, ...s])).stdout).toMatch(
      new RegExp(`^Redacted ${modified.id}: its content, path, size and hash are gone for good`),
    );
    const redacted = ok(await cli(['show', modified.id, ...s])).stdout;
    expect(redacted).toContain('redacted at:');
    expect(redacted).not.toContain('three');
    expect(ok(await cli(['log', ...s])).stdout).toContain('(redacted)');

    // The store's refusals: exit 1 with the error text; bad flags: exit 2, nothing changed.
    const unknown = await cli(['show', 'memver_9999999999999999', ...s]);
    expect(unknown.code).toBe(1);
    expect(unknown.stderr).toContain('Error: Version memver_9999999999999999 does not exist');
    const badTime = await cli(['log', '--since', 'yesterday-ish', ...s]);
    expect(badTime.code).toBe(2);
    expect(badTime.stderr).toContain('log: --since expects an ISO 8601 time');
    // A time ago reads as one: every version of this test is younger than 1,000 weeks.
    const all = ok(await cli(['log', '--json', ...s])).stdout;
    expect(all).toContain(created.id);
    expect(ok(await cli(['log', '--since', '1000w', '--json', ...s])).stdout).toBe(all);
    expect(ok(await cli(['log', '--until', '1000w', '--json', ...s])).stdout).toBe('');
    const badAt = await cli(['view', '/memories', '--at', 'last tuesday', ...s]);
    expect(badAt.code).toBe(2);
    expect(badAt.stderr).toContain(
      'view: --at expects an ISO 8601 time (2026-12-01, 2026-12-01T09:30:00Z), a time ago (30m, 2h, 7d), today or yesterday or a version id (memver_...), got "last tuesday"',
    );
    expect((await cli(['diff', ...s])).code).toBe(2);
    expect((await cli(['restore', created.id, 'extra', ...s])).code).toBe(2);
  }, 30_000);
});

describe.each(Object.keys(ADMIN_TARGETS))('namespace commands on %s', (target) => {
  it('namespaces, usage, drop and sweep', async () => {
    const url = await ADMIN_TARGETS[target]!();
    const put = (namespace: string, path: string, text: string) =>
      cli(['create', path, '--text', text, '--store', url, '--namespace', namespace]).then(ok);
    await put('t-a', '/memories/a.md', 'alpha');
    await put('t-ab', '/memories/ab.md', 'alpha beta');
    await put('t-ab', '/memories/deep/ab2.md', 'more');
    await put('t-b', '/memories/b.md', 'beta');

    const { admin } = await capabilitiesOf(url);
    expect(admin).toBe(target !== PLAIN);
    if (!admin) {
      for (const args of [
        ['namespaces'],
        ['usage', '--all'],
        ['drop', '--namespace', 't-a', '--yes'],
        ['sweep'],
      ]) {
        const refused = await cli([...args, '--store', url]);
        expect(refused.code).toBe(2);
        expect(refused.stderr).toContain(
          'has no admin operations (its driver does not declare capabilities.admin)',
        );
      }
      return;
    }
    const s = ['--store', url];
    expect(ok(await cli(['namespaces', ...s])).stdout).toBe('t-a\nt-ab\nt-b\n');
    expect(ok(await cli(['namespaces', '--prefix', 't-a', ...s])).stdout).toBe('t-a\nt-ab\n');
    expect(JSON.parse(ok(await cli(['namespaces', '--prefix', 't-b', '--json', ...s])).stdout)).toEqual([
      't-b',
    ]);

    const one = ok(await cli(['usage', '--namespace', 't-ab', ...s])).stdout.split('\n');
    expect(one[0]).toBe('NAMESPACE  FILES  BYTES  VERSIONS  LAST CHANGE');
    expect(one[1]).toMatch(/^t-ab +2 +14 +\d+ +\d{4}-\d\d-\d\dT[\d:.]+Z$/);
    const usage = JSON.parse(ok(await cli(['usage', '--namespace', 't-ab', '--json', ...s])).stdout);
    expect(usage).toMatchObject({ namespace: 't-ab', files: 2, bytes: 14 });
    // Without a namespace: the default space, empty here.
    expect(JSON.parse(ok(await cli(['usage', '--json', ...s])).stdout)).toEqual({
      namespace: null,
      files: 0,
      bytes: 0,
      versions: 0,
      lastChangeAt: null,
    });
    const all = ok(await cli(['usage', '--all', ...s]))
      .stdout.split('\n')
      .filter(Boolean);
    expect(all.map((row) => row.split(/ +/)[0])).toEqual(['NAMESPACE', 't-a', 't-ab', 't-b']);
    expect(all[2]!.indexOf('14') + 2).toBe(all[0]!.indexOf('BYTES') + 5);

    // Without a terminal and without --yes: refused, nothing erased.
    const unconfirmed = await cli(['drop', '--namespace', 't-a', ...s]);
    expect(unconfirmed.code).toBe(2);
    expect(unconfirmed.stderr).toContain(
      'drop: erasing namespace t-a cannot be undone: give --yes to confirm',
    );
    // On a terminal: asked, and a wrong answer erases nothing.
    const declined = await cli(['drop', '--namespace', 't-a', ...s], { tty: true, input: 'yes\n' });
    expect(declined.code).toBe(1);
    expect(declined.stderr).toContain('This erases namespace t-a of ');
    expect(declined.stderr).toContain('1 file, 5 bytes');
    expect(declined.stderr).toContain('memdir: drop: not confirmed; nothing was erased');
    expect(ok(await cli(['namespaces', ...s])).stdout).toBe('t-a\nt-ab\nt-b\n');

    const dropped = await cli(['drop', '--namespace', 't-a', '--yes', ...s]);
    expect(dropped.code).toBe(0);
    expect(dropped.stdout).toMatch(
      /^Dropped namespace t-a: \d+ items? removed in [\d.]+s; nothing is left\n$/,
    );
    expect(dropped.stderr).toMatch(/^memdir: drop t-a: \d+ items? removed in 1 batch\n/);
    // The neighbour whose name starts with the dropped one's is whole.
    expect(ok(await cli(['namespaces', ...s])).stdout).toBe('t-ab\nt-b\n');
    expect(ok(await cli(['view', '/memories/ab.md', ...s, '--namespace', 't-ab'])).stdout).toContain(
      'alpha beta',
    );

    const confirmedDrop = await cli(['drop', '--namespace', 't-b', ...s], { tty: true, input: 't-b\n' });
    expect(confirmedDrop.code).toBe(0);
    expect(ok(await cli(['namespaces', ...s])).stdout).toBe('t-ab\n');

    // Nothing is 5 days old; on the in-memory store (whose clock is 3 days behind) everything is 1 day old.
    // Progress on stderr (the last state at least), the report on stdout.
    const kept = await cli(['sweep', '--expire-days', '5', ...s]);
    expect(kept).toEqual({
      code: 0,
      stdout: 'Swept 2 namespaces: 0 files expired, 0 versions pruned\n',
      stderr: expect.stringMatching(/^memdir: sweep: 1 namespace, 0 files expired, 0 versions pruned\n/),
    });
    const swept = await cli(['sweep', '--expire-days', '1', '--json', ...s]);
    expect(swept.code).toBe(0);
    const expired = target === 'memory' ? 2 : 0;
    expect(JSON.parse(swept.stdout)).toEqual({ namespaces: 2, expired, pruned: 0 });
    const left = ok(await cli(['usage', '--namespace', 't-ab', '--json', ...s])).stdout;
    expect(JSON.parse(left)).toMatchObject({ files: 2 - expired });

    const bad = await cli(['drop', ...s]);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('drop: name the namespace to erase with --namespace NAME');
    expect((await cli(['usage', '--all', '--namespace', 't-ab', ...s])).code).toBe(2);
    expect((await cli(['sweep', '--expire-days', 'soon', ...s])).code).toBe(2);
  }, 30_000);
});

describe('the actor of changes made through the CLI', () => {
  const actorColumn = (log: string) =>
    log
      .trim()
      .split('\n')
      .slice(1)
      .map((line) => line.split(/\s+/)[3]);

  it('is user:<login>@<host> by default, --actor ID (or TYPE:ID) when given, and log shows it', async () => {
    const url = await TARGETS.file!();
    ok(await cli(['create', '/memories/a.md', '--text', 'one', '--store', url]));
    ok(
      await cli([
        'str_replace',
        '/memories/a.md',
        '--old',
        'one',
        '--new',
        'two',
        '--store',
        url,
        '--actor',
        'alice',
      ]),
    );
    ok(
      await cli(['--actor', 'service:nightly', 'rename', '/memories/a.md', '/memories/b.md', '--store', url]),
    );
    const first = JSON.parse(
      ok(await cli(['log', '--store', url, '--json']))
        .stdout.trim()
        .split('\n')
        .at(-1)!,
    );
    ok(await cli(['restore', first.id, '--to', '/memories/c.md', '--store', url, '--actor', 'api:ops']));
    expect(actorColumn(ok(await cli(['log', '--store', url])).stdout)).toEqual([
      'api:ops',
      'service:nightly',
      'user:alice',
      `user:${userInfo().username}@${hostname()}`,
    ]);
    expect(ok(await cli(['log', '--store', url, '--actor', 'alice'])).stdout).toContain('user:alice');
  });

  it('an --actor id with a control character is a usage error, and changes nothing', async () => {
    const url = await TARGETS.file!();
    expect(
      await cli(['create', '/memories/a.md', '--text', 'x', '--store', url, '--actor', 'a\u001bb']),
    ).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: --actor expects an id of 1 to 256 characters without control characters, optionally after session:, user:, api: or service:\n',
    });
    expect((await cli(['log', '--store', url])).stdout).toBe('');
  });

  it('copy and import record the actor on the versions they write into the target', async () => {
    const from = await TARGETS.file!();
    const to = await TARGETS.file!();
    ok(await cli(['create', '/memories/a.md', '--text', 'x', '--store', from]));
    const copied = await cli(['copy', '--from', from, '--to', to, '--actor', 'service:copier']);
    expect(copied.code).toBe(0);
    expect(actorColumn(ok(await cli(['log', '--store', to])).stdout)).toEqual(['service:copier']);
  });
});

describe('version ids by prefix', () => {
  it('a prefix naming one version works in show, diff, restore, redact and view --at', async () => {
    const url = await TARGETS.file!();
    for (let n = 1; n <= 10; n++)
      ok(await cli(['create', '/memories/n.md', '--text', `v${n}`, '--store', url]));
    // memver_0000000000000010 is the only version that starts with memver_000000000000001.
    const prefix = 'memver_000000000000001';
    expect(ok(await cli(['show', prefix, '--store', url])).stdout).toContain(
      'version:       memver_0000000000000010\n',
    );
    expect(ok(await cli(['diff', 'memver_0000000000000009', prefix, '--store', url])).stdout).toBe(
      '--- /memories/n.md\tmemver_0000000000000009\n+++ /memories/n.md\tmemver_0000000000000010\n@@ -1 +1 @@\n-v9\n\\ No newline at end of file\n+v10\n\\ No newline at end of file\n',
    );
    expect(ok(await cli(['view', '/memories/n.md', '--at', prefix, '--store', url])).stdout).toContain(
      '\tv10',
    );
    expect(ok(await cli(['restore', prefix, '--to', '/memories/r.md', '--store', url])).stdout).toMatch(
      /^Restored memver_0000000000000010 to \/memories\/r.md as memver_0000000000000011\n$/,
    );
    // The restore made memver_0000000000000011: the same prefix now names two versions.
    expect((await cli(['redact', prefix, '--yes', '--store', url])).code).toBe(2);
    const other = await TARGETS.file!();
    for (let n = 1; n <= 10; n++)
      ok(await cli(['create', '/memories/n.md', '--text', `v${n}`, '--store', other]));
    expect(ok(await cli(['redact', prefix, '--yes', '--store', other])).stdout).toMatch(
      /^Redacted memver_0000000000000010: /,
    );
  });

  it('a prefix naming several versions is a usage error listing a few; one naming none says so', async () => {
    const url = await TARGETS.file!();
    for (let n = 1; n <= 7; n++)
      ok(await cli(['create', '/memories/n.md', '--text', `v${n}`, '--store', url]));
    expect(await cli(['show', 'memver_00000000000000', '--store', url])).toEqual({
      code: 2,
      stdout: '',
      stderr:
        'memdir: show: the version id "memver_00000000000000" is ambiguous: more than 5 versions start with it (memver_0000000000000007, memver_0000000000000006, memver_0000000000000005, memver_0000000000000004, memver_0000000000000003, ...)\nType more of the id, or all of it (memdir log lists them).\n',
    });
    expect(await cli(['restore', 'memver_00000000000000099', '--store', url])).toEqual({
      code: 1,
      stdout: '',
      stderr: 'Error: Version memver_00000000000000099 does not exist in this store (or was pruned).\n',
    });
  });
});

describe('history commands on a terminal', () => {
  it('colour the diff and escape the content a model wrote', async () => {
    const url = await TARGETS.memory!();
    const s = ['--store', url];
    ok(await cli(['create', '/memories/x.md', '--text', 'a\u001b[2Jb\nkeep\n', ...s]));
    ok(await cli(['str_replace', '/memories/x.md', '--old', 'keep', '--new', 'kept', ...s]));
    const [modified] = ok(await cli(['log', '--json', ...s]))
      .stdout.split('\n')
      .map((line) => line && JSON.parse(line));
    const coloured = ok(await cli(['diff', modified.id, ...s], { ttyOut: true })).stdout;
    expect(coloured).toContain('\u001b[1m--- /memories/x.md\t');
    expect(coloured).toContain(' a\\x1b[2Jb\n\u001b[31m-keep\u001b[39m\n\u001b[32m+kept\u001b[39m\n');
    const plain = ok(await cli(['diff', modified.id, ...s], { ttyOut: true, env: { NO_COLOR: '1' } })).stdout;
    expect(plain).toContain(' a\\x1b[2Jb\n-keep\n+kept\n');
    expect(plain).not.toContain('\u001b');
    // Piped: the bytes as stored, no colour.
    expect(ok(await cli(['diff', modified.id, ...s])).stdout).toContain(' a\u001b[2Jb\n-keep\n+kept\n');
    // Piped with $FORCE_COLOR: colours all the same (the bytes as stored); FORCE_COLOR=0 is none,
    // even on a terminal; $NO_COLOR wins over FORCE_COLOR.
    const forced = ok(await cli(['diff', modified.id, ...s], { env: { FORCE_COLOR: '1' } })).stdout;
    expect(forced).toContain(' a\u001b[2Jb\n\u001b[31m-keep\u001b[39m\n\u001b[32m+kept\u001b[39m\n');
    const unforced = ok(await cli(['diff', modified.id, ...s], { ttyOut: true, env: { FORCE_COLOR: '0' } }));
    expect(unforced.stdout).toContain(' a\\x1b[2Jb\n-keep\n+kept\n');
    expect(unforced.stdout).not.toContain('\u001b');
    const both = ok(await cli(['diff', modified.id, ...s], { env: { FORCE_COLOR: '1', NO_COLOR: '1' } }));
    expect(both.stdout).not.toContain('\u001b[31m');
    const shown = ok(await cli(['show', modified.id, ...s], { ttyOut: true })).stdout;
    expect(shown).not.toContain('\u001b');
    expect(shown.endsWith('\n\na\\x1b[2Jb\nkept\n')).toBe(true);
  });
});

describe('help of the history and namespace commands', () => {
  it('each command has its help, and memdir --help lists them', async () => {
    const main = ok(await cli(['--help'])).stdout;
    for (const command of [
      'log',
      'show',
      'diff',
      'restore',
      'redact',
      'namespaces',
      'usage',
      'drop',
      'sweep',
    ]) {
      const help = ok(await cli([command, '--help'])).stdout;
      expect(help).toMatch(new RegExp(`^Usage: memdir ${command} `));
      expect(help).toContain('--store URL');
      expect(ok(await cli(['help', command])).stdout).toBe(help);
      expect(main).toContain(`  ${command} `);
    }
    expect(ok(await cli(['view', '--help'])).stdout).toContain('--at TIME|VERSION');
  });
});

describe('store URLs in the history and namespace commands', () => {
  it('never prints the password of a store URL', async () => {
    for (const args of [['log'], ['usage', '--all'], ['drop', '--namespace', 'x', '--yes']]) {
      const result = await cli([...args, '--store', 'redis://memdir:s3cr3t-pw@127.0.0.1:1']);
      expect(result.code).toBe(2);
      expect(result.stderr).not.toContain('s3cr3t-pw');
    }
  }, 30_000);
});
