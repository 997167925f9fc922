// One process of the S3 contention measures (s3-contention.ts): it opens a store, warms its client
// (the server's probe, a connection) in a namespace of its own, says "ready", waits for "go" on
// stdin, runs its tool inputs `concurrency` at a time, and prints each one's outcome and times.
//   node s3-worker.js '<json: { clientConfig, store, commands, concurrency }>'
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { isMemoryToolError } from '@memdir/core';
import { createS3Store, type S3StoreOptions } from '@memdir/s3';

/** What the parent sends. */
export interface WorkerInput {
  readonly clientConfig: S3ClientConfig;
  readonly store: S3StoreOptions;
  readonly commands: readonly unknown[];
  readonly concurrency: number;
}

/** One command's outcome: `ok`, or the error code; and when it started and ended (epoch ms). */
export interface WorkerOutcome {
  readonly outcome: string;
  readonly start: number;
  readonly end: number;
}

const input = JSON.parse(process.argv[2]!) as WorkerInput;
const client = new S3Client(input.clientConfig);
const store = createS3Store({ ...input.store, client });
const warm = createS3Store({ ...input.store, client, namespace: `warm-${process.pid}`, quota: undefined });
await warm.create({ command: 'create', path: '/memories/warm.md', file_text: 'warm' });
await warm.delete({ command: 'delete', path: '/memories/warm.md' });
await store.view({ command: 'view', path: '/memories' });
process.stdout.write('ready\n');
await new Promise<void>((resolve) => process.stdin.once('data', () => resolve()));

const outcomes: WorkerOutcome[] = new Array(input.commands.length);
let next = 0;
const lane = async () => {
  while (next < input.commands.length) {
    const index = next++;
    const start = Date.now();
    let outcome = 'ok';
    try {
      await store.execute(input.commands[index]);
    } catch (error) {
      outcome = isMemoryToolError(error)
        ? error.code === 'BACKEND'
          ? `BACKEND (${error.reason})`
          : error.code
        : 'thrown';
    }
    outcomes[index] = { outcome, start, end: Date.now() };
  }
};
await Promise.all(Array.from({ length: input.concurrency }, lane));
await store.close();
await warm.close();
client.destroy();
process.stdout.write(`${JSON.stringify(outcomes)}\n`);
