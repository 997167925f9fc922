// `memdir serve --http` against a hostile token holder (../shared/research wave 4, findings 2 and 4):
// a huge JSON array is refused after one scan, quickly and with a short log line, and a batch of
// tool calls pays the rate per call.
import { chmod } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tempFolder } from './helpers.js';
import { addToken, type HttpServerProcess, startHttpServer } from './http-server.js';

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
