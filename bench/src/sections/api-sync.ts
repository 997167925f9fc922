// The quiet sync of the memory stores API section (issue 31): Anthropic's `SessionMemoryStores`
// (`@anthropic-ai/sdk` 1.17.0, unchanged) mirrors a store of 2,000 memories into a folder, then syncs
// again with nothing changed on either side. Every request of its client goes through a counting
// `fetch` into the server's fetch handler in process: requests, bytes each way, and how many of them
// carry memory content (a body with `content`, or an answer with a non-null `content`). Goal: the
// quiet sync moves no content.
import { mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import Anthropic from '@anthropic-ai/sdk';
import { SessionMemoryStores } from '@anthropic-ai/sdk/tools/agent-toolset/node';
import type { SectionContext } from './section.js';

/** What the client sent and got during one step. */
interface Traffic {
  requests: number;
  /** Requests whose body or answer held memory content. */
  withContent: number;
  /** Bytes of memory content in bodies and answers. */
  contentBytes: number;
  sentBytes: number;
  receivedBytes: number;
  /** `METHOD /path-shape` -> count, ids replaced by `{id}`. */
  byRoute: Map<string, number>;
}

const emptyTraffic = (): Traffic => ({
  requests: 0,
  withContent: 0,
  contentBytes: 0,
  sentBytes: 0,
  receivedBytes: 0,
  byRoute: new Map(),
});

/** The UTF-8 bytes of every non-null `content` string in `value` (a parsed JSON body). */
function contentBytesOf(value: unknown): number {
  if (Array.isArray(value)) return value.reduce<number>((sum, item) => sum + contentBytesOf(item), 0);
  if (value === null || typeof value !== 'object') return 0;
  let sum = 0;
  for (const [key, field] of Object.entries(value)) {
    sum +=
      key === 'content' && typeof field === 'string' ? Buffer.byteLength(field) + 1 : contentBytesOf(field);
  }
  return sum;
}

function parsed(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}

/** A `fetch` into `handler` that counts into `traffic()` (the step being measured). */
function countingFetch(handler: (request: Request) => Promise<Response>, traffic: () => Traffic) {
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const request = new Request(input, init);
    const sent = request.body === null ? '' : await request.clone().text();
    const response = await handler(request);
    const received = await response.clone().text();
    const counted = traffic();
    const url = new URL(request.url);
    const route = `${request.method} ${url.pathname.replace(/\/(memstore|mem|memver)_[A-Za-z0-9_-]+/g, '/{id}')}${url.searchParams.get('view') === 'full' ? ' view=full' : ''}`;
    counted.requests++;
    counted.sentBytes += Buffer.byteLength(sent);
    counted.receivedBytes += Buffer.byteLength(received);
    // `content: ""` counts as content too (the 1 added per field): an empty memory's content was moved.
    const content = contentBytesOf(parsed(sent)) + contentBytesOf(parsed(received));
    if (content > 0) counted.withContent++;
    counted.contentBytes += content;
    counted.byRoute.set(route, (counted.byRoute.get(route) ?? 0) + 1);
    return response;
  };
}

function row(label: string, step: string, traffic: Traffic, ms: number, goal: string): string {
  const routes = [...traffic.byRoute].map(([route, count]) => `${count} x \`${route}\``).join(', ');
  return `| ${label} | ${step} | ${traffic.requests} | ${traffic.withContent} | ${traffic.contentBytes} | ${traffic.sentBytes} | ${traffic.receivedBytes} | ${ms.toFixed(0)} | ${routes} | ${goal} |`;
}

/** The download and a quiet sync of store `storeId`, through `handler`, as two rows of the table. */
export async function quietSyncRows(
  context: SectionContext,
  label: string,
  storeId: string,
  token: string,
  handler: (request: Request) => Promise<Response>,
): Promise<string[]> {
  let traffic = emptyTraffic();
  const client = new Anthropic({
    baseURL: 'http://memdir.bench',
    apiKey: token,
    maxRetries: 0,
    logLevel: 'warn',
    fetch: countingFetch(handler, () => traffic) as never,
  });
  const workdir = await mkdtemp(join(context.workDir, 'api-sync-'));
  const sync = new SessionMemoryStores(client, { workdir });
  try {
    let started = performance.now();
    await sync.download({
      resources: [
        {
          type: 'memory_store',
          memory_store_id: storeId,
          mount_path: join(workdir, 'mnt'),
          name: 'bench',
          access: 'read_write',
        },
      ],
    } as never);
    const download = row(label, 'download', traffic, performance.now() - started, '');
    context.log(`[api] ${label}: downloaded, ${traffic.requests} requests`);
    traffic = emptyTraffic();
    started = performance.now();
    // `syncAll`, the SDK's own tests' deterministic driver (`syncIfDue` waits 5 s at least).
    await (sync as unknown as { syncAll(final: boolean): Promise<void> }).syncAll(false);
    const quiet = traffic.withContent === 0 ? 'PASS' : 'ABOVE';
    return [download, row(label, 'sync, nothing changed', traffic, performance.now() - started, quiet)];
  } finally {
    await sync.dispose();
    await rm(workdir, { recursive: true, force: true });
  }
}
