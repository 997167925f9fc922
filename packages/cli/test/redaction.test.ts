// No secret of a store URL reaches stdout or stderr, on any path of the CLI that prints a store:
// each command's result and summary, the progress, `serve`'s log line, every error, `--help`.
// Hostile URLs hold their secrets where users put them (a password with "@" or "/", `?password=`,
// an S3 endpoint's userinfo, unknown parameters, URLs that do not parse), against the real servers:
// a Redis of the test's own that asks for a password, and the shared PostgreSQL and S3.
import { spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createFsStore } from '@memdir/fs';
import { databaseUrl, type PrivateServer, s3Server, startPrivateRedis } from '@memdir/test-support';
import { Redis } from 'ioredis';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { BIN, type CliResult, cliEnv, tempFolder } from './helpers.js';

const REDIS_PASSWORD = 'HUN@TER2tail/x?y';
const run = randomBytes(3).toString('hex');
const schema = `mdt_redact_${run}`;
const s3 = s3Server();
const prefix = `test/redact-${run}`;

let redis: PrivateServer;
let base: string;
let removeBase: () => Promise<void>;
let archive: string;

/** Every secret the URLs below hold, in each form it could be printed in. */
const SECRETS = [
  REDIS_PASSWORD,
  encodeURIComponent(REDIS_PASSWORD),
  'TER2tail',
  'S3cr/et@pg',
  'S3cr%2Fet%40pg',
  'PGQUERYSECRET',
  'AKIDSECRET',
  'S3ENDPOINTSECRET',
  'FAILSECRET1',
  'FAILSECRET2',
  'FAILSECRET3',
  'FAILSECRET4',
  'FAILSECRET5',
  'FAILSECRET6',
  'FAILSECRET7',
  'FAILSECRET8',
  'FAILSECRET9',
  'WRONGSECRET10',
  'FRAGMENTSECRET11',
];

/** URLs of stores that open: each command runs to its end, summaries and log lines included. */
function workingUrls(): Record<string, string> {
  const pgUrl = new URL(databaseUrl());
  const pgBase = `postgres://${pgUrl.username}:S3cr%2Fet%40pg@${pgUrl.host}${pgUrl.pathname}`;
  const endpoint = new URL(s3.clientConfig.endpoint);
  return {
    'redis, a password with "@", "/" and "?" in the userinfo': `redis://:${REDIS_PASSWORD.replace('/', '%2F').replace('?', '%3F')}@127.0.0.1:${redis.port}`,
    'redis, ?password=': `redis://127.0.0.1:${redis.port}/?password=${encodeURIComponent(REDIS_PASSWORD)}`,
    'postgres, a password with "/" and "@"': `${pgBase}?schema=${schema}`,
    'postgres, ?password=': `postgres://${pgUrl.username}@${pgUrl.host}${pgUrl.pathname}?password=PGQUERYSECRET&schema=${schema}`,
    's3, an endpoint with userinfo': `s3://${s3.bucket}/${prefix}?endpoint=${endpoint.protocol}//AKIDSECRET:S3ENDPOINTSECRET@${endpoint.host}&region=${s3.clientConfig.region}&forcePathStyle=true`,
  };
}

/** URLs of stores that do not open, or do not parse: every error path. */
function failingUrls(): Record<string, string> {
  return {
    'redis, nothing listening': 'redis://:FAILSECRET1@127.0.0.1:1',
    'postgres, nothing listening': 'postgres://u:FAIL%2FSECRET2@127.0.0.1:1/db',
    'a "/" in the password, not encoded (does not parse)': 'redis://:pa/FAILSECRET3@127.0.0.1:1',
    'an unknown parameter': 'redis://127.0.0.1:1?keyprefix=x&token=FAILSECRET4',
    'a scheme no adapter serves': 'mystore://u:FAILSECRET5@h?token=FAILSECRET6',
    'no scheme': 'FAILSECRET7@127.0.0.1',
    'a userinfo that looks like a scheme': 'u:FAILSECRET8@127.0.0.1',
    's3, an endpoint that does not answer': `s3://${s3.bucket}?endpoint=http://AK:FAILSECRET9@127.0.0.1:1&region=x`,
    'redis, a wrong password': `redis://:WRONGSECRET10@127.0.0.1:${redis?.port ?? 1}`,
    'a fragment': `redis://127.0.0.1:1#FRAGMENTSECRET11`,
  };
}

function cli(
  args: readonly string[],
  options: { input?: string | Buffer; env?: Record<string, string>; stdoutTo?: string } = {},
): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const { accessKeyId, secretAccessKey } = s3.clientConfig.credentials;
    const child = spawn(process.execPath, [BIN, ...args], {
      cwd: base,
      env: cliEnv({ AWS_ACCESS_KEY_ID: accessKeyId, AWS_SECRET_ACCESS_KEY: secretAccessKey, ...options.env }),
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('latin1').on('data', (chunk: string) => {
      stdout += chunk;
    });
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      stderr += chunk;
    });
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.on('error', () => {});
    child.stdin.end(options.input ?? '');
  });
}

