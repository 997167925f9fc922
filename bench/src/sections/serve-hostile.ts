// `memdir serve --http` under hostile load: how long `/healthz` takes while clients misbehave
// (issue 30: "a /healthz sent meanwhile answers within 100 ms"). One server process on a `memory:`
// store (health never touches the store); `/healthz` is probed one request at a time, first on a
// quiet server, then while, together: clients post a JSON array of 1M elements (2 MB, refused
// before any parse) with a valid token, one after another; slowloris connections send a header
// line a second; readers send calls and never read their answers; idle connections sit open.
import { type ChildProcess, fork } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { get } from 'node:http';
import { connect, type Socket } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';
import { startServe } from '../memdir-serve.js';
import type { BenchSection, SectionContext } from './section.js';

/** Issue 30's goal for `/healthz` under hostile load. */
const HEALTH_GOAL_MS = 100;
const SECRET = 'memdir_bench_hostile';
/** The argument that makes this module, forked, run the hostile clients (apart from the prober). */
const ATTACKER = 'serve-hostile-attacker';

interface Phase {
  name: string;
  latencies: number[];
  failures: number;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)] ?? Number.NaN;
}

async function startServer(dir: string): Promise<{ child: ChildProcess; origin: string }> {
  const tokens = join(dir, 'tokens.json');
  await writeFile(
    tokens,
    JSON.stringify({
      version: 1,
      tokens: [
        {
          name: 'hostile',
          namespace: 'bench-hostile',
          mode: 'read-only',
          sha256: createHash('sha256').update(SECRET).digest('hex'),
          created: new Date().toISOString(),
        },
      ],
    }),
    { mode: 0o600 },
  );
  const { child, url } = await startServe('memory:', tokens, { rate: ['--rate', '1000000'] });
  const origin = url.origin;
  return { child, origin };
}

