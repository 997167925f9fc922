// The kit's question to an address whose server a client could not talk to: each kind of server
// is played by a few lines of net.Server that answer the two probes as the real one does.
import { createServer, type Server, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { probeServer, raceServerProbe, wrongServer } from '../src/driver/index.js';

const servers: Server[] = [];
afterEach(async () => {
  for (const server of servers.splice(0)) await new Promise((done) => server.close(done));
});

/** A server on 127.0.0.1 that answers each connection's first bytes with `answer` (or never). */
async function listen(answer: (first: Buffer) => string | 'close' | undefined): Promise<number> {
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    sockets.add(socket);
    socket.on('error', () => {});
    socket.once('data', (first: Buffer) => {
      const reply = answer(first);
      if (reply === 'close') socket.destroy();
      else if (reply !== undefined) socket.write(reply);
    });
  });
  server.on('close', () => {
    for (const socket of sockets) socket.destroy();
  });
  servers.push(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  const address = server.address();
  return typeof address === 'object' && address !== null ? address.port : 0;
}

describe('probeServer', () => {
  it('names HTTP, Redis and PostgreSQL by their answers, and a server that says nothing as silent', async () => {
    const http = await listen(() => 'HTTP/1.1 400 Bad Request\r\n\r\n');
    // Redis answers PING and waits for the end of a line that the SSLRequest never has.
    const redis = await listen((first) => (first.toString() === 'PING\r\n' ? '+PONG\r\n' : undefined));
    // PostgreSQL answers its SSLRequest with one byte and drops a connection that sends garbage.
    const postgres = await listen((first) => (first.length === 8 && first[7] === 47 ? 'N' : 'close'));
    const silent = await listen(() => undefined);
    expect(await probeServer('127.0.0.1', http, 500)).toBe('HTTP');
    expect(await probeServer('127.0.0.1', redis, 500)).toBe('Redis');
    expect(await probeServer('127.0.0.1', postgres, 500)).toBe('PostgreSQL');
    expect(await probeServer('127.0.0.1', silent, 300)).toBe('silent');
  });

  it('says nothing of a port nobody listens on, or one that closes every connection', async () => {
    const closing = await listen(() => 'close');
    expect(await probeServer('127.0.0.1', closing, 500)).toBeUndefined();
    expect(await probeServer('127.0.0.1', 1, 500)).toBeUndefined();
  });
});

describe('wrongServer', () => {
  it('is a misconfigured BACKEND error whose cause says the same sentence', () => {
    const error = wrongServer('Redis', 'HTTP');
    expect(error).toMatchObject({
      code: 'BACKEND',
      reason: 'misconfigured',
      outcome: 'not-applied',
      message:
        "The memory store is unavailable: the server found speaks HTTP, not Redis; check the port. Trying again will not help until the store's configuration is fixed.",
    });
    expect((error.cause as Error).message).toBe('the server found speaks HTTP, not Redis; check the port');
    expect((wrongServer('S3', 'silent', "the endpoint's port").cause as Error).message).toBe(
      "the server found accepted the connection but never answered, as S3 would; check the endpoint's port",
    );
  });
});

describe('raceServerProbe', () => {
  it('gives the work when it settles first, and the probe error when the probe finds another server first', async () => {
    expect(
      await raceServerProbe(
        Promise.resolve(1),
        async () => wrongServer('Redis', 'HTTP'),
        10,
        () => {},
      ),
    ).toBe(1);
    const late: Array<Promise<number>> = [];
    const never = new Promise<number>(() => {});
    await expect(
      raceServerProbe(
        never,
        async () => wrongServer('Redis', 'HTTP'),
        10,
        (work) => late.push(work),
      ),
    ).rejects.toMatchObject({ reason: 'misconfigured' });
    expect(late).toEqual([never]);
    // A probe that finds nothing leaves the work to settle on its own.
    const slow = new Promise<number>((resolve) => setTimeout(() => resolve(2), 50));
    expect(
      await raceServerProbe(
        slow,
        async () => undefined,
        10,
        () => {},
      ),
    ).toBe(2);
  });
});
