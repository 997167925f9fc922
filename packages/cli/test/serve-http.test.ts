// `memdir serve --http` in a real process, reached with the MCP SDK's own StreamableHTTPClientTransport
// (and with plain fetch where a test needs the HTTP exchange itself).
import { readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import type { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_MCP_MESSAGE_BYTES } from '../src/serve.js';
import { runCli, tempFolder } from './helpers.js';
import { addToken, type HttpServerProcess, httpClient, startHttpServer, textOf } from './http-server.js';
import { installRecordingAdapter } from './recording-adapter.js';

const LISTING =
  "Here're the files and directories up to 2 levels deep in /memories, excluding hidden items and node_modules:";

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function folder(): Promise<string> {
  const made = await tempFolder();
  cleanups.push(made.remove);
  return made.path;
}

async function server(args: string[], options: { cwd?: string; env?: Record<string, string> } = {}) {
  const started = await startHttpServer(args, options);
  cleanups.push(started.stop);
  return started;
}

async function client(target: HttpServerProcess, token: string, name?: string): Promise<Client> {
  const connected = await httpClient(target, token, name);
  cleanups.push(() => connected.close());
  return connected;
}

const call = (client: Client, args: Record<string, unknown>) =>
  client.callTool({ name: 'memory', arguments: args });

/** A JSON-RPC POST to the MCP endpoint, with what a client sends. */
function post(target: HttpServerProcess, body: string, headers: Record<string, string> = {}) {
  return fetch(target.url, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...headers,
    },
    body,
  });
}

const INITIALIZE = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
});

