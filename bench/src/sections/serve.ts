// `memdir serve --http` under load, on Redis and on PostgreSQL: 50 MCP clients (the MCP SDK's own
// StreamableHTTPClientTransport, one bearer token each, all on one namespace) send 200 commands each
// to one server process, as fast as it answers. Reported: errors, lost inserts (every client inserts
// into one shared file), throughput, p50 and p99 latency per command, the server's CPU time per
// command and its peak RSS. With `--baseline DIR` (a built checkout of an earlier commit), the same
// load runs against that build's `memdir serve --http` too, alternately with this build's, and the
// report compares throughput and CPU per command (issue 30's goals: at least 1.5x the commands/s of
// wave 3's server, at most 0.3 ms of server CPU per command). Last, the same load through HAProxy to
// two processes of this build.
import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { startServers } from '@memdir/test-support';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { VerificationError } from '../bench.js';
import { MEMDIR_BIN, startServe } from '../memdir-serve.js';
import type { BenchSection, SectionContext } from './section.js';

/** The goal of issue 23: p99 of `view` of a small file, with 50 clients at once. */
const VIEW_P99_GOAL_MS = 50;
/** Issue 30's goals: commands/s against the baseline build, and server CPU per command. */
const THROUGHPUT_GOAL = 1.5;
const CPU_GOAL_MS = 0.3;
/** Runs of each build per store when a baseline is given, alternating baseline and this build. */
const ALTERNATIONS = 2;

const BIN = MEMDIR_BIN;

type Step = 'insert' | 'create' | 'view' | 'str_replace';
const STEPS: Step[] = ['insert', 'create', 'view', 'str_replace'];
const SHARED = '/memories/shared.md';

interface Run {
  backend: string;
  /** `this build`, or `baseline` for the build given with `--baseline`. */
  build: string;
  clients: number;
  commands: number;
  errors: string[];
  lost: number;
  seconds: number;
  latencies: Record<Step, number[]>;
  peakRssKb: number | undefined;
  /** CPU time of the server process per command of the timed phase (user + system), in ms. */
  serverCpuMs: number | undefined;
  /** CPU time of this process (the clients) per command, in ms. */
  clientCpuMs: number;
}

function percentile(values: readonly number[], fraction: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(fraction * sorted.length) - 1)]!;
}

/** The arguments of client `n`'s command `i`: a quarter each of insert (shared), create, view, str_replace (own). */
function command(n: number, i: number): { step: Step; args: Record<string, unknown> } {
  const step = STEPS[i % 4]!;
  const own = `/memories/c${n}/f${(i - (i % 4)) % 20}.md`;
  switch (step) {
    case 'insert':
      return { step, args: { command: 'insert', path: SHARED, insert_line: 1, insert_text: `c${n}-${i}` } };
    case 'create':
      return { step, args: { command: 'create', path: own, file_text: `client ${n}, note ${i}\nv1` } };
    case 'view':
      return { step, args: { command: 'view', path: own } };
    case 'str_replace':
      return { step, args: { command: 'str_replace', path: own, old_str: 'v1', new_str: 'v2' } };
  }
}

function textOf(result: unknown): string {
  return (result as { content: Array<{ text: string }> }).content[0]!.text;
}

