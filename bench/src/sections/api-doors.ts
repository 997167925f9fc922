// The memory stores API section's second table (issue 31): a create and an update through the API
// against the same change through the memory tool over MCP, on one `memdir serve --http` process
// (the CLI, as users run it) over Redis or PostgreSQL, timed call by call, interleaved. Goal: the API
// at most 1.5x the memory tool.
import type { ChildProcess } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { compare } from '../interleave.js';
import { startServe } from '../memdir-serve.js';
import type { SectionContext } from './section.js';

const secret = (name: string) => `memdir_bench_${name}_${Math.random().toString(36).slice(2)}`;
const hash = (token: string) => createHash('sha256').update(token).digest('hex');

async function startServer(store: string, tokens: string): Promise<{ child: ChildProcess; origin: string }> {
  const { child, url } = await startServe(store, tokens);
  return { child, origin: url.origin };
}

/** The two rows (create, update) of `label`'s store `storeUrl`. */
export async function doorRows(context: SectionContext, label: string, storeUrl: string): Promise<string[]> {
  const dir = join(context.workDir, `api-doors-${label.toLowerCase()}`);
  await mkdir(dir, { recursive: true });
  const admin = secret('admin');
  const agent = secret('agent');
  const namespace = `bench-doors-${process.pid}-${Date.now()}`;
  const tokens = join(dir, 'tokens.json');
  const created = new Date().toISOString();
  await writeFile(
    tokens,
    JSON.stringify({
      version: 1,
      tokens: [
        {
          name: 'admin',
          namespace: '=stores',
          mode: 'read-write',
          stores: true,
          sha256: hash(admin),
          created,
        },
        { name: 'agent', namespace, mode: 'read-write', sha256: hash(agent), created },
      ],
    }),
    { mode: 0o600 },
  );
  const server = await startServer(storeUrl, tokens);
  const mcp = new Client({ name: 'memdir-bench', version: '0.0.0' });
  let storeId: string | undefined;
  const api = async (method: string, path: string, body?: unknown) => {
    const response = await fetch(`${server.origin}/v1/memory_stores${path}`, {
      method,
      headers: { authorization: `Bearer ${admin}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    if (response.status !== 200) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return JSON.parse(text) as Record<string, unknown>;
  };
  try {
    await mcp.connect(
      new StreamableHTTPClientTransport(new URL(`${server.origin}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${agent}` } },
      }),
    );
    const tool = async (args: Record<string, unknown>) => {
      const result = (await mcp.callTool({ name: 'memory', arguments: args })) as {
        isError?: boolean;
        content: { text: string }[];
      };
      if (result.isError)
        throw new Error(`memory tool ${String(args['command'])}: ${result.content[0]?.text}`);
    };
    storeId = (await api('POST', '', { name: 'bench doors' }))['id'] as string;
    const memory = (await api('POST', `/${storeId}/memories`, { path: '/u.md', content: 'v0' }))[
      'id'
    ] as string;
    await tool({ command: 'create', path: '/memories/u.md', file_text: 'v0' });
    const body = 'a memory of a few lines\n'.repeat(8);
    let run = 0;
    let apiVersion = 0;
    let toolVersion = 0;
    const rounds = context.quick ? 2 : 5;
    const count = context.quick ? 20 : 60;
    const creates = await compare(
      {
        api: (index) => api('POST', `/${storeId}/memories`, { path: `/c/${run}-${index}.md`, content: body }),
        tool: (index) => tool({ command: 'create', path: `/memories/c/${run}-${index}.md`, file_text: body }),
      },
      rounds,
      count,
      async () => {
        run++;
      },
    );
    const updates = await compare(
      {
        api: () => api('POST', `/${storeId}/memories/${memory}`, { content: `v${++apiVersion}` }),
        tool: () =>
          tool({
            command: 'str_replace',
            path: '/memories/u.md',
            old_str: `v${toolVersion}`,
            new_str: `v${++toolVersion}`,
          }),
      },
      rounds,
      count,
    );
    const row = (what: string, result: typeof creates) => {
      const ratio = result.api.p50 / result.tool.p50;
      return `| ${label} | ${what} | ${(result.api.p50 / 1000).toFixed(2)} | ${(result.tool.p50 / 1000).toFixed(2)} | ${ratio.toFixed(2)}x | ${ratio <= 1.5 ? 'PASS' : 'ABOVE'} |`;
    };
    return [row('create', creates), row('update', updates)];
  } finally {
    await mcp.close().catch(() => {});
    if (storeId !== undefined) await api('DELETE', `/${storeId}`).catch(() => {});
    const exited = new Promise((resolve) => server.child.once('exit', resolve));
    server.child.kill('SIGTERM');
    await exited;
  }
}