describe('memdir serve --http: one server, two tokens on the filesystem store', () => {
  let cwd: string;
  let tokens: string;
  let alice: string;
  let bob: string;
  let reader: string;
  let target: HttpServerProcess;

  beforeAll(async () => {
    cwd = await folder();
    tokens = join(cwd, 'tokens.json');
    alice = await addToken(tokens, 'alice', 'alice');
    bob = await addToken(tokens, 'bob', 'bob');
    reader = await addToken(tokens, 'reader', 'alice', true);
    target = await server(['--store', 'file:./data', '--tokens', tokens], { cwd });
  });

  it('runs the six commands and returns the exact texts', async () => {
    const mcp = await client(target, alice);
    const { tools } = await mcp.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(['memory']);
    expect(
      await call(mcp, { command: 'create', path: '/memories/notes.md', file_text: 'Likes tea\nHates rain' }),
    ).toEqual({
      content: [{ type: 'text', text: 'File created successfully at: /memories/notes.md' }],
    });
    expect(textOf(await call(mcp, { command: 'view', path: '/memories/notes.md' }))).toBe(
      "Here's the content of /memories/notes.md with line numbers:\n     1\tLikes tea\n     2\tHates rain",
    );
    expect(
      textOf(
        await call(mcp, {
          command: 'str_replace',
          path: '/memories/notes.md',
          old_str: 'tea',
          new_str: 'coffee',
        }),
      ),
    ).toBe(
      'The memory file has been edited. Here is the snippet showing the change (with line numbers):\n     1\tLikes coffee\n     2\tHates rain',
    );
    expect(
      textOf(
        await call(mcp, {
          command: 'insert',
          path: '/memories/notes.md',
          insert_line: 2,
          insert_text: 'Owns a cat',
        }),
      ),
    ).toBe('The file /memories/notes.md has been edited.');
    expect(textOf(await call(mcp, { command: 'view', path: '/memories' }))).toBe(
      `${LISTING}\n34B\t/memories\n34B\t/memories/notes.md`,
    );
    expect(
      textOf(
        await call(mcp, {
          command: 'rename',
          old_path: '/memories/notes.md',
          new_path: '/memories/kept/notes.md',
        }),
      ),
    ).toBe('Successfully renamed /memories/notes.md to /memories/kept/notes.md');
    expect(textOf(await call(mcp, { command: 'create', path: '/memories/gone.md', file_text: 'x' }))).toBe(
      'File created successfully at: /memories/gone.md',
    );
    expect(textOf(await call(mcp, { command: 'delete', path: '/memories/gone.md' }))).toBe(
      'Successfully deleted /memories/gone.md',
    );
    expect(await call(mcp, { command: 'view', path: '/memories/gone.md' })).toEqual({
      content: [
        {
          type: 'text',
          text: 'Error: The path /memories/gone.md does not exist. Please provide a valid path.',
        },
      ],
      isError: true,
    });
  });

  it('two tokens each see only their own namespace, whatever paths they send', async () => {
    const first = await client(target, alice);
    const second = await client(target, bob);
    await call(first, { command: 'create', path: '/memories/secret.md', file_text: 'alice only' });
    await call(second, { command: 'create', path: '/memories/bob.md', file_text: 'bob only' });
    expect(textOf(await call(second, { command: 'view', path: '/memories' }))).toBe(
      `${LISTING}\n8B\t/memories\n8B\t/memories/bob.md`,
    );
    for (const path of [
      '/memories/secret.md',
      '/memories/../alice/memories/secret.md',
      '/memories/%2e%2e/alice/secret.md',
      '/memories/..\\alice\\secret.md',
      '/alice/memories/secret.md',
    ]) {
      const result = await call(second, { command: 'view', path });
      expect(result.isError, path).toBe(true);
      expect(textOf(result), path).not.toContain('alice only');
    }
    // On disk: each namespace is its own folder; bob's holds only his file.
    expect(
      await readFile(join(cwd, 'data', 'namespaces', 'bob', 'memories', 'bob.md'), 'utf8').catch(
        () => 'missing',
      ),
    ).toBe('bob only');
    await expect(stat(join(cwd, 'data', 'namespaces', 'bob', 'memories', 'secret.md'))).rejects.toThrow();
  });

  it("a session id used with another token's bearer is not found", async () => {
    const first = await client(target, alice);
    const sessionId = (first.transport as { sessionId?: string }).sessionId!;
    expect(sessionId).toMatch(/^[0-9a-f-]{36}$/);
    const list = JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/list', params: {} });
    const headers = { 'mcp-session-id': sessionId, 'mcp-protocol-version': '2025-06-18' };
    const stolen = await post(target, list, { ...headers, authorization: `Bearer ${bob}` });
    expect(stolen.status).toBe(404);
    const own = await post(target, list, { ...headers, authorization: `Bearer ${alice}` });
    expect(own.status).toBe(200);
    // The client ends its session (DELETE): the id is gone.
    await (first.transport as StreamableHTTPClientTransport).terminateSession();
    expect((await post(target, list, { ...headers, authorization: `Bearer ${alice}` })).status).toBe(404);
  });

  it('a read-only token can view and is refused every change with a clear tool error', async () => {
    const writer = await client(target, alice);
    await call(writer, { command: 'create', path: '/memories/shared.md', file_text: 'team fact' });
    const readOnly = await client(target, reader);
    expect(textOf(await call(readOnly, { command: 'view', path: '/memories/shared.md' }))).toBe(
      "Here's the content of /memories/shared.md with line numbers:\n     1\tteam fact",
    );
    for (const change of [
      { command: 'create', path: '/memories/new.md', file_text: 'x' },
      { command: 'str_replace', path: '/memories/shared.md', old_str: 'team', new_str: 'my' },
      { command: 'insert', path: '/memories/shared.md', insert_line: 0, insert_text: 'x' },
      { command: 'delete', path: '/memories/shared.md' },
      { command: 'rename', old_path: '/memories/shared.md', new_path: '/memories/moved.md' },
    ]) {
      expect(await call(readOnly, change), change.command).toEqual({
        content: [
          {
            type: 'text',
            text: `Error: The memory directory is read-only (this token may only read): the ${change.command} command was not run.`,
          },
        ],
        isError: true,
      });
    }
    expect(textOf(await call(writer, { command: 'view', path: '/memories/shared.md' }))).toBe(
      "Here's the content of /memories/shared.md with line numbers:\n     1\tteam fact",
    );
  });

  it('a missing or wrong token gets 401 with the same body; the challenge says invalid_token when a token was wrong', async () => {
    const answers = [];
    for (const authorization of [
      undefined,
      'Bearer memdir_wrong',
      `Bearer ${alice}x`,
      alice,
      `Basic ${alice}`,
    ]) {
      const response = await post(target, INITIALIZE, authorization === undefined ? {} : { authorization });
      answers.push({
        status: response.status,
        body: await response.text(),
        auth: response.headers.get('www-authenticate'),
      });
    }
    const metadata = new URL('/.well-known/oauth-protected-resource', target.url).href;
    const none = `Bearer realm="memdir", resource_metadata="${metadata}"`;
    const wrong = `Bearer realm="memdir", error="invalid_token", error_description="The token is wrong, expired or revoked", resource_metadata="${metadata}"`;
    const body =
      '{"jsonrpc":"2.0","error":{"code":-32001,"message":"Unauthorized: the token is missing, wrong, expired or revoked"},"id":null}';
    // No Bearer token at all (nothing, a bare token, another scheme) is a missing one.
    expect(answers).toEqual([none, wrong, wrong, none, none].map((auth) => ({ status: 401, body, auth })));
    // OAuth discovery answers, naming no authorization server, so a client reports the bad token.
    const discovery = await fetch(metadata);
    expect(discovery.status).toBe(200);
    expect(await discovery.json()).toEqual({
      resource: new URL(target.url).origin,
      authorization_servers: [],
      bearer_methods_supported: ['header'],
    });
    await expect(httpClient(target, 'memdir_wrong')).rejects.toMatchObject({ code: 401 });
  });

  it('a body over the limit: a tool call gets the stdio tool error, and the server serves on', async () => {
    const mcp = await client(target, alice);
    const huge = 'x'.repeat(MAX_MCP_MESSAGE_BYTES + 1024);
    const refused = await call(mcp, { command: 'create', path: '/memories/big.md', file_text: huge });
    expect(refused.isError).toBe(true);
    expect(textOf(refused)).toMatch(
      new RegExp(
        `^Error: The memory tool call was not run: its request is \\d+ bytes, more than the ${MAX_MCP_MESSAGE_BYTES} bytes this server reads in one message\\. Send large content in parts`,
      ),
    );
    expect((await call(mcp, { command: 'view', path: '/memories/big.md' })).isError).toBe(true);
    // An initialize that large is refused with 413; past four times the limit nothing is read.
    const padded = JSON.stringify({ ...JSON.parse(INITIALIZE), padding: huge });
    const response = await post(target, padded, { authorization: `Bearer ${alice}` });
    expect(response.status).toBe(413);
    // The client may see the 413 or only the connection closed under its upload.
    const ceiling = await post(target, 'y'.repeat(MAX_MCP_MESSAGE_BYTES * 4 + 1), {
      authorization: `Bearer ${alice}`,
    }).then(
      (answer) => answer.status,
      () => 'closed',
    );
    expect([413, 'closed']).toContain(ceiling);
    expect((await call(mcp, { command: 'view', path: '/memories' })).isError).toBeUndefined();
  });

  it('GET /healthz answers without a token; GET /mcp is 405 (no server-sent stream)', async () => {
    const health = await fetch(`${target.origin}/healthz`);
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok' });
    const get = await fetch(target.url, {
      headers: { authorization: `Bearer ${alice}`, accept: 'text/event-stream' },
    });
    expect(get.status).toBe(405);
  });

  it('serves the inspector at /ui: a sign-in page, then the namespace with the signed-in cookie', async () => {
    const first = await fetch(`${target.origin}/ui`, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/ui/sign-in');
    const signIn = await fetch(`${target.origin}/ui/sign-in`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded', origin: target.origin },
      body: new URLSearchParams({ token: alice }).toString(),
    });
    expect(signIn.status).toBe(303);
    const cookie = signIn.headers.get('set-cookie') ?? '';
    expect(cookie).toBe(`memdir_ui=${alice}; Path=/ui; HttpOnly; SameSite=Strict`);
    const home = await fetch(`${target.origin}/ui`, { headers: { cookie: cookie.split(';')[0]! } });
    expect(home.status).toBe(200);
    expect(await home.text()).toContain('<a href="/ui/tree?ns=alice&amp;path=%2Fmemories">alice</a>');
  });

  it('the access log has a line per request with token name, command and outcome, and never a token, path or content', async () => {
    const mcp = await client(target, bob, 'log-check');
    await call(mcp, { command: 'create', path: '/memories/private-name.md', file_text: 'private content' });
    await call(mcp, { command: 'view', path: '/memories/absent-name.md' });
    await target.waitFor(/token=bob method=tools\/call command=view outcome=NOT_FOUND status=200/);
    const log = target.stderr();
    expect(log).toMatch(/Z token=bob method=tools\/call command=create outcome=ok status=200 ms=\d+\.\d/);
    expect(log).toMatch(/token=- method=POST command=- outcome=unauthorized status=401/);
    for (const secret of [alice, bob, reader, 'private-name', 'absent-name', 'private content', 'memdir_']) {
      expect(log).not.toContain(secret);
    }
  });
});

