// `memdir serve --http` against clients that hold connections without using them (../shared/research
// wave 4, finding 5): thousands of idle connections, slowloris (headers or a body sent a byte at a
// time), a client that never reads its response. Each is cut, and a /healthz sent meanwhile answers.
// The bounds asserted are generous: the machine is shared, and speed is the bench's to measure.

import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { boundConnections } from '../src/http-connections.js';
import { tempFolder } from './helpers.js';
import { addToken, type HttpServerProcess, httpClient, startHttpServer, textOf } from './http-server.js';

const cleanups: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A raw connection to `target`, and a promise that resolves once the server has closed it. */
function open(target: HttpServerProcess): Promise<{ socket: Socket; closed: Promise<void> }> {
  const { hostname, port } = new URL(target.origin);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname);
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.on('error', () => {});
    socket.once('connect', () => resolve({ socket, closed }));
    socket.once('error', reject);
  });
}

/** Resolves to true once `closed` has, false if `ms` pass first. */
function closedWithin(closed: Promise<void>, ms: number): Promise<boolean> {
  return Promise.race([closed.then(() => true), sleep(ms).then(() => false)]);
}

async function healthz(target: HttpServerProcess): Promise<number> {
  return (await fetch(`${target.origin}/healthz`)).status;
}

/** The server still does real work: a token's client creates and views a file. */
async function stillServes(target: HttpServerProcess, token: string, name: string): Promise<void> {
  const client = await httpClient(target, token);
  try {
    const path = `/memories/${name}.md`;
    await client.callTool({ name: 'memory', arguments: { command: 'create', path, file_text: name } });
    expect(textOf(await client.callTool({ name: 'memory', arguments: { command: 'view', path } }))).toBe(
      `Here's the content of ${path} with line numbers:\n     1\t${name}`,
    );
  } finally {
    await client.close();
  }
}

