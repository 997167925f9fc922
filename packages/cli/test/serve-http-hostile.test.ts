// `memdir serve --http` against a hostile token holder (../shared/research wave 4, findings 2 and 4):
// a huge JSON array is refused after one scan, quickly and with a short log line, and a batch of
// tool calls pays the rate per call; a foreign Host or Origin is refused unless allowed with
// --allowed-host and --allowed-origin; --quota-bytes and --quota-files keep one token from filling
// the store.
import { chmod } from 'node:fs/promises';
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli, tempFolder } from './helpers.js';
import { addToken, type HttpServerProcess, httpClient, startHttpServer } from './http-server.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const INITIALIZE = {
  jsonrpc: '2.0',
  id: 0,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
};

function post(target: HttpServerProcess, token: string, body: string, session?: string) {
  return fetch(target.url, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${token}`,
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      ...(session ? { 'mcp-session-id': session, 'mcp-protocol-version': '2025-06-18' } : {}),
    },
    body,
  });
}

describe('memdir serve --http: hostile bodies', () => {
  let target: HttpServerProcess;
  let reader: string;
  let writer: string;

  beforeAll(async () => {
    const cwd = await tempFolder();
    cleanups.push(cwd.remove);
    const tokens = join(cwd.path, 'tokens.json');
    reader = await addToken(tokens, 'reader', 'team', true);
    writer = await addToken(tokens, 'writer', 'team');
    target = await startHttpServer(
      ['--store', 'file:./data', '--tokens', tokens, '--rate', '1', '--burst', '20'],
      {
        cwd: cwd.path,
      },
    );
    cleanups.push(target.stop);
  });

  it('a 1M-element array from a read-only token gets 400 quickly, /healthz stays quick, and the log line is short', async () => {
    const body = `[${Array(1_000_000).fill('0').join(',')}]`;
    const started = performance.now();
    const [response, health] = await Promise.all([
      post(target, reader, body),
      (async () => {
        await new Promise((resolve) => setTimeout(resolve, 20));
        const sent = performance.now();
        await fetch(`${target.origin}/healthz`);
        return performance.now() - sent;
      })(),
    ]);
    expect(response.status).toBe(400);
    expect(performance.now() - started).toBeLessThan(1500);
    expect(health).toBeLessThan(500);
    const line = await target.waitFor(/outcome=batch-too-large/);
    expect(line.length).toBeLessThan(300);
  });

  it('a batch of 30 tool calls with a burst of 20 is refused: the rate is charged per call', async () => {
    const opened = await post(target, writer, JSON.stringify(INITIALIZE));
    const session = opened.headers.get('mcp-session-id')!;
    expect(session).toBeTruthy();
    const batch = Array.from({ length: 30 }, (_, id) => ({
      jsonrpc: '2.0',
      id: id + 1,
      method: 'tools/call',
      params: {
        name: 'memory',
        arguments: { command: 'create', path: `/memories/${id}.md`, file_text: 'x' },
      },
    }));
    const response = await post(target, writer, JSON.stringify(batch), session);
    expect(response.status).toBe(429);
    expect(response.headers.get('retry-after')).toMatch(/^\d+$/);
  });
});

describe('memdir serve --http: the tokens file', () => {
  it('a tokens file others may read is warned about at start and at each reload, and still served', async () => {
    const cwd = await tempFolder();
    cleanups.push(cwd.remove);
    const tokens = join(cwd.path, 'tokens.json');
    await addToken(tokens, 'alice', 'team');
    await chmod(tokens, 0o644);
    const target = await startHttpServer(['--store', 'memory:', '--tokens', tokens]);
    cleanups.push(target.stop);
    const warning = `memdir: warning: others may read the tokens file ${tokens} (mode 644): chmod 600 it`;
    await target.waitFor(/warning: others may read/);
    expect(
      target
        .stderr()
        .split('\n')
        .filter((line) => line === warning),
    ).toHaveLength(1);
    await chmod(tokens, 0o600);
    target.child.kill('SIGHUP');
    await target.waitFor(/reloaded 1 tokens/);
    await chmod(tokens, 0o640);
    target.child.kill('SIGHUP');
    await target.waitFor(/mode 640/);
    expect(
      target
        .stderr()
        .split('\n')
        .filter((line) => line.includes('others may read')),
    ).toEqual([
      warning,
      `memdir: warning: others may read the tokens file ${tokens} (mode 640): chmod 600 it`,
    ]);
    expect((await fetch(`${target.origin}/healthz`)).status).toBe(200);
  });
});

/** A POST of `body` with raw headers (fetch would not send `Host` as given). */
function rawPost(
  target: HttpServerProcess,
  headers: Record<string, string>,
  body: string,
): Promise<{ status: number; headers: Record<string, unknown>; body: string }> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(
      `${target.origin}/mcp`,
      {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          ...headers,
        },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8').on('data', (chunk: string) => {
          text += chunk;
        });
        response.on('end', () =>
          resolve({ status: response.statusCode!, headers: response.headers, body: text }),
        );
      },
    );
    request.on('error', reject);
    request.end(body);
  });
}

const FORBIDDEN = '{"jsonrpc":"2.0","error":{"code":-32000,"message":"Forbidden"},"id":null}';

describe('memdir serve --http: --allowed-host and --allowed-origin', () => {
  let target: HttpServerProcess;
  let token: string;

  beforeAll(async () => {
    const cwd = await tempFolder();
    cleanups.push(cwd.remove);
    const tokens = join(cwd.path, 'tokens.json');
    token = await addToken(tokens, 'alice', 'team');
    target = await startHttpServer([
      '--store',
      'memory:',
      '--tokens',
      tokens,
      '--allowed-host',
      '127.0.0.1',
      '--allowed-host',
      'memory.example.com:8443',
      '--allowed-origin',
      'https://app.example.com',
      '--allowed-origin',
      'http://localhost:5173',
    ]);
    cleanups.push(target.stop);
  });

  it('a browser at an allowed origin, through an allowed Host, is served, with CORS for its origin', async () => {
    for (const [host, origin] of [
      [new URL(target.origin).host, 'https://app.example.com'],
      ['MEMORY.example.com:8443', 'http://localhost:5173'],
    ] as const) {
      const answer = await rawPost(
        target,
        { host, origin, authorization: `Bearer ${token}` },
        JSON.stringify(INITIALIZE),
      );
      expect(answer.status, `${host} ${origin}`).toBe(200);
      expect(JSON.parse(answer.body).result.serverInfo.name).toBeTruthy();
      expect(answer.headers['access-control-allow-origin']).toBe(origin);
    }
  });

  it('a foreign Origin or Host gets 403 before the token is looked at, with no detail', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ origin: 'https://attacker.example' }, 'origin'],
      [{ origin: 'https://app.example.com:8443' }, 'origin'],
      [{ origin: 'null' }, 'origin'],
      [{ host: 'attacker.example' }, 'host'],
      [{ host: 'memory.example.com' }, 'host'],
      [{ host: 'memory.example.com:9999' }, 'host'],
    ];
    for (const [headers, refusal] of cases) {
      const answer = await rawPost(target, { authorization: 'Bearer memdir_wrong', ...headers }, '{}');
      expect(answer.status, JSON.stringify(headers)).toBe(403);
      expect(answer.body).toBe(FORBIDDEN);
      expect(answer.headers['www-authenticate']).toBeUndefined();
      expect(Object.keys(answer.headers).filter((key) => key.startsWith('access-control'))).toEqual([]);
      await target.waitFor(new RegExp(`outcome=${refusal} status=403`));
    }
    expect(target.stderr()).not.toContain('attacker');
  });

  it('a bad --allowed-host or --allowed-origin is a usage error, and neither goes without --http', async () => {
    const cwd = await tempFolder();
    cleanups.push(cwd.remove);
    const tokens = join(cwd.path, 'tokens.json');
    await addToken(tokens, 'alice', 'team');
    const serve = (...args: string[]) =>
      runCli(['serve', '--http', '127.0.0.1:0', '--store', 'memory:', '--tokens', tokens, ...args]);
    const origin = await serve('--allowed-origin', 'https://app.example.com/');
    expect(origin.code).toBe(2);
    expect(origin.stderr).toBe(
      'memdir: serve: --allowed-origin expects an origin as browsers send it, http(s)://HOST[:PORT] with no path (https://app.example.com), got "https://app.example.com/" (did you mean "https://app.example.com"?)\n',
    );
    const host = await serve('--allowed-host', 'https://memory.example.com');
    expect(host.code).toBe(2);
    expect(host.stderr).toBe(
      'memdir: serve: --allowed-host expects a host name as clients send it in Host (memory.example.com, memory.example.com:8443, [::1]:8787), got "https://memory.example.com"\n',
    );
    const stdio = await runCli([
      'serve',
      '--store',
      'memory:',
      '--allowed-origin',
      'https://app.example.com',
    ]);
    expect(stdio.code).toBe(2);
    expect(stdio.stderr).toContain('serve: --allowed-origin goes with --http HOST:PORT');
  });
});

describe('memdir serve --http: --quota-bytes and --quota-files', () => {
  it("a change past its namespace's quota gets the store's quota text and changes nothing; another namespace has its own", async () => {
    const cwd = await tempFolder();
    cleanups.push(cwd.remove);
    const tokens = join(cwd.path, 'tokens.json');
    const alice = await addToken(tokens, 'alice', 'team');
    const carol = await addToken(tokens, 'carol', 'team');
    const bob = await addToken(tokens, 'bob', 'bob');
    const target = await startHttpServer(
      ['--store', 'file:./data', '--tokens', tokens, '--quota-bytes', '100', '--quota-files', '2'],
      { cwd: cwd.path },
    );
    cleanups.push(target.stop);
    const call = async (token: string, args: Record<string, unknown>) => {
      const client = await httpClient(target, token);
      try {
        return await client.callTool({ name: 'memory', arguments: args });
      } finally {
        await client.close();
      }
    };
    const ok = (text: string) => ({ content: [{ type: 'text', text }] });
    const refused = (text: string) => ({
      content: [{ type: 'text', text: `Error: ${text}` }],
      isError: true,
    });

    expect(
      await call(alice, { command: 'create', path: '/memories/a.md', file_text: 'x'.repeat(10) }),
    ).toEqual(ok('File created successfully at: /memories/a.md'));
    // Carol shares alice's namespace, so she shares its quota.
    expect(
      await call(carol, { command: 'create', path: '/memories/b.md', file_text: 'y'.repeat(95) }),
    ).toEqual(
      refused(
        'The memory directory is full: saving /memories/b.md would use 105 of 100 bytes. Delete or shorten files in /memories first.',
      ),
    );
    expect(
      await call(carol, { command: 'create', path: '/memories/b.md', file_text: 'y'.repeat(5) }),
    ).toEqual(ok('File created successfully at: /memories/b.md'));
    expect(await call(alice, { command: 'create', path: '/memories/c.md', file_text: 'z' })).toEqual(
      refused('The memory directory is full: it holds 2 of 2 files. Delete files in /memories first.'),
    );
    expect(
      await call(alice, {
        command: 'str_replace',
        path: '/memories/a.md',
        old_str: 'x'.repeat(10),
        new_str: 'w'.repeat(96),
      }),
    ).toEqual(
      refused(
        'The memory directory is full: saving /memories/a.md would use 101 of 100 bytes. Delete or shorten files in /memories first.',
      ),
    );
    const listing = await call(alice, { command: 'view', path: '/memories' });
    expect((listing as { content: Array<{ text: string }> }).content[0]!.text).toMatch(
      /^Here're the files and directories up to 2 levels deep in \/memories[^\n]*\n[^\n]*\/memories\n[^\n]*\/memories\/a\.md\n[^\n]*\/memories\/b\.md$/,
    );
    expect(await call(alice, { command: 'view', path: '/memories/a.md' })).toEqual(
      ok(`Here's the content of /memories/a.md with line numbers:\n     1\t${'x'.repeat(10)}`),
    );
    // Bob's namespace starts empty, with a quota of its own.
    for (const name of ['a', 'b']) {
      expect(await call(bob, { command: 'create', path: `/memories/${name}.md`, file_text: 'b' })).toEqual(
        ok(`File created successfully at: /memories/${name}.md`),
      );
    }
    expect(await call(bob, { command: 'create', path: '/memories/c.md', file_text: 'b' })).toEqual(
      refused('The memory directory is full: it holds 2 of 2 files. Delete files in /memories first.'),
    );
  });

  it('a bad quota is a usage error', async () => {
    const cwd = await tempFolder();
    cleanups.push(cwd.remove);
    const tokens = join(cwd.path, 'tokens.json');
    await addToken(tokens, 'alice', 'team');
    const result = await runCli([
      'serve',
      '--http',
      '127.0.0.1:0',
      '--store',
      'memory:',
      '--tokens',
      tokens,
      '--quota-bytes',
      '10MB',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe('memdir: serve: --quota-bytes expects a positive number, got "10MB"\n');
  });
});