describe('memdir serve --http: lifetimes and limits', () => {
  it('an idle session expires: the next request gets 404 and a new session works', async () => {
    const cwd = await folder();
    const tokens = join(cwd, 'tokens.json');
    const alice = await addToken(tokens, 'alice', 'alice');
    const target = await server(['--store', 'memory:', '--tokens', tokens, '--session-idle', '1']);
    const mcp = await client(target, alice);
    await call(mcp, { command: 'create', path: '/memories/a.md', file_text: 'kept' });
    await target.waitFor(/closed a session of alice \(idle\)/, 10_000);
    await expect(call(mcp, { command: 'view', path: '/memories/a.md' })).rejects.toThrow(
      /404|Session not found/,
    );
    const again = await client(target, alice);
    expect(textOf(await call(again, { command: 'view', path: '/memories/a.md' }))).toBe(
      "Here's the content of /memories/a.md with line numbers:\n     1\tkept",
    );
  });

  it('SIGHUP reloads the tokens file: a removed token is refused at once, the others carry on', async () => {
    const cwd = await folder();
    const tokens = join(cwd, 'tokens.json');
    const alice = await addToken(tokens, 'alice', 'team');
    const bob = await addToken(tokens, 'bob', 'team');
    const target = await server(['--store', 'memory:', '--tokens', tokens]);
    const first = await client(target, alice);
    const second = await client(target, bob);
    await call(first, { command: 'create', path: '/memories/a.md', file_text: 'x' });
    expect((await runCli(['token', 'remove', 'alice', '--tokens', tokens])).code).toBe(0);
    const carol = await addToken(tokens, 'carol', 'team');
    target.child.kill('SIGHUP');
    await target.waitFor(/reloaded 2 tokens from .*; closed 1 sessions/);
    await expect(call(first, { command: 'view', path: '/memories/a.md' })).rejects.toMatchObject({
      code: 401,
    });
    await expect(httpClient(target, alice)).rejects.toMatchObject({ code: 401 });
    expect(textOf(await call(second, { command: 'view', path: '/memories/a.md' }))).toContain('     1\tx');
    const third = await client(target, carol);
    expect(textOf(await call(third, { command: 'view', path: '/memories/a.md' }))).toContain('     1\tx');
    expect(target.stderr()).not.toContain(alice);
  });

  it('a token past its rate gets 429 with Retry-After; another token is not held back', async () => {
    const cwd = await folder();
    const tokens = join(cwd, 'tokens.json');
    const alice = await addToken(tokens, 'alice', 'alice');
    const bob = await addToken(tokens, 'bob', 'bob');
    const target = await server(['--store', 'memory:', '--tokens', tokens, '--rate', '0.5', '--burst', '3']);
    const statuses: number[] = [];
    let retryAfter: string | null = null;
    for (let index = 0; index < 5; index++) {
      const response = await post(target, INITIALIZE, { authorization: `Bearer ${alice}` });
      statuses.push(response.status);
      if (response.status === 429) retryAfter = response.headers.get('retry-after');
      await response.body?.cancel();
    }
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1);
    expect((await post(target, INITIALIZE, { authorization: `Bearer ${bob}` })).status).toBe(200);
    await target.waitFor(/token=alice method=POST command=- outcome=rate-limited status=429/);
  });

  it('binding beyond loopback warns that TLS belongs to a reverse proxy', async () => {
    const cwd = await folder();
    const tokens = join(cwd, 'tokens.json');
    await addToken(tokens, 'alice', 'alice');
    const target = await server(['--store', 'memory:', '--tokens', tokens, '--http', '0.0.0.0:0']);
    expect(await target.waitFor(/warning: listening on 0\.0\.0\.0, beyond this machine/)).toContain(
      'put TLS in front (a reverse proxy such as Caddy or nginx; see the README)',
    );
  });

  it('SIGTERM lets a command in flight finish, refuses new work, and exits 0', async () => {
    const cwd = await folder();
    await installRecordingAdapter(cwd);
    const tokens = join(cwd, 'tokens.json');
    const alice = await addToken(tokens, 'alice', 'alice');
    const record = join(cwd, 'calls.jsonl');
    const target = await server(['--store', 'recording://x', '--tokens', tokens], {
      cwd,
      env: { MEMDIR_TEST_DELAY_MS: '2000', MEMDIR_TEST_RECORD: record },
    });
    const mcp = await client(target, alice);
    const slow = call(mcp, { command: 'create', path: '/memories/slow.md', file_text: 'slow' });
    // Once the store has the command, stop the server under it.
    while (!(await readFile(record, 'utf8').catch(() => '')).includes('"create"')) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    target.child.kill('SIGTERM');
    await target.waitFor(/SIGTERM: finishing 1 requests in flight, then stopping/);
    const late = await post(target, INITIALIZE, { authorization: `Bearer ${alice}` }).then(
      (response) => response.status,
      () => 'refused',
    );
    expect([503, 'refused']).toContain(late);
    expect(await slow).toEqual({
      content: [{ type: 'text', text: 'File created successfully at: /memories/slow.md' }],
    });
    expect(await target.exited).toBe(0);
    expect(target.stderr()).toMatch(/memdir: stopped\n$/);
  });
});