/** The server process's CPU time so far (user + system), in ms; undefined off Linux. */
async function cpuTime(child: ChildProcess): Promise<number | undefined> {
  try {
    const fields = (await readFile(`/proc/${child.pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    // utime and stime, in clock ticks of 10 ms (USER_HZ is 100 on Linux).
    return (Number(fields[11]) + Number(fields[12])) * 10;
  } catch {
    return undefined;
  }
}

/** The server's peak resident set (VmHWM), in KB, while it still runs; undefined off Linux. */
async function peakRss(child: ChildProcess): Promise<number | undefined> {
  try {
    const status = await readFile(`/proc/${child.pid}/status`, 'utf8');
    const match = /^VmHWM:\s+(\d+) kB/m.exec(status);
    return match ? Number(match[1]) : undefined;
  } catch {
    return undefined;
  }
}

async function startServer(bin: string, store: string, tokens: string, log: (line: string) => void) {
  const server = await startServe(store, tokens, { bin });
  log(`[serve] server on ${server.url.origin} (pid ${server.child.pid})`);
  return server;
}

async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

/**
 * HAProxy (Debian's package) in front of `origins`, round robin with no stickiness, as the CLI
 * README's scale-out recipe configures it; resolves with its `/mcp` URL once it routes.
 */
async function startHaproxy(dir: string, origins: URL[]): Promise<{ child: ChildProcess; url: URL }> {
  execFileSync('haproxy', ['-v']); // throws when haproxy is not installed
  const port = await freePort();
  const file = join(dir, 'haproxy.cfg');
  await writeFile(
    file,
    [
      'global',
      '    maxconn 4096',
      'defaults',
      '    mode http',
      '    timeout connect 5s',
      '    timeout client 65s',
      '    timeout server 65s',
      '    timeout http-keep-alive 60s',
      '    retries 3',
      '    option redispatch',
      'frontend memdir',
      `    bind 127.0.0.1:${port}`,
      '    default_backend memdir_processes',
      'backend memdir_processes',
      '    balance roundrobin',
      '    option httpchk GET /readyz',
      '    http-check expect status 200',
      '    default-server check inter 1s fall 2 rise 2',
      ...origins.map((origin, n) => `    server memdir${n + 1} ${origin.host}`),
      '',
    ].join('\n'),
  );
  const child = spawn('haproxy', ['-f', file, '-db'], { stdio: ['ignore', 'ignore', 'pipe'] });
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const origin = `http://127.0.0.1:${port}`;
  for (const started = Date.now(); ; ) {
    const status = await fetch(`${origin}/healthz`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) break;
    if (child.exitCode !== null || Date.now() - started > 15_000) {
      child.kill('SIGTERM');
      throw new Error(`haproxy did not serve /healthz (last ${status}):\n${stderr}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, url: new URL(`${origin}/mcp`) };
}

async function stopProcess(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

async function runLoad(
  build: { name: string; bin: string; processes: number },
  backend: string,
  store: string,
  context: SectionContext,
  clients: number,
  perClient: number,
): Promise<Run> {
  const dir = join(context.workDir, `serve-${backend.toLowerCase()}`);
  await mkdir(dir, { recursive: true });
  const namespace = `bench-serve-${process.pid}-${Date.now()}`;
  const secrets = Array.from(
    { length: clients },
    (_, n) => `memdir_bench_${n}_${Math.random().toString(36).slice(2)}`,
  );
  const { createHash } = await import('node:crypto');
  const tokens = join(dir, 'tokens.json');
  await writeFile(
    tokens,
    JSON.stringify({
      version: 1,
      tokens: secrets.map((secret, n) => ({
        name: `client-${n}`,
        namespace,
        mode: 'read-write',
        sha256: createHash('sha256').update(secret).digest('hex'),
        created: new Date().toISOString(),
      })),
    }),
    { mode: 0o600 },
  );
  const servers = await Promise.all(
    Array.from({ length: build.processes }, () => startServer(build.bin, store, tokens, context.log)),
  );
  const balancer =
    build.processes === 1
      ? undefined
      : await startHaproxy(
          dir,
          servers.map((server) => server.url),
        ).catch(async (error) => {
          for (const server of servers) await stopProcess(server.child);
          throw error;
        });
  const url = balancer?.url ?? servers[0]!.url;
  const serversCpu = async () => {
    let total = 0;
    for (const server of servers) {
      const used = await cpuTime(server.child);
      if (used === undefined) return undefined;
      total += used;
    }
    return total;
  };
  const connected: Client[] = [];
  try {
    for (const secret of secrets) {
      const client = new Client({ name: 'memdir-bench', version: '0.0.0' });
      await client.connect(
        new StreamableHTTPClientTransport(url, {
          requestInit: { headers: { Authorization: `Bearer ${secret}` } },
        }),
      );
      connected.push(client);
    }
    const call = (client: Client, args: Record<string, unknown>) =>
      client.callTool({ name: 'memory', arguments: args });
    await call(connected[0]!, { command: 'create', path: SHARED, file_text: 'start' });
    // Warm-up, untimed: each client writes its files once.
    await Promise.all(
      connected.map(async (client, n) => {
        for (let i = 1; i < 20; i += 4) await call(client, command(n, i).args);
      }),
    );
    context.log(`[serve] ${backend}, ${build.name}: ${clients} clients x ${perClient} commands`);
    const latencies: Record<Step, number[]> = { insert: [], create: [], view: [], str_replace: [] };
    const errors: string[] = [];
    const inserted = new Set<string>();
    const cpuBefore = await serversCpu();
    const clientCpu = process.cpuUsage();
    const started = performance.now();
    await Promise.all(
      connected.map(async (client, n) => {
        for (let i = 0; i < perClient; i++) {
          const { step, args } = command(n, i);
          const before = performance.now();
          try {
            const result = await call(client, args);
            latencies[step].push(performance.now() - before);
            if (result.isError) errors.push(`${step}: ${textOf(result)}`);
            else if (step === 'insert') inserted.add(String(args['insert_text']));
          } catch (error) {
            const cause = (error as Error).cause as { code?: string; message?: string } | undefined;
            errors.push(
              `${step}: ${(error as Error).message}${cause ? ` (${cause.code ?? cause.message})` : ''}`,
            );
          }
        }
      }),
    );
    const seconds = (performance.now() - started) / 1000;
    const clientCpuUsed = process.cpuUsage(clientCpu);
    const cpuAfter = await serversCpu();
    const commands = clients * perClient;
    const serverCpuMs =
      cpuBefore === undefined || cpuAfter === undefined ? undefined : (cpuAfter - cpuBefore) / commands;
    const clientCpuMs = (clientCpuUsed.user + clientCpuUsed.system) / 1000 / commands;
    const peaks = await Promise.all(servers.map((server) => peakRss(server.child)));
    const peakRssKb = peaks.includes(undefined) ? undefined : Math.max(...(peaks as number[]));

    // Every acknowledged insert is in the file, read back in ranges (a view shows 16,000 characters).
    const lines: string[] = [];
    for (let start = 1; ; start += 500) {
      const result = await call(connected[0]!, {
        command: 'view',
        path: SHARED,
        view_range: [start, start + 499],
      });
      if (result.isError) break;
      const body = textOf(result).split('\n').slice(1);
      lines.push(...body.filter((line) => !line.startsWith('[')).map((line) => line.slice(7)));
      if (body.length < 500) break;
    }
    const present = new Set(lines);
    const lost = [...inserted].filter((line) => !present.has(line)).length;
    await call(connected[0]!, { command: 'delete', path: SHARED });
    for (let n = 0; n < clients; n++)
      await call(connected[0]!, { command: 'delete', path: `/memories/c${n}` });
    return {
      backend,
      build: build.name,
      clients,
      commands,
      errors,
      lost,
      seconds,
      latencies,
      peakRssKb,
      serverCpuMs,
      clientCpuMs,
    };
  } finally {
    for (const client of connected) await client.close().catch(() => {});
    if (balancer !== undefined) await stopProcess(balancer.child);
    for (const server of servers) await stopProcess(server.child);
  }
}

function format(ms: number): string {
  return ms < 10 ? ms.toFixed(2) : ms.toFixed(1);
}

/** The middle value, or the mean of the middle two. */
function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** A run's name in the tables: the store, and the build when a baseline ran too. */
function label(run: Run, compared: boolean): string {
  return compared ? `${run.backend}, ${run.build}` : run.backend;
}

/** This build against the baseline, store by store: the median of each build's runs. */
function comparison(runs: Run[]): string[] {
  const lines = [
    '',
    `This build against the baseline, ${ALTERNATIONS} runs of each build per store, alternating (baseline first);`,
    'the medians of the runs. Goals: commands/s at least',
    `${THROUGHPUT_GOAL}x the baseline's, server CPU per command at most ${CPU_GOAL_MS} ms.`,
    '',
    '| store | commands/s this build | commands/s baseline | ratio | goal | server CPU ms/command this build | baseline | goal |',
    '|---|---:|---:|---:|---|---:|---:|---|',
  ];
  for (const backend of [...new Set(runs.map((run) => run.backend))]) {
    const of = (build: string) => runs.filter((run) => run.backend === backend && run.build === build);
    const rate = (group: Run[]) => median(group.map((run) => run.commands / run.seconds));
    const cpu = (group: Run[]) => {
      const known = group.flatMap((run) => (run.serverCpuMs === undefined ? [] : [run.serverCpuMs]));
      return known.length === 0 ? undefined : median(known);
    };
    const current = of('this build');
    const baseline = of('baseline');
    const ratio = rate(current) / rate(baseline);
    const cpuNow = cpu(current);
    const cpuThen = cpu(baseline);
    lines.push(
      `| ${backend} | ${Math.round(rate(current))} | ${Math.round(rate(baseline))} | ${ratio.toFixed(2)}x | ${ratio >= THROUGHPUT_GOAL ? 'PASS' : 'BELOW'} | ${cpuNow === undefined ? 'n/a' : cpuNow.toFixed(2)} | ${cpuThen === undefined ? 'n/a' : cpuThen.toFixed(2)} | ${cpuNow !== undefined && cpuNow <= CPU_GOAL_MS ? 'PASS' : 'ABOVE'} |`,
    );
  }
  return lines;
}

function report(runs: Run[]): string {
  const compared = runs.some((run) => run.build !== 'this build');
  const lines = [
    '## memdir serve --http under load',
    '',
    'One `memdir serve --http` process; the clients are the MCP SDK\u2019s `StreamableHTTPClientTransport`,',
    'in the bench process, one bearer token each, all on one namespace, each sending its next command',
    'as soon as the last is answered. A quarter of the commands insert a line into one shared file',
    '(the lost-insert check reads it back); the others create, view and edit small files of their own.',
    'The same load then goes through HAProxy (round robin, no stickiness) to two processes on the store;',
    'its CPU is the two processes\u2019 together and its RSS the larger peak.',
    `Goal: p99 of \`view\` of a small file under ${VIEW_P99_GOAL_MS} ms.`,
    '',
    '| store | clients x commands | errors | lost inserts | commands/s | p50 ms | p99 ms | view p50 ms | view p99 ms | goal | server peak RSS |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|---|---:|',
  ];
  for (const run of runs) {
    const all = STEPS.flatMap((step) => run.latencies[step]);
    const viewP99 = percentile(run.latencies.view, 0.99);
    lines.push(
      `| ${label(run, compared)} | ${run.clients} x ${run.commands / run.clients} | ${run.errors.length} | ${run.lost} | ${Math.round(run.commands / run.seconds)} | ${format(percentile(all, 0.5))} | ${format(percentile(all, 0.99))} | ${format(percentile(run.latencies.view, 0.5))} | ${format(viewP99)} | ${viewP99 < VIEW_P99_GOAL_MS ? 'PASS' : 'ABOVE'} | ${run.peakRssKb === undefined ? 'n/a' : `${(run.peakRssKb / 1024).toFixed(0)} MB`} |`,
    );
  }
  lines.push(
    '',
    'CPU time per command (user + system), which a busy machine inflates less than latency: the server',
    'process, and the bench process running the clients (the MCP SDK client, fetch).',
    '',
    '| store | server CPU ms/command | clients CPU ms/command |',
    '|---|---:|---:|',
    ...runs.map(
      (run) =>
        `| ${label(run, compared)} | ${run.serverCpuMs === undefined ? 'n/a' : run.serverCpuMs.toFixed(2)} | ${run.clientCpuMs.toFixed(2)} |`,
    ),
  );
  lines.push('', '| store | command | p50 ms | p99 ms |', '|---|---|---:|---:|');
  for (const run of runs) {
    for (const step of STEPS) {
      lines.push(
        `| ${label(run, compared)} | ${step} | ${format(percentile(run.latencies[step], 0.5))} | ${format(percentile(run.latencies[step], 0.99))} |`,
      );
    }
  }
  if (runs.some((run) => run.build === 'baseline')) lines.push(...comparison(runs));
  const failures = runs.flatMap((run) =>
    run.errors.slice(0, 3).map((error) => `- ${label(run, compared)}: ${error}`),
  );
  if (failures.length > 0) lines.push('', 'First errors:', ...failures);
  return lines.join('\n');
}

/**
 * @param baselineDir `--baseline DIR`: a built checkout of an earlier commit whose `memdir serve --http`
 *   runs the same load, alternately with this build's.
 */
export function serveSection(baselineDir?: string): BenchSection {
  const current = { name: 'this build', bin: BIN, processes: 1 };
  const balanced = { name: 'this build, 2 processes behind HAProxy', bin: BIN, processes: 2 };
  const builds =
    baselineDir === undefined
      ? [current]
      : Array.from({ length: ALTERNATIONS }, () => [
          { name: 'baseline', bin: join(baselineDir, 'packages', 'cli', 'dist', 'bin.js'), processes: 1 },
          current,
        ]).flat();
  return {
    id: 'serve',
    summary:
      'memdir serve --http: 50 MCP clients x 200 commands on Redis and PostgreSQL (p50, p99, CPU, peak RSS; with --baseline DIR, against that build)',
    async run(context: SectionContext) {
      const servers = await startServers(['redis', 'postgres'], { log: context.log });
      const clients = context.quick ? 10 : 50;
      const perClient = context.quick ? 40 : 200;
      let runs: Run[];
      try {
        runs = [];
        for (const [backend, url] of [
          ['Redis', servers.env['REDIS_URL']!],
          ['PostgreSQL', servers.env['DATABASE_URL']!],
        ] as const) {
          for (const build of [...builds, balanced]) {
            runs.push(await runLoad(build, backend, url, context, clients, perClient));
          }
        }
      } finally {
        await servers.stop();
      }
      const text = report(runs);
      if (runs.some((run) => run.lost > 0)) throw new VerificationError(`${text}\n\nInserts were lost.`);
      return text;
    },
  };
}
