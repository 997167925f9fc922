// One `dropNamespace` in a process of its own (tenants.ts), so that its peak RSS is the drop's and
// not the bench's: it opens the driver, drops the namespace through core's admin, and prints the
// seconds the drop took, what it removed, and the process's RSS before and at its peak.
//   node tenants-drop-worker.js '<json: DropInput>'
import { S3Client, type S3ClientConfig } from '@aws-sdk/client-s3';
import { createMemoryAdmin, type MemoryDriver } from '@memdir/core';
import { createFsDriver } from '@memdir/fs';
import { createPostgresDriver } from '@memdir/postgres';
import { createRedisDriver } from '@memdir/redis';
import { createS3Driver } from '@memdir/s3';

/** What the parent sends: the backend, and the namespace to drop. */
export type DropInput = { readonly namespace: string } & (
  | { readonly kind: 'redis'; readonly url: string; readonly keyPrefix: string }
  | { readonly kind: 'postgres'; readonly url: string; readonly schema: string }
  | { readonly kind: 'fs'; readonly root: string }
  | {
      readonly kind: 's3';
      readonly clientConfig: S3ClientConfig;
      readonly bucket: string;
      readonly prefix: string;
    }
);

/** What the worker prints (one JSON line). */
export interface DropOutput {
  readonly seconds: number;
  readonly removed: number;
  /** RSS once the driver is open, before the drop, and the process's peak, in KiB. */
  readonly rssBeforeKb: number;
  readonly peakRssKb: number;
}

function driverOf(input: DropInput): MemoryDriver {
  switch (input.kind) {
    case 'redis':
      return createRedisDriver({ url: input.url, keyPrefix: input.keyPrefix });
    case 'postgres':
      return createPostgresDriver({ connectionString: input.url, schema: input.schema });
    case 'fs':
      return createFsDriver({ root: input.root });
    case 's3':
      return createS3Driver({
        client: new S3Client(input.clientConfig),
        bucket: input.bucket,
        prefix: input.prefix,
      });
  }
}

const input = JSON.parse(process.argv[2]!) as DropInput;
const driver = driverOf(input);
const admin = createMemoryAdmin(driver);
// The connection made before the clock starts (a usage call is one round trip on the servers).
await admin.usage(input.namespace);
const rssBeforeKb = Math.round(process.memoryUsage.rss() / 1024);
const started = performance.now();
const { removed } = await admin.dropNamespace(input.namespace);
const seconds = (performance.now() - started) / 1000;
await admin.close();
await driver.close();
const output: DropOutput = { seconds, removed, rssBeforeKb, peakRssKb: process.resourceUsage().maxRSS };
process.stdout.write(`${JSON.stringify(output)}\n`);