describe('memdir serve --http: attribution', () => {
  it("every call carries the token's name as a user actor and the MCP request id as toolUseId", async () => {
    const cwd = await folder();
    await installRecordingAdapter(cwd);
    const tokens = join(cwd, 'tokens.json');
    const alice = await addToken(tokens, 'alice', 'team');
    const bob = await addToken(tokens, 'bob', 'team');
    const record = join(cwd, 'calls.jsonl');
    const target = await server(['--store', 'recording://x', '--tokens', tokens], {
      cwd,
      env: { MEMDIR_TEST_RECORD: record },
    });
    const first = await client(target, alice);
    const second = await client(target, bob);
    await call(first, { command: 'create', path: '/memories/a.md', file_text: 'by alice' });
    await call(second, { command: 'insert', path: '/memories/a.md', insert_line: 1, insert_text: 'by bob' });
    await call(first, { command: 'view', path: '/memories/a.md' });
    const calls = (await readFile(record, 'utf8'))
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { namespace: string | null; command: string; options: unknown })
      .filter((entry) => entry.namespace === 'team');
    // The SDK's client numbers its requests from 0 in each session: initialize 0, then 1, 2...
    expect(calls).toEqual([
      {
        namespace: 'team',
        command: 'create',
        options: { actor: { type: 'user', id: 'alice' }, toolUseId: '1' },
      },
      {
        namespace: 'team',
        command: 'insert',
        options: { actor: { type: 'user', id: 'bob' }, toolUseId: '1' },
      },
      {
        namespace: 'team',
        command: 'view',
        options: { actor: { type: 'user', id: 'alice' }, toolUseId: '2' },
      },
    ]);
  });
});

