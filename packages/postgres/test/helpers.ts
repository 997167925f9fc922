import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { databaseUrl } from '@memdir/test-support';
import pg from 'pg';

/** The PostgreSQL the tests run against (DATABASE_URL, set by the servers setup). */
export { databaseUrl };

/** A pool for the tests' own queries (with the error listener pg asks for). */
export function testPool(options: pg.PoolConfig = {}): pg.Pool {
  const pool = new pg.Pool({ connectionString: databaseUrl(), max: 4, ...options });
  pool.on('error', () => {});
  return pool;
}

/** A schema name no other test uses. */
export function freshSchema(prefix = 'mdt'): string {
  return `${prefix}_${process.pid}_${Math.random().toString(36).slice(2, 10)}`;
}

export async function dropSchema(pool: pg.Pool, schema: string): Promise<void> {
  await pool.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
}

export const WORKER = fileURLToPath(new URL('./fixtures/worker.mjs', import.meta.url));

export interface WorkerResult {
  ok?: string | boolean;
  code?: string;
  error?: string;
}

/**
 * Starts one worker process per argument list, all at once (each waits until every one is ready),
 * and resolves with what each printed.
 */
export async function runWorkers(argLists: string[][]): Promise<unknown[]> {
  const children = argLists.map((args) =>
    spawn(process.execPath, [WORKER, ...args], { stdio: ['pipe', 'pipe', 'pipe'] }),
  );
  const outputs = children.map(
    (child) =>
      new Promise<{ stdout: string; stderr: string; code: number | null }>((resolve) => {
        let stdout = '';
        let stderr = '';
        child.stdout.on('data', (chunk) => {
          stdout += chunk;
        });
        child.stderr.on('data', (chunk) => {
          stderr += chunk;
        });
        child.on('exit', (code) => resolve({ stdout, stderr, code }));
      }),
  );
  await Promise.all(
    children.map(
      (child) =>
        new Promise<void>((resolve, reject) => {
          child.stdout.once('data', () => resolve());
          child.once('exit', () => reject(new Error('a worker exited before it was ready')));
        }),
    ),
  );
  for (const child of children) child.stdin.end('go\n');
  const done = await Promise.all(outputs);
  return done.map(({ stdout, stderr, code }) => {
    if (code !== 0) throw new Error(`worker failed (${code}): ${stderr}`);
    return JSON.parse(stdout.slice(stdout.indexOf('\n') + 1));
  });
}

/** A database URL naming another database on the same server. */
export function otherDatabase(name: string): string {
  const url = new URL(databaseUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

/**
 * A pool whose connections report the text of every statement they send to `seen` (the real
 * server answers each one): for tests that count what a driver sends.
 */
export function countingPool(seen: (text: string) => void, options: pg.PoolConfig = {}): pg.Pool {
  const pool = testPool(options);
  const connect = pool.connect.bind(pool) as () => Promise<pg.PoolClient>;
  (pool as { connect: unknown }).connect = async () => {
    const client = await connect();
    const query = client.query.bind(client) as (config: { text?: string }) => unknown;
    if (!(client as { counted?: boolean }).counted) {
      (client as { counted?: boolean }).counted = true;
      (client as { query: unknown }).query = (config: { text?: string }, ...rest: unknown[]) => {
        seen(typeof config === 'string' ? config : (config?.text ?? ''));
        return (query as (...args: unknown[]) => unknown)(config, ...rest);
      };
    }
    return client;
  };
  return pool;
}