/** Probes `/healthz` `count` times, one at a time, each on a connection of its own. */
async function probe(origin: string, name: string, count: number): Promise<Phase> {
  const phase: Phase = { name, latencies: [], failures: 0 };
  for (let index = 0; index < count; index++) {
    const started = performance.now();
    const status = await new Promise<number>((resolve) => {
      // A connection of its own (no agent), as a load balancer's health check makes.
      const request = get(`${origin}/healthz`, { agent: false, timeout: 5_000 }, (response) => {
        response.resume();
        response.once('end', () => resolve(response.statusCode ?? 0));
      });
      request.once('timeout', () => request.destroy());
      request.once('error', () => resolve(0));
    });
    if (status === 200) phase.latencies.push(performance.now() - started);
    else phase.failures++;
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  return phase;
}

/** Starts the hostile clients; resolves to a function that stops them. */
function attack(origin: string): () => Promise<void> {
  const { hostname, port } = new URL(origin);
  const sockets: Socket[] = [];
  const open = () => {
    const socket = connect(Number(port), hostname);
    socket.on('error', () => {});
    sockets.push(socket);
    return socket;
  };
  let stopped = false;
  // Large arrays, two clients each posting the next as soon as the last is answered.
  const array = `[${'0,'.repeat(999_999)}0]`;
  const posters = Array.from({ length: 2 }, async () => {
    while (!stopped) {
      await fetch(`${origin}/mcp`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${SECRET}`,
          accept: 'application/json, text/event-stream',
          'content-type': 'application/json',
        },
        body: array,
      }).then(
        (response) => response.arrayBuffer(),
        () => undefined,
      );
    }
  });
  // Slowloris: a header line a second, never the end of the headers.
  const slow = Array.from({ length: 50 }, () => {
    const socket = open();
    socket.write(`POST /mcp HTTP/1.1\r\nHost: ${hostname}\r\n`);
    return socket;
  });
  const drip = setInterval(() => {
    for (const socket of slow) if (!socket.destroyed) socket.write(`X-Slow-${Date.now()}: 1\r\n`);
  }, 1_000);
  // Readers that never read: many calls pipelined on each connection, the answers left unread.
  const call = JSON.stringify({
    jsonrpc: '2.0',
    id: 1,
    method: 'tools/call',
    params: { name: 'memory', arguments: { command: 'view', path: '/memories' } },
  });
  const request =
    `POST /mcp HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: Bearer ${SECRET}\r\n` +
    `Accept: application/json, text/event-stream\r\nContent-Type: application/json\r\n` +
    `Content-Length: ${Buffer.byteLength(call)}\r\n\r\n${call}`;
  for (let index = 0; index < 10; index++) {
    const socket = open();
    socket.pause();
    socket.write(request.repeat(200));
  }
  // Idle connections: open, silent.
  for (let index = 0; index < 300; index++) open();
  return async () => {
    stopped = true;
    clearInterval(drip);
    for (const socket of sockets) socket.destroy();
    await Promise.all(posters);
  };
}

async function measure(context: SectionContext): Promise<Phase[]> {
  const dir = join(context.workDir, 'serve-hostile');
  await mkdir(dir, { recursive: true });
  const { child, origin } = await startServer(dir);
  const count = context.quick ? 50 : 200;
  try {
    const quiet = await probe(origin, 'quiet', count);
    context.log(`[serve-hostile] hostile clients on ${origin}`);
    // The hostile clients run in a process of their own, so the probes' times are the server's.
    const attacker = fork(fileURLToPath(import.meta.url), [ATTACKER, origin], { stdio: 'ignore' });
    const finished = new Promise((resolve) => attacker.once('exit', resolve));
    try {
      await new Promise((resolve, reject) => {
        attacker.once('message', resolve);
        attacker.once('exit', (code) => reject(new Error(`the hostile clients stopped (${code})`)));
      });
      // Let the attack build up (the posters' first arrays in flight, every socket open) first.
      await new Promise((resolve) => setTimeout(resolve, 1_000));
      const hostile = await probe(origin, 'hostile', count);
      return [quiet, hostile];
    } finally {
      attacker.send('stop');
      await finished;
    }
  } finally {
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  }
}

function report(phases: Phase[]): string {
  return [
    '## memdir serve --http: /healthz under hostile load',
    '',
    'One `memdir serve --http` process (store `memory:`). `/healthz` probed one request at a time, a',
    'new connection each, 20 ms apart: on a quiet server, then while 2 clients post a JSON array of 1M',
    'elements (2 MB) one after another, 50 slowloris connections send a header line a second, 10',
    'connections pipeline 200 calls each and never read, and 300 connections sit idle.',
    `Goal: /healthz within ${HEALTH_GOAL_MS} ms (p99).`,
    '',
    '| server | probes answered | failed | p50 ms | p99 ms | max ms | goal |',
    '|---|---:|---:|---:|---:|---:|---|',
    ...phases.map((phase) => {
      const p99 = percentile(phase.latencies, 0.99);
      return `| ${phase.name} | ${phase.latencies.length} | ${phase.failures} | ${percentile(phase.latencies, 0.5).toFixed(1)} | ${p99.toFixed(1)} | ${Math.max(...phase.latencies).toFixed(1)} | ${phase.failures === 0 && p99 <= HEALTH_GOAL_MS ? 'PASS' : 'ABOVE'} |`;
    }),
  ].join('\n');
}

export function serveHostileSection(): BenchSection {
  return {
    id: 'serve-hostile',
    summary:
      'memdir serve --http: /healthz p50/p99 while hostile clients (1M-element arrays, slowloris, non-readers, idle connections) hit it',
    async run(context: SectionContext) {
      return report(await measure(context));
    },
  };
}

if (process.argv[2] === ATTACKER && process.send !== undefined) {
  const stop = attack(process.argv[3]!);
  process.once('message', () => {
    void stop().then(() => process.exit(0));
  });
  process.send('started');
}