describe('memdir serve --http: connections held without being used', () => {
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
      '--max-connections',
      '200',
      '--headers-timeout',
      '2',
      '--request-timeout',
      '4',
      '--write-timeout',
      '1',
      '--max-file-bytes',
      '8000000',
      '--max-view-chars',
      '9000000',
      '--rate',
      '1000',
      '--burst',
      '1000',
    ]);
    cleanups.push(target.stop);
  });

  it('2,000 idle connections: past --max-connections the longest idle are closed, /healthz answers, the rest are cut by --headers-timeout', async () => {
    const idle = [];
    for (let batch = 0; batch < 20; batch++) {
      idle.push(...(await Promise.all(Array.from({ length: 100 }, () => open(target)))));
    }
    expect(await healthz(target)).toBe(200);
    // Each connection past the 200th closed one that was idle: 1,800 at least are closed already.
    await sleep(500);
    const closedNow = await Promise.all(idle.map(({ closed }) => closedWithin(closed, 0)));
    expect(closedNow.filter(Boolean).length).toBeGreaterThanOrEqual(1800);
    // The others sent no headers within 2 s: every one is closed well within 15 s.
    const closedLater = await Promise.all(idle.map(({ closed }) => closedWithin(closed, 15_000)));
    expect(closedLater.filter((closed) => !closed)).toEqual([]);
    await stillServes(target, token, 'after-idle');
  });

  it('slowloris: headers or a body sent a byte at a time are cut, and /healthz answers meanwhile', async () => {
    const slow = await Promise.all(Array.from({ length: 60 }, () => open(target)));
    const headers = slow.slice(0, 50);
    const bodies = slow.slice(50);
    for (const { socket } of headers) socket.write('POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\n');
    for (const { socket } of bodies) {
      socket.write(
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
          'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
          'Content-Length: 100000\r\n\r\n{',
      );
    }
    const drip = setInterval(() => {
      for (const { socket } of headers) if (!socket.destroyed) socket.write('X');
      for (const { socket } of bodies) if (!socket.destroyed) socket.write(' ');
    }, 200);
    try {
      await sleep(500);
      expect(await healthz(target)).toBe(200);
      const cut = await Promise.all(slow.map(({ closed }) => closedWithin(closed, 20_000)));
      expect(cut.filter((closed) => !closed)).toEqual([]);
    } finally {
      clearInterval(drip);
    }
    // A body cut short is logged as such, not as a server error, and no stack trace is written.
    await target.waitFor(/token=alice method=POST command=- outcome=aborted status=400 /);
    expect(target.stderr()).not.toMatch(/status=500|\n\s+at /);
    await stillServes(target, token, 'after-slowloris');
  });

  it('a client that never reads its response is cut by --write-timeout, logged, and /healthz answers meanwhile', async () => {
    // A response of 4.5 MB (under the 5 MiB a message may carry), asked four times on each
    // connection at once (HTTP pipelining): more than the kernel's buffers take, so most of it
    // waits in the server until the client reads.
    const big = 'm'.repeat(4_500_000);
    const writer = await httpClient(target, token);
    await writer.callTool({
      name: 'memory',
      arguments: { command: 'create', path: '/memories/big.md', file_text: big },
    });
    await writer.close();
    const request = JSON.stringify({
      jsonrpc: '2.0',
      id: 1,
      method: 'tools/call',
      params: { name: 'memory', arguments: { command: 'view', path: '/memories/big.md' } },
    });
    const readers = await Promise.all(Array.from({ length: 3 }, () => open(target)));
    for (const { socket } of readers) {
      socket.pause();
      const post =
        `POST /mcp HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\n` +
        'Content-Type: application/json\r\nAccept: application/json, text/event-stream\r\n' +
        `Content-Length: ${Buffer.byteLength(request)}\r\n\r\n${request}`;
      socket.write(post.repeat(4));
    }
    await sleep(500);
    expect(await healthz(target)).toBe(200);
    // Each of the three is cut (and only then read from, or reading would set it moving again).
    const cuts = () =>
      target
        .stderr()
        .split('\n')
        .filter(
          (line) => line === 'memdir: cut a connection of 127.0.0.1: its response did not move for 1 s',
        );
    for (let waited = 0; cuts().length < 3 && waited < 20_000; waited += 100) await sleep(100);
    expect(cuts()).toHaveLength(3);
    // Read what got through before the cut: less than the four responses, then the connection ends.
    for (const { socket, closed } of readers) {
      let received = 0;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
      });
      socket.resume();
      expect(await closedWithin(closed, 20_000)).toBe(true);
      expect(received).toBeGreaterThan(0);
      expect(received).toBeLessThan(4 * big.length);
    }
    await stillServes(target, token, 'after-non-reader');
  });
});

describe('boundConnections', () => {
  it('past the cap a newcomer closes the connection idle longest, or is closed itself when every one is busy', async () => {
    const held: Array<() => void> = [];
    const http = createServer((request, response) => {
      if (request.url === '/hold') held.push(() => response.end('held'));
      else response.end('ok');
    });
    boundConnections(http, { max: 2, silentTimeoutMs: 60_000, writeTimeoutMs: 60_000 });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => new Promise((resolve) => http.close(resolve)));
    const { port } = http.address() as AddressInfo;
    const target = { origin: `http://127.0.0.1:${port}` } as HttpServerProcess;
    const ask = (socket: Socket, path: string) => socket.write(`GET ${path} HTTP/1.1\r\nHost: x\r\n\r\n`);
    const answered = (socket: Socket) => new Promise((resolve) => socket.once('data', resolve));

    // Two idle connections, the first idle longest: a third closes the first.
    const first = await open(target);
    ask(first.socket, '/');
    await answered(first.socket);
    const second = await open(target);
    ask(second.socket, '/');
    await answered(second.socket);
    const third = await open(target);
    expect(await closedWithin(first.closed, 5000)).toBe(true);
    expect(await closedWithin(second.closed, 200)).toBe(false);

    // Both open connections busy: a newcomer is closed, and they are answered.
    ask(second.socket, '/hold');
    ask(third.socket, '/hold');
    while (held.length < 2) await sleep(10);
    const fourth = await open(target);
    expect(await closedWithin(fourth.closed, 5000)).toBe(true);
    expect(await closedWithin(second.closed, 0)).toBe(false);
    const answers = [answered(second.socket), answered(third.socket)];
    for (const release of held) release();
    await Promise.all(answers);
    second.socket.destroy();
    third.socket.destroy();
  });
});
