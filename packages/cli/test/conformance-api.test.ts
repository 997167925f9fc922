// `memdir conformance --api URL`: the memory stores API kit of @memdir/conformance, run by the CLI
// against a real `memdir serve --http`, with the token from MEMDIR_API_TOKEN, never printed.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './helpers.js';
import { type HttpServerProcess, startHttpServer } from './http-server.js';

const RUN_TIMEOUT = 240_000;

describe('memdir conformance --api', () => {
  let folder: Awaited<ReturnType<typeof tempFolder>>;
  let server: HttpServerProcess;
  let token: string;

  beforeAll(async () => {
    folder = await tempFolder();
    const tokens = join(folder.path, 'tokens.json');
    token = (await runCli(['token', 'add', 'admin', '--stores', '--tokens', tokens])).stdout.trim();
    server = await startHttpServer([
      '--store',
      'memory:',
      '--tokens',
      tokens,
      '--rate',
      '1000',
      '--burst',
      '1000',
    ]);
  }, 60_000);
  afterAll(async () => {
    await server?.stop();
    await folder?.remove();
  });

  it(
    'passes memdir serve --http, with the token from MEMDIR_API_TOKEN, and prints no token',
    async () => {
      const result = await runCli(['conformance', '--api', `${server.origin}/`, '--memdir'], {
        env: { MEMDIR_API_TOKEN: token },
      });
      expect(result.code, result.stdout + result.stderr).toBe(0);
      expect(result.stdout.split('\n')[0]).toBe(
        `memdir conformance: testing the memory stores API at ${server.origin}`,
      );
      const groups = result.stdout.split('\n').filter((line) => /^[✓✗] /.test(line));
      expect(groups.map((line) => /^✓ memory stores API > ([a-z ]+): \d+ passed/.exec(line)?.[1])).toEqual([
        'stores',
        'memories',
        'versions',
        'concurrency',
        'hostile input',
        'tokens',
        'worker',
      ]);
      expect(result.stdout).toContain(`\nAPI: the memory stores API at ${server.origin}\n`);
      expect(result.stdout).toMatch(/\nTests: \d+ passed, 0 failed/);
      expect(result.stdout).toContain("\nResult: PASS, the API conforms to Anthropic's memory stores API.\n");
      expect(result.stdout + result.stderr).not.toContain(token);
      // The kit deleted every store it made.
      const left = await fetch(`${server.origin}/v1/memory_stores?include_archived=true`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(((await left.json()) as { data: unknown[] }).data).toEqual([]);
    },
    RUN_TIMEOUT,
  );

  it(
    'fails, exit 1, with a token the API refuses, and names what failed without the token',
    async () => {
      const wrong = 'memdir_not-a-token-of-this-server';
      const result = await runCli([
        'conformance',
        '--api',
        server.origin,
        '--token',
        wrong,
        '--filter',
        'stores: create',
      ]);
      expect(result.code, result.stdout + result.stderr).toBe(1);
      expect(result.stdout).toContain(
        '\nFAIL  memory stores API > stores > stores: create, retrieve, update, list, archive and delete\n',
      );
      expect(result.stdout).toContain(
        "\nResult: FAIL, the API does not conform to Anthropic's memory stores API.\n",
      );
      expect(result.stdout + result.stderr).not.toContain(wrong);
    },
    RUN_TIMEOUT,
  );

  it('refuses a run it cannot make: no token, credentials in the URL, a module and --api', async () => {
    const noToken = await runCli(['conformance', '--api', server.origin]);
    expect(noToken.code).toBe(2);
    expect(noToken.stderr.split('\n')[0]).toBe(
      'memdir: conformance: --api needs a token that may create and delete memory stores: --token TOKEN, or MEMDIR_API_TOKEN',
    );
    const inUrl = await runCli(['conformance', '--api', 'http://admin:secret@127.0.0.1:1'], {
      env: { MEMDIR_API_TOKEN: 'x' },
    });
    expect(inUrl.code).toBe(2);
    expect(inUrl.stderr).toContain('--api must not hold credentials');
    expect(inUrl.stderr).not.toContain('secret');
    const both = await runCli(['conformance', './store.mjs', '--api', server.origin, '--token', 'x']);
    expect(both.code).toBe(2);
    expect(both.stderr.split('\n')[0]).toBe(
      'memdir: conformance: give a store module or --api URL, not both',
    );
    const notHttp = await runCli(['conformance', '--api', 'ftp://127.0.0.1/', '--token', 'x']);
    expect(notHttp.code).toBe(2);
    expect(notHttp.stderr.split('\n')[0]).toBe(
      'memdir: conformance: --api expects an http or https URL, got "ftp://127.0.0.1/"',
    );
  });
});
