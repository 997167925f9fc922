// Stand-ins, shaped like @memdir/test-support's startFaultProxy and startPrivatePostgres, for the
// fault tests and the bench until that package is on main.
import { execFileSync } from 'node:child_process';
import { chownSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export type FaultMode = 'pass' | 'stall' | 'reset';

export interface FaultProxy {
  readonly port: number;
  /** The target URL with the proxy's address in its place. */
  readonly url: string;
  setMode(mode: FaultMode): void;
  stats(): { connections: number; turns: number; bytesToServer: number; bytesToClient: number };
  resetStats(): void;
  close(): Promise<void>;
}

/**
 * A loopback TCP proxy to `target`. `stall` forwards nothing either way (bytes wait and flow on
 * when the mode changes), `reset` destroys every connection, open and new. It counts turns: a
 * turn starts whenever the client sends after the server last spoke on that connection.
 */
export async function startFaultProxy(options: { target: string }): Promise<FaultProxy> {
  const target = new URL(options.target);
  let mode: FaultMode = 'pass';
  const stats = { connections: 0, turns: 0, bytesToServer: 0, bytesToClient: 0 };
  const links = new Set<{ client: Socket; server: Socket; held: Array<[Socket, Buffer]> }>();
  const server: Server = createServer((client) => {
    if (mode === 'reset') {
      client.resetAndDestroy();
      return;
    }
    stats.connections++;
    const upstream = createConnection({ host: target.hostname, port: Number(target.port) });
    const link = { client, server: upstream, held: [] as Array<[Socket, Buffer]> };
    links.add(link);
    let clientTurn = false;
    const forward = (to: Socket, chunk: Buffer) => {
      if (mode === 'stall') link.held.push([to, chunk]);
      else to.write(chunk);
    };
    client.on('data', (chunk: Buffer) => {
      if (!clientTurn) stats.turns++;
      clientTurn = true;
      stats.bytesToServer += chunk.length;
      forward(upstream, chunk);
    });
    upstream.on('data', (chunk: Buffer) => {
      clientTurn = false;
      stats.bytesToClient += chunk.length;
      forward(client, chunk);
    });
    const drop = () => {
      links.delete(link);
      client.destroy();
      upstream.destroy();
    };
    client.on('close', drop);
    upstream.on('close', drop);
    client.on('error', drop);
    upstream.on('error', drop);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  const url = new URL(options.target);
  url.hostname = '127.0.0.1';
  url.port = String(port);
  return {
    port,
    url: url.toString(),
    setMode(next) {
      mode = next;
      for (const link of [...links]) {
        if (next === 'reset') {
          link.client.resetAndDestroy();
          link.server.destroy();
        } else if (next === 'pass') {
          for (const [to, chunk] of link.held.splice(0)) to.write(chunk);
        }
      }
    },
    stats: () => ({ ...stats }),
    resetStats() {
      Object.assign(stats, { connections: 0, turns: 0, bytesToServer: 0, bytesToClient: 0 });
    },
    async close() {
      for (const link of links) {
        link.client.destroy();
        link.server.destroy();
      }
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface PrivatePostgres {
  readonly port: number;
  /** `postgres://postgres@127.0.0.1:PORT/postgres`. */
  readonly url: string;
  /** Fast shutdown, then a start on the same port and data. */
  restart(): Promise<void>;
  stop(): Promise<void>;
  close(): Promise<void>;
}

function postgresBin(): string {
  const root = '/usr/lib/postgresql';
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  const found = versions
    .map((version) => join(root, version, 'bin'))
    .find((bin) => existsSync(join(bin, 'initdb')));
  if (!found) throw new Error('PostgreSQL is not installed (no /usr/lib/postgresql/*/bin/initdb)');
  return found;
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

/** A throwaway PostgreSQL of the test's own (initdb as the postgres user when run as root). */
export async function startPrivatePostgres(): Promise<PrivatePostgres> {
  const bin = postgresBin();
  const dir = mkdtempSync(join(tmpdir(), 'memdir-pg-private-'));
  const data = join(dir, 'data');
  mkdirSync(data, { mode: 0o700 });
  const asRoot = process.getuid?.() === 0;
  const owner = asRoot
    ? {
        uid: Number(execFileSync('id', ['-u', 'postgres']).toString()),
        gid: Number(execFileSync('id', ['-g', 'postgres']).toString()),
      }
    : undefined;
  if (owner) {
    chownSync(dir, owner.uid, owner.gid);
    chownSync(data, owner.uid, owner.gid);
  }
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '-A', 'trust', '-E', 'UTF8', '--locale=C.UTF-8', '--no-sync'],
    {
      stdio: 'pipe',
      ...(owner ?? {}),
    },
  );
  const port = await freePort();
  const ctl = (args: string[]) =>
    execFileSync(join(bin, 'pg_ctl'), ['-D', data, '-w', '-t', '30', ...args], {
      stdio: 'pipe',
      ...(owner ?? {}),
    });
  const start = () =>
    ctl([
      '-l',
      join(dir, 'server.log'),
      '-o',
      `-p ${port} -k ${dir} -c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c max_connections=300`,
      'start',
    ]);
  const stop = () => {
    if (existsSync(join(data, 'postmaster.pid'))) ctl(['-m', 'fast', 'stop']);
  };
  start();
  let closed = false;
  return {
    port,
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    async restart() {
      stop();
      start();
    },
    async stop() {
      stop();
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        stop();
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    },
  };
}