/** Every command that prints a store, run on `url`. */
function commandsOn(
  url: string,
): Array<{ label: string; args: string[]; input?: string | Buffer; env?: Record<string, string> }> {
  return [
    { label: 'create', args: ['create', '/memories/a.md', '--text', 'tea', '--store', url] },
    { label: 'view', args: ['view', '--store', url] },
    { label: 'view of a missing file', args: ['view', '/memories/none.md', '--store', url] },
    { label: 'view through $MEMDIR_STORE', args: ['view'], env: { MEMDIR_STORE: url } },
    { label: 'view, --store=URL', args: ['view', `--store=${url}`] },
    { label: 'view, a bad namespace', args: ['view', '--store', url, '--namespace', '../x'] },
    { label: 'exec', args: ['exec', '--store', url], input: '{"command":"view","path":"/memories"}\n' },
    { label: 'serve', args: ['serve', '--store', url] },
    { label: 'copy into it', args: ['copy', '--from', 'file:./source', '--to', url, '--overwrite'] },
    { label: 'copy out of it', args: ['copy', '--from', url, '--to', 'memory:'] },
    {
      label: 'copy, a file over the limit',
      args: ['copy', '--from', 'file:./source', '--to', url, '--max-file-bytes', '3'],
    },
    { label: 'export', args: ['export', '--store', url] },
    { label: 'import', args: ['import', '--store', url, '--overwrite'], input: archive },
    { label: 'import, refused', args: ['import', '--store', url], input: 'not a tar archive' },
    { label: 'migrate', args: ['migrate', '--store', url] },
    { label: 'help', args: ['--help'], env: { MEMDIR_STORE: url } },
    { label: 'view --help', args: ['view', '--help'], env: { MEMDIR_STORE: url } },
    { label: 'copy --help', args: ['copy', '--help', '--from', url] },
    { label: 'an unknown flag', args: ['view', '--store', url, '--nope'] },
  ];
}

/** Runs `jobs` a few at a time (each is a process of its own). */
async function inTurns<T>(jobs: Array<() => Promise<T>>, atOnce = 3): Promise<T[]> {
  const results: T[] = new Array(jobs.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: atOnce }, async () => {
      while (next < jobs.length) {
        const index = next++;
        results[index] = await jobs[index]!();
      }
    }),
  );
  return results;
}

function expectNoSecret(label: string, result: CliResult): void {
  for (const secret of SECRETS) {
    expect(result.stdout.includes(secret), `${label}: stdout holds ${secret}\n${result.stdout}`).toBe(false);
    expect(result.stderr.includes(secret), `${label}: stderr holds ${secret}\n${result.stderr}`).toBe(false);
  }
}

beforeAll(async () => {
  redis = await startPrivateRedis();
  const admin = new Redis(redis.url);
  await admin.config('SET', 'requirepass', REDIS_PASSWORD);
  admin.disconnect();
  ({ path: base, remove: removeBase } = await tempFolder());
  const source = createFsStore({ root: join(base, 'source') });
  await source.create({ command: 'create', path: '/memories/notes.md', file_text: 'green tea\n' });
  await source.close();
  const exported = await cli(['export', '--store', 'file:./source']);
  expect(exported.code).toBe(0);
  archive = join(base, 'source.tar');
  await writeFile(archive, Buffer.from(exported.stdout, 'latin1'));
}, 60_000);

afterAll(async () => {
  await redis?.close();
  const admin = new pg.Pool({ connectionString: databaseUrl() });
  await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`).catch(() => {});
  await admin.end();
  await removeBase?.();
});

describe('no secret of a store URL is printed', () => {
  it('by any command on stores that open: results, summaries, the serve log line, errors, help', async () => {
    const { readFile } = await import('node:fs/promises');
    const tar = await readFile(archive);
    const jobs = Object.entries(workingUrls()).flatMap(([name, url]) =>
      commandsOn(url).map((command) => async () => {
        const input = command.input === archive ? tar : command.input;
        const result = await cli(command.args, { input, env: command.env });
        return { label: `${name}: ${command.label}`, command: command.label, url, result };
      }),
    );
    const results = await inTurns(jobs);
    for (const { label, result } of results) expectNoSecret(label, result);
    // The paths ran to where they print the store, shown redacted.
    for (const { label, command, result } of results) {
      if (command === 'view' || command === 'create')
        expect(result.code, `${label}\n${result.stderr}`).toBe(0);
      if (command === 'serve') expect(result.stderr, label).toMatch(/^memdir: serving \S*\*\*\*\S* over MCP/);
      if (command === 'copy into it')
        expect(result.stderr, label).toMatch(/memdir: copy file:\.\/source to \S*\*\*\*/);
      if (command === 'copy, a file over the limit') expect(result.code, label).toBe(1);
      if (command === 'export')
        expect(result.stderr, label).toMatch(/memdir: exported \d+ files .* from \S*\*\*\*/);
      if (command === 'import')
        expect(result.stderr, `${label}\n${result.stderr}`).toMatch(/memdir: import into \S*\*\*\*/);
    }
  }, 480_000);

  it('by any command on stores that do not open or do not parse: every error says what is wrong', async () => {
    const { readFile } = await import('node:fs/promises');
    const tar = await readFile(archive);
    // The commands that open the store, and the two that print it without opening it.
    const opening = new Set([
      'view',
      'view through $MEMDIR_STORE',
      'exec',
      'serve',
      'copy into it',
      'copy out of it',
      'export',
      'import',
      'migrate',
      'help',
    ]);
    const jobs = Object.entries(failingUrls()).flatMap(([name, url]) =>
      commandsOn(url)
        .filter((command) => opening.has(command.label))
        .map((command) => async () => {
          const input = command.input === archive ? tar : command.input;
          const result = await cli(command.args, { input, env: command.env });
          return { label: `${name}: ${command.label}`, command: command.label, result };
        }),
    );
    const results = await inTurns(jobs);
    for (const { label, result } of results) expectNoSecret(label, result);
    for (const { label, command, result } of results) {
      if (command === 'view') {
        expect(result.code, label).toBe(2);
        expect(result.stderr, label).toMatch(
          /^memdir: (Cannot open store|Invalid store URL|Unsupported store URL) /,
        );
      }
    }
  }, 480_000);
});