describe('memdir token', () => {
  it('add prints the token once and stores only its hash, in a file only its owner reads', async () => {
    const cwd = await folder();
    const result = await runCli(['token', 'add', 'alice', '--namespace', 'team', '--read-only'], { cwd });
    expect(result.code).toBe(0);
    const token = result.stdout.trim();
    expect(token).toMatch(/^memdir_[A-Za-z0-9_-]{43}$/);
    expect(result.stdout).toBe(`${token}\n`);
    expect(result.stderr).toContain('memdir: added token alice (namespace team, read-only) to ');
    const file = join(cwd, 'memdir-tokens.json');
    const text = await readFile(file, 'utf8');
    expect(text).not.toContain(token);
    expect(text).not.toContain(token.slice('memdir_'.length, 20));
    const { createHash } = await import('node:crypto');
    const parsed = JSON.parse(text) as { version: number; tokens: Array<Record<string, string>> };
    expect(parsed.version).toBe(1);
    expect(parsed.tokens).toEqual([
      {
        name: 'alice',
        namespace: 'team',
        mode: 'read-only',
        sha256: createHash('sha256').update(token).digest('hex'),
        created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
      },
    ]);
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    const list = await runCli(['token', 'list'], { cwd });
    expect(list.stdout).toMatch(/^NAME +NAMESPACE +MODE +CREATED\nalice +team +read-only +\d{4}-/);
    expect(list.stdout).not.toContain(token);
  });

  it('refuses a duplicate name, a bad name or namespace, and a missing namespace, changing nothing', async () => {
    const cwd = await folder();
    expect((await runCli(['token', 'add', 'alice', '--namespace', 'a'], { cwd })).code).toBe(0);
    const before = await readFile(join(cwd, 'memdir-tokens.json'), 'utf8');
    for (const [args, message] of [
      [['alice', '--namespace', 'b'], 'there is already a token named alice'],
      [['bad name', '--namespace', 'b'], 'Invalid token name'],
      [['carol', '--namespace', '../x'], 'namespace'],
      [['carol'], '--namespace NAME is required'],
    ] as const) {
      const result = await runCli(['token', 'add', ...args], { cwd });
      expect(result.code, args.join(' ')).toBe(2);
      expect(result.stderr, args.join(' ')).toContain(message);
      expect(result.stdout).toBe('');
    }
    expect(await readFile(join(cwd, 'memdir-tokens.json'), 'utf8')).toBe(before);
  });

  it('add --stores makes a token of the memory stores API; namespaces starting with "=" are refused', async () => {
    const cwd = await folder();
    const result = await runCli(['token', 'add', 'ops', '--stores', '--read-only'], { cwd });
    expect(result.code).toBe(0);
    expect(result.stderr).toContain('memdir: added token ops (every memory store, read-only) to ');
    const parsed = JSON.parse(await readFile(join(cwd, 'memdir-tokens.json'), 'utf8')) as {
      tokens: Array<Record<string, unknown>>;
    };
    expect(parsed.tokens).toEqual([
      {
        name: 'ops',
        namespace: '=stores',
        mode: 'read-only',
        sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
        created: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
        stores: true,
      },
    ]);
    expect((await runCli(['token', 'list'], { cwd })).stdout).toMatch(/\nops +\(stores\) +read-only +\d{4}-/);
    const before = await readFile(join(cwd, 'memdir-tokens.json'), 'utf8');
    for (const [args, message] of [
      [['carol', '--stores', '--namespace', 'a'], 'give --namespace NAME or --stores, not both'],
      [['carol', '--namespace', '=memdir-stores'], 'namespaces starting with "=" are memdir\'s own'],
    ] as const) {
      const refused = await runCli(['token', 'add', ...args], { cwd });
      expect(refused.code, args.join(' ')).toBe(2);
      expect(refused.stderr, args.join(' ')).toContain(message);
    }
    expect(await readFile(join(cwd, 'memdir-tokens.json'), 'utf8')).toBe(before);
  });

  it('five token adds at once all land', async () => {
    const cwd = await folder();
    const results = await Promise.all(
      ['a', 'b', 'c', 'd', 'e'].map((name) => runCli(['token', 'add', name, '--namespace', name], { cwd })),
    );
    expect(results.map((result) => result.code)).toEqual([0, 0, 0, 0, 0]);
    const file = JSON.parse(await readFile(join(cwd, 'memdir-tokens.json'), 'utf8')) as {
      tokens: Array<{ name: string }>;
    };
    expect(file.tokens.map((entry) => entry.name).sort()).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('serve --http without a tokens file, or with --namespace, is a usage error', async () => {
    const cwd = await folder();
    const missing = await runCli(['serve', '--http', '127.0.0.1:0', '--store', 'memory:'], { cwd });
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain('memdir: serve: there is no tokens file');
    expect(missing.stderr).toContain('memdir token add NAME --namespace NAMESPACE');
    await runCli(['token', 'add', 'a', '--namespace', 'a'], { cwd });
    const namespaced = await runCli(
      ['serve', '--http', '127.0.0.1:0', '--store', 'memory:', '--namespace', 'x'],
      { cwd },
    );
    expect(namespaced.code).toBe(2);
    expect(namespaced.stderr).toContain('--namespace does not go with --http');
    const stdio = await runCli(['serve', '--store', 'memory:', '--tokens', 'x.json'], { cwd });
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('serve: --tokens goes with --http HOST:PORT');
  });
});
